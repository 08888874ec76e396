"""Goa Gae / 9K (docs/rules.md §4): the three-card hand order, exact odds of the next hand from
what is left of one 52-card deck, and dynamic category bets priced like Hi-Lo's.

>>> evaluate(["2C", "7D", "8H"]).points
7
>>> evaluate(["4S", "5S", "6H"]) < evaluate(["7C", "8D", "9H"])
True
>>> category_odds([])["TRIPLE"]
(52, 22100)
>>> quote([])["JQK"].payout_hundredths  # 0.96 × 22100 / 204 − 1 = 103.00
10300

The hand order: categories, lowest first, POINTS < FLUSH < STRAIGHT < JQK < STRAIGHT_FLUSH <
TRIPLE in the order the sheet lists them; a hand takes the HIGHEST category it qualifies for —
interpretation (docs/rules.md §4): a mixed-suit J-Q-K is JQK, not STRAIGHT, and a suited one a
STRAIGHT_FLUSH; then within a category the tie-breaks of ``Category``. Two hands drawn from
one deck never tie: the test suite checks it over every pair of disjoint hands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from functools import cached_property
from typing import ClassVar, Final, NamedTuple

from pricing import _goagae
from pricing._payout import BetPrice
from pricing.cards import CARD_INDEX, Card, card_index, parse_card, parse_cards
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput
from pricing.games.events import (
    CardRole,
    EndRound,
    ExposeCard,
    FeedEvent,
    NewShoe,
    VoidRound,
)
from pricing.payout import PayRule, Paytable, closed

__all__ = [
    "BETS",
    "DEFAULT_PAYTABLE",
    "HAND_SIZE",
    "BetPrice",
    "Category",
    "GoaGaeDeck",
    "GoaGaePaytable",
    "HandValue",
    "Phase",
    "RoundOutcome",
    "Showdown",
    "bet_wins",
    "category_odds",
    "evaluate",
    "points_odds",
    "quote",
    "showdown",
    "win_probability",
]

HAND_SIZE: Final = 3

#: The six category bets, in the order every price list uses: the next hand is exactly that
#: category, or for ``NINE`` a POINTS hand of 9 points.
BETS: Final[tuple[str, ...]] = _goagae.BETS


class Category(StrEnum):
    """A hand's category. Equal to its name as text (``Category.JQK == "JQK"``); ``<`` and
    friends compare in the game's order, lowest first (``level`` 0 to 5).

    Order within a category — interpretation (docs/rules.md §4); suits rank C < D < H < S, single
    cards A > K > … > 2:

    - POINTS: the higher points; then the higher highest card; then the suit of that card
      (where two cards share the highest rank, the higher of their two suits counts).
    - FLUSH: the higher suit; then the higher highest card.
    - STRAIGHT: the higher sequence (Q-K-A > J-Q-K > … > A-2-3; K-A-2 is no straight); then the
      suit of its top card (the 3 of A-2-3, the A of Q-K-A).
    - JQK: three cards all J, Q or K (JJQ, QQK, JKK, a mixed-suit J-Q-K); the higher highest
      card, then the suit of that card as for POINTS.
    - STRAIGHT_FLUSH: the higher suit first; then the higher sequence.
    - TRIPLE: 3-3-3 highest, then A-A-A, K, Q, J, 10, …, 4, 2; suits never count.

    >>> sorted([Category.TRIPLE, Category.POINTS, Category.JQK])
    [<Category.POINTS: 'POINTS'>, <Category.JQK: 'JQK'>, <Category.TRIPLE: 'TRIPLE'>]
    """

    POINTS = "POINTS"
    FLUSH = "FLUSH"
    STRAIGHT = "STRAIGHT"
    JQK = "JQK"
    STRAIGHT_FLUSH = "STRAIGHT_FLUSH"
    TRIPLE = "TRIPLE"

    @property
    def level(self) -> int:
        """0 for POINTS up to 5 for TRIPLE."""
        return _LEVELS[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Category):
            return NotImplemented
        return self.level < other.level

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Category):
            return NotImplemented
        return self.level <= other.level

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Category):
            return NotImplemented
        return self.level > other.level

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Category):
            return NotImplemented
        return self.level >= other.level


_CATEGORY_BY_LEVEL: Final[tuple[Category, ...]] = tuple(Category(n) for n in _goagae.CATEGORIES)
_LEVELS: Final[dict[Category, int]] = {cat: level for level, cat in enumerate(_CATEGORY_BY_LEVEL)}


@dataclass(frozen=True, slots=True, order=True, repr=False)
class HandValue:
    """What a three-card hand is worth: its category, its points (0-9, the card values A = 1,
    2-9 face, 10 J Q K = 0, summed modulo 10) and ``key``, a small integer giving the game's
    total order (``pricing._goagae.hand_strength`` for Cython code).

    Comparisons (``<``, ``==``, hashing) use ``key`` alone: two values are equal when the
    hands tie by the rules, which never happens for two hands dealt from one deck.

    >>> evaluate(["3C", "3D", "3H"]) > evaluate(["AC", "AD", "AH"]) > evaluate(["KC", "KD", "KH"])
    True
    >>> evaluate(["AS", "2D", "3H"]) < evaluate(["QC", "KD", "AC"])
    True
    """

    category: Category = field(compare=False)
    points: int = field(compare=False)
    key: int
    cards: tuple[Card, ...] = field(compare=False)

    def __str__(self) -> str:
        cards = " ".join(str(card) for card in self.cards)
        return f"{self.category.value} {self.points} ({cards})"

    def __repr__(self) -> str:
        return f"<HandValue {self} key={self.key}>"


def evaluate(cards: Iterable[Card | str]) -> HandValue:
    """The value of a hand of three different cards (``Card`` or text such as ``"10H"``).

    >>> hand = evaluate(["JS", "QS", "KS"])
    >>> hand.category, hand.points
    (<Category.STRAIGHT_FLUSH: 'STRAIGHT_FLUSH'>, 0)
    >>> evaluate(["JS", "QH", "KS"]).category
    <Category.JQK: 'JQK'>
    >>> evaluate(["AS", "AS", "2C"])
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidInput: a Goa Gae hand needs 3 different cards, got AS AS 2C
    """
    hand = tuple(parse_cards(cards))
    if len(hand) != HAND_SIZE or len(set(hand)) != HAND_SIZE:
        shown = " ".join(str(card) for card in hand) or "none"
        raise InvalidInput(f"a Goa Gae hand needs 3 different cards, got {shown}")
    level, points, key = _goagae.evaluate_indices(*(card.index for card in hand))
    return HandValue(_CATEGORY_BY_LEVEL[level], points, key, hand)


def category_odds(exposed: Iterable[Card | str]) -> dict[str, tuple[int, int]]:
    """The exact distribution of the next three-card hand dealt from what is left of one deck
    after ``exposed``, as ``(ways, total)``: ``total`` is the number of three-card hands left.

    Keys: each category (``"POINTS"`` … ``"TRIPLE"``, lowest first); ``"NINE"``, a POINTS hand
    of 9 points (the NINE bet); and ``"TOTAL_0"`` … ``"TOTAL_9"``, the points total of the
    hand whatever its category (``points_odds`` gives the same keyed by int). With fewer than
    3 cards left every entry is ``(0, 0)``.

    Raises ``InvalidCard`` for bad text and ``CardNotInShoe`` for a card listed twice.

    >>> odds = category_odds([])
    >>> [odds[c][0] for c in ("POINTS", "FLUSH", "STRAIGHT", "JQK", "STRAIGHT_FLUSH", "TRIPLE")]
    [20040, 1096, 660, 204, 48, 52]
    >>> odds["TOTAL_0"], odds["TOTAL_9"], odds["NINE"]
    ((2384, 22100), (2212, 22100), (1968, 22100))
    """
    total, categories, totals, nine = _goagae.hand_counts(exposed, CARD_INDEX, card_index)
    out = {name: (ways, total) for name, ways in zip(_goagae.CATEGORIES, categories, strict=True)}
    out["NINE"] = (nine, total)
    for points, ways in enumerate(totals):
        out[f"TOTAL_{points}"] = (ways, total)
    return out


def points_odds(exposed: Iterable[Card | str]) -> dict[int, tuple[int, int]]:
    """The points total (0-9) of the next hand, any category, as ``(ways, total)``.

    >>> points_odds([])[0], points_odds([])[1], points_odds([])[2]
    ((2384, 22100), (2212, 22100), (2164, 22100))
    """
    total, _, totals, _ = _goagae.hand_counts(exposed, CARD_INDEX, card_index)
    return {points: (ways, total) for points, ways in enumerate(totals)}


class Showdown(NamedTuple):
    """How a hand fares against one random opponent hand: counts of equally likely deals."""

    wins: int
    ties: int
    losses: int
    total: int


def showdown(hand: Iterable[Card | str], exposed: Iterable[Card | str]) -> Showdown:
    """Wins, ties and losses of ``hand`` against one opponent hand dealt from the deck.

    ``hand`` holds 1 to 3 known cards; the missing ones are drawn from the deck too. The
    outcomes counted are the equally likely pairs (cards completing the hand, opponent hand),
    all drawn from what is left after ``exposed`` and the hand. ``exposed`` must not repeat the
    hand's cards (``CardNotInShoe``). ``ties`` is always 0 by the rules (docs/rules.md §4).

    >>> showdown(["3C", "3D", "3H"], [])
    Showdown(wins=18424, ties=0, losses=0, total=18424)
    """
    known = tuple(hand)
    if not 1 <= len(known) <= HAND_SIZE:
        raise InvalidInput(f"a hand needs 1 to 3 known cards, got {len(known)}")
    return Showdown(*_goagae.showdown_counts(known, exposed, CARD_INDEX, card_index))


def win_probability(hand: Iterable[Card | str], exposed: Iterable[Card | str]) -> tuple[int, int]:
    """``(wins, total)``: how many of the ``total`` equally likely deals (completion of
    ``hand``, opponent hand) the hand wins; see ``showdown``. Every other deal loses: ties never
    happen by the rules (docs/rules.md §4), which is checked on every call.

    Raises ``IllegalMove`` when the deck is too short to complete the hand and deal an
    opponent.

    >>> win_probability(["AS", "KS", "QS"], [])  # loses only to the 43 higher straight flushes
    (18381, 18424)
    """
    result = showdown(hand, exposed)
    if result.ties:
        raise AssertionError(f"Goa Gae hands tied, which the rules exclude: {result}")
    return (result.wins, result.total)


def bet_wins(bet: str, hand: Iterable[Card | str]) -> bool:
    """Whether category bet ``bet`` wins on the three-card ``hand``.

    >>> bet_wins("NINE", ["4C", "5D", "KH"]), bet_wins("NINE", ["4C", "5C", "KC"])
    (True, False)
    """
    if bet not in BETS:
        raise InvalidInput(f"unknown Goa Gae bet {bet!r}: expected one of {', '.join(BETS)}")
    value = evaluate(hand)
    if bet == "NINE":
        return value.category is Category.POINTS and value.points == 9
    return value.category == bet


def _rule(max_hundredths: int) -> PayRule:
    return PayRule(rtp_bp=9600, min_hundredths=0, max_hundredths=max_hundredths)


#: Default rules (our choice; the sheet publishes no Goa Gae payouts). RTP 96 % for every bet,
#: as for Hi-Lo's even-chance bets (docs/rules.md §4). The clamp:
#:  - minimum 0 : 1 — the only floor that can never hand the player an edge: it binds only
#:    when a bet would win more than 96 % of the time, and then pays the stake back;
#:  - maximum twice the full-deck payout, to bound the house's liability when a depleted deck
#:    makes a category rare (a deck down to 27 cards can hold a single triple: unclamped, that
#:    TRIPLE would pay 2,807 : 1).
#: Full-deck payouts (ways of 22,100): TRIPLE 52 → 407.00, STRAIGHT_FLUSH 48 → 441.00,
#: JQK 204 → 103.00, STRAIGHT 660 → 31.14, FLUSH 1,096 → 18.35, NINE 1,968 → 9.78.
TRIPLE_RULE: Final = _rule(81_400)
STRAIGHT_FLUSH_RULE: Final = _rule(88_200)
JQK_RULE: Final = _rule(20_600)
STRAIGHT_RULE: Final = _rule(6_228)
FLUSH_RULE: Final = _rule(3_670)
NINE_RULE: Final = _rule(1_956)


@dataclass(frozen=True, slots=True)
class GoaGaePaytable(Paytable):
    """RTP and payout range of each category bet; the defaults are documented at
    ``TRIPLE_RULE`` … ``NINE_RULE`` (96 %, clamped to 0 : 1 … twice the full-deck payout).

    >>> GoaGaePaytable(nine=PayRule(9000, 100, 5000)).nine.rtp_bp
    9000
    >>> GoaGaePaytable(nine=0.9)
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: paytable entry 'nine' must be a PayRule, got 0.9
    """

    BETS: ClassVar[tuple[str, ...]] = BETS
    GAME: ClassVar[str] = "Goa Gae"

    triple: PayRule = TRIPLE_RULE
    straight_flush: PayRule = STRAIGHT_FLUSH_RULE
    jqk: PayRule = JQK_RULE
    straight: PayRule = STRAIGHT_RULE
    flush: PayRule = FLUSH_RULE
    nine: PayRule = NINE_RULE


DEFAULT_PAYTABLE: Final = GoaGaePaytable()


def quote(
    exposed: Iterable[Card | str], paytable: GoaGaePaytable = DEFAULT_PAYTABLE
) -> dict[str, BetPrice]:
    """Prices of the six category bets on the next hand, given every card seen in this deck.

    Each bet wins on ``wins`` of the ``remaining`` three-card hands left and pays
    ``RTP × remaining / wins − 1`` to 1, rounded down to a hundredth and clamped (the shared
    rule of ``pricing._payout``); a bet with no winning hand is closed.

    >>> prices = quote(["3C", "3D"])
    >>> prices["TRIPLE"].wins, prices["TRIPLE"].remaining, prices["TRIPLE"].payout_hundredths
    (48, 19600, 39100)
    """
    return _goagae.quote_cards(exposed, CARD_INDEX, card_index, paytable.kernel_rules)


# --- a live table's deck ------------------------------------------------------------------


class Phase(Enum):
    """Where a Goa Gae deck is between and within rounds."""

    BETTING = "BETTING"  # between rounds: bets on the next hand are open
    DEALING = "DEALING"  # a round's cards are coming out; bets are closed
    SHOE_COMPLETE = "SHOE_COMPLETE"  # fewer than 3 cards left: no round; only a new shoe


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How a round ended, for settlement. ``result_index`` is the round's number within its
    deck (as Hi-Lo's result index: 1 for the first round after a new shoe).

    ``hand`` is what the category bets settle on: the first three PLAYER cards exposed in the
    round. It is ``None`` when the round was voided (``voided``: VoidRound or NewShoe) or ended
    with fewer than three PLAYER cards; either way the round's bets are refunded. ``cards``
    lists every card exposed in the round, in order, with its role.
    """

    round_id: int
    result_index: int
    hand: tuple[Card, Card, Card] | None
    cards: tuple[ExposeCard, ...] = ()
    voided: bool = False

    @property
    def refunded(self) -> bool:
        return self.hand is None

    @property
    def result(self) -> tuple[Card, Card, Card] | None:
        """``hand``, under the name Hi-Lo's ``RoundOutcome`` uses: ``None`` means refunded."""
        return self.hand

    @property
    def value(self) -> HandValue | None:
        return None if self.hand is None else evaluate(self.hand)

    def wins(self, bet: str) -> bool | None:
        """Whether ``bet`` won; ``None`` when the round's bets are refunded."""
        return None if self.hand is None else bet_wins(bet, self.hand)


