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
    pricing analyze hilo --plot hilo.png       # exact RTP report of every dynamic bet

The server address is ``--server`` or ``$PRICING_SERVER`` (default 127.0.0.1:50051); the
dealer-feed token, if the server wants one, is read from ``$PRICING_DEALER_TOKEN``.
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
from typing import Any, Final, TextIO

import grpc
from google.protobuf import json_format

from pricing.basic_strategy import player_draws
from pricing.blackjack import dealer_hand_result, hand_total
from pricing.cards import DECK
from pricing.client import DealerFeed, PricingClient, default_target
from pricing.messages import answer_quote, snapshot_to_proto
from pricing.v1 import pricing_pb2 as pb

__all__ = ["format_prices", "format_state", "main"]


def _odds(hundredths: int) -> str:
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def format_prices(prices: Sequence[pb.BetPrice]) -> str:
    """One line of prices: payout to 1 and winning/remaining cards; ``--`` when closed.

    >>> low = pb.BetPrice(bet="LOW", wins=24, remaining=47, payout_hundredths=96, open=True)
    >>> format_prices([low, pb.BetPrice(bet="SEVEN", wins=0, remaining=47)])
    'LOW  0.96 24/47  SEVEN    -- 0/47'
    """
    cells = []
    for p in prices:
        odds = _odds(p.payout_hundredths) if p.open else "--"
        cells.append(f"{p.bet} {odds:>5} {p.wins}/{p.remaining}")
    return "  ".join(cells)


def format_state(state: pb.TableState) -> str:
    """One line per version, for ``pricing watch``."""
    phase = pb.Phase.Name(state.phase)
    last = state.exposed[-1] if state.exposed else "--"
    ended = ""
    if state.HasField("ended_round"):
        e = state.ended_round
        ended = f"  [round {e.round_id}: {'VOID' if e.void else e.result_card}]"
    head = (
        f"v{state.version:<5} shoe {state.shoe:<3} round {state.round_id:<4} "
        f"#{state.result_index:<2} {phase:<13} last {last:>3}  {state.cards_remaining:>2} left"
    )
    cells = [format_prices(state.prices)] if state.prices else []
    for sb in state.side_bets:
        cells.append(f"{sb.bet} RTP {sb.rtp:.4f}{' (player +)' if sb.player_favourable else ''}")
    if state.HasField("insurance"):
        cells.append(f"INSURANCE RTP {state.insurance.rtp:.4f}")
    return f"{head}  |  {'  '.join(cells)}{ended}"


def _add_server(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--server",
        default=None,
        help=f"gRPC address of the service [PRICING_SERVER, default {default_target()}]",
    )


# ---- commands -------------------------------------------------------------------------------


_GAMES: Final = {"hilo": pb.HILO, "goagae": pb.GOA_GAE, "blackjack": pb.BLACKJACK}


def _quote_request(args: argparse.Namespace) -> pb.QuoteRequest:
    """The QuoteRequest the command line asks for (the same offline and with --server)."""
    game = _GAMES[args.game]
    request = pb.QuoteRequest(game=game, decks=args.decks, exposed=args.cards)
    if game == pb.BLACKJACK:
        request.dealer_up_card = args.up or ""
        rules = request.blackjack
        rules.dealer_rule = pb.DealerRule.Value(args.rule)
        rules.pairs.preset = pb.PERFECT_PAIRS if args.pairs == "perfect-pairs" else pb.ANY_PAIR
        if args.no_crown:
            rules.royal_match.crown_enabled = False
    elif args.up or args.no_crown or args.rule != "S17" or args.pairs != "perfect-pairs":
        raise ValueError("--up, --rule, --pairs and --no-crown are blackjack options")
    return request


