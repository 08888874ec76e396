"""``pricing analyze GAME --par --html FILE``: a game's PAR sheet as one self-contained,
printable HTML page: the rules it was computed under, a summary of every bet, then per bet
(a printed page each) its figures, outcome table, volatility and realised-RTP ranges, the
distribution of its RTP when its odds move with the shoe, its labelled figures and plots, and
at the end the notes and sources.

Nothing is fetched: the style sheet is inline and the plots (``pricing.cli.par_plots``, with
matplotlib) are SVG ``data:`` URIs. Every exact figure is shown rounded, with its fraction
beside it (a title on the decimal, and a small monospaced line under it in the bet's
sections, which prints). Every piece of text is escaped: the page is built by ``el``, which
escapes each text child and attribute and inserts only markup it built itself (``Html``), so
no template language is needed for it.

>>> from pricing.analysis.par import par_bet
>>> from pricing.analysis.par_sheet import Basis, ParEntry, ParSheet, Precision
>>> from pricing.games.fixed_odds import SideBetOdds
>>> tie = par_bet(SideBetOdds.from_ways("<TIE>", {"WIN": 1}, 10, {"WIN": 800}))
>>> page = par_html(ParSheet("demo", "A demo", (), (ParEntry("<TIE>", Basis.FIXED,
...     Precision.EXACT, tie),)), plots=False)
>>> "&lt;TIE&gt;" in page and "<TIE>" not in page, "90.0000%" in page, "9/10" in page
(True, True, True)
>>> el("a", "x < y", href="#b")
'<a href="#b">x &lt; y</a>'
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Final, TypeAlias

from pricing.analysis.par import (
    CONFIDENCE_LEVELS,
    HITTABLE_ONE_IN,
    ParBet,
    VolatilityLevel,
    banded_outcomes,
)
from pricing.analysis.par_sheet import (
    SOURCES,
    ParEntry,
    ParFigure,
    ParSheet,
    Precision,
    generated_by,
)
from pricing.analysis.par_shoe import RtpDistribution
from pricing.cli.par_plots import Plotter
from pricing.errors import InvalidOption
from pricing.text import fraction_text

__all__ = ["Html", "el", "par_html", "write_par_html"]


class Html(str):
    """Markup, safe to insert as it is: built by ``el`` (or a trusted constant)."""

    __slots__ = ()


#: A child of an element: markup, text (escaped), nothing, or a sequence of children.
Node: TypeAlias = Html | str | Iterable["Node"] | None

_VOID: Final = frozenset({"meta", "img", "br"})


def _markup(node: Node) -> str:
    if node is None:
        return ""
    if isinstance(node, Html):
        return node
    if isinstance(node, str):
        return html.escape(node)
    return "".join(_markup(child) for child in node)


def el(tag: str, *children: Node, **attrs: str | None) -> Html:
    """``<tag attrs>children</tag>``, every text child and attribute value escaped; an
    attribute ``class_`` is ``class``, ``data_x`` is ``data-x``; a ``None`` one is left out."""
    names = "".join(
        f' {name.rstrip("_").replace("_", "-")}="{html.escape(value)}"'
        for name, value in attrs.items()
        if value is not None
    )
    if tag in _VOID:
        return Html(f"<{tag}{names}>")
    return Html(f"<{tag}{names}>{_markup(children)}</{tag}>")


# --- Numbers ------------------------------------------------------------------------------


def _percent(x: float) -> str:
    return f"{x * 100:.4f}%" if x == 0 or abs(x) >= 1e-6 else f"{x * 100:.3g}%"


def _probability(x: float) -> str:
    return f"{x:.6g}"


def _one_in(x: float) -> str:
    return f"{x:,.2f}"


def _net(x: float) -> str:
    return "0" if x == 0 else f"{x:+,.6g}"


def _plain(x: float) -> str:
    return f"{x:,.4f}"


def _significant(x: float) -> str:
    return f"{x:,.6g}"


#: The longest fraction printed under its decimal: a longer one (an exact mean over a deep
#: shoe can run to thousands of digits) is its title alone, and the CSV's and JSON's.
PRINTED_FRACTION: Final = 160


def _exact(x: Fraction | None, shown: str, *, line: bool = True) -> Html:
    """A rounded figure with its exact fraction: as its title, and (``line``) printed under it.

    >>> _exact(Fraction(1, 3), "0.3333")
    '<span class="dec" title="exactly 1/3">0.3333</span><code class="exact">1/3</code>'
    >>> _exact(Fraction(1, 3**400), "0")[-60:]
    '<code class="exact">exact: 1/(a number of 191 digits)</code>'
    """
    if x is None:
        return Html("—")
    text = fraction_text(x)
    decimal = el("span", shown, class_="dec", title=f"exactly {text}")
    if not line:
        return decimal
    if len(text) > PRINTED_FRACTION:
        num, den = (
            fraction_text(Fraction(n)).removesuffix("/1") for n in (x.numerator, x.denominator)
        )
        text = f"exact: {_digits(num)}/{_digits(den)}"
    return Html(decimal + el("code", text, class_="exact"))


def _digits(number: str) -> str:
    """A number as it is when short, else its count of digits."""
    return (
        number
        if len(number) <= PRINTED_FRACTION // 2
        else f"(a number of {len(number.lstrip('-'))} digits)"
    )


def _pct(x: Fraction | None, *, line: bool = True) -> Html:
    return _exact(x, "" if x is None else _percent(float(x)), line=line)


def _figure_value(f: ParFigure) -> Html:
    if isinstance(f.value, Fraction):
        return _exact(f.value, _significant(float(f.value)))
    return Html(html.escape(_significant(f.value)))


# --- Tables -------------------------------------------------------------------------------


def _table(head: Iterable[str], rows: Iterable[Iterable[Node]], class_: str = "") -> Html:
    return el(
        "table",
        el("thead", el("tr", [el("th", h) for h in head])),
        el("tbody", [el("tr", [el("td", cell) for cell in row]) for row in rows]),
        class_=class_ or None,
    )


def _pairs(rows: Iterable[tuple[str, Node]]) -> Html:
    """A two-column table of labelled figures."""
    return el(
        "table",
        el(
            "tbody",
            [el("tr", el("th", label, scope="row"), el("td", value)) for label, value in rows],
        ),
        class_="pairs",
    )


def _plot(uri: str, caption: str) -> Html:
    return el("figure", el("img", src=uri, alt=caption), el("figcaption", caption))


# --- The page's parts ---------------------------------------------------------------------


def _header(sheet: ParSheet) -> Html:
    return el(
        "header",
        el("h1", sheet.title),
        el(
            "p",
            "PAR sheet of ",
            el("code", sheet.game),
            ". Figures are exact (ratios of integers) unless marked double or simulated; "
            "each rounded decimal has its exact fraction beside it.",
            class_="lead",
        ),
    )


def _rules(sheet: ParSheet) -> Html:
    rows: list[tuple[str, Node]] = list(sheet.rules)
    if sheet.min_rtp is not None:
        rows.append(("Return floor asked for", _pct(sheet.min_rtp)))
    if sheet.shoes:
        rows.append(
            (
                "Simulation",
                f"{sheet.shoes:,} shoes, seed {sheet.seed}, cut card at {sheet.cut_card}",
            )
        )
    return el("section", el("h2", "Rules"), _pairs(rows), class_="rules")


def _anchor(index: int) -> str:
    return f"bet-{index + 1}"


def _summary(sheet: ParSheet) -> Html:
    rows = []
    for i, e in enumerate(sheet.entries):
        p = e.par
        link = el("a", e.bet, href=f"#{_anchor(i)}")
        if p is None:
            figures: list[Node] = ["—"] * 6
        else:
            figures = [
                _pct(p.rtp, line=False),
                _pct(p.house_edge, line=False),
                _pct(p.hit_frequency, line=False),
                _plain(p.standard_deviation),
                _plain(p.volatility_index(90)),
                _exact(p.max_win, _net(float(p.max_win)), line=False),
            ]
        rows.append([link, *figures, str(e.basis), str(e.precision)])
    head = ["Bet", "RTP", "House edge", "Hit frequency", "σ", "VI 90 %", "Max win"]
    return el(
        "section",
        el("h2", "Summary"),
        _table([*head, "Basis", "Precision"], rows, "summary"),
        el(
            "p",
            "Per unit staked; σ and VI (z · σ) are floats: the square root of an exact "
            "variance. Hover a figure for its exact fraction.",
            class_="small",
        ),
        class_="summary",
    )


def _bet_figures(p: ParBet) -> Html:
    hittable = "yes" if p.max_win_hittable else "no"
    return _pairs(
        [
            ("RTP", _pct(p.rtp)),
            ("House edge", _pct(p.house_edge)),
            ("Hit frequency (the bet wins)", _pct(p.hit_frequency)),
            ("Mean net result per unit", _exact(p.mean_net, _net(float(p.mean_net)))),
            ("Variance per unit", _exact(p.variance, _significant(float(p.variance)))),
            ("Standard deviation σ (√variance)", _plain(p.standard_deviation)),
            ("Maximum win per unit", _exact(p.max_win, _net(float(p.max_win)))),
            (
                "Its probability",
                _exact(p.max_win_probability, _probability(float(p.max_win_probability))),
            ),
            (
                "Its odds, 1 in",
                _exact(
                    p.max_win_one_in,
                    "" if p.max_win_one_in is None else _one_in(float(p.max_win_one_in)),
                ),
            ),
            (f"Hittable once in {HITTABLE_ONE_IN:,} games (GLI-11 §4.8.2)", hittable),
        ]
    )


def _outcomes(p: ParBet) -> Html:
    outcomes, banded = banded_outcomes(p.outcomes)
    rows = [
        [
            o.name,
            _exact(o.net, _net(float(o.net))),
            _exact(o.probability, _probability(float(o.probability))),
            _exact(o.one_in, "" if o.one_in is None else _one_in(float(o.one_in))),
            _pct(o.rtp_share),
        ]
        for o in outcomes
    ]
    head = ["Outcome", "Net payout per unit", "Probability", "1 in X", "Share of RTP"]
    table = _table(head, rows, "outcomes")
    if not banded:
        return table
    paid = sum(o.net > 0 for o in p.outcomes)
    note = (
        f"The {paid} payouts offered, in bands of pay: each band's probability and share "
        "exact, its net payout the exact mean within it (the CSV files list every payout)."
    )
    return Html(el("p", note, class_="note") + table)


def _ranges(levels: tuple[VolatilityLevel, ...]) -> Html:
    """Rows: the VI, then the realised-RTP range after each number of rounds; a column a level."""
    by_level = sorted(levels, key=lambda v: v.level)
    rows: list[list[Node]] = [
        ["VI (z · σ)", *(f"{_plain(v.index)} (z {v.z:.3f})" for v in by_level)]
    ]
    for i, r in enumerate(by_level[0].ranges if by_level else ()):
        rows.append(
            [
                f"{r.rounds:,} rounds",
                *(f"{_percent(v.ranges[i].low)} – {_percent(v.ranges[i].high)}" for v in by_level),
            ]
        )
    return _table(["", *(f"{v.level} %" for v in by_level)], rows, "ranges")


def _distribution(sheet: ParSheet, e: ParEntry, d: RtpDistribution) -> Html:
    """``e``'s distribution ``d``, with its standard errors when simulated."""
    se = e.distribution_error
    simulated = e.distribution_precision is Precision.SIMULATED

    def figure(x: Fraction | None) -> Html:
        """A figure of the sample: exact over the simulated rounds, but an estimate, so its
        fraction (of a sample) is not printed as if it were the bet's."""
        if simulated and x is not None:
            return Html(el("span", _percent(float(x)), class_="dec"))
        return _pct(x)

    def number(x: Fraction) -> Html:
        if simulated:
            return Html(el("span", _significant(float(x)), class_="dec"))
        return _exact(x, _significant(float(x)))

    def with_se(shown: Html, error: float | None) -> Node:
        if error is None:
            return shown
        return [shown, el("span", f"± {_percent(error)} (standard error)", class_="se")]

    rows: list[tuple[str, Node]] = [
        ("Rounds simulated" if simulated else "Deck states", f"{d.states:,}"),
        ("Share of rounds offered", figure(d.offered)),
        ("Minimum RTP", figure(d.minimum)),
        ("Mean RTP over offered rounds", with_se(figure(d.mean), None if se is None else se.mean)),
        ("Maximum RTP", figure(d.maximum)),
    ]
    if d.min_rtp is not None:
        rows.append(("Floor", _pct(d.min_rtp)))
        rows.append(
            (
                "Offered rounds below the floor",
                with_se(figure(d.below_min), None if se is None else se.below_min),
            )
        )
    if d.variance is not None and d.standard_deviation is not None:
        rows.append(("Variance of a unit bet over the rounds dealt", number(d.variance)))
        if d.price_variance is not None:
            rows.append(("of which the spread of the RTP over rounds", number(d.price_variance)))
        rows.append(("σ over the rounds dealt", _plain(d.standard_deviation)))
        for v in d.volatility() or ():
            rows.append((f"VI {v.level} % over the rounds dealt", _plain(v.index)))
    how = str(e.distribution_precision)
    if e.distribution_precision is Precision.SIMULATED:
        shoes = sheet.shoes if se is None else se.shoes
        how += f" over {shoes:,} shoes (seed {sheet.seed}, cut card at {sheet.cut_card})"
    return el("div", el("p", f"Precision: {how}.", class_="small"), _pairs(rows))