_ROLES: Final = (CardRole.PLAYER, CardRole.DEALER, CardRole.BURN)


@dataclass(frozen=True)
class GoaGaeDeck:
    """The state of a Goa Gae table's deck: a pure fold of the events it accepted.

    One 52-card deck that depletes until ``NewShoe``. Every transition returns a new state and
    leaves this one as it was; a rejected event raises and changes nothing. ``outcome`` is the
    round the last event ended, if any. ``round_id`` numbers every round opened, across shoes;
    ``result_index`` is the round's number within the current deck (1 after a new shoe).

    The round — an interpretation (docs/rules.md §4): the rule sheet describes neither the
    table procedure nor which hand the category bets are on:

    - Betting is open between rounds, on ``quote(exposed)``.
    - The first card exposed in a round, whatever its role, closes betting (``DEALING``).
    - Every exposed card (role PLAYER, DEALER or BURN; RESULT belongs to Hi-Lo and is
      ``InvalidInput``) leaves the deck; a card not in the deck is ``CardNotInShoe``.
    - The category bets settle on the round's first three PLAYER cards. Whatever came out
      before them in the round, those three are a uniformly random hand of the deck as it
      stood when betting closed, so the quoted price is exact for them.
    - ``EndRound`` records the outcome and opens betting on the new prices with the next
      ``round_id``; with fewer than 3 cards left no hand can be dealt, so the deck is
      ``SHOE_COMPLETE`` and only ``NewShoe`` follows.
    - ``VoidRound`` refunds the current round (betting or dealing); its cards stay out of the
      deck. ``NewShoe`` voids a round in progress and opens the next round on a fresh deck.

    >>> deck = GoaGaeDeck()
    >>> deck.phase, deck.round_id, deck.prices["TRIPLE"].payout_hundredths
    (<Phase.BETTING: 'BETTING'>, 1, 40700)
    >>> for text, role in [("9S", "BURN"), ("4C", "PLAYER"), ("QD", "DEALER"), ("5H", "PLAYER"),
    ...                    ("2D", "DEALER"), ("KS", "PLAYER"), ("8D", "DEALER")]:
    ...     deck = deck.apply(ExposeCard(parse_card(text), CardRole[role]))
    >>> deck.phase, deck.prices["TRIPLE"].open
    (<Phase.DEALING: 'DEALING'>, False)
    >>> deck = deck.apply(EndRound())
    >>> [str(c) for c in deck.outcome.hand], deck.outcome.wins("NINE")
    (['4C', '5H', 'KS'], True)
    >>> deck.phase, deck.round_id, deck.cards_remaining
    (<Phase.BETTING: 'BETTING'>, 2, 45)
    """

    paytable: GoaGaePaytable = DEFAULT_PAYTABLE
    shoe: int = 1
    exposed: tuple[Card, ...] = ()
    phase: Phase = Phase.BETTING
    round_id: int = 1
    result_index: int = 1
    round_cards: tuple[ExposeCard, ...] = ()
    outcome: RoundOutcome | None = None

    @property
    def cards_remaining(self) -> int:
        return 52 - len(self.exposed)

    @property
    def betting(self) -> bool:
        return self.phase is Phase.BETTING

    @property
    def player_cards(self) -> tuple[Card, ...]:
        """The PLAYER cards exposed so far in the current round."""
        return tuple(e.card for e in self.round_cards if e.role is CardRole.PLAYER)

    @cached_property
    def prices(self) -> dict[str, BetPrice]:
        """The six bets' prices; every bet is closed outside ``BETTING``."""
        live = quote(self.exposed, self.paytable)
        if self.phase is Phase.BETTING:
            return live
        return closed(live)

    def apply(self, event: FeedEvent) -> GoaGaeDeck:
        """The state after ``event``."""
        match event:
            case ExposeCard(card=card, role=role):
                return self.expose(card, role)
            case EndRound():
                return self.end_round()
            case VoidRound():
                return self.void_round()
            case NewShoe():
                return self.new_shoe()
        raise InvalidInput(f"unknown event {event!r}")

    def expose(self, card: Card | str, role: CardRole) -> GoaGaeDeck:
        """A card was turned face up: it leaves the deck and, if betting was open, closes it."""
        card = parse_card(card)
        if role not in _ROLES:
            name = role.name if isinstance(role, CardRole) else repr(role)
            raise InvalidInput(
                f"card role CARD_ROLE_{name} is not used in Goa Gae: use CARD_ROLE_PLAYER, "
                "CARD_ROLE_DEALER or CARD_ROLE_BURN",
                field="role",
            )
        if self.phase is Phase.SHOE_COMPLETE:
            raise IllegalMove(
                f"card {card} rejected: only {self.cards_remaining} cards are left, too few "
                "for a hand; start a new shoe"
            )
        if card in self.exposed:
            raise CardNotInShoe(f"card {card} is not in the deck: it was already exposed")
        return replace(
            self,
            exposed=(*self.exposed, card),
            phase=Phase.DEALING,
            round_cards=(*self.round_cards, ExposeCard(card, role)),
            outcome=None,
        )

    def end_round(self) -> GoaGaeDeck:
        """The round is over: record its hand and open the next round (or complete the shoe)."""
        if self.phase is not Phase.DEALING:
            raise IllegalMove(
                f"round {self.round_id} cannot end: no card has been dealt in it "
                f"(phase {self.phase.name}); use VoidRound to cancel it"
            )
        players = self.player_cards
        hand = (players[0], players[1], players[2]) if len(players) >= HAND_SIZE else None
        return self._next_round(self._outcome(hand))

    def void_round(self) -> GoaGaeDeck:
        """The current round is void: its bets are refunded; its cards stay out of the deck."""
        if self.phase is Phase.SHOE_COMPLETE:
            raise IllegalMove("no round to void: the shoe is complete")
        return self._next_round(self._outcome(None, voided=True))

    def new_shoe(self) -> GoaGaeDeck:
        """A fresh deck (also a misdeal's redeal); a round in progress is void."""
        outcome = None if self.phase is Phase.SHOE_COMPLETE else self._outcome(None, voided=True)
        return GoaGaeDeck(
            paytable=self.paytable,
            shoe=self.shoe + 1,
            round_id=self.round_id + 1,
            outcome=outcome,
        )

    def _outcome(self, hand: tuple[Card, Card, Card] | None, voided: bool = False) -> RoundOutcome:
        return RoundOutcome(self.round_id, self.result_index, hand, self.round_cards, voided)

    def _next_round(self, outcome: RoundOutcome) -> GoaGaeDeck:
        if self.cards_remaining < HAND_SIZE:
            return replace(self, phase=Phase.SHOE_COMPLETE, round_cards=(), outcome=outcome)
        return replace(
            self,
            phase=Phase.BETTING,
            round_id=self.round_id + 1,
            result_index=self.result_index + 1,
            round_cards=(),
            outcome=outcome,
        )
