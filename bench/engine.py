"""The quote paths of the next-card engine: Hi-Lo's and Higher/Lower's, each against its
pure-Python ``Fraction`` reference.

Run with ``make bench`` (or ``.venv/bin/python bench/engine.py``). Prints quotes per second of
each in the same run, their ratio (goal: at least 50x) and the median microseconds per
``pricing.games.hilo.quote()`` call and per Higher/Lower quote (a depleting 6-deck shoe).
"""

from __future__ import annotations

import random

from _harness import median_seconds, rate, report

from pricing.cards import DECK, Card
from pricing.games import higher_lower, hilo
from tests.support.reference import higher_lower_ref, hilo_ref

GOAL = 50.0


def deck_states(count: int, seed: int = 2026) -> list[list[str]]:
    """Decks as a game server sees them: 5 to 14 cards exposed (opening burns and results)."""
    rng = random.Random(seed)
    texts = [str(card) for card in DECK]
    return [rng.sample(texts, rng.randint(5, 14)) for _ in range(count)]


def shoe_states(count: int, seed: int = 2026) -> list[tuple[list[Card], Card]]:
    """Depleting 6-deck Higher/Lower shoes anywhere in their life: the cards out, the base."""
    rng = random.Random(seed)
    shoe = [c for c in DECK if c.rank.symbol != "10"] * higher_lower.DEFAULT_DECKS
    states = []
    for _ in range(count):
        out = rng.sample(shoe, rng.randint(1, 250))
        states.append((out[:-1], out[-1]))
    return states


def main() -> None:
    states = deck_states(2_000)
    fast = rate(hilo.quote, states)
    slow = rate(hilo_ref.quote, states)
    report("hilo.quote (5-14 cards exposed)", fast, slow, GOAL)
    per_call = median_seconds(hilo.quote, states)
    print(f"median hilo.quote() call: {per_call * 1e6:.2f} us")
    staged = rate(hilo.next_card_quotes, states)
    print(f"hilo.next_card_quotes: {staged:,.0f}/s ({1e6 / staged:.1f} us per call)")

    game = higher_lower.game(higher_lower.DEFAULT_DECKS)
    paytable = higher_lower.DEFAULT_PAYTABLE
    shoes = shoe_states(200)
    rules = dict.fromkeys(higher_lower.BETS, higher_lower.DEFAULT_RULE.as_tuple())

    def engine(state: tuple[list[Card], Card]) -> object:
        out, base = state
        return game.quote([*out, base], base, paytable)

    def reference(state: tuple[list[Card], Card]) -> object:
        out, base = state
        left = higher_lower_ref.full_shoe(higher_lower.DEFAULT_DECKS)
        for card in [*out, base]:
            left.remove(str(card))
        return {
            bet: higher_lower_ref.price(bet, left, str(base), rules[bet])
            for bet in higher_lower_ref.BETS
        }

    fast = rate(engine, shoes)
    slow = rate(reference, shoes[:40])
    report("Higher/Lower quote (depleting 6 decks)", fast, slow, GOAL)
    per_call = median_seconds(engine, shoes)
    print(f"median Higher/Lower quote: {per_call * 1e6:.2f} us")


if __name__ == "__main__":
    main()
