"""Entry point of the pricing service: ``python server.py --help``.

The code lives in ``pricing.server.process`` so that the installed console script (``pricing
serve``), ``python -m pricing.server`` and this file run the same thing. gRPC's experiments are
set first (``pricing.grpc_experiments``): gRPC reads them when it is imported.
"""

import sys

from pricing import grpc_experiments

grpc_experiments.enable()

from pricing.server.process import main  # noqa: E402 - after the gRPC experiments are set

if __name__ == "__main__":
    sys.exit(main(prog="python server.py"))
