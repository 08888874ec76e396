"""``pricing analyze``: the reports as text tables, JSON and plots; paytables from files; the
live statistics of tables read from a data directory.

A paytable file is JSON: ``{"LOW": {"rtp_bp": 9600, "min_hundredths": 52,
"max_hundredths": 264}, ...}`` with any of the game's bets (the others keep the default).
Plots need the optional extra ``live-odds-pricing[plot]`` (matplotlib).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

from pricing.analysis.blackjack import (
    DEFAULT_SHOES,
    BlackjackReport,
    RemovalReport,
    blackjack_rtp,
    removal_report,
)
from pricing.analysis.goagae import GoaGaeReport
from pricing.analysis.higher_lower import HigherLowerReport, format_higher_lower, plot_higher_lower
from pricing.analysis.hilo import HiLoReport
from pricing.analysis.live import FLAG_SE, LiveReport
from pricing.analysis.main_game import QUANTILE, MainGameReport
from pricing.analysis.report import BetReport
from pricing.errors import InvalidOption
from pricing.games.blackjack.decisions import MainGameRules
from pricing.games.goagae import GoaGaePaytable
from pricing.games.higher_lower import HigherLowerPaytable, ShuffleMode
from pricing.games.hilo import HiLoPaytable
from pricing.payout import PayRule
from pricing.tables import Game, OpenTable

__all__ = [
    "build_live",
    "format_live",
    "format_report",
    "load_paytable",
    "parse_time",
    "plot_report",
]

Report = (
    HiLoReport | GoaGaeReport | BlackjackReport | RemovalReport | MainGameReport | HigherLowerReport
)

#: The blackjack simulation's seed when the command names none.
DEFAULT_SEED: Final = 2026


_PAYTABLES: Final[
    dict[str, type[HiLoPaytable] | type[GoaGaePaytable] | type[HigherLowerPaytable]]
] = {
    "hilo": HiLoPaytable,
    "goagae": GoaGaePaytable,
    "higher-lower": HigherLowerPaytable,
}


def load_paytable(path: str, game: str) -> HiLoPaytable | GoaGaePaytable | HigherLowerPaytable:
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


def _odds(hundredths: int | None) -> str:
    return "--" if hundredths is None else f"{hundredths / 100:.2f}"


def _bet_rows(bets: Mapping[str, BetReport], position: str) -> list[str]:
    head = (
        f"{'bet':<15} {'RTP':>8} {'set':>6} {'worst ' + position:>12} {'best ' + position:>11} "
        f"{'closed':>8} {'clamp lo':>9} {'clamp hi':>9} {'min':>7} {'max':>7}"
    )
    rows = [head]
    for bet, r in bets.items():
        set_rtp = r.rule.rtp_bp / 10_000
        rows.append(
            f"{bet:<15} {float(r.rtp):8.4%} {set_rtp:6.1%} {float(min(r.by_position)):12.4%} "
            f"{float(max(r.by_position)):11.4%} {float(r.closed):8.4%} "
            f"{float(r.clamped_min):9.4%} {float(r.clamped_max):9.4%} "
            f"{_odds(r.min_payout):>7} {_odds(r.max_payout):>7}"
        )
    return rows


def format_report(report: Report) -> str:
    """The report as a text table (exact figures shown to 4 decimals of a percent)."""
    if isinstance(report, HiLoReport):
        lines = [
            "Hi-Lo: exact return to player over a uniformly shuffled deck, per unit staked",
            "(RTP: mean over the 10 result positions of the return given the bet is offered;",
            " min/max: the extreme payouts offered, odds to 1)",
            *_bet_rows(report.bets, "pos."),
        ]
        return "\n".join(lines)
    if isinstance(report, GoaGaeReport):
        deal = (
            "a fresh deck every round"
            if report.rounds == 1
            else f"{report.rounds} rounds of {report.cards_per_round} cards from one deck"
        )
        lines = [f"Goa Gae category bets: exact return to player, {deal}"]
        lines += _bet_rows(report.bets, "round")
        if report.left_out:
            lines.append(f"left out (no exact count for this deal): {', '.join(report.left_out)}")
        return "\n".join(lines)
    if isinstance(report, RemovalReport):
        return format_removal(report)
    if isinstance(report, HigherLowerReport):
        return format_higher_lower(report)
    if isinstance(report, MainGameReport):
        return format_main_game(report)
    width = max([28, *(len(key) for by_key in report.full_shoe.values() for key in by_key)])
    lines = [
        f"Blackjack side bets: exact full-shoe RTP; by penetration over {report.shoes:,} "
        f"simulated shoes (seed {report.seed}), mean ± standard error; dealer "
        f"{report.rule.value}",
        f"{'decks':>5} {'bet/preset':<{width}} {'full shoe':>9} {'dealt':>6} {'mean ± se':>19} "
        f"{'spread':>7} {'favourable ± se':>17} {'edge if fav. ± se':>17}",
    ]
    for decks, by_key in report.by_penetration.items():
        for key, points in by_key.items():
            for p in points:
                lines.append(
                    f"{decks:>5} {key:<{width}} {float(report.full_shoe[decks][key]):9.5f} "
                    f"{float(p.penetration):6.0%} {p.simulated_mean:9.5f} ± "
                    f"{p.simulated_se:.5f} {p.spread:7.4f} {p.favourable:8.4f} ± "
                    f"{p.favourable_se:.4f} {p.favourable_edge:8.4f} ± {p.favourable_edge_se:.4f}"
                )
    return "\n".join(lines)


def format_removal(report: RemovalReport) -> str:
    """The effect of removal as text: per shoe size and bet, each rank's exact change in the
    full-shoe RTP, in percentage points and as a fraction, and their sum (0: the check)."""
    lines = [
        f"Blackjack side bets, dealer {report.rule.value}: effect of removal, the exact change "
        "in the full-shoe RTP",
        "when one card of a rank leaves the shoe (its suit uniform among the four), in percentage",
        "points (pp) and as a fraction; the 13 changes sum to 0",
    ]
    for decks, by_key in report.effect_of_removal.items():
        for key, effects in by_key.items():
            rtp = report.full_shoe[decks][key]
            lines += [
                "",
                f"{key}, {decks} decks: full-shoe RTP {float(rtp):.6f} ({float(rtp):.4%})",
                f"{'rank':<4} {'change pp':>10}  exact change",
            ]
            for rank, change in [*effects.items(), ("sum", sum(effects.values(), Fraction(0)))]:
                lines.append(f"{rank:<4} {float(change) * 100:+10.5f}  {change}")
    return "\n".join(lines)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _decks(n: int) -> str:
    return f"{n} deck{'s' if n > 1 else ''}"


def _rules_text(rules: MainGameRules) -> str:
    return (
        f"dealer {rules.dealer_rule.value}, double after split {_yes(rules.double_after_split)}, "
        f"{rules.max_splits} split{'s' if rules.max_splits > 1 else ''}, "
        f"surrender {_yes(rules.surrender)}"
    )


def format_main_game(report: MainGameReport) -> str:
    """The main-game report as text: edges in percent of the original wager (+: the player
    is favoured), exact figures to 6 decimals, simulated ones to 4 with their standard errors."""
    which = "every rule set" if report.all_rules else "the default rules by dealer rule"
    lines = [
        "Blackjack main game: the next round's player edge per unit of the original wager "
        "(+: player favoured)",
        f"Full shoe, exact, {which}: CDZ- (composition-dependent play) and basic strategy",
        f"{'decks':>5} {'dealer':>6} {'DAS':>4} {'splits':>6} {'surr.':>5} "
        f"{'CDZ- edge':>11} {'basic edge':>11} {'CDZ- gain':>10}",
    ]
    for r in report.full_shoe:
        lines.append(
            f"{r.decks:>5} {r.rules.dealer_rule.value:>6} {_yes(r.rules.double_after_split):>4} "
            f"{r.rules.max_splits:>6} {_yes(r.rules.surrender):>5} {r.composition:+11.6%} "
            f"{r.basic:+11.6%} {r.composition - r.basic:+10.6%}"
        )
    for decks, up in report.up_cards.items():
        lines += [
            "",
            f"{_decks(decks)}, full shoe, {_rules_text(report.rules)}: the round's EV given the "
            "dealer's up card (best play on every deal)",
            f"{'up':>3} {'chance':>9} {'EV given up':>12} {'share of edge':>14}",
        ]
        for row in up.rows:
            lines.append(
                f"{row.name:>3} {row.probability:9.4%} {row.ev:+12.6%} {row.contribution:+14.6%}"
            )
        lines.append(
            f"{'all':>3} {math.fsum(r.probability for r in up.rows):9.4%} {'':>12} "
            f"{up.total:+14.6%}  (player_edge {up.edge:+.6%})"
        )
    for decks, points in report.penetration.items():
        computed = 1 + sum(p.priced + p.skipped for p in points if p.cards_dealt)
        lines += [
            "",
            f"{_decks(decks)}, {_rules_text(report.rules)}: the next round's edge (CDZ-) by "
            f"penetration over {report.shoes:,} simulated shoes (seed {report.seed}; "
            f"{computed:,} edges computed)",
            f"{'dealt':>5} {'cards':>5} {'skip':>4} {'mean edge ± se':>19} {'spread':>8} "
            f"{'favourable ± se':>17} {'edge if fav. ± se':>19} {f'{QUANTILE:.0%} pct':>9}",
        ]
        for p in points:
            lines.append(
                f"{p.percent:>4}% {p.cards_dealt:>5} {p.skipped:>4} {p.mean:+9.4%} ± "
                f"{p.mean_se:.4%} {p.spread:8.4%} {p.favourable:7.2%} ± {p.favourable_se:6.2%} "
                f"{p.favourable_edge:+8.4%} ± {p.favourable_edge_se:.4%} {p.quantile:+9.4%}"
            )
    return "\n".join(lines)


def _when(at: float | None) -> str:
    if at is None:
        return "--"
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pct(x: object) -> str:
    return "--" if x is None else f"{float(x):.2%}"  # type: ignore[arg-type]


_GAME_NAMES: Final = {
    Game.HILO: "Hi-Lo",
    Game.GOA_GAE: "Goa Gae",
    Game.BLACKJACK: "Blackjack",
    Game.HIGHER_LOWER: "Higher/Lower",
}
_CERTIFIED: Final = {
    Game.HILO: "the exact report's RTP per offered round (pricing analyze hilo)",
    Game.HIGHER_LOWER: "the exact report's RTP per offered round in the table's shuffle mode "
    "(pricing analyze higher-lower)",
    Game.BLACKJACK: "the side bet's exact full-shoe RTP (pricing analyze blackjack)",
}


def format_live(report: LiveReport) -> str:
    """The live statistics as a text table."""
    which = "table" if len(report.table_ids) == 1 else "tables"
    lines = [
        f"{_GAME_NAMES[report.game]} live statistics, {which} {', '.join(report.table_ids)}: "
        f"{report.rounds:,} rounds played, {report.void_rounds:,} void (refunded)",
        f"rounds ended {_when(report.first_at)} to {_when(report.last_at)}"
        + (
            f" (asked: {_when(report.since)} to {_when(report.until)})"
            if report.since is not None or report.until is not None
            else ""
        ),
        "returned: per unit staked on every round the bet was offered, stake included",
        f"expected: exact at the prices offered; interval: expected ± {FLAG_SE} standard errors",
    ]
    if report.game in _CERTIFIED:
        lines.append(f"certified: {_CERTIFIED[report.game]}")
    lines.append(
        f"{'bet':<15} {'stakes':>7} {'wins':>6} {'returned':>9} {'expected':>9} "
        f"{'interval':^17} {'z':>6} {'certified':>9}"
    )
    for bet, s in report.bets.items():
        low, high = s.interval
        z = "--" if s.z is None else f"{s.z:+.2f}"
        lines.append(
            f"{bet:<15} {s.stakes:>7,} {s.wins:>6,} {_pct(s.returned):>9} {_pct(s.expected):>9} "
            f"{_pct(low):>8}-{_pct(high):<8} {z:>6} {_pct(s.certified):>9}"
            + ("  FLAGGED" if s.flagged else "")
        )
    flagged = report.flagged
    lines.append(
        f"FLAGGED, beyond {FLAG_SE} standard errors: {', '.join(flagged)}"
        if flagged
        else f"no bet beyond {FLAG_SE} standard errors"
    )
    return "\n".join(lines)


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


def build_live(
    data_dir: Path,
    tables: Sequence[str],
    game: Game | None,
    since: str | None,
    until: str | None,
) -> LiveReport:
    """The live statistics ``pricing analyze --table/--game`` asked for: of ``tables``, or of
    every table of ``game``, from the journal (and archive) in ``data_dir``, read-only."""
    from pricing.analysis.live import live_stats  # noqa: PLC0415
    from pricing.journal.tools import export_tables  # noqa: PLC0415

    start = None if since is None else parse_time(since)
    end = None if until is None else parse_time(until)
    if start is not None and end is not None and end <= start:
        raise InvalidOption(f"--until {until} is not after --since {since}")
    if tables:
        journals = [records for _, records in export_tables(data_dir, tables)]
    else:
        journals = []
        for _, records in export_tables(data_dir):
            opening = records[0].entry.event
            if isinstance(opening, OpenTable) and opening.config.game is game:
                journals.append(records)
        if not journals:
            name = "any" if game is None else game.name
            raise LookupError(f"no {name} table in the journal of {data_dir} or its archive")
    return live_stats(journals, since=start, until=end)


def as_json(report: Report | LiveReport) -> str:
    return json.dumps(report.as_dict(), indent=2, sort_keys=False)


def plot_report(report: Report, path: str) -> None:
    """Write a PNG: the distribution of offered payouts per bet (Hi-Lo, Goa Gae), or the RTP
    against penetration with a ±1 spread band and the player-favourable share (blackjack)."""
    try:
        import matplotlib  # noqa: PLC0415 - an optional extra, only for --plot

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        raise InvalidOption(
            "--plot needs matplotlib: pip install 'live-odds-pricing[plot]'"
        ) from None
    if isinstance(report, RemovalReport):
        raise InvalidOption("--plot draws the penetration report: leave out --eor")
    if isinstance(report, HigherLowerReport):
        fig = plot_higher_lower(plt, report)
    elif isinstance(report, MainGameReport):
        fig = _plot_main_game(plt, report)
    elif isinstance(report, BlackjackReport):
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
        for decks, by_key in report.by_penetration.items():
            for key, points in by_key.items():
                x = [float(p.penetration) * 100 for p in points]
                mean = [p.simulated_mean for p in points]
                (line,) = top.plot(x, mean, label=f"{key}, {decks} decks")
                top.fill_between(
                    x,
                    [m - p.spread for m, p in zip(mean, points, strict=True)],
                    [m + p.spread for m, p in zip(mean, points, strict=True)],
                    color=line.get_color(),
                    alpha=0.08,
                )
                bottom.plot(x, [p.favourable * 100 for p in points], color=line.get_color())
        top.axhline(1.0, color="black", linewidth=0.8)
        top.set_ylabel("RTP (mean, band ±1 spread)")
        top.legend(fontsize=7)
        bottom.set_ylabel("rounds player-favourable (%)")
        bottom.set_xlabel("shoe dealt (%)")
        fig.suptitle(f"Blackjack side bets by penetration ({report.shoes:,} shoes per size)")
    else:
        bets = report.bets
        fig, axes = plt.subplots(len(bets), 1, figsize=(9, 2.0 * len(bets)))
        for ax, (bet, r) in zip(axes, bets.items(), strict=True):
            pays = [k / 100 for k in r.distribution]
            ax.bar(pays, [float(v) for v in r.distribution.values()], width=_bar_width(pays))
            ax.set_title(
                f"{bet}: RTP {float(r.rtp):.4%} (set {r.rule.rtp_bp / 100:.2f} %), "
                f"closed {float(r.closed):.3%}",
                fontsize=9,
            )
            ax.set_ylabel("probability", fontsize=8)
        axes[-1].set_xlabel("payout offered (odds to 1)")
        game = "Hi-Lo" if isinstance(report, HiLoReport) else "Goa Gae"
        fig.suptitle(f"{game}: distribution of offered payouts")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _plot_main_game(plt: Any, report: MainGameReport) -> Any:
    """The mean next-round edge ± 2 standard errors and the share of player-favourable shoes
    (± 2 standard errors) against penetration, one line per shoe size."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    for decks, points in report.penetration.items():
        x = [p.percent for p in points]
        mean = [p.mean * 100 for p in points]
        band = [2 * p.mean_se * 100 for p in points]
        (line,) = top.plot(x, mean, marker="o", label=f"{_decks(decks)}: mean ± 2 SE")
        top.fill_between(
            x,
            [m - b for m, b in zip(mean, band, strict=True)],
            [m + b for m, b in zip(mean, band, strict=True)],
            color=line.get_color(),
            alpha=0.15,
        )
        top.plot(
            x,
            [p.quantile * 100 for p in points],
            color=line.get_color(),
            linestyle=":",
            label=f"{_decks(decks)}: {QUANTILE:.0%} quantile",
        )
        share = [p.favourable * 100 for p in points]
        bottom.errorbar(
            x,
            share,
            yerr=[2 * p.favourable_se * 100 for p in points],
            color=line.get_color(),
            marker="o",
            capsize=3,
            label=_decks(decks),
        )
    top.axhline(0.0, color="black", linewidth=0.8)
    top.set_ylabel("next-round player edge (%)")
    top.legend(fontsize=7)
    bottom.set_ylabel("shoes player-favourable (%, ± 2 SE)")
    bottom.set_xlabel("shoe dealt (%)")
    bottom.legend(fontsize=7)
    fig.suptitle(
        f"Blackjack main game by penetration ({report.shoes:,} shoes per size, "
        f"{_rules_text(report.rules)})",
        fontsize=10,
    )
    return fig


