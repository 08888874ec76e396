"""``pricing analyze``'s options read into what the reports take: the theoretical report's
``ReportOptions`` (each option checked to belong to the report asked for, and named if it does
not), a paytable file, and the live statistics' ``--since``/``--until``. Imported only when the
command runs: the other commands never load the analysis.

A paytable file is JSON: ``{"LOW": {"rtp_bp": 9600, "min_hundredths": 52, "max_hundredths":
264}, ...}`` with any of the game's bets (the others keep the default).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
from typing import Final

from pricing.analysis.build import AnalyzedGame, Paytable, ReportOptions
from pricing.analysis.main_game import parse_points
from pricing.errors import InvalidOption
from pricing.games.blackjack.rules import DealerRule
from pricing.games.goagae import GoaGaePaytable
from pricing.games.higher_lower import HigherLowerPaytable, ShuffleMode
from pricing.games.hilo import HiLoPaytable
from pricing.payout import PayRule

__all__ = ["live_window", "load_paytable", "parse_time", "report_options"]


def report_options(args: argparse.Namespace) -> ReportOptions:
    """The theoretical report ``args`` ask for; ``InvalidOption`` naming the options given that
    are not its own (the paytable file is read last, once they are all checked)."""
    if args.game == "higher-lower":
        return _higher_lower_options(args)
    if args.game in ("baccarat", "dragon-tiger"):
        return _two_hand_options(args)
    if args.cut_card is not None or args.no_burn:
        raise InvalidOption("--cut-card and --no-burn are for baccarat and dragon-tiger")
    if args.burns is not None or args.mode is not None:
        raise InvalidOption("--burns and --mode are for higher-lower")
    main_game_only = [flag for flag, given in _main_game_flags(args) if given]
    if args.game == "blackjack" and args.main_game:
        return _main_game_options(args)
    if main_game_only:
        flags = ", ".join(main_game_only)
        raise InvalidOption(f"{flags}: only with blackjack --main-game (--decks: or higher-lower)")
    if args.game == "blackjack":
        return _blackjack_options(args)
    if args.bet or args.preset or args.eor or args.rule != "s17":
        raise InvalidOption("--bet, --preset, --eor and --rule are for blackjack's side bets")
    game: AnalyzedGame = "hilo" if args.game == "hilo" else "goagae"
    return ReportOptions(
        game,
        paytable=load_paytable(args.paytable, game) if args.paytable else None,
        rounds=args.rounds,
        cards_per_round=args.cards_per_round,
    )


def _two_hand_options(args: argparse.Namespace) -> ReportOptions:
    """``pricing analyze baccarat`` or ``dragon-tiger``: ``--decks`` (any), ``--shoes``,
    ``--seed``, ``--cut-card``, ``--no-burn`` and ``--bet`` (bets to show, comma-separated);
    the other games' options are refused, by name."""
    others = [flag for flag, given in _main_game_flags(args) if given and flag[:7] != "--decks"]
    others += [
        flag
        for flag, given in (
            ("--preset, --eor", args.preset or args.eor),
            ("--rule h17", args.rule != "s17"),
            ("--paytable", args.paytable),
            ("--burns, --mode", args.burns is not None or args.mode is not None),
        )
        if given
    ]
    if others:
        raise InvalidOption(f"{', '.join(others)}: not for {args.game}")
    game: AnalyzedGame = "baccarat" if args.game == "baccarat" else "dragon-tiger"
    return ReportOptions(
        game,
        shoes=args.shoes,
        seed=args.seed,
        decks=tuple(args.decks or ()),
        cut_card=args.cut_card,
        burn=not args.no_burn,
        bets=tuple(bet for bet in (args.bet or "").split(",") if bet.strip()),
    )


def _higher_lower_options(args: argparse.Namespace) -> ReportOptions:
    """``pricing analyze higher-lower``: one shoe size (``--decks``), ``--burns``, ``--mode``
    and ``--paytable``; the other games' options are refused, by name."""
    others = [flag for flag, given in _main_game_flags(args) if given and flag[:7] != "--decks"]
    others += [
        flag
        for flag, given in (
            ("--bet, --preset, --eor", args.bet or args.preset or args.eor),
            ("--rule h17", args.rule != "s17"),
            ("--shoes, --seed", args.shoes is not None or args.seed is not None),
        )
        if given
    ]
    decks = tuple(args.decks or ())
    if others or len(decks) > 1:
        raise InvalidOption(f"{', '.join(others) or '--decks twice'}: not for higher-lower")
    mode = args.mode or "both"
    return ReportOptions(
        "higher-lower",
        paytable=load_paytable(args.paytable, "higher-lower") if args.paytable else None,
        decks=decks,
        burns=args.burns,
        modes=None if mode == "both" else (ShuffleMode(mode.upper()),),
    )


