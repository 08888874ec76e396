"""Exact RTP reports: the Cython DP against the pure-Python ``Fraction`` DP in the same run.

Run with ``make bench`` (or ``.venv/bin/python bench/analysis.py``). Prints the median time of
one whole Hi-Lo report (five bets, ten positions, every figure exact) by each, their ratio
(goal: at least 50x) and whether the report takes under a second.
"""

from __future__ import annotations

from _harness import median_seconds

from pricing.analysis import hilo_rtp
from tests.reference import hilo_rtp_ref

GOAL = 50.0


def main() -> None:
    fast = median_seconds(lambda _: hilo_rtp(), [None], repeat=9)
    slow = median_seconds(lambda _: hilo_rtp_ref.dp_report(), [None], repeat=3)
    ratio = slow / fast
    verdict = "ok" if ratio >= GOAL else f"BELOW GOAL {GOAL:.0f}x"
    print(
        f"{'hilo_rtp() full report':<40} {fast * 1e3:>9.1f} ms  vs reference "
        f"{slow * 1e3:>8.0f} ms  = {ratio:7.1f}x  {verdict}"
    )
    print(f"hilo_rtp() under one second: {'yes' if fast < 1 else 'NO'} ({fast:.3f} s)")


if __name__ == "__main__":
    main()