def _bar_width(pays: list[float]) -> float:
    gaps = [b - a for a, b in itertools.pairwise(pays) if b > a]
    return 0.8 * min(gaps) if gaps else 0.01


def build_report(args: Any) -> Report:
    """The report ``pricing analyze`` asked for (``args``: its parsed options)."""
    from pricing.analysis.goagae import goagae_rtp  # noqa: PLC0415
    from pricing.analysis.hilo import hilo_rtp  # noqa: PLC0415

    if args.game == "higher-lower":
        return _higher_lower_report(args)
    if args.burns is not None or args.mode is not None:
        raise InvalidOption("--burns and --mode are for higher-lower")
    main_game_only = [flag for flag, given in _main_game_options(args) if given]
    if args.game == "blackjack" and args.main_game:
        return _main_game_report(args)
    if main_game_only:
        flags = ", ".join(main_game_only)
        raise InvalidOption(f"{flags}: only with blackjack --main-game (--decks: or higher-lower)")
    if args.game == "blackjack":
        return _blackjack_report(args)
    if args.bet or args.preset or args.eor or args.rule != "s17":
        raise InvalidOption("--bet, --preset, --eor and --rule are for blackjack's side bets")
    if args.game == "hilo":
        table = load_paytable(args.paytable, "hilo") if args.paytable else HiLoPaytable()
        assert isinstance(table, HiLoPaytable)
        return hilo_rtp(table)
    table = load_paytable(args.paytable, "goagae") if args.paytable else GoaGaePaytable()
    assert isinstance(table, GoaGaePaytable)
    return goagae_rtp(table, rounds=args.rounds, cards_per_round=args.cards_per_round)


