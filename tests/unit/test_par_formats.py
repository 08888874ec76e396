"""The PAR sheet's file formats: the CSV files read back to the sheet's exact figures, and the
HTML page parsed back (well formed, nothing fetched from elsewhere, every bet and figure there,
every name escaped). The page as a browser draws it is checked in ``tests/browser/``."""

from __future__ import annotations

import base64
import csv
import dataclasses
import sys
from collections import defaultdict
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pricing.analysis.par_sheet import SOURCES, ParEntry, ParSheet, Precision
from pricing.cli.par_csv import CSV_FILES, write_par_csv
from pricing.cli.par_html import par_html, write_par_html
from pricing.cli.par_plots import Plotter
from pricing.errors import InvalidOption
from pricing.text import fraction_text
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


# --- HTML ---------------------------------------------------------------------------------


class Page(HTMLParser):
    """The page's text, its tags' attributes, and whether every tag closes where it should."""

    VOID = frozenset({"meta", "img", "br", "link", "hr", "input"})

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []
        self.attrs: list[tuple[str, dict[str, str | None]]] = []
        self.feed(page)
        self.close()
        if self.open:
            self.errors.append(f"left open: {self.open}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open.pop() != tag:
            self.errors.append(f"</{tag}> closes nothing it opened")

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def values(self, attribute: str) -> list[str]:
        return [a[attribute] or "" for _, a in self.attrs if attribute in a]


def fractions_of(e: ParEntry) -> list[Fraction]:
    """The exact figures the page must show of an entry."""
    out: list[Fraction] = []
    if e.par is not None:
        p = e.par
        out += [p.rtp, p.house_edge, p.hit_frequency, p.variance, p.max_win_probability]
        out += [x for o in p.outcomes for x in (o.net, o.probability, o.rtp_share)]
    if e.distribution is not None and e.distribution_precision is Precision.EXACT:
        d = e.distribution  # a simulated one's figures are estimates: shown as decimals
        out += [d.minimum, d.mean, d.maximum, d.offered]
    return out


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda s: s.game)
def test_the_page_is_well_formed_self_contained_and_shows_every_bet(sheet: ParSheet) -> None:
    page = Page(par_html(sheet, plots=False))
    assert page.errors == []
    text = " ".join(page.text)
    assert sheet.title in text and all(e.bet in text for e in sheet.entries)
    assert all(note in text for note in sheet.notes)
    assert all(source in text for source in SOURCES) and "Generated by pricing" in text
    assert all(k in text and v in text for k, v in sheet.rules)
    # Nothing fetched: no link out, no script; each bet link lands on an id of the page.
    assert not page.values("src") and not any(tag == "script" for tag, _ in page.attrs)
    ids = set(page.values("id"))
    assert all(href.startswith("#") and href[1:] in ids for href in page.values("href"))
    titles = set(page.values("title"))
    for e in sheet.entries:
        for x in fractions_of(e):
            assert f"exactly {fraction_text(x)}" in titles, (e.bet, x)
            assert fraction_text(x) in text
        if e.par is not None:
            assert f"{float(e.par.rtp) * 100:.4f}%" in text


def test_every_name_is_escaped() -> None:
    source = par_html(awkward_sheet(), plots=False)
    for raw in ("<b>PAIR</b>", "<script>", "<sheet>", "<dealt>", "<i>n</i>", "<one>", "<n>"):
        assert raw not in source
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in source
    assert "&lt;b&gt;PAIR&lt;/b&gt; &amp; &quot;ODD&quot;, &#x27;x&#x27;" in source


def test_the_plots_are_svg_inside_the_page_drawn_the_same_each_time(tmp_path: Path) -> None:
    moving = awkward_sheet().entry("MOVING")  # an outcome table and a distribution: 3 plots
    assert moving.distribution is not None
    sheet = dataclasses.replace(awkward_sheet(), entries=(moving,))
    path = tmp_path / "sheet.html"
    write_par_html(sheet, path)
    sources = Page(path.read_text(encoding="utf-8")).values("src")
    assert len(sources) == 3
    for src in sources:
        head, _, data = src.partition(",")
        assert head == "data:image/svg+xml;base64"
        assert b"<svg" in base64.b64decode(data)[:1000]
    # No date, no random ids: the same sheet gives the same bytes.
    assert sources[2] == Plotter().distribution(f"{sheet.game}-1", moving.distribution)


def test_a_page_that_cannot_be_written_or_drawn_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidOption, match=f"{tmp_path}"):
        write_par_html(SMALL_HILO, tmp_path, plots=False)
    with pytest.raises(InvalidOption, match="missing"):
        write_par_html(SMALL_HILO, tmp_path / "missing" / "x.html", plots=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    with pytest.raises(InvalidOption, match=r"live-odds-pricing\[plot\]"):
        par_html(SMALL_HILO)
    assert "<h2>LOW</h2>" in par_html(SMALL_HILO, plots=False)
