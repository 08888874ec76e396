"""The PAR sheets of the games (``pricing.analysis.par_games``): Hi-Lo's, Goa Gae's and
Higher/Lower's figures against the raw net results of every deal of tiny decks and shoes
(``tests/support/reference/par_ref.py``), every moving-price sheet against the game's own
exact report (the mixture's RTP is the report's per-offered-round return, its variance the
distribution's whole-shoe variance), baccarat's and Dragon Tiger's simulated spread against
their exact full-shoe figures, the JSON keys a lab's tools read, and the command line's
checks."""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pricing.analysis.goagae import goagae_rtp
from pricing.analysis.higher_lower import higher_lower_report
from pricing.analysis.hilo import hilo_rtp
from pricing.analysis.par import par_bet
from pricing.analysis.par_games import (
    goagae_par_sheet,
    higher_lower_par_sheet,
    hilo_par_sheet,
    next_card_par_sheet,
    two_hand_par_sheet,
)
from pricing.analysis.par_sheet import Basis, ParEntry, ParSheet, Precision
from pricing.analysis.two_hands import price_shoe
from pricing.cards import Rank
from pricing.cli import main
from pricing.errors import InvalidOption
from pricing.games import goagae, higher_lower
from pricing.games.higher_lower import HIGHER_LOWER_RANKS, ShuffleMode
from pricing.games.hilo import HiLoPaytable
from pricing.games.next_card import NextCardDeck, NextCardGame
from pricing.payout import PayRule
from tests.support.effort import EXHAUSTIVE, effort
from tests.support.reference import par_ref as ref

RULES = {bet: rule.as_tuple() for bet, rule in HiLoPaytable().rules().items()}

# Goa Gae cards rich in every category: the J/Q/K of every suit (triples, JQK hands, suited
# J-Q-K straight flushes), 9-10-J and Q-K-A of spades, A-2-3 of diamonds, nines (NINE hands:
# a 9 and two faces) and 8-9 of hearts beside the J.
GOAGAE_POOL = sorted(
    {f"{r}{s}" for r in ("J", "Q", "K") for s in "CDHS"}
    | {"9S", "10S", "AS", "AD", "2D", "3D", "8H", "9H", "10H"}
)

pay_rules = st.tuples(st.integers(8_000, 10_000), st.integers(0, 100), st.integers(0, 5_000)).map(
    lambda t: PayRule(t[0], t[1], t[1] + t[2])
)


def check_against_every_deal(entry: ParEntry, results: list[tuple[int, Fraction]]) -> None:
    """A sheet's figures are those of the net results of every offered round of every deal,
    ``(weight, net)``: never offered when there are none."""
    if not results:
        assert entry.par is None and entry.note.startswith("never offered"), entry.bet
        return
    par = entry.par
    assert par is not None, entry.bet
    variance = ref.weighted_variance(results)
    assert par.rtp == 1 + ref.weighted_mean(results), entry.bet
    assert par.variance == variance, entry.bet
    assert par.hit_frequency == ref.weighted_hit_frequency(results), entry.bet
    assert math.isclose(par.standard_deviation, math.sqrt(variance), abs_tol=1e-12), entry.bet
    assert par.max_win == max(x for _, x in results), entry.bet


def check_mixture(sheet: ParSheet) -> None:
    """A moving price's outcome table is the mixture the distribution describes."""
    for entry in sheet.entries:
        par, dist = entry.par, entry.distribution
        assert par is not None and dist is not None
        assert entry.basis is Basis.OFFERED_ROUNDS and entry.precision is Precision.EXACT
        assert par.rtp == dist.mean, entry.bet
        assert par.variance == dist.variance, entry.bet
        assert sum(o.probability for o in par.outcomes) == 1
        assert sum(o.rtp_share for o in par.outcomes) == 1
        assert dist.minimum <= dist.mean <= dist.maximum


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@settings(max_examples=effort(suite=6, exhaustive=40), deadline=None)
@given(
    sizes=st.lists(st.integers(0, 2), min_size=5, max_size=5).filter(lambda s: 4 <= sum(s) <= 7),
    burns=st.integers(0, 1),
    results=st.integers(1, 3),
)
def test_hilo_sheet_against_every_deal_of_a_tiny_deck(
    sizes: list[int], burns: int, results: int
) -> None:
    if burns + results > sum(sizes):
        return
    sheet = hilo_par_sheet(sizes=sizes, burns=burns, results=results)
    nets = ref.hilo_nets(sizes, burns, results, RULES)
    for entry in sheet.entries:
        check_against_every_deal(entry, [(1, x) for x in nets[entry.bet]])


