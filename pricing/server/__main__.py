"""``python -m pricing.server``: the same as ``pricing serve`` and ``python server.py``."""

import sys

from pricing import grpc_experiments

grpc_experiments.enable()  # before gRPC is imported: it reads them then

from pricing.server.process import main  # noqa: E402

sys.exit(main())
