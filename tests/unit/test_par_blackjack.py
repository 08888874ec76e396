"""Blackjack's PAR sheet (``pricing.analysis.par_blackjack``, ``par_blackjack_play``): the side
bets' outcome tables against the engine's full-shoe odds; σ, the hit frequency and the RTP
against every deal of tiny shoes (``tests/support/reference/side_bets_ref.py``, ``par_ref.py``);
insurance against a direct count of the tens; the simulated distributions (mean within its
errors of the full-shoe RTP, game protection's bound, the clustered standard errors); the main
game (the analyzer's edges, the basic-strategy player's rounds, the exact average total bet
against the simulation, the published standard deviation); the options; the same seed giving
the same sheet."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.analysis.blackjack import full_shoe_rtps
from pricing.analysis.main_game import full_shoe_edges
from pricing.analysis.par_blackjack import (
    INSURANCE,
    blackjack_par_sheet,
    insurance_given_ace,
    insurance_state,
    side_bet_pars,
    simulate_shoes,
)
from pricing.analysis.par_blackjack_main import (
    EDGE_BASIC,
    EDGE_COMPOSITION,
    MAIN,
    STANDARD_DEVIATION,
    TOTAL_BET,
    main_simulation,
)
from pricing.analysis.par_blackjack_play import PlayedRound, average_total_bet, play_round
from pricing.analysis.par_sheet import Basis, ParSheet, Precision
from pricing.analysis.par_simulated import simulated_distribution
from pricing.analysis.side_bets import side_bet_presets
from pricing.cards import DECK
from pricing.errors import InvalidOption
from pricing.games.blackjack import library
from pricing.games.blackjack.decisions import MainGameRules, Strategy, player_edge
from pricing.games.blackjack.library import paytable
from pricing.games.blackjack.rules import DealerRule
from pricing.games.fixed_odds import SideBetOdds
from tests.support.effort import effort
from tests.support.reference import blackjack_ref, par_ref, side_bets_ref

S17 = DealerRule.S17
CARDS = [str(card) for card in DECK]
#: Wizard of Odds, "Blackjack Appendix 4: Variance in blackjack"
#: (https://wizardofodds.com/games/blackjack/appendix/4/), summary table: six decks, dealer
#: stands on soft 17, double after split, surrender, resplitting Aces; basic strategy in a
#: cut-card game over about ten billion simulated hands: variance 1.303 per initial wager.
WOO_VARIANCE_6D_S17_DAS_LS_RSA = 1.303
#: This game differs by rules WoO's own table prices at a few thousandths of variance: Aces
#: are split once (resplitting them adds 0.00207), and surrender comes before the dealer's
#: second card (no hole card: against a ten it also saves half a wager the dealer's
#: blackjack would have taken, a smaller loss, less variance).
RULE_DIFFERENCE_VARIANCE = 0.005


def counts_of(cards: Sequence[str]) -> list[int]:
    held = Counter(cards)
    return [held[text] for text in CARDS]


@pytest.fixture(scope="module")
def sheet() -> ParSheet:
    return blackjack_par_sheet(shoes=3)


# --- The side bets' outcome tables ----------------------------------------------------------


def test_every_side_bet_and_preset_then_insurance_and_the_main_game(sheet: ParSheet) -> None:
    keys = [e.bet for e in sheet.entries]
    assert keys == [*side_bet_presets(), INSURANCE, MAIN]
    assert (sheet.game, sheet.shoes, sheet.seed, sheet.cut_card) == ("blackjack", 3, 2026, 78)
    rules = dict(sheet.rules)
    assert rules["Decks"].startswith("6") and "S17" in rules["Dealer"]
    assert "78 cards" in rules["Cut card"] and "seed 2026" in rules["Simulation"]
    assert any("Insurance is conditioned on the dealer's Ace" in n for n in sheet.notes)


def test_each_side_bets_table_is_the_engines_full_shoe_odds(sheet: ParSheet) -> None:
    rtps = full_shoe_rtps(6, S17)
    for key, table in side_bet_presets().items():
        entry = sheet.entry(key)
        assert (entry.basis, entry.precision) == (Basis.FULL_SHOE, Precision.EXACT)
        assert entry.distribution_precision is Precision.SIMULATED
        assert entry.par is not None
        engine = library.odds([6] * 52, S17, [table])[table.bet]
        assert [(o.name, o.probability, o.payout_hundredths) for o in entry.par.outcomes] == [
            (name, o.fraction, o.payout_hundredths) for name, o in engine.outcomes.items()
        ]
        assert sum(o.probability for o in entry.par.outcomes) == 1
        assert entry.par.rtp == rtps[key] == engine.rtp_fraction


@st.composite
def tiny_shoes(draw: st.DrawFn) -> list[str]:
    """8 to 12 cards of a one- or two-deck shoe, some of one suit so that flushes happen."""
    decks = draw(st.integers(1, 2))
    suited = [c for c in CARDS if c.endswith(draw(st.sampled_from("CDHS")))]
    pool = [c for c in suited + CARDS[:13] for _ in range(decks)]
    size = draw(st.integers(8, 12))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size, unique=True))
    return [pool[i] for i in picks]


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@pytest.mark.parametrize("key", ["TWENTY_ONE_PLUS_THREE/five-tier", "OVER_13/even-money"])
@settings(
    max_examples=effort(suite=8, exhaustive=80),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(cards=tiny_shoes())
def test_sigma_and_hit_frequency_match_every_deal_of_a_tiny_shoe(
    key: str, cards: list[str]
) -> None:
    bet, preset = key.split("/")
    table = paytable(bet, preset)
    nets = [
        Fraction(-100 if won == "LOSE" else side_bets_ref.pays_of(bet, won, table.pays), 100)
        for seat, dealer in side_bets_ref.deals(bet, side_bets_ref.shoe(cards))
        for won in [side_bets_ref.outcome(bet, seat, dealer)]
    ]
    par = side_bet_pars(counts_of(cards), S17, {key: table})[key]
    assert par.rtp == 1 + par_ref.mean(nets)
    assert par.variance == par_ref.variance(nets)
    assert par.hit_frequency == par_ref.hit_frequency(nets)
    assert math.isclose(par.standard_deviation, math.sqrt(par_ref.variance(nets)), abs_tol=1e-12)


# --- Insurance ------------------------------------------------------------------------------


def test_insurance_on_a_full_shoe_given_the_ace(sheet: ParSheet) -> None:
    entry = sheet.entry(INSURANCE)
    assert entry.par is not None and entry.basis is Basis.FULL_SHOE
    tens, left = 16 * 6, 52 * 6 - 1  # the Ace up is out of the shoe
    assert [(o.name, o.probability, o.net) for o in entry.par.outcomes] == [
        ("WIN", Fraction(tens, left), Fraction(2)),
        ("LOSE", Fraction(left - tens, left), Fraction(-1)),
    ]
    assert entry.par.rtp == Fraction(3 * tens, left) == Fraction(288, 311)


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@settings(max_examples=effort(suite=25, exhaustive=250), deadline=None)
@given(
    decks=st.integers(1, 8),
    out=st.lists(st.sampled_from(CARDS), max_size=40),
)
def test_insurance_at_any_shoe_is_the_tens_over_the_cards_left(decks: int, out: list[str]) -> None:
    seen = [c for c, n in Counter(out).items() for _ in range(min(n, decks))]
    counts = counts_of([c for c in CARDS for _ in range(decks)])
    for c in seen:
        counts[CARDS.index(c)] -= 1
    aces = [c for c in CARDS if c.startswith("A") and counts[CARDS.index(c)]]
    weight, odds = insurance_state(counts)
    assert weight == Fraction(
        sum(counts[CARDS.index(c)] for c in CARDS if c[0] == "A"), sum(counts)
    )
    given_ace = insurance_given_ace(counts)
    if not aces:
        assert given_ace is None and not odds.open
        return
    assert given_ace is not None and given_ace == odds
    tens = sum(counts[CARDS.index(c)] for c in CARDS if c[:-1] in ("10", "J", "Q", "K"))
    assert given_ace.outcomes["WIN"].fraction == Fraction(tens, sum(counts) - 1)
    assert given_ace.outcomes["WIN"].fraction == blackjack_ref.insurance([*seen, aces[0]], decks)


# --- The simulated distributions ------------------------------------------------------------


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@pytest.mark.parametrize(("bet", "preset"), [("PAIRS", "perfect-pairs"), (INSURANCE, "")])
def test_the_simulated_mean_is_the_full_shoe_rtp_within_its_errors(bet: str, preset: str) -> None:
    shoes = effort(suite=30, exhaustive=300)
    entry = blackjack_par_sheet(shoes=shoes, bet=bet, preset=preset).entries[0]
    assert entry.par is not None and entry.distribution is not None
    assert entry.distribution_error is not None and entry.distribution_error.shoes == shoes
    gap = abs(float(entry.distribution.mean - entry.par.rtp))
    assert gap <= 3 * entry.distribution_error.mean
    assert entry.distribution.minimum < entry.par.rtp < entry.distribution.maximum


def test_game_protection_keeps_every_offered_round_under_the_bound() -> None:
    free = blackjack_par_sheet(shoes=3, bet="ROYAL_MATCH")
    closed = blackjack_par_sheet(shoes=3, bet="ROYAL_MATCH", close_at_rtp_bp=10_000)
    assert "closed at RTP ≥ 100 %" in dict(closed.rules)["Game protection"]
    for before, after in zip(free.entries, closed.entries, strict=True):
        assert before.distribution is not None and after.distribution is not None
        assert after.distribution.maximum < 1
        assert before.distribution.offered == 1
        if before.distribution.maximum >= 1:  # some round was player-favourable
            assert after.distribution.offered < 1
            assert after.distribution.states < before.distribution.states
        assert after.par == before.par  # the full shoe's figures stand
    # 3-10 returns more than the stake on a full shoe: protection closes most of its rounds.
    three_ten = closed.entry("ROYAL_MATCH/3-10").distribution
    assert three_ten is not None and three_ten.offered < Fraction(1, 2)


def test_the_share_below_a_floor_and_the_clustered_errors() -> None:
    def odds(rtp: Fraction) -> SideBetOdds:  # wins 1 in 2 at the pay giving ``rtp``
        return SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": int(200 * rtp) - 100})

    low, mid, high = odds(Fraction(8, 10)), odds(Fraction(9, 10)), odds(Fraction(11, 10))
    shoes = [[(1, low), (1, high)], [(1, mid)], [(1, low), (1, mid), (1, mid)]]
    dist, error = simulated_distribution(shoes, min_rtp=Fraction(85, 100))
    assert (dist.states, dist.mean, dist.below_min) == (6, Fraction(54, 60), Fraction(2, 6))

    # Σ y / Σ x over the shoes, each a cluster: the residuals y − R·x, R the ratio.
    def se(xs: list[float], ys: list[float]) -> float:
        r = sum(ys) / sum(xs)
        return math.sqrt(sum((y - r * x) ** 2 for x, y in zip(xs, ys, strict=True)) * 3 / 2) / sum(
            xs
        )

    assert error.shoes == 3
    assert math.isclose(error.mean, se([2, 1, 3], [1.9, 0.9, 2.6]))
    assert error.below_min is not None
    assert math.isclose(error.below_min, se([2, 1, 3], [1, 0, 1]))
    assert simulated_distribution(shoes)[1].below_min is None


# --- The main game --------------------------------------------------------------------------


def test_the_main_games_edges_are_the_analyzers(sheet: ParSheet) -> None:
    entry = sheet.entry(MAIN)
    assert (entry.par, entry.basis, entry.precision) == (None, Basis.STRATEGY, Precision.DOUBLE)
    edges = next(e for e in full_shoe_edges((6,)) if e.rules == MainGameRules(S17))
    names = {f.name: f for f in entry.figures}
    assert names[EDGE_COMPOSITION].value == edges.composition
    assert names[EDGE_BASIC].value == edges.basic
    assert names[EDGE_BASIC].precision is Precision.DOUBLE
    assert names[STANDARD_DEVIATION].precision is Precision.SIMULATED
    assert names[STANDARD_DEVIATION].standard_error
    assert names[TOTAL_BET].value == average_total_bet([6] * 52, MainGameRules(S17))
    assert names[TOTAL_BET].precision is Precision.EXACT


def scripted(*values: int, rules: MainGameRules | None = None) -> PlayedRound:
    cards = iter(values)
    played = play_round(lambda: next(cards), rules or MainGameRules())
    assert next(cards, None) is None, "every card of the script is dealt"
    return played


def test_rounds_played_by_the_chart() -> None:
    # player 10, up 7, player 6: 16 against a 7 hits (a 5: 21); the dealer 7-10 stands on 17.
    assert scripted(10, 7, 6, 5, 10) == PlayedRound(2, 1)
    # 16 against a ten surrenders, before the dealer's second card.
    assert scripted(10, 10, 6) == PlayedRound(-1, 1)
    assert scripted(10, 10, 6, 2, 10, rules=MainGameRules(surrender=False)) == PlayedRound(-2, 1)
    # 11 against a ten doubles; the dealer's blackjack takes only the initial wager.
    assert scripted(6, 10, 5, 9, 1) == PlayedRound(-2, 2)
    # 8-8 against a 6: split, resplit once, a hand 8-3 doubles after the split (11 v 6);
    # hands 8-8 → 8-10 (18), 8-3 → D 10 (21), 8-9 (17); the dealer 6-10-9 busts.
    assert scripted(8, 6, 8, 8, 10, 3, 10, 9, 10, 9) == PlayedRound(2 * 4, 4)
    # Aces split once, one card each, and an Ace-ten after a split is 21, not a blackjack:
    # A-A against a 9: A-A (no resplit: soft 12, one card only), A-10 = 21; dealer 9-9 = 18.
    assert scripted(1, 9, 1, 1, 10, 9) == PlayedRound(0, 2)
    # The dealer hits soft 17 under H17 (A-6, then a 2: 19), not under S17.
    h17 = MainGameRules(DealerRule.H17)
    assert scripted(10, 1, 8, 6, 2, rules=h17) == PlayedRound(-2, 1)
    assert scripted(10, 1, 8, 6) == PlayedRound(2, 1)
    # A player blackjack pushes the dealer's; every hand busted, the dealer draws no more.
    assert scripted(1, 1, 10, 10) == PlayedRound(0, 1)
    assert scripted(10, 10, 2, 10, 5) == PlayedRound(-2, 1)


@pytest.fixture(scope="module")
def simulated() -> list[list[PlayedRound]]:
    shoes = simulate_shoes(6, MainGameRules(), effort(suite=1000, exhaustive=10_000), 2026, 78)
    return [[r.played for r in shoe if r.played is not None] for shoe in shoes]


@pytest.mark.slow
def test_the_published_standard_deviation(simulated: list[list[PlayedRound]]) -> None:
    sim = main_simulation(simulated)
    variance = sim.standard_deviation**2
    tolerance = 3 * 2 * sim.standard_deviation * sim.standard_deviation_se
    assert abs(variance - WOO_VARIANCE_6D_S17_DAS_LS_RSA) <= tolerance + RULE_DIFFERENCE_VARIANCE


@pytest.mark.slow
def test_the_simulation_checks_the_exact_figures(simulated: list[list[PlayedRound]]) -> None:
    sim = main_simulation(simulated)
    rules = MainGameRules()
    exact = float(average_total_bet([6] * 52, rules))
    assert abs(sim.staked - exact) <= 3 * sim.staked_se
    assert abs(sim.mean - player_edge([6] * 52, rules, Strategy.BASIC)) <= 3 * sim.mean_se
    # No primary source publishes the average total bet; A. Krigman ("How Often Can You
    # Expect to Split or Double in Blackjack", Casino City Times, 1999/2011) puts doubles at
    # 9.5 % and splits at 2.5 % of rounds (eight decks): 1.12 before resplits and doubles
    # after a split.
    assert 1.125 < exact < 1.14


def test_the_exact_average_total_bet_by_rules() -> None:
    base = average_total_bet([6] * 52, MainGameRules())
    assert average_total_bet([6] * 52, MainGameRules(double_after_split=False)) < base
    assert average_total_bet([6] * 52, MainGameRules(max_splits=1)) < base
    # A shoe of sixes: every round is 6-6, split (against a 6) to four hands, none doubled.
    sixes = [0] * 52
    for suit in range(4):
        sixes[CARDS.index(f"6{'CDHS'[suit]}")] = 8
    assert average_total_bet(sixes, MainGameRules()) == 4


# --- Options and seeds ----------------------------------------------------------------------


def test_the_same_seed_gives_the_same_sheet() -> None:
    def make(seed: int) -> ParSheet:
        return blackjack_par_sheet(shoes=2, bet="PAIRS", preset="any-pair", seed=seed)

    assert make(7).as_dict() == make(7).as_dict()
    assert make(7).as_dict() != make(8).as_dict()


def test_the_options() -> None:
    only = blackjack_par_sheet(shoes=2, bet="insurance", min_rtp=Fraction(9, 10))
    assert [e.bet for e in only.entries] == [INSURANCE]
    assert only.entries[0].distribution_error is not None
    assert only.entries[0].distribution_error.below_min is not None
    main = blackjack_par_sheet(shoes=2, bet="MAIN", decks=8, rule="h17", cut_card=52)
    assert [e.bet for e in main.entries] == [MAIN] and main.cut_card == 52
    assert "H17" in dict(main.rules)["Dealer"]
    with pytest.raises(InvalidOption, match="no presets"):
        blackjack_par_sheet(shoes=2, bet="MAIN", preset="x")
    with pytest.raises(InvalidOption, match="cut_card"):
        blackjack_par_sheet(shoes=2, bet="PAIRS", cut_card=5)
    with pytest.raises(InvalidOption, match="dealer rule"):
        blackjack_par_sheet(shoes=2, rule="H17", main_rules=MainGameRules(S17))
    with pytest.raises(InvalidOption, match="shoes"):
        blackjack_par_sheet(shoes=1)
    with pytest.raises(InvalidOption, match="unknown side bet"):
        blackjack_par_sheet(shoes=2, bet="NOPE")
