"""A PAR sheet as text, for a terminal (``pricing analyze GAME --par``): the rules, a summary
line per bet, then each bet's outcome table, volatility and distribution; every figure
rounded for reading (``--json`` has them exact)."""

from __future__ import annotations

from fractions import Fraction

from pricing.analysis.par import ParBet, banded_outcomes
from pricing.analysis.par_sheet import (
    SOURCES,
    ParEntry,
    ParFigure,
    ParSheet,
    Precision,
    generated_by,
)

__all__ = ["format_par"]


def _pct(x: Fraction | float) -> str:
    return f"{100 * float(x):.4f} %"


def _one_in(x: Fraction | None) -> str:
    return "never" if x is None else f"1 in {float(x):,.2f}"


def _figure(f: ParFigure) -> str:
    se = "" if f.standard_error is None else f" ± {f.standard_error:.4g}"
    note = f" ({f.note})" if f.note else ""
    return f"    {f.name}: {float(f.value):.6g}{se} [{f.precision}]{note}"


def _outcomes(par: ParBet) -> list[str]:
    outcomes, banded = banded_outcomes(par.outcomes)
    lines = [f"    {'outcome':<28} {'net':>9} {'probability':>13} {'odds':>20} {'RTP share':>10}"]
    if banded:
        paid = sum(o.net > 0 for o in par.outcomes)
        lines.insert(0, f"    the {paid} payouts offered, in bands of pay (--json, --csv: each)")
    for o in outcomes:
        lines.append(
            f"    {o.name:<28} {float(o.net):>9.4g} {float(o.probability):>13.8f} "
            f"{_one_in(o.one_in):>20} {_pct(o.rtp_share):>10}"
        )
    return lines


def _entry(e: ParEntry) -> list[str]:
    lines = [f"{e.bet} — {e.basis}, {e.precision}"]
    par = e.par
    if par is not None:
        lines.append(
            f"    RTP {_pct(par.rtp)}, house edge {_pct(par.house_edge)}, hit frequency "
            f"{_pct(par.hit_frequency)}, σ {par.standard_deviation:.4f} per unit"
        )
        vis = ", ".join(f"{v.level} % {v.index:.4f}" for v in par.volatility)
        lines.append(f"    volatility index: {vis}")
        for v in par.volatility:
            ranges = "  ".join(
                f"10^{len(str(r.rounds)) - 1}: {100 * r.low:.2f}–{100 * r.high:.2f}"
                for r in v.ranges
            )
            lines.append(f"    realised RTP at {v.level} %: {ranges}")
        hittable = "" if par.max_win_hittable else " (not hittable once in 10^8 games)"
        lines.append(
            f"    max win {float(par.max_win):g} per unit, {_one_in(par.max_win_one_in)}{hittable}"
        )
        lines.extend(_outcomes(par))
    d = e.distribution
    simulated = e.distribution_precision is Precision.SIMULATED
    if d is not None:
        err = e.distribution_error
        se = "" if err is None else f" ± {100 * err.mean:.4f}"
        lines.append(
            f"    RTP over the rounds dealt ({e.distribution_precision}, {d.states:,} "
            f"{'rounds' if simulated else 'deck states'}): "
            f"min {_pct(d.minimum)}, mean {_pct(d.mean)}{se}, max {_pct(d.maximum)}, "
            f"offered {_pct(d.offered)}"
        )
        if d.below_min is not None and d.min_rtp is not None:
            below_se = (
                "" if err is None or err.below_min is None else f" ± {100 * err.below_min:.4f}"
            )
            lines.append(
                f"    below {_pct(d.min_rtp)}: {_pct(d.below_min)}{below_se} of offered rounds"
            )
        if d.standard_deviation is not None:
            lines.append(
                f"    σ over the rounds dealt {d.standard_deviation:.4f} per unit "
                f"({e.distribution_precision})"
            )
    lines.extend(_figure(f) for f in e.figures)
    if e.note:
        lines.append(f"    note: {e.note}")
    return lines


def format_par(sheet: ParSheet) -> str:
    """The sheet as text."""
    lines = [f"PAR sheet: {sheet.title}", ""]
    lines.extend(f"  {name}: {value}" for name, value in sheet.rules)
    if sheet.shoes:
        lines.append(
            f"  Simulation: {sheet.shoes} shoes, seed {sheet.seed}, cut card {sheet.cut_card}"
        )
    lines.append("")
    lines.append(f"{'bet':<30} {'RTP':>10} {'edge':>10} {'hit':>10} {'σ':>8} {'VI 90 %':>8}")
    for e in sheet.entries:
        if e.par is None:
            lines.append(f"{e.bet:<30} (see its figures)")
            continue
        p = e.par
        lines.append(
            f"{e.bet:<30} {_pct(p.rtp):>10} {_pct(p.house_edge):>10} "
            f"{_pct(p.hit_frequency):>10} {p.standard_deviation:>8.4f} "
            f"{p.volatility_index(90):>8.4f}"
        )
    for e in sheet.entries:
        lines.append("")
        lines.extend(_entry(e))
    if sheet.figures:
        lines.append("")
        lines.extend(_figure(f) for f in sheet.figures)
    if sheet.notes:
        lines.append("")
        lines.extend(f"Note: {n}" for n in sheet.notes)
    lines.append("")
    lines.extend(f"Source: {source}" for source in SOURCES)
    lines.append(generated_by())
    return "\n".join(lines)
