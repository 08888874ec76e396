"""Server memory per idle watcher, by variant: where a WatchTable stream's bytes go.

Each row starts a server (the real ``server.py`` on an in-memory journal with 10 Hi-Lo tables,
or a bare grpc.aio server whose stream sends one message and waits), opens 100 streams per
client process to warm it up, then ``--streams`` more, and reports the growth of the server's
anonymous RSS over them, per stream, and the share of it in glibc's main heap (gRPC core's C++
allocations; the rest is mostly Python objects in pymalloc's arenas). Client processes: 2, of
4 channels (connections) each, as in ``bench/service.py``.

Rows: the bare server with gRPC's defaults and with ``fuse_filters``; the real server as it
ships (``pricing.grpc_experiments``) and with the experiment turned off; ``--experiment NAME``
adds a bare and a real row with that gRPC experiment too (e.g. ``ph2_server``).

Not part of ``make bench`` (``bench/service.py`` checks the per-watcher goal): a tool to tell
what a change saves. Run: ``.venv/bin/python bench/profiling/watcher_memory.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WATCH = "/pricing.v1.PricingService/WatchTable"
TABLES = [f"mem-{i}" for i in range(10)]
CLIENTS, CHANNELS, WARM = 2, 4, 100


def anon_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no RssAnon")


# ---- the processes a row runs -----------------------------------------------------------------


MALLINFO2 = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in MALLINFO2.split()]


def heap_in_use() -> int:
    """Bytes allocated from glibc's main arena (where gRPC's threads allocate here)."""
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    return int(info.uordblks + info.hblkhd)


async def bare_server() -> None:
    """A stream that sends one message and waits; the heap figure on each line of stdin."""
    import grpc.aio  # noqa: PLC0415 - after the row's GRPC_EXPERIMENTS are in the environment

    from pricing.server.limits import Limits, grpc_options  # noqa: PLC0415

    async def watch(request: bytes, context: object) -> object:
        yield b"x" * 300
        await asyncio.Event().wait()

    handler = grpc.method_handlers_generic_handler(
        "pricing.v1.PricingService", {"WatchTable": grpc.unary_stream_rpc_method_handler(watch)}
    )
    server = grpc.aio.server(options=grpc_options(Limits()))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(json.dumps({"grpc_port": port}), flush=True)
    loop = asyncio.get_running_loop()
    while await loop.run_in_executor(None, sys.stdin.readline):
        print(heap_in_use(), flush=True)


async def client(target: str, streams: int) -> None:
    """``streams`` WatchTable streams over CHANNELS channels; "ready" once each has a message,
    then open until stdin closes."""
    import grpc.aio  # noqa: PLC0415

    from pricing.v1 import pricing_pb2 as pb  # noqa: PLC0415

    channels = [grpc.aio.insecure_channel(target) for _ in range(CHANNELS)]
    first = [asyncio.Event() for _ in range(streams)]

    async def watch(i: int) -> None:
        call = channels[i % CHANNELS].unary_stream(
            WATCH, request_serializer=pb.WatchTableRequest.SerializeToString
        )
        async for _ in call(pb.WatchTableRequest(table_id=TABLES[i % len(TABLES)])):
            first[i].set()

    tasks = [asyncio.create_task(watch(i)) for i in range(streams)]
    for event in first:
        await event.wait()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for task in tasks:
        task.cancel()


# ---- one row ----------------------------------------------------------------------------------


def open_clients(target: str, streams: int) -> list[subprocess.Popen[str]]:
    command = [sys.executable, __file__, "--client", target, "--streams", str(streams // CLIENTS)]
    procs = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(CLIENTS)
    ]
    for proc in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("a watcher process did not get its streams")
    return procs


def row(kind: str, experiments: str | None, streams: int) -> tuple[float, float | None]:
    """Bytes per stream (RSS) and, for the bare server, the main heap's part of them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRICING_", "GRPC_EXP"))}
    if experiments is not None:
        env["GRPC_EXPERIMENTS"] = experiments
    if kind == "bare":
        command = [sys.executable, __file__, "--bare-server"]
    else:
        command = [sys.executable, str(ROOT / "server.py"), "--port=0", "--metrics-port=0"]
        command += ["--grace=1", "--data-dir=:memory:", "--log-level=WARNING"]
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    procs: list[subprocess.Popen[str]] = []
    try:
        assert server.stdin is not None and server.stdout is not None
        line = server.stdout.readline()
        while not line.startswith("{"):
            if not line:
                raise RuntimeError(f"{kind} server exited before it was ready")
            line = server.stdout.readline()
        target = f"127.0.0.1:{json.loads(line)['grpc_port']}"
        if kind == "real":
            import grpc  # noqa: PLC0415

            from pricing.v1 import pricing_pb2 as pb  # noqa: PLC0415
            from pricing.v1 import pricing_pb2_grpc as pb_grpc  # noqa: PLC0415

            with grpc.insecure_channel(target) as channel:
                dealer = pb_grpc.DealerServiceStub(channel)
                for table in TABLES:
                    dealer.OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))

        def heap() -> int | None:
            if kind != "bare":
                return None
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write("\n")
            server.stdin.flush()
            return int(server.stdout.readline())

        procs += open_clients(target, WARM * CLIENTS)
        time.sleep(1)
        rss0, heap0 = anon_rss(server.pid), heap()
        procs += open_clients(target, streams)
        time.sleep(1.5)
        rss1, heap1 = anon_rss(server.pid), heap()
        native = None if heap0 is None or heap1 is None else (heap1 - heap0) / streams
        return (rss1 - rss0) / streams, native
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--streams", type=int, default=4000, help="streams measured per row")
    p.add_argument("--experiment", action="append", default=[], help="gRPC experiment rows")
    p.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--client", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.bare_server:
        asyncio.run(bare_server())
        return 0
    if args.client:
        asyncio.run(client(args.client, args.streams))
        return 0
    rows = [
        ("bare grpc.aio, gRPC defaults", "bare", ""),
        ("bare grpc.aio, fuse_filters", "bare", "fuse_filters"),
        ("real server as shipped", "real", None),
        ("real server, -fuse_filters", "real", "-fuse_filters"),
    ]
    for name in args.experiment:
        rows += [(f"bare grpc.aio, {name}", "bare", name), (f"real server, +{name}", "real", name)]
    shape = f"{args.streams} streams, {CLIENTS} x {CHANNELS} channels"
    print(f"server memory per idle watcher, {shape}")
    for label, kind, experiments in rows:
        per_stream, native = row(kind, experiments, args.streams)
        heap = "" if native is None else f"   (gRPC core heap {native / 1024:5.1f} KiB)"
        print(f"  {label:<34} {per_stream / 1024:6.1f} KiB{heap}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
