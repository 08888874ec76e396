"""The gRPC core experiments the server turns on, and why.

gRPC reads ``GRPC_EXPERIMENTS`` once, when ``grpc`` is first imported, so the server's entry
points (``server.py``, ``pricing serve`` through ``pricing.launch``) call ``enable`` before
anything imports it. An operator's own ``GRPC_EXPERIMENTS`` is kept: the server's experiments
are added to it, and one the operator names (``name`` or ``-name`` to turn it off) is left as
they set it.

``fuse_filters``: the server's per-call filters (server, message size, deadline, HTTP,
compression) run as one fused filter instead of a chain, each with its own per-call state in
the call's arena. Same behaviour, about 3.1 KB less server memory per open call, which is per
WatchTable stream (25.4 KB -> 22.2 KB per idle watcher; 23.6 KB -> 20.5 KB on a bare
grpc.aio server), and some 10% less server CPU per message sent to a watcher
(docs/BENCHMARKS.md).

>>> env = {"GRPC_EXPERIMENTS": "tcp_rcv_lowat"}
>>> enable(env)
>>> env["GRPC_EXPERIMENTS"]
'tcp_rcv_lowat,fuse_filters'
>>> env = {"GRPC_EXPERIMENTS": "-fuse_filters"}
>>> enable(env)
>>> env["GRPC_EXPERIMENTS"]
'-fuse_filters'
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from typing import Final

__all__ = ["SERVER_EXPERIMENTS", "enable"]

VARIABLE: Final = "GRPC_EXPERIMENTS"

#: Experiments of the grpcio the server depends on, each named in the module docstring.
SERVER_EXPERIMENTS: Final = ("fuse_filters",)


def enable(environ: MutableMapping[str, str] = os.environ) -> None:
    """Add ``SERVER_EXPERIMENTS`` to ``environ``'s ``GRPC_EXPERIMENTS``, keeping what the
    operator set. RuntimeError for the process's own environment once ``grpc`` is imported:
    it would never see them."""
    if environ is os.environ and "grpc" in sys.modules:
        raise RuntimeError("gRPC experiments must be set before grpc is imported")
    named = [e.strip() for e in environ.get(VARIABLE, "").split(",") if e.strip()]
    chosen = {e.lstrip("-") for e in named}
    named += [e for e in SERVER_EXPERIMENTS if e not in chosen]
    environ[VARIABLE] = ",".join(named)