GOAGAE_RULES = goagae.DEFAULT_PAYTABLE.rules()


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@settings(max_examples=effort(suite=4, exhaustive=40), deadline=None)
@given(
    deck=st.lists(st.sampled_from(GOAGAE_POOL), min_size=11, max_size=15, unique=True),
    rounds=st.integers(1, 3),
    cards_per_round=st.integers(3, 4),
    rules=st.fixed_dictionaries({bet: pay_rules for bet in goagae.BETS}),
)
@example(deck=GOAGAE_POOL[:15], rounds=1, cards_per_round=3, rules=GOAGAE_RULES)
@example(deck=GOAGAE_POOL[3:], rounds=3, cards_per_round=3, rules=GOAGAE_RULES)
def test_goagae_sheet_against_every_deal_of_a_reduced_deck(
    deck: list[str], rounds: int, cards_per_round: int, rules: dict[str, PayRule]
) -> None:
    """A fresh deck every round (up to 15 cards), or two or three rounds from one deck of 11
    cards: every set of cards gone before each round and every hand after it, priced by the
    reference's own pay rule."""
    if rounds > 1:
        deck = deck[:11]  # what three rounds of four cards need: more would cost seconds
    paytable = goagae.GoaGaePaytable(**{bet.lower(): rule for bet, rule in rules.items()})
    sheet = goagae_par_sheet(paytable, rounds=rounds, cards_per_round=cards_per_round, deck=deck)
    ref_rules = {bet: rule.as_tuple() for bet, rule in rules.items()}
    nets = ref.goagae_nets(deck, rounds, cards_per_round, ref_rules)
    assert [e.bet for e in sheet.entries] == list(goagae.BETS)  # none left out on a small deck
    assert dict(sheet.rules)["Deck"].startswith(f"{len(deck)} cards: ")
    for entry in sheet.entries:
        check_against_every_deal(entry, nets[entry.bet])


