"""``pricing analyze``: the exact theoretical RTP report of a game's bets, or what live
tables' bets returned, read from a data directory; its parser (``add_analyze``) and the
function that runs it. The reports are built by ``pricing.analysis.build`` from the options
``pricing.cli.analyze_options`` reads, and shown by ``pricing.cli.report_text`` (text, JSON)
and ``pricing.cli.report_plot``: each imported only when the command runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from pricing.cards import MAX_DECKS
from pricing.cli.args import integer
from pricing.cli.common import GAMES, Commands, add_data_dir, add_json
from pricing.cli.two_hands import add_two_hand_rules
from pricing.errors import InvalidOption
from pricing.games.higher_lower import DEFAULT_BURNS, MAX_BURNS

#: ``pricing.analysis.two_hands_sim.DEFAULT_CUT_CARD``, without loading the analysis to say
#: it in the help (a test holds them equal).
_DEFAULT_CUT_CARD = 14

__all__ = ["add_analyze", "run_analyze"]


def run_analyze(args: argparse.Namespace, out: TextIO) -> int:
    # Only this command needs the analysis: the others never load it.
    from pricing.analysis.build import build_report  # noqa: PLC0415
    from pricing.cli.analyze_options import report_options  # noqa: PLC0415
    from pricing.cli.report_text import as_json, format_report  # noqa: PLC0415

    if args.table or args.of_game:
        return _analyze_live(args, out)
    sheet_only = [
        flag
        for flag, given in (
            ("--min-rtp", args.min_rtp is not None),
            ("--close-at-rtp-bp", args.close_at_rtp_bp is not None),
            ("--commission", args.commission is not None),
            ("--tie-pays", args.tie_pays is not None),
            ("--side-bet", args.side_bet is not None),
            ("--csv", args.csv is not None),
            ("--html", args.html is not None),
        )
        if given
    ]
    if args.par:
        return _analyze_par(args, out)
    if sheet_only:
        raise InvalidOption(f"{', '.join(sheet_only)}: for the PAR sheet (--par)")
    if (args.rounds != 1 or args.cards_per_round != 6) and args.game != "goagae":
        raise InvalidOption("--rounds and --cards-per-round are for goagae")
    if args.game is None:
        raise InvalidOption(
            "analyze needs a game (hilo, goagae, blackjack, higher-lower, baccarat, dragon-tiger) "
            "for the theoretical "
            "report, or "
            "--table/--game for live tables' statistics"
        )
    report = build_report(report_options(args))
    print(as_json(report) if args.json else format_report(report), file=out)
    if args.plot:
        from pricing.cli.report_plot import plot_report  # noqa: PLC0415 - matplotlib's, if asked

        plot_report(report, args.plot)
    return 0


def _analyze_par(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.analysis.par_build import build_par_sheet  # noqa: PLC0415
    from pricing.cli.par_options import par_options  # noqa: PLC0415
    from pricing.cli.par_text import format_par  # noqa: PLC0415

    if args.game is None:
        raise InvalidOption("--par needs a game: " + ", ".join(GAMES))
    sheet = build_par_sheet(par_options(args))  # the output paths checked first
    if args.csv is not None:
        from pricing.cli.par_csv import write_par_csv  # noqa: PLC0415

        write_par_csv(sheet, Path(args.csv))
    if args.html is not None:
        from pricing.cli.par_html import write_par_html  # noqa: PLC0415

        write_par_html(sheet, Path(args.html))
    print(json.dumps(sheet.as_dict(), indent=2) if args.json else format_par(sheet), file=out)
    return 0


def _analyze_live(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.analysis.build import build_live  # noqa: PLC0415
    from pricing.cli.analyze_options import live_window  # noqa: PLC0415
    from pricing.cli.report_text import as_json, format_live  # noqa: PLC0415
    from pricing.journal import JournalError  # noqa: PLC0415
    from pricing.tables import Game  # noqa: PLC0415

    blackjack_only = args.bet or args.preset or args.eor or args.rule != "s17" or args.main_game
    report_only = args.burns is not None or args.mode is not None or args.decks
    report_only = report_only or args.cut_card is not None or args.no_burn
    report_only = report_only or args.rounds != 1 or args.cards_per_round != 6
    if args.game is not None or args.plot or args.paytable or blackjack_only or report_only:
        raise InvalidOption(
            "--table/--game report live tables as they are configured: leave out the game "
            "argument, --paytable, --plot, --bet, --preset, --eor, --rule, --main-game, --burns, "
            "--mode, --decks, --cut-card, --no-burn, --rounds and --cards-per-round"
        )
    game = None if args.of_game is None else Game(GAMES[args.of_game])
    since, until = live_window(args)
    try:
        report = build_live(Path(args.data_dir), args.table or [], game, since, until)
    except (LookupError, JournalError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    print(as_json(report) if args.json else format_live(report), file=out)
    return 0


def add_analyze(sub: Commands) -> None:
    a = sub.add_parser(
        "analyze",
        help="the exact theoretical RTP report, or what a live table's bets returned",
        description="Exact return to player of every dynamic bet, counting the payouts' "
        "rounding and clamps: Hi-Lo per result position, Goa Gae per round, blackjack side "
        "bets (every bet of the side-bet library under each of its presets, or --bet's) on "
        "a full shoe and by penetration (simulated shoes, with standard errors), or with "
        "--eor their exact effect of removal by rank; Higher/Lower (higher-lower) per base card "
        "in a continuous shuffler and per round of a depleting shoe; baccarat and dragon-tiger: "
        "every bet's exact full-shoe RTP under each variant and preset, its exact effect of "
        "removal, and simulated shoes dealt to a cut card (how often each bet is "
        "player-favourable, what an exact player and a card counter win per shoe, with and "
        "without game protection). "
        "With --table or --game: live statistics from the server's journal: for each bet, "
        "what one unit staked on every round it was offered returned, against the exact "
        "expectation at the prices offered, flagged beyond 4 standard errors.",
    )
    a.add_argument("game", nargs="?", choices=list(GAMES), type=str.lower)
    a.add_argument(
        "--paytable", default=None, help="Hi-Lo, Goa Gae, Higher/Lower: a JSON paytable file"
    )
    add_json(a, "the report")
    a.add_argument("--plot", default=None, metavar="FILE.png", help="also draw the report")
    a.add_argument(
        "--rounds", type=integer(1), default=1, help="Goa Gae: rounds per deck (1: fresh)"
    )
    a.add_argument("--cards-per-round", type=integer(1, 52), default=6, help="Goa Gae (default 6)")
    a.add_argument(
        "--shoes",
        type=integer(1),
        default=None,
        help="blackjack: simulated shoes of each size (default 1,000); baccarat, dragon-tiger "
        "(default 200); with --par at least 2",
    )
    a.add_argument(
        "--seed",
        type=integer(0),
        default=None,
        help="blackjack, baccarat, dragon-tiger: simulation seed (default 2026)",
    )
    a.add_argument(
        "--bet",
        metavar="NAME",
        type=str.upper,
        help="blackjack: only this side bet of the library (e.g. PAIRS), under each preset; "
        "baccarat, dragon-tiger: the bets (comma-separated) the penetration table and the plot "
        "show (default DRAGON_7,PANDA_8,PLAYER_PAIR; TIE,SUITED_TIE)",
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
    _add_par(a)
    two = a.add_argument_group(
        "baccarat, dragon-tiger (also --decks: the shoe sizes, default the full-shoe RTPs of 1, "
        "2, 4, 6, 8 decks and the rest of 8; --shoes, --seed, --bet, --plot)"
    )
    two.add_argument(
        "--cut-card",
        type=integer(0),
        default=None,
        metavar="CARDS",
        help=f"cards behind the cut card (default {_DEFAULT_CUT_CARD}, Jacobson's standard): "
        "the round it comes out in is finished and one more is dealt",
    )
    two.add_argument(
        "--no-burn",
        action="store_true",
        help="deal from the first card (default: the opening burn, the first card turned and "
        "as many more as its value, a ten or face 10)",
    )
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


def _add_par(a: argparse.ArgumentParser) -> None:
    p = a.add_argument_group(
        "PAR sheet (docs/analysis/par-sheet.md): the math report a test lab signs, every figure "
        "exact where it can be (--json: each as num/den beside its float)"
    )
    p.add_argument(
        "--par",
        action="store_true",
        help="the game's PAR sheet: per bet every outcome (net pay, probability, 1 in X, share "
        "of RTP), RTP, house edge, hit frequency, variance, standard deviation, volatility "
        "index at 90/95/99 %% with the realised-RTP range after 10^3..10^8 rounds, max win; "
        "for odds that move with the shoe the RTP's spread over the rounds dealt. The game's "
        "options apply (--paytable, --decks: one shoe, --shoes, --seed, --cut-card, --rule, "
        "--bet: blackjack's side bet, baccarat's and dragon-tiger's bets to show, "
        "comma-separated; --preset, --rounds, --burns, --mode; baccarat and dragon-tiger: the "
        "table's --commission, --tie-pays, --side-bet; --close-at-rtp-bp)",
    )
    p.add_argument(
        "--min-rtp",
        metavar="PCT",
        help="with --par: a jurisdiction's minimum RTP in percent (e.g. 85); each moving bet's "
        "share of rounds below it is given",
    )
    add_two_hand_rules(p)
    p.add_argument(
        "--side-bet",
        action="append",
        metavar="BET[:PRESET]",
        default=None,
        help="with --par, baccarat, dragon-tiger: the table's side bets by name and preset "
        "(repeat for more), as simulate takes them; default every side bet at its default "
        "preset (blackjack: --bet and --preset)",
    )
    p.add_argument("--csv", metavar="DIR", help="with --par: also write one CSV file per table")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="with --par: also write a self-contained printable HTML page with its plots",
    )


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
