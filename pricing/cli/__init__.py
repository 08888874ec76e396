"""Live odds pricing: run the service, watch a table, play a demo dealer feed, quote, settle.

    pricing serve                      # the gRPC service (same flags as server.py)
    pricing simulate --pace 0.5        # a dealer feed playing shuffled decks at table "demo"
    pricing watch demo                 # the prices of table "demo", live
    pricing quote hilo 7H KS 2D        # prices after those cards (offline; --server to ask one)
    pricing quote goagae 2S 3S         # Goa Gae category bets on the next hand
    pricing quote blackjack --decks 6 --up AS KH QS   # side bets, insurance, dealer outcomes
    pricing settle demo --round 3 --version 9 --bet HIGH --stake-cents 1000
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
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO, TypeVar

import grpc
from google.protobuf.message import Message

from pricing import __version__
from pricing.cards import DECK, MAX_DECKS
from pricing.cli.args import UINT64_MAX, check_game_options, fraction, integer, seconds
from pricing.cli.format import (
    WatchPrinter,
    format_quote,
    format_settlement,
    format_state,
    format_table,
    message_dict,
    print_json,
)
from pricing.client import DealerFeed, PricingClient, default_target, retry_delay
from pricing.errors import InvalidOption
from pricing.games.blackjack.hands import dealer_hand_result, hand_total
from pricing.games.blackjack.rounds import MAX_SEATS
from pricing.games.blackjack.strategy import player_draws
from pricing.tables import MAX_STAKE_CENTS, adapter_for
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import answer_quote, config_from_proto, snapshot_to_proto

__all__ = ["EXIT_USAGE", "format_state", "main"]

#: The exit status of a usage error: a bad argument, found here or by the server.
EXIT_USAGE: Final = 2


def _add_server(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        default=None,
        help=f"gRPC address of the service [PRICING_SERVER, default {default_target()}]",
    )
    _add_connection(p)


def _add_connection(p: argparse.ArgumentParser) -> None:
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


def _client(args: argparse.Namespace, timeout: float | None = 10.0) -> PricingClient:
    return PricingClient(
        args.server,
        token=args.token,
        tls_ca=args.tls_ca,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        timeout=timeout,
    )


# ---- commands -------------------------------------------------------------------------------


_GAMES: Final = {"hilo": pb.HILO, "goagae": pb.GOA_GAE, "blackjack": pb.BLACKJACK}
#: The options only some games have (dest -> those games), for ``check_game_options``.
_QUOTE_OPTIONS: Final = {dest: ("blackjack",) for dest in ("up", "rule", "pairs", "no_crown")}
_SIMULATE_OPTIONS: Final = {"mode": ("blackjack",), "seats": ("blackjack",)}
#: The seats ``simulate`` deals a blackjack table unless --seats says otherwise.
_SIMULATED_SEATS: Final = 3


def _emit_json(args: argparse.Namespace) -> bool:
    """Whether the command was asked for ``--json`` (machine-readable output)."""
    return bool(getattr(args, "json", False))


def _show(args: argparse.Namespace, message: Message, text: Callable[[], str], out: TextIO) -> None:
    """Print ``message`` as one line of JSON with ``--json``, else as ``text()``: the one
    place a command chooses between the two."""
    if _emit_json(args):
        print_json(message, out)
    else:
        print(text(), file=out, flush=True)


def _quote_request(args: argparse.Namespace) -> pb.QuoteRequest:
    """The QuoteRequest the command line asks for (the same offline and with --server)."""
    check_game_options(args, args.game, _QUOTE_OPTIONS)
    game = _GAMES[args.game]
    request = pb.QuoteRequest(game=game, decks=args.decks, exposed=args.cards)
    if game == pb.BLACKJACK:
        request.dealer_up_card = args.up or ""
        rules = request.blackjack
        rules.dealer_rule = pb.DealerRule.Value(args.rule or "S17")
        rules.pairs.preset = pb.ANY_PAIR if args.pairs == "any-pair" else pb.PERFECT_PAIRS
        if args.no_crown:
            rules.royal_match.crown_enabled = False
    return request


def _quote(args: argparse.Namespace, out: TextIO) -> int:
    request = _quote_request(args)
    if args.server:
        rules = request.blackjack if request.HasField("blackjack") else None
        with _client(args) as client:
            response = client.quote(
                request.game,
                list(request.exposed),
                decks=request.decks,
                rules=rules,
                dealer_up_card=request.dealer_up_card,
            )
    else:
        response = answer_quote(request)
    _show(args, response, lambda: format_quote(response), out)
    return 0


_WAITABLE = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE)


def _state_printer(args: argparse.Namespace, out: TextIO) -> Callable[[pb.TableState], None]:
    """How ``watch`` prints each state: a JSON line with ``--json``, else the watch lines
    (a legend and column header first, a line of its own for a round that ended)."""
    if _emit_json(args):
        return lambda state: print_json(state, out)
    printer = WatchPrinter()

    def show(state: pb.TableState) -> None:
        print("\n".join(printer.lines(state)), file=out, flush=True)

    return show


#: ``pricing watch``'s exit status when the server ended the stream of a table still open.
EXIT_STREAM_ENDED: Final = 3


def _watch(args: argparse.Namespace, out: TextIO) -> int:
    """Follow a table until it closes; wait for it to open, and across server restarts
    reconnect and resume after the last version shown (one line says so), unless --no-wait.

    A stream ends with OK only when the table closes; a server shutting down ends it with
    UNAVAILABLE."""
    from_version = args.from_version
    waiting = False
    show = _state_printer(args, out)
    notes = sys.stderr if _emit_json(args) else out  # --json: standard output is JSON only

    def reconnecting(line: str) -> None:
        print(line, file=notes, flush=True)

    with _client(args, timeout=None) as client:
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


def _settle(args: argparse.Namespace, out: TextIO) -> int:
    with _client(args) as client:
        s = client.settle(
            args.table, args.round, args.version, args.bet, args.stake_cents, seat=args.seat
        )
    _show(args, s, lambda: format_settlement(s), out)
    return 0


def _health(args: argparse.Namespace, out: TextIO) -> int:
    with _client(args, timeout=args.timeout) as client:
        try:
            status = client.health(args.service)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
            known = ", ".join(repr(name) for name in _health_services())
            raise ValueError(
                f"the server reports no health for service {args.service!r}: ask for one of "
                f"{known} ('' is the whole server)"
            ) from None
    print(status, file=out)
    return 0 if status == "SERVING" else 1


def _health_services() -> list[str]:
    """The service names the server's health service knows: '' and each of its services."""
    names = [service.full_name for service in pb.DESCRIPTOR.services_by_name.values()]
    return ["", *names]