HIGHER_LOWER_RULES = higher_lower.DEFAULT_PAYTABLE.rules()
TWO, THREE, SEVEN, ACE = (Rank.TWO, Rank.THREE, Rank.SEVEN, Rank.ACE)


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@settings(max_examples=effort(suite=4, exhaustive=40), deadline=None)
@given(
    ranks=st.sets(st.sampled_from(HIGHER_LOWER_RANKS), min_size=1, max_size=3),
    decks=st.integers(1, 3),
    burns=st.integers(0, 3),
    rules=st.fixed_dictionaries({bet: pay_rules for bet in higher_lower.BETS}),
)
@example(ranks={TWO, ACE}, decks=1, burns=1, rules=HIGHER_LOWER_RULES)
@example(ranks={SEVEN}, decks=2, burns=0, rules=HIGHER_LOWER_RULES)
@example(ranks={TWO, THREE, ACE}, decks=1, burns=3, rules=HIGHER_LOWER_RULES)
def test_higher_lower_sheet_against_every_deal_of_a_reduced_shoe(
    ranks: set[Rank], decks: int, burns: int, rules: dict[str, PayRule]
) -> None:
    """Every draw order of a shoe of up to 12 cards, copies of a card told apart: a continuous
    shuffler's rounds, and a depleting shoe's on 8 cards (and on 12 with 2 or 3 burns in make
    test-exhaustive: more rounds take the brute force seconds)."""
    decks = min(decks, 3 // len(ranks))  # 12 cards at most
    order = tuple(r for r in HIGHER_LOWER_RANKS if r in ranks)  # the game's order of ranks
    nc = NextCardGame(NextCardDeck(decks=decks, ranks=order), higher_lower.game(1).bets,
                      close_over_par=True)  # fmt: skip
    paytable = higher_lower.HigherLowerPaytable(**{b.lower(): r for b, r in rules.items()})
    if nc.deck.size < burns + 2:  # no card left for a result after the base and the burns
        with pytest.raises(InvalidOption, match="deals no round"):
            next_card_par_sheet(nc, paytable, burns=burns)
        return
    modes = [ShuffleMode.CONTINUOUS]
    if nc.deck.size <= 8 or (EXHAUSTIVE and burns >= 2):  # 12 cards: 3 or 4 rounds a shoe
        modes.append(ShuffleMode.DEPLETING)
    sheet = next_card_par_sheet(nc, paytable, burns=burns, modes=modes)
    shoe = [f"{r.symbol}{s}" for _ in range(decks) for r in order for s in "CDHS"]
    ref_rules = {bet: rule.as_tuple() for bet, rule in rules.items()}
    for mode in modes:
        nets = ref.higher_lower_nets(shoe, burns, mode is ShuffleMode.CONTINUOUS, ref_rules)
        for bet in higher_lower.BETS:
            check_against_every_deal(sheet.entry(f"{bet}/{mode.value.lower()}"), nets[bet])


def test_hilo_sheet_is_the_reports_per_offered_round() -> None:
    sheet = hilo_par_sheet(min_rtp=Fraction(85, 100))
    report = hilo_rtp()
    check_mixture(sheet)
    for entry in sheet.entries:
        bet = report.bets[entry.bet]
        assert entry.distribution is not None and entry.par is not None
        assert entry.par.rtp == bet.per_offered_round
        assert entry.distribution.offered == 1 - bet.closed
        # the payouts offered are the report's
        pays = {o.payout_hundredths for o in entry.par.outcomes if o.net > 0}
        assert pays == set(bet.distribution)
    seven = sheet.entry("SEVEN").distribution
    assert seven is not None and seven.below_min == 1  # every SEVEN round is under 85 %


def test_goagae_and_higher_lower_sheets_are_their_reports() -> None:
    for rounds in (1, 3):
        sheet = goagae_par_sheet(rounds=rounds)
        report = goagae_rtp(rounds=rounds)
        check_mixture(sheet)
        assert [e.bet for e in sheet.entries] == list(report.bets)
        for entry in sheet.entries:
            assert entry.par is not None
            assert entry.par.rtp == report.bets[entry.bet].per_offered_round
    sheet = higher_lower_par_sheet(decks=1, modes=(ShuffleMode.DEPLETING,))
    report = higher_lower_report(decks=1, modes=(ShuffleMode.DEPLETING,))
    check_mixture(sheet)
    assert report.depleting is not None
    for entry in sheet.entries:
        bet, mode = entry.bet.split("/")
        assert mode == "depleting" and entry.par is not None
        assert entry.par.rtp == report.depleting[bet].overall.per_offered_round


def test_two_hand_sheet_full_shoe_exact_and_spread_simulated() -> None:
    sheet = two_hand_par_sheet("dragon-tiger", decks=4, shoes=6, seed=5)
    full = price_shoe("dragon-tiger", [4] * 52)
    for entry in sheet.entries:
        assert entry.basis is Basis.FULL_SHOE and entry.precision is Precision.EXACT
        assert entry.par == par_bet(full[entry.bet])
        dist, err = entry.distribution, entry.distribution_error
        assert dist is not None and err is not None
        assert entry.distribution_precision is Precision.SIMULATED and err.shoes == 6
        # the mean RTP over the rounds dealt is the full shoe's within the simulation's error
        assert abs(float(dist.mean - entry.par.rtp)) <= 4 * err.mean + 1e-4, entry.bet
    assert sheet == two_hand_par_sheet("dragon-tiger", decks=4, shoes=6, seed=5)  # seeded
    assert sheet != two_hand_par_sheet("dragon-tiger", decks=4, shoes=6, seed=6)


def test_protection_closes_the_rounds_it_should() -> None:
    sheet = two_hand_par_sheet(
        "baccarat", decks=1, shoes=4, seed=1, close_at_rtp_bp=10_000, min_rtp=Fraction(9, 10)
    )
    for entry in sheet.entries:
        dist = entry.distribution
        assert dist is not None and dist.below_min is not None
        if entry.bet.split("/")[0] not in ("PLAYER", "BANKER", "TIE"):
            assert dist.maximum < 1, entry.bet  # a favourable round is never offered
    player = sheet.entry("PLAYER/standard").distribution
    assert player is not None and player.offered == 1  # main bets are never closed


def test_json_has_the_keys_labs_read() -> None:
    data = hilo_par_sheet().as_dict()
    bet = data["bets"][0]
    for key in (
        "rtp_exact",
        "hit_frequency_exact",
        "variance_exact",
        "standard_deviation",
        "volatility_index",
        "outcomes",
        "basis",
        "precision",
        "distribution",
    ):
        assert key in bet, key  # fmt: skip
    assert set(bet["volatility_index"]) == {"90", "95", "99"}
    assert Fraction(bet["rtp_exact"]) == hilo_par_sheet().entries[0].par.rtp  # type: ignore[union-attr]
    out = io.StringIO()
    assert main(["analyze", "hilo", "--par", "--json", "--min-rtp", "85"], out) == 0
    assert json.loads(out.getvalue())["min_rtp"]["exact"] == "17/20"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["analyze", "hilo", "--csv", "x"], "--csv: for the PAR sheet (--par)"),
        (["analyze", "hilo", "--par", "--plot", "x.png"], "--plot (the sheet's plots"),
        (["analyze", "hilo", "--par", "--min-rtp", "101"], "--min-rtp must be a percentage"),
        (["analyze", "hilo", "--par", "--close-at-rtp-bp", "10000"], "--close-at-rtp-bp is for"),
        (["analyze", "hilo", "--par", "--min-rtp", "inf"], "--min-rtp must be a percentage"),
        (["analyze", "baccarat", "--par", "--bet", "NOPE"], "unknown baccarat bet 'NOPE'"),
        (["analyze", "baccarat", "--par", "--rounds", "3"], "--rounds and --cards-per-round"),
        (["analyze", "dragon-tiger", "--par", "--commission", "ez"], "--commission is for bacc"),
        (["analyze", "hilo", "--par", "--side-bet", "TIE"], "--side-bet is for baccarat and"),
        (["analyze", "baccarat", "--par", "--decks", "1", "--cut-card", "52"], "at most 51"),
        (["analyze", "baccarat", "--par", "--tie-pays", "7"], "tie_pays"),
        (["analyze", "hilo", "--csv", "x"], "--csv: for the PAR sheet (--par)"),
        (["analyze", "baccarat", "--par", "--decks", "1", "--decks", "2"], "one --decks"),
        (["analyze", "hilo", "--par", "--decks", "2"], "--decks: hilo deals from one 52-card deck"),
    ],
)
def test_the_command_line_refuses_what_a_sheet_does_not_take(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    assert main(argv, io.StringIO()) == 2
    assert fragment in capsys.readouterr().err


def test_a_bad_output_path_is_refused_before_anything_is_computed_or_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    out = io.StringIO()
    argv = ["analyze", "hilo", "--par", "--csv", str(tmp_path / "csv"), "--html", str(tmp_path)]
    assert main(argv, out) == 2
    assert "a folder, not a file for the page" in capsys.readouterr().err
    assert not out.getvalue() and not (tmp_path / "csv").exists()  # nothing printed or written
    assert main(["analyze", "hilo", "--par", "--csv", str(afile)], out) == 2
    assert main(["analyze", "hilo", "--par", "--html", str(tmp_path / "no" / "p.html")], out) == 2
    assert not out.getvalue()


def test_a_baccarat_tables_rules_and_the_bets_shown_from_the_command_line() -> None:
    out = io.StringIO()
    argv = ["analyze", "baccarat", "--par", "--json", "--shoes", "2", "--decks", "1",
            "--commission", "ez", "--tie-pays", "9", "--side-bet", "DRAGON_7",
            "--close-at-rtp-bp", "10000", "--bet", "BANKER,DRAGON_7"]  # fmt: skip
    assert main(argv, out) == 0
    data = json.loads(out.getvalue())
    assert [b["bet"] for b in data["bets"]] == ["BANKER/ez", "DRAGON_7/standard"]
    assert {"name": "Game protection", "value": "side bets closed at RTP ≥ 100 %"} in data["rules"]
    dragon = data["bets"][1]["distribution"]
    assert Fraction(dragon["maximum"]["exact"]) < 1  # closed in every favourable round
