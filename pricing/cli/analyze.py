"""``pricing analyze``: the exact theoretical RTP report of a game's bets, or what live
tables' bets returned, read from a data directory (``pricing.analysis.present`` builds both,
imported only when the command runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from pricing.cli.common import GAMES
from pricing.errors import InvalidOption

__all__ = ["run_analyze"]


def run_analyze(args: argparse.Namespace, out: TextIO) -> int:
    from pricing.analysis import present  # noqa: PLC0415 - only this command needs it

    if args.table or args.of_game:
        return _analyze_live(args, out)
    if (args.rounds != 1 or args.cards_per_round != 6) and args.game != "goagae":
        raise InvalidOption("--rounds and --cards-per-round are for goagae")
    if args.game is None:
        raise InvalidOption(
            "analyze needs a game (hilo, goagae, blackjack, higher-lower) for the theoretical "
            "report, or "
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

    blackjack_only = args.bet or args.preset or args.eor or args.rule != "s17" or args.main_game
    report_only = args.burns is not None or args.mode is not None or args.decks
    report_only = report_only or args.rounds != 1 or args.cards_per_round != 6
    if args.game is not None or args.plot or args.paytable or blackjack_only or report_only:
        raise InvalidOption(
            "--table/--game report live tables as they are configured: leave out the game "
            "argument, --paytable, --plot, --bet, --preset, --eor, --rule, --main-game, --burns, "
            "--mode, --decks, --rounds and --cards-per-round"
        )
    game = None if args.of_game is None else Game(GAMES[args.of_game])
    try:
        report = present.build_live(
            Path(args.data_dir), args.table or [], game, args.since, args.until
        )
    except (LookupError, JournalError) as exc:
        print(f"pricing: {exc}", file=sys.stderr)
        return 1
    print(present.as_json(report) if args.json else present.format_live(report), file=out)
    return 0
