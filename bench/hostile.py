"""The hostile-reader check (``make hostile``): no reader can slow or stop the dealer feed.

    .venv/bin/python bench/hostile.py [--json PATH] [--events 1000] [--quotes 1000]

A real server with its default flags (the SQLite journal in a temporary folder) and a dealer
at normal priority sending a unary feed, one ExposeCard call per event, at 50 events/s to a
Higher/Lower table: an idle phase, then a hostile phase during which client processes at a
lower priority (they stand for other machines) at once keep 1,000 Quotes with the player
edge of an 8-deck shoe in flight, 8 Analyze reports running (blackjack, and 8-deck depleting
Higher/Lower) and 8 readers looping 1,000-leg SettlePositions on the dealer's own table. They
leave; then the server is restarted on its journal and a blackjack bet older than its
table's newest image is settled (the journal must be folded) while 8 Analyze calls run; they
leave too. The server is measured with every process under it (its workers).

It passes (exit 0) when: no feed event is refused; the hostile phase's feed p99 is within
max(3 × the idle p99, idle p99 + 15 ms) and all its events were sent in twice their time;
the late Settle is answered within 1 s; and after each load leaves, the server and its
workers use under 5 % of a core over some 1 s window within 5 s, and their PSS is back
within 100 MiB of before the load within 10 s. Each check is printed with its figure and
bound; ``--json`` writes every figure (docs/BENCHMARKS.md quotes them).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import queue
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Final

import grpc
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT
from _procfs import MIB, ProcessTree, Settling, descendants, pss_within, quiet_within

sys.path.insert(0, str(ROOT))
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.hostile import (
    BlackjackDealer,
    HigherLowerDealer,
    Readers,
    Tally,
    blackjack_report,
    channel,
    edge_quotes,
    higher_lower_report,
    position_request,
    reader_process,
    streamed,
)
from tests.support.server import ServerProcess, start_server

RATE: Final = 50.0  # feed events per second
FEED_DEADLINE: Final = 5.0  # seconds: a dealer's card reader waits no longer for an answer
BLACKJACK_ROUNDS: Final = 10  # the history the late Settle's fold goes through
CPU_BOUND: Final = 0.05  # of one core, over a 1 s window ...
CPU_WITHIN: Final = 5.0  # ... within this many seconds of the load leaving
PSS_SLACK: Final = 100 * MIB  # over the figure before the load ...
PSS_WITHIN: Final = 10.0  # ... within this many seconds
LATE_SETTLE_BOUND: Final = 1.0  # seconds
STARTUP_TIMEOUT: Final = 60.0  # seconds for reader processes to start, a server to go quiet


# ---- the processes this run starts ---------------------------------------------------------


class Started:
    """Every process the run starts (servers, reader processes), each killed on the way out
    whatever ends the run: a failure, Ctrl-C or SIGTERM."""

    def __init__(self) -> None:
        self.servers: list[ServerProcess] = []
        self.readers: list[BaseProcess] = []

    def server(self, data_dir: Path) -> ServerProcess:
        """A server with the default flags on ``data_dir``'s journal."""
        server = start_server(data_dir=data_dir, grace=None)
        self.servers.append(server)
        return server

    def kill_all(self) -> None:
        for reader in self.readers:
            if reader.is_alive():
                reader.kill()
            reader.join(5)
        for server in self.servers:
            if server.proc.poll() is None:
                for pid in descendants(server.proc.pid):  # its workers, before they are orphans
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                server.proc.kill()
                server.proc.wait()


# ---- the dealer ----------------------------------------------------------------------------


@dataclass
class Tables:
    """The dealer's tables: the Higher/Lower table the feed goes to and positions ride, and two
    blackjack tables with a history, each with a bet on its first round (one to settle late
    with the server idle, one under load)."""

    higher_lower: HigherLowerDealer
    blackjack: list[BlackjackDealer]
    position: pb.SettlePositionRequest


