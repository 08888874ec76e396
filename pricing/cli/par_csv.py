"""``pricing analyze GAME --par --csv DIR``: a PAR sheet as CSV files, one per table of the sheet.

Every file has a header row and is written even when it has no other row (a game without a
moving price has an empty ``distributions.csv``), so that a lab's tooling finds the same
files for every game:

- ``sheet.csv``: the game, the title, the floor asked for and the simulation's settings;
- ``rules.csv``: the rules the sheet was computed under, one per row;
- ``bets.csv``: one row per bet: RTP, house edge, hit frequency, variance, σ, the volatility
  index at 90/95/99 %, the maximum win with its probability and "1 in X", its basis and
  precision;
- ``outcomes.csv``: one row per outcome of each bet: payout, net result per unit, probability,
  "1 in X", share of the RTP;
- ``ranges.csv``: the realised-RTP range after 10³ … 10⁸ rounds at each level;
- ``distributions.csv``: for the bets whose odds move with the shoe, the RTP over the rounds
  dealt (minimum, maximum, mean, the share below the floor, the whole-shoe σ) and, when
  simulated, its standard errors;
- ``figures.csv``: the labelled figures (blackjack's main game), per bet or for the game;
- ``notes.csv``: the sheet's notes (the basis of each figure, the sources).

An exact figure has two columns: ``NAME`` (a float, for a spreadsheet) and ``NAME_exact``
(``"numerator/denominator"``, for a check: ``fractions.Fraction`` reads it back). An empty cell
is a figure the bet does not have (no "1 in X" for an outcome of probability 0, no
distribution for a fixed bet).

>>> import tempfile
>>> from fractions import Fraction
>>> from pricing.analysis.par import par_bet
>>> from pricing.analysis.par_sheet import Basis, ParEntry, ParSheet, Precision
>>> from pricing.games.fixed_odds import SideBetOdds
>>> tie = par_bet(SideBetOdds.from_ways("TIE", {"WIN": 1}, 10, {"WIN": 800}))
>>> sheet = ParSheet("demo", "A demo", (("Decks", "1"),),
...     (ParEntry("TIE", Basis.FIXED, Precision.EXACT, tie),))
>>> with tempfile.TemporaryDirectory() as folder:
...     paths = write_par_csv(sheet, Path(folder))
...     bets = (Path(folder) / "bets.csv").read_text().splitlines()
>>> [p.name for p in paths][:3], bets[1].split(",")[:5]
(['sheet.csv', 'rules.csv', 'bets.csv'], ['TIE', 'fixed', 'exact', '0.9', '9/10'])
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Final

from pricing.analysis.par import CONFIDENCE_LEVELS, ParBet, VolatilityLevel
from pricing.analysis.par_sheet import ParEntry, ParFigure, ParSheet
from pricing.errors import InvalidOption
from pricing.text import fraction_text

__all__ = ["CSV_FILES", "write_par_csv"]

#: The files written, in order.
CSV_FILES: Final = (
    "sheet.csv",
    "rules.csv",
    "bets.csv",
    "outcomes.csv",
    "ranges.csv",
    "distributions.csv",
    "figures.csv",
    "notes.csv",
)

Cell = str | int | float | bool | None
Row = list[Cell]


def _exact(name: str) -> list[str]:
    """The two columns of an exact figure."""
    return [name, f"{name}_exact"]


def _x(value: Fraction | None) -> Row:
    """An exact figure's two cells: its float and its fraction (both empty for ``None``)."""
    if value is None:
        return [None, None]
    return [float(value), fraction_text(value)]


def _vi(levels: Sequence[VolatilityLevel] | None) -> Row:
    """The volatility index at each of ``CONFIDENCE_LEVELS`` (empty without)."""
    by_level = {v.level: v.index for v in levels or ()}
    return [by_level.get(level) for level in CONFIDENCE_LEVELS]


_VI_COLUMNS: Final = [f"volatility_index_{level}" for level in CONFIDENCE_LEVELS]

_BET_COLUMNS: Final = [
    "bet",
    "basis",
    "precision",
    *_exact("rtp"),
    *_exact("house_edge"),
    *_exact("hit_frequency"),
    *_exact("variance"),
    "standard_deviation",
    *_VI_COLUMNS,
    *_exact("max_win"),
    *_exact("max_win_probability"),
    *_exact("max_win_one_in"),
    "max_win_hittable",
    "note",
]


def _bet_row(entry: ParEntry) -> Row:
    par: ParBet | None = entry.par
    head: Row = [entry.bet, str(entry.basis), str(entry.precision)]
    if par is None:
        return [*head, *[None] * (len(_BET_COLUMNS) - len(head) - 1), entry.note]
    return [
        *head,
        *_x(par.rtp),
        *_x(par.house_edge),
        *_x(par.hit_frequency),
        *_x(par.variance),
        par.standard_deviation,
        *_vi(par.volatility),
        *_x(par.max_win),
        *_x(par.max_win_probability),
        *_x(par.max_win_one_in),
        par.max_win_hittable,
        entry.note,
    ]


