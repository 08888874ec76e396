"""The live return (``pricing.tables.live_return``): what it costs a table's events, what it
holds per table, and how often its alert fires by chance.

Run from the repository root: ``.venv/bin/python bench/live_return.py``.

- **Cost**: events folded into a table in process (``Table.apply``: the engine, the view and
  the live return, as the dealer's acknowledgement pays them), with the live return and with
  its step replaced by one that counts nothing, in the same run: a Hi-Lo table (every result
  ends a round of 5 bets) and an 8-deck baccarat table offering every bet (25 settled a
  round). Goal: at most 1.5 times the events' time without it, in process, where Hi-Lo's
  cheap events (under 20 us, against an acknowledgement of 1-2 ms on the wire) show the most.
- **Memory**: a table's ``LiveReturn`` (and ``Table.stakes``) between rounds, while a round
  is dealt (the round's offers held) and once a round is counted (its stakes held until the
  next event), and its two gauge series a bet, by ``tracemalloc`` over 1,000 copies (a Hi-Lo
  table's offers are shared with every table priced alike: counted here as its own).
- **False alarms**: the alert (docs/operations/metrics.md, "Live return") fires at |z| >= 4
  once a bet has 200 stakes, held 10 rounds (its ``for:``). z is a running statistic: under
  honest dealing it is a random walk that keeps coming back, so the chance it ever crosses is
  far above the 6.3e-5 of one look. Seeded walks of independent rounds at a fixed price, z
  checked after every round from the 200th: an even-money bet, a SEVEN-like bet (1 in 13 at
  10.9 : 1) and a long shot (1 in 100 at 90 : 1, whose skew thickens the upper tail early),
  against the Gaussian approximation 4 φ(4) ln(N / 200) + 2 (1 - Φ(4)) (the standardised
  walk is an Ornstein-Uhlenbeck process in ln n). Needs numpy (``pip install .[plot]``
  brings it); skipped without it.
"""

from __future__ import annotations

import math
import pickle
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from _harness import best_time

from pricing.cards import DECK, parse_cards
from pricing.games.baccarat import SIDE_BETS, Hand, next_hand_dealt
from pricing.server.metrics_tables import TableGauge
from pricing.tables import CardRole, ExposeCard, FeedEvent, Game, NewShoe, Table, TableConfig
from pricing.tables.live_return import LiveReturn, Stake
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto
from tests.support.live_feeds import hilo_feed

GOAL = 1.5
SEED = 20261220
MIN_ROUNDS, HOLD, LEVEL = 200, 10, 4.0


def baccarat() -> tuple[TableConfig, list[FeedEvent]]:
    """An 8-deck table offering every bet, and 3,000 events of whole rounds."""
    request = pb.OpenTableRequest(table_id="b", game=pb.GAME_BACCARAT, decks=8)
    for bet in SIDE_BETS:
        request.baccarat.side_bets[bet].preset = ""
    rng = random.Random(SEED)
    events: list[FeedEvent] = []
    cards: list[Any] = []
    while len(events) < 3000:
        if len(cards) < 60:
            cards = list(DECK) * 8
            rng.shuffle(cards)
            events.append(NewShoe())
        hands: dict[Hand, list[Any]] = {Hand.PLAYER: [], Hand.BANKER: []}
        while hand := next_hand_dealt(*(parse_cards(h) for h in hands.values())):
            hands[hand].append(cards.pop())
            role = CardRole.PLAYER if hand is Hand.PLAYER else CardRole.BANKER
            events.append(ExposeCard(hands[hand][-1], role))
    return config_from_proto(pb.GAME_BACCARAT, 8, request), events


def per_event(config: TableConfig, events: list[FeedEvent]) -> float:
    def fold() -> None:
        table = Table("t", config)
        for seq, event in enumerate(events, start=1):
            table.apply(seq, event)

    return best_time(fold, min_total=1.0, repeats=5, clock=time.thread_time) / len(events)


def cost() -> bool:
    print("Cost: CPU time per event folded (Table.apply), with the live return and without")
    step = LiveReturn.step

    def nothing(self: LiveReturn, *_: object) -> tuple[LiveReturn, tuple[()]]:
        return self, ()

    ok = True
    for name, (config, events) in [
        ("Hi-Lo", (TableConfig(Game.HILO), hilo_feed(200, seed=SEED).events)),
        ("baccarat, every bet", baccarat()),
    ]:
        with_it = per_event(config, events)
        LiveReturn.step = nothing  # type: ignore[method-assign]
        try:
            without = per_event(config, events)
        finally:
            LiveReturn.step = step  # type: ignore[method-assign]
        ratio = with_it / without
        ok &= ratio <= GOAL
        print(
            f"  {name}: {with_it * 1e6:6.1f} us with, {without * 1e6:6.1f} us without: "
            f"{ratio:.2f}x (goal <= {GOAL}x)"
        )
    return ok


