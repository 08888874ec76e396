"""The ``pricing`` console script."""

from __future__ import annotations

import argparse
import sys

from pricing import hilo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pricing", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    q = sub.add_parser("quote", help="price the next card from the cards seen")
    q.add_argument("game", choices=["hilo"])
    q.add_argument("cards", nargs="*", help="cards seen, e.g. 7H KS 2D")
    args = parser.parse_args(argv)
    try:
        prices = hilo.quote(args.cards)
    except ValueError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 2
    for bet, price in prices.items():
        odds = f"{price.payout_hundredths // 100}.{price.payout_hundredths % 100:02d} : 1"
        print(f"{bet:<6} {price.wins:>2}/{price.remaining:<2} {odds if price.open else 'closed'}")
    return 0
