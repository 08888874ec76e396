"""Higher/Lower (docs/rules.md §6): the provider Hi-Lo, card after card against a base card.

A configuration of the next-card game (``pricing.games.next_card``): decks of 48 cards (no
tens), ace high. The shoe's first RESULT card is the base card; then each round is open for
bets on the next result, closed by its first burn, and decided by the RESULT card after the
burns (3 by default), which becomes the next round's base. The bets: HIGHER and LOWER than the
base (a tie loses both), SNAP (the base's rank), three ranges, RED, BLACK, KING_OR_ACE and ACE,
each priced by the one pay rule at one RTP (96.70 % reproduces the provider's printed pays) on
the cards that can come next: in a continuous shuffler, the full shoe without the base card; in
a depleting shoe, the cards left in it.

>>> shoe = HigherLowerShoe().expose(parse_card("2S"), CardRole.RESULT)
>>> shoe.phase.name, str(shoe.base), shoe.prices["HIGHER"].payout_hundredths  # 1.05 for one
('BETTING', '2S', 5)
>>> shoe.prices["LOWER"].open, shoe.prices["SNAP"].payout_hundredths
(False, 1106)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from typing import ClassVar, Final

from pricing.cards import Card, Rank, Suit, parse_card
from pricing.errors import IllegalMove, InvalidInput, InvalidOption
from pricing.games.events import CardRole, EndRound, ExposeCard, FeedEvent, NewShoe, VoidRound
from pricing.games.next_card import (
    NextCardBet,
    NextCardDeck,
    NextCardGame,
    Relation,
)
from pricing.payout import BetPrice, PayRule, Paytable, closed, is_whole_number

__all__ = [
    "BETS",
    "BLACK_SUITS",
    "DEFAULT_BURNS",
    "DEFAULT_DECKS",
    "DEFAULT_PAYTABLE",
    "DEFAULT_RULE",
    "HIGHER_LOWER_RANKS",
    "MAX_BURNS",
    "RED_SUITS",
    "HigherLowerPaytable",
    "HigherLowerRules",
    "HigherLowerShoe",
    "Phase",
    "RoundOutcome",
    "ShuffleMode",
    "game",
]

#: The provider's deck: 48 cards, no tens, ace high (lowest first).
HIGHER_LOWER_RANKS: Final = (
    Rank.TWO,
    Rank.THREE,
    Rank.FOUR,
    Rank.FIVE,
    Rank.SIX,
    Rank.SEVEN,
    Rank.EIGHT,
    Rank.NINE,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
    Rank.ACE,
)
DEFAULT_DECKS: Final = 6
DEFAULT_BURNS: Final = 3
MAX_BURNS: Final = 10
RED_SUITS: Final = frozenset(s for s in Suit if s.is_red)
BLACK_SUITS: Final = frozenset(Suit) - RED_SUITS


def _ranks(*ranks: Rank) -> frozenset[Rank]:
    return frozenset(ranks)


#: The ten bets, in the order every price list uses.
_BETS: Final = (
    NextCardBet("HIGHER", Relation.HIGHER),
    NextCardBet("LOWER", Relation.LOWER),
    NextCardBet("SNAP", Relation.SAME),
    NextCardBet("RANGE_2_5", ranks=_ranks(Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE)),
    NextCardBet("RANGE_6_9", ranks=_ranks(Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE)),
    NextCardBet("RANGE_J_A", ranks=_ranks(Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)),
    NextCardBet("RED", suits=RED_SUITS),
    NextCardBet("BLACK", suits=BLACK_SUITS),
    NextCardBet("KING_OR_ACE", ranks=_ranks(Rank.KING, Rank.ACE)),
    NextCardBet("ACE", ranks=_ranks(Rank.ACE)),
)
BETS: Final[tuple[str, ...]] = tuple(bet.name for bet in _BETS)

#: One RTP for every bet, 96.70 %: with it the rule gives the provider's printed pays ("for
#: one", stake included: HIGHER on a 2 1.05, SNAP 12.06, each range 2.89, RED 1.92, KING_OR_ACE
#: 5.78, ACE 11.56). The clamp's minimum lets HIGHER on a 2 pay its 0.05 : 1; its maximum,
#: 100 : 1, is only reached in a depleting shoe.
DEFAULT_RULE: Final = PayRule(rtp_bp=9670, min_hundredths=5, max_hundredths=10_000)


@dataclass(frozen=True, slots=True)
class HigherLowerPaytable(Paytable):
    """Each bet's pay rule; the default is one rule, ``DEFAULT_RULE``, for all ten."""

    BETS: ClassVar[tuple[str, ...]] = BETS
    GAME: ClassVar[str] = "Higher/Lower"

    higher: PayRule = DEFAULT_RULE
    lower: PayRule = DEFAULT_RULE
    snap: PayRule = DEFAULT_RULE
    range_2_5: PayRule = DEFAULT_RULE
    range_6_9: PayRule = DEFAULT_RULE
    range_j_a: PayRule = DEFAULT_RULE
    red: PayRule = DEFAULT_RULE
    black: PayRule = DEFAULT_RULE
    king_or_ace: PayRule = DEFAULT_RULE
    ace: PayRule = DEFAULT_RULE


