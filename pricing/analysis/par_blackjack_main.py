"""Blackjack's main game on its PAR sheet (``pricing.analysis.par_blackjack``): a skill game,
its figures under a stated strategy.

- The player's edge on a full shoe under composition-dependent play and under basic strategy:
  the analyzer's (``pricing.games.blackjack.decisions.player_edge``: exact sums in C doubles),
  and the RTPs they make.
- The standard deviation of a round's net result per initial wager, and its volatility index:
  the analyzer gives expected values only, not the second moment, so they are simulated, over
  rounds played by the basic strategy the analyzer prices
  (``pricing.analysis.par_blackjack_play``), with a standard error taking each shoe as a
  cluster (the delta method from the variance's).
- The average total bet of that strategy (the initial wager, doubles and split hands): exact
  (``pricing.analysis.par_blackjack_play.average_total_bet``), since only the first two cards
  of each hand decide it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pricing.analysis.par import z_score
from pricing.analysis.par_blackjack_play import PlayedRound, average_total_bet
from pricing.analysis.par_sheet import Basis, ParEntry, ParFigure, Precision
from pricing.analysis.side_bets import full_shoe
from pricing.analysis.two_hands_sim import Cluster
from pricing.errors import InvalidOption
from pricing.games.blackjack.decisions import MainGameRules, Strategy, player_edge

__all__ = [
    "EDGE_BASIC",
    "EDGE_COMPOSITION",
    "MAIN",
    "MAIN_NOTE",
    "STANDARD_DEVIATION",
    "TOTAL_BET",
    "MainSimulation",
    "main_game_entry",
    "main_simulation",
]

#: The sheet's name of the main game.
MAIN: Final = "MAIN"
#: The main game's figures, by name.
EDGE_COMPOSITION: Final = "Player edge, composition-dependent play"
EDGE_BASIC: Final = "Player edge, basic strategy"
STANDARD_DEVIATION: Final = "Standard deviation per initial wager, basic strategy"
TOTAL_BET: Final = "Average total bet per round (initial wager, doubles, splits), basic strategy"

#: The sheet's note on the main game's figures.
MAIN_NOTE: Final = (
    "Main game: the player's edge per initial wager on a full shoe is the analyzer's (exact "
    "sums in C doubles), under composition-dependent play and under the basic strategy chart. "
    "The analyzer gives expected values only: the standard deviation of a round's net result "
    "per initial wager is simulated over rounds played by that basic strategy, ± a standard "
    "error taking each shoe as a cluster. The average total bet of the basic strategy (initial "
    "wager, doubles, split hands; a double or split a dealer blackjack hands back counted as "
    "staked) is exact, over every first two cards of the player's hands and the up card."
)


@dataclass(frozen=True, slots=True)
class MainSimulation:
    """The main game over simulated rounds played by the basic strategy: ``rounds`` played,
    the mean net result and the standard deviation per initial wager and the mean total
    stake, each with its standard error (each shoe a cluster; the deviation's by the delta
    method)."""

    rounds: int
    mean: float
    mean_se: float
    standard_deviation: float
    standard_deviation_se: float
    staked: float
    staked_se: float


def main_simulation(played: Sequence[Sequence[PlayedRound]]) -> MainSimulation:
    """The main game's figures over ``played`` rounds, shoe by shoe."""
    n = sum(len(shoe) for shoe in played)
    if not n:
        raise InvalidOption("no round was played: deal more shoes or cut the shoe later")
    # Per shoe (a cluster): its rounds against the sums of the net, of its squared deviation
    # from the mean and of the stake.
    net, square, stake = Cluster(), Cluster(), Cluster()
    mean = math.fsum(r.net_halves for shoe in played for r in shoe) / 2 / n
    for shoe in played:
        rounds = float(len(shoe))
        net.add(rounds, math.fsum(r.net_halves for r in shoe) / 2)
        square.add(rounds, math.fsum((r.net_halves / 2 - mean) ** 2 for r in shoe))
        stake.add(rounds, float(sum(r.staked for r in shoe)))
    sd = math.sqrt(square.ratio)
    return MainSimulation(
        rounds=n,
        mean=mean,
        mean_se=net.se,
        standard_deviation=sd,
        standard_deviation_se=square.se / (2 * sd) if sd else 0.0,
        staked=stake.ratio,
        staked_se=stake.se,
    )


def main_game_entry(
    decks: int, rules: MainGameRules, played: Sequence[Sequence[PlayedRound]]
) -> ParEntry:
    """The main game's entry: the analyzer's full-shoe edges, the exact average total bet of
    the basic strategy on a full shoe, and the standard deviation per initial wager over the
    ``played`` rounds (per shoe) with its volatility index."""
    full = list(full_shoe(decks))
    composition = player_edge(full, rules, Strategy.COMPOSITION)
    basic = player_edge(full, rules, Strategy.BASIC)
    sim = main_simulation(played)
    z90 = z_score(90)
    per_wager = "per initial wager, the player's cards and the up card dealt from a full shoe"
    figures = (
        ParFigure(EDGE_COMPOSITION, composition, Precision.DOUBLE, note=per_wager),
        ParFigure(EDGE_BASIC, basic, Precision.DOUBLE, note=per_wager),
        ParFigure("RTP, composition-dependent play", 1 + composition, Precision.DOUBLE),
        ParFigure("RTP, basic strategy", 1 + basic, Precision.DOUBLE),
        ParFigure(STANDARD_DEVIATION, sim.standard_deviation, Precision.SIMULATED,
                  sim.standard_deviation_se,
                  note=f"of a round's net result, over {sim.rounds:,} simulated rounds"),
        ParFigure("Volatility index at 90 %, basic strategy", z90 * sim.standard_deviation,
                  Precision.SIMULATED, z90 * sim.standard_deviation_se),
        ParFigure(TOTAL_BET, average_total_bet(full, rules), Precision.EXACT,
                  note="in initial wagers, the first round of a full shoe (the mean over a "
                       "shoe's rounds); doubles and splits a dealer blackjack hands back "
                       "counted"),
    )  # fmt: skip
    return ParEntry(MAIN, Basis.STRATEGY, Precision.DOUBLE, None, figures=figures)
