"""What each read costs the process that computes it: the figures behind which reads run in
worker processes, which are counted as expensive, and how many legs a position settles per
step (docs/BENCHMARKS.md, "What each read costs").

    .venv/bin/python bench/read_costs.py [--slow]

The rule it checks: a read the server computes on its event loop costs at most about a
millisecond of it at a time. Quotes and reports never run there (pricing.server.offload), so
the check is on what does: a position's step (pricing.tables.positions.STEP_LEGS legs) and a
position of STEP_LEGS legs or fewer, settled whole. ``--slow`` adds the 8-deck depleting
Higher/Lower report (seconds).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT

sys.path.insert(0, str(ROOT))
from pricing.cards import parse_card
from pricing.games.events import VoidRound
from pricing.games.higher_lower import HigherLowerRules
from pricing.server.analyze import answer_analyze
from pricing.tables import STEP_LEGS, CardRole, ExposeCard, Game, TableConfig, Tables
from pricing.tables.positions import step
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import answer_quote, position_legs, position_to_proto

#: The most loop time one step of work the server does inline may take.
GOAL_MS = 1.0
RANKS, SUITS = "A23456789TJQK", "SHDC"
SIDE_BETS = {
    name: pb.SideBetPaytable()
    for name in ("ROYAL_MATCH", "PAIRS", "TWENTY_ONE_PLUS_THREE", "HOT_3", "LUCKY_LADIES",
                 "LUCKY_LUCKY", "TOP_3", "MATCH_THE_DEALER", "OVER_13", "UNDER_13", "BUST_IT",
                 "BUSTER")
}  # fmt: skip


def worst_ms(make: Callable[[int], Callable[[], object]], runs: int) -> tuple[float, float]:
    """Median and worst milliseconds of CPU ``runs`` calls take, each on a fresh input (no
    cache). CPU time of this thread, not wall time: what the call costs, whatever else the
    machine runs meanwhile."""
    samples = []
    for i in range(runs):
        call = make(i)
        t0 = time.thread_time()
        call()
        samples.append((time.thread_time() - t0) * 1000)
    samples.sort()
    return samples[len(samples) // 2], samples[-1]


def shoe(seed: int) -> list[str]:
    cards = [r + s for r in RANKS for s in SUITS] * 8
    random.Random(seed).shuffle(cards)
    return cards


def quote(seen: int, **fields: object) -> Callable[[int], Callable[[], object]]:
    def make(i: int) -> Callable[[], object]:
        cards = shoe(i)
        extra = {k: (cards[seen] if v == "up" else v) for k, v in fields.items()}
        if fields.get("player_hand") == "hand":
            extra["player_hand"] = cards[seen + 1 : seen + 3]
        request = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=cards[:seen], **extra)  # type: ignore[arg-type]
        return lambda: answer_quote(request)

    return make


def position_costs() -> dict[str, tuple[float, float]]:
    """A Higher/Lower table of 1,100 voided rounds and a position with a leg on each of 1,000."""
    tables = Tables()
    tables.open("hl", TableConfig(Game.HIGHER_LOWER, 0, HigherLowerRules()))
    opened = [tables.apply("hl", 1, ExposeCard(parse_card("7S"), CardRole.RESULT)).version]
    opened += [tables.apply("hl", seq, VoidRound()).version for seq in range(2, 1102)]
    table = tables.get("hl")
    legs = [pb.PositionLeg(round_id=r + 1, version=v, bet="HIGHER") for r, v in enumerate(opened)]

    def whole(n: int) -> Callable[[int], Callable[[], object]]:
        request = pb.SettlePositionRequest(table_id="hl", stake_cents=100, legs=legs[:n])

        def settle() -> object:
            settled = table.settle_position(100, position_legs(request))
            return position_to_proto(settled).SerializeToString()

        return lambda i: settle

    def one_step(i: int) -> Callable[[], object]:
        parsed = position_legs(pb.SettlePositionRequest(legs=legs[:1000]))
        steps = table.position_steps(100, parsed)
        step(steps)  # past the first step: a step from the middle of a position
        return lambda: step(steps)

    return {
        f"SettlePosition, {STEP_LEGS} legs (inline, whole)": worst_ms(whole(STEP_LEGS), 50),
        f"SettlePosition, one step of {STEP_LEGS} legs": worst_ms(one_step, 50),
        "SettlePosition, 1,000 legs whole (never inline)": worst_ms(whole(1000), 10),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", action="store_true", help="also the 8-deck depleting report")
    args = parser.parse_args()
    costs = {
        "Quote blackjack, 8 decks, 300 seen": worst_ms(quote(300), 30),
        "Quote blackjack, 8 decks, 300 seen, up card": worst_ms(
            quote(300, dealer_up_card="up"), 30
        ),
        "Quote blackjack, every side bet, 300 seen, up card": worst_ms(
            quote(300, dealer_up_card="up", blackjack=pb.BlackjackRules(side_bets=SIDE_BETS)), 30
        ),
        "Quote blackjack, a player's hand": worst_ms(
            quote(20, dealer_up_card="up", player_hand="hand"), 20
        ),
        "Quote blackjack, include_player_edge": worst_ms(quote(20, include_player_edge=True), 5),
        "Analyze Hi-Lo (the default report)": worst_ms(
            lambda i: lambda: answer_analyze(pb.AnalyzeRequest(game=pb.GAME_HILO)), 3
        ),
        **position_costs(),
    }
    if args.slow:
        slow = pb.AnalyzeRequest(
            game=pb.GAME_HIGHER_LOWER,
            decks=8,
            higher_lower=pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING, burns=0),
        )
        costs["Analyze Higher/Lower, 8 decks depleting, no burns"] = worst_ms(
            lambda i: lambda: answer_analyze(slow), 1
        )
    width = max(map(len, costs))
    print(f"{'read':<{width}}  {'median':>10}  {'worst':>10}")
    for name, (median, worst) in costs.items():
        print(f"{name:<{width}}  {median:>8.2f} ms  {worst:>8.2f} ms")
    inline = [k for k in costs if k.endswith(("(inline, whole)", f"one step of {STEP_LEGS} legs"))]
    over = [k for k in inline if costs[k][1] > GOAL_MS]
    for name in inline:
        verdict = "ok" if name not in over else "MISSED"
        worst = costs[name][1]
        print(f"on the event loop: {name}: worst {worst:.2f} ms (goal <= {GOAL_MS} ms): {verdict}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
