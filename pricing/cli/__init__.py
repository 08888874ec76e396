"""Live odds pricing: run the service, watch a table, play a demo dealer feed, quote, settle.

    pricing serve                      # the gRPC service (same flags as server.py)
    pricing simulate --pace 0.5        # a dealer feed playing shuffled decks at table "demo"
    pricing watch demo                 # the prices of table "demo", live
    pricing quote hilo 7H KS 2D        # prices after those cards (offline; --server to ask one)
    pricing quote goagae 2S 3S         # Goa Gae category bets on the next hand
    pricing quote blackjack --decks 6 --up AS KH QS   # side bets, insurance, dealer outcomes
    pricing quote blackjack --up 6D --hand 8S,8H      # and each action's EV for that hand
    pricing settle demo --round 3 --version 9 --bet HIGH --stake-cents 1000
    pricing settle-position hl --stake-cents 1000 --leg 1:2:HIGHER --leg 2:7:LOWER:500
    pricing health                     # exit 0 if the server is SERVING (Docker HEALTHCHECK)
    pricing journal export demo > demo.jsonl   # a table's journaled events (audit)
    pricing journal replay demo.jsonl          # fold them again: each round, the final state
    pricing journal check                      # what is damaged in ./data's journal, if any
    pricing journal backup --to backup/        # a consistent copy while the server runs
    pricing journal salvage --to data2/        # copy what is whole from a damaged journal
    pricing analyze hilo --plot hilo.png       # exact RTP report of every dynamic bet
    pricing analyze --table demo               # what table "demo"'s bets actually returned

The server address is ``--server`` or ``$PRICING_SERVER`` (default 127.0.0.1:50051); a token,
if the server wants one, is ``--token`` or ``$PRICING_TOKEN`` (``$PRICING_DEALER_TOKEN`` also
works); ``--tls-ca`` (``$PRICING_TLS_CA``) connects with TLS, ``--tls-cert``/``--tls-key`` add
a client certificate for mutual TLS.

Here: ``main``, which hands ``serve`` to the server and runs every other command. The
parser's top is ``command_line``'s; each command's flags are declared beside the code that runs
it: ``reads``'s (quote, watch, settle, settle-position, table, tables, health), ``simulate``'s
(its demo dealer ``dealer``'s), ``journal``'s and ``analyze``'s (its options read by
``analyze_options``, its reports shown by ``report_text`` and ``report_plot``), on what they
share in ``common``; ``args`` checks arguments, ``format`` turns messages into text.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final, TextIO

import grpc

from pricing.cli.command_line import build_parser
from pricing.cli.format import format_state
from pricing.cli.reads import EXIT_STREAM_ENDED

__all__ = ["EXIT_STREAM_ENDED", "EXIT_USAGE", "format_state", "main"]

#: The exit status of a usage error: a bad argument, found here or by the server.
EXIT_USAGE: Final = 2


def parser() -> argparse.ArgumentParser:
    """The ``pricing`` command's parser (``pricing.cli.command_line``), described by the first
    paragraph of this package's docstring."""
    return build_parser(__doc__.split("\n\n")[0] if __doc__ else None)


def main(
    argv: Sequence[str] | None = None,
    out: TextIO = sys.stdout,
    *,
    sleep: Callable[[float], object] = time.sleep,
) -> int:
    """Run ``pricing argv``, printing to ``out``; ``sleep`` is what the commands wait with
    (``simulate``'s pace, a pause before trying a server again): a test's clock, if it has
    one. The exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from pricing.server.process import main as serve  # noqa: PLC0415 - only this command needs it

        return serve(argv[1:])
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra and args.command == "quote" and not any(e.startswith("-") for e in extra):
        args.cards += extra  # cards after options: pricing quote blackjack --up AS KH QS
    elif extra:
        p.error(f"unrecognized arguments: {' '.join(extra)}")
    args.sleep = sleep  # handed over with the options: a command is given nothing else
    run: Callable[[argparse.Namespace, TextIO], int] = args.run
    try:
        return run(args, out)
    except grpc.RpcError as exc:
        print(f"pricing: {exc.code().name}: {exc.details()}", file=sys.stderr)
        # The server found a bad argument: the same exit status as when it is found here.
        return EXIT_USAGE if exc.code() == grpc.StatusCode.INVALID_ARGUMENT else 1
    except ValueError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the interpreter's flush quiet
        return 141
