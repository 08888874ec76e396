"""``pricing analyze blackjack --main-game`` (docs/rules.md §3.9, "The main-game report"): the
full-shoe edges, the up-card table, the penetration table and the command."""

from __future__ import annotations

import io
import json
import math
import random
from pathlib import Path

import pytest

from pricing.analysis.main_game import (
    FULL_SHOE_DECKS,
    QUANTILE,
    _point,
    full_shoe_edges,
    main_game_report,
    penetration_edges,
    up_card_edges,
)
from pricing.cards import DECK
from pricing.cli import main
from pricing.games.blackjack.decisions import MainGameRules, Strategy, player_edge
from pricing.games.blackjack.rules import DealerRule


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["analyze", "blackjack", "--main-game", *argv], out)
    return code, out.getvalue()


@pytest.mark.slow
def test_the_full_grid_holds_every_rule_set_and_the_published_six_deck_edge() -> None:
    grid = full_shoe_edges((6,), all_rules=True)
    by = {
        (r.rules.dealer_rule, r.rules.double_after_split, r.rules.max_splits, r.rules.surrender): r
        for r in grid
    }
    assert len(grid) == len(by) == 16
    farmer = next(r for r in grid if r.rules == MainGameRules(surrender=False))
    assert farmer.composition == pytest.approx(-0.00402870, abs=5e-9)  # Farmer's analyzer
    basic = player_edge([6] * 52, MainGameRules(surrender=False), Strategy.BASIC)
    assert farmer.basic == basic
    for r in grid:  # CDZ- never loses to the chart; each rule option moves the edge its way
        assert r.composition >= r.basic
    s17 = by[DealerRule.S17, True, 3, True].composition
    assert by[DealerRule.H17, True, 3, True].composition < s17
    assert by[DealerRule.S17, False, 3, True].composition < s17
    assert by[DealerRule.S17, True, 1, True].composition < s17
    assert by[DealerRule.S17, True, 3, False].composition < s17


@pytest.mark.slow
def test_the_default_table_is_each_size_by_dealer_rule() -> None:
    table = full_shoe_edges()
    assert [(r.decks, r.rules) for r in table] == [
        (d, MainGameRules(rule)) for d in FULL_SHOE_DECKS for rule in DealerRule
    ]
    assert table[0].composition == player_edge([1] * 52, MainGameRules())


@pytest.mark.parametrize(
    ("counts", "rules"),
    [
        ([6] * 52, MainGameRules()),
        ([2] * 52, MainGameRules(DealerRule.H17, double_after_split=False, surrender=False)),
        ([1] * 40 + [2] * 12, MainGameRules(max_splits=1)),  # a ten-rich shoe, uneven values
    ],
)
def test_the_up_cards_add_up_to_the_player_edge(counts: list[int], rules: MainGameRules) -> None:
    table = up_card_edges(counts, rules)
    assert table.edge == player_edge(counts, rules)
    assert abs(table.total - table.edge) < 1e-9
    assert math.fsum(r.probability for r in table.rows) == pytest.approx(1, abs=1e-15)
    assert [r.name for r in table.rows] == ["A", *map(str, range(2, 11))]
    tens = sum(counts[36:])
    assert table.rows[9].probability == tens / sum(counts)


def test_published_shape_of_the_six_deck_up_cards() -> None:
    rows = up_card_edges([6] * 52).rows
    evs = [r.ev for r in rows]
    assert max(evs) == rows[5].ev > 0.2  # the 6 is the dealer's worst card
    assert min(evs) == rows[0].ev < -0.3  # the Ace is the best
    assert rows[0].probability == pytest.approx(1 / 13)


def test_a_point_summarises_its_edges() -> None:
    p = _point(10, 31, [-0.01, 0.02, 0.04, -0.03], 1)
    assert (p.percent, p.cards_dealt, p.priced, p.skipped) == (10, 31, 4, 1)
    assert p.mean == pytest.approx(0.005)
    assert p.spread == pytest.approx(math.sqrt((0.015**2 + 0.015**2 + 0.035**2 + 0.035**2) / 3))
    assert p.mean_se == pytest.approx(p.spread / 2)
    assert (p.favourable, p.favourable_se) == (0.5, 0.25)
    assert p.favourable_edge == pytest.approx(0.03)
    assert p.favourable_edge_se == pytest.approx(math.sqrt(0.0002) / math.sqrt(2))
    assert QUANTILE == 0.95 and p.quantile == pytest.approx(0.02 + 0.02 * 0.85)
    even = _point(0, 0, [0.0, 0.0, 0.01], 0)  # an even shoe is not player-favourable
    assert (even.favourable, even.favourable_edge) == (pytest.approx(1 / 3), 0.01)


def test_a_shoe_too_short_to_play_is_skipped_and_counted() -> None:
    zero, deep = penetration_edges(1, 3, random.Random(1), points=(0, 95))
    assert (zero.priced, zero.skipped) == (3, 0)
    assert (deep.priced, deep.skipped, deep.cards_dealt) == (0, 3, 49)
    assert (deep.mean, deep.favourable, deep.quantile) == (0.0, 0.0, 0.0)


