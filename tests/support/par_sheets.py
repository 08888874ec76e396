"""PAR sheets for the format tests (CSV, HTML) and the browser check: Hi-Lo's over a
(reduced) deck, as the product builds it, and a small sheet whose names need escaping, with
every optional part (a simulated distribution with its standard errors, labelled figures, an
entry without an outcome table).

Run as a module, it writes a sheet's page: ``python -m tests.support.par_sheets awkward FILE``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from pricing.analysis.hilo import FULL_DECK_CLASSES
from pricing.analysis.par import par_bet
from pricing.analysis.par_games import hilo_par_sheet
from pricing.analysis.par_sheet import (
    Basis,
    DistributionError,
    ParEntry,
    ParFigure,
    ParSheet,
    Precision,
)
from pricing.analysis.par_shoe import mixture_odds, rtp_distribution
from pricing.games.fixed_odds import SideBetOdds
from pricing.games.hilo import OPENING_BURNS, RESULTS_PER_DECK

#: The floor the sheets are measured against: Malta's 85 %.
MIN_RTP = Fraction(85, 100)


def hilo_sheet(
    *,
    sizes: Sequence[int] = FULL_DECK_CLASSES,
    burns: int = OPENING_BURNS,
    results: int = RESULTS_PER_DECK,
    min_rtp: Fraction | None = MIN_RTP,
) -> ParSheet:
    """Hi-Lo's sheet over a deck of ``sizes`` (the full deck by default), as the product
    builds it (``pricing.analysis.par_games.hilo_par_sheet``)."""
    return hilo_par_sheet(sizes=sizes, burns=burns, results=results, min_rtp=min_rtp)


#: A bet name with every character HTML and CSV must escape or quote.
AWKWARD = "<b>PAIR</b> & \"ODD\", 'x'"


def awkward_sheet() -> ParSheet:
    """A small sheet whose names and notes hold markup, with every optional part: a fixed bet
    with a push and a half loss, a simulated distribution with its standard errors, entry and
    game figures (exact, double and simulated), an entry without an outcome table."""
    pair = SideBetOdds.from_ways(
        AWKWARD, {"WIN": 1, "PUSH": 2, "HALF": 5}, 20, {"WIN": 1100, "PUSH": 0, "HALF": -50}
    )
    cheap = SideBetOdds.from_ways("MOVING", {"WIN": 1}, 2, {"WIN": 80})
    rich = SideBetOdds.from_ways("MOVING", {"WIN": 1}, 2, {"WIN": 120})
    moving = [(Fraction(3), cheap), (Fraction(1), rich)]
    return ParSheet(
        "awkward",
        'A <sheet> & its "quotes"',
        (("Decks <n>", "8 & more"),),
        (
            ParEntry(AWKWARD, Basis.FULL_SHOE, Precision.EXACT, par_bet(pair), note="<i>n</i>"),
            ParEntry(
                "MOVING",
                Basis.OFFERED_ROUNDS,
                Precision.SIMULATED,
                par_bet(mixture_odds("MOVING", moving)),
                rtp_distribution(moving, min_rtp=Fraction(1)),
                Precision.SIMULATED,
                DistributionError(shoes=200, mean=0.0012, below_min=0.031),
            ),
            ParEntry(
                "MAIN",
                Basis.STRATEGY,
                Precision.DOUBLE,
                None,
                figures=(
                    ParFigure("edge, basic strategy", -0.0043, Precision.DOUBLE),
                    ParFigure("σ per initial wager", 1.15, Precision.SIMULATED, 0.002, "<one>"),
                ),
            ),
        ),
        figures=(ParFigure("cards <dealt>", Fraction(7, 3), Precision.EXACT),),
        min_rtp=Fraction(1),
        shoes=200,
        seed=7,
        cut_card=52,
        notes=("<script>alert('x')</script>", "GLI-11 §4.8.2 & GLI-19"),
    )


#: The sheets ``python -m tests.support.par_sheets GAME FILE`` writes.
SHEETS = {"hilo": hilo_sheet, "awkward": awkward_sheet}


def main(argv: Sequence[str]) -> int:
    from pricing.cli.par_html import write_par_html  # noqa: PLC0415 - matplotlib's, when run

    if len(argv) != 2 or argv[0] not in SHEETS:
        print(f"usage: python -m tests.support.par_sheets {{{','.join(SHEETS)}}} FILE")
        return 2
    write_par_html(SHEETS[argv[0]](), Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
