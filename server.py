"""Entry point of the pricing service (the gRPC service lands with its own issue)."""

import sys


def main() -> int:
    print(
        "the gRPC pricing server is not there yet; the engines are in pricing.hilo", file=sys.stderr
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
