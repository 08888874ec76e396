"""The pay rule of a dynamic bet: RTP in basis points and the clamp in hundredths.

The rule (docs/rules.md §1: ``RTP × total / wins − 1``, rounded down to a hundredth, clamped)
is implemented once, in the Cython module ``pricing._payout``; every dynamic bet of every game
prices through it.

>>> rule = PayRule(rtp_bp=9600, min_hundredths=52, max_hundredths=264)
>>> rule.price("LOW", wins=24, total=38).payout_hundredths
52
>>> PayRule(rtp_bp=0, min_hundredths=0, max_hundredths=1)
Traceback (most recent call last):
...
pricing.errors.InvalidOption: rtp_bp must be in (0, 10000] basis points, got 0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final, Self

from pricing._payout import BetPrice, price_bet, raw_payout_hundredths
from pricing.errors import InvalidOption

__all__ = [
    "MAX_HUNDREDTHS",
    "BetPrice",
    "PayRule",
    "Paytable",
    "closed",
    "is_whole_number",
    "raw_payout_hundredths",
    "returned_cents",
]

#: The highest pay a rule may name, in hundredths: 10,000,000 : 1, far beyond any paytable, well
#: inside int64 (and the wire's uint32). Settlement's largest stake is sized against it.
MAX_HUNDREDTHS: Final = 10**9


def is_whole_number(value: object) -> bool:
    """An ``int`` that is not a ``bool`` (``True`` is no deck count or pay)."""
    return isinstance(value, int) and not isinstance(value, bool)


def returned_cents(stake_cents: int, pay_hundredths: int) -> int:
    """What a bet of ``stake_cents`` returns at a signed pay of ``pay_hundredths``: the stake
    plus floor(stake × pay / 100), so a fraction of a cent always goes to the house (a half
    loss of an odd stake keeps the odd cent).

    >>> returned_cents(1000, 95), returned_cents(11, 95), returned_cents(101, -50)
    (1950, 21, 50)
    >>> returned_cents(500, 0), returned_cents(500, -100)
    (500, 0)
    """
    return stake_cents + stake_cents * pay_hundredths // 100


def closed(prices: Mapping[str, BetPrice]) -> dict[str, BetPrice]:
    """The same bets, not offered: counts kept for display, payout 0, ``open`` false.

    >>> closed({"LOW": PayRule(9600, 52, 264).price("LOW", 24, 47)})["LOW"].open
    False
    """
    return {
        bet: BetPrice(bet, p.wins, p.remaining, 0, open=False, clamped=False)
        for bet, p in prices.items()
    }


@dataclass(frozen=True, slots=True)
class PayRule:
    """How one dynamic bet is paid: return to player and the published payout range."""

    rtp_bp: int
    min_hundredths: int
    max_hundredths: int

    def __post_init__(self) -> None:
        # Each refusal names the rule's field at fault (``field``), for the wire to prefix
        # with the rule's own path in the request.
        if not is_whole_number(self.rtp_bp) or not 0 < self.rtp_bp <= 10_000:
            raise InvalidOption(
                f"rtp_bp must be in (0, 10000] basis points, got {self.rtp_bp!r}", field="rtp_bp"
            )
        for name in ("min_hundredths", "max_hundredths"):
            value = getattr(self, name)
            if not is_whole_number(value) or not 0 <= value <= MAX_HUNDREDTHS:
                raise InvalidOption(
                    f"{name} must be a whole number from 0 to {MAX_HUNDREDTHS} (a pay of "
                    f"{MAX_HUNDREDTHS // 100:,} : 1), got {value!r}",
                    field=name,
                )
        if self.min_hundredths > self.max_hundredths:
            raise InvalidOption(
                f"min_hundredths {self.min_hundredths} is above "
                f"max_hundredths {self.max_hundredths}",
                field="min_hundredths",
            )

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.rtp_bp, self.min_hundredths, self.max_hundredths)

    def price(self, bet: str, wins: int, total: int) -> BetPrice:
        """Price ``bet`` that wins on ``wins`` of ``total`` equally likely outcomes."""
        return price_bet(bet, wins, total, *self.as_tuple())


@dataclass(frozen=True, slots=True)
class Paytable:
    """Base of a game's paytable of dynamic bets: a frozen dataclass with one ``PayRule`` field
    per bet, named after the bet in lower case (``LOW`` → ``low``), listed in ``BETS``.

    Subclasses declare ``BETS``, ``GAME`` and the fields with their published defaults; this
    base validates them and keeps them in the flat form the Cython kernels read.
    """

    BETS: ClassVar[tuple[str, ...]] = ()
    GAME: ClassVar[str] = ""
    _rules: tuple[tuple[int, int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for bet in self.BETS:
            value = getattr(self, bet.lower())
            if not isinstance(value, PayRule):
                raise InvalidOption(
                    f"paytable entry {bet.lower()!r} must be a PayRule, got {value!r}"
                )
        object.__setattr__(self, "_rules", tuple(r.as_tuple() for r in self.rules().values()))

    def rules(self) -> dict[str, PayRule]:
        """The rule of each bet, keyed by bet name in ``BETS`` order."""
        return {bet: getattr(self, bet.lower()) for bet in self.BETS}

    @property
    def kernel_rules(self) -> tuple[tuple[int, int, int], ...]:
        """``(rtp_bp, min_hundredths, max_hundredths)`` per bet, in ``BETS`` order."""
        return self._rules

    @classmethod
    def from_rules(cls, rules: Mapping[str, PayRule]) -> Self:
        """Build from ``{bet: PayRule}``; bets left out keep the default."""
        unknown = set(rules) - set(cls.BETS)
        if unknown:
            raise InvalidOption(f"unknown {cls.GAME} bet(s) {sorted(unknown)} in paytable")
        return cls(**{bet.lower(): rule for bet, rule in rules.items()})