def allocated(make: Callable[[], object], copies: int = 1000) -> float:
    """Bytes ``make()`` allocates and keeps, per call, over ``copies`` calls."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [make() for _ in range(copies)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return (after - before) / copies


def memory() -> None:
    print("Memory per table (tracemalloc, 1,000 copies; bet names shared, as a server's are)")
    config, events = baccarat()
    for name, table_config, feed in [
        ("Hi-Lo", TableConfig(Game.HILO), hilo_feed(3, seed=SEED).events),
        ("baccarat, every bet", config, events[:400]),
    ]:
        table = Table("t", table_config)
        held: dict[str, tuple[LiveReturn, tuple[Stake, ...]]] = {}
        for seq, event in enumerate(feed, start=1):
            table.apply(seq, event)
            live, stakes = table.live, table.stakes
            what = (
                "a round just counted (its stakes held until the next event)"
                if stakes
                else "a round dealt (its offers held)"
                if live.dealing is not None
                else "between rounds"
            )
            held[what] = (live, stakes)
        for what, (live, stakes) in sorted(held.items()):
            data = pickle.dumps((live, stakes))
            names = {bet: bet for bet in live.bets}

            def copy(data: bytes = data, names: dict[str, str] = names) -> object:
                out, stakes = pickle.loads(data)
                object.__setattr__(out, "bets", tuple(names[b] for b in out.bets))
                return out, stakes

            size = allocated(copy)
            print(f"  {name}, {what}: {len(live.bets)} bets, {size:,.0f} bytes")
        gauge = TableGauge("pricing_live_return_z", "Doc.", ("table_id", "bet"))
        ids = iter(range(10**9))

        def series(
            gauge: TableGauge = gauge, bets: tuple[str, ...] = table.live.bets, ids: Any = ids
        ) -> None:
            table_id = f"table-{next(ids):06d}"
            for bet in bets:
                gauge.labels(table_id, bet).set(-1.2345678901234567)
            gauge.text()  # rendered, as after a scrape

        per_table = allocated(series, copies=200)
        print(f"    its series: {per_table * 2:,.0f} bytes (z and rounds, rendered lines)")


def false_alarms() -> None:
    try:
        import numpy as np  # noqa: PLC0415
    except ImportError:
        print("False alarms: skipped (needs numpy)")
        return
    print(
        f"False alarms: P(|z| >= {LEVEL:g} at some round n >= {MIN_ROUNDS}, and for "
        f"{HOLD} rounds in a row), independent rounds at a fixed price"
    )
    phi = math.exp(-(LEVEL**2) / 2) / math.sqrt(2 * math.pi)
    tail = math.erfc(LEVEL / math.sqrt(2))  # two-sided, one look
    for name, p, pays, walks, rounds in [
        ("even money (1 in 2, 0.95 : 1)", 0.5, 0.95, 20000, 10_000),
        ("SEVEN-like (1 in 13, 10.9 : 1)", 1 / 13, 10.9, 20000, 10_000),
        ("long shot (1 in 100, 90 : 1)", 0.01, 90.0, 20000, 10_000),
        ("even money, 10^5 rounds", 0.5, 0.95, 5000, 100_000),
    ]:
        rng = np.random.default_rng(SEED)
        back = 1 + pays
        mean, sd = p * back, math.sqrt(p * (1 - p)) * back
        total = np.zeros(walks)
        run = np.zeros(walks, dtype=np.int64)
        ever = np.zeros(walks, dtype=bool)
        held = np.zeros(walks, dtype=bool)
        done = 0
        while done < rounds:
            k = min(1000, rounds - done)
            paths = total[:, None] + np.cumsum((rng.random((walks, k)) < p) * back - mean, 1)
            total = paths[:, -1]
            n = np.arange(done + 1, done + k + 1)
            over = (np.abs(paths / (sd * np.sqrt(n))) >= LEVEL) & (n >= MIN_ROUNDS)
            ever |= over.any(axis=1)
            for j in range(k):
                run = np.where(over[:, j], run + 1, 0)
                held |= run >= HOLD
            done += k
        gauss = LEVEL * phi * math.log(rounds / MIN_ROUNDS) + tail
        print(
            f"  {name}, {rounds:,} rounds, {walks:,} walks: ever {ever.mean():.1e}, "
            f"held {held.mean():.1e} (Gaussian approximation {gauss:.1e})"
        )


def main() -> int:
    ok = cost()
    memory()
    false_alarms()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
