"""A PAR sheet (``pricing.analysis.par_sheet.ParSheet``) as the wire's ``ParSheet``: every
exact figure a ``Ratio`` (its double and its ``"num/den"`` text), floats where a root is
taken."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from pricing.analysis.par import ParBet, VolatilityLevel, banded_outcomes
from pricing.analysis.par_sheet import Basis, ParEntry, ParFigure, ParSheet, Precision
from pricing.analysis.par_shoe import RtpDistribution
from pricing.v1 import pricing_pb2 as pb
from pricing.wire.state import ratio

__all__ = ["sheet_to_proto"]

_BASIS: Final = {
    Basis.FIXED: pb.PAR_BASIS_FIXED,
    Basis.FULL_SHOE: pb.PAR_BASIS_FULL_SHOE,
    Basis.OFFERED_ROUNDS: pb.PAR_BASIS_OFFERED_ROUNDS,
    Basis.STRATEGY: pb.PAR_BASIS_STRATEGY,
}
_PRECISION: Final = {
    Precision.EXACT: pb.FIGURE_PRECISION_EXACT,
    Precision.DOUBLE: pb.FIGURE_PRECISION_DOUBLE,
    Precision.SIMULATED: pb.FIGURE_PRECISION_SIMULATED,
}


def _figure(f: ParFigure) -> pb.ParFigure:
    value = (
        ratio(f.value)
        if isinstance(f.value, Fraction)
        else pb.Ratio(value=float(f.value))  # a double: no exact text
    )
    return pb.ParFigure(
        name=f.name,
        value=value,
        precision=_PRECISION[f.precision],
        standard_error=f.standard_error or 0.0,
        note=f.note,
    )


def _volatility(levels: tuple[VolatilityLevel, ...]) -> list[pb.VolatilityLevel]:
    return [
        pb.VolatilityLevel(
            level_percent=v.level,
            z=v.z,
            index=v.index,
            ranges=[pb.RtpRange(rounds=r.rounds, low=r.low, high=r.high) for r in v.ranges],
        )
        for v in levels
    ]


def _par(par: ParBet, out: pb.ParBet) -> None:
    outcomes, out.outcomes_banded = banded_outcomes(par.outcomes)
    out.outcomes.extend(
        pb.ParOutcome(
            name=o.name,
            payout_hundredths=o.payout_hundredths,
            net=ratio(o.net),
            probability=ratio(o.probability),
            one_in=None if o.one_in is None else ratio(o.one_in),
            rtp_share=ratio(o.rtp_share),
        )
        for o in outcomes
    )
    out.rtp.CopyFrom(ratio(par.rtp))
    out.house_edge.CopyFrom(ratio(par.house_edge))
    out.hit_frequency.CopyFrom(ratio(par.hit_frequency))
    out.variance.CopyFrom(ratio(par.variance))
    out.standard_deviation = par.standard_deviation
    out.volatility.extend(_volatility(par.volatility))
    out.max_win.CopyFrom(ratio(par.max_win))
    out.max_win_probability.CopyFrom(ratio(par.max_win_probability))
    if par.max_win_one_in is not None:
        out.max_win_one_in.CopyFrom(ratio(par.max_win_one_in))
    out.max_win_hittable = par.max_win_hittable


def _distribution(entry: ParEntry, d: RtpDistribution) -> pb.RtpDistribution:
    out = pb.RtpDistribution(
        precision=_PRECISION[entry.distribution_precision],
        states=d.states,
        offered=ratio(d.offered),
        minimum=ratio(d.minimum),
        maximum=ratio(d.maximum),
        mean=ratio(d.mean),
        standard_deviation=d.standard_deviation or 0.0,
    )
    for field, value in (
        ("below_min", d.below_min),
        ("variance", d.variance),
        ("price_variance", d.price_variance),
    ):
        if value is not None:
            getattr(out, field).CopyFrom(ratio(value))
    error = entry.distribution_error
    if error is not None:
        out.shoes = error.shoes
        out.mean_se = error.mean
        out.below_min_se = error.below_min or 0.0
    return out


def _entry(entry: ParEntry) -> pb.ParBet:
    out = pb.ParBet(
        bet=entry.bet,
        basis=_BASIS[entry.basis],
        precision=_PRECISION[entry.precision],
        figures=[_figure(f) for f in entry.figures],
        note=entry.note,
    )
    if entry.par is not None:
        _par(entry.par, out)
    if entry.distribution is not None:
        out.distribution.CopyFrom(_distribution(entry, entry.distribution))
    return out


def sheet_to_proto(sheet: ParSheet, game: pb.Game.ValueType) -> pb.ParSheet:
    """``sheet`` on the wire, for ``game``."""
    out = pb.ParSheet(
        game=game,
        title=sheet.title,
        rules=[pb.ParRule(name=k, value=v) for k, v in sheet.rules],
        bets=[_entry(e) for e in sheet.entries],
        figures=[_figure(f) for f in sheet.figures],
        shoes=sheet.shoes,
        seed=sheet.seed,
        cut_card=sheet.cut_card,
        notes=list(sheet.notes),
    )
    if sheet.min_rtp is not None:
        out.min_rtp.CopyFrom(ratio(sheet.min_rtp))
    return out
