"""Service latency, as ratios against a bare gRPC server measured in the same run.

Starts two server processes on free loopback ports: the real one (``server.py``) and a bare
grpc.aio server whose one unary method returns a fixed payload the size of a Hi-Lo
``TableState`` (no interceptor, no work). Then, from one client process:

1. unary round trips, sequential: bare echo vs GetTable, Quote, ExposeCard (0 watchers);
2. publish latency: ExposeCard sent -> every one of N watchers has the new state (asyncio
   client, N = 1, 10, 100), and the server's own ``pricing_publish_seconds`` mean.

Run: ``make bench`` or ``.venv/bin/python bench/service.py [--calls 2000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import grpc
import grpc.aio
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pricing.cards import DECK  # noqa: E402
from pricing.v1 import pricing_pb2 as pb  # noqa: E402
from pricing.v1 import pricing_pb2_grpc as pb_grpc  # noqa: E402

BARE_METHOD = "/bench.Bare/Echo"


async def _bare_server(payload_size: int) -> None:
    payload = b"x" * payload_size

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:  # type: ignore[type-arg]
        return payload

    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.Bare",
        {
            "Echo": grpc.unary_unary_rpc_method_handler(
                echo, request_deserializer=None, response_serializer=None
            )
        },
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(json.dumps({"event": "ready", "grpc_port": port, "metrics_port": 0}), flush=True)
    await server.wait_for_termination()


def start(command: list[str]) -> tuple[subprocess.Popen[str], dict[str, int]]:
    proc = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"{command} exited before it was ready")
        if line.startswith("{") and json.loads(line).get("event") == "ready":
            return proc, json.loads(line)


def percentiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {
        "p50": s[len(s) // 2],
        "p90": s[len(s) * 9 // 10],
        "p99": s[len(s) * 99 // 100],
        "mean": statistics.fmean(s),
    }


def timed(call: object, n: int) -> list[float]:
    assert callable(call)
    for _ in range(min(200, n)):  # warm-up
        call()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def us(x: float) -> str:
    return f"{x * 1e6:7.0f} µs"


def unary(target: str, bare_target: str, calls: int) -> float:
    channel = grpc.insecure_channel(target)
    bare_channel = grpc.insecure_channel(bare_target)
    dealer = pb_grpc.DealerServiceStub(channel)
    pricing = pb_grpc.PricingServiceStub(channel)
    echo = bare_channel.unary_unary(BARE_METHOD)
    dealer.OpenTable(pb.OpenTableRequest(table_id="bench-unary", game=pb.HILO))

    seq = 0
    rng = random.Random(1)
    cards: list[str] = []

    def expose() -> None:
        nonlocal seq, cards
        if not cards:
            if seq:
                seq += 1
                dealer.NewShoe(pb.NewShoeRequest(table_id="bench-unary", seq=seq))
            cards = [str(c) for c in DECK]
            rng.shuffle(cards)
            cards = cards[:15]
            cards.reverse()
        seq += 1
        role = pb.BURN if len(cards) > 10 else pb.RESULT
        dealer.ExposeCard(
            pb.ExposeCardRequest(table_id="bench-unary", seq=seq, card=cards.pop(), role=role)
        )

    quote_request = pb.QuoteRequest(game=pb.HILO, exposed=["7H", "KS", "2D", "9C", "QH"])
    get_request = pb.GetTableRequest(table_id="bench-unary")
    rows = {
        "bare echo (baseline)": timed(lambda: echo(b""), calls),
        "GetTable": timed(lambda: pricing.GetTable(get_request), calls),
        "Quote (5 cards seen)": timed(lambda: pricing.Quote(quote_request), calls),
        "ExposeCard (0 watchers)": timed(expose, calls),
    }
    base = percentiles(rows["bare echo (baseline)"])["p50"]
    print(f"\nUnary round trips, sequential, {calls} calls each (loopback, one client):")
    print(f"  {'call':<26} {'p50':>10} {'p90':>10} {'p99':>10}   p50 / bare")
    for name, samples in rows.items():
        p = percentiles(samples)
        print(
            f"  {name:<26} {us(p['p50'])} {us(p['p90'])} {us(p['p99'])}   {p['p50'] / base:5.2f}x"
        )
    channel.close()
    bare_channel.close()
    return base


async def fan_out(target: str, watchers: int, cards: int, base: float) -> None:
    table = f"bench-fan-{watchers}"
    channels = [grpc.aio.insecure_channel(target) for _ in range(min(watchers, 8))]
    dealer = pb_grpc.DealerServiceStub(channels[0])
    await dealer.OpenTable(pb.OpenTableRequest(table_id=table, game=pb.HILO))
    arrived: dict[int, int] = {}
    done: dict[int, asyncio.Event] = {}
    ready = asyncio.Event()
    subscribed = 0

    async def watch(i: int) -> None:
        nonlocal subscribed
        stub = pb_grpc.PricingServiceStub(channels[i % len(channels)])
        async for state in stub.WatchTable(pb.WatchTableRequest(table_id=table)):
            if state.version == 1:
                subscribed += 1
                if subscribed == watchers:
                    ready.set()
                continue
            arrived[state.version] = arrived.get(state.version, 0) + 1
            if arrived[state.version] == watchers:
                done[state.version].set()

    tasks = [asyncio.create_task(watch(i)) for i in range(watchers)]
    await asyncio.wait_for(ready.wait(), 30)
    rng = random.Random(watchers)
    samples = []
    seq = 0
    while seq < cards:
        deck = [str(c) for c in DECK]
        rng.shuffle(deck)
        for i, card in enumerate(deck[:15]):
            seq += 1
            version = seq + 1
            done[version] = asyncio.Event()
            t0 = time.perf_counter()
            await dealer.ExposeCard(
                pb.ExposeCardRequest(
                    table_id=table, seq=seq, card=card, role=pb.BURN if i < 5 else pb.RESULT
                )
            )
            await done[version].wait()
            samples.append(time.perf_counter() - t0)
        seq += 1
        done[seq + 1] = asyncio.Event()
        await dealer.NewShoe(pb.NewShoeRequest(table_id=table, seq=seq))
        await done[seq + 1].wait()
    for task in tasks:
        task.cancel()
    for channel in channels:
        await channel.close()
    p = percentiles(samples)
    print(
        f"  {watchers:>4} watchers  {us(p['p50'])} {us(p['p90'])} {us(p['p99'])}   "
        f"{p['p50'] / base:6.2f}x"
    )


def publish_mean(metrics_port: int) -> tuple[float, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics") as r:
        text = r.read().decode()
    values = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name in ("pricing_publish_seconds_sum", "pricing_publish_seconds_count"):
                values[s.name] = s.value
            if s.name == "pricing_compute_seconds_sum" and s.labels.get("game") == "HILO":
                values["compute_sum"] = s.value
            if s.name == "pricing_compute_seconds_count" and s.labels.get("game") == "HILO":
                values["compute_count"] = s.value
    return (
        values["pricing_publish_seconds_sum"] / values["pricing_publish_seconds_count"],
        values["compute_sum"] / values["compute_count"],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="unary calls per row")
    parser.add_argument("--cards", type=int, default=300, help="cards per fan-out row")
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_server is not None:
        asyncio.run(_bare_server(args.bare_server))
        return 0

    data_dir = tempfile.mkdtemp(prefix="bench-service-")  # the real journal, as deployed
    server, ready = start(
        [
            sys.executable,
            "server.py",
            "--port=0",
            "--metrics-port=0",
            "--log-level=WARNING",
            f"--data-dir={data_dir}",
        ]
    )
    target = f"127.0.0.1:{ready['grpc_port']}"
    # The bare server answers with as many bytes as a Hi-Lo TableState in betting.
    prices = [
        pb.BetPrice(
            bet=b, wins=20, remaining=45, probability=0.44, payout_hundredths=113, open=True
        )
        for b in ("LOW", "HIGH", "ODD", "EVEN", "SEVEN")
    ]
    state = pb.TableState(
        table_id="bench-unary", game=pb.HILO, version=9, shoe=1, phase=pb.BETTING,
        exposed=["7H", "KS", "2D", "9C", "QH", "3C", "8D"], cards_remaining=45, prices=prices,
    )  # fmt: skip
    size = len(state.SerializeToString())
    bare, bare_ready = start([sys.executable, __file__, f"--bare-server={size}"])
    try:
        print(f"python {sys.version.split()[0]}, grpcio {grpc.__version__}, {os.cpu_count()} cores")
        base = unary(target, f"127.0.0.1:{bare_ready['grpc_port']}", args.calls)
        print(
            f"\nPublish: ExposeCard sent -> all N watchers hold the new version "
            f"({args.cards} cards per row; watchers in the client process):"
        )
        print(f"  {'':<14} {'p50':>10} {'p90':>10} {'p99':>10}   p50 / bare unary")
        for n in (1, 10, 100):
            asyncio.run(fan_out(target, n, args.cards, base))
        publish, compute = publish_mean(ready["metrics_port"])
        print(
            f"\nServer side, all rows: engine fold + pricing per event {us(compute)} mean; "
            f"serialise once + hand to every slot {us(publish)} mean "
            "(pricing_compute_seconds, pricing_publish_seconds)."
        )
    finally:
        for proc in (server, bare):
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
