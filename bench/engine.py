"""Hi-Lo quote path: the Cython engine against the pure-Python ``Fraction`` reference.

Run with ``make bench`` (or ``.venv/bin/python bench/engine.py``). Prints quotes per second of
each in the same run, their ratio (goal: at least 50x) and the median microseconds per
``pricing.games.hilo.quote()`` call.
"""

from __future__ import annotations

import random

from _harness import median_seconds, rate, report

from pricing.cards import DECK
from pricing.games import hilo
from tests.reference import hilo_ref

GOAL = 50.0


def deck_states(count: int, seed: int = 2026) -> list[list[str]]:
    """Decks as a game server sees them: 5 to 14 cards exposed (opening burns and results)."""
    rng = random.Random(seed)
    texts = [str(card) for card in DECK]
    return [rng.sample(texts, rng.randint(5, 14)) for _ in range(count)]


def main() -> None:
    states = deck_states(2_000)
    fast = rate(hilo.quote, states)
    slow = rate(hilo_ref.quote, states)
    report("hilo.quote (5-14 cards exposed)", fast, slow, GOAL)
    per_call = median_seconds(hilo.quote, states)
    print(f"median hilo.quote() call: {per_call * 1e6:.2f} us")
    staged = rate(hilo.next_card_quotes, states)
    print(f"hilo.next_card_quotes: {staged:,.0f}/s ({1e6 / staged:.1f} us per call)")


if __name__ == "__main__":
    main()
