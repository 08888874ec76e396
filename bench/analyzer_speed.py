"""Time the main-game analyzer (docs/rules.md §3.9), S17, the default rules (double after a
split, three splits, surrender):

1. the decisions for every two-card hand against every up card on a full 8-deck shoe, splits
   included (550 hands): the median, the 95th percentile and the slowest;
2. the next round's player edge of full 6- and 8-deck shoes;
3. the same edge against the pure-Python reference
   (``tests/support/reference/analyzer_ref.py``, exact ``Fraction``s, every split played out
   card by card) on a reduced shoe both can do: the ratio of their times in this run.

Each time is the best of a few runs (the dealer tables are built before timing).

    PYTHONPATH=. python bench/analyzer_speed.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

from pricing.cards import Card, Shoe
from pricing.games.blackjack.decisions import MainGameRules, decisions, player_edge
from tests.support.reference import analyzer_ref

VALUES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
#: The reduced shoe: 8 aces, 5s and 9s and 32 tens (56 cards).
REDUCED = {"A": 8, "5": 8, "9": 8, "10": 32}


def best_of(runs: int, work: Callable[[], object]) -> float:
    """The fastest of ``runs`` calls of ``work``, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def every_hand() -> list[tuple[float, str]]:
    times = []
    for i, first in enumerate(VALUES):
        for second in VALUES[i:]:
            for up in VALUES:
                hand, dealer = [first + "S", second + "H"], up + "D"
                counts = Shoe.without([*hand, dealer], decks=8).counts()
                seconds = best_of(3, partial(decisions, hand, dealer, counts))
                times.append((seconds * 1e3, f"{first}-{second} v {up}"))
    return sorted(times)


def reduced_counts() -> tuple[int, ...]:
    counts = [0] * 52
    for value, copies in REDUCED.items():
        ranks = ["10", "J", "Q", "K"] if value == "10" else [value]
        for k in range(copies):
            counts[Card.parse(ranks[k % len(ranks)] + "SHDC"[k // len(ranks) % 4]).index] += 1
    return tuple(counts)


def main() -> None:
    player_edge(Shoe(decks=8).counts())  # builds every up card's dealer table
    times = every_hand()
    ms = [t for t, _ in times]
    print(
        f"decisions, 550 hands v up card, 8 decks: median {statistics.median(ms):.2f} ms, "
        f"95% {ms[int(len(ms) * 0.95)]:.2f} ms, slowest "
        + ", ".join(f"{name} {t:.2f} ms" for t, name in times[-3:])
    )
    for decks in (6, 8):
        counts = Shoe(decks=decks).counts()
        seconds = best_of(3, partial(player_edge, counts))
        print(f"player edge, full {decks}-deck shoe: {seconds * 1e3:.0f} ms")
    counts = reduced_counts()
    rules = MainGameRules()
    kernel = best_of(3, partial(player_edge, counts, rules))
    reference_rules = analyzer_ref.RoundRules(False, True, 4, True, False)

    def reference() -> None:
        analyzer_ref.clear_caches()
        analyzer_ref.player_edge(counts, reference_rules)

    slow = best_of(1, reference)
    print(
        f"player edge, {sum(counts)}-card reduced shoe: reference {slow:.2f} s, kernel "
        f"{kernel * 1e3:.2f} ms: {slow / kernel:.0f} times faster"
    )


if __name__ == "__main__":
    main()
