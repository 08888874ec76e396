"""Dragon Tiger benchmark: the exact odds of all twelve bets after each card of an 8-deck shoe,
for the next round (every ordered pair of the cards left) and in a round whose Dragon card is
out (the Tiger's card alone), checked against the enumerating reference of
``tests/support/reference/dragon_tiger_ref.py`` on the first states before timing.

Run from the repository root: ``make bench`` or ``.venv/bin/python bench/dragon_tiger.py``.
Goal: every bet priced in at most 50 µs per state (8 decks), both kinds.
"""

from __future__ import annotations

import random
import sys
import time

import _harness  # noqa: F401  (puts the repository on sys.path)

from pricing.cards import DECK, Card
from pricing.games.dragon_tiger import bets as dt
from tests.support.reference import dragon_tiger_ref

SEED = 20261208
PER_STATE_GOAL = 50e-6
TABLES = dt.main_paytables(8) + tuple(dt.paytable(bet) for bet in dt.SIDE_BETS)


def shuffled(decks: int) -> list[Card]:
    cards = [card for card in DECK for _ in range(decks)]
    random.Random(SEED).shuffle(cards)
    return cards


def states(decks: int = 8) -> list[tuple[list[int], Card | None]]:
    """The state after each card of a shuffled shoe, dealt in rounds of two: before a round
    (no Dragon card) and once its Dragon card is out, each with the shoe's counts then."""
    counts = [decks] * 52
    found: list[tuple[list[int], Card | None]] = []
    order = shuffled(decks)
    for n, card in enumerate(order[: len(order) - 1]):
        counts[card.index] -= 1
        found.append((list(counts), card if n % 2 == 0 else None))
    return found


def check(sample: list[tuple[list[int], Card | None]]) -> None:
    """The engine's ways and totals are the reference's on ``sample``."""
    for counts, dragon in sample:
        cards = dragon_tiger_ref.shoe(
            str(c) for c, n in zip(DECK, counts, strict=True) for _ in range(n)
        )
        want = (
            dragon_tiger_ref.next_round(cards)
            if dragon is None
            else dragon_tiger_ref.in_round(cards, dragon_tiger_ref.card(str(dragon)))
        )
        for bet, priced in dt.odds(counts, dragon, TABLES).items():
            ways, total = want[bet]
            assert priced.outcomes["WIN"].total == total, bet
            assert {o: w.ways for o, w in priced.outcomes.items() if w.ways} == {
                o: n for o, n in ways.items() if n
            }, bet


def per_state(found: list[tuple[list[int], Card | None]], repeats: int = 5) -> float:
    """Seconds to price all twelve bets for one state: the best of ``repeats`` passes."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for counts, dragon in found:
            dt.odds(counts, dragon, TABLES)
        best = min(best, (time.perf_counter() - start) / len(found))
    return best


def main() -> int:
    found = states()
    check(found[:4] + found[-4:])
    ok = True
    for name, kind in (
        ("next round", [s for s in found if s[1] is None]),
        ("in round", [s for s in found if s[1] is not None]),
    ):
        each = per_state(kind)
        print(f"all 12 bets, 8 decks, {name}: {each * 1e6:.1f} us per state (goal <= 50 us)")
        ok &= each <= PER_STATE_GOAL
    if not ok:
        print("goal missed", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
