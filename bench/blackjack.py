"""Blackjack benchmark: the Cython kernel against the pure-Python ``Fraction`` references of
``tests/support/reference/blackjack_ref.py``, measured in the same run, and the cost of recomputing
every number of the blackjack engine after one card on an 8-deck shoe.

Run from the repository root: ``make bench`` or ``.venv/bin/python bench/blackjack.py``.
Both sides take the same input (a list of card texts) and return exact results (the kernel's
as integer ways over totals, the reference's as ``Fraction``s; they are checked equal before
timing), so each ratio compares whole calls, parsing included. Times are the best of several
repeats; the machine may be shared, so the best is the least disturbed.
"""

from __future__ import annotations

import random
import sys

# _harness (beside this script, so importable from any working directory) puts the repository
# root on sys.path for tests.support.reference.
from _harness import best_time

from pricing.cards import CARD_INDEX, DECK, Rank
from pricing.games import blackjack as bj
from pricing.games.events import CardRole, EndRound, ExposeCard
from tests.support.reference import blackjack_ref as ref

GOAL = 50.0
SEED = 20261129


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:8.2f} s "
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.1f} us"


def dealt_shoe(decks: int, dealt: int) -> tuple[list[str], list[str]]:
    """A shuffled shoe: ``(exposed, still_in_shoe)`` after ``dealt`` cards, as card texts."""
    rng = random.Random(SEED)
    cards = [str(card) for card in DECK for _ in range(decks)]
    rng.shuffle(cards)
    return cards[:dealt], cards[dealt:]


def compare() -> list[tuple[str, float, float]]:
    exposed, rest = dealt_shoe(decks=6, dealt=80)
    ace = next(c for c in rest if c.startswith("A"))
    with_ace = [*exposed, ace]
    ups = [next(c for c in rest if c[:-1] == symbol) for symbol in bj.UP_VALUES]
    rm_pays = bj.DEFAULT_ROYAL_MATCH.pays()
    pp_pays = bj.PERFECT_PAIRS.pays()

    def ref_side_bets() -> object:
        rm = ref.royal_match(exposed, 6)
        pp = ref.pairs(exposed, 6)
        return ref.rtp(rm, rm_pays), ref.rtp(pp, pp_pays)

    def ref_insurance() -> object:
        return ref.insurance(with_ace, 6)

    def ref_dealer() -> object:
        return [ref.dealer(up, exposed, 6, "S17") for up in ups]

    # The kernel side returns its exact result objects (integer ways and totals); turning
    # them into Fractions is left to the check below, outside the timed calls.
    def cy_side_bets() -> object:
        return bj.side_bets(exposed, 6)

    def cy_insurance() -> object:
        return bj.insurance(with_ace, 6)

    def cy_dealer() -> object:
        return [bj.dealer_odds(up, exposed, 6, "S17") for up in ups]

    side = bj.side_bets(exposed, 6)
    assert (side["ROYAL_MATCH"].rtp_fraction, side["PAIRS"].rtp_fraction) == ref_side_bets()
    assert bj.insurance(with_ace, 6).fraction == ref_insurance()
    assert [odds.fractions() for odds in cy_dealer()] == ref_dealer()
    return [
        (
            "side bets (Royal Match + Perfect Pairs)",
            best_time(cy_side_bets),
            best_time(ref_side_bets),
        ),
        ("insurance", best_time(cy_insurance), best_time(ref_insurance)),
        ("dealer outcomes (all 10 up cards, S17)", best_time(cy_dealer), best_time(ref_dealer)),
    ]


def after_one_card() -> tuple[float, float]:
    """An 8-deck shoe with 200 cards gone in 20 rounds of 10 and a dealer Ace up in the current
    round; one more card arrives."""
    exposed, rest = dealt_shoe(decks=8, dealt=200)
    state = bj.BlackjackShoe(decks=8)
    for i, text in enumerate(exposed):
        state = state.apply(ExposeCard(DECK[CARD_INDEX[text]], CardRole.PLAYER))
        if i % 10 == 9:
            state = state.apply(EndRound())
    ace = next(c for c in rest if c.startswith("A"))
    state = state.apply(ExposeCard(DECK[CARD_INDEX[ace]], CardRole.DEALER))
    card = DECK[CARD_INDEX[next(c for c in rest if c != ace)]]
    event = ExposeCard(card, CardRole.PLAYER)
    assert state.dealer_up is not None and state.dealer_up.rank is Rank.ACE

    def views() -> object:
        new = state.apply(event)
        return new.side_bets, new.insurance, new.dealer_outcomes

    def everything() -> object:
        new = state.apply(event)
        other_rule = "H17" if new.rule is bj.DealerRule.S17 else "S17"
        return (
            new.side_bets,
            bj.side_bets(new.exposed, 8, pairs="any-pair"),
            new.insurance,
            new.dealer_outcomes,
            new.next_dealer_table,
            bj.dealer_table(new.exposed, 8, other_rule),
        )

    return best_time(views), best_time(everything)


def main() -> int:
    print("Blackjack: Cython kernel vs pure-Python Fraction reference, one run")
    print("  6-deck shoe, 80 cards dealt; exact results checked equal before timing")
    worst = float("inf")
    for name, fast, slow in compare():
        ratio = slow / fast
        worst = min(worst, ratio)
        print(f"  {name:42s} kernel {fmt(fast)}  reference {fmt(slow)}  ratio {ratio:8.0f}x")
    verdict = "met" if worst >= GOAL else "NOT met"
    print(f"  goal >= {GOAL:.0f}x on each: {verdict} (lowest {worst:.0f}x)")
    views, everything = after_one_card()
    print("Recompute after one card, 8-deck shoe (200 cards dealt in 20 rounds, dealer Ace up):")
    print(f"  state views: next-round side bets, insurance, dealer outcomes  {fmt(views)}")
    print(f"  every number: + Any Pair, dealer table for all up cards S17+H17  {fmt(everything)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
