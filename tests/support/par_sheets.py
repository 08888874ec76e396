"""PAR sheets built in Python for the format tests (CSV, HTML) and the browser check, from the
math core alone (``par_bet``, ``rtp_distribution``, ``hilo_states``): a Hi-Lo sheet, exact
over the deck's states, and a small sheet whose names need escaping, with every optional part
(a simulated distribution with its standard errors, labelled figures, an entry without an
outcome table).

Run as a module, it writes a game's page: ``python -m tests.support.par_sheets hilo FILE``
(what ``make par-html-check`` renders until ``pricing analyze hilo --par --html FILE`` exists).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction
from math import lcm
from pathlib import Path

from pricing.analysis.hilo import FULL_DECK_CLASSES
from pricing.analysis.par import par_bet
from pricing.analysis.par_sheet import (
    Basis,
    DistributionError,
    ParEntry,
    ParFigure,
    ParSheet,
    Precision,
)
from pricing.analysis.par_shoe import hilo_states, rtp_distribution
from pricing.games.fixed_odds import SideBetOdds
from pricing.games.hilo import BETS, OPENING_BURNS, RESULTS_PER_DECK

#: The floor the sheets are measured against: Malta's 85 %.
MIN_RTP = Fraction(85, 100)


def offered_mixture(bet: str, states: Iterable[tuple[Fraction, SideBetOdds]]) -> SideBetOdds:
    """A moving-price bet as one paytable over the offered rounds: each offered payout is an
    outcome (``"WIN 2.50"``), its probability the chance a unit staked on a random offered
    round wins at that payout; ``LOSE`` the rest."""
    wins: dict[int, Fraction] = defaultdict(Fraction)
    offered = Fraction(0)
    for weight, odds in states:
        if not weight or not odds.open:
            continue
        offered += weight
        for name, o in odds.outcomes.items():
            if name != "LOSE":
                wins[o.payout_hundredths] += weight * o.fraction
    shares = {pay: p / offered for pay, p in sorted(wins.items()) if p}
    total = lcm(*(s.denominator for s in shares.values())) if shares else 1
    names = {pay: f"WIN {pay / 100:.2f}" for pay in shares}
    return SideBetOdds.from_ways(
        bet,
        {names[pay]: int(s * total) for pay, s in shares.items()},
        total,
        {names[pay]: pay for pay in shares},
    )


def hilo_sheet(
    *,
    sizes: Sequence[int] = FULL_DECK_CLASSES,
    burns: int = OPENING_BURNS,
    results: int = RESULTS_PER_DECK,
    min_rtp: Fraction | None = MIN_RTP,
) -> ParSheet:
    """Hi-Lo's sheet over a deck of ``sizes`` (the full deck by default): every bet's price
    moves with the deck, so each entry is the mixture over offered rounds with the exact
    distribution of its RTP."""
    entries = []
    for bet in BETS:
        states = list(hilo_states(bet, sizes=sizes, burns=burns, results=results))
        entries.append(
            ParEntry(
                bet,
                Basis.OFFERED_ROUNDS,
                Precision.EXACT,
                par_bet(offered_mixture(bet, states)),
                rtp_distribution(states, min_rtp=min_rtp),
            )
        )
    return ParSheet(
        "hilo",
        "Hi-Lo",
        (
            ("Deck", f"{sum(sizes)} cards, shuffled once"),
            ("Burned at the start", str(burns)),
            ("Results per deck", str(results)),
            ("Paytable", "the default (docs/rules.md §2)"),
        ),
        tuple(entries),
        min_rtp=min_rtp,
        notes=(
            "Each bet's price moves with the deck: its figures are the average over the "
            "rounds a table offers it, exact over every state of the deck.",
            "The volatility index is z · σ with σ the whole-deck standard deviation, the "
            "spread of the prices included.",
        ),
    )


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
                par_bet(offered_mixture("MOVING", moving)),
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
