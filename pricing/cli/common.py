"""What ``pricing``'s commands share: the games by name, the flags several commands take (the
server and how to reach it, ``--json``, ``--side-bet``, ``--data-dir``), a client built from
the connection flags, and the one choice between ``--json`` and text output."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Final, TextIO, TypeAlias

from google.protobuf.message import Message

from pricing.cli.format import print_json
from pricing.client import PricingClient, default_target
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number

__all__ = [
    "DECKS_NOTE",
    "GAMES",
    "Commands",
    "add_connection",
    "add_data_dir",
    "add_json",
    "add_server",
    "add_side_bets",
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
    "baccarat": pb.GAME_BACCARAT,
    "dragon-tiger": pb.GAME_DRAGON_TIGER,
}
#: What ``--decks 0`` means, in each command's help and range error.
DECKS_NOTE: Final = "0: the game's default"


def connect(args: argparse.Namespace, timeout: float | None = 10.0) -> PricingClient:
    """A client of the server the connection flags (``--server``, ``--token``, ``--tls-*``)
    name, waiting with the command's ``sleep`` (``pricing.cli.main``'s)."""
    return PricingClient(
        args.server,
        token=args.token,
        tls_ca=args.tls_ca,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        tls_server_name=args.tls_server_name,
        timeout=timeout,
        sleep=args.sleep,
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


def offer_side_bets(
    rules: pb.BlackjackRules | pb.BaccaratRules | pb.DragonTigerRules, specs: list[str] | None
) -> None:
    """``--side-bet BET[:PRESET]`` options into a rules message with side bets (the server
    checks the names and presets, and says which is wrong)."""
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


def add_server(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        default=None,
        help=f"gRPC address of the service [PRICING_SERVER, default {default_target()}]",
    )
    add_connection(p)


def add_connection(p: argparse.ArgumentParser) -> None:
    """How to reach a server that wants a token or TLS (each flag's environment variable is
    its default)."""
    c = p.add_argument_group("connection")
    c.add_argument(
        "--token",
        default=None,
        help="token sent as 'authorization: Bearer' [PRICING_TOKEN, else PRICING_DEALER_TOKEN]",
    )
    c.add_argument(
        "--tls-ca", default=None, metavar="FILE", help="CA of the server's TLS certificate: "
        "connect with TLS [PRICING_TLS_CA]",
    )  # fmt: skip
    c.add_argument(
        "--tls-cert", default=None, metavar="FILE",
        help="client certificate, for a server requiring mutual TLS [PRICING_TLS_CERT]",
    )  # fmt: skip
    c.add_argument(
        "--tls-key", default=None, metavar="FILE", help="key of --tls-cert [PRICING_TLS_KEY]"
    )
    c.add_argument(
        "--tls-server-name", default=None, metavar="NAME",
        help="check the server's certificate for NAME instead of the --server host (for a "
        "--server listing several replicas, ipv4:A:PORT,B:PORT) [PRICING_TLS_SERVER_NAME]",
    )  # fmt: skip


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help=f"print {what} as JSON (proto field names; 64-bit numbers as strings)",
    )


def add_side_bets(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--side-bet",
        action="append",
        metavar="BET[:PRESET]",
        default=None,
        help="blackjack, baccarat, dragon-tiger: a side bet to offer, by its name and "
        "optionally a preset (repeat for more; blackjack's default ROYAL_MATCH and PAIRS, the "
        "others' none), e.g. HOT_3, TWENTY_ONE_PLUS_THREE:flat-9, DRAGON_7 or SUITED_TIE; the "
        "bets and presets are listed in docs/rules.md (3.8, 7, 8)",
    )
