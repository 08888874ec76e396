"""The ``pricing`` command line: the argparse tree, every command's arguments and flags in one
place, each command bound to the function that runs it (``run``, called by
``pricing.cli.main``)."""

from __future__ import annotations

import argparse
from typing import Final

from pricing import __version__
from pricing.cards import MAX_DECKS
from pricing.cli.analyze import run_analyze
from pricing.cli.args import UINT64_MAX, card_list, fraction, integer, position_leg, seconds
from pricing.cli.common import GAMES, Commands, add_data_dir
from pricing.cli.journal import add_journal_commands
from pricing.cli.reads import (
    EXIT_STREAM_ENDED,
    health_services,
    run_health,
    run_quote,
    run_settle,
    run_settle_position,
    run_table,
    run_tables,
    run_watch,
)
from pricing.cli.simulate import SIMULATED_SEATS, run_simulate
from pricing.client import default_target
from pricing.games.blackjack.decisions import MAX_SPLITS
from pricing.games.blackjack.rounds import MAX_SEATS
from pricing.games.higher_lower import DEFAULT_BURNS, MAX_BURNS
from pricing.tables import MAX_STAKE_CENTS

__all__ = ["build_parser"]

_DECKS_NOTE: Final = "0: the game's default"


def build_parser(description: str | None) -> argparse.ArgumentParser:
    """The parser of ``pricing``'s whole command line, headed by ``description``; ``--help``
    lists the commands in the order they are added here."""
    p = argparse.ArgumentParser(
        prog="pricing",
        description=description,
        epilog="Run 'pricing COMMAND --help' for each command's options.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # 'serve' is handed to pricing.server.process before parsing (see pricing.cli.main); listed
    # here for --help.
    sub.add_parser("serve", help="run the gRPC service ('pricing serve --help' for its flags)")

    _add_quote(sub)
    _add_watch(sub)
    _add_simulate(sub)
    _add_settle(sub)
    _add_settle_position(sub)
    _add_table(sub)
    _add_tables(sub)
    add_journal_commands(sub)
    _add_analyze(sub)
    _add_health(sub)
    return p


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
    c.add_argument(
        "--tls-server-name", default=None, metavar="NAME",
        help="check the server's certificate for NAME instead of the --server host (for a "
        "--server listing several replicas, ipv4:A:PORT,B:PORT) [PRICING_TLS_SERVER_NAME]",
    )  # fmt: skip


def _add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help=f"print {what} as JSON (proto field names; 64-bit numbers as strings)",
    )


def _add_side_bets(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--side-bet",
        action="append",
        metavar="BET[:PRESET]",
        default=None,
        help="blackjack: a side bet to offer, by its name and optionally a preset (repeat for "
        "more; default ROYAL_MATCH and PAIRS), e.g. HOT_3 or TWENTY_ONE_PLUS_THREE:flat-9; the "
        "bets and presets are listed in docs/rules.md 3.8",
    )