def _table(args: argparse.Namespace, out: TextIO) -> int:
    with _client(args) as client:
        state = client.get_table(args.table)
    _show(args, state, lambda: format_table(state), out)
    return 0


def format_tables(tables: Sequence[pb.TableSummary]) -> str:
    """The lobby as a table of text, one line per table (``pricing tables``).

    >>> print(format_tables([pb.TableSummary(table_id="bj-1", game=pb.BLACKJACK, decks=6,
    ...     phase=pb.BETTING, version=3, cards_remaining=310, watchers=2, seats=7)]))
    TABLE  GAME       DECKS  SEATS  PHASE          VERSION   LEFT  WATCHERS
    bj-1   BLACKJACK      6      7  BETTING              3    310         2
    """
    id_w = max([5, *(len(t.table_id) for t in tables)])
    lines = [
        f"{'TABLE':<{id_w}}  {'GAME':<9}  DECKS  SEATS  {'PHASE':<13}  VERSION   LEFT  WATCHERS"
    ]
    for t in tables:
        seats = str(t.seats) if t.seats else "-"
        lines.append(
            f"{t.table_id:<{id_w}}  {pb.Game.Name(t.game):<9}  {t.decks:>5}  {seats:>5}  "
            f"{pb.Phase.Name(t.phase):<13}  {t.version:>7}  {t.cards_remaining:>5}  "
            f"{t.watchers:>8}"
        )
    return "\n".join(lines)


def _tables(args: argparse.Namespace, out: TextIO) -> int:
    with _client(args) as client:
        tables = client.list_tables(_GAMES[args.game] if args.game else 0)
    if _emit_json(args):
        print(json.dumps([message_dict(t) for t in tables]), file=out)
    elif tables:
        print(format_tables(tables), file=out)
    else:
        print("no tables" + (f" of {args.game}" if args.game else ""), file=out)
    return 0