def _figures(figures: Iterable[ParFigure]) -> Html:
    rows = [
        [
            f.name,
            _figure_value(f),
            str(f.precision),
            "" if f.standard_error is None else f"{f.standard_error:.4g}",
            f.note,
        ]
        for f in figures
    ]
    return _table(["Figure", "Value", "Precision", "Standard error", "Note"], rows, "figures")


def _bet(sheet: ParSheet, index: int, e: ParEntry, plotter: Plotter | None) -> Html:
    key = f"{sheet.game}-{index + 1}"
    parts: list[Node] = [
        el("h2", e.bet),
        el("p", f"Basis: {e.basis}. Precision: {e.precision}.", class_="meta"),
    ]
    if e.note:
        parts.append(el("p", e.note, class_="note"))
    p = e.par
    if p is not None:
        parts += [el("h3", "Figures"), _bet_figures(p), el("h3", "Outcomes"), _outcomes(p)]
        if plotter is not None:
            parts.append(
                _plot(
                    plotter.outcomes(key, p),
                    f"{e.bet}: each outcome's probability and share of the RTP",
                )
            )
        parts += [el("h3", "Volatility and the realised RTP after N rounds"), _ranges(p.volatility)]
        if plotter is not None:
            parts.append(
                _plot(
                    plotter.funnel(key, p.rtp, p.volatility, sheet.min_rtp),
                    f"{e.bet}: the range the realised RTP falls in against the rounds played, "
                    f"at {', '.join(f'{c} %' for c in CONFIDENCE_LEVELS)}",
                )
            )
    if e.distribution is not None:
        parts += [
            el("h3", "The RTP over the rounds dealt"),
            _distribution(sheet, e, e.distribution),
        ]
        if plotter is not None:
            parts.append(
                _plot(
                    plotter.distribution(key, e.distribution),
                    f"{e.bet}: the RTP of an offered round, its range, mean and the floor",
                )
            )
    if e.figures:
        parts += [el("h3", "Other figures"), _figures(e.figures)]
    return el("section", parts, class_="bet", id=_anchor(index))


