"""Blackjack shoe odds (docs/rules.md §2, §3): side bets, insurance and the dealer's outcomes.

Everything is exact: the kernel (``pricing._blackjack``) counts the ways each outcome can
happen over what is left of the shoe, and this module turns those integers into ratios
(``fractions.Fraction``) and, at the edge, floats.

>>> odds = side_bets([], decks=6, royal_match=STANDARD_ROYAL_MATCH)
>>> rm = odds["ROYAL_MATCH"]
>>> rm.outcomes["EASY"].ways, rm.outcomes["EASY"].total  # 11,868 suited pairs × C(310, 2)
(568417860, 2323673820)
>>> round(1 - rm.rtp, 6), rm.player_favourable  # house edge 6.6658 %
(0.066658, False)
>>> insurance(["AS"], decks=1).fraction
Fraction(16, 51)
>>> round(dealer_outcomes("6S", [], decks=1)["BUST"], 6)
0.420823

Interpretations (the rule sheets are silent here; docs/rules.md §3 records them):

* Royal Match's Crown Treasure compares the player's first two cards with the dealer's first
  two. The four cards are counted as a random deal of four from the shoe (player two, dealer
  two): with a hole-card deal that is exact whatever the deal order.
* Insurance is offered while the dealer's only card is an Ace, up to the dealer's second
  card (docs/rules.md §3's European deal; see ``BlackjackShoe.insurance``). Dealer outcomes are
  conditioned on the dealer's hand so far (every DEALER card of the round, in order:
  ``dealer_odds_from_hand``); a hand that is over is a point mass on its result.
* Insurance and dealer outcomes draw the dealer's next cards from the shoe as it is now.
  Cards that players draw in between are unknown when the price is shown; the chance that the
  next cards of the shoe are any given sequence is a martingale as cards are drawn, so however
  many cards the players take, the dealer's cards are distributed exactly as the next cards of
  the shoe now. This also holds for docs/rules.md §3's European deal, where the dealer's second
  card comes after the players have drawn.
* A pay of ``n`` hundredths means ``n / 100 : 1``; a losing outcome is listed with ``-100``
  (the stake is lost), so the RTP is ``sum(ways × (pays + 100)) / (100 × total)`` over every
  outcome.

Exactness of dealer outcomes: the kernel enumerates every order in which the dealer can draw
and sums the exact weights in unsigned 128-bit integers over the common denominator
``N × (N − 1) × … × (N − 11)`` (a dealer hand draws at most 12 cards), which for 8 decks is
below 416**12 ≈ 2.8e31 < 2**128: no floating point anywhere, and ``DealerOdds`` keeps the
integer numerators over one denominator.

The shoe of a live table is ``BlackjackShoe``, a pure state machine folded from
``pricing.games.events`` (depleting shoe or continuous shuffle, 1–8 decks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from functools import cached_property
from typing import Final

from pricing import _blackjack
from pricing.cards import CARD_INDEX, DECK, MAX_DECKS, Card, Rank, card_index, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput, InvalidOption
from pricing.games.events import CardRole, EndRound, Event, ExposeCard, NewShoe, VoidRound
from pricing.payout import MAX_HUNDREDTHS, is_whole_number

__all__ = [
    "ANY_PAIR",
    "DEALER_OUTCOMES",
    "DEFAULT_ROYAL_MATCH",
    "PAIRS_PRESETS",
    "PERFECT_PAIRS",
    "ROYAL_MATCH_PRESETS",
    "STANDARD_ROYAL_MATCH",
    "UP_VALUES",
    "BlackjackShoe",
    "DealerOdds",
    "DealerRule",
    "InsuranceOdds",
    "OutcomeOdds",
    "PairsPaytable",
    "RoyalMatchPaytable",
    "ShoeMode",
    "SideBetOdds",
    "classify_pair",
    "classify_royal_match",
    "dealer_hand_result",
    "dealer_odds",
    "dealer_odds_from_hand",
    "dealer_outcomes",
    "dealer_outcomes_from_hand",
    "dealer_table",
    "hand_total",
    "insurance",
    "pairs_paytable",
    "played_dealer_hand",
    "royal_match_paytable",
    "side_bets",
]

#: The dealer's final results, in the order every dealer distribution uses.
DEALER_OUTCOMES: Final[tuple[str, ...]] = _blackjack.DEALER_OUTCOMES
#: The up-card values the dealer's play depends on (10 stands for 10, J, Q and K).
UP_VALUES: Final[tuple[str, ...]] = _blackjack.VALUE_SYMBOLS
#: Pays of a losing outcome: the stake is lost.
LOSE_HUNDREDTHS: Final = -100
#: Insurance pays 2 : 1 (docs/rules.md §3).
INSURANCE_HUNDREDTHS: Final = 200


def _check_pays(name: str, value: object) -> None:
    if not is_whole_number(value) or not 0 <= value <= MAX_HUNDREDTHS:  # type: ignore[operator]
        raise InvalidOption(
            f"{name} must be a whole number of hundredths from 0 to {MAX_HUNDREDTHS} "
            f"(2.5 : 1 is 250), got {value!r}"
        )


def _check_decks(decks: object) -> int:
    if not is_whole_number(decks) or not 1 <= decks <= MAX_DECKS:  # type: ignore[operator]
        raise InvalidOption(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks!r}")
    return decks  # type: ignore[return-value]


class DealerRule(StrEnum):
    """What the dealer does on soft 17 (docs/rules.md §3)."""

    S17 = "S17"  # "Blackjack": stands on all 17s
    H17 = "H17"  # "Hoiana Blackjack": hits soft 17

    @classmethod
    def parse(cls, value: object) -> DealerRule:
        """``DealerRule.parse("h17")`` -> ``DealerRule.H17``; ``InvalidOption`` otherwise."""
        if isinstance(value, DealerRule):
            return value
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        raise InvalidOption(f"unknown dealer rule {value!r}: expected S17 or H17")


class ShoeMode(StrEnum):
    """How cards come back (docs/rules.md §2): never until a new shoe, or after every round."""

    DEPLETING = "DEPLETING"
    CONTINUOUS = "CONTINUOUS"

    @classmethod
    def parse(cls, value: object) -> ShoeMode:
        if isinstance(value, ShoeMode):
            return value
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        raise InvalidOption(f"unknown shoe mode {value!r}: expected DEPLETING or CONTINUOUS")


# --- Paytables -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoyalMatchPaytable:
    """Royal Match 21 pays in hundredths (docs/rules.md §2). ``crown_hundredths=None`` switches
    Crown Treasure off: there is no CROWN outcome, a deal that would be one is a ROYAL.

    >>> RoyalMatchPaytable(crown_hundredths=None).pays()
    {'ROYAL': 2500, 'EASY': 250}
    >>> RoyalMatchPaytable(easy_hundredths=-1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: easy_hundredths must be a whole number of hundredths ..., got -1
    """

    royal_hundredths: int = 2500
    easy_hundredths: int = 250
    crown_hundredths: int | None = 100_000

    def __post_init__(self) -> None:
        _check_pays("royal_hundredths", self.royal_hundredths)
        _check_pays("easy_hundredths", self.easy_hundredths)
        if self.crown_hundredths is not None:
            _check_pays("crown_hundredths", self.crown_hundredths)

    @property
    def crown_treasure(self) -> bool:
        return self.crown_hundredths is not None

    def pays(self) -> dict[str, int]:
        """Pays of each winning outcome, in hundredths (CROWN only while Crown Treasure is on)."""
        crown = {} if self.crown_hundredths is None else {"CROWN": self.crown_hundredths}
        return {**crown, "ROYAL": self.royal_hundredths, "EASY": self.easy_hundredths}


#: The published table: 25 : 1, 2.5 : 1 and Crown Treasure 1000 : 1.
DEFAULT_ROYAL_MATCH: Final = RoyalMatchPaytable()
#: 25 : 1 and 2.5 : 1 without the optional Crown Treasure.
STANDARD_ROYAL_MATCH: Final = RoyalMatchPaytable(crown_hundredths=None)
ROYAL_MATCH_PRESETS: Final[Mapping[str, RoyalMatchPaytable]] = {
    "crown-treasure": DEFAULT_ROYAL_MATCH,
    "standard": STANDARD_ROYAL_MATCH,
}


@dataclass(frozen=True, slots=True)
class PairsPaytable:
    """A pair side bet on the player's first two cards (docs/rules.md §3), pays in hundredths:
    either one ``pair_hundredths`` for any pair (outcome ``PAIR``), or the three Perfect Pairs
    outcomes ``PERFECT`` (identical cards), ``COLOURED`` (same rank and colour, different
    suit) and ``MIXED`` (same rank, different colour) — not both.

    >>> PairsPaytable(pair_hundredths=1100).pays()
    {'PAIR': 1100}
    >>> PairsPaytable(pair_hundredths=1100, perfect_hundredths=2500)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: a pairs paytable has either ... got pair=1100 perfect=2500 ...
    """

    pair_hundredths: int | None = None
    perfect_hundredths: int | None = None
    coloured_hundredths: int | None = None
    mixed_hundredths: int | None = None

    def __post_init__(self) -> None:
        three = (self.perfect_hundredths, self.coloured_hundredths, self.mixed_hundredths)
        any_pair = self.pair_hundredths is not None and all(v is None for v in three)
        perfect = self.pair_hundredths is None and all(v is not None for v in three)
        if not (any_pair or perfect):
            raise InvalidOption(
                "a pairs paytable has either pair_hundredths (any pair) or all of "
                "perfect_hundredths, coloured_hundredths, mixed_hundredths, got "
                f"pair={self.pair_hundredths!r} perfect={self.perfect_hundredths!r} "
                f"coloured={self.coloured_hundredths!r} mixed={self.mixed_hundredths!r}"
            )
        for name in (
            "pair_hundredths",
            "perfect_hundredths",
            "coloured_hundredths",
            "mixed_hundredths",
        ):
            value = getattr(self, name)
            if value is not None:
                _check_pays(name, value)

    def pays(self) -> dict[str, int]:
        """Pays of each winning outcome, in hundredths."""
        if self.pair_hundredths is not None:
            return {"PAIR": self.pair_hundredths}
        assert self.perfect_hundredths is not None
        assert self.coloured_hundredths is not None
        assert self.mixed_hundredths is not None
        return {
            "PERFECT": self.perfect_hundredths,
            "COLOURED": self.coloured_hundredths,
            "MIXED": self.mixed_hundredths,
        }


#: "Any Pair" (the resort's guide): 11 : 1.
ANY_PAIR: Final = PairsPaytable(pair_hundredths=1100)
#: Perfect Pairs: mixed 6 : 1, coloured 12 : 1, perfect 25 : 1.
PERFECT_PAIRS: Final = PairsPaytable(
    perfect_hundredths=2500, coloured_hundredths=1200, mixed_hundredths=600
)
PAIRS_PRESETS: Final[Mapping[str, PairsPaytable]] = {
    "any-pair": ANY_PAIR,
    "perfect-pairs": PERFECT_PAIRS,
}


def pairs_paytable(value: str | PairsPaytable) -> PairsPaytable:
    """A preset by name (``any-pair``, ``perfect-pairs``) or a paytable as it is.

    >>> pairs_paytable("Any-Pair") is ANY_PAIR
    True
    >>> pairs_paytable("two-pairs")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: unknown pairs preset 'two-pairs': expected one of any-pair, ...
    """
    if isinstance(value, PairsPaytable):
        return value
    if isinstance(value, str):
        preset = PAIRS_PRESETS.get(value.strip().lower())
        if preset is not None:
            return preset
    raise InvalidOption(
        f"unknown pairs preset {value!r}: expected one of {', '.join(PAIRS_PRESETS)}"
    )


def royal_match_paytable(value: str | RoyalMatchPaytable) -> RoyalMatchPaytable:
    """A preset by name (``crown-treasure``, ``standard``) or a paytable as it is."""
    if isinstance(value, RoyalMatchPaytable):
        return value
    if isinstance(value, str):
        preset = ROYAL_MATCH_PRESETS.get(value.strip().lower())
        if preset is not None:
            return preset
    raise InvalidOption(
        f"unknown Royal Match preset {value!r}: expected one of {', '.join(ROYAL_MATCH_PRESETS)}"
    )


# --- Results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutcomeOdds:
    """One outcome of a bet: it happens in ``ways`` of ``total`` equally likely deals and pays
    ``pays_hundredths`` (``-100``: the stake is lost)."""

    ways: int
    total: int
    pays_hundredths: int

    @property
    def fraction(self) -> Fraction:
        """The exact probability (0 when the bet is closed: no deal possible)."""
        return Fraction(self.ways, self.total) if self.total else Fraction(0)

    @property
    def probability(self) -> float:
        return float(self.fraction)


def _rtp_fraction(numerator: int, denominator: int) -> Fraction:
    return Fraction(numerator, denominator) if denominator else Fraction(0)


@dataclass(frozen=True, slots=True)
class SideBetOdds:
    """A fixed-paytable side bet for the next round: every outcome (``LOSE`` last) with exact
    ways out of a common total, and the bet's return to player (stake included: 1.0 is
    break-even) as the exact ratio ``rtp_numerator / rtp_denominator``."""

    bet: str
    outcomes: Mapping[str, OutcomeOdds]
    rtp_numerator: int
    rtp_denominator: int

    @classmethod
    def from_ways(
        cls, bet: str, ways: Mapping[str, int], total: int, pays: Mapping[str, int]
    ) -> SideBetOdds:
        """Build from the ways of each winning outcome (``LOSE`` is the rest of ``total``)."""
        lose = total - sum(ways.values())
        outcomes = {o: OutcomeOdds(w, total, pays[o]) for o, w in ways.items()}
        outcomes["LOSE"] = OutcomeOdds(lose, total, LOSE_HUNDREDTHS)
        numerator = sum(w * (pays[o] + 100) for o, w in ways.items())
        return cls(bet, outcomes, numerator, 100 * total)

    @property
    def open(self) -> bool:
        """False when too few cards are left to deal the bet."""
        return self.rtp_denominator > 0

    @property
    def rtp_fraction(self) -> Fraction:
        return _rtp_fraction(self.rtp_numerator, self.rtp_denominator)

    @property
    def rtp(self) -> float:
        return float(self.rtp_fraction)

    @property
    def rtp_bp(self) -> int:
        """The RTP in basis points, rounded down (integer arithmetic)."""
        if not self.rtp_denominator:
            return 0
        return 10_000 * self.rtp_numerator // self.rtp_denominator

    @property
    def house_edge(self) -> float:
        return float(1 - self.rtp_fraction)

    @property
    def player_favourable(self) -> bool:
        """The alert: the bet returns more than it takes (RTP > 1)."""
        return self.rtp_numerator > self.rtp_denominator


@dataclass(frozen=True, slots=True)
class InsuranceOdds:
    """Insurance against a dealer Ace (docs/rules.md §3): the dealer makes blackjack with ``ways``
    of the ``total`` cards left; insurance pays 2 : 1. A player holding blackjack may instead
    take even money (1 : 1 at once), which is worth more than keeping the blackjack (3 : 2,
    pushed by a dealer blackjack) exactly when insurance is player-favourable."""

    ways: int
    total: int
    pays_hundredths: int = INSURANCE_HUNDREDTHS

    @property
    def fraction(self) -> Fraction:
        """The exact probability that the dealer makes blackjack."""
        return Fraction(self.ways, self.total)

    @property
    def probability(self) -> float:
        return float(self.fraction)

    @property
    def rtp_fraction(self) -> Fraction:
        return self.fraction * Fraction(self.pays_hundredths + 100, 100)

    @property
    def rtp(self) -> float:
        return float(self.rtp_fraction)

    @property
    def player_favourable(self) -> bool:
        return self.rtp_fraction > 1

    @property
    def even_money_profit(self) -> Fraction:
        """Taking even money wins 1 per unit of the main bet, for sure."""
        return Fraction(1)

    @property
    def blackjack_profit(self) -> Fraction:
        """Expected win per unit of keeping the blackjack: 3 : 2 unless the dealer has one."""
        return (1 - self.fraction) * Fraction(3, 2)

    @property
    def even_money_advantage(self) -> Fraction:
        """Even money minus keeping the blackjack, per unit (half insurance's edge)."""
        return self.even_money_profit - self.blackjack_profit

    @property
    def take_even_money(self) -> bool:
        return self.even_money_advantage > 0


@dataclass(frozen=True, slots=True)
class DealerOdds:
    """The exact distribution of the dealer's final result: ``numerators[i] / denominator``
    for ``DEALER_OUTCOMES[i]`` (17, 18, 19, 20, 21, BJ, BUST), in lowest common terms.
    ``up`` is the value of the dealer's up card (the hand's first card)."""

    up: str
    rule: DealerRule
    numerators: tuple[int, ...]
    denominator: int

    @classmethod
    def from_exact(
        cls, up: str, rule: DealerRule, exact: tuple[tuple[int, ...], int]
    ) -> DealerOdds:
        """From the kernel's ``(numerators, denominator)``, already in lowest common terms."""
        numerators, denominator = exact
        return cls(up, rule, numerators, denominator)

    def fractions(self) -> dict[str, Fraction]:
        return {
            o: Fraction(n, self.denominator)
            for o, n in zip(DEALER_OUTCOMES, self.numerators, strict=True)
        }

    def probabilities(self) -> dict[str, float]:
        return {o: float(f) for o, f in self.fractions().items()}


# --- Settling a dealt round --------------------------------------------------------------------


def _two(cards: Iterable[Card | str], who: str) -> tuple[Card, Card]:
    pair = tuple(parse_card(c) for c in cards)
    if len(pair) != 2:
        raise InvalidInput(f"the {who}'s first two cards are needed, got {len(pair)}")
    return pair[0], pair[1]


def _suited_kq(a: Card, b: Card) -> bool:
    return a.suit == b.suit and {a.rank, b.rank} == {Rank.QUEEN, Rank.KING}


def classify_royal_match(
    player: Iterable[Card | str],
    dealer: Iterable[Card | str] = (),
    paytable: RoyalMatchPaytable = DEFAULT_ROYAL_MATCH,
) -> tuple[str, int]:
    """The Royal Match 21 outcome of a dealt round and what it pays in hundredths (``-100``:
    lost), by the outcomes ``side_bets`` counts: ``player`` is the player's first two cards,
    ``dealer`` the dealer's first two (fewer when the round ended before the dealer's second
    card: then there is no Crown).

    With Crown Treasure off a Crown is reported as ``ROYAL`` (it pays as one).

    >>> classify_royal_match(["KS", "QS"], ["QH", "KH"])
    ('CROWN', 100000)
    >>> classify_royal_match(["KS", "QS"], ["QH", "KH"], STANDARD_ROYAL_MATCH)
    ('ROYAL', 2500)
    >>> classify_royal_match(["KS", "KS"]), classify_royal_match(["2D", "9C"], ["QH"])
    (('EASY', 250), ('LOSE', -100))
    """
    a, b = _two(player, "player")
    seen = tuple(parse_card(c) for c in dealer)
    pays = paytable.pays()
    if a.suit != b.suit:
        return "LOSE", LOSE_HUNDREDTHS
    if not _suited_kq(a, b):
        return "EASY", pays["EASY"]
    if len(seen) >= 2 and _suited_kq(seen[0], seen[1]) and paytable.crown_treasure:
        return "CROWN", pays["CROWN"]
    return "ROYAL", pays["ROYAL"]


def classify_pair(
    player: Iterable[Card | str], paytable: PairsPaytable | str = PERFECT_PAIRS
) -> tuple[str, int]:
    """The pair side bet's outcome on the player's first two cards and what it pays in
    hundredths (``-100``: lost): ``PERFECT`` (identical cards), ``COLOURED`` (same rank and
    colour, another suit), ``MIXED`` (same rank, other colour), or ``PAIR`` for an any-pair
    paytable.

    >>> classify_pair(["8H", "8H"]), classify_pair(["8H", "8D"]), classify_pair(["8H", "8S"])
    (('PERFECT', 2500), ('COLOURED', 1200), ('MIXED', 600))
    >>> classify_pair(["8H", "8S"], "any-pair"), classify_pair(["8H", "9H"], "any-pair")
    (('PAIR', 1100), ('LOSE', -100))
    """
    a, b = _two(player, "player")
    table = pairs_paytable(paytable)
    pays = table.pays()
    if a.rank != b.rank:
        return "LOSE", LOSE_HUNDREDTHS
    if "PAIR" in pays:
        return "PAIR", pays["PAIR"]
    if a.suit == b.suit:
        outcome = "PERFECT"
    elif a.suit.is_red == b.suit.is_red:
        outcome = "COLOURED"
    else:
        outcome = "MIXED"
    return outcome, pays[outcome]


# --- The functions ---------------------------------------------------------------------------


def side_bets(
    exposed: Iterable[Card | str],
    decks: int = 6,
    royal_match: RoyalMatchPaytable | str = DEFAULT_ROYAL_MATCH,
    pairs: PairsPaytable | str = "perfect-pairs",
) -> dict[str, SideBetOdds]:
    """Odds of the side bets for the next round, ``exposed`` being every card seen in the shoe.

    Keys ``ROYAL_MATCH`` (outcomes CROWN, ROYAL, EASY, LOSE; without Crown Treasure ROYAL,
    EASY, LOSE, a Crown deal counting as ROYAL) and ``PAIRS`` (PERFECT, COLOURED, MIXED, LOSE,
    or PAIR, LOSE). Royal Match ways count deals of the player's two cards and the
    dealer's two out of ``C(N, 2) × C(N − 2, 2)``; pair ways count the player's two cards out
    of ``C(N, 2)``.

    >>> odds = side_bets(["QS", "QH", "QD", "QC"] * 6, decks=6, pairs="any-pair")
    >>> odds["ROYAL_MATCH"].outcomes["ROYAL"].ways, odds["PAIRS"].outcomes["PAIR"].pays_hundredths
    (0, 1100)
    >>> side_bets(["AS"] * 7, decks=6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.CardNotInShoe: card AS is not in the shoe: all 6 of the 6-deck shoe are ...
    """
    decks = _check_decks(decks)
    rm_table = royal_match_paytable(royal_match)
    pairs_table = pairs_paytable(pairs)
    rm, pp = _blackjack.side_bet_ways(exposed, CARD_INDEX, card_index, decks)
    return _side_bets_from_ways(rm, pp, rm_table, pairs_table)


def _side_bets_from_ways(
    rm: tuple[int, int, int, int, int],
    pp: tuple[int, int, int, int, int],
    rm_table: RoyalMatchPaytable,
    pairs_table: PairsPaytable,
) -> dict[str, SideBetOdds]:
    crown, royal, easy, _lose, total4 = rm
    perfect, coloured, mixed, _no_pair, total2 = pp
    royal_ways = {"CROWN": crown, "ROYAL": royal}
    if not rm_table.crown_treasure:  # a Crown deal is a ROYAL (classify_royal_match says so)
        royal_ways = {"ROYAL": crown + royal}
    if pairs_table.pair_hundredths is not None:
        pair_ways = {"PAIR": perfect + coloured + mixed}
    else:
        pair_ways = {"PERFECT": perfect, "COLOURED": coloured, "MIXED": mixed}
    return {
        "ROYAL_MATCH": SideBetOdds.from_ways(
            "ROYAL_MATCH",
            {**royal_ways, "EASY": easy},
            total4,
            rm_table.pays(),
        ),
        "PAIRS": SideBetOdds.from_ways("PAIRS", pair_ways, total2, pairs_table.pays()),
    }


def insurance(exposed: Iterable[Card | str], decks: int = 6) -> InsuranceOdds:
    """Insurance and even money against a dealer Ace; ``exposed`` is every card seen in the
    shoe, the dealer's Ace included.

    >>> odds = insurance(["AS", "10H", "KD", "QC", "JS"], decks=1)
    >>> odds.fraction, odds.player_favourable, odds.take_even_money
    (Fraction(12, 47), False, False)
    """
    decks = _check_decks(decks)
    ways, total = _blackjack.insurance_ways(exposed, CARD_INDEX, card_index, decks)
    if total == 0:
        raise IllegalMove("no card is left in the shoe for the dealer: the shoe must be reshuffled")
    return InsuranceOdds(ways, total)


def _up_value(card: Card) -> str:
    return UP_VALUES[min(int(card.rank), 10) - 1]


def dealer_odds(
    up: Card | str,
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
) -> DealerOdds:
    """The exact distribution of the dealer's final result from the up card ``up``, drawing
    without replacement from the shoe without ``exposed`` (every other card seen) and ``up``.

    Pre-peek: BJ (a two-card 21) is one of the outcomes. The kernel computes in exact 128-bit
    integers (see ``pricing._blackjack``). ``IllegalMove`` if so few cards are left that some
    dealer hand could not be completed.

    >>> odds = dealer_odds("AS", [], decks=1)
    >>> odds.fractions()["BJ"]
    Fraction(16, 51)
    """
    decks = _check_decks(decks)
    dealer_rule = DealerRule.parse(rule)
    card = parse_card(up)
    exact = _blackjack.dealer_exact(
        card, exposed, CARD_INDEX, card_index, decks, dealer_rule is DealerRule.H17
    )
    return DealerOdds.from_exact(_up_value(card), dealer_rule, exact)


def _hand_total(cards: Iterable[Card]) -> tuple[int, bool]:
    """The best total of ``cards`` and whether it is soft (an ace counted as 11)."""
    hard = 0
    ace = False
    for card in cards:
        hard += min(int(card.rank), 10)
        ace = ace or card.rank is Rank.ACE
    if ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def hand_total(hand: Iterable[Card | str]) -> tuple[int, bool]:
    """A hand's best total and whether it is soft (an ace counted as 11): docs/rules.md
    §3.1, cards 2–10 at face value, J/Q/K 10, an ace 1 or 11.

    >>> hand_total(["AS", "6H"]), hand_total(["AS", "6H", "9D"]), hand_total(["KS", "QH", "2D"])
    ((17, True), (16, False), (22, False))
    """
    return _hand_total(parse_card(c) for c in hand)


def dealer_hand_result(
    hand: Iterable[Card | str], rule: DealerRule | str = DealerRule.S17
) -> str | None:
    """The dealer's final result if the hand ``hand`` (the dealer's cards in the order dealt)
    is over — ``"BJ"`` (a two-card 21: an ace and a ten-value card), ``"BUST"``, or ``"17"``
    to ``"21"`` where ``rule`` says stand — else ``None``: the dealer draws (docs/rules.md §3:
    S17 stands on all 17s, H17 hits soft 17). A one-card hand always draws.

    >>> dealer_hand_result(["AS", "KH"]), dealer_hand_result(["6S", "KH", "9D"])
    ('BJ', 'BUST')
    >>> dealer_hand_result(["AS", "6H"], "S17"), dealer_hand_result(["AS", "6H"], "H17")
    ('17', None)
    """
    cards = tuple(parse_card(c) for c in hand)
    dealer_rule = DealerRule.parse(rule)
    if len(cards) < 2:
        return None
    total, soft = _hand_total(cards)
    if len(cards) == 2 and total == 21:
        return "BJ"
    if total > 21:
        return "BUST"
    if total > 17 or (total == 17 and not (soft and dealer_rule is DealerRule.H17)):
        return str(total)
    return None


def played_dealer_hand(
    cards: Iterable[Card | str], rule: DealerRule | str = DealerRule.S17
) -> tuple[Card, ...]:
    """The dealer's hand made of ``cards``, the round's DEALER cards in the order dealt: all of
    them, up to the card that ends the hand (``dealer_hand_result``).

    Interpretation (docs/rules.md §3.2; the sheets say nothing of a DEALER card after the hand
    is over; by analogy with §1.4's procedure, where "an over-drawn card is a burn" and "an
    unnecessary exposure after the game has started does not change a result"): a DEALER card
    after the hand is over leaves the shoe but is not part of the hand.

    >>> played_dealer_hand(["10S", "8H", "5D"])  # stands on 18: 5D is a burn
    (Card.parse('10S'), Card.parse('8H'))
    """
    dealer_rule = DealerRule.parse(rule)
    hand: list[Card] = []
    for card in cards:
        hand.append(parse_card(card))
        if dealer_hand_result(hand, dealer_rule) is not None:
            break
    return tuple(hand)


def dealer_odds_from_hand(
    hand: Iterable[Card | str],
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
) -> DealerOdds:
    """The exact distribution of the dealer's final result given the dealer's hand so far:
    ``hand`` is the dealer's cards in the order dealt (the up card first), the rest is drawn
    without replacement from the shoe without ``exposed`` (every other card seen) and
    ``hand``. A hand that is over (``dealer_hand_result``) is a point mass on its result; BJ
    is only possible as the hand's second card. ``InvalidInput`` for an empty hand or a card
    after the hand is over (``played_dealer_hand`` drops those); ``IllegalMove`` if the shoe
    could not complete some dealer hand. With one card this is ``dealer_odds``.

    >>> dealer_odds_from_hand(["AS", "KH"], [], decks=1).fractions()["BJ"]
    Fraction(1, 1)
    >>> dealer_odds_from_hand(["6S", "KH"], [], decks=1).fractions()["BUST"]
    Fraction(3, 5)
    """
    decks = _check_decks(decks)
    dealer_rule = DealerRule.parse(rule)
    cards = tuple(parse_card(c) for c in hand)
    if not cards:
        raise InvalidInput("the dealer's hand needs at least one card")
    exact = _blackjack.dealer_exact_hand(
        cards, exposed, CARD_INDEX, card_index, decks, dealer_rule is DealerRule.H17
    )
    return DealerOdds.from_exact(_up_value(cards[0]), dealer_rule, exact)


def dealer_outcomes_from_hand(
    hand: Iterable[Card | str],
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = "S17",
) -> dict[str, float]:
    """``dealer_odds_from_hand`` as floats, keyed as ``dealer_outcomes``.

    >>> dealer_outcomes_from_hand(["6S", "KH", "9D"], [], decks=1)["BUST"]
    1.0
    """
    return dealer_odds_from_hand(hand, exposed, decks, rule).probabilities()


def dealer_outcomes(
    up: Card | str,
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = "S17",
) -> dict[str, float]:
    """``dealer_odds`` as floats, keyed ``"17" "18" "19" "20" "21" "BJ" "BUST"``.

    >>> outcomes = dealer_outcomes("6S", [], decks=1)
    >>> [round(outcomes[k], 6) for k in ("17", "18", "19", "20", "21", "BJ", "BUST")]
    [0.166948, 0.106454, 0.107192, 0.100705, 0.097878, 0.0, 0.420823]
    """
    return dealer_odds(up, exposed, decks, rule).probabilities()


def dealer_table(
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
) -> dict[str, DealerOdds | None]:
    """For each up-card value of the NEXT round (``A``, ``2`` … ``9``, ``10``), the dealer's
    outcomes if the up card has that value; ``None`` where no such card is left (or the shoe
    could not complete a hand).

    >>> table = dealer_table([], decks=8)
    >>> list(table)[:3], table["10"].fractions()["BJ"] == Fraction(32, 415)
    (['A', '2', '3'], True)
    """
    decks = _check_decks(decks)
    dealer_rule = DealerRule.parse(rule)
    rows = _blackjack.dealer_table(
        exposed, CARD_INDEX, card_index, decks, dealer_rule is DealerRule.H17
    )
    return _dealer_table_from_rows(rows, dealer_rule)


def _dealer_table_from_rows(
    rows: tuple[tuple[tuple[int, ...], int] | None, ...], rule: DealerRule
) -> dict[str, DealerOdds | None]:
    return {
        up: None if exact is None else DealerOdds.from_exact(up, rule, exact)
        for up, exact in zip(UP_VALUES, rows, strict=True)
    }


# --- The shoe as a state machine -------------------------------------------------------------


@dataclass(frozen=True)
class BlackjackShoe:
    """The state of a blackjack table's shoe: a pure fold of the events it accepted.

    ``exposed`` holds the cards out of the shoe now, ``round_exposed`` the cards (and roles)
    seen in the current round. In a ``DEPLETING`` shoe cards stay out until ``NewShoe``; in a
    ``CONTINUOUS`` shuffle the round's cards go back at its end (``EndRound``), so the next
    round is always dealt from a full shoe. ``round_id`` counts rounds from 1 and moves on at
    each round boundary. Every transition returns a new state; a rejected event raises and
    changes nothing.

    >>> state = BlackjackShoe(decks=1)
    >>> for text, role in [("AS", CardRole.DEALER), ("KS", CardRole.PLAYER)]:
    ...     state = state.apply(ExposeCard(parse_card(text), role))
    >>> state.dealer_up, state.cards_remaining, state.insurance.fraction
    (Card.parse('AS'), 50, Fraction(3, 10))
    >>> state = state.apply(EndRound())
    >>> state.round_id, state.round_exposed, len(state.exposed)
    (2, (), 2)
    >>> state.apply(ExposeCard(parse_card("AS"), CardRole.PLAYER))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.CardNotInShoe: card AS is not in the shoe: all 1 of the 1-deck shoe are ...
    """

    decks: int = 6
    rule: DealerRule = DealerRule.S17
    mode: ShoeMode = ShoeMode.DEPLETING
    royal_match: RoyalMatchPaytable = DEFAULT_ROYAL_MATCH
    pairs: PairsPaytable = PERFECT_PAIRS
    shoe: int = 1
    round_id: int = 1
    exposed: tuple[Card, ...] = ()
    round_exposed: tuple[ExposeCard, ...] = ()
    #: Cards left of each of the 52 cards (by ``Card.index``): derived from ``exposed``.
    counts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_decks(self.decks)
        object.__setattr__(self, "rule", DealerRule.parse(self.rule))
        object.__setattr__(self, "mode", ShoeMode.parse(self.mode))
        object.__setattr__(self, "royal_match", royal_match_paytable(self.royal_match))
        object.__setattr__(self, "pairs", pairs_paytable(self.pairs))
        counts = _blackjack.shoe_counts(self.exposed, CARD_INDEX, card_index, self.decks)
        object.__setattr__(self, "counts", counts)

    # -- derived views (computed once per state) --

    @property
    def cards_remaining(self) -> int:
        return 52 * self.decks - len(self.exposed)

    @property
    def round_cards(self) -> tuple[Card, ...]:
        return tuple(e.card for e in self.round_exposed)

    @cached_property
    def dealer_cards(self) -> tuple[Card, ...]:
        """Every DEALER card of the round, in the order dealt."""
        return tuple(e.card for e in self.round_exposed if e.role is CardRole.DEALER)

    @cached_property
    def dealer_hand(self) -> tuple[Card, ...]:
        """The dealer's hand: the round's DEALER cards up to the one that ends the hand
        (``played_dealer_hand``: a DEALER card after that is a burn, an interpretation)."""
        cards = self.dealer_cards
        if len(cards) <= 2:  # a one-card hand always draws: both cards are the hand's
            return cards
        return played_dealer_hand(cards, self.rule)

    @cached_property
    def dealer_up(self) -> Card | None:
        """The dealer's up card: the first DEALER card of the round."""
        cards = self.dealer_cards
        return cards[0] if cards else None

    @property
    def dealer_result(self) -> str | None:
        """The dealer's final result once the hand is over (``dealer_hand_result``)."""
        return dealer_hand_result(self.dealer_hand, self.rule)

    @property
    def next_round_exposed(self) -> tuple[Card, ...]:
        """The cards that will still be out of the shoe when the next round is dealt."""
        if self.mode is ShoeMode.CONTINUOUS:
            return self.exposed[: len(self.exposed) - len(self.round_exposed)]
        return self.exposed

    @cached_property
    def side_bets(self) -> dict[str, SideBetOdds]:
        """Royal Match and pair odds for the NEXT round."""
        if self.mode is ShoeMode.DEPLETING:
            counts = self.counts
        else:
            exposed = self.next_round_exposed
            counts = _blackjack.shoe_counts(exposed, CARD_INDEX, card_index, self.decks)
        rm, pp = _blackjack.side_bet_ways_counts(counts)
        return _side_bets_from_ways(rm, pp, self.royal_match, self.pairs)

    @cached_property
    def insurance(self) -> InsuranceOdds | None:
        """Insurance odds while the dealer's only card is an Ace, else ``None``.

        docs/rules.md §3.4: offered when the dealer's card is an Ace, it pays 2 : 1 if the
        dealer makes blackjack; §3.1: the dealer takes one card at the deal (no hole card).
        Interpretation: the insurance decision is only open until the dealer's second card;
        once it is out, blackjack is made or missed and there is nothing left to insure (a
        table shows no insurance from then on). The odds are those of the dealer's second card
        being a ten-value card, drawn from the shoe as it is now (player cards seen since the
        Ace removed: see the module's notes)."""
        cards = self.dealer_cards
        if len(cards) != 1 or cards[0].rank is not Rank.ACE or self.cards_remaining == 0:
            return None
        return InsuranceOdds(*_blackjack.insurance_ways_counts(self.counts))

    @cached_property
    def dealer_outcomes(self) -> DealerOdds | None:
        """The dealer's outcomes given the dealer's hand so far (``dealer_hand``: the up card
        and every later DEALER card), the rest drawn from the shoe as it is now (every card
        seen removed); a point mass on the result once the hand is over (stands by the
        table's rule, busts, or is a blackjack). ``None`` before the up card, or when the shoe
        could not complete a dealer hand."""
        hand = self.dealer_hand
        if not hand:
            return None
        try:
            exact = _blackjack.dealer_exact_hand_counts(
                [c.index for c in hand], self.counts, self.rule is DealerRule.H17
            )
        except IllegalMove:
            return None
        return DealerOdds.from_exact(_up_value(hand[0]), self.rule, exact)

    @cached_property
    def next_dealer_table(self) -> dict[str, DealerOdds | None]:
        """``dealer_table`` for the NEXT round under the shoe's rule: the dealer's outcomes
        for each up-card value."""
        if self.mode is ShoeMode.DEPLETING:
            counts = self.counts
        else:
            exposed = self.next_round_exposed
            counts = _blackjack.shoe_counts(exposed, CARD_INDEX, card_index, self.decks)
        rows = _blackjack.dealer_table_counts(counts, self.rule is DealerRule.H17)
        return _dealer_table_from_rows(rows, self.rule)

    @property
    def favourable(self) -> tuple[str, ...]:
        """The bets that are player-favourable now: the alert list."""
        bets = [name for name, odds in self.side_bets.items() if odds.player_favourable]
        if self.insurance is not None and self.insurance.player_favourable:
            bets.append("INSURANCE")
        return tuple(bets)

    # -- transitions --

    def apply(self, event: Event) -> BlackjackShoe:
        """The state after ``event``: ``ExposeCard`` (PLAYER, DEALER or BURN; RESULT is not a
        blackjack role), ``EndRound``, ``VoidRound`` (a round boundary like ``EndRound``: the
        refund is the table's business, the cards seen stay seen) or ``NewShoe``."""
        match event:
            case ExposeCard(card=card, role=role, seat=seat):
                return self.expose(card, role, seat)
            case EndRound():
                return self.end_round()
            case VoidRound():
                return self.end_round()
            case NewShoe():
                return self.new_shoe()
        raise InvalidInput(f"unknown event {event!r}")

    def expose(self, card: Card | str, role: CardRole, seat: int = 0) -> BlackjackShoe:
        """A card was turned face up: it leaves the shoe, whatever its role. ``seat`` (which
        player box a PLAYER card went to) is kept with it in ``round_exposed``; the odds do not
        depend on it, and the table checks it."""
        if not isinstance(role, CardRole) or role is CardRole.RESULT:
            raise InvalidInput(
                f"card role {getattr(role, 'name', role)} is not used in blackjack: "
                "use PLAYER, DEALER or BURN"
            )
        card = DECK[parse_card(card).index]  # the canonical object: the kernel reads it fastest
        if self.counts[card.index] == 0:
            raise CardNotInShoe(
                f"card {card} is not in the shoe: all {self.decks} of the "
                f"{self.decks}-deck shoe are already exposed"
            )
        return replace(
            self,
            exposed=(*self.exposed, card),
            round_exposed=(*self.round_exposed, ExposeCard(card, role, seat)),
        )

    def end_round(self) -> BlackjackShoe:
        """The round is over (or void: its cards are treated alike). A continuous shuffler
        takes the round's cards back."""
        return replace(
            self,
            round_id=self.round_id + 1,
            exposed=self.next_round_exposed,
            round_exposed=(),
        )

    def new_shoe(self) -> BlackjackShoe:
        """A fresh shoe: every card is back. A round with cards dealt is over (void)."""
        return replace(
            self,
            shoe=self.shoe + 1,
            round_id=self.round_id + 1 if self.round_exposed else self.round_id,
            exposed=(),
            round_exposed=(),
        )
