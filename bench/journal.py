"""The durable journal's cost, as ratios against the in-memory journal in the same run, and
start-up time of a large journal.

1. ExposeCard round trips through a real server process with ``--data-dir DIR`` (SQLite, WAL,
   ``synchronous=FULL``) and with ``--data-dir :memory:`` (keeps nothing), at concurrency 1
   and 32 over many Hi-Lo tables: throughput and p50/p99 latency. Goal at 32: the SQLite
   journal keeps at least 0.7x the in-memory throughput (group commit).
2. Start-up: a journal of 1,000 Hi-Lo tables x 1,000 events each (written directly, the way the
   server writes it: an image every ``--snapshot-every`` events), recovered in process
   (``TableStore.recover``) after a crash at the worst moment (every table with the longest
   tail past its image: one event short of its next one) and after a clean stop (an image of
   every table), and the real server's time from exec to its ready line. Goal: under 2 s.

Run: ``make bench`` or ``.venv/bin/python bench/journal.py [--events 4000] [--tables 1000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc.aio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pricing.cards import DECK  # noqa: E402
from pricing.games.events import CardRole, ExposeCard, NewShoe  # noqa: E402
from pricing.journal import Record  # noqa: E402
from pricing.journal.codec import encode_event, encode_image  # noqa: E402
from pricing.journal.integrity import image_crc  # noqa: E402
from pricing.journal.sqlite import SqliteJournal  # noqa: E402
from pricing.server.store import DEFAULT_SNAPSHOT_EVERY, TableStore  # noqa: E402
from pricing.tables import (  # noqa: E402
    Game,
    JournalEntry,
    Snapshot,
    Table,
    TableConfig,
    TableImage,
)
from pricing.v1 import pricing_pb2 as pb  # noqa: E402
from pricing.v1 import pricing_pb2_grpc as pb_grpc  # noqa: E402


def start_server(data_dir: str) -> tuple[subprocess.Popen[str], int, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "server.py"),
            "--port=0",
            "--metrics-port=0",
            f"--data-dir={data_dir}",
            "--log-level=WARNING",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("{") and json.loads(line).get("event") == "ready":
            return proc, int(json.loads(line)["grpc_port"]), time.perf_counter() - t0
    raise SystemExit(f"server on {data_dir} exited before it was ready")


def hilo_events(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """A Hi-Lo feed: 5 burns and 10 results per deck, then a new deck."""
    events: list[tuple[str, str]] = []
    while len(events) < count:
        deck = rng.sample([str(c) for c in DECK], 15)
        events += [("BURN" if i < 5 else "RESULT", card) for i, card in enumerate(deck)]
        events.append(("NewShoe", ""))
    return events[:count]


async def round_trips(port: int, tables: int, per_table: int, concurrency: int) -> dict[str, float]:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    dealer = pb_grpc.DealerServiceStub(channel)
    prefix = f"c{concurrency}-"
    for t in range(tables):
        await dealer.OpenTable(pb.OpenTableRequest(table_id=f"{prefix}{t}", game=pb.GAME_HILO))
    feeds = [hilo_events(random.Random(t), per_table) for t in range(tables)]
    queue: asyncio.Queue[int] = asyncio.Queue()
    for t in range(tables):
        queue.put_nowait(t)
    latencies: list[float] = []

    async def worker() -> None:
        # Each worker takes a table, sends its whole feed in order, then the next table.
        while not queue.empty():
            t = queue.get_nowait()
            for seq, (kind, card) in enumerate(feeds[t], start=1):
                t0 = time.perf_counter()
                if kind == "NewShoe":
                    await dealer.NewShoe(pb.NewShoeRequest(table_id=f"{prefix}{t}", seq=seq))
                else:
                    role = pb.CARD_ROLE_BURN if kind == "BURN" else pb.CARD_ROLE_RESULT
                    await dealer.ExposeCard(
                        pb.ExposeCardRequest(table_id=f"{prefix}{t}", seq=seq, card=card, role=role)
                    )
                latencies.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - t0
    await channel.close()
    latencies.sort()
    return {
        "per_s": len(latencies) / elapsed,
        "p50": latencies[len(latencies) // 2],
        "p99": latencies[int(len(latencies) * 0.99)],
    }


def throughput(events: int) -> bool:
    print("ExposeCard round trips, one client process, Hi-Lo tables")
    results: dict[tuple[str, int], dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-journal-") as data:
        for name, data_dir in (("memory", ":memory:"), ("sqlite", data)):
            proc, port, _ = start_server(data_dir)
            try:
                for concurrency in (1, 32):
                    tables = 1 if concurrency == 1 else 64
                    per_table = events // tables
                    results[name, concurrency] = asyncio.run(
                        round_trips(port, tables, per_table, concurrency)
                    )
            finally:
                proc.terminate()
                proc.wait()
    ok = True
    for concurrency in (1, 32):
        mem, disk = results["memory", concurrency], results["sqlite", concurrency]
        ratio = disk["per_s"] / mem["per_s"]
        goal = 0.7 if concurrency == 32 else 0.0
        verdict = "" if not goal else ("ok" if ratio >= goal else f"BELOW GOAL {goal}x")
        ok &= ratio >= goal
        print(
            f"  concurrency {concurrency:>2}: sqlite {disk['per_s']:>7,.0f}/s "
            f"(p50 {disk['p50'] * 1e3:.2f} ms, p99 {disk['p99'] * 1e3:.2f} ms)  vs :memory: "
            f"{mem['per_s']:>7,.0f}/s (p50 {mem['p50'] * 1e3:.2f} ms, p99 "
            f"{mem['p99'] * 1e3:.2f} ms)  = {ratio:.2f}x  {verdict}"
        )
    return ok


# ---- start-up ------------------------------------------------------------------------------


def _renamed(image: TableImage, table_id: str) -> TableImage:
    snapshot: Snapshot = dataclasses.replace(image.snapshot, table_id=table_id)
    return dataclasses.replace(image, table_id=table_id, snapshot=snapshot)


def write_big_journal(data: Path, tables: int, events: int, *, clean: bool) -> None:
    """``tables`` Hi-Lo tables of ``events`` events, as the server would have written them:
    one table's fold, copied under every id (the fold is what recovery must not repeat)."""
    asyncio.run(SqliteJournal(data).close())  # creates the schema
    table = Table("t", TableConfig(Game.HILO), keep_journal=False)
    records = [Record("t", table.opening, 1.0)]
    images: list[TableImage] = []
    for seq, (kind, card) in enumerate(hilo_events(random.Random(7), events - 1), start=1):
        if kind == "NewShoe":
            event: ExposeCard | NewShoe = NewShoe()
        else:
            role = CardRole.BURN if kind == "BURN" else CardRole.RESULT
            event = ExposeCard(DECK[[str(c) for c in DECK].index(card)], role)
        table.apply(seq, event)
        records.append(Record("t", JournalEntry(seq, table.snapshot.version, event), 1.0))
        # Images every N versions, placed so the last one is N - 1 short of the end: a crash
        # at the worst moment, the longest tail to fold.
        if (events - table.snapshot.version) % DEFAULT_SNAPSHOT_EVERY == DEFAULT_SNAPSHOT_EVERY - 1:
            images.append(table.image())
    image = table.image() if clean else images[-1]
    encoded = [(r.entry.version, r.entry.seq, *encode_event(r.entry.event)) for r in records]
    conn = sqlite3.connect(data / "journal.sqlite3")
    conn.execute("PRAGMA journal_mode = WAL")
    with conn:
        for t in range(tables):
            table_id = f"t{t:04}"
            conn.execute("INSERT INTO tables (table_id) VALUES (?)", (table_id,))
            conn.executemany(  # the trigger records the table's last version
                "INSERT INTO events VALUES (?, ?, ?, 1.0, ?, ?)",
                [(table_id, *row) for row in encoded],
            )
            fmt, body = encode_image(_renamed(image, table_id))
            conn.execute(
                "INSERT INTO images VALUES (?, ?, 1.0, ?, ?, ?)",
                (table_id, image.snapshot.version, fmt, body, image_crc(fmt, body)),
            )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def startup(tables: int, events: int) -> bool:
    print(f"Start-up with {tables:,} Hi-Lo tables x {events:,} events")
    ok = True
    for clean in (False, True):
        with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
            data = Path(tmp)
            write_big_journal(data, tables, events, clean=clean)
            size = (data / "journal.sqlite3").stat().st_size
            journal = SqliteJournal(data)
            store = TableStore(journal)
            recovery = store.recover()
            asyncio.run(journal.close())
            proc, _, ready = start_server(str(data))
            proc.terminate()
            proc.wait()
        case = "after a clean stop" if clean else "after kill -9   "
        verdict = "ok" if ready < 2.0 else "BELOW GOAL 2 s"
        ok &= ready < 2.0
        print(
            f"  {case}: recover {recovery.seconds:.2f} s ({recovery.tables:,} tables, "
            f"{recovery.events_folded:,} events folded past their images); server exec -> "
            f"ready {ready:.2f} s  {verdict}   (journal {size / 2**20:.0f} MiB)"
        )
    return ok


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, default=4096, help="ExposeCards per throughput run")
    p.add_argument("--tables", type=int, default=1000, help="tables in the start-up journal")
    p.add_argument("--table-events", type=int, default=1000, help="events per table there")
    args = p.parse_args()
    ok = throughput(args.events)
    ok &= startup(args.tables, args.table_events)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
