"""Hi-Lo's exact return to player (docs/rules.md §1): every bet, at every result position,
over a uniformly shuffled deck, with the floor rounding and the clamps counted.

>>> report = hilo_rtp()
>>> [f"{float(report.bets[bet].rtp):.5f}" for bet in ("LOW", "SEVEN")]
['0.95839', '0.83469']
>>> all(r <= 0.96 for r in report.bets["LOW"].by_position)
True
>>> report.bets["SEVEN"].min_payout, report.bets["SEVEN"].max_payout
(693, 3824)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from pricing import _hilo_rtp
from pricing.analysis.report import BetReport, PositionTally, bet_report
from pricing.cards import Rank
from pricing.errors import InvalidOption
from pricing.games import hilo
from pricing.games.hilo import DEFAULT_PAYTABLE, OPENING_BURNS, RESULTS_PER_DECK, HiLoPaytable

__all__ = [
    "CLASSES",
    "FULL_DECK_CLASSES",
    "HiLoReport",
    "class_sizes",
    "hilo_positions",
    "hilo_rtp",
]

#: The card classes a Hi-Lo price depends on (``pricing._hilo_rtp``).
CLASSES: Final[tuple[str, ...]] = _hilo_rtp.CLASSES


def class_sizes(rank_counts: Sequence[int]) -> tuple[int, ...]:
    """Cards per class (``CLASSES`` order) of a deck holding ``rank_counts[r]`` cards of rank
    ``r + 1``; the classes follow from which bets each rank wins.

    >>> class_sizes([4] * 13)
    (12, 12, 4, 12, 12)
    """
    if len(rank_counts) != len(Rank):
        raise InvalidOption(f"need 13 rank counts, got {len(rank_counts)}")
    sizes = dict.fromkeys(CLASSES, 0)
    for rank, count in enumerate(rank_counts, start=1):
        sizes[_RANK_CLASS[rank]] += count
    return tuple(sizes.values())


def _rank_class(rank: int) -> str:
    wins = {bet for bet in hilo.BETS if rank in hilo.winning_ranks(bet)}
    (cls,) = [c for c in CLASSES if wins == {b for b in hilo.BETS if c in _bet_classes(b)}]
    return cls


def _bet_classes(bet: str) -> tuple[str, ...]:
    return _hilo_rtp.bet_classes(bet)


_RANK_CLASS: Final[dict[int, str]] = {rank: _rank_class(rank) for rank in range(1, 14)}

#: One 52-card deck by class.
FULL_DECK_CLASSES: Final = class_sizes([4] * 13)


@dataclass(frozen=True, slots=True)
class HiLoReport:
    """The exact report of every Hi-Lo bet under ``paytable`` (see ``BetReport``); positions
    are the result cards 1-10 of a deck (cards 6-15)."""

    paytable: HiLoPaytable
    positions: int
    bets: dict[str, BetReport]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": "hilo",
            "positions": self.positions,
            "bets": {bet: report.as_dict() for bet, report in self.bets.items()},
        }


def hilo_rtp(
    paytable: HiLoPaytable = DEFAULT_PAYTABLE,
    *,
    sizes: Sequence[int] = FULL_DECK_CLASSES,
    burns: int = OPENING_BURNS,
    results: int = RESULTS_PER_DECK,
) -> HiLoReport:
    """The exact report of the five bets over a uniformly shuffled deck.

    ``sizes`` (cards per class, ``CLASSES`` order), ``burns`` and ``results`` describe the deck
    and the deal; the defaults are the game's (one 52-card deck, 5 opening burns, 10 results).
    Other values serve what-if questions and the tests' reduced decks.
    """
    sizes = tuple(sizes)
    if len(sizes) != len(CLASSES) or any(
        not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in sizes
    ):
        raise InvalidOption(f"need {len(CLASSES)} class sizes >= 0, got {sizes!r}")
    rules = paytable.rules()
    bets = {
        bet: bet_report(bet, rules[bet], positions)
        for bet, positions in hilo_positions(sizes=sizes, burns=burns, results=results).items()
    }
    return HiLoReport(paytable=paytable, positions=results, bets=bets)


def hilo_positions(
    *,
    sizes: Sequence[int] = FULL_DECK_CLASSES,
    burns: int = OPENING_BURNS,
    results: int = RESULTS_PER_DECK,
) -> dict[str, list[PositionTally]]:
    """The deck states of each bet at each result card (``hilo_rtp``'s deck and deal): the
    ways each number of winning cards is left."""
    deck = sum(sizes)
    try:
        tallies = _hilo_rtp.hilo_win_tallies(tuple(sizes), burns, results)
    except ValueError as exc:
        raise InvalidOption(str(exc)) from None
    return {
        bet: [PositionTally(outcomes=deck - burns - k, ways=tallies[k][b]) for k in range(results)]
        for b, bet in enumerate(_hilo_rtp.BETS)
    }


def _check_bet_order() -> None:
    if _hilo_rtp.BETS != hilo.BETS:
        raise AssertionError(f"kernel bet orders differ: {_hilo_rtp.BETS} {hilo.BETS}")


_check_bet_order()
