"""Functions the worker tests run in a worker process (importable by a spawned process)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def pid() -> bytes:
    return str(os.getpid()).encode()


def niceness() -> bytes:
    return str(os.nice(0)).encode()


def echo(text: bytes) -> bytes:
    return text


def sleep_forever(started: str) -> bytes:
    """Write this worker's pid to ``started``, then compute (sleep) far longer than any test."""
    Path(started).write_text(str(os.getpid()))
    time.sleep(600)
    return b"never"


def fail(message: str) -> bytes:
    raise ValueError(message)


def die() -> bytes:
    os._exit(3)
