"""Higher/Lower's exact return to player (docs/rules.md §6.4): every bet, in a continuous
shuffler and round by round through a depleting shoe, with the floor rounding, the clamps and
the closing of a bet that would return over par counted.

Every price depends only on how many of the cards that can come next win the bet. In a
continuous shuffler those are the full shoe without the base card. In a depleting shoe, at
round k, ``1 + (k - 1)(burns + 1)`` cards are out, the base card last; by exchangeability the
base card is uniform over the shoe and the other cards out are a uniform subset of the rest,
so the winning cards left are hypergeometric given the base. Each count is priced by
``NextCardGame.offer``, the live quote's own rule, and summed with integer weights: every
figure is exact.

>>> report = higher_lower_report(modes=(ShuffleMode.CONTINUOUS,))
>>> higher = report.continuous["HIGHER"]
>>> [(g.label, g.report.min_payout) for g in higher.by_base][:2]
[('2', 5), ('3', 15)]
>>> f"{float(report.continuous['SNAP'].overall.rtp):.5f}"
'0.96648'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any, Final

from pricing.analysis.report import BetReport, PositionTally, bet_report, exact_number
from pricing.cards import DECK, Card, Suit
from pricing.errors import InvalidOption
from pricing.games.higher_lower import (
    BLACK_SUITS,
    DEFAULT_BURNS,
    DEFAULT_DECKS,
    DEFAULT_PAYTABLE,
    RED_SUITS,
    HigherLowerPaytable,
    HigherLowerRules,
    ShuffleMode,
    game,
)
from pricing.games.next_card import NextCardGame
from pricing.payout import BetPrice, Paytable

__all__ = [
    "BOTH_MODES",
    "BaseGroup",
    "HigherLowerReport",
    "NextCardBetReport",
    "higher_lower_report",
    "mode_positions",
    "mode_tallies",
    "next_card_report",
    "round_cards_out",
]

BOTH_MODES: Final = (ShuffleMode.CONTINUOUS, ShuffleMode.DEPLETING)


@dataclass(frozen=True, slots=True)
class BaseGroup:
    """The base cards on which a bet has the same ``winners``: the winning cards in the full
    shoe without the base. Every figure of the bet is the same on each of them.

    ``cards``: one of each card (its copies all in); ``probability``: that the base card is
    one of them; ``report``: the bet given such a base (continuous: one position; depleting:
    the rounds)."""

    label: str
    cards: tuple[Card, ...]
    probability: Fraction
    winners: int
    report: BetReport


@dataclass(frozen=True, slots=True)
class NextCardBetReport:
    """One bet in one shuffle mode: ``overall`` over every base card (a continuous shuffler:
    one position; a depleting shoe: positions = rounds), and ``by_base``."""

    bet: str
    overall: BetReport
    by_base: tuple[BaseGroup, ...]

    def as_dict(self, cards_left: int | None) -> dict[str, Any]:
        """``overall`` as ``BetReport.as_dict`` plus a summary per base group;
        ``cards_left`` (continuous only) gives each group's win probability."""
        return {
            **self.overall.as_dict(),
            "by_base": [_group_dict(g, cards_left) for g in self.by_base],
        }


def _group_dict(group: BaseGroup, cards_left: int | None) -> dict[str, Any]:
    r = group.report
    out: dict[str, Any] = {
        "base": group.label,
        "cards": [str(c) for c in group.cards],
        "probability": exact_number(group.probability),
        "winners": group.winners,
        "rtp": exact_number(r.rtp),
        "closed": exact_number(r.closed),
    }
    if cards_left is None:
        out["per_offered_round"] = exact_number(r.per_offered_round)
    else:
        out["payout_hundredths"] = r.min_payout
        out["win_probability"] = exact_number(Fraction(group.winners, cards_left))
    return out


