"""Seeded dealer feeds for the live-statistics tests, each with its own account of every round
(the cards seen before its betting closed, the cards that decided it), and a reference that
computes the statistics from that account alone: the engine's quotes and bet rules, no table,
no journal, no settlement."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pricing.analysis.live import LiveReport
from pricing.cards import DECK, Card, Rank
from pricing.games import blackjack, goagae, hilo
from pricing.games.baccarat import Hand, next_hand_dealt
from pricing.games.blackjack.hands import dealer_hand_result
from pricing.games.blackjack.rules import DealerRule
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.games.higher_lower import DEFAULT_BURNS
from pricing.journal import Record
from pricing.tables import FeedEvent, Table, TableConfig


@dataclass
class Dealt:
    """A feed: its events, and per round with a result the cards seen before it and the cards
    that decided it (blackjack: each seat's two, then the dealer's two)."""

    events: list[FeedEvent] = field(default_factory=list)
    rounds: list[tuple[tuple[Card, ...], tuple[Card, ...]]] = field(default_factory=list)
    voids: int = 0


def hilo_feed(
    decks: int, seed: int, *, without: Sequence[Rank] = (), void_rate: float = 0.05
) -> Dealt:
    """``decks`` Hi-Lo decks (5 burns, 10 results; now and then a burn during betting, which
    voids the round); ``without``: ranks taken out of every deck (a biased shoe)."""
    rng = random.Random(seed)
    out = Dealt()
    for d in range(decks):
        if d:
            out.events.append(NewShoe())
        cards = [c for c in DECK if c.rank not in without]
        rng.shuffle(cards)
        seen: list[Card] = []
        results = 0
        while results < hilo.RESULTS_PER_DECK:
            card = cards.pop()
            betting = len(seen) >= hilo.OPENING_BURNS
            if betting and rng.random() >= void_rate:
                out.rounds.append((tuple(seen), (card,)))
                out.events.append(ExposeCard(card, CardRole.RESULT))
                results += 1
            else:
                out.voids += betting
                out.events.append(ExposeCard(card, CardRole.BURN))
            seen.append(card)
    return out


def goagae_feed(decks: int, seed: int, *, void_rate: float = 0.05) -> Dealt:
    """Goa Gae decks of 8 rounds, each three PLAYER and three DEALER cards in turn then
    EndRound; now and then a round is voided after its first card."""
    rng = random.Random(seed)
    out = Dealt()
    for d in range(decks):
        if d:
            out.events.append(NewShoe())
        cards = list(DECK)
        rng.shuffle(cards)
        seen: list[Card] = []
        for _ in range(8):
            before = tuple(seen)
            if rng.random() < void_rate:
                seen.append(cards.pop())
                out.events += [ExposeCard(seen[-1], CardRole.BURN), VoidRound()]
                out.voids += 1
                continue
            hand = []
            for role in [CardRole.PLAYER, CardRole.DEALER] * 3:
                seen.append(cards.pop())
                out.events.append(ExposeCard(seen[-1], role))
                if role is CardRole.PLAYER:
                    hand.append(seen[-1])
            out.events.append(EndRound())
            out.rounds.append((before, tuple(hand)))
    return out


def blackjack_feed(
    shoes: int, seed: int, *, seats: int = 3, rounds: int = 30, dealer_plays: bool = False
) -> Dealt:
    """Depleting 6-deck shoes of ``rounds`` rounds each: a card to each seat, the dealer's,
    a second to each seat, the dealer's second, EndRound (the side bets on the first cards
    need no more); ``dealer_plays``: the seats stand and the dealer draws to S17 before the
    EndRound, as the bets on the dealer's hand (Bust It) need (``rounds`` then keeps the
    dealer's first two cards)."""
    rng = random.Random(seed)
    out = Dealt()
    for s in range(shoes):
        if s:
            out.events.append(NewShoe())
        cards = list(DECK) * 6
        rng.shuffle(cards)
        seen: list[Card] = []
        for _ in range(rounds):
            before = tuple(seen)
            hands: list[list[Card]] = [[] for _ in range(seats)]
            dealer = []
            for _ in range(2):
                for seat in range(1, seats + 1):
                    seen.append(cards.pop())
                    hands[seat - 1].append(seen[-1])
                    out.events.append(ExposeCard(seen[-1], CardRole.PLAYER, seat))
                seen.append(cards.pop())
                dealer.append(seen[-1])
                out.events.append(ExposeCard(seen[-1], CardRole.DEALER))
            drawn = list(dealer)
            while dealer_plays and dealer_hand_result(drawn, DealerRule.S17) is None:
                seen.append(cards.pop())
                drawn.append(seen[-1])
                out.events.append(ExposeCard(seen[-1], CardRole.DEALER))
            out.events.append(EndRound())
            out.rounds.append((before, (*(c for h in hands for c in h), *dealer)))
    return out


