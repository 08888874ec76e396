"""Baccarat's and Dragon Tiger's report (``pricing.analysis.two_hands``): the exact RTPs by
brute force on small shoes, the effect of removal summing to 0 (and Dragon Tiger's against the
reference count), the simulated players against an independent tally of the same shoes, and
the command line's text, JSON and plot."""

from __future__ import annotations

import io
import json
import random
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.analysis import two_hands_sim
from pricing.analysis.side_bets import RANKS
from pricing.analysis.two_hands import (
    every_paytable,
    price_shoe,
    simulated_paytables,
    table_keys,
    two_hand_report,
)
from pricing.analysis.two_hands_sim import COUNTS, simulate
from pricing.cards import DECK, Card
from pricing.cli import main
from pricing.errors import InvalidOption
from pricing.games.baccarat import bets as baccarat
from pricing.games.baccarat.table import BACCARAT
from pricing.games.dragon_tiger import bets as dragon_tiger
from pricing.games.dragon_tiger.table import DRAGON_TIGER
from pricing.server.analyze import check_live_request
from pricing.tables import Game
from pricing.v1 import pricing_pb2 as pb
from tests.support.effort import effort
from tests.support.reference import baccarat_ref, dragon_tiger_ref
from tests.support.reference import two_hands_sim_ref as sim_ref


def test_every_preset_of_every_bet_is_in_the_report() -> None:
    """``presets`` is the bets module's list, as its refusal of an unknown preset names them."""
    for bet in baccarat.SIDE_BETS:
        with pytest.raises(InvalidOption) as refused:
            baccarat.paytable(bet, "no-such-preset")
        listed = re.search(r"expected one of (.*)$", str(refused.value))
        assert listed is not None
        assert set(listed.group(1).split(", ")) == set(baccarat.presets(bet))
    keys = every_paytable("baccarat")
    assert "PLAYER/standard" in keys and "BANKER/ez" in keys and "TIE/9" in keys
    assert {"PERFECT_PAIR/evolution", "LUCKY_6/12-23", "SUPER_6/12"} <= set(keys)
    assert len(keys) == 1 + 3 + 2 + len(baccarat.SIDE_BETS) + 3
    dt = every_paytable("dragon-tiger")
    assert len(dt) == len(dragon_tiger.BETS) + 1 and "TIE/11" in dt


def test_the_published_full_shoe_edges() -> None:
    full = two_hand_report("baccarat", decks=(8,), shoe_decks=(), shoes=0).full_shoe[8]
    edges = {key: f"{float(1 - rtp):.4%}" for key, rtp in full.items()}
    assert edges["BANKER/standard"] == "1.0579%" and edges["PLAYER/standard"] == "1.2351%"
    assert edges["TIE/8"] == "14.3596%" and edges["DRAGON_7/standard"] == "7.6113%"
    assert edges["PLAYER_PAIR/standard"] == "10.3614%"
    dt = two_hand_report("dragon-tiger", decks=(8,), shoe_decks=(), shoes=0).full_shoe[8]
    assert f"{float(1 - dt['DRAGON/standard']):.2%}" == "3.73%"
    assert f"{float(1 - dt['SUITED_TIE/standard']):.2%}" == "13.98%"


# A small shoe: up to 6 kinds of card, at most 3 of each (suits matter to PERFECT_PAIR).
_KINDS = ["AS", "AH", "4D", "5C", "9S", "KH", "KD", "7C"]


@pytest.mark.slow
@settings(max_examples=effort(suite=6, exhaustive=60), deadline=None)
@given(st.lists(st.sampled_from(_KINDS), min_size=6, max_size=8))
def test_baccarat_rtps_are_the_brute_force_count(cards: list[str]) -> None:
    counts = [0] * 52
    for text in cards:
        counts[Card.parse(text).index] += 1
    got = price_shoe("baccarat", counts)
    bets = [(t.bet, t.preset) for t in every_paytable("baccarat").values()]
    want = baccarat_ref.odds(cards, [], [], bets)
    assert want is not None
    for key, table in every_paytable("baccarat").items():
        pays = dict(table.pays)
        assert got[key].rtp_fraction == baccarat_ref.rtp(want[table.bet, table.preset], pays), key


@pytest.mark.parametrize("decks", [1, 8])
def test_the_effects_of_removal_sum_to_0(decks: int) -> None:
    """A uniformly random card out, then the round, is the round from the full shoe."""
    for game in ("baccarat", "dragon-tiger"):
        report = two_hand_report(game, decks=(decks,), shoe_decks=(decks,), shoes=0)
        effects = report.effect_of_removal[decks]
        assert set(effects) == set(every_paytable(game))
        for key, by_rank in effects.items():
            assert list(by_rank) == list(RANKS)
            assert sum(by_rank.values()) == 0, (game, key)
    dragon = report_eor("baccarat", 8)["DRAGON_7/standard"]
    # an 8 or 9 out helps the Dragon 7 bettor most, a 7 out hurts most (Jacobson's tags)
    assert max(dragon, key=dragon.__getitem__) == "8" and min(dragon, key=dragon.__getitem__) == "7"