@dataclass(frozen=True, slots=True)
class HigherLowerReport:
    """The exact report of every bet of a next-card game under ``paytable``, in each mode
    asked for (``None``: not asked). ``cards_out[k - 1]``: the cards out when round k's bets
    are priced in a depleting shoe (its base card included)."""

    paytable: Paytable
    deck_size: int
    decks: int
    burns: int
    cards_out: tuple[int, ...]
    continuous: dict[str, NextCardBetReport] | None
    depleting: dict[str, NextCardBetReport] | None

    @property
    def rounds(self) -> int:
        return len(self.cards_out)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": "higher-lower",
            "decks": self.decks,
            "deck_size": self.deck_size,
            "burns": self.burns,
        }
        if self.continuous is not None:
            left = self.deck_size - 1
            out["continuous"] = {b: r.as_dict(left) for b, r in self.continuous.items()}
        if self.depleting is not None:
            out["depleting"] = {
                "rounds": self.rounds,
                "cards_out": list(self.cards_out),
                "bets": {b: r.as_dict(None) for b, r in self.depleting.items()},
            }
        return out


def round_cards_out(deck_size: int, burns: int) -> tuple[int, ...]:
    """The cards out (base included) when each round of a depleting shoe is priced: the base
    card, then ``burns`` burns and a result per round, while ``burns + 1`` cards remain.

    >>> round_cards_out(12, 1)
    (1, 3, 5, 7, 9)
    """
    step = burns + 1
    return tuple(range(1, deck_size - step + 1, step))


@cache
def _left_ways(others: int, winners: int, drawn: int) -> tuple[int, ...]:
    """``ways[n]``: the subsets of ``drawn`` of the ``others`` cards besides the base that
    leave ``n`` of its ``winners`` winning cards in the shoe (the hypergeometric, in integers)."""
    ways = [0] * (winners + 1)
    for taken in range(max(0, drawn - (others - winners)), min(winners, drawn) + 1):
        ways[winners - taken] = comb(winners, taken) * comb(others - winners, drawn - taken)
    return tuple(ways)


def _winners(nc: NextCardGame, bet: str, base: Card) -> int:
    """The cards that win ``bet`` after ``base`` in the full shoe without the base card."""
    held = [c for c in DECK if nc.deck.holds(c)]
    full = nc.deck.decks * sum(nc.wins(bet, c, base) for c in held)
    return full - nc.wins(bet, base, base)


def _label(nc: NextCardGame, cards: Sequence[Card]) -> str:
    """Base cards as a reader names them: ranks in the deck's order, with their colour or
    suits when only some suits of a rank are in (``2 3 4 5``, ``red``, ``7 black``)."""
    ranks = [r for r in nc.deck.ranks if any(c.rank == r for c in cards)]
    suits = {r: frozenset(c.suit for c in cards if c.rank == r) for r in ranks}
    shared = set(suits.values())
    if len(shared) == 1:
        (common,) = shared
        rank_text = "" if len(ranks) == len(nc.deck.ranks) else " ".join(r.symbol for r in ranks)
        suit_text = {frozenset(Suit): "", RED_SUITS: "red", BLACK_SUITS: "black"}.get(
            common, "".join(s.symbol for s in sorted(common))
        )
        return " ".join(t for t in (rank_text, suit_text) if t) or "any"
    return ", ".join(r.symbol + "".join(s.symbol for s in sorted(suits[r])) for r in ranks)


def _groups(nc: NextCardGame, bet: str) -> list[tuple[int, tuple[Card, ...]]]:
    """The base cards by their number of winners, in the deck's order of their lowest card."""
    by_winners: dict[int, list[Card]] = {}
    order = sorted(
        (c for c in DECK if nc.deck.holds(c)), key=lambda c: (nc.deck.ranks.index(c.rank), c.suit)
    )
    for card in order:
        by_winners.setdefault(_winners(nc, bet, card), []).append(card)
    return [(w, tuple(cards)) for w, cards in by_winners.items()]


def _offers(nc: NextCardGame, bet: str, paytable: Paytable) -> Callable[[int, int], BetPrice]:
    """``bet``'s live price from its counts, kept: a report asks for each count many times."""

    @cache
    def price(wins: int, remaining: int) -> BetPrice:
        return nc.offer(bet, wins, remaining, paytable)

    return price


#: A mode's deck states given the base's number of winners: one tally per position.
Tallies = Callable[[int], list[PositionTally]]


def _fresh(size: int) -> Tallies:
    """A continuous shuffler: one position, the shoe without the base, every winner in it."""
    return lambda winners: [PositionTally(size - 1, (0,) * winners + (1,))]


def _depleted(size: int, cards_out: Sequence[int]) -> Tallies:
    """A depleting shoe: per round, the winners left after the other cards out (hypergeometric)."""
    return lambda winners: [
        PositionTally(size - m, _left_ways(size - 1, winners, m - 1)) for m in cards_out
    ]