def _open_request(args: argparse.Namespace) -> pb.OpenTableRequest:
    """The OpenTable request ``simulate`` sends, checked here first by the service's own code
    (an option of another game, decks the game does not have), so a bad argument is found
    before anything is opened or dealt."""
    if not args.table:
        raise ValueError("--table must not be empty")
    check_game_options(args, args.game, _SIMULATE_OPTIONS)
    request = pb.OpenTableRequest(table_id=args.table, game=_GAMES[args.game], decks=args.decks)
    if request.game == pb.BLACKJACK:
        request.blackjack.shuffle_mode = pb.ShuffleMode.Value((args.mode or "depleting").upper())
        request.blackjack.seats = args.seats or _SIMULATED_SEATS
    config = config_from_proto(request.game, request.decks, request)
    adapter_for(config.game).configure(config)
    return request


T = TypeVar("T")


@dataclass
class _Patient:
    """Makes a call until the server answers it: UNAVAILABLE (not up yet, restarting) is
    waited out, said once per outage. A dealer feed's event keeps its seq while it waits, so
    the server applies it once."""

    target: str
    out: TextIO
    waiting: bool = False  # said that the server is unavailable, not yet that it is back

    def resending(self, line: str) -> None:
        """The feed resends an event (or its opening): said once per outage."""
        if not self.waiting:
            self.waiting = True
            print(f"server {self.target} unavailable: retrying", file=self.out, flush=True)

    def __call__(self, call: Callable[[], T]) -> T:
        attempt = 0
        while True:
            try:
                result = call()
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                self.resending(str(exc))
                time.sleep(retry_delay(attempt))
                attempt += 1
                continue
            if self.waiting:
                self.waiting = False
                print(f"server {self.target} is back", file=self.out, flush=True)
            return result


def _simulate(args: argparse.Namespace, out: TextIO) -> int:
    """Deal shuffled shoes into a table as a card reader would (``--game``): Hi-Lo, Goa Gae or
    blackjack; now and then a round is voided. Each state is shown, the opening one first,
    and each is held ``--pace`` seconds (the opening state's pause is round 1's betting)."""
    request = _open_request(args)
    rng = random.Random(args.seed)
    with _client(args) as client:
        patient = _Patient(client.target, out)
        with client.feed(args.table, streamed=args.stream, on_resend=patient.resending) as feed:
            return _deal(args, feed, patient, out, request=request, rng=rng)


def _deal(
    args: argparse.Namespace,
    feed: DealerFeed,
    patient: _Patient,
    out: TextIO,
    *,
    request: pb.OpenTableRequest,
    rng: random.Random,
) -> int:
    """``_simulate``'s dealing, on ``feed``."""
    game = request.game
    rules = request.blackjack if request.HasField("blackjack") else None
    state = patient(lambda: feed.open(game, decks=request.decks, rules=rules))
    print(f"table {args.table!r} at version {state.version}, last_seq {state.last_seq}", file=out)
    printer = WatchPrinter()

    def show(action: str, card: str, state: pb.TableState) -> None:
        *above, line = printer.lines(state)
        for text in above:
            print(f"{'':12}{text}", file=out)
        print(f"{action:<6} {card:>3}  {line}", file=out, flush=True)
        if args.pace:
            time.sleep(args.pace)

    show("OPEN", "", state)
    dealer = _DemoDealer(
        feed,
        rng,
        args.void_rate,
        show,
        continuous=args.mode == "continuous",
        seats=request.blackjack.seats or 1,
        patient=patient,
    )
    play = {pb.HILO: dealer.hilo, pb.GOA_GAE: dealer.goagae, pb.BLACKJACK: dealer.blackjack}
    shoes = 0
    while args.shoes == 0 or shoes < args.shoes:
        if state.exposed or state.phase not in (pb.OPENING, pb.BETTING) or shoes:
            state = patient(feed.new_shoe)
            show("SHOE", "", state)
        cards = [str(c) for c in DECK] * max(1, state.decks)
        rng.shuffle(cards)
        play[game](state, cards)
        shoes += 1
    if args.close:
        show("CLOSE", "", patient(feed.close))
    return 0


