"""The live service: tables kept in a journal (``store``), their states fanned out to watchers
(``publisher``, ``fanout``), the two gRPC servicers (``dealer``, ``reads``, wired in
``service``), their interceptors, limits and metrics, and the process that runs them
(``process``: ``main``, ``serve``; its flags in ``flags``)."""

from __future__ import annotations

from typing import Any

__all__ = ["main", "parser", "serve"]


def __getattr__(name: str) -> Any:
    # The process's entry points, as ``pricing.server`` offered them when it was one module;
    # imported on first use, so importing the package loads no gRPC.
    if name in ("main", "serve"):
        from pricing.server import process  # noqa: PLC0415

        return getattr(process, name)
    if name == "parser":
        from pricing.server import flags  # noqa: PLC0415

        return flags.parser
    raise AttributeError(f"module 'pricing.server' has no attribute {name!r}")
