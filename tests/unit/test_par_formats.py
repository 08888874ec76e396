"""The PAR sheet's file formats: the CSV files read back to the sheet's exact figures."""

from __future__ import annotations

import csv
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from pricing.analysis.par_sheet import ParSheet
from pricing.cli.par_csv import CSV_FILES, write_par_csv
from pricing.errors import InvalidOption
from tests.support.par_sheets import AWKWARD, awkward_sheet, hilo_sheet

#: A reduced Hi-Lo deck (11 cards, 2 burns, 5 results): the full sheet's shape, in no time.
SMALL_HILO = hilo_sheet(sizes=(3, 2, 1, 2, 3), burns=2, results=5)
SHEETS = [SMALL_HILO, awkward_sheet()]


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def fraction(text: str) -> Fraction | None:
    return None if text == "" else Fraction(text)


# --- CSV ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: s.game)
def test_the_csv_files_read_back_to_the_sheets_exact_figures(
    sheet: ParSheet, tmp_path: Path
) -> None:
    folder = tmp_path / "made" / "here"
    assert write_par_csv(sheet, folder) == [folder / name for name in CSV_FILES]
    bets = rows(folder / "bets.csv")
    assert [r["bet"] for r in bets] == [e.bet for e in sheet.entries]
    outcomes: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in rows(folder / "outcomes.csv"):
        outcomes[r["bet"]].append(r)
    ranges = rows(folder / "ranges.csv")
    for row, e in zip(bets, sheet.entries, strict=True):
        assert (row["basis"], row["precision"], row["note"]) == (
            str(e.basis),
            str(e.precision),
            e.note,
        )
        if e.par is None:
            assert row["rtp_exact"] == row["rtp"] == "" and e.bet not in outcomes
            continue
        p = e.par
        for name in ("rtp", "house_edge", "hit_frequency", "variance", "max_win"):
            assert Fraction(row[f"{name}_exact"]) == getattr(p, name), name
            assert float(row[name]) == float(getattr(p, name))
        assert fraction(row["max_win_one_in_exact"]) == p.max_win_one_in
        assert float(row["standard_deviation"]) == p.standard_deviation
        assert float(row["volatility_index_90"]) == p.volatility_index(90)
        assert row["max_win_hittable"] == str(p.max_win_hittable)
        got = [
            (
                r["outcome"],
                int(r["payout_hundredths"]),
                Fraction(r["net_exact"]),
                Fraction(r["probability_exact"]),
                fraction(r["one_in_exact"]),
                Fraction(r["rtp_share_exact"]),
            )
            for r in outcomes[e.bet]
        ]
        assert got == [
            (o.name, o.payout_hundredths, o.net, o.probability, o.one_in, o.rtp_share)
            for o in p.outcomes
        ]
        mine = [
            (int(r["level"]), int(r["rounds"]), float(r["low"]), float(r["high"]))
            for r in ranges
            if r["bet"] == e.bet
        ]
        assert mine == [(v.level, r.rounds, r.low, r.high) for v in p.volatility for r in v.ranges]
    assert_distributions(sheet, rows(folder / "distributions.csv"))
    assert [(r["rule"], r["value"]) for r in rows(folder / "rules.csv")] == list(sheet.rules)
    assert [r["note"] for r in rows(folder / "notes.csv")] == list(sheet.notes)
    fields = {r["field"]: r["value"] for r in rows(folder / "sheet.csv")}
    assert (fields["game"], fields["title"]) == (sheet.game, sheet.title)
    assert fraction(fields["min_rtp_exact"]) == sheet.min_rtp
    figures = [(r["bet"], r["figure"], r["precision"]) for r in rows(folder / "figures.csv")]
    assert figures == [("", f.name, str(f.precision)) for f in sheet.figures] + [
        (e.bet, f.name, str(f.precision)) for e in sheet.entries for f in e.figures
    ]


def assert_distributions(sheet: ParSheet, got: list[dict[str, str]]) -> None:
    moving = [e for e in sheet.entries if e.distribution is not None]
    assert [r["bet"] for r in got] == [e.bet for e in moving]
    for row, e in zip(got, moving, strict=True):
        d = e.distribution
        assert d is not None
        for name in ("offered", "minimum", "mean", "maximum", "min_rtp", "below_min", "variance"):
            assert fraction(row[f"{name}_exact"]) == getattr(d, name), name
        assert int(row["states"]) == d.states
        se = e.distribution_error
        assert row["mean_standard_error"] == ("" if se is None else str(se.mean))


def test_the_csv_files_quote_what_needs_it(tmp_path: Path) -> None:
    write_par_csv(awkward_sheet(), tmp_path)
    assert rows(tmp_path / "bets.csv")[0]["bet"] == AWKWARD
    figure = rows(tmp_path / "figures.csv")[0]
    assert (figure["bet"], Fraction(figure["value_exact"])) == ("", Fraction(7, 3))


def test_a_file_where_the_csv_folder_should_be_is_refused(tmp_path: Path) -> None:
    taken = tmp_path / "sheet"
    taken.write_text("mine")
    with pytest.raises(InvalidOption, match=f"{taken}: a file"):
        write_par_csv(SMALL_HILO, taken)
    with pytest.raises(InvalidOption, match=f"{taken}"):
        write_par_csv(SMALL_HILO, taken / "below")
    assert taken.read_text() == "mine"
