"""Live Hi-Lo (docs/rules.md §1): bets on the next result card, priced from the rest of the deck.

A configuration of the next-card game (``pricing.games.next_card``): one 52-card deck, ace
low, five bets on fixed sets of ranks. One 52-card deck per shoe. The first 5 cards are the
opening burn; then each round is decided by one result card, 10 results per deck. Every card
seen face up, whatever its role, leaves the deck and moves every price.

>>> prices = quote(["7H", "KS", "2D", "9C", "QH"])
>>> prices["LOW"].wins, prices["LOW"].remaining, prices["LOW"].payout_hundredths
(23, 47, 96)
>>> prices["SEVEN"].payout_hundredths
1208
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from typing import ClassVar, Final

from pricing._payout import BetPrice
from pricing.cards import CARD_INDEX, CARDS_PER_DECK, Card, Rank, card_index, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput
from pricing.games.events import (
    CardRole,
    EndRound,
    ExposeCard,
    FeedEvent,
    NewShoe,
    VoidRound,
)
from pricing.games.next_card import NextCardBet, NextCardDeck, NextCardGame
from pricing.payout import PayRule, Paytable, closed

__all__ = [
    "BETS",
    "DEFAULT_PAYTABLE",
    "HILO_GAME",
    "OPENING_BURNS",
    "RESULTS_PER_DECK",
    "BetPrice",
    "HiLoDeck",
    "HiLoPaytable",
    "Phase",
    "RoundOutcome",
    "bet_wins",
    "next_card_quotes",
    "quote",
    "quote_rank_counts",
    "winning_ranks",
]

OPENING_BURNS: Final = 5
RESULTS_PER_DECK: Final = 10


def _ranks(*numbers: int) -> frozenset[Rank]:
    return frozenset(Rank(n) for n in numbers)


#: Hi-Lo as a next-card game: one deck of 52, ace low; a 7 loses every bet but SEVEN.
HILO_GAME: Final = NextCardGame(
    deck=NextCardDeck(decks=1, ranks=tuple(Rank)),
    bets=(
        NextCardBet("LOW", ranks=_ranks(1, 2, 3, 4, 5, 6)),
        NextCardBet("HIGH", ranks=_ranks(8, 9, 10, 11, 12, 13)),
        NextCardBet("ODD", ranks=_ranks(1, 3, 5, 9, 11, 13)),
        NextCardBet("EVEN", ranks=_ranks(2, 4, 6, 8, 10, 12)),
        NextCardBet("SEVEN", ranks=_ranks(7)),
    ),
)

#: The five bets, in the order every price list uses.
BETS: Final[tuple[str, ...]] = HILO_GAME.names


def winning_ranks(bet: str) -> tuple[int, ...]:
    """The ranks (1–13) on which ``bet`` wins.

    >>> winning_ranks("ODD")
    (1, 3, 5, 9, 11, 13)
    """
    return tuple(sorted(int(r) for r in HILO_GAME.by_name[bet].ranks))


def bet_wins(bet: str, card: Card) -> bool:
    """Whether ``bet`` wins when ``card`` is the result.

    >>> bet_wins("HIGH", parse_card("8S")), bet_wins("HIGH", parse_card("7S"))
    (True, False)
    """
    if bet not in BETS:
        raise InvalidInput(f"unknown Hi-Lo bet {bet!r}: expected one of {', '.join(BETS)}")
    return HILO_GAME.wins(bet, card, None)


#: The published rules (docs/rules.md §1): with these RTPs the extremes over every reachable deck
#: state (5 to 14 cards exposed) are exactly the published payout range.
EVEN_CHANCE_RULE: Final = PayRule(rtp_bp=9600, min_hundredths=52, max_hundredths=264)
SEVEN_RULE: Final = PayRule(rtp_bp=8350, min_hundredths=693, max_hundredths=3824)


@dataclass(frozen=True, slots=True)
class HiLoPaytable(Paytable):
    """RTP and payout range of each bet. The default is the published table (docs/rules.md §1):
    96.0 % for LOW/HIGH/ODD/EVEN paying 0.52–2.64 : 1, 83.5 % for SEVEN paying 6.93–38.24 : 1.

    >>> HiLoPaytable(seven=PayRule(9000, 100, 5000)).seven.rtp_bp
    9000
    """

    BETS: ClassVar[tuple[str, ...]] = BETS
    GAME: ClassVar[str] = "Hi-Lo"

    low: PayRule = EVEN_CHANCE_RULE
    high: PayRule = EVEN_CHANCE_RULE
    odd: PayRule = EVEN_CHANCE_RULE
    even: PayRule = EVEN_CHANCE_RULE
    seven: PayRule = SEVEN_RULE


DEFAULT_PAYTABLE: Final = HiLoPaytable()


def quote(
    exposed: Iterable[Card | str], paytable: HiLoPaytable = DEFAULT_PAYTABLE
) -> dict[str, BetPrice]:
    """Prices of the five bets on the next card, given every card seen in this deck.

    Raises ``InvalidCard`` for bad text and ``CardNotInShoe`` for a card seen twice.

    >>> quote([])["HIGH"].payout_hundredths  # 0.96 × 52/24 − 1 = 1.08
    108
    """
    return HILO_GAME.quote(exposed, None, paytable)


def next_card_quotes(
    exposed: Iterable[Card | str], paytable: HiLoPaytable = DEFAULT_PAYTABLE
) -> dict[str, dict[str, BetPrice]]:
    """For each rank still in the deck (``"A"`` … ``"K"``), the prices that would follow if a
    card of that rank came next: lets a game server pre-stage the next screen.

    >>> sorted(next_card_quotes(["7S", "7H", "7D", "7C"]))[:3], "7" in next_card_quotes(["7S"])
    (['10', '2', '3'], True)
    """
    return HILO_GAME.kernel(paytable).staged_by_rank(
        exposed, 1, CARD_INDEX, card_index, HILO_GAME.absent_mask
    )


def quote_rank_counts(
    counts: Sequence[int], paytable: HiLoPaytable = DEFAULT_PAYTABLE
) -> dict[str, BetPrice]:
    """Prices for a deck holding ``counts[r]`` cards of rank ``r + 1`` (13 entries).

    >>> quote_rank_counts([4] * 13)["SEVEN"].wins
    4
    """
    if len(counts) != len(Rank):
        raise ValueError(f"need 13 rank counts, got {len(counts)}")
    cards = [0] * CARDS_PER_DECK
    for r, count in enumerate(counts):
        if count < 0:
            raise ValueError(f"rank count must be >= 0, got {count} for rank {r + 1}")
        cards[4 * r] = count  # the bets do not read suits: the whole rank on one
    return HILO_GAME.price_counts(cards, None, paytable)


class Phase(Enum):
    """Where a deck is in its life."""

    OPENING = "OPENING"  # the opening burns are being dealt; no bets
    BETTING = "BETTING"  # a round is open for bets on the next result
    SHOE_COMPLETE = "SHOE_COMPLETE"  # the 10th result or the last card is out: a new shoe next


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How a betting round ended: its result card, or ``None`` when it was void."""

    round_id: int
    result_index: int
    result: Card | None