DEFAULT_PAYTABLE: Final = HigherLowerPaytable()


class ShuffleMode(Enum):
    """What the next card is drawn from."""

    CONTINUOUS = "CONTINUOUS"  # a continuous shuffler: the full shoe without the base card
    DEPLETING = "DEPLETING"  # the cards left in the shoe until a new shoe


@dataclass(frozen=True, slots=True)
class HigherLowerRules:
    """A Higher/Lower table's rules: paytable, shuffle, burns before each result, and the cap on
    a position's value in cents (0: none)."""

    paytable: HigherLowerPaytable = DEFAULT_PAYTABLE
    shuffle: ShuffleMode = ShuffleMode.CONTINUOUS
    burns: int = DEFAULT_BURNS
    max_position_payout_cents: int = 0

    def __post_init__(self) -> None:
        if not is_whole_number(self.burns) or not 0 <= self.burns <= MAX_BURNS:
            raise InvalidOption(
                f"burns must be a whole number from 0 to {MAX_BURNS}, got {self.burns!r}",
                field="higher_lower.burns",
            )
        cap = self.max_position_payout_cents
        if not is_whole_number(cap) or cap < 0:
            raise InvalidOption(
                f"max_position_payout_cents must be a whole number >= 0, got {cap!r}",
                field="higher_lower.max_position_payout_cents",
            )


DEFAULT_RULES: Final = HigherLowerRules()


_GAMES: dict[int, NextCardGame] = {}


def game(decks: int) -> NextCardGame:
    """Higher/Lower with ``decks`` 48-card decks, as a next-card game. A bet whose clamped
    payout would return more than the stake is closed (a depleting shoe can make HIGHER or
    LOWER all but certain)."""
    found = _GAMES.get(decks)
    if found is None:
        found = NextCardGame(
            NextCardDeck(decks=decks, ranks=HIGHER_LOWER_RANKS), _BETS, close_over_par=True
        )
        _GAMES[decks] = found
    return found


