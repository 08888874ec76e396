"""The server's event loop: uvloop where it is installed, asyncio's own otherwise.

Every message to a watcher costs a few event-loop callbacks (the handler's step, the send's
completion coming back from gRPC's poller thread); uvloop runs them in C, which takes about a
sixth off the server's CPU per delivered message against the standard loop in the same run
(bench/service.py). ``--event-loop asyncio`` keeps the standard loop, e.g. to rule uvloop out
when chasing a problem.

>>> "asyncio" in LOOPS
True
>>> factory("asyncio") is asyncio.new_event_loop
True
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable
from typing import Final

__all__ = ["LOOPS", "default", "factory"]

LOOPS: Final = ("uvloop", "asyncio")


def default() -> str:
    """uvloop if it can be imported (it is a dependency on Linux and macOS), else asyncio."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def factory(name: str) -> Callable[[], asyncio.AbstractEventLoop]:
    """A new-loop function for ``asyncio.Runner``; ValueError naming ``name`` if unknown or
    not installed."""
    if name == "asyncio":
        return asyncio.new_event_loop
    if name == "uvloop":
        try:
            uvloop = importlib.import_module("uvloop")
        except ImportError as exc:
            raise ValueError("--event-loop uvloop: uvloop is not installed") from exc
        new_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
        return new_loop
    raise ValueError(f"unknown event loop {name!r}: choose one of {', '.join(LOOPS)}")
