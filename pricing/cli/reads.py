"""The commands on a server's tables, and ``quote``: ``pricing quote`` (offline, or asking a
server), ``watch``, ``settle``, ``settle-position``, ``table``, ``tables`` (the lobby) and
``health``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Final, TextIO

import grpc

from pricing.cli.args import check_game_options
from pricing.cli.common import (
    GAMES,
    connect,
    emit_json,
    offer_side_bets,
    show_message,
    shuffle_mode,
)
from pricing.cli.format import (
    WatchPrinter,
    format_position,
    format_quote,
    format_settlement,
    format_table,
    message_dict,
    print_json,
)
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number, enum_short_name
from pricing.wire import answer_quote

__all__ = [
    "EXIT_STREAM_ENDED",
    "format_tables",
    "health_services",
    "run_health",
    "run_quote",
    "run_settle",
    "run_settle_position",
    "run_table",
    "run_tables",
    "run_watch",
]

#: The options only some games have (dest -> those games), for ``check_game_options``.
_QUOTE_OPTIONS: Final = {
    **{
        dest: ("blackjack",)
        for dest in (
            "up",
            "hand",
            "max_splits",
            "no_double_after_split",
            "rule",
            "pairs",
            "no_crown",
            "side_bet",
            "player_edge",
        )
    },
    "base": ("higher-lower",),
    "mode": ("higher-lower",),
}


def _quote_request(args: argparse.Namespace) -> pb.QuoteRequest:
    """The QuoteRequest the command line asks for (the same offline and with --server)."""
    check_game_options(args, args.game, _QUOTE_OPTIONS)
    game = GAMES[args.game]
    request = pb.QuoteRequest(game=game, decks=args.decks, exposed=args.cards)
    if game == pb.GAME_HIGHER_LOWER:
        request.base_card = args.base or ""
        request.higher_lower.shuffle_mode = shuffle_mode(args.mode, "continuous")
    if game == pb.GAME_BLACKJACK:
        request.dealer_up_card = args.up or ""
        request.player_hand.extend(args.hand or ())
        request.include_player_edge = args.player_edge
        rules = request.blackjack
        rules.dealer_rule = enum_number(pb.DealerRule, args.rule or "S17")  # type: ignore[assignment]
        if args.max_splits is not None:
            rules.max_splits = args.max_splits
        if args.no_double_after_split:
            rules.double_after_split = False
        offer_side_bets(rules, args.side_bet)
        if args.pairs is not None or not args.side_bet:
            rules.pairs.preset = (
                pb.PAIRS_PRESET_ANY_PAIR
                if args.pairs == "any-pair"
                else pb.PAIRS_PRESET_PERFECT_PAIRS
            )
        if args.no_crown:
            rules.royal_match.crown_enabled = False
    return request


def run_quote(args: argparse.Namespace, out: TextIO) -> int:
    request = _quote_request(args)
    if args.server:
        chosen = request.WhichOneof("rules")
        rules = getattr(request, chosen) if chosen else None
        with connect(args) as client:
            response = client.quote(
                request.game,
                list(request.exposed),
                decks=request.decks,
                rules=rules,
                dealer_up_card=request.dealer_up_card,
                include_player_edge=request.include_player_edge,
                base_card=request.base_card,
                player_hand=list(request.player_hand),
            )
    else:
        response = answer_quote(request)
    show_message(args, response, lambda: format_quote(response), out)
    return 0


_WAITABLE = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE)


def _state_printer(args: argparse.Namespace, out: TextIO) -> Callable[[pb.TableState], None]:
    """How ``watch`` prints each state: a JSON line with ``--json``, else the watch lines
    (a legend and column header first, a line of its own for a round that ended)."""
    if emit_json(args):
        return lambda state: print_json(state, out)
    printer = WatchPrinter()

    def show(state: pb.TableState) -> None:
        print("\n".join(printer.lines(state)), file=out, flush=True)

    return show


#: ``pricing watch``'s exit status when the server ended the stream of a table still open.
EXIT_STREAM_ENDED: Final = 3


def run_watch(args: argparse.Namespace, out: TextIO) -> int:
    """Follow a table until it closes; wait for it to open, and across server restarts
    reconnect and resume after the last version shown (one line says so), unless --no-wait.

    A stream ends with OK only when the table closes; a server shutting down ends it with
    UNAVAILABLE."""
    from_version = args.from_version
    waiting = False
    show = _state_printer(args, out)
    notes = sys.stderr if emit_json(args) else out  # --json: standard output is JSON only

    def reconnecting(line: str) -> None:
        print(line, file=notes, flush=True)

    with connect(args, timeout=None) as client:
        while True:
            try:
                states = (
                    client.follow_table(args.table, from_version, on_reconnect=reconnecting)
                    if args.wait
                    else client.watch_table(args.table, from_version)
                )
                for state in states:
                    waiting = False
                    show(state)
                    from_version = state.version + 1
                print(f"table {args.table!r} closed", file=notes)
                return 0
            except grpc.RpcError as exc:
                shown = from_version > args.from_version
                if not args.wait and shown and exc.code() == grpc.StatusCode.UNAVAILABLE:
                    print(
                        f"pricing: the server ended the stream of table {args.table!r} (it did "
                        f"not close): {exc.details()}",
                        file=sys.stderr,
                    )
                    return EXIT_STREAM_ENDED
                if not args.wait or exc.code() not in _WAITABLE:
                    raise
                if exc.code() == grpc.StatusCode.NOT_FOUND:
                    from_version = args.from_version  # (re)opened: start again
                if not waiting:
                    print(f"waiting for table {args.table!r} ({exc.code().name})", file=notes)
                    waiting = True
                time.sleep(0.5)


def run_settle(args: argparse.Namespace, out: TextIO) -> int:
    with connect(args) as client:
        s = client.settle(
            args.table, args.round, args.version, args.bet, args.stake_cents, seat=args.seat
        )
    show_message(args, s, lambda: format_settlement(s), out)
    return 0


def run_settle_position(args: argparse.Namespace, out: TextIO) -> int:
    legs = [pb.PositionLeg(**leg._asdict()) for leg in args.legs]
    with connect(args) as client:
        position = client.settle_position(args.table, args.stake_cents, legs)
    show_message(args, position, lambda: format_position(position), out)
    return 0


def run_health(args: argparse.Namespace, out: TextIO) -> int:
    with connect(args, timeout=args.timeout) as client:
        try:
            status = client.health(args.service)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
            known = ", ".join(repr(name) for name in health_services())
            raise ValueError(
                f"the server reports no health for service {args.service!r}: ask for one of "
                f"{known} ('' is the whole server)"
            ) from None
    print(status, file=out)
    return 0 if status == "SERVING" else 1


def health_services() -> list[str]:
    """The service names the server's health service knows: '' and each of its services."""
    names = [service.full_name for service in pb.DESCRIPTOR.services_by_name.values()]
    return ["", *names]