class Phase(Enum):
    """Where a shoe is in its life (named as ``pricing.tables.TablePhase``)."""

    OPENING = "OPENING"  # no base card yet: burns, then the first RESULT card
    BETTING = "BETTING"  # a round is open for bets on the next result
    DEALING = "DEALING"  # the round's burns are coming out; its bets are closed
    SHOE_COMPLETE = "SHOE_COMPLETE"  # the shoe cannot deal another round (or a result)


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How a round ended: ``result`` is the base card and the result card, ``None`` when void."""

    round_id: int
    result_index: int
    result: tuple[Card, Card] | None


@dataclass(frozen=True)
class HigherLowerShoe:
    """The state of a Higher/Lower table's shoe: a pure fold of the events it accepted.

    ``exposed`` is every card out of the shoe: in a depleting shoe every card seen since the
    new shoe; in a continuous shuffler only the base card and the open round's burns (the
    rest went back to the shuffler). ``result_index`` is the open round's number in the shoe.

    >>> shoe = HigherLowerShoe()
    >>> for text, role in [("7S", "RESULT"), ("2C", "BURN"), ("3C", "BURN"), ("4C", "BURN")]:
    ...     shoe = shoe.expose(parse_card(text), CardRole[role])
    >>> shoe.phase.name, [str(c) for c in shoe.exposed]
    ('DEALING', ['7S', '2C', '3C', '4C'])
    >>> shoe = shoe.expose(parse_card("KH"), CardRole.RESULT)
    >>> [str(c) for c in shoe.outcome.result], str(shoe.base), shoe.round_id
    (['7S', 'KH'], 'KH', 2)
    """

    rules: HigherLowerRules = DEFAULT_RULES
    decks: int = DEFAULT_DECKS
    shoe: int = 1
    exposed: tuple[Card, ...] = ()
    base: Card | None = None
    phase: Phase = Phase.OPENING
    result_index: int = 0
    round_id: int = 0
    burns_dealt: int = 0
    outcome: RoundOutcome | None = None

    @property
    def _game(self) -> NextCardGame:
        return game(self.decks)  # one per shoe size, kept by ``game``: not part of the state

    @property
    def cards_remaining(self) -> int:
        return self._game.deck.size - len(self.exposed)

    @property
    def betting(self) -> bool:
        return self.phase is Phase.BETTING

    @cached_property
    def prices(self) -> dict[str, BetPrice]:
        """The ten bets on the next card; every bet is closed outside ``BETTING``. The cards
        that can come next are the shoe without ``exposed`` (a continuous shuffler's holds only
        the base card while betting is open)."""
        live = self._game.quote(self.exposed, self.base, self.rules.paytable)
        return live if self.phase is Phase.BETTING else closed(live)

    def apply(self, event: FeedEvent) -> HigherLowerShoe:
        """The state after ``event``."""
        match event:
            case ExposeCard(card=card, role=role):
                return self.expose(card, role)
            case VoidRound():
                return self.void_round()
            case NewShoe():
                return self.new_shoe()
            case EndRound():
                raise IllegalMove("Higher/Lower has no EndRound: a result card ends its round")
        raise InvalidInput(f"unknown event {event!r}")

    def expose(self, card: Card, role: CardRole) -> HigherLowerShoe:
        """A card was turned face up.

        Interpretation (docs/rules.md §6): a BURN before the shoe's first result is an opening
        burn; the first RESULT is the base card and opens round 1. While a round is open, its
        first BURN closes betting; the RESULT comes after at least the table's burns (a burn
        over that is an over-drawn card: a burn). A RESULT decides the round and becomes the
        next base.
        """
        card = parse_card(card)
        if role not in (CardRole.BURN, CardRole.RESULT):
            raise InvalidInput(
                f"card role CARD_ROLE_{role.name} is not used in Higher/Lower: use "
                "CARD_ROLE_BURN or CARD_ROLE_RESULT",
                field="role",
            )
        if self.phase is Phase.SHOE_COMPLETE:
            raise IllegalMove(
                f"card {card} rejected: the shoe is complete ({self.cards_remaining} cards "
                f"left, a round takes {self.rules.burns + 1}); start a new shoe"
            )
        deck = self._game.deck
        deck.check_holds(card, field="card")  # a ten: the request's card, whatever the shoe
        deck.check_in(card, self.decks - self.exposed.count(card))
        burns = self.rules.burns
        if role is CardRole.BURN:
            if self.phase is Phase.OPENING:
                return replace(self, exposed=(*self.exposed, card), outcome=None)._burnt_out()
            return replace(
                self,
                exposed=(*self.exposed, card),
                phase=Phase.DEALING,
                burns_dealt=self.burns_dealt + 1,
                outcome=None,
            )._burnt_out()
        if self.phase is Phase.OPENING:
            return self._next_round(card, outcome=None)
        if self.burns_dealt < burns:
            raise IllegalMove(
                f"result card {card} rejected: {burns} burns come before the result of round "
                f"{self.round_id}, {self.burns_dealt} dealt"
            )
        assert self.base is not None  # a round is open, so the shoe has a base card
        return self._next_round(
            card, RoundOutcome(self.round_id, self.result_index, (self.base, card))
        )

    def _next_round(self, base: Card, outcome: RoundOutcome | None) -> HigherLowerShoe:
        """``base`` is the new base card: the next round opens on it."""
        continuous = self.rules.shuffle is ShuffleMode.CONTINUOUS
        return replace(
            self,
            exposed=(base,) if continuous else (*self.exposed, base),
            base=base,
            phase=Phase.BETTING,
            result_index=self.result_index + 1,
            round_id=self.round_id + 1,
            burns_dealt=0,
            outcome=outcome,
        )._shoe_end()

    def _shoe_end(self) -> HigherLowerShoe:
        """A depleting shoe that cannot deal another round (its burns and a result) is
        complete."""
        if self.phase is Phase.BETTING and self.cards_remaining < self.rules.burns + 1:
            return replace(self, phase=Phase.SHOE_COMPLETE)
        return self

    def _burnt_out(self) -> HigherLowerShoe:
        """After a burn: a shoe with no card left can deal no result (a continuous shuffler
        takes its burns back only once a round ends), so it is complete, and the round open,
        if any, is void (docs/rules.md §6.1), as a Hi-Lo deck's last card ends its round."""
        if self.cards_remaining:
            return self
        open_round = self.phase is Phase.DEALING  # a burn closed its betting
        outcome = RoundOutcome(self.round_id, self.result_index, None) if open_round else None
        return replace(self, phase=Phase.SHOE_COMPLETE, outcome=outcome)

    def void_round(self) -> HigherLowerShoe:
        """The open round is void (refunded); a new round opens on the same base card. The
        burns dealt stay out of a depleting shoe and go back into a continuous shuffler.

        A shoe burnt out mid-round (complete, its round void already) takes a VoidRound too,
        as it did before such a shoe was complete (a journal may hold one): its burns go back
        into a continuous shuffler and a round opens on the base card; a depleting shoe stays
        complete."""
        burnt_out = self.phase is Phase.SHOE_COMPLETE and self.burns_dealt > 0
        if self.phase not in (Phase.BETTING, Phase.DEALING) and not burnt_out:
            raise IllegalMove(f"no round to void: phase is {self.phase.name}")
        assert self.base is not None
        continuous = self.rules.shuffle is ShuffleMode.CONTINUOUS
        return replace(
            self,
            exposed=(self.base,) if continuous else self.exposed,
            phase=Phase.BETTING,
            round_id=self.round_id + 1,
            burns_dealt=0,
            outcome=None if burnt_out else RoundOutcome(self.round_id, self.result_index, None),
        )._shoe_end()

    def new_shoe(self) -> HigherLowerShoe:
        """A fresh shoe; a round still open is void. The next RESULT card is the new base."""
        open_round = self.phase in (Phase.BETTING, Phase.DEALING)
        return HigherLowerShoe(
            rules=self.rules,
            decks=self.decks,
            shoe=self.shoe + 1,
            round_id=self.round_id,
            outcome=RoundOutcome(self.round_id, self.result_index, None) if open_round else None,
        )


def bet_wins(bet: str, base: Card, card: Card, decks: int = DEFAULT_DECKS) -> bool:
    """Whether ``bet`` wins when ``card`` follows ``base``.

    >>> bet_wins("HIGHER", parse_card("KS"), parse_card("AS")), bet_wins("LOWER", *map(
    ...     parse_card, ["5D", "5H"]))
    (True, False)
    """
    if bet not in BETS:
        raise InvalidInput(f"unknown Higher/Lower bet {bet!r}: expected one of {', '.join(BETS)}")
    return game(decks).wins(bet, card, base)
