"""``pricing analyze``: tables, JSON, plots and paytable files, in process."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest

from pricing.analysis.blackjack import DEFAULT_SHOES, blackjack_rtp
from pricing.analysis.side_bets import effect_of_removal
from pricing.cli import main
from pricing.games.blackjack import library
from pricing.games.blackjack.rules import DealerRule
from tests.support import toy_side_bet


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


@pytest.mark.slow
def test_hilo_table_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "hilo.png"
    code, text = run("hilo", "--plot", str(png))
    assert code == 0
    assert "SEVEN           83.4694%" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_higher_lower_plot(tmp_path: Path) -> None:
    png = tmp_path / "higher-lower.png"
    code, text = run("higher-lower", "--decks", "1", "--plot", str(png))
    assert code == 0 and "Depleting shoe: 11 rounds" in text
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


@pytest.mark.slow
def test_goagae_rounds_and_blackjack(tmp_path: Path) -> None:
    code, text = run("goagae", "--rounds", "8")
    assert code == 0 and "left out (no exact count for this deal): STRAIGHT, NINE" in text
    png = tmp_path / "bj.png"
    code, text = run("blackjack", "--shoes", "30", "--plot", str(png))
    assert code == 0 and png.exists()
    lines = text.splitlines()
    assert lines[0].endswith(
        "over 30 simulated shoes (seed 2026), mean ± standard error; dealer S17"
    )
    assert lines[1].split()[-5:] == ["edge", "if", "fav.", "±", "se"]
    rows = [line.split() for line in lines[2:]]
    keys = {f"{bet}/{p}" for bet, engine in library.BETS.items() for p in engine.presets}
    assert {(int(row[0]), row[1]) for row in rows} == {(d, key) for d in (6, 8) for key in keys}
    assert len(rows) == 2 * len(keys) * 10


def test_the_blackjack_report_of_one_bet_as_json() -> None:
    code, text = run("blackjack", "--shoes", "12", "--seed", "4", "--bet", "pairs", "--json")
    data = json.loads(text)
    want = blackjack_rtp(shoes=12, seed=4, bet="PAIRS").as_dict()
    assert code == 0 and data == want
    assert set(data["decks"]["6"]) == {f"PAIRS/{p}" for p in library.BETS["PAIRS"].presets}
    point = data["decks"]["8"]["PAIRS/any-pair"]["by_penetration"][-1]
    assert {"favourable_edge", "favourable_edge_se"} <= set(point)


def eor_rows(text: str) -> list[list[str]]:
    """The table rows of ``--eor``'s text, under its three lines of heading."""
    return [line.split() for line in text.splitlines()[3:] if line and "," not in line]


def test_the_effect_of_removal_table() -> None:
    code, text = run("blackjack", "--bet", "ROYAL_MATCH", "--preset", "standard", "--eor")
    assert code == 0
    blocks = [line for line in text.splitlines() if line.startswith("ROYAL_MATCH/standard")]
    assert blocks == [
        "ROYAL_MATCH/standard, 6 decks: full-shoe RTP 0.933342 (93.3342%)",
        "ROYAL_MATCH/standard, 8 decks: full-shoe RTP 0.935403 (93.5403%)",
    ]
    rows = eor_rows(text)
    table = library.paytable("ROYAL_MATCH", "standard")
    for decks, block in zip((6, 8), (rows[1:15], rows[16:30]), strict=True):
        assert rows[0] == rows[15] == ["rank", "change", "pp", "exact", "change"]
        want = effect_of_removal(decks, DealerRule.S17, table)
        assert [row[0] for row in block] == [*want, "sum"]
        for (rank, pp, exact), change in zip(block, [*want.values(), 0], strict=True):
            assert Fraction(exact) == change, rank
            assert float(pp) == pytest.approx(float(change) * 100, abs=5e-6)
    assert rows[14] == ["sum", "+0.00000", "0"]


def test_the_rule_and_the_effect_of_removal_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    toy_side_bet.register(monkeypatch)  # a bet of the library that reads the dealer's rule
    answers = {}
    for rule in ("s17", "H17"):
        code, text = run("blackjack", "--bet", "heart_queen", "--eor", "--rule", rule, "--json")
        assert code == 0
        answers[rule.upper()] = json.loads(text)
    for rule, data in answers.items():
        assert data["rule"] == rule
        for decks in (6, 8):
            for preset, pays in (("fifty", 5000), ("forty", 4000)):
                got = data["decks"][str(decks)][f"HEART_QUEEN/{preset}"]
                want = toy_side_bet.effect_of_removal(decks, DealerRule(rule), pays)
                assert {
                    r: Fraction(v["exact"]) for r, v in got["effect_of_removal"].items()
                } == want
                rtp = toy_side_bet.full_shoe_rtp(decks, DealerRule(rule), pays)
                assert Fraction(got["full_shoe_rtp"]["exact"]) == rtp
    code, text = run(
        "blackjack", "--bet", "heart_queen", "--preset", "forty", "--shoes", "5", "--rule", "h17"
    )
    assert code == 0 and "dealer H17" in text.splitlines()[0]
    assert {line.split()[1] for line in text.splitlines()[2:]} == {"HEART_QUEEN/forty"}
    assert f"{float(toy_side_bet.full_shoe_rtp(6, DealerRule.H17, 4000)):9.5f}" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["blackjack", "--preset", "any-pair"], "needs the side bet"),
        (["blackjack", "--bet", "poker"], "unknown side bet 'POKER'"),
        (["blackjack", "--bet", "pairs", "--preset", "two"], "unknown PAIRS preset 'two'"),
        (["blackjack", "--eor", "--shoes", "5"], "--eor is exact"),
        (["blackjack", "--eor", "--plot", "x.png"], "--eor is exact"),
        (["hilo", "--eor"], "are for blackjack's side bets"),
        (["goagae", "--rule", "h17"], "are for blackjack's side bets"),
        (["--table", "t1", "--bet", "PAIRS"], "--table/--game report live tables"),
        (["--table", "t1", "--decks", "2"], "--table/--game report live tables"),
        (["hilo", "--rounds", "3"], "--rounds and --cards-per-round are for goagae"),
        (["hilo", "--decks", "2"], "--decks 2: only with blackjack --main-game (--decks: or"),
    ],
)
def test_bad_blackjack_options_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _ = run(*argv)
    assert code == 2
    assert message in capsys.readouterr().err


def test_the_default_shoes_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["analyze", "--help"], io.StringIO())
    assert f"(default {DEFAULT_SHOES:,})" in " ".join(capsys.readouterr().out.split())