def _add_quote(sub: Commands) -> None:
    q = sub.add_parser(
        "quote",
        help="price the next round from the cards seen (Hi-Lo, Goa Gae, blackjack, Higher/Lower)",
        description="Prices and odds for a shoe with CARDS seen: Hi-Lo's, Goa Gae's and "
        "Higher/Lower's dynamic bets (Higher/Lower: against --base); blackjack's side bets for "
        "the next round and, with --up, the dealer's outcomes and insurance (an Ace).",
    )
    q.add_argument("game", choices=list(GAMES), type=str.lower)
    q.add_argument("cards", nargs="*", help="every card seen in this shoe, e.g. 7H KS 2D")
    q.add_argument(
        "--decks", type=integer(0, MAX_DECKS, _DECKS_NOTE), default=0,
        help=f"decks in the shoe, 0 to {MAX_DECKS} ({_DECKS_NOTE})",
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
        "the base card, CARDS ignored) or a depleting shoe (without CARDS and the base)",
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
    _add_side_bets(q)
    q.add_argument(
        "--server", default=None,
        help="ask this gRPC server instead of computing here (same numbers either way)",
    )  # fmt: skip
    _add_connection(q)
    _add_json(q, "the QuoteResponse")
    q.set_defaults(run=run_quote)


def _add_watch(sub: Commands) -> None:
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
    # A blackjack version is published again once its figures are computed: --json shows each.
    _add_json(w, "each TableState published, one per line (messages go to standard error)")
    _add_server(w)
    w.set_defaults(run=run_watch)


def _add_simulate(sub: Commands) -> None:
    m = sub.add_parser(
        "simulate",
        help="open a table and deal shuffled shoes into it (a demo dealer feed)",
        description="Open a table and deal shuffled shoes into it as a card reader would, "
        "printing each state; every argument is checked before the server is called, and an "
        "unavailable server is waited for.",
    )
    m.add_argument(
        "--table", default=None,
        help="table id (default: demo for hilo, demo-GAME for the others, e.g. "
        "demo-higher-lower: each game's demo its own table)",
    )  # fmt: skip
    m.add_argument(
        "--game", choices=list(GAMES), type=str.lower, default="hilo", help="default hilo"
    )
    m.add_argument(
        "--decks", type=integer(0, MAX_DECKS, _DECKS_NOTE), default=0,
        help=f"decks, 0 to {MAX_DECKS} ({_DECKS_NOTE}: blackjack and higher-lower 6, the others 1)",
    )  # fmt: skip
    m.add_argument(
        "--mode",
        choices=["depleting", "continuous"],
        type=str.lower,
        default=None,
        help="blackjack: a depleting shoe (default) or a continuous shuffle; higher-lower: a "
        "continuous shuffler (default) or a depleting shoe",
    )
    m.add_argument(
        "--seats",
        type=integer(1, MAX_SEATS),
        default=None,
        help=f"blackjack: the seats dealt to, 1 to {MAX_SEATS} (default {SIMULATED_SEATS})",
    )
    _add_side_bets(m)
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
        help="chance a round is voided, 0 to 1 (Hi-Lo: a burn during betting; Higher/Lower: "
        "a VoidRound; default 0.05)",
    )
    m.add_argument("--close", action="store_true", help="close the table at the end")
    m.add_argument(
        "--stream",
        action="store_true",
        help="send the events on one Feed stream (DealerService.Feed), not a call each",
    )
    _add_server(m)
    m.set_defaults(run=run_simulate)


def _add_settle(sub: Commands) -> None:
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
    _add_json(t, "the SettleResponse")
    _add_server(t)
    t.set_defaults(run=run_settle)


def _add_stake(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--stake-cents",
        type=integer(1, MAX_STAKE_CENTS),
        required=True,
        help=f"{what}, 1 to {MAX_STAKE_CENTS} cents",
    )


def _add_settle_position(sub: Commands) -> None:
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
    _add_json(t, "the SettlePositionResponse")
    _add_server(t)
    t.set_defaults(run=run_settle_position)


def _add_table(sub: Commands) -> None:
    g = sub.add_parser("table", help="print a summary of a table's current state")
    g.add_argument("table", help="table id")
    _add_json(g, "the whole TableState")
    _add_server(g)
    g.set_defaults(run=run_table)


def _add_tables(sub: Commands) -> None:
    ls = sub.add_parser(
        "tables",
        help="list the server's tables (the lobby)",
        description="Every table the server holds, open or closed: its game, decks, seats "
        "(blackjack), phase, version, cards left in the shoe and the watchers following it.",
    )
    ls.add_argument("--game", choices=list(GAMES), type=str.lower, help="only this game's")
    _add_json(ls, "the tables as one JSON list of TableSummary")
    _add_server(ls)
    ls.set_defaults(run=run_tables)


