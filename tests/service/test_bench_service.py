"""The scale benchmark's instrument (bench/service.py), on tiny sizes: its watchers count every
delivery against what the feed sent, for the real server and the bare baseline alike, and read
the version from raw bytes exactly as the generated TableState does, and read the server's own
handling-time histogram."""

from __future__ import annotations

import asyncio
import importlib.util
import math
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pricing.v1 import pricing_pb2 as pb
from tests.support import ROOT
from tests.support.server import ServerProcess, start_server
from tests.support.wire import metric

sys.path.insert(0, str(ROOT / "bench"))
_spec = importlib.util.spec_from_file_location("bench_service", ROOT / "bench" / "service.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_service"] = bench  # its dataclasses look their module up
_spec.loader.exec_module(bench)

from _watchers import Child, Watchers, version_of  # noqa: E402


@given(
    table_id=st.text(min_size=0, max_size=200),
    version=st.integers(1, 2**64 - 1),
    exposed=st.lists(st.sampled_from(["7H", "10S", "AD"]), max_size=60),
)
def test_version_read_from_bytes_is_the_generated_one(
    table_id: str, version: int, exposed: list[str]
) -> None:
    state = pb.TableState(table_id=table_id, game=pb.GAME_HILO, version=version, exposed=exposed)
    assert version_of(state.SerializeToString()) == version


def test_help_explains_the_run() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "service.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "--quick" in result.stdout


async def streamed_phase(server: Any, process: ServerProcess) -> None:
    """The table's next events on a Feed stream, opened before (the table unchanged)."""
    server.streamed = True
    assert server.open_stream is not None
    await server.open_stream("t")
    streamed = await bench.phase(server, {"t": 5}, "paced", 0.5, rate=20.0)
    server.streamed = False
    assert streamed.sent >= 5 and not streamed.feed_errors, streamed
    assert streamed.deliveries == streamed.expected == 5 * streamed.sent, streamed
    if server.metrics_url:  # they went on a stream
        fed = metric(process, "grpc_server_msg_received_total", {"grpc_method": "Feed"})
        assert fed == streamed.sent + 1  # and the opening's repeated event


@pytest.mark.serial
def test_every_delivery_is_counted_against_the_feed_on_both_servers() -> None:
    process = start_server("--log-level=WARNING")
    script = str(ROOT / "bench" / "service.py")
    size = len(bench.hilo_state("t", 9).SerializeToString())
    bare_child = Child([sys.executable, script, f"--bare-server={size}"])

    async def run() -> None:
        servers = [bench.real_server(process), bench.bare_server(bare_child, bare_child.reply(30))]
        try:
            for server in servers:
                await server.open_table("t")
                server.watchers = Watchers(
                    script, server.target, server.watch, [("t", 5)],
                    procs=2, channels=2, decode="manual", open_timeout=20,
                )  # fmt: skip
                opened = server.watchers.opened()
                assert (opened["served"], opened["waiting"]) == (5, 0), opened
                if server.metrics_url:
                    before = bench.handling_buckets(server.metrics_url, "ExposeCard")
                paced = await bench.phase(server, {"t": 5}, "paced", 0.5, rate=20.0)
                assert paced.sent >= 5
                if server.metrics_url:  # the server's own histogram saw every one of them
                    handled = bench.handling_buckets(server.metrics_url, "ExposeCard") - before
                    assert handled[math.inf] == paced.sent, handled
                    median, p99 = (bench.bucket_quantile(handled, q) for q in (0.5, 0.99))
                    slowest = bench.bucket_quantile(handled, 1.0)  # the bucket of the slowest
                    assert 0 < median <= p99 <= slowest < math.inf, handled
                assert paced.deliveries == paced.expected == 5 * paced.sent, paced
                assert 0 < paced.latency(0.5) <= paced.latency(0.99) < 5, paced
                # The server's CPU time is read in clock ticks (10 ms): half a second of a few
                # cards can take less than one, so 0 is a true reading; a number is what counts.
                assert paced.rate > 0 and paced.cpu_us >= 0
                await streamed_phase(server, process)
                flat = await bench.phase(server, {"t": 5}, "flat", 0.3, rate=0.0)
                assert flat.sent > paced.sent / 2 and flat.deliveries > 0, flat
                assert not flat.ended and not flat.behind, flat
                assert server.watchers.stop() == Counter(), server.name
                server.watchers = None
        finally:
            for server in servers:
                if server.watchers is not None:
                    server.watchers.stop()
                assert server.end_streams is not None
                await server.end_streams()
                await server.channel.close()

    try:
        asyncio.run(run())
    finally:
        process.stop()
        bare_child.stop()