def two_hands_feed(game: str, shoes: int, seed: int, *, decks: int = 1) -> Dealt:
    """Seeded ``baccarat`` or ``dragon_tiger`` shoes of ``decks`` decks, dealt round by round
    (baccarat by its tableau) to 8 cards from the end; each shoe after the first starts with
    NewShoe, and now and then a round is voided after its first card (only ``events`` and
    ``voids`` are kept)."""
    rng = random.Random(seed)
    out = Dealt()
    for s in range(shoes):
        if s:
            out.events.append(NewShoe())
        cards = list(DECK) * decks
        rng.shuffle(cards)
        while len(cards) > 8:
            if game == "dragon_tiger":
                dealt = [(CardRole.DRAGON, cards.pop()), (CardRole.TIGER, cards.pop())]
            else:
                hands: dict[Hand, list[Card]] = {Hand.PLAYER: [], Hand.BANKER: []}
                dealt = []
                while hand := next_hand_dealt(*hands.values()):
                    hands[hand].append(cards.pop())
                    role = CardRole.PLAYER if hand is Hand.PLAYER else CardRole.BANKER
                    dealt.append((role, hands[hand][-1]))
            if rng.random() < 0.05:
                out.events += [ExposeCard(dealt[0][1], dealt[0][0]), VoidRound()]
                out.voids += 1
                continue
            out.events += [ExposeCard(card, role) for role, card in dealt]
    return out


def higher_lower_feed(rounds: int, seed: int) -> Dealt:
    """``rounds`` seeded rounds of a continuous Higher/Lower shoe at its default rules: a base
    card, then each round's burns and its result (only ``events`` are kept)."""
    rng = random.Random(seed)
    deck = [card for card in DECK if card.rank is not Rank.TEN]  # the game has no tens
    out = Dealt([ExposeCard(rng.choice(deck), CardRole.RESULT)])
    for _ in range(rounds):
        out.events += [ExposeCard(rng.choice(deck), CardRole.BURN) for _ in range(DEFAULT_BURNS)]
        out.events.append(ExposeCard(rng.choice(deck), CardRole.RESULT))
    return out


def journal_of(
    table_id: str, config: TableConfig, events: Sequence[FeedEvent], start: float = 0.0
) -> list[Record]:
    """The records a server would journal for ``events``: event ``k`` accepted at
    ``start + k`` seconds."""
    table = Table(table_id, config, keep_journal=True)
    for seq, event in enumerate(events, start=1):
        table.apply(seq, event)
    assert table.journal is not None
    return [Record(table_id, e, start + i) for i, e in enumerate(table.journal)]


@dataclass
class Expected:
    """The reference's figures for one bet: sums over its unit stakes, in units."""

    stakes: int = 0
    wins: int = 0
    returned: Fraction = field(default_factory=Fraction)
    expected: Fraction = field(default_factory=Fraction)
    variance: Fraction = field(default_factory=Fraction)

    def add(self, chances: Sequence[tuple[Fraction, int]], won_pays: Sequence[int | None]) -> None:
        """A round's stake on a bet whose outcomes happen with ``chances`` (probability, pays
        in hundredths), one unit on each of ``len(won_pays)`` seats (one: a bet without
        seats): ``won_pays`` what the outcome that happened on each pays, ``None``: lost. One
        stake, returning the seats' mean; a win if any seat won; one seat's variance."""
        mean = sum((p * (100 + pays) / 100 for p, pays in chances), Fraction(0))
        square = sum((p * ((100 + pays) / Fraction(100)) ** 2 for p, pays in chances), Fraction(0))
        self.stakes += 1
        self.expected += mean
        self.variance += square - mean * mean
        won = [Fraction(100 + pays, 100) for pays in won_pays if pays is not None]
        self.wins += bool(won)
        self.returned += sum(won, Fraction(0)) / len(won_pays)


def reference(game: str, dealt: Dealt) -> dict[str, Expected]:
    """The statistics of ``dealt``'s rounds from the engines alone (default paytables)."""
    out: dict[str, Expected] = {}
    for seen, decided in dealt.rounds:
        if game in ("hilo", "goagae"):
            engine = hilo if game == "hilo" else goagae
            for bet, price in engine.quote(seen).items():
                if price.open:
                    wins = (
                        hilo.bet_wins(bet, decided[0])
                        if game == "hilo"
                        else goagae.bet_wins(bet, decided)
                    )
                    chance = Fraction(price.wins, price.remaining)
                    out.setdefault(bet, Expected()).add(
                        [(chance, price.payout_hundredths)],
                        [price.payout_hundredths if wins else None],
                    )
            continue
        odds = blackjack.side_bets(seen, decks=6)
        dealer = decided[-2:]
        players = [decided[2 * seat : 2 * seat + 2] for seat in range(len(decided) // 2 - 1)]
        for bet, o in odds.items():
            seats_pay = []
            for player in players:
                if bet == "ROYAL_MATCH":
                    _, pays = blackjack.classify_royal_match(player, dealer)
                else:
                    _, pays = blackjack.classify_pair(player, blackjack.PERFECT_PAIRS)
                seats_pay.append(pays if pays >= 0 else None)
            chances = [(x.fraction, x.payout_hundredths) for x in o.outcomes.values()]
            winning = [(p, pays_) for p, pays_ in chances if pays_ >= 0]
            out.setdefault(bet, Expected()).add(winning, seats_pay)
    return out


def assert_matches(report: LiveReport, game: str, dealt: Dealt) -> None:
    """``report`` says, exactly, what the reference says of ``dealt``'s rounds."""
    want = reference(game, dealt)
    assert set(report.bets) == set(want)
    for bet, stats in report.bets.items():
        ref = want[bet]
        assert (stats.stakes, stats.wins) == (ref.stakes, ref.wins), bet
        assert stats.returned == ref.returned / ref.stakes, bet
        assert stats.expected == ref.expected / ref.stakes, bet
        assert stats.variance == ref.variance, bet
