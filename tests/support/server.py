"""The real server process, started on free loopback ports (``tests/conftest.py`` makes fixtures
of it; the benchmarks start it too).

``start_server`` runs ``server.py`` with ``--port 0 --metrics-port 0`` and waits for its ready
line (printed once health is SERVING) instead of sleeping.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support import ROOT

READY_TIMEOUT = 30.0


@dataclass
class ServerProcess:
    proc: subprocess.Popen[str]
    grpc_port: int
    metrics_port: int
    log_path: Path
    data_dir: Path | None = None
    console_port: int | None = None  # started with --console-port=0
    _channels: list[grpc.Channel] = field(default_factory=list)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def channel(self, options: Sequence[tuple[str, Any]] = ()) -> grpc.Channel:
        channel = grpc.insecure_channel(self.target, options=list(options))
        self._channels.append(channel)
        return channel

    def dealer(self) -> pb_grpc.DealerServiceStub:
        return pb_grpc.DealerServiceStub(self.channel())

    def pricing(self) -> pb_grpc.PricingServiceStub:
        return pb_grpc.PricingServiceStub(self.channel())

    def console_url(self, path: str = "/") -> str:
        """The web console's address of ``path`` (a server started with --console-port=0)."""
        assert self.console_port is not None, "started without --console-port"
        return f"http://127.0.0.1:{self.console_port}{path}"

    def metrics_text(self) -> str:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            return str(response.read().decode())

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        for channel in self._channels:
            channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


#: Every server process started: whatever a failing test left running is killed when the session
#: ends (``tests/conftest.py``), so no server outlives the run.
STARTED: list[subprocess.Popen[str]] = []


def start_server(
    *args: str,
    env: dict[str, str] | None = None,
    data_dir: Path | None = None,
    grace: float | None = 1,
) -> ServerProcess:
    """Start ``server.py``; its journal goes to ``data_dir`` (a fresh folder by default, so
    every test server runs on the real SQLite journal), unless ``args`` name a --data-dir.
    ``grace``: its --grace, 1 s so that tests stop servers quickly (None: the default)."""
    log = Path(tempfile.mkstemp(prefix="pricing-server-", suffix=".log")[1])
    if not any(a.startswith("--data-dir") for a in args):
        data_dir = data_dir or Path(tempfile.mkdtemp(prefix="pricing-data-"))
        args = (*args, f"--data-dir={data_dir}")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PRICING_")}
    full_env.update(env or {})
    command = [
        sys.executable,
        str(ROOT / "server.py"),
        "--port=0",
        "--metrics-port=0",
        *([] if grace is None else [f"--grace={grace}"]),
        *args,
    ]
    with log.open("w") as log_file:
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=log_file,
            text=True,
            env=full_env,
        )
    STARTED.append(proc)
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + READY_TIMEOUT
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{log.read_text()}")
        if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
            proc.kill()
            raise AssertionError(f"server not ready in {READY_TIMEOUT} s:\n{log.read_text()}")
        line = proc.stdout.readline()
        if line.startswith("{"):
            ready = json.loads(line)
            if ready.get("event") == "ready":
                break
    selector.close()
    console = ready.get("console_port")
    return ServerProcess(
        proc,
        int(ready["grpc_port"]),
        int(ready["metrics_port"]),
        log,
        data_dir,
        None if console is None else int(console),
    )


class Watcher:
    """Reads a WatchTable stream in a thread into a queue (a fast game server)."""

    def __init__(self, stub: pb_grpc.PricingServiceStub, table_id: str, from_version: int = 0):
        self.call = stub.WatchTable(
            pb.WatchTableRequest(table_id=table_id, from_version=from_version)
        )
        self.states: queue.Queue[pb.TableState | BaseException | None] = queue.Queue()
        self.received: list[pb.TableState] = []
        self.done_code: grpc.StatusCode | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for state in self.call:
                self.states.put(state)
            self.done_code = grpc.StatusCode.OK
            self.states.put(None)
        except grpc.RpcError as exc:
            self.done_code = exc.code()
            self.states.put(exc)

    def next(self, timeout: float = 10.0) -> pb.TableState:
        item = self.states.get(timeout=timeout)
        if not isinstance(item, pb.TableState):
            raise AssertionError(f"stream ended: {item!r}")
        self.received.append(item)
        return item

    def next_version(self, timeout: float = 10.0) -> pb.TableState:
        """The next state of a newer version than the last one read: a blackjack table may
        publish a version again once its main-game figures are computed (a game server acts
        on each version once), and a first publication is the bytes the write was answered
        with."""
        last = self.received[-1].version if self.received else 0
        deadline = time.monotonic() + timeout
        while True:
            state = self.next(max(0.01, deadline - time.monotonic()))
            if state.version > last:
                return state

    def until(self, version: int, timeout: float = 10.0) -> pb.TableState:
        """Read until ``version`` has arrived; return that state."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.next(max(0.01, deadline - time.monotonic()))
            if state.version >= version:
                return state

    def end(self, timeout: float = 10.0) -> grpc.StatusCode | None:
        item = self.states.get(timeout=timeout)
        assert item is None or isinstance(item, grpc.RpcError), f"more states: {item!r}"
        self.thread.join(timeout)
        return self.done_code

    def cancel(self) -> None:
        with contextlib.suppress(Exception):
            self.call.cancel()
