"""The side bets' paytables (docs/rules.md §2, §3): Royal Match 21 and the pair bet, their
presets by name, and the fixed pays of a lost bet and of insurance.

A pay of ``n`` hundredths means ``n / 100 : 1``; a losing outcome is listed with ``-100`` (the
stake is lost).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pricing.errors import InvalidOption
from pricing.games.fixed_odds import LOSE_HUNDREDTHS
from pricing.payout import MAX_HUNDREDTHS, is_whole_number

__all__ = [
    "ANY_PAIR",
    "DEFAULT_ROYAL_MATCH",
    "INSURANCE_HUNDREDTHS",
    "LOSE_HUNDREDTHS",
    "PAIRS_PRESETS",
    "PERFECT_PAIRS",
    "ROYAL_MATCH_PRESETS",
    "STANDARD_ROYAL_MATCH",
    "PairsPaytable",
    "RoyalMatchPaytable",
    "pairs_paytable",
    "royal_match_paytable",
]

#: Insurance pays 2 : 1 (docs/rules.md §3).
INSURANCE_HUNDREDTHS: Final = 200


def _check_pays(name: str, value: object) -> None:
    if not is_whole_number(value) or not 0 <= value <= MAX_HUNDREDTHS:  # type: ignore[operator]
        raise InvalidOption(
            f"{name} must be a whole number of hundredths from 0 to {MAX_HUNDREDTHS} "
            f"(2.5 : 1 is 250), got {value!r}",
            field=name,
        )


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
