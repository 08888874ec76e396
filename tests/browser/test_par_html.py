"""The PAR sheet's page as a real browser draws it (``make par-html-check``; marked ``browser``,
so ``make test`` leaves it out): headless Chromium prints the page to PDF with every host name
unresolvable (a page that fetched anything would lose it), then poppler-utils read the PDF
back: the title, every bet, each bet's RTP with its digits and an exact fraction are in its
text; each bet's section starts a page; and the plots were drawn (the page's style is grey,
so coloured pixels are the plots').

The page is ``$PAR_HTML`` when set (the make target makes it first, as a user would:
``pricing analyze GAME --par --html FILE``), else made here the same way; ``$PAR_HTML_GAME``
names its game (``hilo``; ``dragon-tiger``).
Needs Debian's ``chromium`` and ``poppler-utils`` (``.ci/run`` installs them when missing).
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

from pricing.analysis.blackjack import full_shoe_rtps
from pricing.analysis.goagae import goagae_rtp
from pricing.analysis.higher_lower import higher_lower_report
from pricing.analysis.par_shoe import hilo_states, rtp_distribution
from pricing.analysis.side_bets import side_bet_presets
from pricing.analysis.two_hands import price_shoe, simulated_paytables, table_keys
from pricing.cli import main
from pricing.cli.par_html import PRINTED_FRACTION
from pricing.games.hilo import BETS
from pricing.text import fraction_text

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

GAME = os.environ.get("PAR_HTML_GAME", "hilo")


@dataclass(frozen=True)
class Expected:
    """What a game's page must show, from the math core alone (not from the page's sheet)."""

    title: str
    rtp: dict[str, Fraction]  # each bet's RTP


def hilo() -> Expected:
    return Expected("Hi-Lo", {bet: rtp_distribution(hilo_states(bet)).mean for bet in BETS})


def dragon_tiger() -> Expected:
    full = price_shoe(
        "dragon-tiger", [8] * 52, table_keys("dragon-tiger", simulated_paytables("dragon-tiger"))
    )
    return Expected("Dragon Tiger", {key: odds.rtp_fraction for key, odds in full.items()})


def baccarat() -> Expected:
    full = price_shoe("baccarat", [8] * 52, table_keys("baccarat", simulated_paytables("baccarat")))
    return Expected("Baccarat", {key: odds.rtp_fraction for key, odds in full.items()})


def goagae() -> Expected:
    return Expected("Goa Gae", {bet: r.per_offered_round for bet, r in goagae_rtp().bets.items()})


def higher_lower() -> Expected:
    report = higher_lower_report()
    rtp = {}
    for mode, bets in (("continuous", report.continuous), ("depleting", report.depleting)):
        assert bets is not None
        rtp |= {f"{bet}/{mode}": r.overall.per_offered_round for bet, r in bets.items()}
    return Expected("Higher/Lower", rtp)


def blackjack() -> Expected:
    # The side bets' full-shoe RTPs (the main game's figures are doubles, not on this list).
    rtps = full_shoe_rtps(6)
    return Expected("Blackjack", {key: rtps[key] for key in side_bet_presets()})  # page order


EXPECTED: dict[str, Callable[[], Expected]] = {
    "hilo": hilo,
    "goagae": goagae,
    "higher-lower": higher_lower,
    "blackjack": blackjack,
    "baccarat": baccarat,
    "dragon-tiger": dragon_tiger,
}


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: apt-get install chromium poppler-utils")
    return found


def run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"{argv[0]} failed ({done.returncode}): {done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def expected() -> Expected:
    return EXPECTED[GAME]()


@pytest.fixture(scope="module")
def pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("par-html")
    given = os.environ.get("PAR_HTML")
    page = Path(given) if given else folder / f"{GAME}.html"
    if not given:
        assert main(["analyze", GAME, "--par", "--html", str(page)], io.StringIO()) == 0
    out = folder / "page.pdf"
    run(
        tool("chromium"),
        "--headless",
        "--no-sandbox",  # as root, in a container: Chromium's sandbox needs what neither gives
        "--disable-gpu",
        "--no-pdf-header-footer",
        "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing from the network reaches the page
        f"--user-data-dir={folder / 'profile'}",
        f"--print-to-pdf={out}",
        page.resolve().as_uri(),
    )
    assert out.stat().st_size > 0
    return out


@pytest.fixture(scope="module")
def pages(pdf: Path) -> list[str]:
    """The text of each page of the PDF, as laid out."""
    info = run(tool("pdfinfo"), str(pdf))
    count = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    return [
        run(tool("pdftotext"), "-layout", "-f", str(i), "-l", str(i), str(pdf), "-")
        for i in range(1, count + 1)
    ]


def test_the_title_every_bet_and_each_rtp_are_on_the_printed_page(
    pages: list[str], expected: Expected
) -> None:
    text = "\n".join(pages)
    assert expected.title in pages[0] and "PAR sheet" in pages[0]
    assert "Summary" in pages[0] and "Notes and sources" in text
    # The summary runs to the first bet's page (a long name may wrap at its hyphen there:
    # the bet's name before its preset is looked for); a long fraction may wrap in its cell.
    first = min(first_lines(pages).index(bet) for bet in expected.rtp)
    summary = "\n".join(pages[:first])
    unwrapped = re.sub(r"\s+", "", text)
    for bet, rtp in expected.rtp.items():
        assert bet.split("/")[0] in summary, bet
        assert f"{float(rtp) * 100:.4f}%" in text, (bet, float(rtp))
        exact = fraction_text(rtp)
        if len(exact) <= PRINTED_FRACTION:
            assert exact in unwrapped, (bet, rtp)  # the exact line prints
        else:  # too long to print: its digits are counted (the CSV and JSON have it whole)
            digits = f"a number of {len(str(rtp.denominator))} digits"
            assert digits in text, (bet, digits)


def first_lines(pages: list[str]) -> list[str]:
    return [
        next((line.strip() for line in page.splitlines() if line.strip()), "") for page in pages
    ]


def test_each_bet_starts_a_printed_page(pages: list[str], expected: Expected) -> None:
    firsts = first_lines(pages)
    starts = [firsts.index(bet) for bet in expected.rtp]  # ValueError: a bet starts no page
    assert starts == sorted(starts) and starts[0] > 0
    assert firsts.index("Notes and sources") > starts[-1]


def coloured_pixels(png: Path) -> int:
    """Pixels of a saturated colour (HSV saturation over a third): the page's style is grey
    (saturation 0), the plots' blues, orange and red are not."""
    from PIL import Image  # noqa: PLC0415 - pillow, a dependency of matplotlib

    with Image.open(png) as image:
        saturation = image.convert("RGB").convert("HSV").getchannel("S").histogram()
    return sum(saturation[85:])


def test_every_bet_has_its_plots_drawn(
    pdf: Path, pages: list[str], expected: Expected, tmp_path: Path
) -> None:
    run(tool("pdftoppm"), "-r", "50", "-png", str(pdf), str(tmp_path / "page"))
    colour = [coloured_pixels(png) for png in sorted(tmp_path.glob("page-*.png"))]
    assert len(colour) == len(pages)
    starts = [first_lines(pages).index(bet) for bet in expected.rtp]
    assert colour[: starts[0]] == [0] * starts[0]  # the rules and summary: no plot
    for bet, start, end in zip(expected.rtp, starts, [*starts[1:], len(pages)], strict=True):
        # A bet's plots at 50 dpi: about 7,000 coloured pixels; a broken image, a few.
        assert sum(colour[start:end]) > 3000, (bet, colour[start:end])
