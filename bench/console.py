"""What open console pages cost the dealer feed: ExposeCard's acknowledgement on busy Hi-Lo
tables of a server with ``PAGES`` table pages open (each a server-sent event stream read by a
client in another process) against a server with none, in the same run.

Two servers, each with ``TABLES`` Hi-Lo tables; the same cards go to both, in blocks of
``BLOCK`` taken back to back by one server then the other (the order alternating, so the
machine's load falls on both alike), and every card's answer time is measured. The pages'
reader is a separate process (aiohttp's client, reading every event), as browsers are. The goal: the
acknowledgement's 99th percentile with the pages open within 1.2 times the one without.

With ``--tables 1000 --pages 0 --lobbies 10`` it measures the lobby instead: ten lobby pages
open on a floor of a thousand tables, whose rows are made again once a second.

Run from the repository root:
``.venv/bin/python bench/console.py [--cards N] [--pages N] [--lobbies N] [--tables N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time

import _harness  # noqa: F401  (the repository root on sys.path)
from _live import cpu_seconds, rss_bytes

from pricing.cards import DECK
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess, start_server

GOAL = 1.2
TABLES = 5
#: Cards a server takes back to back before the other takes the same ones.
BLOCK = 50
#: A Hi-Lo deck: 5 opening burns, then 10 results (docs/rules.md §1).
BURNS = 5
DEALT = 15
SEED = 20261207

#: The pages' reader: one process, every stream read to its end (run with the URLs).
READER = r"""
import asyncio, signal, sys
import aiohttp

async def page(session, url, counts, i):
    async with session.get(url, timeout=aiohttp.ClientTimeout(total=None)) as response:
        tail = b""
        async for chunk in response.content.iter_any():  # counted, not parsed: cheap
            seen = tail + chunk
            counts[i] += seen.count(b"\ndata:") - tail.count(b"\ndata:")
            tail = seen[-6:]

async def main(urls):
    counts = [0] * len(urls)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with aiohttp.ClientSession() as session:
        tasks = [asyncio.create_task(page(session, u, counts, i)) for i, u in enumerate(urls)]
        print("open", flush=True)
        await stop.wait()
        for task in tasks:
            task.cancel()
    print(sum(counts), min(counts), flush=True)

asyncio.run(main(sys.argv[1:]))
"""


class Server:
    """A server with ``TABLES`` Hi-Lo tables, and its cards' acknowledgement times."""

    def __init__(self, name: str, tables: int) -> None:
        self.name = name
        # one client opens every page at once: no rate limit for it
        self.process: ServerProcess = start_server(
            "--console-port=0", "--console-max-requests-per-second=1e5"
        )
        self.stub = self.process.dealer()
        self.seq = {f"t{k}": 0 for k in range(tables)}
        for table in self.seq:
            self.stub.OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        self.acks: list[float] = []

    def card(self, table: str, card: str, role: pb.CardRole.ValueType) -> None:
        self.seq[table] += 1
        request = pb.ExposeCardRequest(table_id=table, seq=self.seq[table], card=card, role=role)
        start = time.perf_counter()
        self.stub.ExposeCard(request)
        self.acks.append(time.perf_counter() - start)

    def new_shoe(self, table: str) -> None:
        self.seq[table] += 1
        self.stub.NewShoe(pb.NewShoeRequest(table_id=table, seq=self.seq[table]))


def deal(cards: int, tables: int) -> list[tuple[str, str | None, pb.CardRole.ValueType]]:
    """``cards`` cards dealt round the tables in turn, seeded: (table, card, role), or
    (table, None, _) for a new shoe."""
    rng = random.Random(SEED)
    decks: dict[str, list[str]] = {}
    dealt: list[tuple[str, str | None, pb.CardRole.ValueType]] = []
    for n in range(cards):
        table = f"t{n % tables}"
        deck = decks.get(table)
        if not deck or len(deck) == len(DECK) - DEALT:  # a deck's 5 burns and 10 results
            if deck is not None:
                dealt.append((table, None, pb.CARD_ROLE_BURN))
            deck = decks[table] = [str(c) for c in DECK]
            rng.shuffle(deck)
        role = pb.CARD_ROLE_BURN if len(deck) > len(DECK) - BURNS else pb.CARD_ROLE_RESULT
        dealt.append((table, deck.pop(), role))
    return dealt


def quantile(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100)[int(q * 100) - 1] if q < 1 else max(xs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=2000, help="cards fed to each server")
    parser.add_argument("--pages", type=int, default=50, help="table pages open on the busy server")
    parser.add_argument("--lobbies", type=int, default=0, help="lobby pages open on it")
    parser.add_argument("--tables", type=int, default=TABLES, help="Hi-Lo tables on each server")
    args = parser.parse_args()
    tables = args.tables
    opened = f"{args.pages} pages" + (f" and {args.lobbies} lobbies" if args.lobbies else "")
    quiet, busy = Server("none", tables), Server(opened, tables)
    urls = [
        busy.process.console_url(f"/api/tables/t{k % tables}/events") for k in range(args.pages)
    ] + [busy.process.console_url("/api/lobby/events") for _ in range(args.lobbies)]
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, *urls], stdout=subprocess.PIPE, text=True
    )
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "open"
        pids = {server.name: server.process.proc.pid for server in (quiet, busy)}
        cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
        dealt = deal(args.cards, tables)
        for start in range(0, len(dealt), BLOCK):
            # each server takes a block of cards back to back, so that what a card sets off
            # (the pages' states) overlaps its next card on the same server, not the other
            # server's turn; the order alternates, so the machine's drift falls on both alike
            first = (busy, quiet) if start // BLOCK % 2 else (quiet, busy)
            for server in first:
                for table, card, role in dealt[start : start + BLOCK]:
                    if card is None:
                        server.new_shoe(table)
                    else:
                        server.card(table, card, role)
        cpu = {name: cpu_seconds(pid) - cpu0[name] for name, pid in pids.items()}
        rss = {name: rss_bytes(pid) for name, pid in pids.items()}
    finally:
        reader.terminate()
        events, fewest = reader.communicate()[0].split()
        for server in (quiet, busy):
            server.process.stop()
    print(f"ExposeCard acknowledgement, {args.cards} cards on {tables} Hi-Lo tables each")
    print(f"  the pages read {int(events):,} states (the fewest on one page: {int(fewest):,})")
    extra_cpu = cpu[busy.name] - cpu[quiet.name]
    extra_rss = (rss[busy.name] - rss[quiet.name]) / len(urls)
    print(
        f"  server CPU: none {cpu[quiet.name]:.2f} s, {opened} {cpu[busy.name]:.2f}"
        f" s: {extra_cpu / int(events) * 1e6:.0f} us an event sent to a page; memory "
        f"{extra_rss / 1024:.0f} KiB a page open (RSS difference)"
    )
    ratios = []
    for q in (0.5, 0.99):
        a, b = quantile(quiet.acks, q), quantile(busy.acks, q)
        ratios.append(b / a)
        print(
            f"  p{int(q * 100)}: none {a * 1e3:.3f} ms, {opened} "
            f"{b * 1e3:.3f} ms: {b / a:.2f}x (goal <= {GOAL}x)"
        )
    return 0 if ratios[-1] <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