def _higher_lower_report(args: Any) -> HigherLowerReport:
    """``pricing analyze higher-lower``: one shoe size (``--decks``), ``--burns``, ``--mode``
    and ``--paytable``; the other games' options are refused, by name."""
    from pricing.analysis.higher_lower import BOTH_MODES, higher_lower_report  # noqa: PLC0415
    from pricing.games.higher_lower import DEFAULT_BURNS, DEFAULT_DECKS  # noqa: PLC0415

    others = [flag for flag, given in _main_game_options(args) if given and flag[:7] != "--decks"]
    others += [
        flag
        for flag, given in (
            ("--bet, --preset, --eor", args.bet or args.preset or args.eor),
            ("--rule h17", args.rule != "s17"),
            ("--shoes, --seed", args.shoes is not None or args.seed is not None),
        )
        if given
    ]
    decks = args.decks or [DEFAULT_DECKS]
    if others or len(decks) > 1:
        raise InvalidOption(f"{', '.join(others) or '--decks twice'}: not for higher-lower")
    table = load_paytable(args.paytable, "higher-lower") if args.paytable else None
    assert table is None or isinstance(table, HigherLowerPaytable)
    mode = args.mode or "both"
    return higher_lower_report(
        table or HigherLowerPaytable(),
        decks=decks[0],
        burns=DEFAULT_BURNS if args.burns is None else args.burns,
        modes=BOTH_MODES if mode == "both" else (ShuffleMode(mode.upper()),),
    )


