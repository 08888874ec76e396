"""The server process itself: health across shutdown, the dealer-feed token, --help."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support import ROOT
from tests.support.server import Watcher, start_server

pytestmark = pytest.mark.timeout(60)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_health_serving_then_not_serving_on_signal_and_clean_exit(sig: int) -> None:
    server = start_server()
    channel = server.channel()
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "pricing.v1.DealerService", "pricing.v1.PricingService"):
        status = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status
        assert status == SERVING

    statuses: queue.Queue[int] = queue.Queue()

    def watch() -> None:
        try:
            for response in health.Watch(health_pb2.HealthCheckRequest(service="")):
                statuses.put(response.status)
        except grpc.RpcError:
            pass

    threading.Thread(target=watch, daemon=True).start()
    assert statuses.get(timeout=5) == SERVING

    dealer = pb_grpc.DealerServiceStub(channel)
    dealer.OpenTable(pb.OpenTableRequest(table_id="t", game=pb.GAME_HILO))
    watcher = Watcher(pb_grpc.PricingServiceStub(channel), "t")
    assert watcher.next().version == 1

    t0 = time.monotonic()
    server.proc.send_signal(sig)
    assert statuses.get(timeout=5) == NOT_SERVING
    assert watcher.end(timeout=5) == grpc.StatusCode.UNAVAILABLE  # open streams: reconnect
    assert server.proc.wait(timeout=15) == 0
    assert time.monotonic() - t0 < 10
    assert "shutting down" in server.log()
    server.stop()


def test_dealer_token_guards_the_write_side_only() -> None:
    secret = "s3cret-token-for-test"
    server = start_server(env={"PRICING_DEALER_TOKEN": secret})
    try:
        dealer, pricing = server.dealer(), server.pricing()
        request = pb.OpenTableRequest(table_id="guarded", game=pb.GAME_HILO)
        for metadata in ((), (("authorization", "Bearer wrong"),)):
            with pytest.raises(grpc.RpcError) as info:
                dealer.OpenTable(request, metadata=metadata)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as info:
            pricing.GetTable(pb.GetTableRequest(table_id="guarded"))
        assert info.value.code() == grpc.StatusCode.NOT_FOUND  # nothing was opened

        good = (("authorization", f"Bearer {secret}"),)
        assert dealer.OpenTable(request, metadata=good).version == 1
        assert pricing.GetTable(pb.GetTableRequest(table_id="guarded")).version == 1  # reads open
    finally:
        assert server.stop() == 0
    assert secret not in server.log()


def test_busy_port_is_an_error_not_a_hang() -> None:
    first = start_server()
    try:
        result = subprocess.run(
            [
                sys.executable,
                str(ROOT / "server.py"),
                f"--port={first.grpc_port}",
                "--metrics-port=0",
                "--data-dir=:memory:",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert result.returncode != 0
        assert "ready" not in result.stdout
    finally:
        first.stop()


def test_help_explains_flags_and_environment() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    for text in (
        "--host",
        "--port",
        "--metrics-port",
        "--log-level",
        "PRICING_PORT",
        "PRICING_DEALER_TOKEN",
        "ready",
    ):
        assert text in result.stdout


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended while we looked
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's wait is missing


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_quote_worker_dies_with_a_killed_server() -> None:
    """kill -9 runs no clean-up in the server: its quote worker process must end by itself,
    or every crash would leave one behind."""
    server = start_server()
    stub = pb_grpc.PricingServiceStub(server.channel())
    stub.Quote(pb.QuoteRequest(game=pb.GAME_HILO, decks=1, exposed=["AS"]), timeout=10)
    workers = _children(server.proc.pid)
    assert workers, "the server has no worker process"
    server.proc.kill()
    server.proc.wait(10)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers):
        assert time.monotonic() < deadline, f"worker(s) {sorted(workers)} outlived the server"
        time.sleep(0.05)
