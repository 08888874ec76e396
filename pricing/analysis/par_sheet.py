"""A game's PAR sheet: the math report a test lab signs, as one value the wire, the command
line's formats (text, JSON, CSV, HTML) and the tests read.

A sheet is a list of entries, one per bet and paytable, each with

- its ``basis`` (what the figures describe: a fixed game's odds, a full shoe's odds for a bet
  whose odds move with the shoe, or the average over the rounds a table offers it for a bet
  whose price moves), and its ``precision`` (exact, a double from a floating-point analyzer,
  or simulated);
- ``par``: the outcome table and the figures of ``pricing.analysis.par.ParBet`` — for a moving
  price, of the mixture over the offered rounds (each offered payout is an outcome, its
  probability the chance a unit staked on a random offered round wins at it): its RTP is the
  mean over offered rounds and its variance the whole-shoe variance, spread of the prices
  included;
- ``distribution``: for odds that move with the shoe, the RTP over the rounds a table deals
  (``pricing.analysis.par_shoe.RtpDistribution``), exact when the states are enumerated,
  otherwise over seeded simulated shoes with the standard errors of its mean and of its share
  below the floor (``distribution_se``);
- ``figures``: what does not fit an outcome table (blackjack's main game: the edge under each
  strategy, the standard deviation per initial wager, the average total bet), each labelled
  exact, double or simulated.

>>> from pricing.games.fixed_odds import SideBetOdds
>>> from pricing.analysis.par import par_bet
>>> tie = par_bet(SideBetOdds.from_ways("TIE", {"WIN": 1}, 10, {"WIN": 800}))
>>> sheet = ParSheet("demo", "A demo", (("Decks", "1"),), (ParEntry("TIE", Basis.FIXED,
...     Precision.EXACT, tie),))
>>> d = sheet.as_dict()
>>> d["bets"][0]["rtp_exact"], d["bets"][0]["basis"], d["bets"][0]["precision"]
('9/10', 'fixed', 'exact')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final, Protocol

from pricing import __version__
from pricing.analysis.par import ParBet
from pricing.analysis.par_shoe import RtpDistribution, pay_text
from pricing.analysis.report import exact_number

__all__ = [
    "SOURCES",
    "Basis",
    "DistributionError",
    "ParEntry",
    "ParFigure",
    "ParSheet",
    "Precision",
    "generated_by",
    "paytable_rules",
    "protection_rule",
]

#: What a sheet's figures answer to, printed with every sheet.
SOURCES: Final = (
    "GLI-11 (Gaming Devices in Casinos) §4.8.2: an advertised top award hittable at least "
    "once in 100 million games, or its odds shown; a 75 % minimum RTP unless a jurisdiction "
    "sets another.",
    "GLI-19 (Interactive Gaming Systems): a return that varies states its basis (minimum, "
    "maximum or average) and, for a game of skill, the strategy it assumes.",
    "eCOGRA RTP audits: realised returns judged within a statistically acceptable interval "
    "based on the game's volatility; UK Gambling Commission RTP monitoring: automated "
    "measurement and alerts outside a volatility-based tolerance.",
    "Minimum returns by jurisdiction, e.g. 75 % (GLI-11 default), 85 % (Malta), 87 % (Kansas), "
    "90 % (Italy, card games against the dealer).",
    "Published figures reproduced by the service's tests: baccarat, 8 decks, standard "
    "deviation Banker 0.93, Player 0.95, Tie 2.64 (Wizard of Odds, baccarat); blackjack, 6 "
    "decks, S17, double after split, surrender: variance 1.303 per initial wager (Wizard of "
    "Odds, blackjack appendix 4).",
)


class _Pays(Protocol):
    @property
    def pays(self) -> Mapping[str, int]: ...


class Basis(StrEnum):
    """What an entry's figures describe (GLI-19 asks a stated RTP to say its basis)."""

    #: The odds never move: a continuous shuffler, a fresh deck every round.
    FIXED = "fixed"
    #: A fixed paytable whose odds move with the shoe: the figures are a full shoe's (the mean
    #: of every round's RTP over the shoe; ``distribution`` gives the spread).
    FULL_SHOE = "full shoe"
    #: A price that moves with the shoe: the figures are the average over the rounds the bet
    #: is offered (``distribution`` gives the spread).
    OFFERED_ROUNDS = "average over offered rounds"
    #: A skill game's return under a stated strategy (blackjack's main game).
    STRATEGY = "strategy"


class Precision(StrEnum):
    """How a figure was computed."""

    EXACT = "exact"  # a ratio of integers
    DOUBLE = "double"  # a floating-point analyzer's
    SIMULATED = "simulated"  # a seeded simulation's, with its standard error


