"""Reads never stall the feed: ExposeCard's latency with the server idle, then while other
clients loop the largest Quote the limits allow and scrape the metrics page of 10,000 tables.

    .venv/bin/python bench/reads_vs_feed.py [--tables 10000] [--calls 2000] [--quoters 3]

The goal: ExposeCard's p99 under that load within 3x of its idle p99 (ratios in one run).
Also: the server's RSS after 100 rejected maximal requests within 50 MB of before.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT

sys.path.insert(0, str(ROOT))
from pricing.cards import DECK
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.server import start_server

GOAL = 3.0
MIB = 1024 * 1024


def percentiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {"p50": s[len(s) // 2], "p90": s[len(s) * 9 // 10], "p99": s[len(s) * 99 // 100]}


def timed(call: Callable[[], object], n: int) -> list[float]:
    """Seconds each of ``n`` calls took, after a warm-up."""
    for _ in range(min(200, n)):
        call()
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def largest_quote() -> pb.QuoteRequest:
    """8 decks with 415 cards seen and the dealer's Ace up: the most cards a Quote may carry
    (the shoe's 416), with every side bet, insurance and the dealer's outcomes to compute."""
    shoe = [str(card) for card in DECK] * 8
    exposed = [c for c in shoe if c != "AS"][:415]
    return pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=exposed, dealer_up_card="AS")


def quoter(target: str, stop: multiprocessing.synchronize.Event) -> None:
    stub = pb_grpc.PricingServiceStub(grpc.insecure_channel(target))
    request = largest_quote()
    while not stop.is_set():
        stub.Quote(request, timeout=30)


def scraper(metrics_port: int, stop: multiprocessing.synchronize.Event) -> None:
    url = f"http://127.0.0.1:{metrics_port}/metrics"
    while not stop.is_set():
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()


class Feed:
    """A Hi-Lo dealer feed dealing deck after deck: 5 burns, 10 results, a new shoe."""

    def __init__(self, target: str, table_id: str) -> None:
        self.stub = pb_grpc.DealerServiceStub(grpc.insecure_channel(target))
        self.table_id = table_id
        self.stub.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
        self.seq = 0
        self.dealt = 0

    def expose(self) -> None:
        self.seq += 1
        if self.dealt == 15:
            self.stub.NewShoe(pb.NewShoeRequest(table_id=self.table_id, seq=self.seq))
            self.dealt = 0
            return
        role = pb.CARD_ROLE_BURN if self.dealt < 5 else pb.CARD_ROLE_RESULT
        card = str(DECK[self.dealt])
        self.stub.ExposeCard(
            pb.ExposeCardRequest(table_id=self.table_id, seq=self.seq, card=card, role=role)
        )
        self.dealt += 1


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def rss_after_rejections(target: str, pid: int) -> float:
    """MiB the server grew by answering 100 Quotes of 900,000 cards (3.6 MB each)."""
    pricing = pb_grpc.PricingServiceStub(grpc.insecure_channel(target))
    huge = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=["AS"] * 900_000)
    before = rss(pid)
    for _ in range(100):
        try:
            pricing.Quote(huge, timeout=30)
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return (rss(pid) - before) / MIB


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--tables", type=int, default=10_000)
    p.add_argument("--calls", type=int, default=2_000)
    p.add_argument("--quoters", type=int, default=3)
    p.add_argument("--scrapers", type=int, default=1)
    args = p.parse_args()
    data_dir = tempfile.mkdtemp(prefix="reads-vs-feed-")  # a real journal: writes are durable
    server = start_server("--log-level=WARNING", f"--data-dir={data_dir}", "--max-tables=20000")
    proc, target, metrics_port = server.proc, server.target, server.metrics_port
    try:
        dealer = pb_grpc.DealerServiceStub(grpc.insecure_channel(target))
        t0 = time.perf_counter()
        for i in range(args.tables - 1):  # blackjack: each table adds its side-bet series
            dealer.OpenTable(pb.OpenTableRequest(table_id=f"t{i}", game=pb.GAME_BLACKJACK))
        feed = Feed(target, "feed")
        opened = time.perf_counter() - t0
        url = f"http://127.0.0.1:{metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=60) as response:
            page = len(response.read())
        print(f"{args.tables} tables opened in {opened:.1f} s; metrics page {page / 1024:.0f} KiB")

        idle = percentiles(timed(feed.expose, args.calls))

        stop = multiprocessing.Event()
        workers = [
            multiprocessing.Process(target=quoter, args=(target, stop)) for _ in range(args.quoters)
        ] + [
            multiprocessing.Process(target=scraper, args=(metrics_port, stop))
            for _ in range(args.scrapers)
        ]
        for w in workers:
            w.start()
        time.sleep(1.0)  # the load is under way
        loaded = percentiles(timed(feed.expose, args.calls))
        stop.set()
        for w in workers:
            w.join(timeout=30)

        def row(name: str, s: dict[str, float]) -> str:
            return (
                f"  {name:<34} p50 {s['p50'] * 1e3:7.2f} ms  p90 {s['p90'] * 1e3:7.2f} ms  "
                f"p99 {s['p99'] * 1e3:7.2f} ms"
            )

        print(f"ExposeCard, {args.calls} calls each:")
        print(row("idle", idle))
        print(row(f"{args.quoters} quoters + {args.scrapers} metrics scraper(s)", loaded))
        ratio = loaded["p99"] / idle["p99"]
        verdict = "ok" if ratio <= GOAL else f"ABOVE GOAL {GOAL:.0f}x"
        print(f"  p99 loaded / idle = {ratio:.2f}x  (goal <= {GOAL:.0f}x): {verdict}")

        grown = rss_after_rejections(target, proc.pid)
        print(f"RSS after 100 rejected 3.6 MB Quotes: {grown:+.1f} MiB (goal within 50 MiB)")
        return 0 if ratio <= GOAL and grown < 50 else 1
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
