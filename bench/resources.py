"""What a server's memory is made of: the figures docs/operations/resources.md's sizing quotes.

    .venv/bin/python bench/resources.py [--hilo 1000] [--higher-lower 1000] [--blackjack 20]
        [--busy-higher-lower 5] [--full 2] [--baccarat 2] [--watchers 1000]

One real server with its default flags (the SQLite journal in a temporary folder), measured
with every process under it (its workers) after each step, once they are quiet (under 5 % of
a core over 1 s): the proportional set size (PSS: what the processes cost the machine, a page
they share counted once) and the private memory (USS), whose growth is what each step added:

- idle, just started; then once each kind of table has been used (first-use costs);
- per idle table: Hi-Lo, Higher/Lower, and blackjack of 8 decks and 7 seats offering every
  side bet (the busiest configuration);
- per busy table: those blackjack tables dealt a shoe deep; Higher/Lower, blackjack and
  baccarat (8 decks, every bet) tables dealt past the 4,096 versions of prices a table holds
  (the most one can hold);
- per watcher: WatchTable streams held open by a client process, and what stays once closed;
- per report: one Analyze of the 8-deck depleting Higher/Lower report (the largest), its
  peak while it runs and what stays after it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT
from _procfs import MIB, ProcessTree, quiet_within
from _watchers import Watchers, watcher_main

sys.path.insert(0, str(ROOT))
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.hostile import (
    BaccaratDealer,
    BlackjackDealer,
    HigherLowerDealer,
    channel,
    higher_lower_report,
    streamed,
)
from tests.support.server import ServerProcess, start_server

KIB: Final = 1024
QUIET: Final = 0.05  # of a core: the server has finished what the last step gave it
QUIET_WITHIN: Final = 120.0  # seconds: blackjack's main-game figures are computed after events
FULL_HISTORY: Final = 4096  # versions of prices a table holds (pricing.tables.history)
WATCH: Final = "/pricing.v1.PricingService/WatchTable"


@dataclass(frozen=True)
class Step:
    """A step: what it added (``count`` of ``unit``), and the memory after it."""

    name: str
    count: int
    unit: str
    pss: int
    private: int


@dataclass
class Figures:
    """The steps in order, read from the server's process tree."""

    tree: ProcessTree
    steps: list[Step] = field(default_factory=list)

    def add(self, name: str, count: int, unit: str) -> None:
        """The step's memory once the tree is quiet (or after QUIET_WITHIN seconds)."""
        quiet_within(self.tree, QUIET, QUIET_WITHIN)
        self.steps.append(Step(name, count, unit, self.tree.pss_bytes(), self.tree.private_bytes()))

    def peak(self, name: str, count: int, unit: str, work: Callable[[], object]) -> None:
        """The step's highest memory, read every 0.1 s, while ``work`` runs (in a thread)."""
        thread = threading.Thread(target=work)
        thread.start()
        pss = private = 0
        while thread.is_alive():
            pss, private = max(pss, self.tree.pss_bytes()), max(private, self.tree.private_bytes())
            thread.join(0.1)
        self.steps.append(Step(name, count, unit, pss, private))


async def open_tables(target: str, requests: Iterable[pb.OpenTableRequest]) -> None:
    async with channel(target) as chan:
        dealer = pb_grpc.DealerServiceStub(chan)
        for request in requests:
            await dealer.OpenTable(request, timeout=30)


async def deal(
    target: str, dealers: list[BlackjackDealer] | list[BaccaratDealer], rounds: int
) -> None:
    """``rounds`` rounds at each table, the tables' Feed streams side by side."""
    async with channel(target) as chan:
        stub = pb_grpc.DealerServiceStub(chan)
        await asyncio.gather(
            *(
                streamed(stub, [e for _ in range(rounds) for e in dealer.round_events()])
                for dealer in dealers
            )
        )


def idle_tables(server: ServerProcess, game: pb.Game.ValueType, prefix: str, count: int) -> None:
    requests = (pb.OpenTableRequest(table_id=f"{prefix}-{i}", game=game) for i in range(count))
    asyncio.run(open_tables(server.target, requests))


def higher_lower_played(server: ServerProcess, count: int, results: int) -> int:
    """``count`` continuous Higher/Lower tables with no burns, dealt ``results`` results each
    (every one a round); the results dealt."""

    async def play(dealer: HigherLowerDealer) -> None:
        async with channel(server.target) as chan:
            stub = pb_grpc.DealerServiceStub(chan)
            await stub.OpenTable(dealer.open_request(), timeout=30)
            await streamed(
                stub, [pb.FeedRequest(expose_card=dealer.fresh()) for _ in range(results)]
            )

    async def all_tables() -> None:
        await asyncio.gather(
            *(play(HigherLowerDealer(f"played-{i}", seed=i)) for i in range(count))
        )

    asyncio.run(all_tables())
    return results


def blackjack_tables(server: ServerProcess, prefix: str, count: int) -> list[BlackjackDealer]:
    dealers = [BlackjackDealer(f"{prefix}-{i}", seed=i) for i in range(count)]
    asyncio.run(open_tables(server.target, (d.open_request() for d in dealers)))
    return dealers


