"""Entry point of the pricing service: ``python server.py --help``.

The code lives in ``pricing.server`` so that the installed console script (``pricing serve``)
and this file run the same thing.
"""

import sys

from pricing.server import main

if __name__ == "__main__":
    sys.exit(main(prog="python server.py"))
