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
from array import array
from collections.abc import Iterable
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
    "MainAccumulator",
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


class MainAccumulator:
    """``main_simulation``'s figures built up shoe by shoe: ``add_shoe`` each shoe's played
    rounds, then ``result``. The net result's and the stake's cluster sums are kept as they
    come; the standard deviation's take each shoe's squared deviations from the mean of every
    round, known only at the end, so each round's net result is kept, as one byte (a few
    hundred KiB for the largest sheet's rounds, not the rounds): the figures are the same,
    bit for bit, as over lists of the rounds."""

    __slots__ = ("_lengths", "_net", "_nets", "_stake")

    def __init__(self) -> None:
        self._nets = array("b")  # every round's net result in halves, shoe after shoe
        self._lengths = array("I")  # the rounds of each shoe
        self._net, self._stake = Cluster(), Cluster()

    def add_shoe(self, played: Iterable[PlayedRound]) -> None:
        """Count one shoe's played rounds (read once: a generator will do)."""
        start = len(self._nets)
        staked = 0
        for r in played:
            self._nets.append(r.net_halves)
            staked += r.staked
        nets = self._nets[start:]
        rounds = float(len(nets))
        self._lengths.append(len(nets))
        self._net.add(rounds, math.fsum(nets) / 2)
        self._stake.add(rounds, float(staked))

    def result(self) -> MainSimulation:
        """The figures over the shoes added so far; ``InvalidOption`` if no round was played."""
        n = len(self._nets)
        if not n:
            raise InvalidOption("no round was played: deal more shoes or cut the shoe later")
        mean = math.fsum(self._nets) / 2 / n
        # Per shoe (a cluster): its rounds against the sum of its squared deviations.
        square = Cluster()
        start = 0
        for length in self._lengths:
            nets = self._nets[start : start + length]
            start += length
            square.add(float(length), math.fsum((v / 2 - mean) ** 2 for v in nets))
        sd = math.sqrt(square.ratio)
        return MainSimulation(
            rounds=n,
            mean=mean,
            mean_se=self._net.se,
            standard_deviation=sd,
            standard_deviation_se=square.se / (2 * sd) if sd else 0.0,
            staked=self._stake.ratio,
            staked_se=self._stake.se,
        )


def main_simulation(played: Iterable[Iterable[PlayedRound]]) -> MainSimulation:
    """The main game's figures over ``played`` rounds, shoe by shoe (``MainAccumulator``)."""
    accumulator = MainAccumulator()
    for shoe in played:
        accumulator.add_shoe(shoe)
    return accumulator.result()


def main_game_entry(decks: int, rules: MainGameRules, sim: MainSimulation) -> ParEntry:
    """The main game's entry: the analyzer's full-shoe edges, the exact average total bet of
    the basic strategy on a full shoe, and the standard deviation per initial wager over the
    simulated rounds ``sim`` with its volatility index."""
    full = list(full_shoe(decks))
    composition = player_edge(full, rules, Strategy.COMPOSITION)
    basic = player_edge(full, rules, Strategy.BASIC)
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