async def set_up(target: str, legs: int) -> Tables:
    """Open the tables and deal their history on Feed streams (the set-up is not measured):
    ``legs`` + 1 Higher/Lower results (the first is the base card), 10 blackjack rounds each."""
    hl = HigherLowerDealer("higher-lower")
    async with channel(target) as chan:
        dealer = pb_grpc.DealerServiceStub(chan)
        await dealer.OpenTable(hl.open_request())
        events = [pb.FeedRequest(expose_card=hl.fresh()) for _ in range(legs + 1)]
        for state in await streamed(dealer, events):
            hl.answered(state)
        tables = []
        for name in ("blackjack-idle", "blackjack-loaded"):
            bj = BlackjackDealer(name)
            bj.opened(await dealer.OpenTable(bj.open_request()))
            await streamed(dealer, [e for _ in range(BLACKJACK_ROUNDS) for e in bj.round_events()])
            tables.append(bj)
        position = position_request(hl.table_id, hl.legs[:legs])
        answer = await pb_grpc.PricingServiceStub(chan).SettlePosition(position)
    if answer.status != pb.SettleResponse.STATUS_WIN or len(answer.legs) != legs:
        raise RuntimeError(f"the {legs}-leg position does not settle whole: {answer.status}")
    return Tables(hl, tables, position)


@dataclass
class Phase:
    """The unary feed's calls in one phase: each call's seconds and status."""

    name: str
    latencies: list[float] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    @property
    def refused(self) -> int:
        return sum(n for code, n in self.codes.items() if code != "OK")

    def figures(self) -> dict[str, Any]:
        return {
            "events": len(self.latencies),
            "accepted": self.codes["OK"],
            "refused": self.refused,
            "codes": dict(self.codes),
            "seconds": round(self.seconds, 2),
            "p50_ms": round(self.quantile(0.5) * 1e3, 2),
            "p99_ms": round(self.quantile(0.99) * 1e3, 2),
            "max_ms": round(max(self.latencies, default=float("nan")) * 1e3, 2),
        }


async def feed(target: str, dealer: HigherLowerDealer, name: str, events: int) -> Phase:
    """``events`` ExposeCard calls at RATE a second on their schedule (a late call is sent at
    once), each timed; a refused event is sent again as the next one (same seq and card). The
    phase stops early if it takes twice its time."""
    phase = Phase(name)
    async with channel(target) as chan:
        stub = pb_grpc.DealerServiceStub(chan)
        await chan.channel_ready()
        start = time.monotonic()
        for i in range(events):
            wait = start + i / RATE - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if time.monotonic() - start > 2 * events / RATE:
                break
            request = dealer.next_event()
            t0 = time.perf_counter()
            try:
                dealer.answered(await stub.ExposeCard(request, timeout=FEED_DEADLINE))
                code = "OK"
            except grpc.aio.AioRpcError as err:
                code = err.code().name
            phase.latencies.append(time.perf_counter() - t0)
            phase.codes[code] += 1
        phase.seconds = time.monotonic() - start
    return phase


# ---- the readers ---------------------------------------------------------------------------


def hostile_readers(target: str, args: argparse.Namespace, tables: Tables) -> list[Readers]:
    """The hostile phase's clients: edge Quotes, Analyze reports, long positions."""
    quotes = tuple(q.SerializeToString() for q in edge_quotes(args.quotes))
    position = (tables.position.SerializeToString(),)
    bound = 4 * args.events / RATE + 60  # seconds: past any phase's end
    loads = [
        Readers("Quote", target, quotes, args.quotes, deadline=10, seconds=bound, channels=10),
        analyze_readers(target, args.analyzers, bound),
        Readers("SettlePosition", target, position, args.positions, deadline=10, seconds=bound),
    ]
    return [load for load in loads if load.concurrent]  # 0: that kind left out (each alone)


def analyze_readers(target: str, count: int, seconds: float) -> Readers:
    """``count`` Analyze readers, half asking for blackjack reports (a seed each), half for the
    8-deck depleting Higher/Lower report."""
    requests = [
        (blackjack_report(seed=i) if i % 2 == 0 else higher_lower_report()).SerializeToString()
        for i in range(count)
    ]
    return Readers("Analyze", target, tuple(requests), count, deadline=120, seconds=seconds)


