"""``pricing analyze --plot``: a report drawn as a PNG, with matplotlib (the optional extra
``live-odds-pricing[plot]``, imported only to draw)."""

from __future__ import annotations

import itertools
from typing import Any, Final

from pricing.analysis.blackjack import BlackjackReport, RemovalReport
from pricing.analysis.build import Report
from pricing.analysis.higher_lower import HigherLowerReport
from pricing.analysis.hilo import HiLoReport
from pricing.analysis.main_game import QUANTILE, MainGameReport
from pricing.analysis.two_hands import TwoHandReport
from pricing.cli.report_text import decks_text, rules_text
from pricing.errors import InvalidOption

__all__ = ["plot_report"]


def plot_report(report: Report, path: str) -> None:
    """Write a PNG: the distribution of offered payouts per bet (Hi-Lo, Goa Gae), or the RTP
    against penetration with a ±1 spread band and the player-favourable share (blackjack), or
    the player-favourable share and the edge then by penetration (baccarat, Dragon Tiger)."""
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
        fig = _plot_higher_lower(plt, report)
    elif isinstance(report, TwoHandReport):
        fig = _plot_two_hands(plt, report)
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
        (line,) = top.plot(x, mean, marker="o", label=f"{decks_text(decks)}: mean ± 2 SE")
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
            label=f"{decks_text(decks)}: {QUANTILE:.0%} quantile",
        )
        share = [p.favourable * 100 for p in points]
        bottom.errorbar(
            x,
            share,
            yerr=[2 * p.favourable_se * 100 for p in points],
            color=line.get_color(),
            marker="o",
            capsize=3,
            label=decks_text(decks),
        )
    top.axhline(0.0, color="black", linewidth=0.8)
    top.set_ylabel("next-round player edge (%)")
    top.legend(fontsize=7)
    bottom.set_ylabel("shoes player-favourable (%, ± 2 SE)")
    bottom.set_xlabel("shoe dealt (%)")
    bottom.legend(fontsize=7)
    fig.suptitle(
        f"Blackjack main game by penetration ({report.shoes:,} shoes per size, "
        f"{rules_text(report.rules)})",
        fontsize=10,
    )
    return fig


def _plot_two_hands(plt: Any, report: TwoHandReport) -> Any:
    """The shown bets' share of rounds player-favourable and their mean edge then (± 2
    standard errors) against the share of the shoe dealt, one line per bet and shoe size."""
    if not report.simulations:
        raise InvalidOption("--plot draws the simulated shoes: ask for at least one (--shoes)")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    for decks, sim in report.simulations.items():
        for key, rows in sim.by_penetration.items():
            if key.split("/")[0] not in report.shown:
                continue
            x = [(r.low + r.high) * 50 for r in rows]
            for ax, figure in ((top, "favourable"), (bottom, "favourable_edge")):
                ax.errorbar(
                    x,
                    [getattr(r, figure) * 100 for r in rows],
                    yerr=[2 * getattr(r, f"{figure}_se") * 100 for r in rows],
                    marker="o",
                    capsize=3,
                    label=f"{key}, {decks_text(decks)}",
                )
    top.set_ylabel("rounds player-favourable (%, ± 2 SE)")
    top.legend(fontsize=7)
    bottom.set_ylabel("mean edge when favourable (%, ± 2 SE)")
    bottom.set_xlabel("shoe dealt when the round starts (%)")
    sim = next(iter(report.simulations.values()))
    game = "Baccarat" if report.game == "baccarat" else "Dragon Tiger"
    fig.suptitle(
        f"{game} by penetration ({sim.shoes:,} shoes, cut card {sim.cut_card} cards from the end)",
        fontsize=10,
    )
    return fig


def _bar_width(pays: list[float]) -> float:
    gaps = [b - a for a, b in itertools.pairwise(pays) if b > a]
    return 0.8 * min(gaps) if gaps else 0.01


#: The plot's panels: bets whose figures differ (HIGHER's are LOWER's, the ranges' and the
#: colours' are each other's, by symmetry).
_PLOTTED: Final = ("HIGHER", "SNAP", "RANGE_2_5", "RED", "KING_OR_ACE", "ACE")


def _plot_higher_lower(plt: Any, report: HigherLowerReport) -> Any:
    """A figure (``plt``: matplotlib's pyplot): each bet's return given it is offered, round by
    round through a depleting shoe, against its continuous shuffler's figure."""
    fig, axes = plt.subplots(len(_PLOTTED), 1, figsize=(9, 2.0 * len(_PLOTTED)), sharex=True)
    for ax, bet in zip(axes, _PLOTTED, strict=True):
        if report.depleting is not None:
            r = report.depleting[bet].overall
            rounds = range(1, len(r.by_position) + 1)
            ax.plot(rounds, [float(x) * 100 for x in r.by_position], label="depleting, by round")
        if report.continuous is not None:
            rtp = float(report.continuous[bet].overall.rtp) * 100
            ax.axhline(rtp, color="black", linewidth=0.8, label=f"continuous {rtp:.4f} %")
        rule = report.paytable.rules()[bet]
        ax.set_title(f"{bet} (priced at {rule.rtp_bp / 100:.2f} %)", fontsize=9)
        ax.set_ylabel("RTP %", fontsize=8)
        ax.legend(fontsize=7)
    axes[-1].set_xlabel("round of the shoe")
    fig.suptitle(
        f"Higher/Lower: return given the bet is offered, {report.decks} decks, {report.burns} burns"
    )
    return fig