def _mode_report(
    nc: NextCardGame, bet: str, paytable: Paytable, tallies: Tallies
) -> NextCardBetReport:
    """``bet`` in one mode: per base group, and over them weighted by their cards."""
    rule = paytable.rules()[bet]
    positions, price = mode_positions(nc, bet, paytable, tallies)
    by_base = [
        BaseGroup(
            label=_label(nc, cards),
            cards=cards,
            probability=Fraction(nc.deck.decks * len(cards), nc.deck.size),
            winners=winners,
            report=bet_report(bet, rule, tallies(winners), price),
        )
        for winners, cards in _groups(nc, bet)
    ]
    return NextCardBetReport(bet, bet_report(bet, rule, positions, price), tuple(by_base))


def mode_tallies(size: int, mode: ShuffleMode, burns: int = DEFAULT_BURNS) -> Tallies:
    """The deck states of a ``size``-card shoe in ``mode``, ``burns`` burns before each result."""
    if mode is ShuffleMode.CONTINUOUS:
        return _fresh(size)
    return _depleted(size, round_cards_out(size, burns))


def mode_positions(
    nc: NextCardGame, bet: str, paytable: Paytable, tallies: Tallies
) -> tuple[list[PositionTally], Callable[[int, int], BetPrice]]:
    """``bet``'s deck states at each round over every base card (weighted by its copies), and
    its live price from a count: the states the report's overall figures are summed over."""
    overall: list[list[int]] | None = None
    own: list[PositionTally] = []
    for winners, cards in _groups(nc, bet):
        own = tallies(winners)
        overall = _add_tallies(overall, own, nc.deck.decks * len(cards))
    assert overall is not None  # every group has the same positions: the last one names them
    positions = [PositionTally(t.outcomes, ways) for t, ways in zip(own, overall, strict=True)]
    return positions, _offers(nc, bet, paytable)


def _add_tallies(
    total: list[list[int]] | None, tallies: Sequence[PositionTally], copies: int
) -> list[list[int]]:
    """``total`` (ways per position) plus ``copies`` × ``tallies``' ways."""
    if total is None:
        total = [[] for _ in tallies]
    for ways, tally in zip(total, tallies, strict=True):
        ways.extend([0] * (len(tally.ways) - len(ways)))
        for n, w in enumerate(tally.ways):
            ways[n] += copies * w
    return total


def next_card_report(
    nc: NextCardGame,
    paytable: Paytable,
    *,
    burns: int = DEFAULT_BURNS,
    modes: Sequence[ShuffleMode] = BOTH_MODES,
) -> HigherLowerReport:
    """The exact report of every bet of ``nc`` under ``paytable``, ``burns`` burns before each
    result, in ``modes``. Any deck: a reduced one checks the method by brute force."""
    if not modes:
        raise InvalidOption("the report needs a shuffle mode: continuous, depleting or both")
    if burns < 0:
        raise InvalidOption(f"burns must be >= 0, got {burns}")
    size = nc.deck.size
    cards_out = round_cards_out(size, burns)
    if not cards_out:
        raise InvalidOption(f"a shoe of {size} cards deals no round with {burns} burns")
    bets = {
        mode: {
            bet: _mode_report(nc, bet, paytable, mode_tallies(size, mode, burns))
            for bet in nc.names
        }
        for mode in modes
    }
    return HigherLowerReport(
        paytable=paytable,
        deck_size=size,
        decks=nc.deck.decks,
        burns=burns,
        cards_out=cards_out,
        continuous=bets.get(ShuffleMode.CONTINUOUS),
        depleting=bets.get(ShuffleMode.DEPLETING),
    )


def higher_lower_report(
    paytable: HigherLowerPaytable = DEFAULT_PAYTABLE,
    *,
    decks: int = DEFAULT_DECKS,
    burns: int = DEFAULT_BURNS,
    modes: Sequence[ShuffleMode] = BOTH_MODES,
) -> HigherLowerReport:
    """The exact report of Higher/Lower's ten bets: ``decks`` 48-card decks, ``burns`` burns
    before each result (checked as a table's rules are), in ``modes`` (default both)."""
    HigherLowerRules(paytable=paytable, burns=burns)
    return next_card_report(game(decks), paytable, burns=burns, modes=modes)
