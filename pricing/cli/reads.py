"""The commands on a server's tables, and ``quote``: ``pricing quote`` (offline, or asking a
server), ``watch``, ``settle``, ``settle-position``, ``table``, ``tables`` (the lobby) and
``health``; each with its parser (``add_quote``, …), bound to the function that runs it."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Final, TextIO

import grpc

from pricing.cards import MAX_DECKS
from pricing.cli.args import (
    UINT64_MAX,
    bet_list,
    card_list,
    check_game_options,
    integer,
    position_leg,
    seconds,
)
from pricing.cli.common import (
    DECKS_NOTE,
    GAMES,
    Commands,
    add_connection,
    add_json,
    add_server,
    add_side_bets,
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
from pricing.cli.two_hands import (
    TWO_HAND_GAMES,
    TWO_HAND_OPTIONS,
    add_two_hand_rules,
    close_at_rtp_bp,
    set_two_hand_rules,
)
from pricing.games.blackjack.decisions import MAX_SPLITS
from pricing.games.blackjack.rounds import MAX_SEATS
from pricing.tables import MAX_STAKE_CENTS
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number, enum_short_name
from pricing.wire import answer_quote

__all__ = [
    "EXIT_STREAM_ENDED",
    "add_health",
    "add_quote",
    "add_settle",
    "add_settle_position",
    "add_table",
    "add_tables",
    "add_watch",
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
            "player_edge",
        )
    },
    "base": ("higher-lower",),
    "mode": ("higher-lower", *TWO_HAND_GAMES),
    "side_bet": ("blackjack", *TWO_HAND_GAMES),
    "close_at_rtp_bp": ("blackjack", *TWO_HAND_GAMES),
    "player": ("baccarat",),
    "banker": ("baccarat",),
    "dragon": ("dragon-tiger",),
    **TWO_HAND_OPTIONS,
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
        rules.close_at_rtp_bp = close_at_rtp_bp(args)
    set_two_hand_rules(request, args)
    request.player_hand.extend(args.player or ([args.dragon] if args.dragon else []))
    request.banker_hand.extend(args.banker or ())
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
                banker_hand=list(request.banker_hand),
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
    printer = WatchPrinter(bets=tuple(args.bets or ()))

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
                args.sleep(0.5)


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


def add_quote(sub: Commands) -> None:
    q = sub.add_parser(
        "quote",
        help="price the next round from the cards seen (every game)",
        description="Prices and odds for a shoe with CARDS seen: Hi-Lo's, Goa Gae's and "
        "Higher/Lower's dynamic bets (Higher/Lower: against --base); blackjack's side bets for "
        "the next round and, with --up, the dealer's outcomes and insurance (an Ace); every "
        "baccarat and Dragon Tiger bet for the next round and, with the cards of a round being "
        "dealt (--player and --banker, --dragon), for that round.",
    )
    q.add_argument("game", choices=list(GAMES), type=str.lower)
    q.add_argument("cards", nargs="*", help="every card seen in this shoe, e.g. 7H KS 2D")
    q.add_argument(
        "--decks", type=integer(0, MAX_DECKS, DECKS_NOTE), default=0,
        help=f"decks in the shoe, 0 to {MAX_DECKS} ({DECKS_NOTE})",
    )  # fmt: skip
    q.add_argument("--up", default=None, help="blackjack: the dealer's up card (not in CARDS)")
    q.add_argument(
        "--hand", type=card_list, default=None, metavar="CARDS",
        help="blackjack, with --up: a player's hand, two cards or more (not in CARDS), e.g. "
        "8S,8H: the EV of every action open to it, the best marked",
    )  # fmt: skip
    q.add_argument(
        "--max-splits", type=integer(1, MAX_SPLITS), default=None,
        help=f"blackjack: a pair splits into N + 1 hands at most, 1 to {MAX_SPLITS} (default "
        f"{MAX_SPLITS})",
    )  # fmt: skip
    q.add_argument(
        "--no-double-after-split", action="store_true", help="blackjack: no double after a split"
    )
    q.add_argument(
        "--base", default=None,
        help="higher-lower: the base card the next card is compared with (not in CARDS; "
        "without it HIGHER, LOWER and SNAP are closed)",
    )  # fmt: skip
    q.add_argument(
        "--mode", choices=["depleting", "continuous"], type=str.lower, default=None,
        help="higher-lower: a continuous shuffler (default: priced on the full shoe without "
        "the base card, CARDS ignored) or a depleting shoe (without CARDS and the base); "
        "baccarat, dragon-tiger: a depleting shoe (default) or a continuous shuffler",
    )  # fmt: skip
    q.add_argument(
        "--rule", choices=["S17", "H17"], type=str.upper, default=None, help="blackjack: S17/H17"
    )
    q.add_argument(
        "--pairs", choices=["perfect-pairs", "any-pair"], type=str.lower, default=None,
        help="blackjack: the pair side bet's preset (default perfect-pairs)",
    )  # fmt: skip
    q.add_argument(
        "--no-crown", action="store_true", help="blackjack: Royal Match without Crown Treasure"
    )
    q.add_argument(
        "--player-edge", action="store_true",
        help="blackjack: also the main bet's player edge of the next round (about 0.1 s on a "
        "full 8-deck shoe)",
    )  # fmt: skip
    add_side_bets(q)
    add_two_hand_rules(q)
    q.add_argument(
        "--player", type=card_list, default=None, metavar="CARDS",
        help="baccarat: the Player's cards of a round being dealt (not in CARDS), e.g. 9S,KD",
    )  # fmt: skip
    q.add_argument(
        "--banker", type=card_list, default=None, metavar="CARDS",
        help="baccarat: the Banker's cards of a round being dealt (not in CARDS)",
    )  # fmt: skip
    q.add_argument(
        "--dragon", default=None, metavar="CARD",
        help="dragon-tiger: the Dragon's card of a round being dealt (not in CARDS)",
    )  # fmt: skip
    q.add_argument(
        "--server", default=None,
        help="ask this gRPC server instead of computing here (same numbers either way)",
    )  # fmt: skip
    add_connection(q)
    add_json(q, "the QuoteResponse")
    q.set_defaults(run=run_quote)


def add_watch(sub: Commands) -> None:
    w = sub.add_parser(
        "watch",
        help="print a table's prices each time they change",
        description="Print a table's state each time it changes, until the table closes "
        "(exit 0): a legend and column header, then one line per version, and a line of its "
        "own for each round that ends; a blackjack version's figures, computed after it is "
        "published, come on lines marked '+ vN' after it. If the table or the server is not "
        "there yet, or the server ends the stream without the table closing (a restart), wait "
        "and reconnect, carrying on from the next version; with --no-wait, exit 1 on an error "
        f"and {EXIT_STREAM_ENDED} when the server ends the stream of a table that did not close.",
    )
    w.add_argument("table", help="table id")
    w.add_argument(
        "--from-version",
        type=integer(0, UINT64_MAX),
        default=0,
        help="skip states before this version (default 0: from the current one)",
    )
    w.add_argument(
        "--no-wait",
        dest="wait",
        action="store_false",
        help="fail at once if the table or server is not there or goes away (default: wait "
        "and reconnect)",
    )
    w.add_argument(
        "--bets", type=bet_list, default=None, metavar="BETS",
        help="baccarat, dragon-tiger: the bets shown, e.g. PLAYER,BANKER,DRAGON_7,PANDA_8 "
        "(default: the main bets and the side bets that fit in 100 columns)",
    )  # fmt: skip
    # A blackjack version is published again once its figures are computed: --json shows each.
    add_json(w, "each TableState published, one per line (messages go to standard error)")
    add_server(w)
    w.set_defaults(run=run_watch)


def add_settle(sub: Commands) -> None:
    t = sub.add_parser("settle", help="settle a bet at the price it was accepted on")
    t.add_argument("table", help="table id")
    t.add_argument(
        "--round", type=integer(1, UINT64_MAX), required=True, help="round_id the bet was on"
    )
    t.add_argument(
        "--version",
        type=integer(1, UINT64_MAX),
        required=True,
        help="table version of the price",
    )
    t.add_argument(
        "--bet",
        required=True,
        help="Hi-Lo LOW HIGH ODD EVEN SEVEN; Goa Gae TRIPLE STRAIGHT_FLUSH JQK STRAIGHT FLUSH "
        "NINE; blackjack ROYAL_MATCH PAIRS (and the side bets a table offers); Higher/Lower "
        "HIGHER LOWER SNAP RANGE_2_5 RANGE_6_9 RANGE_J_A RED BLACK KING_OR_ACE ACE",
    )
    _add_stake(t, "the stake")
    t.add_argument(
        "--seat",
        type=integer(0, MAX_SEATS, "0: a one-seat table"),
        default=0,
        help=f"blackjack: the seat the side bet is on, 1 to {MAX_SEATS} (a one-seat table: may "
        "be left out)",
    )
    add_json(t, "the SettleResponse")
    add_server(t)
    t.set_defaults(run=run_settle)


def _add_stake(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--stake-cents",
        type=integer(1, MAX_STAKE_CENTS),
        required=True,
        help=f"{what}, 1 to {MAX_STAKE_CENTS} cents",
    )


def add_settle_position(sub: Commands) -> None:
    t = sub.add_parser(
        "settle-position",
        help="settle a position: one stake ridden from round to round, a bet each",
        description="A stake carried through legs, each a dynamic bet on a later round at the "
        "price of the version it was accepted on: a win adds floor(value x payout / 100), cut "
        "to the table's max_position_payout_cents (a position that reaches it is collected whole "
        "and rides no further); a loss ends it at 0; a void changes nothing. "
        "After a decided leg, COLLECT_CENTS (at most its value) is taken out; the rest rides on. "
        "Nothing can be added to a riding stake (docs/rules.md §6.3).",
    )
    t.add_argument("table", help="table id")
    _add_stake(t, "the stake put in at the first leg")
    t.add_argument(
        "--leg",
        type=position_leg,
        action="append",
        dest="legs",
        required=True,
        metavar="ROUND:VERSION:BET[:COLLECT_CENTS]",
        help="a leg, in order (repeat, 1 to 1000): the round, the table version of the price, "
        "the bet (e.g. HIGHER) and what is collected after it (default 0)",
    )
    add_json(t, "the SettlePositionResponse")
    add_server(t)
    t.set_defaults(run=run_settle_position)


def add_table(sub: Commands) -> None:
    g = sub.add_parser("table", help="print a summary of a table's current state")
    g.add_argument("table", help="table id")
    add_json(g, "the whole TableState")
    add_server(g)
    g.set_defaults(run=run_table)


def add_tables(sub: Commands) -> None:
    ls = sub.add_parser(
        "tables",
        help="list the server's tables (the lobby)",
        description="Every table the server holds, open or closed: its game, decks, seats "
        "(blackjack), phase, version, cards left in the shoe and the watchers following it.",
    )
    ls.add_argument("--game", choices=list(GAMES), type=str.lower, help="only this game's")
    add_json(ls, "the tables as one JSON list of TableSummary")
    add_server(ls)
    ls.set_defaults(run=run_tables)


def add_health(sub: Commands) -> None:
    h = sub.add_parser("health", help="exit 0 if the server reports SERVING (for HEALTHCHECK)")
    h.add_argument(
        "--service",
        default="",
        help=f"one of {', '.join(health_services()[1:])}; default the whole server",
    )
    h.add_argument(
        "--timeout",
        type=seconds(0.001),
        default=3.0,
        help="seconds to wait, up to 3600 (default 3)",
    )
    add_server(h)
    h.set_defaults(run=run_health)