@contextmanager
def reading(started: Started, loads: list[Readers], tallies: list[Tally]) -> Iterator[None]:
    """Run each load in a process of its own while the block runs; then they leave (their calls
    cancelled) and their tallies are added to ``tallies``."""
    context = multiprocessing.get_context("spawn")  # nothing of this process's gRPC is copied
    stop, report = context.Event(), context.Queue()
    processes = [
        context.Process(target=reader_process, args=(load, stop, report), daemon=True)
        for load in loads
    ]
    started.readers += processes
    for process in processes:
        process.start()
    _expect(report, "started", len(processes))
    try:
        yield
    finally:
        stop.set()  # on the way out however the block ended; the tallies only if it ended well
    tallies += _expect(report, "tally", len(processes))
    for process in processes:
        process.join(10)


def _expect(report: Any, kind: str, count: int) -> list[Any]:
    """``count`` messages of ``kind`` from the reader processes (an error: raised here)."""
    got: list[Any] = []
    while len(got) < count:
        try:
            what, value = report.get(timeout=STARTUP_TIMEOUT)
        except queue.Empty:
            raise RuntimeError(f"reader processes: {len(got)} of {count} {kind}") from None
        if what == "error":
            raise RuntimeError(value)
        if what == kind:
            got.append(value)
    return got


def in_flight(server: ServerProcess, method: str) -> int:
    """``method``'s calls the server has started and not finished (its gRPC metrics)."""
    started = handled = 0.0
    for family in text_string_to_metric_families(server.metrics_text()):
        for sample in family.samples:
            if sample.labels.get("grpc_method") != method:
                continue
            if sample.name == "grpc_server_started_total":
                started += sample.value
            elif sample.name == "grpc_server_handled_total":
                handled += sample.value
    return int(started - handled)