#: What each figure means: the basis the notes build on.
DEFINITIONS: Final = (
    ("RTP", "Σ probability · (1 + net payout): what a unit staked returns, stake included."),
    ("House edge", "1 − RTP."),
    ("Hit frequency", "The probability the bet wins (a push or a half loss is not a win)."),
    ("Variance, σ", "E[net²] − E[net]² per unit staked; σ is its square root."),
    ("Share of RTP", "(1 + net) · probability / RTP: a loss counts 0, a push its stake."),
    (
        "VI",
        "The volatility index z · σ, z the two-sided normal quantile of the level: after N "
        "independent rounds the realised RTP falls in RTP ± VI / √N with about that chance.",
    ),
    (
        "Basis",
        "fixed: the odds never move; full shoe: a full shoe's odds, the distribution gives "
        "the spread; average over offered rounds: a moving price's mean over the rounds a "
        "table offers it; strategy: a skill game's return under the stated strategy.",
    ),
)


def _notes(sheet: ParSheet) -> Html:
    return el(
        "section",
        el("h2", "Notes and sources"),
        el("ol", [el("li", note) for note in sheet.notes]) if sheet.notes else None,
        el("h3", "Sources"),
        el("ol", [el("li", source) for source in SOURCES]),
        el("p", generated_by(), class_="small"),
        el("h3", "Definitions"),
        el("dl", [[el("dt", term), el("dd", text)] for term, text in DEFINITIONS]),
        class_="notes",
    )