def report_eor(game: str, decks: int) -> dict[str, dict[str, Fraction]]:
    report = two_hand_report(game, decks=(decks,), shoe_decks=(decks,), shoes=0)  # type: ignore[arg-type]
    return report.effect_of_removal[decks]


def test_dragon_tiger_effects_of_removal_are_the_reference_count() -> None:
    def rtps(cards: list[str]) -> dict[str, Fraction]:
        tally = dragon_tiger_ref.next_round(dragon_tiger_ref.shoe(cards))
        out = {}
        for key, table in every_paytable("dragon-tiger").items():
            ways, total = tally[table.bet]
            out[key] = dragon_tiger_ref.rtp(ways, total, table.pays["WIN"])
        return out

    full = [str(card) for card in DECK]
    base = rtps(full)
    want = {key: dict.fromkeys(RANKS, Fraction(0)) for key in base}
    for i, card in enumerate(DECK):
        for key, rtp in rtps(full[:i] + full[i + 1 :]).items():
            want[key][card.rank.symbol] += (rtp - base[key]) / 4
    assert report_eor("dragon-tiger", 1) == want


def shuffled_shoes(decks: int, shoes: int, seed: int) -> list[list[str]]:
    """The shoes ``simulate`` deals: one list of the cards, shuffled again for each shoe."""
    rng = random.Random(seed)
    cards = [card for card in DECK for _ in range(decks)]
    out = []
    for _ in range(shoes):
        rng.shuffle(cards)
        out.append([str(card) for card in cards])
    return out


def mean(values: list[Fraction]) -> float:
    return float(sum(values, Fraction(0)) / len(values))


@pytest.mark.slow
@pytest.mark.parametrize(("decks", "cut_card"), [(1, 0), (2, 14)])
def test_baccarat_players_against_an_independent_tally(decks: int, cut_card: int) -> None:
    bets = ("PLAYER_PAIR", "BANKER_PAIR", "DRAGON_7", "PANDA_8")
    tables = table_keys("baccarat", [baccarat.paytable(bet) for bet in bets])
    shoes = effort(suite=8, exhaustive=80)
    sim = simulate(
        BACCARAT, tables, frozenset(baccarat.MAIN_BETS), decks=decks, shoes=shoes,
        rng=random.Random(11), seed=11, cut_card=cut_card,
    )  # fmt: skip
    want = sim_ref.baccarat_units(shuffled_shoes(decks, shoes, 11), cut_card)
    assert any(want["pairs"]) and any(want["DRAGON_7"]) and any(want["PANDA_8"])
    assert sim.rounds_per_shoe == mean(want["rounds"])
    got = {s.name: s for s in sim.strategies}
    pairs = got["exact: PLAYER_PAIR/standard + BANKER_PAIR/standard"]
    assert pairs.units_per_shoe == pytest.approx(mean(want["pairs"]), abs=1e-9)
    # every bet the exact player makes is refused by protection at 10000 bp
    assert pairs.refused_per_shoe == pairs.bets_per_shoe
    assert pairs.protected_units_per_shoe == 0 == pairs.protected_expected_per_shoe
    for count in COUNTS:
        s = got[f"{count.name}: {count.bet}/standard"]
        assert s.units_per_shoe == pytest.approx(mean(want[count.bet]), abs=1e-9), count.name
    both = got["counts: DRAGON_7/standard + PANDA_8/standard"]
    assert both.units_per_shoe == pytest.approx(
        mean(want["DRAGON_7"]) + mean(want["PANDA_8"]), abs=1e-9
    )


@pytest.mark.slow
def test_dragon_tiger_exact_players_against_an_independent_tally() -> None:
    shoes = effort(suite=3, exhaustive=20)
    tables = table_keys("dragon-tiger", simulated_paytables("dragon-tiger"))
    sim = simulate(
        DRAGON_TIGER, tables, frozenset(dragon_tiger.MAIN_BETS), decks=1, shoes=shoes,
        rng=random.Random(5), seed=5, cut_card=0,
    )  # fmt: skip
    bets = [t.bet for t in tables.values()]
    want = sim_ref.dragon_tiger_units(shuffled_shoes(1, shoes, 5), 0, bets)
    assert sum(1 for bet in bets if any(want[bet])) >= 6
    for s in sim.strategies:
        if s.rule == "exact" and len(s.bets) == 1:
            bet = s.bets[0].split("/")[0]
            assert s.units_per_shoe == pytest.approx(mean(want[bet]), abs=1e-9), bet
    assert not [s for s in sim.strategies if s.rule != "exact"]  # no count for these bets


