"""Where the server's time goes in a fan-out: py-spy samples of the real server while a feed
runs flat out to watchers of one table, summed by what the sampled code is.

    .venv/bin/python bench/profile.py [--watchers 1000] [--seconds 8] [--svg FILE]

The server (``server.py``, SQLite journal on) runs as in production; its watchers live in two
client processes (the scale benchmark's, ``bench/service.py --watcher``) and the feed in this
one. py-spy samples the server's threads with their native frames; the summary counts the
event-loop thread's samples by the innermost frame's kind (a system call, the garbage
collector, gRPC, the event loop, the interpreter, the service's own Python) and lists the
service's functions by the share of samples they are on the stack of. ``--svg`` also writes a
flame graph. Needs py-spy (in the dev extras) and the right to trace a child process (root, or
``kernel.yama.ptrace_scope`` 0). No goal: it explains the ratios bench/service.py measures.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc
import grpc.aio
from _harness import ROOT
from _live import Feed
from _watchers import Watchers

from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.server import start_server

WATCH = "/pricing.v1.PricingService/WatchTable"

#: Innermost native frames by what they are: the first pattern found in the frame names it.
KINDS: tuple[tuple[str, str], ...] = (
    ("sendmsg", "system call: sendmsg (a message onto the socket)"),
    ("recv", "system call: recv/read"),
    ("read (libc", "system call: recv/read"),
    ("epoll", "system call: epoll (waiting for I/O)"),
    ("write (libc", "system call: write (waking the loop, the journal)"),
    ("futex", "system call: futex (locks, the GIL)"),
    ("gc_collect", "Python garbage collector"),
    ("cygrpc", "gRPC (Cython layer and C core)"),
    ("libgrpc", "gRPC (Cython layer and C core)"),
    ("grpc/", "gRPC (Cython layer and C core)"),
    ("loop.c", "uvloop"),
    ("uvloop", "uvloop"),
    ("pricing/", "the service's Python (pricing/)"),
    ("prometheus_client", "prometheus_client"),
    ("google/protobuf", "protobuf"),
    ("_upb", "protobuf"),
    ("_asynciomodule", "asyncio (C)"),
    ("asyncio/", "asyncio (Python)"),
    ("libpython", "the interpreter"),
    ("object.h", "the interpreter"),
    ("ceval", "the interpreter"),
)


def kind_of(frame: str) -> str:
    for pattern, kind in KINDS:
        if pattern in frame:
            return kind
    return "other"


def summarise(raw: Path, top: int = 12) -> str:
    """Markdown: the event-loop thread's samples by kind, and the service's functions."""
    kinds: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not any("server.py" in f for f in frames[:3]):
            continue  # another thread (gRPC's poller, the journal's writer, metrics)
        n = int(count)
        total += n
        kinds[kind_of(frames[-1])] += n
        for name in {f.split(" (")[0] for f in frames if "pricing/" in f} - {"main", "serve"}:
            ours[name] += n
    if not total:
        return "no samples of the event-loop thread (could py-spy trace the server?)\n"
    out = [f"Event-loop thread, {total:,} samples, by the innermost frame:\n"]
    out += ["| what | share |", "|---|---|"]
    out += [f"| {kind} | {n / total:.1%} |" for kind, n in kinds.most_common()]
    out += ["", "The service's functions, by the share of samples they are on the stack of:\n"]
    out += ["| function | share |", "|---|---|"]
    out += [f"| `{name}` | {n / total:.1%} |" for name, n in ours.most_common(top)]
    return "\n".join(out) + "\n"


async def feed(target: str, table: str, seconds: float) -> int:
    async with grpc.aio.insecure_channel(target) as channel:
        dealer = Feed(pb_grpc.DealerServiceStub(channel), table, seed=1)
        sent = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await dealer.send()
            sent += 1
        return sent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--watchers", type=int, default=1000, help="watchers of the one table")
    p.add_argument("--seconds", type=float, default=8.0, help="how long the feed runs")
    p.add_argument("--rate", type=int, default=200, help="py-spy samples a second")
    p.add_argument("--svg", type=Path, help="also write a flame graph (py-spy's SVG) here")
    args = p.parse_args()
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        print("py-spy is not installed (pip install py-spy, or the dev extras): skipped")
        return 0
    server = start_server()
    watchers = None
    try:
        table = "profiled"
        server.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        watchers = Watchers(
            str(ROOT / "bench" / "service.py"),
            server.target,
            WATCH,
            [(table, args.watchers)],
            procs=2,
            channels=4,
            decode="manual",
        )
        opened = watchers.opened()
        print(f"{opened['served']:,} watchers of one Hi-Lo table; feed flat out {args.seconds} s")
        with tempfile.TemporaryDirectory() as tmp:
            raw = Path(tmp) / "samples.txt"
            command = [spy, "record", "--native", "-p", str(server.proc.pid)]
            command += ["-r", str(args.rate), "-d", str(int(args.seconds)), "-f", "raw"]
            recorder = subprocess.Popen(
                [*command, "-o", str(raw)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            svg = None
            if args.svg is not None:
                svg = subprocess.Popen(
                    [*command[:-2], "-f", "flamegraph", "-o", str(args.svg)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            sent = asyncio.run(feed(server.target, table, args.seconds))
            _, err = recorder.communicate(timeout=args.seconds + 60)
            if svg is not None:
                svg.wait(args.seconds + 60)
            print(f"{sent:,} events sent ({sent / args.seconds:,.0f}/s)\n")
            if not raw.exists():
                print(f"py-spy recorded nothing: {err.decode(errors='replace').strip()}")
                return 0
            print(summarise(raw))
    finally:
        if watchers is not None:
            watchers.stop()
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
