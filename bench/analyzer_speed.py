"""Time the decision analyzer (docs/rules.md §3.9): one hand against one up card on a full
8-deck shoe, S17, for a few hands from the cheapest to the costliest (the more small cards a
hand can still draw, the more compositions the kernel visits).

    PYTHONPATH=. python bench/analyzer_speed.py
"""

from __future__ import annotations

import time

from pricing.cards import Shoe
from pricing.games.blackjack.decisions import decisions

HANDS = [
    (["10S", "6H"], "10D"),
    (["10S", "6H"], "2D"),
    (["6S", "5H"], "2D"),
    (["6S", "5H"], "6D"),
    (["2S", "3H"], "6D"),
    (["2S", "2H"], "2D"),
    (["AS", "AH"], "2D"),
]


def main() -> None:
    for hand, up in HANDS:
        counts = Shoe.without([*hand, up], decks=8).counts()
        runs = 20
        start = time.perf_counter()
        for _ in range(runs):
            d = decisions(hand, up, counts)
        ms = (time.perf_counter() - start) / runs * 1e3
        print(f"{' '.join(hand):>7} v {up:<3} {d.compositions:5d} compositions  {ms:7.2f} ms")


if __name__ == "__main__":
    main()