def test_the_cut_card_rule() -> None:
    """Rounds are dealt until the cut card comes out, then one more; none more when it comes
    out as a round's first card; never with too few cards for a round."""
    cards = [Card.parse(t) for t in ["2S"] * 3 + ["KS", "KH", "AS", "AH"] * 4]
    start, rounds = two_hands_sim.shoe_rounds(BACCARAT, cards, 10, burn=True)
    assert start == 3  # a 2 first: it and two more
    # naturals? K K A A: Player K A (1), Banker K A (1): both draw; each round takes 6 cards
    assert [(a, b) for a, _, b in rounds] == [(3, 9), (9, 15)]
    # the cut card before card 6, the second round's first: that round is the last, though 7
    # cards are left; before card 12, the third round's: it is dealt, and it is the last
    for cut_card, dealt in ((13, [(0, 6), (6, 12)]), (7, [(0, 6), (6, 12), (12, 18)])):
        start, rounds = two_hands_sim.shoe_rounds(BACCARAT, cards, cut_card, burn=False)
        assert start == 0 and [(a, b) for a, _, b in rounds] == dealt


def test_every_round_is_tallied_once_and_shares_are_fractions_of_rounds() -> None:
    report = two_hand_report("baccarat", decks=(1,), shoe_decks=(1,), shoes=6, seed=3)
    sim = report.simulations[1]
    for key, rows in sim.by_penetration.items():
        assert sum(r.rounds for r in rows) == sim.overall[key].rounds
        assert sim.overall[key].rounds == round(sim.rounds_per_shoe * 6)
        assert all(0 <= r.favourable <= 1 for r in rows)
    again = two_hand_report("baccarat", decks=(1,), shoe_decks=(1,), shoes=6, seed=3)
    assert again.as_dict() == report.as_dict()  # the same seed, the same figures


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["analyze", *argv], out), out.getvalue()


def test_the_command_line_text_json_and_plot(tmp_path: Path) -> None:
    code, text = run("baccarat", "--decks", "1", "--shoes", "3", "--bet", "dragon_7,tie")
    assert code == 0
    assert "Baccarat: exact full-shoe RTP" in text and "BANKER/ez" in text
    assert "3 simulated 1-deck shoes (seed 2026)" in text
    assert "cut card 14 cards from the end" in text
    assert "DRAGON_7/standard by penetration" in text and "TIE/8 by penetration" in text
    assert "PANDA_8/standard by penetration" not in text
    assert "jacobson-dragon-7: DRAGON_7 at a true count of +4 or more" in text
    code, raw = run("dragon-tiger", "--decks", "1", "--shoes", "2", "--json", "--no-burn")
    data = json.loads(raw)
    assert code == 0 and data["game"] == "dragon-tiger"
    rtp = data["full_shoe"]["1"]["DRAGON/standard"]
    num, den = map(int, rtp["exact"].split("/"))
    one_deck = price_shoe("dragon-tiger", [1] * 52)
    assert Fraction(num, den) == one_deck["DRAGON/standard"].rtp_fraction
    sim = data["simulations"]["1"]
    assert sim["burn"] is False and sim["shoes"] == 2
    assert len(sim["bets"]["TIE/standard"]["by_penetration"]) == two_hands_sim.PENETRATION_BINS
    png = tmp_path / "dt.png"
    code, _ = run("dragon-tiger", "--decks", "1", "--shoes", "2", "--plot", str(png))
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["baccarat", "--eor"], "--preset, --eor: not for baccarat"),
        (["baccarat", "--rule", "h17"], "--rule h17: not for baccarat"),
        (["baccarat", "--bet", "NOPE"], "unknown baccarat bet 'NOPE'"),
        (["hilo", "--cut-card", "20"], "--cut-card and --no-burn are for baccarat"),
        (["blackjack", "--no-burn"], "--cut-card and --no-burn are for baccarat"),
    ],
)
def test_options_of_other_games_are_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _ = run(*argv, "--shoes", "2") if argv[0] == "baccarat" else run(*argv)
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_tables_own_pays_are_keyed_apart_and_reported() -> None:
    raised = baccarat.paytable("DRAGON_7", overrides={"WIN": 4500})
    report = two_hand_report(
        "baccarat", decks=(8,), shoe_decks=(), shoes=0,
        paytables=[*baccarat.main_paytables("EZ", 8), raised],
    )  # fmt: skip
    full = report.full_shoe[8]
    assert full["PLAYER/ez"] == full["PLAYER/standard"]
    assert full["DRAGON_7/standard WIN 4500"] > 1 > full["DRAGON_7/standard"]


def test_a_live_analysis_refuses_the_cut_card() -> None:
    with pytest.raises(InvalidOption) as refused:
        check_live_request(pb.AnalyzeRequest(table_id="t1", cut_card=14), Game.BACCARAT)
    assert refused.value.field == "cut_card"


def test_the_help_says_the_default_cut_card() -> None:
    from pricing.cli import analyze  # noqa: PLC0415

    assert analyze._DEFAULT_CUT_CARD == two_hands_sim.DEFAULT_CUT_CARD
    assert Counter(t.bet for t in simulated_paytables("baccarat"))["BANKER"] == 1
