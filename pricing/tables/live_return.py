"""A table's live return: one unit staked on every bet each round offered, what it returned
against what it was expected to return at the price offered.

This is the one place that says which stakes count and what each is worth:

- ``offered``: the bets open when a round's betting closed (the last state open for betting
  before the round ended), each an ``Offer`` of one unit (``UNIT_CENTS``) at the price or
  paytable it was offered on, with the first two moments of what it returns as integers;
- ``round_stakes``: what each of those unit stakes returned on the round's result, settled as
  ``Table.settle`` settles a bet (the adapter's ``bet_wins`` and ``side_bet_outcome``, then
  ``returned_cents``): one stake a round for each bet. A fixed-paytable bet at a game with
  seats (blackjack's side bets) is settled for one unit on every seat dealt the cards it needs
  (a seat dealt too few is refunded) and counted as one stake returning the mean of those
  seats' returns: the seats of a round are not independent (Bust It is settled on the dealer's
  hand alone, the same for every seat; 21+3 reads the dealer's up card too), so counting each
  seat as a stake of its own would understate the round's variance up to seven times.

The offline report (``pricing.analysis.live``) sums them exactly, choosing ``Fraction`` for
the moments; a table sums them in floats as each round ends (``LiveReturn``, folded with the
table and kept in its journal images, so a restart rebuilds the same figures), which the
server exports as ``pricing_live_return_z`` and ``pricing_live_return_rounds``. Over ``n``
stakes (rounds) z = (Σ returned − Σ E) / sqrt(Σ V): the realised mean's gap from the expected
mean in standard errors (each stake's deviation from its own E has mean zero given everything
dealt before it, so the deviations add up as a martingale and need no independence between
rounds).

A stake's E and V are those of one unit on one seat. The seats of a round are dealt from the
same shoe in the same state, so each seat's return has that E and that V; the mean of k of
them has that E, and its variance, (1/k²) Σᵢⱼ Cov(Xᵢ, Xⱼ), is at most V, each covariance being
at most √(V·V) = V (Cauchy–Schwarz). With V, z is exact for a bet settled on shared cards
alone (every seat the same: Bust It) and conservative for one settled on each seat's own
cards (Perfect Pairs, its seats nearly independent: z about 1/√k of its size at the mean's
true variance): never inflated, so an honest table does not cross the alert's 4 more often
with more seats.

>>> import operator
>>> from fractions import Fraction
>>> from pricing.payout import BetPrice
>>> offer = offered_price(BetPrice("SEVEN", 4, 47, 1000, True, False))  # 4 winning cards of 47
>>> offer.mean(Fraction), offer.variance(Fraction)  # returns 11 units 4 times in 47
(Fraction(44, 47), Fraction(20812, 2209))
>>> offer.mean(operator.truediv) == offer.mean_float == 44 / 47
True
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, NamedTuple, TypeAlias, TypeVar

from pricing.payout import BetPrice, returned_cents
from pricing.tables.events import TableConfig, TablePhase
from pricing.tables.views import EndedRound, GameView, SideBetView

if TYPE_CHECKING:
    from pricing.tables.adapter import GameAdapter

__all__ = [
    "NO_RETURN",
    "UNIT_CENTS",
    "LiveReturn",
    "Offer",
    "ReturnTotals",
    "Stake",
    "offered",
    "offered_price",
    "round_stakes",
]

#: One unit staked, in cents: payouts are in hundredths, so the settlement's floor is exact.
UNIT_CENTS: Final = 100
#: The sums kept per bet (``LiveReturn.round_sums``): stakes (rounds), returned (cents: a
#: stake on several seats their mean), expected, variance.
_SUMS: Final = 4

N = TypeVar("N")


def _back(pays: int) -> int:
    """What one unit returns, in cents, at a signed pay of ``pays`` hundredths: the stake plus
    floor(stake × pays / 100), exact at a unit of 100 cents.

    >>> _back(95), _back(0), _back(-50), _back(-100)
    (195, 100, 50, 0)
    """
    back = UNIT_CENTS + pays
    assert back == returned_cents(UNIT_CENTS, pays)
    return back


@dataclass(frozen=True, slots=True)
class Offer:
    """A bet open when its round's betting closed, for one unit: ``payout_hundredths`` its
    price (a dynamic bet), or None for a fixed-paytable bet (settled per seat by its outcome).
    What the unit returns, in cents, is ``c`` with probability ``ways / total`` over the bet's
    outcomes; ``first`` is Σ ways × c and ``second`` Σ ways × c², so its mean and variance in
    units are ratios of integers, made numbers by the caller (``mean``, ``variance``);
    ``mean_float`` and ``variance_float`` are the doubles nearest them (``Offer.of`` makes
    them once, for a table's sums)."""

    bet: str
    payout_hundredths: int | None
    total: int
    first: int
    second: int
    mean_float: float
    variance_float: float

    def __reduce__(self) -> tuple[type[Offer], tuple[str, int | None, int, int, int, float, float]]:
        """Pickled by its fields, in C (a journal image taken while a round is dealt holds
        its offers: 25 at a baccarat table)."""
        return Offer, (
            self.bet,
            self.payout_hundredths,
            self.total,
            self.first,
            self.second,
            self.mean_float,
            self.variance_float,
        )

    @classmethod
    def of(cls, bet: str, payout: int | None, total: int, first: int, second: int) -> Offer:
        total = total or 1  # no way to win: nothing returned, whatever the total
        mean = first / (UNIT_CENTS * total)  # int / int: the double nearest the ratio
        variance = (total * second - first * first) / (UNIT_CENTS * total) ** 2
        return cls(bet, payout, total, first, second, mean, variance)

    def mean(self, number: Callable[[int, int], N]) -> N:
        """E: ``number(numerator, denominator)`` (``Fraction``: exact; ``operator.truediv``:
        the double nearest the exact ratio, ``mean_float``)."""
        return number(self.first, UNIT_CENTS * self.total)

    def variance(self, number: Callable[[int, int], N]) -> N:
        """V = E[c²] − E[c]², the same way."""
        return number(
            self.total * self.second - self.first * self.first, (UNIT_CENTS * self.total) ** 2
        )


#: A round's stake on an offer: ``(offer, cents returned (stakes included), units, won)``: one
#: unit on each of ``units`` seats (1: a dynamic bet, a game without seats), counted as one
#: stake returning ``cents / units`` (their mean); ``won``: it won on at least one of them (a
#: push returns the stake and is not a win). A bare tuple: a baccarat round makes 25.
Stake: TypeAlias = tuple[Offer, int, int, bool]


#: Dynamic bets' offers by (bet, payout, wins, remaining): the same few recur round after
#: round (a Hi-Lo deck has a few hundred), so each is made once. Bounded: cleared when full.
_PRICED: Final[dict[tuple[str, int, int, int], Offer]] = {}
_MAX_PRICED: Final = 4096


def offered_price(price: BetPrice) -> Offer:
    """A dynamic bet: it returns ``1 + payout`` units in ``wins`` of ``remaining`` cards."""
    bet, payout, wins, remaining = price.bet, price.payout_hundredths, price.wins, price.remaining
    key = (bet, payout, wins, remaining)
    offer = _PRICED.get(key)
    if offer is None:
        back = _back(payout)
        offer = Offer.of(bet, payout, remaining, wins * back, wins * back * back)
        if len(_PRICED) >= _MAX_PRICED:
            _PRICED.clear()
        _PRICED[key] = offer
    return offer


def _fixed(side_bet: SideBetView) -> Offer:
    """A fixed-paytable bet: each outcome of its odds returns what it pays, in ``ways`` of a
    total they share (``SideBetOdds``: ``rtp_numerator`` is Σ ways × cents returned, over
    ``100 × total``)."""
    odds = side_bet.odds
    second = 0
    for ways, _, pays in odds.outcomes.values():
        back = UNIT_CENTS + pays  # _back(pays), inline: 25 bets' outcomes a baccarat round
        second += ways * back * back
    return Offer.of(side_bet.bet, None, odds.rtp_denominator // 100, odds.rtp_numerator, second)


def offered(view: GameView) -> tuple[Offer, ...]:
    """Every bet open at ``view`` (a state open for betting), in the view's order."""
    return (
        *[offered_price(price) for price in view.prices.values() if price.open],
        *[_fixed(side_bet) for side_bet in view.side_bets if side_bet.open],
    )


def round_stakes(
    adapter: GameAdapter,
    config: TableConfig,
    seats: int,
    offers: Iterable[Offer],
    ended: EndedRound,
) -> tuple[Stake, ...]:
    """The stake each of ``offers`` makes on ``ended`` (a round with a result), settled as a
    table settles a bet; a table of ``config`` with ``seats`` player boxes, its game's
    ``adapter``. One stake a bet: a dynamic bet's one unit; a fixed-paytable bet's one unit on
    every seat (the one place of a game without seats) but a seat dealt too few cards to settle
    it (refunded), counted together as one stake (none if every seat was refunded)."""
    stakes: list[Stake] = []
    places = range(1, seats + 1) if seats else (0,)
    for offer in offers:
        bet, payout = offer.bet, offer.payout_hundredths
        if payout is not None:
            won = adapter.bet_wins(config, bet, ended.result)
            stakes.append((offer, returned_cents(UNIT_CENTS, payout) if won else 0, 1, won))
            continue
        cents = units = 0
        won = False
        for seat in places:
            result = adapter.side_bet_outcome(config, bet, ended, seat)
            if result is not None:
                pays = result.payout_hundredths
                cents += returned_cents(UNIT_CENTS, pays)
                units += 1
                won = won or pays > 0
        if units:
            stakes.append((offer, cents, units, won))
    return tuple(stakes)


class ReturnTotals(NamedTuple):
    """One bet's sums over the stakes (rounds) a table counted, in floats: ``returned`` and
    ``expected`` in units (``returned`` exact while each stake is one seat's: whole cents),
    ``variance`` in units²."""

    stakes: int
    returned: float
    expected: float
    variance: float

    @property
    def z(self) -> float | None:
        """The realised return's gap from the expected one in standard errors (None without
        variance: no stake could have returned anything else)."""
        if self.variance <= 0:
            return None
        return (self.returned - self.expected) / math.sqrt(self.variance)


_NO_STAKES: Final[tuple[Stake, ...]] = ()


@dataclass(frozen=True, slots=True)
class LiveReturn:
    """A table's live return so far, each bet's sums in floats: ``bets`` in the order first
    staked, and for each ``_SUMS`` doubles in ``round_sums`` (stakes, returned cents, Σ E,
    Σ V; one stake a round, ``round_stakes``): a fixed 32 bytes a bet. ``dealing``: the offers
    of the round being dealt once its betting closed (None between rounds, and while betting
    is open: the table's state has them). Immutable: a table's journal image holds it as it
    is. (Its fields' names are part of an image's format: an image of a build that counted a
    blackjack side bet once a seat, in a field named ``sums``, is not read, and the table is
    folded again from its events, counting it once a round.)"""

    bets: tuple[str, ...] = ()
    round_sums: bytes = b""
    dealing: tuple[Offer, ...] | None = None
    dealing_round: int = 0

    def __reduce__(
        self,
    ) -> tuple[type[LiveReturn], tuple[tuple[str, ...], bytes, tuple[Offer, ...] | None, int]]:
        return LiveReturn, (self.bets, self.round_sums, self.dealing, self.dealing_round)

    def totals(self) -> Iterator[tuple[str, ReturnTotals]]:
        """Each bet staked, with its sums."""
        sums = memoryview(self.round_sums).cast("d")
        for i, bet in enumerate(self.bets):
            n, cents, expected, variance = sums[_SUMS * i : _SUMS * i + _SUMS]
            yield bet, ReturnTotals(int(n), cents / UNIT_CENTS, expected, variance)

    def step(
        self,
        before: GameView,
        after: GameView,
        adapter: GameAdapter,
        config: TableConfig,
        seats: int,
    ) -> tuple[LiveReturn, tuple[Stake, ...]]:
        """The live return once a table's state goes from ``before`` to ``after``, and the
        stakes the round that ended there counted (none if no round ended, or it was void)."""
        ended = after.ended
        betting = before.phase is TablePhase.BETTING
        if ended is None:
            if betting and after.phase is not TablePhase.BETTING:  # betting closed
                return self._dealing(offered(before), before.round_id), _NO_STAKES
            if not betting and after.phase is TablePhase.BETTING and self.dealing is not None:
                return self._dealing(None, 0), _NO_STAKES  # open again with no result
            return self, _NO_STAKES
        offers, round_id = (
            (offered(before), before.round_id) if betting else (self.dealing, self.dealing_round)
        )
        if ended.void or offers is None or round_id != ended.round_id:
            return self._dealing(None, 0), _NO_STAKES
        stakes = round_stakes(adapter, config, seats, offers, ended)
        return self._counted(stakes), stakes

    def _dealing(self, offers: tuple[Offer, ...] | None, round_id: int) -> LiveReturn:
        if offers is None and self.dealing is None:
            return self
        return LiveReturn(self.bets, self.round_sums, offers, round_id)

    def _counted(self, stakes: tuple[Stake, ...]) -> LiveReturn:
        """With ``stakes`` added to the sums (and no round being dealt)."""
        bets = self.bets
        sums = array("d", self.round_sums)
        for offer, cents, units, _ in stakes:
            try:
                at = _SUMS * bets.index(offer.bet)
            except ValueError:  # first staked now
                at, bets = len(sums), (*bets, offer.bet)
                sums.extend((0.0,) * _SUMS)
            sums[at] += 1
            sums[at + 1] += cents if units == 1 else cents / units  # one seat's: whole cents
            sums[at + 2] += offer.mean_float
            sums[at + 3] += offer.variance_float
        return LiveReturn(bets, sums.tobytes())


#: A table with no round counted yet.
NO_RETURN: Final = LiveReturn()
