"""The fixed, total-dependent basic strategy the analyzer prices a shoe under beside the
composition-dependent play (docs/rules.md §3.9): the published chart for 4–8 decks (Wizard of
Odds, "4-8 decks"), by the dealer's rule and whether doubling after a split is allowed.

A chart cell is one letter: ``S`` stand, ``H`` hit, ``D`` double (else hit), ``X`` double
(else stand), ``R`` surrender (else hit), ``P`` split. Columns are the up card 2 3 4 5 6 7 8
9 10 A. What a letter becomes depends on where the hand is (``Spot``): doubling and surrender
are open on the first two cards only, doubling after a split only when the table allows it,
surrender never after a split and never against an Ace; more than two cards only stand or hit.

>>> action(Spot.FIRST_TWO, soft=False, total=11, up=6, rules_h17=False, das=True)
'D'
>>> action(Spot.MORE_CARDS, soft=True, total=18, up=4, rules_h17=False, das=True)
'S'
>>> action(Spot.FIRST_TWO, soft=False, total=16, up=10, rules_h17=False, das=True, surrender=True)
'R'
>>> splits(8, up=10, das=True), splits(4, up=5, das=False)
(True, False)
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

__all__ = ["Spot", "action", "splits"]

UP_CARDS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)  # the chart's column order

_HARD: Final[dict[int, str]] = {
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDDH",
    12: "HHSSSHHHHH",
    13: "SSSSSHHHHH",
    14: "SSSSSHHHHH",
    15: "SSSSSHHHRH",
    16: "SSSSSHHRRH",
}
_HARD_H17: Final[dict[int, str]] = {11: "DDDDDDDDDD"}
_SOFT: Final[dict[int, str]] = {
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SXXXXSSHHH",
    19: "SSSSSSSSSS",
}
_SOFT_H17: Final[dict[int, str]] = {18: "XXXXXSSHHH", 19: "SSSSXSSSSS"}
_PAIRS_DAS: Final[dict[int, str]] = {
    1: "PPPPPPPPPP",
    2: "PPPPPPHHHH",
    3: "PPPPPPHHHH",
    4: "HHHPPHHHHH",
    6: "PPPPPHHHHH",
    7: "PPPPPPHHHH",
    8: "PPPPPPPPPP",
    9: "PPPPPSPPSS",
}
_PAIRS_NO_DAS: Final[dict[int, str]] = {
    2: "HHPPPPHHHH",
    3: "HHPPPPHHHH",
    4: "HHHHHHHHHH",
    6: "HPPPPHHHHH",
}


class Spot(IntEnum):
    """Where a hand is: what it may still do besides stand and hit."""

    FIRST_TWO = 0  # a seat's first two cards: double, surrender
    SPLIT_TWO = 1  # a split hand's first two cards: double if the table allows it after a split
    MORE_CARDS = 2  # three or more cards


def _cell(soft: bool, total: int, up: int, h17: bool) -> str:
    column = UP_CARDS.index(up)
    if soft:
        row = (_SOFT_H17 if h17 else {}).get(total) or _SOFT.get(total)
        if row is None:
            return "H" if total <= 17 else "S"
        return row[column]
    row = (_HARD_H17 if h17 else {}).get(total) or _HARD.get(total)
    if row is None:
        return "H" if total < 9 else "S"
    return row[column]


def action(
    spot: Spot,
    *,
    soft: bool,
    total: int,
    up: int,
    rules_h17: bool,
    das: bool,
    surrender: bool = False,
) -> str:
    """The chart's action (``S``, ``H``, ``D`` or ``R``) for a hand of ``total`` (``soft``: an
    ace counted 11) at ``spot`` against the up card of value ``up`` (1 = Ace … 10), resolved
    by what is open there. Pairs are looked up first with ``splits``."""
    cell = _cell(soft, total, up, rules_h17)
    can_double = spot is Spot.FIRST_TWO or (spot is Spot.SPLIT_TWO and das)
    if cell == "D":
        return "D" if can_double else "H"
    if cell == "X":
        return "D" if can_double else "S"
    if cell == "R":
        return "R" if spot is Spot.FIRST_TWO and surrender and up != 1 else "H"
    return cell


def splits(pair: int, *, up: int, das: bool) -> bool:
    """Whether the chart splits a pair of value ``pair`` (1 = Aces … 10) against ``up``."""
    row = (_PAIRS_NO_DAS if not das else {}).get(pair) or _PAIRS_DAS.get(pair)
    return row is not None and row[UP_CARDS.index(up)] == "P"