Show = Callable[[str, str, pb.TableState], None]


@dataclass
class _DemoDealer:
    """Deals one shuffled shoe of a game into a table (``pricing simulate``)."""

    feed: DealerFeed
    rng: random.Random
    void_rate: float
    show: Show
    continuous: bool = False  # blackjack: the round's cards go back at its end
    seats: int = 1  # blackjack: the seats dealt to
    rule: str = "S17"  # blackjack: how the dealer draws (the table's rule)
    patient: Callable[[Callable[[], pb.TableState]], pb.TableState] = lambda call: call()

    def deal(self, card: str, role: str, seat: int = 0) -> pb.TableState:
        state = self.patient(lambda: self.feed.expose(card, role, seat))
        self.show(f"SEAT {seat}" if seat else role, card, state)
        return state

    def end_round(self) -> pb.TableState:
        """End the round, or now and then void it."""
        if self.rng.random() < self.void_rate:
            state = self.patient(self.feed.void)
            self.show("VOID", "", state)
        else:
            state = self.patient(self.feed.end_round)
            self.show("END", "", state)
        return state

    def hilo(self, state: pb.TableState, cards: list[str]) -> None:
        """5 burns, 10 results; a card shown during betting is a burn that voids the round
        (with --void-rate 1 every card is a burn, until the deck is out)."""
        while state.phase != pb.SHOE_COMPLETE and cards:
            role = "RESULT"
            if state.phase == pb.OPENING or self.rng.random() < self.void_rate:
                role = "BURN"
            state = self.deal(cards.pop(), role)

    def goagae(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds of three PLAYER and three DEALER cards, dealt in turn, until the deck is out."""
        while state.phase != pb.SHOE_COMPLETE and cards:
            for role in (["PLAYER", "DEALER"] * 3)[: len(cards)]:
                self.deal(cards.pop(), role)
            state = self.end_round()

    def blackjack(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds dealt and played as a dealer does (``blackjack_round``). A depleting shoe is
        dealt to a cut card three quarters of the way in; a continuous shuffle deals 20
        rounds, its cards going back after each."""
        cut = max(len(cards) // 4, 2 * self.seats + 1)  # always enough for the first cards
        rounds = 0
        while (rounds < 20) if self.continuous else (len(cards) > cut):
            dealt = self.blackjack_round(cards)
            self.end_round()
            rounds += 1
            if self.continuous:
                cards.extend(dealt)
                self.rng.shuffle(cards)

    def blackjack_round(self, cards: list[str]) -> list[str]:
        """One round (no hole card): a card to each seat, the dealer's up card, a second card
        to each seat; each seat draws by ``player_draws`` (it stops on a blackjack, 21 or a
        bust); then, unless every seat is bust, the dealer draws until the table's rule stands
        (``dealer_hand_result``). A shoe running out ends the draws. Returns the cards dealt."""
        dealt: list[str] = []

        def draw(role: str, seat: int = 0) -> str:
            card = cards.pop()
            dealt.append(card)
            self.deal(card, role, seat)
            return card

        hands: dict[int, list[str]] = {seat: [] for seat in range(1, self.seats + 1)}
        for seat, hand in hands.items():
            hand.append(draw("PLAYER", seat))
        dealer = [draw("DEALER")]
        for seat, hand in hands.items():
            hand.append(draw("PLAYER", seat))
        for seat, hand in hands.items():
            while cards and player_draws(hand, dealer[0]):
                hand.append(draw("PLAYER", seat))
        if any(hand_total(hand)[0] <= 21 for hand in hands.values()):
            while cards and dealer_hand_result(dealer, self.rule) is None:
                dealer.append(draw("DEALER"))
        return dealt


def _add_tables_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ls = sub.add_parser(
        "tables",
        help="list the server's tables (the lobby)",
        description="Every table the server holds, open or closed: its game, decks, seats "
        "(blackjack), phase, version, cards left in the shoe and the watchers following it.",
    )
    ls.add_argument("--game", choices=list(_GAMES), type=str.lower, help="only this game's")
    _add_json(ls, "the tables as one JSON list of TableSummary")
    _add_server(ls)
    ls.set_defaults(run=_tables)


def _analyze(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.analysis import present  # noqa: PLC0415 - only this command needs it

    if args.table or args.of_game:
        return _analyze_live(args, out)
    if args.game is None:
        raise InvalidOption(
            "analyze needs a game (hilo, goagae, blackjack) for the theoretical report, or "
            "--table/--game for live tables' statistics"
        )
    report = present.build_report(args)
    print(present.as_json(report) if args.json else present.format_report(report), file=out)
    if args.plot:
        present.plot_report(report, args.plot)
    return 0


def _analyze_live(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.analysis import present  # noqa: PLC0415
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.tables import Game  # noqa: PLC0415

    if args.game is not None or args.plot or args.paytable:
        raise InvalidOption(
            "--table/--game report live tables as they are configured: leave out the game "
            "argument, --paytable and --plot"
        )
    game = None if args.of_game is None else Game(_GAMES[args.of_game])
    try:
        report = present.build_live(
            Path(args.data_dir), args.table or [], game, args.since, args.until
        )
    except (LookupError, JournalError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    print(present.as_json(report) if args.json else present.format_live(report), file=out)
    return 0


def _add_analyze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    a = sub.add_parser(
        "analyze",
        help="the exact theoretical RTP report, or what a live table's bets returned",
        description="Exact return to player of every dynamic bet, counting the payouts' "
        "rounding and clamps: Hi-Lo per result position, Goa Gae per round, blackjack side "
        "bets on a full shoe and by penetration (simulated shoes, with standard errors). "
        "With --table or --game: live statistics from the server's journal: for each bet, "
        "what one unit staked on every round it was offered returned, against the exact "
        "expectation at the prices offered, flagged beyond 4 standard errors.",
    )
    a.add_argument("game", nargs="?", choices=list(_GAMES), type=str.lower)
    a.add_argument("--paytable", default=None, help="Hi-Lo, Goa Gae: a JSON paytable file")
    _add_json(a, "the report")
    a.add_argument("--plot", default=None, metavar="FILE.png", help="also draw the report")
    a.add_argument(
        "--rounds", type=integer(1), default=1, help="Goa Gae: rounds per deck (1: fresh)"
    )
    a.add_argument("--cards-per-round", type=integer(1, 52), default=6, help="Goa Gae (default 6)")
    a.add_argument("--shoes", type=integer(1), default=100_000, help="blackjack: simulated shoes")
    a.add_argument("--seed", type=integer(0), default=2026, help="blackjack: simulation seed")
    live = a.add_argument_group("live statistics (read from a data directory)")
    live.add_argument(
        "--table",
        action="append",
        metavar="ID",
        help="a table's live statistics; repeat for several tables of one game",
    )
    live.add_argument(
        "--game",
        dest="of_game",
        choices=list(_GAMES),
        type=str.lower,
        help="the live statistics of every table of this game, together",
    )
    live.add_argument(
        "--data-dir",
        default=os.environ.get("PRICING_DATA_DIR", "data"),
        help="the server's data directory (default: $PRICING_DATA_DIR or ./data); read-only, "
        "safe while the server runs; tables gone from the journal are read from its archive",
    )
    live.add_argument(
        "--since", metavar="T", help="rounds ended at or after T (Unix seconds or ISO 8601)"
    )
    live.add_argument("--until", metavar="T", help="rounds ended before T")
    a.set_defaults(run=_analyze)


def _add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help=f"print {what} as JSON (proto field names; 64-bit numbers as strings)",
    )


_DECKS_NOTE: Final = "0: the game's default"


def _add_simulate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    m = sub.add_parser(
        "simulate",
        help="open a table and deal shuffled shoes into it (a demo dealer feed)",
        description="Open a table and deal shuffled shoes into it as a card reader would, "
        "printing each state; every argument is checked before the server is called, and an "
        "unavailable server is waited for.",
    )
    m.add_argument("--table", default="demo", help="table id (default: demo)")
    m.add_argument(
        "--game", choices=list(_GAMES), type=str.lower, default="hilo", help="default hilo"
    )
    m.add_argument(
        "--decks",
        type=integer(0, MAX_DECKS, _DECKS_NOTE),
        default=0,
        help=f"decks, 0 to {MAX_DECKS} ({_DECKS_NOTE}: blackjack 6, the others 1)",
    )
    m.add_argument(
        "--mode",
        choices=["depleting", "continuous"],
        type=str.lower,
        default=None,
        help="blackjack: a depleting shoe (default) or a continuous shuffle",
    )
    m.add_argument(
        "--seats",
        type=integer(1, MAX_SEATS),
        default=None,
        help=f"blackjack: the seats dealt to, 1 to {MAX_SEATS} (default {_SIMULATED_SEATS})",
    )
    m.add_argument(
        "--pace",
        type=seconds(),
        default=1.0,
        help="seconds each state is held, 0 to 3600 (default 1)",
    )
    m.add_argument(
        "--shoes",
        type=integer(0, note="0: until Ctrl-C"),
        default=0,
        help="shoes to deal (default 0: until Ctrl-C)",
    )
    m.add_argument("--seed", type=int, default=None, help="shuffle seed, for a repeatable run")
    m.add_argument(
        "--void-rate",
        type=fraction,
        default=0.05,
        help="chance a round is voided, 0 to 1 (Hi-Lo: a burn during betting; default 0.05)",
    )
    m.add_argument("--close", action="store_true", help="close the table at the end")
    m.add_argument(
        "--stream",
        action="store_true",
        help="send the events on one Feed stream (DealerService.Feed), not a call each",
    )
    _add_server(m)
    m.set_defaults(run=_simulate)


def _journal_export(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.codec import record_to_json  # noqa: PLC0415
    from pricing.journal.tools import export_records  # noqa: PLC0415

    try:
        records = export_records(Path(args.data_dir), args.table)
    except (LookupError, JournalError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    for record in records:
        print(json.dumps(record_to_json(record), separators=(",", ":")), file=out)
    return 0


def _journal_replay(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal.tools import read_lines, replay_lines  # noqa: PLC0415

    lines = sys.stdin if args.file == "-" else read_lines(Path(args.file))
    final = None
    for step in replay_lines(lines):
        final = step.snapshot
        state = snapshot_to_proto(step.snapshot)
        if args.at_version and state.version == args.at_version:
            print(format_state(state), file=out)
            return 0
        if not args.at_version and state.HasField("ended_round"):
            ended = state.ended_round
            result = "void" if ended.void else f"result {ended.result_card}"
            print(
                f"v{state.version:<5} round {ended.round_id:<4} #{ended.result_index:<2} {result}",
                file=out,
            )
    if args.at_version:
        print(f"pricing: the journal ends before version {args.at_version}", file=sys.stderr)
        return 1
    assert final is not None
    print(f"final: {format_state(snapshot_to_proto(final))}", file=out)
    return 0


def _print_checked(checked: Any, out: TextIO, *, salvaged: bool = False) -> None:
    """A journal check's report: SQLite's own check, then one line per table."""
    problems = checked.sqlite_problems
    sqlite_says = "; ".join(problems[:3]) + (
        f"; and {len(problems) - 3} more" * (len(problems) > 3)
    )
    print(f"journal {checked.path}: SQLite quick_check {sqlite_says or 'ok'}", file=out)
    for t in checked.tables:
        if t.snapshot:
            print(f"table {t.table_id!r}: {t.snapshot}", file=out)
        if t.whole:
            print(f"table {t.table_id!r}: whole, versions 1-{t.recorded}", file=out)
        elif not salvaged:
            print(f"table {t.table_id!r}: DAMAGED: {t.problem}", file=out)
        elif t.good:
            print(
                f"table {t.table_id!r}: CUT SHORT at version {t.good}, its last good "
                f"version ({t.recorded} recorded): {t.problem}",
                file=out,
            )
        else:
            print(f"table {t.table_id!r}: DROPPED, no good version: {t.problem}", file=out)
    damaged = sum(not t.whole for t in checked.tables)
    print(f"{len(checked.tables)} table(s), {damaged} damaged", file=out)


def _journal_check(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import check  # noqa: PLC0415

    try:
        checked = check(Path(args.data_dir))
    except JournalError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    _print_checked(checked, out)
    return 0 if checked.whole else 1


def _journal_salvage(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import salvage  # noqa: PLC0415

    try:
        checked = salvage(Path(args.data_dir), Path(args.to))
    except JournalError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    _print_checked(checked, out, salvaged=True)
    kept = sum(t.good > 0 for t in checked.tables)
    print(
        f"salvaged {kept} table(s) into {args.to}: start a server with --data-dir {args.to}",
        file=out,
    )
    return 0


def _journal_backup(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.journal.maintenance import backup  # noqa: PLC0415

    try:
        done = backup(Path(args.data_dir), Path(args.to))
    except (JournalError, OSError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    print(
        f"backed up {done.tables} table(s), {done.events} event(s) to {done.path} and "
        f"{done.archived} archive file(s); restore: start a server with --data-dir {args.to}",
        file=out,
    )
    return 0


def _add_data_dir(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--data-dir",
        default=os.environ.get("PRICING_DATA_DIR", "data"),
        help=f"the server's data directory (default: $PRICING_DATA_DIR or ./data); {what}",
    )


def _add_journal_commands(sub: Any) -> None:
    j = sub.add_parser(
        "journal",
        help="export, replay, check, salvage or back up the journal",
        description="A table's accepted events, as the server journaled them: 'export' prints "
        "them as JSON Lines (seq, version, time accepted, event), 'replay' folds such a file "
        "through the engines and prints each round's result and the final state, or the state "
        "at one version (the prices a bet was accepted on). 'check' says what is damaged, "
        "'salvage' copies what is whole to a new directory, 'backup' takes a consistent copy "
        "while the server runs.",
    )
    jsub = j.add_subparsers(dest="journal_command", required=True, metavar="ACTION")
    e = jsub.add_parser("export", help="print a table's events as JSON Lines")
    e.add_argument("table", help="table id")
    e.add_argument(
        "--data-dir",
        default=os.environ.get("PRICING_DATA_DIR", "data"),
        help="the server's data directory (default: $PRICING_DATA_DIR or ./data); read-only, "
        "safe while the server runs; a table gone from the journal is read from its archive",
    )
    e.set_defaults(run=_journal_export)
    r = jsub.add_parser("replay", help="fold exported events through the engines")
    r.add_argument("file", help="JSON Lines from 'pricing journal export' (.gz too; - for stdin)")
    r.add_argument(
        "--at-version",
        type=int,
        default=0,
        metavar="V",
        help="print only the state at version V (what a bet accepted at V was priced on)",
    )
    r.set_defaults(run=_journal_replay)
    # The operator's tools: (name, help, description, what --data-dir is to it, --to, run).
    tools: tuple[tuple[str, str, str, str, str, Callable[..., int]], ...] = (
        (
            "check",
            "what is damaged in the journal, table by table (exit 1 if anything is)",
            "SQLite's quick_check of journal.sqlite3, then every table: its events against its "
            "recorded last version, folded through the engines, and its snapshot against its "
            "checksum. Exit 0 if all is whole, 1 if anything is damaged.",
            "read-only, safe while the server runs",
            "",
            _journal_check,
        ),
        (
            "salvage",
            "copy the tables whose events are whole into a new data directory",
            "Copy every table whose events are whole, each other table up to its last good "
            "version (reported CUT SHORT), and the archive, into the new directory --to; a "
            "table with no good version is reported DROPPED. Start a server on --to to go on "
            "from what survived.",
            "only read",
            "NEWDIR",
            _journal_salvage,
        ),
        (
            "backup",
            "a consistent copy of the journal and its archive, while the server runs",
            "SQLite's online backup of journal.sqlite3 (the journal as of one moment: every "
            "event acknowledged before the backup began), checked whole, and the archive's "
            "files, into the new directory --to. Restore: start a server with --data-dir on "
            "it. Never back up by copying the files: journal.sqlite3 without its -wal misses "
            "the latest events.",
            "read-only, safe while the server runs",
            "BACKUPDIR",
            _journal_backup,
        ),
    )
    for name, short, description, reads, to, run in tools:
        tool = jsub.add_parser(name, help=short, description=description)
        _add_data_dir(tool, reads)
        if to:
            tool.add_argument("--to", required=True, metavar=to, help="a new directory")
        tool.set_defaults(run=run)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pricing",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Run 'pricing COMMAND --help' for each command's options.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # 'serve' is handed to pricing.server.main before parsing (see main); listed here for --help.
    sub.add_parser("serve", help="run the gRPC service ('pricing serve --help' for its flags)")

    q = sub.add_parser(
        "quote",
        help="price the next round from the cards seen (Hi-Lo, Goa Gae, blackjack)",
        description="Prices and odds for a shoe with CARDS seen: Hi-Lo's and Goa Gae's "
        "dynamic bets; blackjack's side bets for the next round and, with --up, the dealer's "
        "outcomes and insurance (an Ace).",
    )
    q.add_argument("game", choices=list(_GAMES), type=str.lower)
    q.add_argument("cards", nargs="*", help="every card seen in this shoe, e.g. 7H KS 2D")
    q.add_argument(
        "--decks",
        type=integer(0, MAX_DECKS, _DECKS_NOTE),
        default=0,
        help=f"decks in the shoe, 0 to {MAX_DECKS} ({_DECKS_NOTE})",
    )
    q.add_argument("--up", default=None, help="blackjack: the dealer's up card (not in CARDS)")
    q.add_argument(
        "--rule", choices=["S17", "H17"], type=str.upper, default=None, help="blackjack: S17/H17"
    )
    q.add_argument(
        "--pairs",
        choices=["perfect-pairs", "any-pair"],
        type=str.lower,
        default=None,
        help="blackjack: the pair side bet's preset (default perfect-pairs)",
    )
    q.add_argument(
        "--no-crown", action="store_true", help="blackjack: Royal Match without Crown Treasure"
    )
    q.add_argument(
        "--server",
        default=None,
        help="ask this gRPC server instead of computing here (same numbers either way)",
    )
    _add_connection(q)
    _add_json(q, "the QuoteResponse")
    q.set_defaults(run=_quote)

    w = sub.add_parser(
        "watch",
        help="print a table's prices each time they change",
        description="Print a table's state each time it changes, until the table closes "
        "(exit 0): a legend and column header, then one line per version, and a line of its "
        "own for each round that ends. If the table or the server is not there yet, or the "
        "server ends the stream without the table closing (a restart), wait and reconnect, "
        "carrying on from the next version; with --no-wait, exit 1 on an error and "
        f"{EXIT_STREAM_ENDED} when the server ends the stream of a table that did not close.",
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
    _add_json(w, "each TableState, one per line (messages go to standard error)")
    _add_server(w)
    w.set_defaults(run=_watch)

    _add_simulate(sub)

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
        "NINE; blackjack ROYAL_MATCH PAIRS",
    )
    t.add_argument(
        "--stake-cents",
        type=integer(1, MAX_STAKE_CENTS),
        required=True,
        help=f"the stake, 1 to {MAX_STAKE_CENTS} cents",
    )
    t.add_argument(
        "--seat",
        type=integer(0, MAX_SEATS, "0: a one-seat table"),
        default=0,
        help=f"blackjack: the seat the side bet is on, 1 to {MAX_SEATS} (a one-seat table: may "
        "be left out)",
    )
    _add_json(t, "the Settlement")
    _add_server(t)
    t.set_defaults(run=_settle)

    g = sub.add_parser("table", help="print a summary of a table's current state")
    g.add_argument("table", help="table id")
    _add_json(g, "the whole TableState")
    _add_server(g)
    g.set_defaults(run=_table)

    _add_tables_command(sub)
    _add_journal_commands(sub)
    _add_analyze(sub)

    h = sub.add_parser("health", help="exit 0 if the server reports SERVING (for HEALTHCHECK)")
    h.add_argument(
        "--service",
        default="",
        help=f"one of {', '.join(_health_services()[1:])}; default the whole server",
    )
    h.add_argument(
        "--timeout",
        type=seconds(0.001),
        default=3.0,
        help="seconds to wait, up to 3600 (default 3)",
    )
    _add_server(h)
    h.set_defaults(run=_health)
    return p


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from pricing.server.main import main as serve  # noqa: PLC0415 - only this command needs it

        return serve(argv[1:])
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra and args.command == "quote" and not any(e.startswith("-") for e in extra):
        args.cards += extra  # cards after options: pricing quote blackjack --up AS KH QS
    elif extra:
        p.error(f"unrecognized arguments: {' '.join(extra)}")
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