def format_quote(response: pb.QuoteResponse) -> str:
    """A quote as text: dynamic prices, then side bets, insurance and dealer outcomes."""
    lines = []
    prices = response.prices
    bet_w = max([6, *(len(p.bet) for p in prices)])
    wins_w = max([2, *(len(str(p.wins)) for p in prices)])
    left_w = max([2, *(len(str(p.remaining)) for p in prices)])
    for p in prices:
        odds = f"{_odds(p.payout_hundredths)} : 1" if p.open else "closed"
        note = "  (clamped)" if p.clamped else ""
        lines.append(f"{p.bet:<{bet_w}} {p.wins:>{wins_w}}/{p.remaining:<{left_w}} {odds}{note}")
    for sb in response.side_bets:
        alert = "  PLAYER-FAVOURABLE" if sb.player_favourable else ""
        lines.append(f"{sb.bet}  RTP {sb.rtp:.6f}{alert}")
        for o in sb.outcomes:
            lines.append(
                f"  {o.name:<8} {o.probability:.6f} ({o.ways}/{o.total})  pays "
                f"{_odds(o.pays_hundredths)} : 1"
            )
    if response.HasField("insurance"):
        i = response.insurance
        alert = "  PLAYER-FAVOURABLE" if i.player_favourable else ""
        lines.append(f"INSURANCE  dealer blackjack {i.probability:.6f}  RTP {i.rtp:.6f}{alert}")
    if response.HasField("dealer_outcomes"):
        d = response.dealer_outcomes
        cells = "  ".join(f"{o.name} {o.probability:.6f}" for o in d.outcomes)
        lines.append(f"DEALER {d.up_card} {pb.DealerRule.Name(d.rule)}  {cells}")
    if response.side_bets:
        lines.append(f"{response.cards_remaining} cards left in the shoe")
    return "\n".join(lines)


def _quote(args: argparse.Namespace, out: TextIO) -> int:
    request = _quote_request(args)
    if args.server:
        rules = request.blackjack if request.HasField("blackjack") else None
        with PricingClient(args.server) as client:
            response = client.quote(
                request.game,
                list(request.exposed),
                decks=request.decks,
                rules=rules,
                dealer_up_card=request.dealer_up_card,
            )
    else:
        response = answer_quote(request)
    print(format_quote(response), file=out)
    return 0


_WAITABLE = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE)


#: ``pricing watch``'s exit status when the server ended the stream of a table still open.
EXIT_STREAM_ENDED: Final = 3


def _watch(args: argparse.Namespace, out: TextIO) -> int:
    """Follow a table until it closes; wait for it to open, and across server restarts
    reconnect and resume after the last version shown (one line says so), unless --no-wait.

    A stream ends with OK only when the table closes; a server shutting down ends it with
    UNAVAILABLE."""
    from_version = args.from_version
    waiting = False

    def reconnecting(line: str) -> None:
        print(line, file=out, flush=True)

    with PricingClient(args.server, timeout=None) as client:
        while True:
            try:
                states = (
                    client.follow_table(args.table, from_version, on_reconnect=reconnecting)
                    if args.wait
                    else client.watch_table(args.table, from_version)
                )
                for state in states:
                    waiting = False
                    print(format_state(state), file=out, flush=True)
                    from_version = state.version + 1
                print(f"table {args.table!r} closed", file=out)
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
                    print(f"waiting for table {args.table!r} ({exc.code().name})", file=out)
                    waiting = True
                time.sleep(0.5)


def _settle(args: argparse.Namespace, out: TextIO) -> int:
    with PricingClient(args.server) as client:
        s = client.settle(
            args.table, args.round, args.version, args.bet, args.stake_cents, seat=args.seat
        )
    status = pb.Settlement.Status.Name(s.status)
    print(
        f"{status}: {s.bet} on round {s.round_id} at version {s.version}, stake "
        f"{s.stake_cents} cents at {_odds(s.payout_hundredths)} : 1 -> returns "
        f"{s.returned_cents} cents"
        + (f" ({s.outcome})" if s.outcome else "")
        + (f" (result {s.result_card})" if s.result_card else ""),
        file=out,
    )
    return 0


def _health(args: argparse.Namespace, out: TextIO) -> int:
    with PricingClient(args.server, timeout=args.timeout) as client:
        status = client.health(args.service)
    print(status, file=out)
    return 0 if status == "SERVING" else 1


def _table(args: argparse.Namespace, out: TextIO) -> int:
    with PricingClient(args.server) as client:
        print(client.get_table(args.table), file=out, end="")
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
    with PricingClient(args.server) as client:
        tables = client.list_tables(_GAMES[args.game] if args.game else 0)
    if args.json:
        rows = [
            json_format.MessageToDict(
                t, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
            )
            for t in tables
        ]
        print(json.dumps(rows), file=out)
    elif tables:
        print(format_tables(tables), file=out)
    else:
        print("no tables" + (f" of {args.game}" if args.game else ""), file=out)
    return 0