_OUTCOME_COLUMNS: Final = [
    "bet",
    "outcome",
    "payout_hundredths",
    *_exact("net"),
    *_exact("probability"),
    *_exact("one_in"),
    *_exact("rtp_share"),
]


def _outcome_rows(entry: ParEntry) -> Iterable[Row]:
    for o in entry.par.outcomes if entry.par else ():
        yield [
            entry.bet,
            o.name,
            o.payout_hundredths,
            *_x(o.net),
            *_x(o.probability),
            *_x(o.one_in),
            *_x(o.rtp_share),
        ]


_RANGE_COLUMNS: Final = ["bet", "level", "z", "volatility_index", "rounds", "low", "high"]


def _range_rows(entry: ParEntry) -> Iterable[Row]:
    for v in entry.par.volatility if entry.par else ():
        for r in v.ranges:
            yield [entry.bet, v.level, v.z, v.index, r.rounds, r.low, r.high]


_DISTRIBUTION_COLUMNS: Final = [
    "bet",
    "precision",
    "states",
    *_exact("offered"),
    *_exact("minimum"),
    *_exact("mean"),
    *_exact("maximum"),
    *_exact("min_rtp"),
    *_exact("below_min"),
    *_exact("variance"),
    *_exact("price_variance"),
    "standard_deviation",
    *_VI_COLUMNS,
    "shoes",
    "mean_standard_error",
    "below_min_standard_error",
]


def _distribution_rows(entry: ParEntry) -> Iterable[Row]:
    d = entry.distribution
    if d is None:
        return
    se = entry.distribution_error
    yield [
        entry.bet,
        str(entry.distribution_precision),
        d.states,
        *_x(d.offered),
        *_x(d.minimum),
        *_x(d.mean),
        *_x(d.maximum),
        *_x(d.min_rtp),
        *_x(d.below_min),
        *_x(d.variance),
        *_x(d.price_variance),
        d.standard_deviation,
        *_vi(d.volatility()),
        None if se is None else se.shoes,
        None if se is None else se.mean,
        None if se is None else se.below_min,
    ]


_FIGURE_COLUMNS: Final = [
    "bet",
    "figure",
    "value",
    "value_exact",
    "precision",
    "standard_error",
    "note",
]


def _figure_row(bet: str | None, f: ParFigure) -> Row:
    value: Row = _x(f.value) if isinstance(f.value, Fraction) else [float(f.value), None]
    return [bet, f.name, *value, str(f.precision), f.standard_error, f.note]


def _tables(sheet: ParSheet) -> dict[str, tuple[Sequence[str], Iterable[Row]]]:
    """Each file's header and rows."""
    entries = sheet.entries
    return {
        "sheet.csv": (
            ["field", "value"],
            [
                ["game", sheet.game],
                ["title", sheet.title],
                ["min_rtp", None if sheet.min_rtp is None else float(sheet.min_rtp)],
                ["min_rtp_exact", None if sheet.min_rtp is None else fraction_text(sheet.min_rtp)],
                ["shoes", sheet.shoes],
                ["seed", sheet.seed if sheet.shoes else None],
                ["cut_card", sheet.cut_card if sheet.shoes else None],
            ],
        ),
        "rules.csv": (["rule", "value"], [[k, v] for k, v in sheet.rules]),
        "bets.csv": (_BET_COLUMNS, [_bet_row(e) for e in entries]),
        "outcomes.csv": (_OUTCOME_COLUMNS, [r for e in entries for r in _outcome_rows(e)]),
        "ranges.csv": (_RANGE_COLUMNS, [r for e in entries for r in _range_rows(e)]),
        "distributions.csv": (
            _DISTRIBUTION_COLUMNS,
            [r for e in entries for r in _distribution_rows(e)],
        ),
        "figures.csv": (
            _FIGURE_COLUMNS,
            [
                *(_figure_row(None, f) for f in sheet.figures),
                *(_figure_row(e.bet, f) for e in entries for f in e.figures),
            ],
        ),
        "notes.csv": (["note"], [[note] for note in sheet.notes]),
    }


def write_par_csv(sheet: ParSheet, directory: Path) -> list[Path]:
    """Write ``sheet`` as the CSV files of ``CSV_FILES`` into ``directory`` (made if missing,
    its parents too; files of those names replaced) and return their paths, in that order.
    ``InvalidOption`` naming the path when it is a file or cannot be written."""
    if directory.exists() and not directory.is_dir():
        raise InvalidOption(f"cannot write the PAR sheet's CSV files into {directory}: a file")
    paths = []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, (header, rows) in _tables(sheet).items():
            path = directory / name
            with path.open("w", encoding="utf-8", newline="") as out:
                writer = csv.writer(out)
                writer.writerow(header)
                writer.writerows(rows)
            paths.append(path)
    except OSError as exc:
        where = exc.filename or directory
        raise InvalidOption(
            f"cannot write the PAR sheet's CSV files into {where}: {exc.strerror}"
        ) from None
    return paths
