"""Exact RTP reports: the Cython DP against the pure-Python ``Fraction`` DP in the same run.

Run with ``make bench`` (or ``.venv/bin/python bench/analysis.py``). Prints the median time of
one whole Hi-Lo report (five bets, ten positions, every figure exact) by each, their ratio
(goal: at least 50x) and whether the report takes under a second; then the blackjack side
bets (every bet and preset of the side-bet library) by penetration over 100,000 seeded shoes
of 6 and of 8 decks (``--shoes`` to change), with the standard error of every figure.
"""

from __future__ import annotations

import argparse
import time

from _harness import median_seconds

from pricing.analysis import hilo_rtp
from pricing.analysis.blackjack import FULL_RUN_SHOES, blackjack_rtp
from tests.support.reference import hilo_rtp_ref

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


def blackjack(shoes: int) -> None:
    start = time.perf_counter()
    report = blackjack_rtp(shoes=shoes)
    elapsed = time.perf_counter() - start
    print(
        f"blackjack side bets, {shoes:,} shoes per deck count, seed {report.seed}: {elapsed:.0f} s"
    )
    print(
        f"{'decks':>5} {'bet/preset':<36} {'full shoe':>9}  at 90 % dealt: "
        f"{'mean ± se':>17} {'spread':>7} {'favourable ± se':>16} {'edge if fav. ± se':>17}"
        "  all points"
    )
    for decks, by_key in report.by_penetration.items():
        for key, points in by_key.items():
            deep = points[-1]
            print(
                f"{decks:>5} {key:<36} {float(report.full_shoe[decks][key]):9.5f}  "
                f"{'':>14} {deep.simulated_mean:8.5f} ± {deep.simulated_se:.5f} "
                f"{deep.spread:7.4f} {deep.favourable:7.4f} ± {deep.favourable_se:.4f} "
                f"{deep.favourable_edge:8.4f} ± {deep.favourable_edge_se:.4f}  "
                f"{report.favourable_rounds[decks][key]:.4f}"
            )


if __name__ == "__main__":
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--shoes", type=int, default=FULL_RUN_SHOES)
    main()
    blackjack(args.parse_args().shoes)