def wait_in_flight(server: ServerProcess, method: str, count: int, seconds: float) -> int:
    """Once ``count`` calls of ``method`` run, or ``seconds`` have passed (a server may refuse
    some): how many run."""
    deadline = time.monotonic() + seconds
    while (running := in_flight(server, method)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return running


async def settle(target: str, bet: pb.SettleRequest) -> tuple[float, str]:
    """One Settle, timed: seconds, and the status code's name."""
    async with channel(target) as chan:
        stub = pb_grpc.PricingServiceStub(chan)
        await chan.channel_ready()
        t0 = time.perf_counter()
        try:
            await stub.Settle(bet, timeout=60)
            code = "OK"
        except grpc.aio.AioRpcError as err:
            code = err.code().name
        return time.perf_counter() - t0, code


# ---- after a load leaves -------------------------------------------------------------------


@dataclass(frozen=True)
class Aftermath:
    """The server and its workers after a load left: CPU over 1 s windows, PSS readings, and
    the PSS before the load (the bound is that plus PSS_SLACK)."""

    cpu: Settling
    pss: Settling
    pss_before: int

    @classmethod
    def measure(cls, tree: ProcessTree, pss_before: int) -> Aftermath:
        cpu = quiet_within(tree, CPU_BOUND, CPU_WITHIN)
        return cls(cpu, pss_within(tree, pss_before + PSS_SLACK, PSS_WITHIN), pss_before)

    def figures(self) -> dict[str, Any]:
        return {
            "cpu_windows_percent": [round(100 * r, 1) for r in self.cpu.readings],
            "quiet_after_s": _round(self.cpu.within),
            "pss_before_mib": round(self.pss_before / MIB, 1),
            "pss_mib": [round(r / MIB, 1) for r in self.pss.readings],
            "pss_back_after_s": _round(self.pss.within),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


# ---- the run -------------------------------------------------------------------------------


@dataclass
class Run:
    """Every figure of a run."""

    phases: list[Phase] = field(default_factory=list)
    readers: list[Tally] = field(default_factory=list)
    late_readers: list[Tally] = field(default_factory=list)
    after_readers: Aftermath | None = None
    after_analyze: Aftermath | None = None
    late_settle: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)


def first_server(started: Started, data_dir: Path, args: argparse.Namespace, run: Run) -> Tables:
    """Set up, feed idle, feed under the readers, let them leave and measure."""
    server = started.server(data_dir)
    tree = ProcessTree(server.proc.pid)
    tables = asyncio.run(set_up(server.target, args.legs))
    quiet = quiet_within(tree, CPU_BOUND, STARTUP_TIMEOUT)  # blackjack's figures computed
    run.notes["set_up_quiet_after_s"] = _round(quiet.within)
    run.phases.append(asyncio.run(feed(server.target, tables.higher_lower, "idle", args.events)))
    pss_idle = tree.pss_bytes()
    run.notes["idle_pss_mib"] = round(pss_idle / MIB, 1)
    with reading(started, hostile_readers(server.target, args, tables), run.readers):
        phase = feed(server.target, tables.higher_lower, "hostile", args.events)
        run.phases.append(asyncio.run(phase))
    run.after_readers = Aftermath.measure(tree, pss_idle)
    t0 = time.monotonic()
    run.notes["shutdown_exit_code"] = server.stop(timeout=60)
    run.notes["shutdown_s"] = round(time.monotonic() - t0, 2)
    return tables


def restarted_server(
    started: Started, data_dir: Path, args: argparse.Namespace, run: Run, tables: Tables
) -> None:
    """Restart on the journal; late Settles idle and under Analyze calls, which then leave."""
    t0 = time.monotonic()
    server = started.server(data_dir)
    run.notes["restart_s"] = round(time.monotonic() - t0, 2)
    tree = ProcessTree(server.proc.pid)
    idle_bet, loaded_bet = (bj.late_bet for bj in tables.blackjack)
    assert idle_bet is not None and loaded_bet is not None
    seconds, code = asyncio.run(settle(server.target, idle_bet))
    run.late_settle.update(idle_ms=round(seconds * 1e3, 1), idle_code=code)
    pss_before = tree.pss_bytes()
    load = analyze_readers(server.target, args.analyzers, 4 * args.events / RATE + 60)
    with reading(started, [load], run.late_readers):
        running = wait_in_flight(server, "Analyze", args.analyzers, 10)
        seconds, code = asyncio.run(settle(server.target, loaded_bet))
    run.late_settle.update(loaded_ms=round(seconds * 1e3, 1), loaded_code=code)
    run.late_settle["analyze_in_flight"] = running
    run.after_analyze = Aftermath.measure(tree, pss_before)
    server.stop(timeout=60)


# ---- the verdict ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    name: str
    measured: str
    bound: str
    ok: bool


def checks(run: Run, events: int) -> list[Check]:
    idle, hostile = run.phases
    bound = max(3 * idle.quantile(0.99), idle.quantile(0.99) + 0.015)
    p99 = hostile.quantile(0.99)
    out = [
        Check(
            "feed events refused",
            str(idle.refused + hostile.refused),
            "0",
            idle.refused + hostile.refused == 0,
        ),
        Check("hostile feed p99", f"{p99 * 1e3:.1f} ms", f"<= {bound * 1e3:.1f} ms", p99 <= bound),
        Check(
            "hostile feed events sent in twice their time",
            str(len(hostile.latencies)),
            f">= {events}",
            len(hostile.latencies) >= events,
        ),
    ]
    late = run.late_settle
    out.append(
        Check(
            "late Settle under Analyze",
            f"{late['loaded_ms']:.0f} ms, {late['loaded_code']}",
            f"<= {LATE_SETTLE_BOUND * 1e3:.0f} ms, OK",
            late["loaded_ms"] <= LATE_SETTLE_BOUND * 1e3 and late["loaded_code"] == "OK",
        )
    )
    for name, after in (("readers", run.after_readers), ("Analyze callers", run.after_analyze)):
        assert after is not None
        out += aftermath_checks(name, after)
    return out


def aftermath_checks(name: str, after: Aftermath) -> list[Check]:
    return [
        Check(
            f"CPU after the {name} left",
            f"{100 * after.cpu.best:.1f} % (best 1 s window)",
            f"< {100 * CPU_BOUND:.0f} % within {CPU_WITHIN:.0f} s",
            after.cpu.ok,
        ),
        Check(
            f"PSS after the {name} left",
            f"{after.pss.best / MIB:.0f} MiB (before: {after.pss_before / MIB:.0f})",
            f"<= {(after.pss_before + PSS_SLACK) / MIB:.0f} MiB within {PSS_WITHIN:.0f} s",
            after.pss.ok,
        ),
    ]


def _row(*cells: object) -> str:
    """A line of the printed table: the first cell left-aligned, the rest right-aligned."""
    first, *rest = cells
    return f"  {first!s:<24}" + "".join(f"{cell!s:>10}" for cell in rest)


def _ms(value: float) -> str:
    return f"{value:.1f} ms"


def report(run: Run, verdict: list[Check]) -> None:
    print("the unary feed (ExposeCard at 50 events/s)")
    print(_row("phase", "events", "accepted", "refused", "p50", "p99", "max", "seconds"))
    for phase in run.phases:
        f = phase.figures()
        times = (_ms(f["p50_ms"]), _ms(f["p99_ms"]), _ms(f["max_ms"]), f["seconds"])
        print(_row(phase.name, f["events"], f["accepted"], f["refused"], *times))
    print("the readers' calls")
    print(_row("method", "OK", "refused", "deadline", "left", "other", "RetryInfo", "peak"))
    for t in [*run.readers, *run.late_readers]:
        counted = (t.count("OK"), t.count("RESOURCE_EXHAUSTED"), t.count("DEADLINE_EXCEEDED"))
        left = t.count("LEFT")
        other = sum(t.codes.values()) - sum(counted) - left
        print(_row(t.method, *counted, left, other, t.retry_infos, t.peak))
    late = run.late_settle
    print(
        f"late Settle after the restart: {late['idle_ms']:.0f} ms idle ({late['idle_code']}), "
        f"{late['loaded_ms']:.0f} ms with {late['analyze_in_flight']} Analyze calls in flight "
        f"({late['loaded_code']})"
    )
    for name, after in (("readers", run.after_readers), ("Analyze callers", run.after_analyze)):
        assert after is not None
        print(f"after the {name} left: {after.figures()}")
    print(f"notes: {run.notes}")
    for check in verdict:
        print(f"{'pass' if check.ok else 'FAIL'}  {check.name}: {check.measured} ({check.bound})")


def figures(run: Run, verdict: list[Check], args: argparse.Namespace) -> dict[str, Any]:
    def tallies(ts: list[Tally]) -> dict[str, Any]:
        return {
            t.method: {"codes": dict(t.codes), "retry_infos": t.retry_infos, "peak": t.peak}
            for t in ts
        }

    assert run.after_readers is not None and run.after_analyze is not None
    config = {k: v for k, v in vars(args).items() if k != "json"}
    return {
        "config": {**config, "rate": RATE},
        "feed": {phase.name: phase.figures() for phase in run.phases},
        "readers": tallies(run.readers),
        "late_readers": tallies(run.late_readers),
        "late_settle": run.late_settle,
        "after_readers": run.after_readers.figures(),
        "after_analyze": run.after_analyze.figures(),
        "notes": run.notes,
        "checks": [vars(c) for c in verdict],
        "passed": all(c.ok for c in verdict),
    }


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", type=Path, help="write every figure to this file as JSON")
    p.add_argument("--events", type=int, default=1000, help="feed events in each phase")
    p.add_argument("--quotes", type=int, default=1000, help="edge Quotes kept in flight")
    p.add_argument("--analyzers", type=int, default=8, help="Analyze calls kept running")
    p.add_argument("--positions", type=int, default=8, help="SettlePosition readers")
    p.add_argument("--legs", type=int, default=1000, help="legs of each position")
    return p.parse_args()


def main() -> int:
    args = parse_args()
    # SIGTERM ends the run as Ctrl-C does: through the clean-up below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started, run = Started(), Run()
    run.notes["load_average_before"] = round(os.getloadavg()[0], 2)  # others' load on the box
    t0 = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="hostile-") as data:
            tables = first_server(started, Path(data), args, run)
            restarted_server(started, Path(data), args, run, tables)
    finally:
        started.kill_all()
    run.notes["run_s"] = round(time.monotonic() - t0, 1)
    verdict = checks(run, args.events)
    report(run, verdict)
    if args.json:
        args.json.write_text(json.dumps(figures(run, verdict, args), indent=2) + "\n")
    return 0 if all(c.ok for c in verdict) else 1


if __name__ == "__main__":
    sys.exit(main())
