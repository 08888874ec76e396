"""Goa Gae engine: the Cython kernels against the brute-force references of tests/support/reference.

Run with ``make bench`` (or ``.venv/bin/python bench/goagae.py`` from the repository root).
Prints calls per second of each in the same run and their ratio (goal: at least 100x), for
``category_odds`` and ``win_probability`` (hands of 3, 2 and 1 known cards) from a fresh deck
and from decks with 10 cards seen, then the median time of one engine call of each.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

# _harness (beside this script, so importable from any working directory) puts the repository
# root on sys.path for tests.support.reference.
from _harness import median_seconds, rate

from pricing.cards import DECK
from pricing.games import goagae
from tests.support.reference import goagae_ref

GOAL = 100.0
CARD_TEXTS = [str(card) for card in DECK]

Case = tuple[list[str], list[str]]  # (hand, exposed)


def seen_states(count: int, seen: int, known: int, seed: int) -> list[Case]:
    """``count`` random decks with ``seen`` cards exposed and a hand of ``known`` other cards."""
    rng = random.Random(seed)
    states = []
    for _ in range(count):
        cards = rng.sample(CARD_TEXTS, seen + known)
        states.append((cards[:known], cards[known:]))
    return states


def fresh(known: int) -> list[Case]:
    return [(["AS", "KH", "7D"][:known], [])]


def reference_rate(
    slow_fn: Callable[[Case], object], fast_fn: Callable[[Case], object], cases: list[Case]
) -> float:
    """Calls per second of the reference over ``cases`` (at least one pass, at least 1 s);
    each result of the first pass is checked against the engine's, so both did the same work."""
    calls = 0
    start = time.perf_counter()
    while True:
        for case in cases:
            result = slow_fn(case)
            if calls < len(cases):
                assert result == fast_fn(case), case
            calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= 1.0:
            return calls / elapsed


def compare(
    name: str,
    fast_fn: Callable[[Case], object],
    slow_fn: Callable[[Case], object],
    cases: list[Case],
) -> bool:
    fast = rate(fast_fn, cases)
    slow = reference_rate(slow_fn, fast_fn, cases)
    ratio = fast / slow
    verdict = "ok" if ratio >= GOAL else f"BELOW GOAL {GOAL:.0f}x"
    print(
        f"{name:<44} engine {1e6 / fast:8.1f} us  reference {1e3 / slow:8.1f} ms"
        f"  = {ratio:9,.0f}x  {verdict}"
    )
    return ratio >= GOAL


def main() -> None:
    def odds(case: Case) -> object:
        return goagae.category_odds(case[1])

    def odds_ref(case: Case) -> object:
        return goagae_ref.category_odds(case[1])

    def win(case: Case) -> object:
        return goagae.win_probability(*case)

    def win_ref(case: Case) -> object:
        return goagae_ref.win_probability(*case)

    ok = True
    ok &= compare("category_odds, fresh deck", odds, odds_ref, fresh(0))
    ok &= compare("category_odds, 10 seen", odds, odds_ref, seen_states(8, 10, 0, 1))
    for known, samples in ((3, 8), (2, 4), (1, 1)):
        ok &= compare(f"win_probability {known}-card hand, fresh deck", win, win_ref, fresh(known))
        ok &= compare(
            f"win_probability {known}-card hand, 10 seen",
            win,
            win_ref,
            seen_states(samples, 10, known, known),
        )
    print("median engine call:")
    for label, fn, cases in (
        ("category_odds, fresh deck", odds, fresh(0)),
        ("category_odds, 10 seen", odds, seen_states(50, 10, 0, 7)),
        ("quote, 10 seen", lambda c: goagae.quote(c[1]), seen_states(50, 10, 0, 7)),
        ("win_probability 3-card, 10 seen", win, seen_states(50, 10, 3, 7)),
        ("win_probability 2-card, 10 seen", win, seen_states(50, 10, 2, 7)),
        ("win_probability 1-card, fresh deck", win, fresh(1)),
        ("win_probability 1-card, 10 seen", win, seen_states(50, 10, 1, 7)),
    ):
        print(f"  {label:<38} {median_seconds(fn, cases, repeat=20) * 1e6:9.1f} us")
    print("all ratios meet the goal" if ok else f"SOME RATIOS ARE BELOW THE {GOAL:.0f}x GOAL")


if __name__ == "__main__":
    main()