@dataclass(frozen=True)
class HiLoDeck:
    """The state of a Hi-Lo table's deck: a pure fold of the events it accepted.

    Every transition returns a new state and leaves this one as it was; a rejected event raises
    and changes nothing. ``outcome`` is the round the last event ended, if any.

    >>> deck = HiLoDeck()
    >>> for text in ["2S", "3S", "4S", "5S", "6S"]:
    ...     deck = deck.expose(parse_card(text), CardRole.BURN)
    >>> deck.phase, deck.result_index, deck.round_id
    (<Phase.BETTING: 'BETTING'>, 1, 1)
    >>> deck = deck.expose(parse_card("KH"), CardRole.RESULT)
    >>> deck.outcome
    RoundOutcome(round_id=1, result_index=1, result=Card.parse('KH'))
    >>> deck.result_index, deck.round_id
    (2, 2)
    """

    paytable: HiLoPaytable = DEFAULT_PAYTABLE
    shoe: int = 1
    exposed: tuple[Card, ...] = ()
    phase: Phase = Phase.OPENING
    result_index: int = 0
    round_id: int = 0
    outcome: RoundOutcome | None = None

    @property
    def cards_remaining(self) -> int:
        return CARDS_PER_DECK - len(self.exposed)

    @property
    def betting(self) -> bool:
        return self.phase is Phase.BETTING

    @cached_property
    def prices(self) -> dict[str, BetPrice]:
        """The five bets' prices; every bet is closed outside ``BETTING``."""
        live = quote(self.exposed, self.paytable)
        if self.phase is Phase.BETTING:
            return live
        return closed(live)

    def apply(self, event: FeedEvent) -> HiLoDeck:
        """The state after ``event``."""
        match event:
            case ExposeCard(card=card, role=role):
                return self.expose(card, role)
            case VoidRound():
                return self.void_round()
            case NewShoe():
                return self.new_shoe()
            case EndRound():
                raise IllegalMove("Hi-Lo has no EndRound: a result card ends its round")
        raise InvalidInput(f"unknown event {event!r}")

    def expose(self, card: Card, role: CardRole) -> HiLoDeck:
        """A card was turned face up.

        Interpretation (docs/rules.md §1): a BURN while betting is open is "a card exposed during
        betting": the round is void and a new round opens, for the same result, on the new
        prices. A RESULT is accepted only while betting is open. After the 10th result no card
        is accepted until a new shoe; nor once the deck has no card left (its last card ended
        the round open: decided by a result, void for a burn).
        """
        card = parse_card(card)
        if role not in (CardRole.BURN, CardRole.RESULT):
            raise InvalidInput(
                f"card role CARD_ROLE_{role.name} is not used in Hi-Lo: use CARD_ROLE_BURN or "
                "CARD_ROLE_RESULT",
                field="role",
            )
        if self.phase is Phase.SHOE_COMPLETE:
            why = f"{RESULTS_PER_DECK} results" if self.cards_remaining else "its last card"
            raise IllegalMove(
                f"card {card} rejected: the shoe is complete after {why}; start a new shoe"
            )
        if role is CardRole.RESULT and self.phase is not Phase.BETTING:
            raise IllegalMove(
                f"result card {card} rejected: no round is open for betting "
                f"(phase {self.phase.name}, {len(self.exposed)} of {OPENING_BURNS} opening "
                "burns dealt)"
            )
        if card in self.exposed:
            raise CardNotInShoe(f"card {card} is not in the deck: it was already exposed")
        exposed = (*self.exposed, card)
        if self.phase is Phase.OPENING:
            if len(exposed) < OPENING_BURNS:
                return replace(self, exposed=exposed, outcome=None)
            return replace(
                self,
                exposed=exposed,
                phase=Phase.BETTING,
                result_index=1,
                round_id=self.round_id + 1,
                outcome=None,
            )
        # The round ends: decided by a result, or void for a burn. With no card left (the
        # 52nd was a burn or a result), no round can follow, whatever the count of results.
        outcome = RoundOutcome(
            self.round_id, self.result_index, card if role is CardRole.RESULT else None
        )
        last_result = role is CardRole.RESULT and self.result_index == RESULTS_PER_DECK
        if last_result or len(exposed) == CARDS_PER_DECK:
            return replace(self, exposed=exposed, phase=Phase.SHOE_COMPLETE, outcome=outcome)
        if role is CardRole.BURN:
            return replace(self, exposed=exposed, round_id=self.round_id + 1, outcome=outcome)
        return replace(
            self,
            exposed=exposed,
            result_index=self.result_index + 1,
            round_id=self.round_id + 1,
            outcome=outcome,
        )

    def void_round(self) -> HiLoDeck:
        """The open round is void (refunded); a new round opens for the same result."""
        if self.phase is not Phase.BETTING:
            raise IllegalMove(f"no round to void: phase is {self.phase.name}")
        return replace(
            self,
            round_id=self.round_id + 1,
            outcome=RoundOutcome(self.round_id, self.result_index, None),
        )

    def new_shoe(self) -> HiLoDeck:
        """A fresh deck (also a misdeal's redeal); a round still open is void."""
        outcome = (
            RoundOutcome(self.round_id, self.result_index, None)
            if self.phase is Phase.BETTING
            else None
        )
        return HiLoDeck(
            paytable=self.paytable,
            shoe=self.shoe + 1,
            round_id=self.round_id,
            outcome=outcome,
        )