#: Screen and print (A4): each bet's section starts a page; rows and plots are not split.
CSS: Final = Html("""
@page { size: A4; margin: 14mm 12mm; }
html { font: 10pt/1.35 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; color: #111; }
body { max-width: 186mm; margin: 1em auto; padding: 0 1em; }
h1 { font-size: 18pt; margin: 0 0 .2em; }
h2 { font-size: 14pt; border-bottom: 1px solid #999; margin: 1.2em 0 .4em; }
h3 { font-size: 11pt; margin: 1em 0 .3em; }
h2, h3 { break-after: avoid; }
table { border-collapse: collapse; margin: .3em 0 .8em; font-size: 8.5pt; }
th, td { border: 1px solid #bbb; padding: 2px 5px; text-align: left; vertical-align: top; }
thead th { background: #eee; }
thead { display: table-header-group; }
tr, figure { break-inside: avoid; }
td:not(:first-child) { font-variant-numeric: tabular-nums; }
table.pairs th { font-weight: normal; background: #f5f5f5; }
.exact { display: block; font: 6.5pt/1.2 "DejaVu Sans Mono", monospace; color: #555;
  overflow-wrap: anywhere; max-width: 60mm; }
.se { display: block; font-size: 7.5pt; }
.lead, .meta { color: #333; }
.small { font-size: 8pt; color: #444; }
.note { font-style: italic; }
figure { margin: .4em 0 .8em; }
figure img { width: 100%; max-width: 180mm; }
figcaption { font-size: 8pt; color: #444; }
a { color: inherit; }
dt { font-weight: bold; }
dd { margin: 0 0 .4em 1.5em; }
@media print {
  body { max-width: none; margin: 0; padding: 0; }
  section.bet, section.notes { break-before: page; }
  a { text-decoration: none; }
}
""")


def par_html(sheet: ParSheet, *, plots: bool = True) -> str:
    """The page of ``sheet`` (``plots``: draw them, which needs matplotlib, else
    ``InvalidOption``; without, the tables alone)."""
    plotter = Plotter() if plots else None
    title = f"{sheet.title}: PAR sheet"
    head = el("head", el("meta", charset="utf-8"), el("title", title), el("style", CSS))
    body = el(
        "body",
        _header(sheet),
        _rules(sheet),
        _summary(sheet),
        [el("h3", "Figures of the game"), _figures(sheet.figures)] if sheet.figures else None,
        [_bet(sheet, i, e, plotter) for i, e in enumerate(sheet.entries)],
        _notes(sheet),
    )
    return "<!DOCTYPE html>\n" + el("html", head, body, lang="en") + "\n"


def write_par_html(sheet: ParSheet, path: Path, *, plots: bool = True) -> None:
    """Write the page of ``sheet`` to ``path`` (replaced if it exists); ``InvalidOption``
    naming the path when it cannot be written, or when ``plots`` and matplotlib is missing."""
    page = par_html(sheet, plots=plots)
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InvalidOption(f"cannot write the PAR sheet's page {path}: {exc.strerror}") from None