def _simulate(args: argparse.Namespace, out: TextIO) -> int:
    """Deal shuffled shoes into a table as a card reader would (``--game``): Hi-Lo, Goa Gae or
    blackjack; now and then a round is voided."""
    rng = random.Random(args.seed)
    with PricingClient(args.server) as client:
        feed = client.feed(args.table)
        game = _GAMES[args.game]
        rules: pb.BlackjackRules | None = None
        if game == pb.BLACKJACK:
            rules = pb.BlackjackRules(
                shuffle_mode=pb.ShuffleMode.Value(args.mode.upper()), seats=args.seats
            )
        state = feed.open(game, decks=args.decks, rules=rules)
        print(
            f"table {args.table!r} at version {state.version}, last_seq {state.last_seq}", file=out
        )

        def show(action: str, card: str, state: pb.TableState) -> None:
            print(f"{action:<6} {card:>3}  " + format_state(state), file=out, flush=True)
            if args.pace:
                time.sleep(args.pace)

        dealer = _DemoDealer(
            feed, rng, args.void_rate, show, args.mode == "continuous", seats=args.seats
        )
        play = {pb.HILO: dealer.hilo, pb.GOA_GAE: dealer.goagae, pb.BLACKJACK: dealer.blackjack}
        shoes = 0
        while args.shoes == 0 or shoes < args.shoes:
            if state.exposed or state.phase not in (pb.OPENING, pb.BETTING) or shoes:
                state = feed.new_shoe()
                show("SHOE", "", state)
            cards = [str(c) for c in DECK] * max(1, state.decks)
            rng.shuffle(cards)
            play[game](state, cards)
            shoes += 1
        if args.close:
            feed.close()
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

    def deal(self, card: str, role: str, seat: int = 0) -> pb.TableState:
        state = self.feed.expose(card, role, seat)
        self.show(f"SEAT {seat}" if seat else role, card, state)
        return state

    def end_round(self) -> pb.TableState:
        """End the round, or now and then void it."""
        if self.rng.random() < self.void_rate:
            state = self.feed.void()
            self.show("VOID", "", state)
        else:
            state = self.feed.end_round()
            self.show("END", "", state)
        return state

    def hilo(self, state: pb.TableState, cards: list[str]) -> None:
        """5 burns, 10 results; a card shown during betting is a burn that voids the round."""
        while state.phase != pb.SHOE_COMPLETE:
            role = "RESULT"
            if state.phase == pb.OPENING or self.rng.random() < self.void_rate:
                role = "BURN"
            state = self.deal(cards.pop(), role)

    def goagae(self, state: pb.TableState, cards: list[str]) -> None:
        """Rounds of three PLAYER and three DEALER cards, dealt in turn, until the deck is out."""
        while state.phase != pb.SHOE_COMPLETE:
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
    ls.add_argument("--json", action="store_true", help="a JSON list instead of text")
    _add_server(ls)
    ls.set_defaults(run=_tables)


