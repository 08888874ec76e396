"""The docker CLI for the image tests: every container, network and volume a test makes is
recorded and removed when it ends, whatever failed; waits poll the engine's own state (a
container's health, its log), never a fixed sleep."""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.wire import wait_for

ROOT = Path(__file__).resolve().parents[2]
#: The image under test (``make image-test`` builds it first).
IMAGE = os.environ.get("IMAGE", "live-odds-pricing")


def docker(*args: str, check: bool = True, timeout: float = 300) -> str:
    """``docker ARGS``: its standard output; a failure names the command and its error."""
    done = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout.strip()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def logs(container: str) -> str:
    """Everything the container wrote: the server logs to stderr, its ready line to stdout."""
    done = subprocess.run(
        ["docker", "logs", container],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
        check=False,
    )
    return done.stdout


def state(container: str, field_path: str) -> str:
    return docker("inspect", "-f", "{{" + field_path + "}}", container, check=False)


def wait_healthy(container: str, timeout: float = 90) -> float:
    """Seconds until the image's HEALTHCHECK reports healthy; fails on unhealthy or an exit."""

    def healthy() -> bool:
        status = state(container, ".State.Health.Status")
        if status == "unhealthy" or state(container, ".State.Running") == "false":
            raise AssertionError(f"{container} is {status or 'gone'}:\n{logs(container)}")
        return status == "healthy"

    return wait_for(healthy, timeout=timeout, what=f"{container} healthy")


def wait_log(container: str, text: str, timeout: float = 60) -> float:
    return wait_for(lambda: text in logs(container), timeout=timeout, what=f"{text!r} logged")


@dataclass
class Docker:
    """What one test made, removed by ``clean`` (containers first: they hold the rest)."""

    containers: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)
    volumes: list[str] = field(default_factory=list)

    def network(self) -> str:
        name = unique("pricing-test")
        docker("network", "create", name)
        self.networks.append(name)
        return name

    def volume(self) -> str:
        name = unique("pricing-test")
        docker("volume", "create", name)
        self.volumes.append(name)
        return name

    def run(self, *args: str, image: str = IMAGE, command: tuple[str, ...] = ()) -> str:
        """``docker run -d`` of ``image`` with ``args``: the container's name."""
        name = unique("pricing-test")
        self.containers.append(name)
        docker("run", "-d", "--name", name, *args, image, *command)
        return name

    def clean(self) -> None:
        for container in self.containers:
            docker("rm", "-f", "-v", container, check=False)
        for network in self.networks:
            docker("network", "rm", network, check=False)
        for volume in self.volumes:
            docker("volume", "rm", "-f", volume, check=False)
