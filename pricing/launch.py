"""The ``pricing`` command's entry point: what must be set before gRPC is imported, then
``pricing.cli``. Only ``pricing serve`` turns on the server's gRPC experiments
(``pricing.grpc_experiments``); the client commands run gRPC as it comes."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from pricing import grpc_experiments

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["serve"]:
        grpc_experiments.enable()
    from pricing.cli import main as cli  # noqa: PLC0415 - after the experiments are set

    return cli(args)