@pytest.mark.slow
def test_penetration_zero_is_the_exact_full_shoe_edge_and_later_means_stay_near() -> None:
    report = main_game_report(shoes=6, decks=(8,), points=(0, 25), seed=7, full_shoe_decks=(8,))
    zero, quarter = report.penetration[8]
    full = player_edge([8] * 52, MainGameRules())
    assert (zero.mean, zero.spread, zero.mean_se, zero.favourable) == (full, 0.0, 0.0, 0.0)
    assert report.up_cards[8].edge == full
    assert quarter.cards_dealt == 104 and quarter.priced == 6 and quarter.spread > 0
    # Composition-dependent play gains a little as the shoe thins (about 0.1 % here).
    assert abs(quarter.mean - full) < 4 * quarter.mean_se + 0.003


def test_under_basic_strategy_the_mean_edge_is_the_full_shoe_edge() -> None:
    """Removing unseen cards at random leaves the next round's chances as they were: with a
    fixed strategy the mean over shuffles at any depth is the full-shoe edge."""
    full = player_edge([1] * 52, MainGameRules(), Strategy.BASIC)
    _, half = penetration_edges(1, 60, random.Random(3), points=(0, 50), strategy=Strategy.BASIC)
    assert half.priced == 60 and half.mean_se > 0.001
    assert abs(half.mean - full) < 4 * half.mean_se


@pytest.mark.slow
def test_the_same_seed_gives_the_same_report() -> None:
    kwargs = {"shoes": 2, "decks": (1,), "points": (0, 40), "full_shoe_decks": (1,)}
    one = main_game_report(seed=5, **kwargs).as_dict()  # type: ignore[arg-type]
    assert one == main_game_report(seed=5, **kwargs).as_dict()  # type: ignore[arg-type]
    assert one != main_game_report(seed=6, **kwargs).as_dict()  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_sizes_figures_do_not_depend_on_the_other_sizes_asked_for() -> None:
    kwargs = {"shoes": 2, "points": (30,), "seed": 9, "full_shoe_decks": (1,)}
    alone = main_game_report(decks=(2,), **kwargs)  # type: ignore[arg-type]
    both = main_game_report(decks=(1, 2), **kwargs)  # type: ignore[arg-type]
    assert both.penetration[2] == alone.penetration[2]


@pytest.mark.slow
def test_the_command_prints_the_three_tables_and_draws_the_plot(tmp_path: Path) -> None:
    png = tmp_path / "main.png"
    code, text = run(
        "--shoes", "3", "--decks", "1", "--points", "0,30", "--seed", "4", "--plot", str(png)
    )
    assert code == 0
    assert "    6    S17  yes      3   yes  -0.162077%  -0.182234%" in text
    assert "  6   7.6923%" in text  # the 1-deck up-card table: the 6's chance
    assert "all 100.0000%" in text and "(player_edge +0.367356%)" in text
    assert "over 3 simulated shoes (seed 4; 4 edges computed)" in text
    assert "  30%    15    0 " in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_command_json_shape_and_seed() -> None:
    args = ("--shoes", "2", "--decks", "1", "--points", "0,20", "--json", "--rule", "h17")
    code, text = run(*args)
    assert code == 0
    data = json.loads(text)
    assert (data["report"], data["shoes"], data["seed"], data["all_rules"]) == (
        "main_game",
        2,
        2026,
        False,
    )
    assert data["rules"] == {
        "dealer_rule": "H17",
        "double_after_split": True,
        "max_splits": 3,
        "surrender": True,
    }
    assert len(data["full_shoe"]) == 8 and set(data["full_shoe"][0]) == {
        "decks",
        "dealer_rule",
        "double_after_split",
        "max_splits",
        "surrender",
        "composition",
        "basic",
    }
    one = data["decks"]["1"]
    assert one["up_cards"]["cards"] == 52 and len(one["up_cards"]["up_cards"]) == 10
    full = player_edge([1] * 52, MainGameRules(DealerRule.H17))
    assert one["up_cards"]["edge"] == full
    points = one["by_penetration"]
    assert [p["penetration"] for p in points] == [0.0, 0.2]
    assert points[0]["mean"] == full and points[1]["cards_dealt"] == 10


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bet", "PAIRS"], "--bet PAIRS: for the side-bet report, not with --main-game"),
        (["--eor"], "--eor: for the side-bet report"),
        (["--points", "0,120"], "'120' is not a whole percentage from 0 to 99"),
        (["--points", "50,20"], "--points must increase: 20 after 50"),
        (["--shoes", "1"], "shoes must be a whole number >= 2, got 1"),
    ],
)
def test_bad_options_are_refused_naming_the_value(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, text = run(*argv)
    assert code == 2 and not text
    assert message in capsys.readouterr().err


def test_a_shoe_size_out_of_range_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run("--decks", "9")
    assert exit_.value.code == 2
    assert "argument --decks: 9 is out of range: use 1 to 8" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["blackjack", "--decks", "6"], "--decks 6: only with blackjack --main-game"),
        (["blackjack", "--all-rules"], "--all-rules: only with blackjack --main-game"),
        (["hilo", "--main-game"], "--main-game: only with blackjack --main-game"),
        (["--table", "t1", "--main-game"], "--main-game"),
    ],
)
def test_main_game_options_elsewhere_are_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["analyze", *argv], io.StringIO()) == 2
    assert message in capsys.readouterr().err


def test_a_point_deals_its_share_of_the_whole_shoe() -> None:
    # The simulation's shoe is every card of DECK ``decks`` times: half of 2 decks is 52 cards.
    (p,) = penetration_edges(2, 2, random.Random(0), points=(50,))
    assert p.cards_dealt == len(DECK) and p.priced == 2
