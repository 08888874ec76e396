"""The demo dealer ``pricing simulate`` deals with: one shuffled shoe of Hi-Lo, Goa Gae,
blackjack, Higher/Lower, baccarat or Dragon Tiger into a table's dealer feed, as a card reader
would, voiding a round now and then."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from pricing.cards import parse_cards
from pricing.client import DealerFeed
from pricing.games.baccarat.tableau import Hand, next_hand_dealt
from pricing.games.blackjack.hands import dealer_hand_result, hand_total
from pricing.games.blackjack.strategy import player_draws
from pricing.v1 import pricing_pb2 as pb

__all__ = ["DemoDealer", "Show"]

#: Shows a state the dealer's action brought: the action, the card (or ""), the state.
Show = Callable[[str, str, pb.TableState], None]


@dataclass
class DemoDealer:
    """Deals one shuffled shoe of a game into a table (``pricing simulate``)."""

    feed: DealerFeed
    rng: random.Random
    void_rate: float
    show: Show
    continuous: bool = False  # the round's cards go back at its end (not Hi-Lo, Goa Gae)
    seats: int = 1  # blackjack: the seats dealt to
    rule: str = "S17"  # blackjack: how the dealer draws (the table's rule)
    patient: Callable[[Callable[[], pb.TableState]], pb.TableState] = lambda call: call()

    def deal(self, card: str, role: str, seat: int = 0) -> pb.TableState:
        state = self.patient(lambda: self.feed.expose(card, role, seat))
        self.show(f"SEAT {seat}" if seat else role, card, state)
        return state

    def void(self) -> pb.TableState:
        state = self.patient(self.feed.void)
        self.show("VOID", "", state)
        return state

    def end_round(self) -> pb.TableState:
        """End the round, or now and then void it."""
        if self.rng.random() < self.void_rate:
            return self.void()
        state = self.patient(self.feed.end_round)
        self.show("END", "", state)
        return state

    def shuffle_back(self, cards: list[str], dealt: list[str]) -> None:
        """A continuous shuffler takes a round's ``dealt`` cards back into ``cards``."""
        if self.continuous:
            cards.extend(dealt)
            self.rng.shuffle(cards)

    def hilo(self, state: pb.TableState, cards: list[str]) -> None:
        """5 burns, 10 results; a card shown during betting is a burn that voids the round
        (with --void-rate 1 every card is a burn, until the deck is out)."""
        while state.phase != pb.PHASE_SHOE_COMPLETE and cards:
            role = "RESULT"
            if state.phase == pb.PHASE_OPENING or self.rng.random() < self.void_rate:
                role = "BURN"
            state = self.deal(cards.pop(), role)

    def higher_lower(self, state: pb.TableState, cards: list[str]) -> None:
        """The base card, then rounds of 3 burns and a result (now and then a round is voided
        before its result). A depleting shoe is dealt until it is complete; a continuous
        shuffler deals 50 rounds, every card but the base going back after each."""
        state = self.deal(cards.pop(), "RESULT")
        rounds = 0
        while state.phase == pb.PHASE_BETTING and len(cards) > 3:
            if self.continuous and rounds == 50:
                break
            dealt = [cards.pop() for _ in range(3)]
            for card in dealt:
                state = self.deal(card, "BURN")
            if self.rng.random() < self.void_rate:
                state = self.void()
            else:
                base = state.base_card
                dealt.append(cards.pop())
                state = self.deal(dealt[-1], "RESULT")
                dealt[-1] = base  # the old base goes back; the result is the new one
            rounds += 1
            self.shuffle_back(cards, dealt)

    def goagae(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds of three PLAYER and three DEALER cards, dealt in turn, until the deck is out."""
        while state.phase != pb.PHASE_SHOE_COMPLETE and cards:
            for role in (["PLAYER", "DEALER"] * 3)[: len(cards)]:
                self.deal(cards.pop(), role)
            state = self.end_round()

    def blackjack(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds dealt and played as a dealer does (``blackjack_round``). A depleting shoe is
        dealt to a cut card three quarters of the way in; a continuous shuffle deals 20
        rounds, its cards going back after each."""
        cut = max(len(cards) // 4, 2 * self.seats + 1)  # always enough for the first cards
        rounds = 0
        while (rounds < 20) if self.continuous else (len(cards) > cut):
            dealt = self.blackjack_round(cards)
            self.end_round()
            rounds += 1
            self.shuffle_back(cards, dealt)

    def blackjack_round(self, cards: list[str]) -> list[str]:
        """One round (no hole card): a card to each seat, the dealer's up card, a second card
        to each seat; each seat draws by ``player_draws`` (it stops on a blackjack, 21 or a
        bust); then, unless every seat is bust, the dealer draws until the table's rule stands
        (``dealer_hand_result``). A shoe running out ends the draws. Returns the cards dealt."""
        dealt: list[str] = []

        def draw(role: str, seat: int = 0) -> str:
            card = cards.pop()
            dealt.append(card)
            self.deal(card, role, seat)
            return card

        hands: dict[int, list[str]] = {seat: [] for seat in range(1, self.seats + 1)}
        for seat, hand in hands.items():
            hand.append(draw("PLAYER", seat))
        dealer = [draw("DEALER")]
        for seat, hand in hands.items():
            hand.append(draw("PLAYER", seat))
        for seat, hand in hands.items():
            while cards and player_draws(hand, dealer[0]):
                hand.append(draw("PLAYER", seat))
        if any(hand_total(hand)[0] <= 21 for hand in hands.values()):
            while cards and dealer_hand_result(dealer, self.rule) is None:
                dealer.append(draw("DEALER"))
        return dealt

    def baccarat(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds dealt as the tableau calls for them (Player, Banker, Player, Banker, then the
        third cards it draws), until fewer than 6 cards are left; now and then a round is
        voided after its first card. A continuous shuffler deals 50 rounds, each round's cards
        going back after it."""
        rounds = 0
        while state.phase == pb.PHASE_BETTING and len(cards) >= 6:
            if self.continuous and rounds == 50:
                break
            hands: dict[Hand, list[str]] = {Hand.PLAYER: [], Hand.BANKER: []}
            dealt: list[str] = []
            while hand := next_hand_dealt(*(parse_cards(h) for h in hands.values())):
                hands[hand].append(cards.pop())
                dealt.append(hands[hand][-1])
                state = self.deal(dealt[-1], hand.value)
                if len(dealt) == 1 and self.rng.random() < self.void_rate:
                    state = self.void()
                    break
            rounds += 1
            self.shuffle_back(cards, dealt)

    def dragon_tiger(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds of a Dragon card and a Tiger card until one card is left; now and then a
        round is voided after its Dragon card. A continuous shuffler deals 50 rounds."""
        rounds = 0
        while state.phase == pb.PHASE_BETTING and len(cards) >= 2:
            if self.continuous and rounds == 50:
                break
            dealt = [cards.pop()]
            state = self.deal(dealt[0], "DRAGON")
            if self.rng.random() < self.void_rate:
                state = self.void()
            else:
                dealt.append(cards.pop())
                state = self.deal(dealt[1], "TIGER")
            rounds += 1
            self.shuffle_back(cards, dealt)
