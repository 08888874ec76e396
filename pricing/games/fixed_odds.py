"""The odds of a fixed-paytable bet, exact: each outcome's ways out of a common total and its
signed pay, and the bet's return to player as a ratio of integers. Every game's side bets
(blackjack's library, baccarat's and Dragon Tiger's bets) are priced into these.

A pay is in hundredths of the stake, signed: ``-100`` loses the stake, ``0`` returns it (a
push), ``-50`` loses half of it; the money rule is ``pricing.payout``'s (returned = stake +
floor(stake × pay / 100)).

>>> odds = SideBetOdds.from_ways("TIE", {"WIN": 1}, 10, {"WIN": 800})
>>> odds.rtp_fraction, odds.outcomes["LOSE"].ways, odds.player_favourable
(Fraction(9, 10), 9, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Final, NamedTuple

from pricing.errors import InvalidOption
from pricing.payout import MAX_HUNDREDTHS, is_whole_number
from pricing.text import quoted

__all__ = [
    "LOSE_HUNDREDTHS",
    "MAX_CLOSE_AT_RTP_BP",
    "OutcomeOdds",
    "SideBetOdds",
    "check_close_at_rtp_bp",
    "preset_pays",
    "protection_closes",
]

#: What a lost bet pays: the whole stake.
LOSE_HUNDREDTHS: Final = -100


class OutcomeOdds(NamedTuple):
    """One outcome of a bet: it happens in ``ways`` of ``total`` equally likely deals and pays
    ``payout_hundredths`` (``-100``: the stake is lost). A named tuple: every bet's outcomes
    are made again after every card, and a tuple is made in half a frozen dataclass's time."""

    ways: int
    total: int
    payout_hundredths: int

    @property
    def fraction(self) -> Fraction:
        """The exact probability (0 when the bet is closed: no deal possible)."""
        return Fraction(self.ways, self.total) if self.total else Fraction(0)

    @property
    def probability(self) -> float:
        return float(self.fraction)


def preset_pays(
    bet: str,
    presets: Mapping[str, Mapping[str, int]],
    preset: str,
    default: str,
    overrides: Mapping[str, int] | None,
) -> tuple[str, dict[str, int]]:
    """The paytable a table names for ``bet``: the name of its preset (``preset`` in any case,
    ``default`` when blank) and that preset's pays with those of ``overrides`` in their place.
    ``InvalidOption`` names an unknown preset or an entry the preset does not have.

    >>> tie = {"standard": {"WIN": 800}}
    >>> preset_pays("TIE", tie, " Standard ", "standard", {"WIN": 900})
    ('standard', {'WIN': 900})
    >>> preset_pays("TIE", tie, "", "standard", {"LOSE": 1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: TIE entry 'LOSE' is not in the standard paytable: expected ...
    """
    name = preset.strip().lower() or default
    pays = presets.get(name)
    if pays is None:
        raise InvalidOption(
            f"unknown {bet} preset {quoted(preset)}: expected one of {', '.join(presets)}"
        )
    for entry in overrides or {}:
        if entry not in pays:
            raise InvalidOption(
                f"{bet} entry {quoted(entry)} is not in the {name} paytable: expected one of "
                f"{', '.join(pays)}"
            )
    return name, {**pays, **(overrides or {})}


def check_entry_pays(bet: str, pays: Mapping[str, int]) -> None:
    """``InvalidOption`` unless every paytable entry of ``bet`` pays a whole number of
    hundredths from 0 to ``MAX_HUNDREDTHS``.

    >>> check_entry_pays("TIE", {"WIN": 800})
    >>> check_entry_pays("TIE", {"WIN": 8.5})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: TIE WIN must be a whole number of hundredths ..., got 8.5
    """
    for entry, value in pays.items():
        if not is_whole_number(value) or not 0 <= value <= MAX_HUNDREDTHS:
            raise InvalidOption(
                f"{bet} {entry} must be a whole number of hundredths from 0 to "
                f"{MAX_HUNDREDTHS} (2.5 : 1 is 250), got {value!r}"
            )


def _rtp_fraction(numerator: int, denominator: int) -> Fraction:
    return Fraction(numerator, denominator) if denominator else Fraction(0)


class SideBetOdds(NamedTuple):
    """A fixed-paytable side bet for the next round: every outcome (``LOSE`` last) with exact
    ways out of a common total, and the bet's return to player (stake included: 1.0 is
    break-even) as the exact ratio ``rtp_numerator / rtp_denominator``. A named tuple, as
    ``OutcomeOdds``: a table makes every bet's odds again after every card."""

    bet: str
    outcomes: Mapping[str, OutcomeOdds]
    rtp_numerator: int
    rtp_denominator: int

    @classmethod
    def from_ways(
        cls, bet: str, ways: Mapping[str, int], total: int, pays: Mapping[str, int]
    ) -> SideBetOdds:
        """Build from the ways of each winning outcome (``LOSE`` is the rest of ``total``)."""
        # One plain loop: a table prices every bet it offers on every card.
        outcomes: dict[str, OutcomeOdds] = {}
        lose = total
        numerator = 0
        for outcome, n in ways.items():
            pay = pays[outcome]
            outcomes[outcome] = OutcomeOdds(n, total, pay)
            lose -= n
            numerator += n * (pay + 100)
        outcomes["LOSE"] = OutcomeOdds(lose, total, LOSE_HUNDREDTHS)
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


#: The highest ``close_at_rtp_bp``: 100 times the stake back, far past any bet's RTP.
MAX_CLOSE_AT_RTP_BP: Final = 1_000_000


def check_close_at_rtp_bp(value: int, field: str = "close_at_rtp_bp") -> int:
    """A table's game protection bound, checked: 0 (off) to ``MAX_CLOSE_AT_RTP_BP``."""
    if not 0 <= value <= MAX_CLOSE_AT_RTP_BP:
        raise InvalidOption(
            f"close_at_rtp_bp {value} is not allowed: send 0 (off) to {MAX_CLOSE_AT_RTP_BP} "
            "basis points (10000 closes a side bet the round it returns the stake or more)",
            field=field,
        )
    return value


def protection_closes(odds: SideBetOdds, close_at_rtp_bp: int) -> bool:
    """Game protection: a side bet whose exact RTP for the round is at or over
    ``close_at_rtp_bp`` basis points is not offered for it (0: off). Exact: the ratio is
    compared, not its double.

    >>> even = SideBetOdds.from_ways("TIE", {"WIN": 1}, 9, {"WIN": 800})  # RTP exactly 1
    >>> protection_closes(even, 10_000), protection_closes(even, 10_001), protection_closes(even, 0)
    (True, False, False)
    """
    if not close_at_rtp_bp or not odds.rtp_denominator:
        return False
    return 10_000 * odds.rtp_numerator >= close_at_rtp_bp * odds.rtp_denominator
