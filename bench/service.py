"""The service at casino scale, every figure a ratio against a bare grpc.aio server in the same run.

Starts the real server (``server.py``, SQLite journal on) and a bare grpc.aio server of the same
shapes (``bench/_bare.py``: an empty unary call; a stream fanning each posted message out to its
subscribers, the post a TableState-sized unary call), each a process of its own on loopback.
Watchers live in client processes (``bench/_watchers.py``), several channels each; the feed runs
in this process. Then:

1. unary round trips, sequential: bare echo vs GetTable, Quote, ExposeCard (0 watchers), and
   ExposeCard on a second server whose journal keeps nothing (``--data-dir :memory:``), with
   the server's CPU per call, the rows in order then in reverse;
2. fan-out to N watchers of one table (N = 100, 1,000, 5,000) and 1,000 watchers over 200
   tables, the feed at a fixed pace and flat out: delivered updates/s, card-to-watcher latency
   p50/p99 (the feed's ``time.monotonic()`` at send, per (table, version), against each
   watcher's at arrival), server CPU per delivered message (/proc/PID/stat over the phase),
   each phase in halves run service, bare, bare, service and merged per server, with the
   share of the machine's CPU its host took meanwhile (steal, /proc/stat);
3. the feed's acknowledgement latency at a realistic pace (200 tables, one event a second
   each, with jitter) on 200 tables no one watches and on 200 with 5,000 watchers (25 per
   table), the events sent as calls (ExposeCard) and on a Feed stream per table, in turns
   (which goes first alternates), so all see the same machine; on both servers;
4. a burst of 5,000 WatchTable opens at once: served, refused (by code) or lost;
5. server memory: RSS per open idle watcher (bare: per stream), and per idle table (10,000
   Hi-Lo, 10,000 blackjack, each in a fresh server) with the first (uncached) metrics scrape.

Prints Markdown tables (for docs/BENCHMARKS.md), each goal ``ok`` or ``BELOW GOAL``, exits 1
if one is missed; draws card-to-watcher p99 against watchers to docs/fanout-latency.png.

Run: ``make bench``, ``.venv/bin/python bench/service.py`` (4-5 minutes on 2 cores) or
``--quick`` (smaller sizes, about a minute).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import sys
import time
import timeit
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
from _bare import ECHO, POST, QUEUE
from _bare import FEED as BARE_FEED
from _bare import WATCH as BARE_WATCH
from _bare import serve as serve_bare
from _harness import ROOT
from _live import Feed, Steal, cpu_seconds, cpu_ticks, rss_bytes
from _watchers import Child, Watchers, pb_version_of, version_of, watcher_main
from prometheus_client.parser import text_string_to_metric_families

from pricing.server import eventloop
from pricing.server.eventloop import LOOPS
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.server import ServerProcess, start_server

WATCH = "/pricing.v1.PricingService/WatchTable"
KIB = 1024
#: Seconds a phase waits for every watcher to hold the last version sent.
DRAIN = 30.0
#: The deadline of every unary call the benchmark makes, and of the whole run.
CALL_TIMEOUT = 30.0
RUN_TIMEOUT = 540.0


@dataclass(frozen=True)
class Sizes:
    fan: tuple[int, ...] = (100, 1000, 5000)  # watchers of one table
    multi: tuple[int, int] = (1000, 200)  # watchers over tables
    # Paced feed on one table: the deliveries a second it aims at, well below what this box
    # delivers flat out (about 5,000-7,000/s), so both servers keep up and latency is not
    # queueing; at least ``paced_events`` events per phase.
    pace: int = 3000
    paced_events: int = 10
    paced_seconds: float = 4.0
    flat_seconds: float = 3.0
    realistic: tuple[int, int] = (200, 5000)  # tables fed at 1 card/s, their watchers
    realistic_seconds: float = 5.0  # per turn
    realistic_turns: int = 2
    burst: int = 5000
    idle_tables: int = 10_000
    calls: int = 2000  # unary round trips per row


FULL = Sizes()
QUICK = Sizes(
    fan=(50, 200, 1000),
    multi=(200, 40),
    pace=1500,
    paced_events=5,
    paced_seconds=1.5,
    flat_seconds=1.0,
    realistic=(40, 1000),
    realistic_seconds=3.0,
    realistic_turns=1,
    burst=1000,
    idle_tables=1000,
    calls=300,
)


# ---- the two servers -----------------------------------------------------------------------


def hilo_state(table_id: str, version: int) -> pb.TableState:
    """A Hi-Lo TableState in betting, as the real server sends it (the bare server's post)."""
    prices = [
        pb.BetPrice(
            bet=b, wins=20, remaining=45, probability=0.44, payout_hundredths=113, open=True
        )
        for b in ("LOW", "HIGH", "ODD", "EVEN", "SEVEN")
    ]
    return pb.TableState(
        table_id=table_id, game=pb.GAME_HILO, version=version, shoe=1, phase=pb.PHASE_BETTING,
        round_id=3, result_index=3, last_seq=version - 1,
        exposed=["7H", "KS", "2D", "9C", "QH", "3C", "8D"], cards_remaining=45, prices=prices,
        decks=1,
    )  # fmt: skip


Send = Callable[[], Awaitable[int]]  # one event; the version it made
#: A table's feed: (table id, seed, whether its events now go on a stream) -> its Send.
Sender = Callable[[str, int, Callable[[], bool]], Send]


@dataclass
class Server:
    """The real server or the bare one: where it listens, its process, how to feed a table."""

    name: str
    target: str
    pid: int
    watch: str
    channel: grpc.aio.Channel
    open_table: Callable[[str], Awaitable[None]]
    sender: Sender
    watchers: Watchers | None = None
    metrics_url: str = ""  # the real server's /metrics
    streamed: bool = False  # the feed's events on a stream per table, not a call each
    end_streams: Callable[[], Awaitable[None]] | None = None  # the feed's, before closing
    # A table's feed stream opened, its first answer read, the table unchanged.
    open_stream: Callable[[str], Awaitable[None]] | None = None
    _senders: dict[str, Send] = field(default_factory=dict)

    def feed(self, table_id: str) -> Send:
        """The one feed of ``table_id``: it carries on where the last phase left the table."""
        if table_id not in self._senders:
            seed = len(self._senders)
            self._senders[table_id] = self.sender(table_id, seed, lambda: self.streamed)
        return self._senders[table_id]


def real_server(process: ServerProcess) -> Server:
    channel = grpc.aio.insecure_channel(process.target)
    dealer = pb_grpc.DealerServiceStub(channel)

    async def open_table(table_id: str) -> None:
        request = pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO)
        await dealer.OpenTable(request, timeout=CALL_TIMEOUT)

    feeds: dict[str, Feed] = {}

    async def end_streams() -> None:
        await asyncio.gather(*(feed.end_stream() for feed in feeds.values()))

    async def open_stream(table_id: str) -> None:
        if table_id in feeds:
            await feeds[table_id].open_stream()

    def sender(table_id: str, seed: int, streamed: Callable[[], bool]) -> Send:
        feed = feeds[table_id] = Feed(dealer, table_id, seed)

        async def send() -> int:
            return int((await feed.send(streamed())).version)

        return send

    return Server(
        "service", process.target, process.proc.pid, WATCH, channel, open_table, sender,
        metrics_url=f"http://127.0.0.1:{process.metrics_port}/metrics", end_streams=end_streams,
        open_stream=open_stream,
    )  # fmt: skip


