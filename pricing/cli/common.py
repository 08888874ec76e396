"""What ``pricing``'s commands share: the games by name, a client built from the connection
flags, and the one choice between ``--json`` and text output."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Final, TextIO, TypeAlias

from google.protobuf.message import Message

from pricing.cli.format import print_json
from pricing.client import PricingClient
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number

__all__ = [
    "GAMES",
    "Commands",
    "add_data_dir",
    "connect",
    "emit_json",
    "offer_side_bets",
    "show_message",
    "shuffle_mode",
]

#: What ``add_subparsers`` returns: each command is added to it.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

#: The games as the command line names them.
GAMES: Final = {
    "hilo": pb.GAME_HILO,
    "goagae": pb.GAME_GOA_GAE,
    "blackjack": pb.GAME_BLACKJACK,
    "higher-lower": pb.GAME_HIGHER_LOWER,
}


def connect(args: argparse.Namespace, timeout: float | None = 10.0) -> PricingClient:
    """A client of the server the connection flags (``--server``, ``--token``, ``--tls-*``)
    name."""
    return PricingClient(
        args.server,
        token=args.token,
        tls_ca=args.tls_ca,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        tls_server_name=args.tls_server_name,
        timeout=timeout,
    )


def emit_json(args: argparse.Namespace) -> bool:
    """Whether the command was asked for ``--json`` (machine-readable output)."""
    return bool(getattr(args, "json", False))


def show_message(
    args: argparse.Namespace, message: Message, text: Callable[[], str], out: TextIO
) -> None:
    """Print ``message`` as one line of JSON with ``--json``, else as ``text()``: the one
    place a command chooses between the two."""
    if emit_json(args):
        print_json(message, out)
    else:
        print(text(), file=out, flush=True)


def shuffle_mode(mode: str | None, default: str) -> pb.ShuffleMode.ValueType:
    """``--mode`` (``depleting`` or ``continuous``; ``default`` when left out) as the wire's
    ``ShuffleMode``.

    >>> shuffle_mode(None, "continuous") == pb.SHUFFLE_MODE_CONTINUOUS
    True
    """
    return pb.ShuffleMode.ValueType(enum_number(pb.ShuffleMode, (mode or default).upper()))


def offer_side_bets(rules: pb.BlackjackRules, specs: list[str] | None) -> None:
    """``--side-bet BET[:PRESET]`` options into a blackjack rules message (the server checks
    the names and presets, and says which is wrong)."""
    for spec in specs or ():
        bet, _, preset = spec.partition(":")
        rules.side_bets[bet.strip().upper()].preset = preset.strip()


def add_data_dir(p: argparse._ActionsContainer, what: str) -> None:
    """``--data-dir``, the server's data directory (``$PRICING_DATA_DIR`` by default); ``what``
    the command does with it."""
    p.add_argument(
        "--data-dir",
        default=os.environ.get("PRICING_DATA_DIR", "data"),
        help=f"the server's data directory (default: $PRICING_DATA_DIR or ./data); {what}",
    )
