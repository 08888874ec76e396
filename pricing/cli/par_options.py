"""``pricing analyze GAME --par``'s options: the report's, checked as the report checks them
(``pricing.cli.analyze_options``), with the sheet's own (``--min-rtp``, ``--close-at``, one
``--decks``) and those the sheet has no use for refused by name."""

from __future__ import annotations

import argparse
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from pricing.analysis.build import ReportOptions
from pricing.analysis.par_simulated import MIN_SHOES
from pricing.cli.analyze_options import report_options
from pricing.errors import InvalidOption

__all__ = ["par_options", "parse_percent"]

#: The games dealt from one 52-card deck: no shoe size to choose.
_ONE_DECK = ("hilo", "goagae")
#: The games whose sheet simulates shoes (``--shoes``), in which a table's game protection may
#: close bets.
_PROTECTED = ("blackjack", "baccarat", "dragon-tiger")


def parse_percent(text: str) -> Fraction:
    """``--min-rtp``: a percentage from 0 to 100 as an exact fraction.

    >>> parse_percent("87.5"), parse_percent("90")
    (Fraction(7, 8), Fraction(9, 10))
    >>> parse_percent("101")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: --min-rtp must be a percentage from 0 to 100, got '101'
    """
    try:
        value = Fraction(Decimal(text.strip().rstrip("%")))
    except (InvalidOperation, ValueError):
        value = Fraction(-1)
    if not 0 <= value <= 100:
        raise InvalidOption(f"--min-rtp must be a percentage from 0 to 100, got {text!r}")
    return value / 100


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
    if args.close_at is not None and args.game not in _PROTECTED:
        raise InvalidOption(f"--close-at is for {', '.join(_PROTECTED)}, not {args.game}")
    if args.game == "blackjack":
        # The side bets' options, checked as their report checks them; the shoe is the sheet's.
        base = report_options(argparse.Namespace(**{**vars(args), "decks": None}))
    else:
        base = report_options(args)
    return replace(
        base,
        decks=decks,
        min_rtp=None if args.min_rtp is None else parse_percent(args.min_rtp),
        close_at_rtp_bp=args.close_at or 0,
    )