def bare_server(child: Child, ready: dict[str, Any]) -> Server:
    target = f"127.0.0.1:{ready['grpc_port']}"
    channel = grpc.aio.insecure_channel(target)
    post = channel.unary_unary(POST, request_serializer=None, response_deserializer=None)
    versions: dict[str, int] = {}

    async def open_table(table_id: str) -> None:
        versions[table_id] = 1
        await post(hilo_state(table_id, 1).SerializeToString(), timeout=CALL_TIMEOUT)

    streams: dict[str, Any] = {}

    def sender(table_id: str, seed: int, streamed: Callable[[], bool]) -> Send:
        state = hilo_state(table_id, versions[table_id])

        async def send() -> int:
            versions[table_id] = state.version = versions[table_id] + 1
            if not streamed():
                await post(state.SerializeToString(), timeout=CALL_TIMEOUT)
                return versions[table_id]
            await on_stream(table_id, state.SerializeToString())
            return versions[table_id]

        return send

    async def on_stream(table_id: str, data: bytes) -> None:
        if table_id not in streams:
            streams[table_id] = channel.stream_stream(
                BARE_FEED, request_serializer=None, response_deserializer=None
            )()
        await streams[table_id].write(data)
        if await streams[table_id].read() is grpc.aio.EOF:
            raise RuntimeError(f"table {table_id}: the bare Feed stream ended")

    async def open_stream(table_id: str) -> None:
        if table_id not in streams:
            await on_stream(table_id, b"")  # a post of no table: no subscriber hears of it

    async def end_streams() -> None:
        for stream in streams.values():
            await stream.done_writing()
        await asyncio.gather(*(stream.code() for stream in streams.values()))
        streams.clear()

    return Server(
        "bare", target, child.proc.pid, BARE_WATCH, channel, open_table, sender,
        end_streams=end_streams, open_stream=open_stream,
    )  # fmt: skip


async def gather_limited(calls: Iterator[Awaitable[None]], limit: int = 64) -> None:
    async def worker() -> None:
        for call in calls:
            await call

    await asyncio.gather(*(worker() for _ in range(limit)))


# ---- statistics ----------------------------------------------------------------------------


def quantile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


@dataclass
class Goals:
    missed: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def check(self, name: str, value: float, ok: bool, goal: str) -> None:
        verdict = "ok" if ok else f"BELOW GOAL {goal}"
        if not ok:
            self.missed.append(name)
        self.lines.append(f"| {name} | {value:,.2f} | {goal} | {verdict} |")


# ---- fan-out phases ------------------------------------------------------------------------