def _main_game_options(args: Any) -> list[tuple[str, bool]]:
    """The options of the main-game report alone, each with whether it was given."""
    decks = getattr(args, "decks", None)
    points = getattr(args, "points", None)
    return [
        ("--main-game", bool(getattr(args, "main_game", False))),
        (f"--decks {' '.join(map(str, decks or []))}", bool(decks)),
        (f"--points {points}", points is not None),
        ("--all-rules", bool(getattr(args, "all_rules", False))),
    ]


def _main_game_report(args: Any) -> MainGameReport:
    """``pricing analyze blackjack --main-game``: refuses the side-bet report's options."""
    from pricing.analysis.main_game import (  # noqa: PLC0415
        DEFAULT_DECKS,
        DEFAULT_POINTS,
        DEFAULT_SHOES,
        main_game_report,
        parse_points,
    )

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
    return main_game_report(
        shoes=DEFAULT_SHOES if args.shoes is None else args.shoes,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        decks=tuple(args.decks) if args.decks else DEFAULT_DECKS,
        rules=MainGameRules(args.rule),
        points=DEFAULT_POINTS if args.points is None else parse_points(args.points),
        all_rules=args.all_rules,
    )


def _blackjack_report(args: Any) -> BlackjackReport | RemovalReport:
    """``pricing analyze blackjack``: the penetration report, or with ``--eor`` the effect of
    removal, of every bet and preset of the side-bet library or ``--bet``'s."""
    if args.paytable:
        raise InvalidOption(
            "--paytable is for hilo and goagae: blackjack reports the library's presets "
            "(--bet and --preset choose among them)"
        )
    if args.eor:
        if args.shoes is not None or args.seed is not None or args.plot:
            raise InvalidOption(
                "--eor is exact, with no simulation: leave out --shoes, --seed and --plot"
            )
        return removal_report(rule=args.rule, bet=args.bet or "", preset=args.preset or "")
    return blackjack_rtp(
        shoes=DEFAULT_SHOES if args.shoes is None else args.shoes,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        rule=args.rule,
        bet=args.bet or "",
        preset=args.preset or "",
    )