def watchers(server: ServerProcess, tables: list[str], count: int) -> Watchers:
    """``count`` WatchTable streams over ``tables``, held open by a client process."""
    streams = [(t, count // len(tables) + (i < count % len(tables))) for i, t in enumerate(tables)]
    held = Watchers(__file__, server.target, WATCH, streams, procs=1, channels=4, decode="manual")
    opened = held.opened()
    if opened["served"] != count:
        raise RuntimeError(f"{count} watchers asked, {opened}")
    return held


def report_call(server: ServerProcess) -> None:
    async def call() -> None:
        async with channel(server.target) as chan:
            await pb_grpc.PricingServiceStub(chan).Analyze(higher_lower_report(), timeout=300)

    asyncio.run(call())


def warm_up(server: ServerProcess) -> None:
    """A table of each kind opened and a blackjack round dealt: what a server pays once, on
    first use (imports, caches), is not counted per table below."""
    for game in (pb.GAME_HILO, pb.GAME_HIGHER_LOWER):
        idle_tables(server, game, f"warm-{pb.Game.Name(game)}", 5)
    asyncio.run(deal(server.target, blackjack_tables(server, "warm-blackjack", 1), 1))


def table_steps(server: ServerProcess, args: argparse.Namespace, out: Figures) -> None:
    idle_tables(server, pb.GAME_HILO, "hilo", args.hilo)
    out.add("idle Hi-Lo tables", args.hilo, "table")
    idle_tables(server, pb.GAME_HIGHER_LOWER, "higher-lower", args.higher_lower)
    out.add("idle Higher/Lower tables", args.higher_lower, "table")
    busy = blackjack_tables(server, "blackjack", args.blackjack)
    step = "idle blackjack tables (8 decks, 7 seats, every side bet)"
    out.add(step, args.blackjack, "table")
    rounds = BlackjackDealer.ROUNDS_PER_SHOE
    asyncio.run(deal(server.target, busy, rounds))
    out.add(f"... each dealt a shoe deep ({rounds} rounds, {rounds * 17 + 1} versions)",
            args.blackjack, "table")  # fmt: skip
    played = higher_lower_played(server, args.busy_higher_lower, FULL_HISTORY + 100)
    out.add(f"Higher/Lower tables dealt {played} results (its {FULL_HISTORY} versions held)",
            args.busy_higher_lower, "table")  # fmt: skip
    full = blackjack_tables(server, "full", args.full)
    rounds = FULL_HISTORY // 17 + 1  # 17 events a round: past the versions a table holds
    asyncio.run(deal(server.target, full, rounds))
    step = f"blackjack tables dealt {rounds} rounds (its {FULL_HISTORY} versions held)"
    out.add(step, args.full, "table")
    baccarat = [BaccaratDealer(f"baccarat-{i}", seed=i) for i in range(args.baccarat)]
    asyncio.run(open_tables(server.target, (d.open_request() for d in baccarat)))
    out.add("idle baccarat tables (8 decks, every bet)", args.baccarat, "table")
    rounds = FULL_HISTORY // 4 + 1  # at most 6 cards a round: past the versions a table holds
    asyncio.run(deal(server.target, baccarat, rounds))
    step = f"baccarat tables dealt {rounds} rounds (its {FULL_HISTORY} versions held)"
    out.add(step, args.baccarat, "table")


def watcher_steps(server: ServerProcess, args: argparse.Namespace, out: Figures) -> None:
    held = watchers(server, [f"hilo-{i}" for i in range(args.hilo)], args.watchers)
    out.add("WatchTable streams (on the Hi-Lo tables)", args.watchers, "watcher")
    held.stop()
    out.add("... the streams closed", args.watchers, "watcher")


def report_steps(server: ServerProcess, out: Figures) -> None:
    out.peak("peak during one Analyze (8-deck depleting Higher/Lower)", 1, "report",
             lambda: report_call(server))  # fmt: skip
    out.add("... after it (what stays)", 1, "report")


def measure(server: ServerProcess, args: argparse.Namespace) -> Figures:
    out = Figures(ProcessTree(server.proc.pid))
    out.add("idle server (its quote worker included)", 1, "server")
    warm_up(server)
    out.add("first use (a table of each kind, a blackjack round)", 1, "server")
    table_steps(server, args, out)
    watcher_steps(server, args, out)
    report_steps(server, out)
    return out


def _size(value: float) -> str:
    return f"{value / MIB:.1f} MiB" if abs(value) >= MIB else f"{value / KIB:.1f} KiB"


def table(figures: Figures) -> str:
    """The steps as a Markdown table: the memory after each, and what it added per unit, as
    private memory (USS: not moved by other processes mapping the same libraries, as PSS is).
    A report's rows are against the memory before the report."""
    lines = [
        "| step | PSS after | private after | private added | per unit |",
        "|---|---|---|---|---|",
    ]
    before = 0
    for step in figures.steps:
        added = step.private - before
        lines.append(
            f"| {step.name} | {_size(step.pss)} | {_size(step.private)} | {_size(added)} "
            f"| {_size(added / step.count)} per {step.unit} |"
        )
        if step.unit != "report":
            before = step.private
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hilo", type=int, default=1000, help="idle Hi-Lo tables")
    p.add_argument("--higher-lower", type=int, default=1000, help="idle Higher/Lower tables")
    p.add_argument("--blackjack", type=int, default=20, help="blackjack tables dealt a shoe deep")
    p.add_argument("--full", type=int, default=2, help="blackjack tables dealt past the history")
    p.add_argument(
        "--baccarat", type=int, default=2, help="baccarat tables (every bet) dealt past the history"
    )
    p.add_argument(
        "--busy-higher-lower", type=int, default=5, help="Higher/Lower tables dealt past it"
    )
    p.add_argument("--watchers", type=int, default=1000, help="WatchTable streams")
    p.add_argument("--watcher", help=argparse.SUPPRESS)  # a watcher process (bench/_watchers.py)
    return p.parse_args()


def main() -> int:
    args = parse_args()
    if args.watcher:
        asyncio.run(watcher_main(json.loads(args.watcher)))
        return 0
    with tempfile.TemporaryDirectory(prefix="resources-") as data:
        server = start_server(data_dir=Path(data), grace=None)
        try:
            figures = measure(server, args)
        finally:
            server.stop(timeout=60)
    print(table(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
