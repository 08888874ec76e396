"""The plots of a PAR sheet's page (``pricing.cli.par_html``), drawn with matplotlib (the
optional extra ``live-odds-pricing[plot]``, imported only to draw) as SVG, each returned as a
``data:`` URI for an ``<img>``: vector (sharp in print), self-contained, and an SVG document of
its own, so that the ids matplotlib writes in one plot cannot clash with another's.

The output is the same bytes for the same sheet: no date in the SVG's metadata, and its ids
salted with the plot's own name rather than at random.
"""

from __future__ import annotations

import base64
import io
import math
from fractions import Fraction
from typing import Any, Final

from pricing.analysis.par import ParBet, VolatilityLevel
from pricing.analysis.par_shoe import RtpDistribution
from pricing.errors import InvalidOption

__all__ = ["Plotter"]

#: Outcomes up to this many are bars with their names; more (a moving price's payouts) are
#: stems at their net payout.
_NAMED_OUTCOMES: Final = 16
#: Beyond this many outcomes the plot draws one line through them instead of a stem each (a
#: page of Higher/Lower's thousand payouts per bet would take megabytes of SVG).
_STEMMED_OUTCOMES: Final = 120
#: The funnel's horizontal axis: 10³ … 10⁸ rounds.
_FIRST_POWER, _LAST_POWER = 3, 8


class Plotter:
    """Draws a sheet's plots; ``InvalidOption`` when matplotlib is not installed."""

    def __init__(self) -> None:
        try:
            import matplotlib  # noqa: PLC0415 - an optional extra, only for the page's plots

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt  # noqa: PLC0415
        except ImportError:
            raise InvalidOption(
                "the PAR sheet's page draws its plots with matplotlib: "
                "pip install 'live-odds-pricing[plot]'"
            ) from None
        self._mpl: Any = matplotlib
        self._plt: Any = plt

    def _svg(self, fig: Any, salt: str) -> str:
        """``fig`` as a ``data:image/svg+xml`` URI (the figure closed)."""
        buffer = io.BytesIO()
        with self._mpl.rc_context({"svg.hashsalt": salt, "svg.fonttype": "path"}):
            fig.savefig(buffer, format="svg", metadata={"Date": None})
        self._plt.close(fig)
        return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")

    def outcomes(self, key: str, par: ParBet) -> str:
        """Each outcome's probability (log scale) and share of the RTP."""
        outcomes = par.outcomes
        fig, (left, right) = self._plt.subplots(1, 2, figsize=(7.2, 2.6))
        probability = [float(o.probability) for o in outcomes]
        share = [float(o.rtp_share) * 100 for o in outcomes]
        if len(outcomes) <= _NAMED_OUTCOMES:
            x: list[float] = list(range(len(outcomes)))
            for ax, values in ((left, probability), (right, share)):
                ax.bar(x, values, color="C0")
                ax.set_xticks(x, [o.name for o in outcomes], rotation=30, ha="right", fontsize=7)
        else:
            x = [float(o.net) for o in outcomes]
            for ax, values in ((left, probability), (right, share)):
                if len(outcomes) <= _STEMMED_OUTCOMES:
                    ax.vlines(x, 0, values, color="C0", linewidth=1.2)
                    ax.plot(x, values, "o", color="C0", markersize=2.5)
                else:  # hundreds of payouts (a moving price): one line, not a stem each
                    ax.plot(x, values, "-", color="C0", linewidth=0.8)
                ax.set_xlabel("net payout per unit", fontsize=8)
        left.set_yscale("log")
        left.set_title("probability (log scale)", fontsize=9)
        right.set_title("share of the RTP (%)", fontsize=9)
        for ax in (left, right):
            ax.tick_params(labelsize=7)
        fig.tight_layout()
        return self._svg(fig, f"{key}-outcomes")

    def funnel(
        self,
        key: str,
        rtp: Fraction,
        levels: tuple[VolatilityLevel, ...],
        min_rtp: Fraction | None,
    ) -> str:
        """The realised-RTP range against the number of rounds (10³ … 10⁸, log scale) at
        each confidence level, around the RTP, with the floor when one is set."""
        fig, ax = self._plt.subplots(figsize=(7.2, 2.8))
        steps = 120
        rounds = [
            10 ** (_FIRST_POWER + (_LAST_POWER - _FIRST_POWER) * i / steps)
            for i in range(steps + 1)
        ]
        centre = float(rtp) * 100
        shades = {90: 0.45, 95: 0.3, 99: 0.15}
        for v in sorted(levels, key=lambda v: -v.level):
            half = [v.index * 100 / math.sqrt(n) for n in rounds]
            ax.fill_between(
                rounds,
                [centre - h for h in half],
                [centre + h for h in half],
                color="C0",
                alpha=shades.get(v.level, 0.2),
                linewidth=0,
                label=f"{v.level} %",
            )
        ax.axhline(centre, color="C0", linewidth=1.0, label=f"RTP {centre:.4f} %")
        if min_rtp is not None:
            ax.axhline(
                float(min_rtp) * 100,
                color="C3",
                linestyle="--",
                linewidth=1.0,
                label=f"floor {float(min_rtp) * 100:g} %",
            )
        ax.set_xscale("log")
        ax.set_xlim(rounds[0], rounds[-1])
        ax.set_xlabel("rounds played", fontsize=8)
        ax.set_ylabel("realised RTP (%)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper right")
        fig.tight_layout()
        return self._svg(fig, f"{key}-funnel")

    def distribution(self, key: str, d: RtpDistribution) -> str:
        """The RTP over offered rounds: its range, its mean and the floor."""
        fig, ax = self._plt.subplots(figsize=(7.2, 1.7), layout="constrained")
        low, mean, high = (float(x) * 100 for x in (d.minimum, d.mean, d.maximum))
        ax.hlines(0, low, high, color="C0", linewidth=6, label="minimum – maximum")
        ax.plot([mean], [0], "D", color="C1", markersize=8, label=f"mean {mean:.4f} %")
        marks = [low, high]
        if d.min_rtp is not None:
            floor = float(d.min_rtp) * 100
            marks.append(floor)
            below = "" if d.below_min is None else f", {float(d.below_min):.2%} of rounds below"
            ax.axvline(floor, color="C3", linestyle="--", label=f"floor {floor:g} %{below}")
        span = max(max(marks) - min(marks), 1e-6)
        ax.set_xlim(min(marks) - span * 0.1, max(marks) + span * 0.1)
        ax.set_yticks([])
        ax.set_xlabel("RTP of an offered round (%)", fontsize=8)
        ax.tick_params(labelsize=7)
        fig.legend(fontsize=7, loc="outside upper center", ncol=3, frameon=False)
        return self._svg(fig, f"{key}-distribution")