def run_table(args: argparse.Namespace, out: TextIO) -> int:
    with connect(args) as client:
        state = client.get_table(args.table)
    show_message(args, state, lambda: format_table(state), out)
    return 0


def format_tables(tables: Sequence[pb.TableSummary]) -> str:
    """The lobby as a table of text, one line per table (``pricing tables``).

    >>> print(format_tables([pb.TableSummary(table_id="bj-1", game=pb.GAME_BLACKJACK, decks=6,
    ...     phase=pb.PHASE_BETTING, version=3, cards_remaining=310, watchers=2, seats=7)]))
    TABLE  GAME       DECKS  SEATS  PHASE          VERSION   LEFT  WATCHERS
    bj-1   BLACKJACK      6      7  BETTING              3    310         2
    """
    id_w = max([5, *(len(t.table_id) for t in tables)])
    lines = [
        f"{'TABLE':<{id_w}}  {'GAME':<9}  DECKS  SEATS  {'PHASE':<13}  VERSION   LEFT  WATCHERS"
    ]
    for t in tables:
        seats = str(t.seats) if t.seats else "-"
        game, phase = enum_short_name(pb.Game, t.game), enum_short_name(pb.Phase, t.phase)
        lines.append(
            f"{t.table_id:<{id_w}}  {game:<9}  {t.decks:>5}  {seats:>5}  "
            f"{phase:<13}  {t.version:>7}  {t.cards_remaining:>5}  "
            f"{t.watchers:>8}"
        )
    return "\n".join(lines)


def run_tables(args: argparse.Namespace, out: TextIO) -> int:
    with connect(args) as client:
        tables = client.list_tables(GAMES[args.game] if args.game else 0)
    if emit_json(args):
        print(json.dumps([message_dict(t) for t in tables]), file=out)
    elif tables:
        print(format_tables(tables), file=out)
    else:
        print("no tables" + (f" of {args.game}" if args.game else ""), file=out)
    return 0
