"""``pricing analyze``: tables, JSON, plots and paytable files, in process."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pricing.cli import main


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["analyze", *argv], out)
    return code, out.getvalue()


def test_hilo_json_carries_the_exact_figures() -> None:
    code, text = run("hilo", "--json")
    assert code == 0
    data = json.loads(text)
    low = data["bets"]["LOW"]
    assert len(low["by_position"]) == 10
    assert low["rtp"]["value"] == pytest.approx(0.958390, abs=1e-6)
    num, den = map(int, low["rtp"]["exact"].split("/"))
    assert num / den == low["rtp"]["value"]
    assert (low["min_payout_hundredths"], low["max_payout_hundredths"]) == (52, 264)
    assert sum(data["bets"]["SEVEN"]["distribution"].values()) + data["bets"]["SEVEN"]["closed"][
        "value"
    ] == pytest.approx(1)


def test_hilo_table_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "hilo.png"
    code, text = run("hilo", "--plot", str(png))
    assert code == 0
    assert "SEVEN           83.4694%" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_paytable_file_changes_the_report(tmp_path: Path) -> None:
    file = tmp_path / "paytable.json"
    file.write_text(
        json.dumps({"seven": {"rtp_bp": 9000, "min_hundredths": 0, "max_hundredths": 5000}})
    )
    code, text = run("hilo", "--paytable", str(file), "--json")
    seven = json.loads(text)["bets"]["SEVEN"]
    assert code == 0 and seven["rule"]["rtp_bp"] == 9000
    assert 0.89 < seven["rtp"]["value"] < 0.9


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "must hold an object of bets"),
        ("{nope", "is not JSON"),
        ('{"LOW": {"rtp_bp": 9600}}', "LOW needs exactly rtp_bp"),
        ('{"TWELVE": {"rtp_bp": 1, "min_hundredths": 0, "max_hundredths": 1}}', "unknown Hi-Lo"),
    ],
)
def test_bad_paytable_files_exit_2_naming_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    file = tmp_path / "bad.json"
    file.write_text(content)
    code, _ = run("hilo", "--paytable", str(file))
    assert code == 2
    assert message in capsys.readouterr().err


def test_goagae_rounds_and_blackjack(tmp_path: Path) -> None:
    code, text = run("goagae", "--rounds", "8")
    assert code == 0 and "left out (no exact count for this deal): STRAIGHT, NINE" in text
    png = tmp_path / "bj.png"
    code, text = run("blackjack", "--shoes", "30", "--plot", str(png))
    assert code == 0 and "PAIRS/perfect-pairs" in text and png.exists()