@dataclass(frozen=True, slots=True)
class ParFigure:
    """One labelled figure: a ``Fraction`` when exact, else a float (``standard_error`` with
    a simulated one)."""

    name: str
    value: Fraction | float
    precision: Precision
    standard_error: float | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        value: Any = (
            exact_number(self.value) if isinstance(self.value, Fraction) else float(self.value)
        )
        return {
            "name": self.name,
            "value": value,
            "precision": str(self.precision),
            "standard_error": self.standard_error,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class DistributionError:
    """The standard errors of a simulated ``RtpDistribution``'s ``mean`` and ``below_min``
    (the shoes as clusters: rounds of one shoe are not independent)."""

    shoes: int
    mean: float
    below_min: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"shoes": self.shoes, "mean": self.mean, "below_min": self.below_min}


@dataclass(frozen=True, slots=True)
class ParEntry:
    """One bet under one paytable (``bet``: ``"SEVEN"``, ``"PAIRS/any-pair"`` …)."""

    bet: str
    basis: Basis
    precision: Precision
    par: ParBet | None
    distribution: RtpDistribution | None = None
    distribution_precision: Precision = Precision.EXACT
    distribution_error: DistributionError | None = None
    figures: tuple[ParFigure, ...] = ()
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The ``ParBet``'s keys (``rtp_exact``, ``hit_frequency_exact``, ``variance_exact``,
        ``standard_deviation``, ``volatility_index``, ``outcomes`` …) with the entry's own."""
        out: dict[str, Any] = {"bet": self.bet}
        if self.par is not None:
            out.update(self.par.as_dict())
        out["bet"] = self.bet
        out["basis"] = str(self.basis)
        out["precision"] = str(self.precision)
        if self.distribution is not None:
            dist = self.distribution.as_dict()
            dist["precision"] = str(self.distribution_precision)
            dist["standard_errors"] = (
                None if self.distribution_error is None else self.distribution_error.as_dict()
            )
            volatility = self.distribution.volatility()
            if volatility is not None:
                dist["volatility_index"] = {str(v.level): v.index for v in volatility}
            out["distribution"] = dist
        out["figures"] = [f.as_dict() for f in self.figures]
        out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class ParSheet:
    """A game's sheet: ``game`` (the command line's name), a ``title``, the ``rules`` it was
    computed under as (label, value) lines, its ``entries``, game-level ``figures``, the
    ``min_rtp`` floor asked for (``None``: none), the simulation's ``shoes``/``seed``/
    ``cut_card`` when one ran (0 otherwise) and ``notes`` (the basis of each figure, sources)."""

    game: str
    title: str
    rules: tuple[tuple[str, str], ...]
    entries: tuple[ParEntry, ...]
    figures: tuple[ParFigure, ...] = ()
    min_rtp: Fraction | None = None
    shoes: int = 0
    seed: int = 0
    cut_card: int = 0
    notes: tuple[str, ...] = ()

    def entry(self, bet: str) -> ParEntry:
        """The entry named ``bet`` (``KeyError`` if none)."""
        for e in self.entries:
            if e.bet == bet:
                return e
        raise KeyError(bet)

    def as_dict(self) -> dict[str, Any]:
        """Every figure, JSON-ready: exact ones as ``"num/den"`` beside their float."""
        return {
            "game": self.game,
            "title": self.title,
            "rules": [{"name": k, "value": v} for k, v in self.rules],
            "min_rtp": None if self.min_rtp is None else exact_number(self.min_rtp),
            "simulation": (
                {"shoes": self.shoes, "seed": self.seed, "cut_card": self.cut_card}
                if self.shoes
                else None
            ),
            "bets": [e.as_dict() for e in self.entries],
            "figures": [f.as_dict() for f in self.figures],
            "notes": list(self.notes),
        }


def protection_rule(close_at_rtp_bp: int) -> tuple[str, str]:
    """A sheet's rules line for game protection (0: off)."""
    bound = f"side bets closed at RTP ≥ {close_at_rtp_bp / 100:g} %"
    return ("Game protection", bound if close_at_rtp_bp else "off")


def paytable_rules(tables: Mapping[str, _Pays]) -> tuple[tuple[str, str], ...]:
    """A sheet's rules lines for fixed paytables, by key: each entry's pay as odds to 1."""
    return tuple(
        (key, ", ".join(f"{entry} {pay_text(pay)}" for entry, pay in table.pays.items()))
        for key, table in tables.items()
    )


def generated_by(now: datetime | None = None) -> str:
    """The line that says which build wrote a sheet, and when (UTC)."""
    at = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return f"Generated by pricing {__version__} (live-odds-pricing) on {at}"
