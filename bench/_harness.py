"""Shared timing helpers for the benchmarks: ratios in one run, medians of single calls."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

# Benchmarks import the pure-Python references from tests/ as their baseline.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T = TypeVar("T")


def rate(fn: Callable[[T], object], inputs: Sequence[T], min_seconds: float = 1.0) -> float:
    """Calls per second of ``fn`` over ``inputs``, repeated until ``min_seconds`` have passed."""
    calls = 0
    start = time.perf_counter()
    while True:
        for item in inputs:
            fn(item)
        calls += len(inputs)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return calls / elapsed


def median_seconds(fn: Callable[[T], object], inputs: Sequence[T], repeat: int = 3) -> float:
    """Median wall time of one call of ``fn``, over every input ``repeat`` times."""
    samples = []
    clock = time.perf_counter_ns
    for _ in range(repeat):
        for item in inputs:
            t0 = clock()
            fn(item)
            samples.append(clock() - t0)
    return statistics.median(samples) / 1e9


def report(name: str, fast: float, slow: float, goal: float) -> bool:
    ratio = fast / slow
    verdict = "ok" if ratio >= goal else f"BELOW GOAL {goal:.0f}x"
    print(f"{name:<40} {fast:>12,.0f}/s  vs reference {slow:>10,.0f}/s  = {ratio:7.1f}x  {verdict}")
    return ratio >= goal


def best_time(
    call: Callable[[], object],
    min_total: float = 0.2,
    repeats: int = 7,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Seconds per call: the best of ``repeats`` batches, each at least ``min_total`` long
    (a slow call is timed alone), by ``clock`` (wall time unless told)."""
    start = clock()
    call()
    once = clock() - start
    number = max(1, int(min_total / max(once, 1e-9)))
    best = once
    for _ in range(repeats if number > 1 else 2):
        start = clock()
        for _ in range(number):
            call()
        best = min(best, (clock() - start) / number)
    return best