def _main_game_flags(args: argparse.Namespace) -> list[tuple[str, bool]]:
    """The options of the main-game report alone, each with whether it was given."""
    decks = getattr(args, "decks", None)
    points = getattr(args, "points", None)
    return [
        ("--main-game", bool(getattr(args, "main_game", False))),
        (f"--decks {' '.join(map(str, decks or []))}", bool(decks)),
        (f"--points {points}", points is not None),
        ("--all-rules", bool(getattr(args, "all_rules", False))),
    ]


def _main_game_options(args: argparse.Namespace) -> ReportOptions:
    """``pricing analyze blackjack --main-game``: refuses the side-bet report's options."""
    side_bets = [
        text
        for text, given in (
            (f"--bet {args.bet}", bool(args.bet)),
            (f"--preset {args.preset}", bool(args.preset)),
            ("--eor", bool(args.eor)),
            (f"--paytable {args.paytable}", bool(args.paytable)),
        )
        if given
    ]
    if side_bets:
        raise InvalidOption(
            f"{', '.join(side_bets)}: for the side-bet report, not with --main-game"
        )
    return ReportOptions(
        "blackjack",
        main_game=True,
        shoes=args.shoes,
        seed=args.seed,
        decks=tuple(args.decks or ()),
        rule=DealerRule.parse(args.rule),
        points=None if args.points is None else parse_points(args.points),
        all_rules=args.all_rules,
    )


def _blackjack_options(args: argparse.Namespace) -> ReportOptions:
    """``pricing analyze blackjack``: the penetration report, or with ``--eor`` the effect of
    removal, of every bet and preset of the side-bet library or ``--bet``'s."""
    if args.paytable:
        raise InvalidOption(
            "--paytable is for hilo and goagae: blackjack reports the library's presets "
            "(--bet and --preset choose among them)"
        )
    if args.eor and (args.shoes is not None or args.seed is not None or args.plot):
        raise InvalidOption(
            "--eor is exact, with no simulation: leave out --shoes, --seed and --plot"
        )
    return ReportOptions(
        "blackjack",
        eor=args.eor,
        shoes=args.shoes,
        seed=args.seed,
        rule=DealerRule.parse(args.rule),
        bet=args.bet or "",
        preset=args.preset or "",
    )


def live_window(args: argparse.Namespace) -> tuple[float | None, float | None]:
    """``--since`` and ``--until`` in Unix seconds (None: not given), the one after the
    other."""
    start = None if args.since is None else parse_time(args.since)
    end = None if args.until is None else parse_time(args.until)
    if start is not None and end is not None and end <= start:
        raise InvalidOption(f"--until {args.until} is not after --since {args.since}")
    return start, end


def parse_time(text: str) -> float:
    """``--since``/``--until``: Unix seconds, or an ISO 8601 date or time (UTC if no offset)."""
    try:
        return float(text)
    except ValueError:
        pass
    try:
        at = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidOption(
            f"not a time: {text!r} (Unix seconds, or ISO 8601 such as 2026-03-01T12:00:00Z)"
        ) from None
    if at.tzinfo is None:
        at = at.replace(tzinfo=dt.UTC)
    return at.timestamp()


_PAYTABLES: Final[dict[str, type[Paytable]]] = {
    "hilo": HiLoPaytable,
    "goagae": GoaGaePaytable,
    "higher-lower": HigherLowerPaytable,
}


def load_paytable(path: str, game: str) -> Paytable:
    """The paytable in JSON file ``path`` for ``game`` (``hilo``, ``goagae`` or
    ``higher-lower``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidOption(f"cannot read paytable file {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise InvalidOption(f"paytable file {path} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidOption(f"paytable file {path} must hold an object of bets")
    rules = {}
    for bet, rule in data.items():
        if not isinstance(rule, dict) or set(rule) != {
            "rtp_bp",
            "min_hundredths",
            "max_hundredths",
        }:
            raise InvalidOption(
                f"paytable file {path}: {bet} needs exactly rtp_bp, min_hundredths and "
                f"max_hundredths, got {rule!r}"
            )
        rules[str(bet).upper()] = PayRule(**rule)
    return _PAYTABLES[game].from_rules(rules)