def _analyze(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.analysis import present  # noqa: PLC0415 - only this command needs it

    report = present.build_report(args)
    print(present.as_json(report) if args.json else present.format_report(report), file=out)
    if args.plot:
        present.plot_report(report, args.plot)
    return 0


def _add_analyze(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    a = sub.add_parser(
        "analyze",
        help="the exact theoretical RTP report of a game's dynamic bets",
        description="Exact return to player of every dynamic bet, counting the payouts' "
        "rounding and clamps: Hi-Lo per result position, Goa Gae per round, blackjack side "
        "bets on a full shoe and by penetration (simulated shoes, with standard errors).",
    )
    a.add_argument("game", choices=list(_GAMES), type=str.lower)
    a.add_argument("--paytable", default=None, help="Hi-Lo, Goa Gae: a JSON paytable file")
    a.add_argument("--json", action="store_true", help="print JSON instead of a table")
    a.add_argument("--plot", default=None, metavar="FILE.png", help="also draw the report")
    a.add_argument("--rounds", type=int, default=1, help="Goa Gae: rounds per deck (1: fresh)")
    a.add_argument("--cards-per-round", type=int, default=6, help="Goa Gae (default 6)")
    a.add_argument("--shoes", type=int, default=100_000, help="blackjack: simulated shoes")
    a.add_argument("--seed", type=int, default=2026, help="blackjack: simulation seed")
    a.set_defaults(run=_analyze)


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


def _add_journal_commands(sub: Any) -> None:
    j = sub.add_parser(
        "journal",
        help="export a table's journaled events, or replay them through the engines",
        description="A table's accepted events, as the server journaled them: 'export' prints "
        "them as JSON Lines (seq, version, time accepted, event), 'replay' folds such a file "
        "through the engines and prints each round's result and the final state, or the state "
        "at one version (the prices a bet was accepted on).",
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


def parser() -> argparse.ArgumentParser:  # noqa: PLR0915 - one flat declaration per command
    p = argparse.ArgumentParser(
        prog="pricing",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Run 'pricing COMMAND --help' for each command's options.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # 'serve' is handed to pricing.server before parsing (see main); listed here for --help.
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
    q.add_argument("--decks", type=int, default=0, help="decks in the shoe (0: the game's default)")
    q.add_argument("--up", default=None, help="blackjack: the dealer's up card (not in CARDS)")
    q.add_argument(
        "--rule", choices=["S17", "H17"], type=str.upper, default="S17", help="blackjack: S17/H17"
    )
    q.add_argument(
        "--pairs",
        choices=["perfect-pairs", "any-pair"],
        type=str.lower,
        default="perfect-pairs",
        help="blackjack: the pair side bet's preset",
    )
    q.add_argument(
        "--no-crown", action="store_true", help="blackjack: Royal Match without Crown Treasure"
    )
    q.add_argument(
        "--server",
        default=None,
        help="ask this gRPC server instead of computing here (same numbers either way)",
    )
    q.set_defaults(run=_quote)

    w = sub.add_parser(
        "watch",
        help="print a table's prices each time they change",
        description="Print a table's state each time it changes, until the table closes "
        "(exit 0). If the table or the server is not there yet, or the server ends the stream "
        "without the table closing (a restart), wait and reconnect, carrying on from the next "
        f"version; with --no-wait, exit 1 on an error and {EXIT_STREAM_ENDED} when the server "
        "ends the stream of a table that did not close.",
    )
    w.add_argument("table", help="table id")
    w.add_argument("--from-version", type=int, default=0, help="skip states before this one")
    w.add_argument(
        "--no-wait",
        dest="wait",
        action="store_false",
        help="fail at once if the table or server is not there or goes away (default: wait "
        "and reconnect)",
    )
    _add_server(w)
    w.set_defaults(run=_watch)

    m = sub.add_parser("simulate", help="open a table and deal shuffled shoes into it")
    m.add_argument("--table", default="demo", help="table id (default: demo)")
    m.add_argument(
        "--game", choices=list(_GAMES), type=str.lower, default="hilo", help="default hilo"
    )
    m.add_argument("--decks", type=int, default=0, help="blackjack: decks (0: 6)")
    m.add_argument(
        "--mode",
        choices=["depleting", "continuous"],
        type=str.lower,
        default="depleting",
        help="blackjack: a depleting shoe or a continuous shuffle",
    )
    m.add_argument(
        "--seats",
        type=int,
        choices=range(1, 8),
        metavar="1-7",
        default=3,
        help="blackjack: the seats dealt to (default 3)",
    )
    m.add_argument("--pace", type=float, default=1.0, help="seconds between cards (default 1)")
    m.add_argument("--shoes", type=int, default=0, help="shoes to deal; 0 = until Ctrl-C")
    m.add_argument("--seed", type=int, default=None, help="shuffle seed, for a repeatable run")
    m.add_argument(
        "--void-rate",
        type=float,
        default=0.05,
        help="chance a round is voided (Hi-Lo: a burn during betting; default 0.05)",
    )
    m.add_argument("--close", action="store_true", help="close the table at the end")
    _add_server(m)
    m.set_defaults(run=_simulate)

    t = sub.add_parser("settle", help="settle a bet at the price it was accepted on")
    t.add_argument("table", help="table id")
    t.add_argument("--round", type=int, required=True, help="round_id the bet was on")
    t.add_argument("--version", type=int, required=True, help="table version of the price")
    t.add_argument(
        "--bet",
        required=True,
        help="Hi-Lo LOW HIGH ODD EVEN SEVEN; Goa Gae TRIPLE STRAIGHT_FLUSH JQK STRAIGHT FLUSH "
        "NINE; blackjack ROYAL_MATCH PAIRS",
    )
    t.add_argument("--stake-cents", type=int, required=True)
    t.add_argument(
        "--seat",
        type=int,
        choices=range(8),
        metavar="1-7",
        default=0,
        help="blackjack: the seat the side bet is on (a one-seat table: may be left out)",
    )
    _add_server(t)
    t.set_defaults(run=_settle)

    g = sub.add_parser("table", help="print a table's current state")
    g.add_argument("table", help="table id")
    _add_server(g)
    g.set_defaults(run=_table)

    _add_tables_command(sub)
    _add_journal_commands(sub)
    _add_analyze(sub)

    h = sub.add_parser("health", help="exit 0 if the server reports SERVING (for HEALTHCHECK)")
    h.add_argument("--service", default="", help="a service name; default the whole server")
    h.add_argument("--timeout", type=float, default=3.0, help="seconds to wait (default 3)")
    _add_server(h)
    h.set_defaults(run=_health)
    return p


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from pricing.server import main as serve  # noqa: PLC0415 - only this command needs it

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
        return 1
    except ValueError as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the interpreter's flush quiet
        return 141