def _add_analyze(sub: Commands) -> None:
    a = sub.add_parser(
        "analyze",
        help="the exact theoretical RTP report, or what a live table's bets returned",
        description="Exact return to player of every dynamic bet, counting the payouts' "
        "rounding and clamps: Hi-Lo per result position, Goa Gae per round, blackjack side "
        "bets (every bet of the side-bet library under each of its presets, or --bet's) on "
        "a full shoe and by penetration (simulated shoes, with standard errors), or with "
        "--eor their exact effect of removal by rank; Higher/Lower (higher-lower) per base card "
        "in a continuous shuffler and per round of a depleting shoe. "
        "With --table or --game: live statistics from the server's journal: for each bet, "
        "what one unit staked on every round it was offered returned, against the exact "
        "expectation at the prices offered, flagged beyond 4 standard errors.",
    )
    a.add_argument("game", nargs="?", choices=list(GAMES), type=str.lower)
    a.add_argument(
        "--paytable", default=None, help="Hi-Lo, Goa Gae, Higher/Lower: a JSON paytable file"
    )
    _add_json(a, "the report")
    a.add_argument("--plot", default=None, metavar="FILE.png", help="also draw the report")
    a.add_argument(
        "--rounds", type=integer(1), default=1, help="Goa Gae: rounds per deck (1: fresh)"
    )
    a.add_argument("--cards-per-round", type=integer(1, 52), default=6, help="Goa Gae (default 6)")
    a.add_argument(
        "--shoes",
        type=integer(1),
        default=None,
        help="blackjack: simulated shoes of each size (default 1,000)",
    )
    a.add_argument(
        "--seed", type=integer(0), default=None, help="blackjack: simulation seed (default 2026)"
    )
    a.add_argument(
        "--bet",
        metavar="NAME",
        type=str.upper,
        help="blackjack: only this side bet of the library (e.g. PAIRS), under each preset",
    )
    a.add_argument("--preset", metavar="P", help="blackjack, with --bet: only this preset of it")
    a.add_argument(
        "--eor",
        action="store_true",
        help="blackjack: the exact effect of removal by rank instead of the penetration report",
    )
    a.add_argument(
        "--rule",
        choices=["s17", "h17"],
        type=str.lower,
        default="s17",
        help="blackjack: the dealer stands (s17, the default) or hits soft 17 (h17)",
    )
    _add_main_game(a)
    hl = a.add_argument_group("Higher/Lower (also --decks: one shoe size, default 6)")
    hl.add_argument(
        "--burns",
        type=integer(0, MAX_BURNS),
        default=None,
        help=f"burn cards before each result (default {DEFAULT_BURNS})",
    )
    hl.add_argument(
        "--mode",
        choices=["continuous", "depleting", "both"],
        type=str.lower,
        default=None,
        help="the shuffle: a continuous shuffler, a depleting shoe or both (the default)",
    )
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
        choices=list(GAMES),
        type=str.lower,
        help="the live statistics of every table of this game, together",
    )
    add_data_dir(
        live,
        "read-only, safe while the server runs; tables gone from the journal are read from its "
        "archive",
    )
    live.add_argument(
        "--since", metavar="T", help="rounds ended at or after T (Unix seconds or ISO 8601)"
    )
    live.add_argument("--until", metavar="T", help="rounds ended before T")
    a.set_defaults(run=run_analyze)


def _add_main_game(a: argparse.ArgumentParser) -> None:
    m = a.add_argument_group(
        "blackjack main game (docs/rules.md 3.9): the full-shoe player edge of each rule set, "
        "the EV given each up card, and the next round's edge by penetration (--shoes, --seed, "
        "--rule and --plot apply)"
    )
    m.add_argument(
        "--main-game",
        action="store_true",
        help="the main game's report instead of the side bets' (default 100 shoes)",
    )
    m.add_argument(
        "--decks",
        action="append",
        type=integer(1, MAX_DECKS),
        metavar="N",
        help="with --main-game: the shoe size of the up-card and penetration tables (repeat "
        "for more; default 6)",
    )
    m.add_argument(
        "--points",
        metavar="P,P,...",
        help="with --main-game: percent of the shoe dealt at which to price the next round "
        "(default 0,10,...,90)",
    )
    m.add_argument(
        "--all-rules",
        action="store_true",
        help="with --main-game: the full-shoe table for every rule set (dealer rule, double "
        "after split, 1 or 3 splits, surrender), not only the default rules",
    )


def _add_health(sub: Commands) -> None:
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
    _add_server(h)
    h.set_defaults(run=run_health)