@dataclass
class Phase:
    """What one feed phase (or several merged) sent, delivered and cost."""

    sent: int = 0
    deliveries: int = 0
    expected: int = 0
    window: float = 0.0  # first send -> last arrival, seconds
    wall: float = 0.0
    cpu: float = 0.0  # the server's CPU seconds over ``wall``
    client_cpu: float = 0.0  # the watcher processes' CPU seconds
    acks: list[float] = field(default_factory=list, repr=False)
    latencies: list[float] = field(default_factory=list, repr=False)
    behind: int = 0
    stolen: Steal = field(default_factory=Steal)  # the host's share of the machine over ``wall``
    ended: Counter[str] = field(default_factory=Counter)
    feed_errors: Counter[str] = field(default_factory=Counter)
    # The server's own histogram of ExposeCard's handling time over the phase: calls per
    # bucket bound, cumulative (from /metrics; the real server only).
    handled: Counter[float] = field(default_factory=Counter)
    handled_read: bool = True  # False: the histogram's counts were not the phase's calls

    def add(self, other: Phase) -> None:
        """Merge ``other`` (another phase of the same kind) into this one."""
        for name in ("sent", "deliveries", "expected", "window", "wall", "cpu", "client_cpu"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.stolen += other.stolen
        self.acks += other.acks
        self.latencies += other.latencies
        self.behind += other.behind
        self.ended += other.ended
        self.feed_errors += other.feed_errors
        self.handled += other.handled
        self.handled_read = self.handled_read and other.handled_read

    @property
    def rate(self) -> float:
        return self.deliveries / self.window if self.window else 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu / self.deliveries * 1e6 if self.deliveries else float("nan")

    @property
    def client_us(self) -> float:
        return self.client_cpu / self.deliveries * 1e6 if self.deliveries else float("nan")

    @property
    def busy(self) -> float:
        """The server's CPU time over the wall time (1.0: one core all the time)."""
        return self.cpu / self.wall if self.wall else float("nan")

    def latency(self, q: float) -> float:
        """Card-to-watcher latency at quantile ``q``, seconds."""
        return quantile(self.latencies, q)

    def ack(self, q: float) -> float:
        """ExposeCard (or post) acknowledgement latency at quantile ``q``, seconds."""
        return quantile(self.acks, q)

    def handling(self, q: float) -> float:
        """The upper bound of the server's handling-time bucket that holds quantile ``q``."""
        return bucket_quantile(self.handled, q) if self.handled_read else math.nan


HANDLING = "grpc_server_handling_seconds"


def handling_buckets(metrics_url: str, method: str) -> Counter[float]:
    """The server's ``grpc_server_handling_seconds`` of ``method``, as it stands: calls per
    bucket bound (cumulative, as Prometheus keeps them)."""
    with urllib.request.urlopen(metrics_url, timeout=CALL_TIMEOUT) as response:
        page = response.read().decode()
    buckets: Counter[float] = Counter()
    for family in text_string_to_metric_families(page):
        if family.name == HANDLING:
            for sample in family.samples:
                if sample.name == f"{HANDLING}_bucket" and sample.labels["grpc_method"] == method:
                    buckets[float(sample.labels["le"])] += int(sample.value)
    return buckets


def feed_buckets(metrics_url: str) -> Counter[float]:
    """The handling histogram of the feed's calls (its cards and its new shoes) together."""
    return handling_buckets(metrics_url, "ExposeCard") + handling_buckets(metrics_url, "NewShoe")


def bucket_quantile(buckets: Counter[float], q: float) -> float:
    """The smallest bucket bound with at least a share ``q`` of the calls at or under it.

    >>> bucket_quantile(Counter({0.001: 50, 0.01: 99, math.inf: 100}), 0.99)
    0.01
    """
    total = buckets.get(math.inf, 0)
    return next((le for le in sorted(buckets) if buckets[le] >= q * total), math.nan)


async def run_feed(
    senders: dict[str, Send], mode: str, seconds: float, per_table_rate: float
) -> tuple[dict[str, dict[int, float]], list[float], Counter[str]]:
    """Feed every table for ``seconds``: ``flat`` (each table's next event as soon as the last
    is acknowledged), ``paced`` (each table at ``per_table_rate``, a random phase apart) or
    ``realistic`` (each at ``per_table_rate`` on average, every gap jittered +-50 %). The send
    time of each (table, version), every acknowledgement's latency, and the failed calls by
    code (a table whose call failed is fed no more this phase)."""
    sent: dict[str, dict[int, float]] = {t: {} for t in senders}
    acks: list[float] = []
    errors: Counter[str] = Counter()
    clock = time.monotonic
    deadline = clock() + seconds
    rng = random.Random(len(senders))
    interval = 1 / per_table_rate if per_table_rate else 0.0

    async def one(table: str, send: Send) -> None:
        next_at = clock() + rng.uniform(0, interval)
        while True:
            if mode != "flat":
                delay = next_at - clock()
                if delay > 0:
                    await asyncio.sleep(delay)
            t0 = clock()
            if t0 >= deadline:
                return
            try:
                version = await send()
            except grpc.aio.AioRpcError as exc:
                errors[exc.code().name] += 1
                return
            t1 = clock()
            sent[table][version] = t0
            acks.append(t1 - t0)
            step = interval * (rng.uniform(0.5, 1.5) if mode == "realistic" else 1.0)
            next_at = max(next_at + step, t1 - interval)

    await asyncio.gather(*(one(t, s) for t, s in senders.items()))
    return sent, acks, errors


async def phase(
    server: Server,
    tables: dict[str, int],
    mode: str,
    seconds: float,
    *,
    rate: float,
    drain_timeout: float = DRAIN,
) -> Phase:
    """Feed ``tables`` (id -> its watchers) on ``server``; what its watchers received."""
    senders = {t: server.feed(t) for t in tables}
    watchers = server.watchers
    if watchers is not None:
        watchers.ask({"cmd": "mark"}, 30)
    clients = [c.proc.pid for c in watchers.children] if watchers is not None else []
    cpu0, wall0 = cpu_seconds(server.pid), time.monotonic()
    client0 = sum(cpu_seconds(pid) for pid in clients)
    steal0 = cpu_ticks()

    sent, acks, errors = await asyncio.wait_for(
        run_feed(senders, mode, seconds, rate), seconds + 2 * CALL_TIMEOUT
    )
    result = Phase(sent=sum(len(v) for v in sent.values()), acks=acks, feed_errors=errors)
    if watchers is not None:
        last = {t: max(v) for t, v in sent.items() if v}
        wire_sent = {t: {str(k): x for k, x in v.items()} for t, v in sent.items() if v}
        answers = watchers.ask(
            {"cmd": "drain", "last": last, "sent": wire_sent, "timeout": drain_timeout},
            drain_timeout + 60,
        )
    else:
        answers = []
    result.cpu, result.wall = cpu_seconds(server.pid) - cpu0, time.monotonic() - wall0
    result.client_cpu = sum(cpu_seconds(pid) for pid in clients) - client0
    result.stolen = Steal.since(steal0)
    result.latencies = [x for a in answers for x in a["latencies"]]
    result.deliveries = sum(a["deliveries"] for a in answers)
    result.expected = sum(len(sent[t]) * n for t, n in tables.items()) if answers else 0
    result.behind = sum(a["behind"] for a in answers)
    for a in answers:
        result.ended.update(a["ended"])
    if result.deliveries:
        first = min(min(v.values()) for v in sent.values() if v)
        result.window = max(a["last_arrival"] for a in answers) - first
    return result


# ---- unary round trips ---------------------------------------------------------------------


@dataclass
class Timed:
    """Sequential round trips of one kind of call: latencies, the server's CPU, the steal."""

    samples: list[float] = field(default_factory=list)
    cpu: float = 0.0  # the server's CPU seconds over the calls
    stolen: Steal = field(default_factory=Steal)

    @property
    def cpu_per_call(self) -> float:
        return self.cpu / len(self.samples) if self.samples else float("nan")


async def timed(call: Callable[[], Awaitable[object]], n: int, pid: int, into: Timed) -> None:
    """``n`` sequential round trips after a warm-up, added to ``into`` (the server: ``pid``)."""
    for _ in range(min(100, n)):  # warm-up
        await call()
    cpu0, steal0 = cpu_seconds(pid), cpu_ticks()
    for _ in range(n):
        t0 = time.perf_counter()
        await call()
        into.samples.append(time.perf_counter() - t0)
    into.cpu += cpu_seconds(pid) - cpu0
    into.stolen += Steal.since(steal0)


async def unary(service: Server, bare: Server, memory: Server, calls: int) -> list[str]:
    """Sequential round trips of one asyncio client: bare Echo, GetTable, Quote, ExposeCard,
    and ExposeCard on a server whose journal keeps nothing (``memory``), to show what the
    disk adds. Each row in two halves, the rows in order then in reverse (ABBA)."""
    pricing = pb_grpc.PricingServiceStub(service.channel)
    echo = bare.channel.unary_unary(ECHO, request_serializer=None, response_deserializer=None)
    await service.open_table("bench-unary")
    await memory.open_table("bench-unary")
    quote_request = pb.QuoteRequest(game=pb.GAME_HILO, exposed=["7H", "KS", "2D", "9C", "QH"])
    get_request = pb.GetTableRequest(table_id="bench-unary")
    calls_of: dict[str, tuple[Callable[[], Awaitable[object]], int]] = {
        "bare echo (baseline)": (lambda: echo(b"", timeout=CALL_TIMEOUT), bare.pid),
        "GetTable": (lambda: pricing.GetTable(get_request, timeout=CALL_TIMEOUT), service.pid),
        "Quote (5 cards seen)": (
            lambda: pricing.Quote(quote_request, timeout=CALL_TIMEOUT),
            service.pid,
        ),
        "ExposeCard (0 watchers)": (service.feed("bench-unary"), service.pid),
        "ExposeCard (0 watchers), journal `:memory:`": (memory.feed("bench-unary"), memory.pid),
    }
    rows = {name: Timed() for name in calls_of}
    for name in [*calls_of, *reversed(calls_of)]:
        call, pid = calls_of[name]
        await timed(call, max(1, calls // 2), pid, rows[name])
    bare_row = rows["bare echo (baseline)"]
    base, base_cpu = quantile(bare_row.samples, 0.5), bare_row.cpu_per_call
    out = [
        f"Unary round trips, sequential, {calls} calls each (two halves, the rows in order then "
        "in reverse), and the server's CPU per call (a Quote's worker process not counted):",
        "",
        "| call | p50 | p99 | p50 / bare | server CPU µs/call | CPU / bare | steal |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        p50, p99 = quantile(row.samples, 0.5), quantile(row.samples, 0.99)
        cpu_ratio = f"{row.cpu_per_call / base_cpu:.2f}×" if base_cpu > 0 else "n/a"
        out.append(
            f"| {name} | {ms(p50)} | {ms(p99)} | {p50 / base:.2f}× "
            f"| {row.cpu_per_call * 1e6:,.0f} | {cpu_ratio} | {row.stolen.share:.0%} |"
        )
    return out


# ---- memory and scrape ---------------------------------------------------------------------


def scrape(process: ServerProcess) -> tuple[float, int]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(
        f"http://127.0.0.1:{process.metrics_port}/metrics", timeout=60
    ) as r:
        size = len(r.read())
    return time.perf_counter() - t0, size


def idle_tables(game: int, count: int) -> dict[str, float]:
    """A fresh server's RSS per idle table of ``game``, and its metrics scrape after."""
    process = start_server(f"--max-tables={count + 100}", "--log-level=WARNING")
    try:

        async def open_all(prefix: str, n: int) -> None:
            async with grpc.aio.insecure_channel(process.target) as channel:
                dealer = pb_grpc.DealerServiceStub(channel)
                await gather_limited(
                    dealer.OpenTable(
                        pb.OpenTableRequest(table_id=f"{prefix}{i}", game=game),
                        timeout=CALL_TIMEOUT,
                    )
                    for i in range(n)
                )

        asyncio.run(open_all("warm-", 50))  # every code path of an open touched once
        scrape(process)
        before = rss_bytes(process.proc.pid)
        t0 = time.perf_counter()
        asyncio.run(open_all("idle-", count))
        opened = time.perf_counter() - t0
        after = rss_bytes(process.proc.pid)
        first, size = scrape(process)  # the first since the tables changed: rendered afresh
        second, _ = scrape(process)
    finally:
        process.stop()
    return {
        "per_table": (after - before) / count,
        "opens_per_s": count / opened,
        "scrape": first,
        "scrape_again": second,
        "size": size,
    }


# ---- the run -------------------------------------------------------------------------------


def choose_decoder() -> tuple[str, list[str]]:
    """Which way of reading a state's version is cheaper for the watchers, measured here."""
    payload = hilo_state("fan-1000", 12345).SerializeToString()
    assert version_of(payload) == pb_version_of(payload) == 12345
    manual = min(timeit.repeat(lambda: version_of(payload), number=20_000, repeat=3)) / 20_000
    generated = min(timeit.repeat(lambda: pb_version_of(payload), number=20_000, repeat=3))
    generated /= 20_000
    choice = "manual" if manual < generated else "protobuf"
    line = (
        f"Watchers read each state's version with the {choice} decoder "
        f"(varint walk to field 3: {manual * 1e6:.2f} µs; generated TableState.FromString: "
        f"{generated * 1e6:.2f} µs, {len(payload)} B state)."
    )
    return choice, [line]


@dataclass(frozen=True)
class Shapes:
    """The tables of each fan-out shape (table id -> its watchers), and the realistic ones."""

    fan: list[dict[str, int]]
    realistic: dict[str, int]
    quiet: dict[str, int]  # as many tables, watched by none

    @classmethod
    def of(cls, sizes: Sizes) -> Shapes:
        multi_n, multi_t = sizes.multi
        real_t, real_n = sizes.realistic
        return cls(
            fan=[
                *({f"fan-{n}": n} for n in sizes.fan),
                {f"multi-{i}": multi_n // multi_t for i in range(multi_t)},
            ],
            realistic={f"real-{i}": real_n // real_t for i in range(real_t)},
            quiet={f"quiet-{i}": 0 for i in range(real_t)},
        )

    def streams(self) -> list[tuple[str, int]]:
        shapes = (*self.fan, self.realistic, self.quiet)
        return [(t, n) for shape in shapes for t, n in shape.items()]


def open_watchers(
    servers: list[Server], shapes: Shapes, args: argparse.Namespace, decoder: str
) -> dict[str, dict[str, Any]]:
    """Every watcher of the run on each server (idle); RSS per open watcher."""
    opened: dict[str, dict[str, Any]] = {}
    for server in servers:
        print(f"opening watchers, {server.name} ...", file=sys.stderr, flush=True)
        rss0 = rss_bytes(server.pid)
        server.watchers = Watchers(
            __file__, server.target, server.watch, shapes.streams(),
            procs=args.procs, channels=args.channels, decode=decoder,
        )  # fmt: skip
        opened[server.name] = server.watchers.opened()
        served = max(1, opened[server.name]["served"])
        opened[server.name]["per_watcher"] = (rss_bytes(server.pid) - rss0) / served
    return opened


async def fan_outs(
    servers: list[Server], shapes: Shapes, sizes: Sizes
) -> dict[tuple[str, str, str], Phase]:
    """Each shape, paced then flat out, in two halves a server: the service, the bare server,
    the bare server again, the service again (ABBA), each server's halves merged. A host that
    takes the VM's CPU in bursts (steal) then weighs on both servers alike, not on whichever
    ran in the bad minute."""
    fan: dict[tuple[str, str, str], Phase] = {}
    for shape in shapes.fan:
        watchers = sum(shape.values())
        one = len(shape) == 1
        label = f"{watchers:,} on 1 table" if one else f"{watchers:,} over {len(shape)} tables"
        # Events a second per table: one table at the delivered rate ``pace`` aims at (at most
        # 100); many tables at one a second each (the realistic pace).
        paced_rate = min(100.0, sizes.pace / watchers) if one else 1.0
        paced_seconds = (
            max(sizes.paced_seconds, sizes.paced_events / paced_rate)
            if one
            else sizes.paced_seconds
        )
        for mode, seconds in (("paced", paced_seconds), ("flat", sizes.flat_seconds)):
            for half, server in enumerate((*servers, *reversed(servers))):
                print(
                    f"fan-out {label}, {mode}, {server.name} ({half // 2 + 1} of 2) ...",
                    file=sys.stderr,
                    flush=True,
                )
                merged = fan.setdefault((label, mode, server.name), Phase())
                # Paced halves share the phase's events; flat ones each run the whole
                # time, so a half's start and drain weigh on its rate as a whole phase's did.
                length = seconds / 2 if mode == "paced" else seconds
                merged.add(
                    await phase(server, shape, mode, length, rate=paced_rate, drain_timeout=DRAIN)
                )
    return fan


#: How the feed sends its events at the realistic pace: a call each, or on a stream per table.
VIAS = ("calls", "stream")


async def realistic(server: Server, shapes: Shapes, sizes: Sizes) -> dict[str, tuple[Phase, Phase]]:
    """Events at one a second on each of the tables no one watches and on as many tables with
    their watchers, sent as calls (ExposeCard, NewShoe) and on a stream per table (Feed), in
    turns (which goes first alternates, so all four see the same machine): for each way, the
    unwatched and the watched phases, each merged over the turns."""
    merged = {via: (Phase(), Phase()) for via in VIAS}
    order = 0
    for turn in range(sizes.realistic_turns):
        for via in VIAS if turn % 2 == 0 else reversed(VIAS):
            server.streamed = via == "stream"
            quiet, busy = merged[via]
            pair = ((quiet, shapes.quiet), (busy, shapes.realistic))
            order += 1
            for into, tables in pair if order % 2 else reversed(pair):
                watched = sum(tables.values())
                print(
                    f"realistic pace, {server.name}, {via}, {watched:,} watchers, "
                    f"turn {turn + 1} ...",
                    file=sys.stderr,
                    flush=True,
                )
                if server.streamed and server.open_stream is not None:
                    # Streams open before their phase, as a feed's stay open all day: what
                    # is measured is an event on an open stream, as a call on an open channel.
                    await gather_limited(server.open_stream(t) for t in tables)
                into.add(await realistic_phase(server, tables, sizes, via))
    server.streamed = False
    return merged


async def realistic_phase(server: Server, tables: dict[str, int], sizes: Sizes, via: str) -> Phase:
    """One phase at the realistic pace; for the service's calls, with the server's own
    histogram of their handling (read between phases, outside their CPU and time windows; a
    page of many tables is reused for a second, which each phase outlasts)."""
    histogram = bool(server.metrics_url) and via == "calls"
    before = feed_buckets(server.metrics_url) if histogram else Counter()
    one = await phase(server, tables, "realistic", sizes.realistic_seconds, rate=1.0)
    if not histogram:
        one.handled_read = False
        return one
    one.handled = feed_buckets(server.metrics_url) - before
    calls = one.sent + sum(one.feed_errors.values())
    if one.handled.get(math.inf, 0) != calls:  # not the phase's calls: a stale page
        print(f"handling histogram: {one.handled} for {calls} calls", file=sys.stderr)
        one.handled_read = False
    return one


def burst(server: Server, count: int, args: argparse.Namespace, decoder: str) -> dict[str, Any]:
    """``count`` WatchTable opens at once (no limit on calls in flight): how each fared."""
    print(f"burst of {count:,} opens, {server.name} ...", file=sys.stderr, flush=True)
    watchers = Watchers(
        __file__, server.target, server.watch, [("burst", count)],
        procs=args.procs, channels=args.channels, decode=decoder,
        open_concurrency=0, open_timeout=30.0,
    )  # fmt: skip
    try:
        return watchers.opened()
    finally:
        watchers.stop()


async def scale(args: argparse.Namespace, sizes: Sizes) -> dict[str, Any]:
    out: list[str] = []
    results: dict[str, Any] = {"lines": out}
    decoder, lines = choose_decoder()
    out += lines
    process = start_server("--log-level=WARNING")
    memory_process = start_server("--log-level=WARNING", "--data-dir=:memory:")
    payload = len(hilo_state("bench-unary", 9).SerializeToString())
    bare_child = Child(
        [sys.executable, __file__, f"--bare-server={payload}", f"--bare-loop={args.bare_loop}"]
    )
    servers: list[Server] = []
    try:
        service = real_server(process)
        servers = [service, bare_server(bare_child, bare_child.reply(30))]
        print("unary round trips ...", file=sys.stderr, flush=True)
        memory = real_server(memory_process)
        try:
            out += ["", *await unary(service, servers[1], memory, sizes.calls)]
        finally:
            await memory.channel.close()
            memory_process.stop()
        shapes = Shapes.of(sizes)
        for server in servers:
            await gather_limited(server.open_table(t) for t, _ in shapes.streams())
            await server.open_table("burst")

        results["opened"] = open_watchers(servers, shapes, args, decoder)
        results["fan"] = await fan_outs(servers, shapes, sizes)
        results["realistic"] = {s.name: await realistic(s, shapes, sizes) for s in servers}
        results["ended"] = {}
        for server in servers:
            assert server.watchers is not None
            results["ended"][server.name] = server.watchers.stop()
            server.watchers = None
        results["burst"] = {s.name: burst(s, sizes.burst, args, decoder) for s in servers}
    finally:
        for server in servers:
            if server.watchers is not None:
                server.watchers.stop()
            if server.end_streams is not None:
                await asyncio.wait_for(server.end_streams(), CALL_TIMEOUT)
            await server.channel.close()
        process.stop()
        memory_process.stop()
        bare_child.stop()
    return results


def report(results: dict[str, Any], sizes: Sizes, goals: Goals, plot: str | None) -> list[str]:
    fan: dict[tuple[str, str, str], Phase] = results["fan"]
    labels = list(dict.fromkeys(label for label, _, _ in fan))
    out = [
        *results["lines"],
        *report_fan(fan, labels, goals),
        *report_feed(results, sizes, goals),
        *report_memory(results, sizes, goals),
    ]
    if plot:
        draw(fan, labels, plot)
        out += ["", f"Plot: {plot}"]
    return out


def report_fan(
    fan: dict[tuple[str, str, str], Phase], labels: list[str], goals: Goals
) -> list[str]:
    out = [
        "",
        "Fan-out: delivered updates/s, card-to-watcher latency (feed send -> watcher arrival) "
        "and server CPU per delivered message, each as service / bare (ratio); the watcher "
        "processes' CPU per message (service run) for scale; steal: the share of the VM's CPU "
        "time its host took during the service's / the bare server's halves:",
        "",
        "| watchers | feed | events sent | delivered/s | p50 | p99 | server CPU µs/msg "
        "| server CPU, cores | client CPU µs/msg | steal |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label in labels:
        for mode in ("paced", "flat"):
            s, b = fan[label, mode, "service"], fan[label, mode, "bare"]
            out.append(
                f"| {label} | {mode} | {s.sent:,} / {b.sent:,} "
                f"| {_pair(s.rate, b.rate, '{:,.0f}')} "
                f"| {_pair(s.latency(0.5) * 1e3, b.latency(0.5) * 1e3, '{:.1f} ms')} "
                f"| {_pair(s.latency(0.99) * 1e3, b.latency(0.99) * 1e3, '{:.1f} ms')} "
                f"| {_pair(s.cpu_us, b.cpu_us, '{:.0f}')} | {s.busy:.2f} / {b.busy:.2f} "
                f"| {s.client_us:.0f} | {s.stolen.share:.0%} / {b.stolen.share:.0%} |"
            )
            if mode == "flat":
                ratio = s.rate / b.rate if b.rate else 0.0
                goals.check(f"delivered/s, {label}, flat out / bare", ratio, ratio >= 1.0, "≥ 1.0×")
            ratio = s.latency(0.99) / b.latency(0.99)
            goals.check(f"p99, {label}, {mode} / bare", ratio, ratio <= 1.0, "≤ 1.0×")
    skipped = [
        f"{label} {mode} {name}: {p.expected - p.deliveries:,} of {p.expected:,}"
        for (label, mode, name), p in fan.items()
        if p.expected > p.deliveries
    ]
    out += [
        "",
        "Updates a watcher never received (the service keeps only the newest state per "
        f"watcher; the bare server drops the oldest of {QUEUE} queued): "
        + ("; ".join(skipped) if skipped else "none."),
    ]
    behind = [f"{k[0]} {k[1]} {k[2]}: {p.behind}" for k, p in fan.items() if p.behind]
    if behind:
        out.append("Streams not caught up when a phase's drain timed out: " + "; ".join(behind))
    failed = [
        f"{k[0]} {k[1]} {k[2]}: {_codes(p.feed_errors)}" for k, p in fan.items() if p.feed_errors
    ]
    if failed:
        out.append("Feed calls that failed (that table's feed stopped): " + "; ".join(failed))
    return out


def report_feed(results: dict[str, Any], sizes: Sizes, goals: Goals) -> list[str]:
    out: list[str] = []

    real_t, real_n = sizes.realistic
    out += [
        "",
        f"Feed acknowledgement at a realistic pace ({real_t} tables, one event a second each, "
        f"jittered; {sizes.realistic_turns} turns of {sizes.realistic_seconds:.0f} s each on "
        f"{real_t} unwatched tables and on {real_t} watched ones, the events sent as calls "
        "(ExposeCard, NewShoe) and on a Feed stream per table, the order alternating; each "
        "server on its own in turn):",
        "",
        "| server | events as | watchers | events | p50 | p99 | p99 / unwatched "
        "| in the handler: p50 / p99 | server CPU, cores | steal |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    feed_errors: Counter[str] = Counter()
    for name, vias in results["realistic"].items():
        for via, (idle, busy) in vias.items():
            feed_errors += idle.feed_errors + busy.feed_errors
            ratio = busy.ack(0.99) / idle.ack(0.99)
            for watched, one in (("0", idle), (f"{real_n:,} ({real_n // real_t} per table)", busy)):
                share = f"{ratio:.2f}×" if one is busy else ""
                out.append(
                    f"| {name} | {via} | {watched} | {one.sent:,} | {ms(one.ack(0.5))} "
                    f"| {ms(one.ack(0.99))} | {share} | {_handled(one)} | {one.busy:.2f} "
                    f"| {one.stolen.share:.0%} |"
                )
            if name == "service":
                what = "ExposeCard" if via == "calls" else "Feed stream"
                goals.check(f"{what} p99, {real_n:,} watchers / none", ratio, ratio <= 3.0, "≤ 3×")
    service = results["realistic"]["service"]
    out += [
        "",
        "(in the handler: the server's own `grpc_server_handling_seconds` for the same calls, "
        "as bucket bounds, from the handler's call to its return, its request already read "
        "and decoded: the journal's commit and the publish are in it; the rest of an "
        "acknowledgement is gRPC's way to the handler and back through the event loop, and the "
        "client's. A stream's events have no histogram of their own: n/a)",
        "",
        f"(with {real_n:,} watchers, card-to-watcher on the service: "
        + "; ".join(
            f"{via}: p50 {ms(busy.latency(0.5))}, p99 {ms(busy.latency(0.99))}, "
            f"{busy.deliveries:,} of {busy.expected:,} delivered"
            for via, (_, busy) in service.items()
        )
        + ")",
    ]

    out += ["", f"Burst of {sizes.burst:,} WatchTable opens at once:", ""]
    out += ["| server | served | refused | lost |", "|---|---|---|---|"]
    lost_service = 0
    for name, b in results["burst"].items():
        failed: Counter[str] = b["failed"]
        refused = {c: n for c, n in failed.items() if c in ("RESOURCE_EXHAUSTED", "UNAVAILABLE")}
        lost = {c: n for c, n in failed.items() if c not in refused}
        if b["waiting"]:
            lost["no first message in 30 s"] = b["waiting"]
        if name == "service":
            lost_service = sum(lost.values())
        out.append(f"| {name} | {b['served']:,} | {_codes(refused)} | {_codes(lost)} |")
    goals.check("burst opens lost", lost_service, lost_service == 0, "0")

    ended = results["ended"]
    out += [
        "",
        "Streams that ended or failed during the run (before the benchmark stopped them): "
        + ", ".join(f"{name}: {_codes(c)}" for name, c in ended.items()),
    ]
    if feed_errors:
        out.append(f"Feed events that failed at the realistic pace: {_codes(feed_errors)}")
    dropped = sum(ended["service"].values())
    goals.check("service streams ended or failed", dropped, dropped == 0, "0")

    return out


def report_memory(results: dict[str, Any], sizes: Sizes, goals: Goals) -> list[str]:
    out: list[str] = []
    opened = results["opened"]
    s_open, b_open = opened["service"], opened["bare"]
    out += [
        "",
        "Memory (server RSS deltas) and metrics scrape:",
        "",
        "| what | service | bare | goal |",
        "|---|---|---|---|",
        f"| per open idle watcher ({s_open['served']:,} streams) | "
        f"{s_open['per_watcher'] / KIB:.1f} KiB | {b_open['per_watcher'] / KIB:.1f} KiB | "
        "≤ 12 KiB |",
    ]
    per_watcher = s_open["per_watcher"] / KIB
    goals.check("RSS KiB per watcher", per_watcher, per_watcher <= 12, "≤ 12")
    if s_open["failed"] or s_open["waiting"]:
        out.append(f"| watchers not opened | {_codes(s_open['failed'])}, waiting "
                   f"{s_open['waiting']} | | |")  # fmt: skip
    for game, limit in (("Hi-Lo", 4), ("blackjack", 6)):
        t = results["tables"][game]
        out.append(
            f"| per idle {game} table ({sizes.idle_tables:,}; {t['opens_per_s']:,.0f} opens/s) "
            f"| {t['per_table'] / KIB:.2f} KiB | | ≤ {limit} KiB |"
        )
        out.append(
            f"| metrics scrape, {sizes.idle_tables:,} {game} tables: first / again | "
            f"{ms(t['scrape'])} / {ms(t['scrape_again'])}, {t['size'] / KIB:,.0f} KiB | | "
            "first < 200 ms |"
        )
        per_table = t["per_table"] / KIB
        goals.check(f"RSS KiB per {game} table", per_table, per_table <= limit, f"≤ {limit}")
        goals.check(f"scrape ms, {game} tables", t["scrape"] * 1e3, t["scrape"] < 0.2, "< 200")
    return out


def _pair(service: float, bare: float, form: str) -> str:
    ratio = service / bare if bare else float("nan")
    return f"{form.format(service)} / {form.format(bare)} ({ratio:.2f}×)"


def _handled(phase: Phase) -> str:
    if not phase.handled_read:
        return "n/a"
    return f"≤ {ms(phase.handling(0.5))} / ≤ {ms(phase.handling(0.99))}"


def _codes(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {c}" for c, n in sorted(counts.items())) or "0"


def draw(fan: dict[tuple[str, str, str], Phase], labels: list[str], path: str) -> None:
    import matplotlib  # noqa: PLC0415 - the [plot] extra, imported only to draw

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    one = [label for label in labels if label.endswith("on 1 table")]
    xs = [int(label.split()[0].replace(",", "")) for label in one]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colours = {"service": "tab:blue", "bare": "tab:orange"}
    for mode, style in (("paced", "--o"), ("flat", "-s")):
        for name, colour in colours.items():
            ys = [fan[label, mode, name].latency(0.99) * 1e3 for label in one]
            label = f"{name if name == 'service' else 'bare grpc.aio'}, feed {mode}"
            ax.plot(xs, ys, style, color=colour, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(xs, [f"{x:,}" for x in xs])
    ax.set_xlabel("watchers of one table")
    ax.set_ylabel("card-to-watcher p99 (ms)")
    ax.set_title("Fan-out latency: the service against a bare grpc.aio server (same run)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Client load runs on the same machine; compare the ratios, not the figures.",
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes: a ~1 minute smoke run")
    parser.add_argument("--procs", type=int, default=2, help="watcher processes per server")
    parser.add_argument("--channels", type=int, default=4, help="channels per watcher process")
    parser.add_argument(
        "--plot",
        help="where to draw the p99 plot (default: docs/fanout-latency.png, none with --quick)",
    )
    parser.add_argument(
        "--bare-loop",
        choices=LOOPS,
        default="asyncio",
        help="the bare server's event loop (the service runs its default, uvloop if installed; "
        "plain grpc.aio code runs asyncio's own)",
    )
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--watcher", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server is not None:
        with asyncio.Runner(loop_factory=eventloop.factory(args.bare_loop)) as runner:
            runner.run(serve_bare(args.bare_server))
        return 0
    if args.watcher is not None:
        asyncio.run(watcher_main(json.loads(args.watcher)))
        return 0
    sizes = QUICK if args.quick else FULL
    plot = args.plot or (None if args.quick else str(ROOT / "docs" / "fanout-latency.png"))
    goals = Goals()
    t0 = time.monotonic()
    print(
        f"python {sys.version.split()[0]}, grpcio {grpc.__version__}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}; event loops: service {eventloop.default()}, "
        f"bare {args.bare_loop}; {args.procs} watcher processes x {args.channels} channels per "
        f"server{' (--quick)' if args.quick else ''}"
    )
    results = asyncio.run(asyncio.wait_for(scale(args, sizes), RUN_TIMEOUT))
    print("idle tables ...", file=sys.stderr, flush=True)
    results["tables"] = {
        "Hi-Lo": idle_tables(pb.GAME_HILO, sizes.idle_tables),
        "blackjack": idle_tables(pb.GAME_BLACKJACK, sizes.idle_tables),
    }
    lines = report(results, sizes, goals, plot)
    print("\n".join(lines))
    print("\nGoals (ratios in this run):\n\n| goal | value | target | verdict |\n|---|---|---|---|")
    print("\n".join(goals.lines))
    print(f"\n{len(goals.missed)} goals missed; {time.monotonic() - t0:.0f} s in all.")
    return 1 if goals.missed else 0


if __name__ == "__main__":
    sys.exit(main())
