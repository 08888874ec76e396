"""``pricing analyze GAME --par``'s options: the report's, checked as the report checks them
(``pricing.cli.analyze_options``), with the sheet's own (``--min-rtp``, one ``--decks``, a
baccarat or Dragon Tiger table's rules, game protection, the output files) and those the sheet
has no use for refused by name, all before any figure is computed."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from pricing.analysis.build import ReportOptions
from pricing.analysis.par_simulated import MIN_SHOES
from pricing.analysis.two_hands import check_shown
from pricing.cards import CARDS_PER_DECK
from pricing.cli.analyze_options import report_options
from pricing.cli.two_hands import TWO_HAND_GAMES, set_two_hand_rules
from pricing.errors import InvalidOption
from pricing.games import baccarat, dragon_tiger
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.tables import Game
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import RULES_FROM_PROTO

__all__ = ["check_outputs", "par_options", "parse_percent"]

#: The games dealt from one 52-card deck: no shoe size to choose.
_ONE_DECK = ("hilo", "goagae")
#: The games whose sheet simulates shoes (``--shoes``), in which a table's game protection may
#: close bets.
_PROTECTED = ("blackjack", "baccarat", "dragon-tiger")


def parse_percent(text: str) -> Fraction:
    """``--min-rtp``: a percentage from 0 to 100 as an exact fraction.

    >>> parse_percent("87.5"), parse_percent("90")
    (Fraction(7, 8), Fraction(9, 10))
    >>> parse_percent("inf")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: --min-rtp must be a percentage from 0 to 100, got 'inf'
    """
    try:
        number = Decimal(text.strip().rstrip("%"))
    except InvalidOperation:
        number = Decimal(-1)
    value = Fraction(number) if number.is_finite() else Fraction(-1)
    if not 0 <= value <= 100:
        raise InvalidOption(f"--min-rtp must be a percentage from 0 to 100, got {text!r}")
    return value / 100


def check_outputs(args: argparse.Namespace) -> None:
    """``--csv DIR`` and ``--html FILE`` can be written: checked before the sheet is computed,
    so that a bad path costs nothing and leaves nothing behind."""
    if args.csv is not None:
        folder = Path(args.csv)
        if folder.exists() and not folder.is_dir():
            raise InvalidOption(f"--csv {args.csv}: a file, not a folder for the CSV files")
        existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
        if not os.access(existing, os.W_OK):
            raise InvalidOption(f"--csv {args.csv}: {existing} cannot be written")
    if args.html is not None:
        page = Path(args.html)
        if page.is_dir():
            raise InvalidOption(f"--html {args.html}: a folder, not a file for the page")
        parent = page.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK):
            raise InvalidOption(f"--html {args.html}: no folder {parent} to write it in")


def _two_hand_options(args: argparse.Namespace, base: ReportOptions, decks: int) -> ReportOptions:
    """A baccarat or Dragon Tiger table's rules from ``--commission``, ``--tie-pays``,
    ``--side-bet`` and ``--close-at-rtp-bp``, read as the server reads a table's (every side
    bet at its default preset unless ``--side-bet`` names them); ``--bet`` (the bets to show)
    and ``--cut-card`` checked."""
    name = args.game
    cards = decks * CARDS_PER_DECK
    if args.cut_card is not None and args.cut_card >= cards:
        raise InvalidOption(
            f"--cut-card {args.cut_card}: a shoe of {decks} decks has {cards} cards; the cut "
            f"card goes at most {cards - 1} from the end"
        )
    out = replace(base, bets=check_shown(name, tuple((args.bet or "").split(","))))
    if (args.commission, args.tie_pays, args.side_bet, args.close_at_rtp_bp) == (None,) * 4:
        return out
    request = pb.AnalyzeRequest()
    set_two_hand_rules(request, args)
    sides = (baccarat if name == "baccarat" else dragon_tiger).SIDE_BETS
    message = request.baccarat if name == "baccarat" else request.dragon_tiger
    if args.side_bet is None:
        for bet in sides:
            message.side_bets[bet].preset = ""
    game = Game.BACCARAT if name == "baccarat" else Game.DRAGON_TIGER
    field, convert = RULES_FROM_PROTO[game]
    rules = convert(getattr(request, field))
    assert isinstance(rules, BaccaratRules | DragonTigerRules)
    return replace(
        out, two_hand_paytables=tuple(rules.paytables), close_at_rtp_bp=rules.close_at_rtp_bp
    )


def par_options(args: argparse.Namespace) -> ReportOptions:
    """The sheet ``args`` ask for; ``InvalidOption`` naming an option it does not take."""
    unused = [
        flag
        for flag, given in (
            ("--plot (the sheet's plots are in --html)", args.plot),
            ("--main-game (the sheet has the main game)", args.main_game),
            ("--eor", args.eor),
            ("--points", args.points is not None),
            ("--all-rules", args.all_rules),
        )
        if given
    ]
    if unused:
        raise InvalidOption(f"{', '.join(unused)}: not with --par")
    if (args.rounds != 1 or args.cards_per_round != 6) and args.game != "goagae":
        raise InvalidOption("--rounds and --cards-per-round are for goagae")
    decks = tuple(args.decks or ())
    if decks and args.game in _ONE_DECK:
        raise InvalidOption(
            f"--decks: {args.game} deals from one 52-card deck; a sheet's --decks is for "
            "higher-lower, blackjack, baccarat and dragon-tiger"
        )
    if len(decks) > 1:
        raise InvalidOption(f"--par takes one --decks, got {len(decks)}")
    if args.game in _PROTECTED and args.shoes is not None and args.shoes < MIN_SHOES:
        raise InvalidOption(
            f"--shoes must be at least {MIN_SHOES} for a PAR sheet (its standard errors need two "
            f"shoes), got {args.shoes}"
        )
    if args.close_at_rtp_bp is not None and args.game not in _PROTECTED:
        raise InvalidOption(f"--close-at-rtp-bp is for {', '.join(_PROTECTED)}, not {args.game}")
    for flag, value, games in (
        ("--commission", args.commission, ("baccarat",)),
        ("--tie-pays", args.tie_pays, TWO_HAND_GAMES),
        ("--side-bet", args.side_bet, TWO_HAND_GAMES),
    ):
        if value is not None and args.game not in games:
            raise InvalidOption(f"{flag} is for {' and '.join(games)}, not {args.game}")
    check_outputs(args)
    if args.game == "blackjack":
        # The side bets' options, checked as their report checks them; the shoe is the sheet's.
        base = report_options(argparse.Namespace(**{**vars(args), "decks": None}))
    elif args.game in TWO_HAND_GAMES:
        base = report_options(argparse.Namespace(**{**vars(args), "bet": None}))
    else:
        base = report_options(args)
    base = replace(
        base,
        decks=decks,
        min_rtp=None if args.min_rtp is None else parse_percent(args.min_rtp),
        close_at_rtp_bp=args.close_at_rtp_bp or 0,
    )
    if args.game in TWO_HAND_GAMES:
        return _two_hand_options(args, base, decks[0] if decks else 8)
    return base
