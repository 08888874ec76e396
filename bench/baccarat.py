"""Baccarat's odds: every bet priced by the kernel (``pricing.games.baccarat.odds``), for the next
round and after each card of a round, against the pure-Python reference of
``tests/support/reference/baccarat_ref.py`` in the same run (the same exact answers, checked
equal before timing).

Run from the repository root: ``make bench`` or ``.venv/bin/python bench/baccarat.py``. Times
are the thread's CPU time (a busy machine's waits are not counted), per call, the best of a
few batches. Goals: every bet of a table together (the main bets and the 22 side bets) at most
0.3 ms for the next round of an 8-deck shoe, at most 0.1 ms after a card of a round; the
kernel at least 100 times the reference. The reference enumerates every deal card by card: on a
full 8-deck shoe it takes seconds counting cards by rank (every bet but the Perfect Pair, which
needs suits), so the ratio is taken there once, and on a 14-card shoe with every bet.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

from _harness import best_time

from pricing.cards import DECK, Card
from pricing.games.baccarat import (
    SIDE_BETS,
    BaccaratPaytable,
    Commission,
    main_paytables,
    odds,
    paytable,
)
from tests.support.reference import baccarat_ref

SEED = 20261214
NEXT_ROUND_GOAL = 0.3e-3
IN_ROUND_GOAL = 0.1e-3
RATIO_GOAL = 100.0
ALL = (*main_paytables(Commission.STANDARD, 8), *(paytable(bet) for bet in SIDE_BETS))
BY_RANK = tuple(t for t in ALL if t.bet != "PERFECT_PAIR")


def shuffled(decks: int) -> list[Card]:
    cards = [card for card in DECK for _ in range(decks)]
    random.Random(SEED).shuffle(cards)
    return cards


def counts_without(decks: int, gone: Sequence[Card]) -> list[int]:
    counts = [decks] * 52
    for card in gone:
        counts[card.index] -= 1
    return counts


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:8.1f} us"


def per_call(calls: list[Callable[[], object]]) -> float:
    """CPU seconds per call, over every call of ``calls`` in turn (each a different state:
    nothing is cached across them but the paytables' outcome map)."""

    def run() -> None:
        for call in calls:
            call()

    return best_time(run, min_total=0.3, repeats=5, clock=time.thread_time) / len(calls)


def next_round_states(cards: int = 200) -> list[Callable[[], object]]:
    """The next round's odds of every bet after each of the first ``cards`` cards of an
    8-deck shoe."""
    order = shuffled(8)
    shoes = [counts_without(8, order[: k + 1]) for k in range(cards)]
    return [partial(odds, counts, [], [], ALL) for counts in shoes]


def in_round_states(rounds: int = 60) -> list[Callable[[], object]]:
    """Every bet's odds after each card of ``rounds`` rounds dealt from an 8-deck shoe (the
    first four in deal order, then the third cards)."""
    order = shuffled(8)
    states: list[Callable[[], object]] = []
    for _ in range(rounds):
        player: list[Card] = []
        banker: list[Card] = []
        while True:
            hand = baccarat_ref.next_hand(
                [baccarat_ref.card(str(c)) for c in player],
                [baccarat_ref.card(str(c)) for c in banker],
            )
            if hand is None:
                break
            (player if hand == "PLAYER" else banker).append(order.pop())
            held = Counter(card.index for card in order)
            counts = [held[i] for i in range(52)]
            states.append(partial(odds, counts, tuple(player), tuple(banker), ALL))
    return states


def reference_ratio(
    label: str, left: list[Card], tables: tuple[BaccaratPaytable, ...], repeats: int
) -> float:
    """The kernel against the reference on the next round from the cards ``left``: both
    answers checked equal, then each timed; kernel speed / reference speed."""
    counts = Counter(card.index for card in left)
    shoe = [counts[i] for i in range(52)]
    texts = [str(card) for card in left]
    bets = [(t.bet, t.preset) for t in tables]
    start = time.thread_time()
    want = baccarat_ref.odds(texts, [], [], bets)
    slow = time.thread_time() - start
    got = odds(shoe, [], [], tables)
    assert want is not None
    for table in tables:
        fractions = {o: v.fraction for o, v in got[table.bet].outcomes.items() if v.ways}
        assert fractions == {o: p for o, p in want[table.bet, table.preset].items() if p}, table
    for _ in range(repeats - 1):
        start = time.thread_time()
        baccarat_ref.odds(texts, [], [], bets)
        slow = min(slow, time.thread_time() - start)
    fast = best_time(lambda: odds(shoe, [], [], tables), clock=time.thread_time)
    ratio = slow / fast
    verdict = "ok" if ratio >= RATIO_GOAL else f"BELOW GOAL {RATIO_GOAL:.0f}x"
    print(f"  {label:<52} kernel {fmt(fast)}  reference {fmt(slow)}  = {ratio:9,.0f}x  {verdict}")
    return ratio


def main() -> int:
    print("Baccarat odds, CPU time per call (every bet of a table: 3 main bets, 22 side bets)")
    next_round = per_call(next_round_states())
    in_round = per_call(in_round_states())
    ok_next = next_round <= NEXT_ROUND_GOAL
    ok_in = in_round <= IN_ROUND_GOAL
    print(
        f"  next round, 8 decks after each of 200 cards       {fmt(next_round)}"
        f"  goal <= {fmt(NEXT_ROUND_GOAL)}: {'met' if ok_next else 'NOT met'}"
    )
    print(
        f"  in a round, after each card of 60 rounds (8 decks) {fmt(in_round)}"
        f"  goal <= {fmt(IN_ROUND_GOAL)}: {'met' if ok_in else 'NOT met'}"
    )
    print("Against the reference (next round):")
    order = shuffled(8)
    ratios = [
        reference_ratio(
            "8 decks less 1 card, every bet but PERFECT_PAIR", order[1:], BY_RANK, repeats=1
        ),
        reference_ratio("14 cards of 1 deck, every bet", shuffled(1)[:14], ALL, repeats=3),
    ]
    ok_ratio = min(ratios) >= RATIO_GOAL
    print("all goals met" if ok_next and ok_in and ok_ratio else "SOME GOALS NOT MET")
    return 0 if ok_next and ok_in and ok_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
