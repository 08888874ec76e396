"""The PAR sheet's math core (``pricing.analysis.par``, ``pricing.analysis.par_shoe``): the
outcome table against the engines' exact odds; σ, the hit frequency and the RTP against the
raw net results of every deal of tiny shoes (``tests/support/reference/par_ref.py``) for
Dragon Tiger and baccarat; the published 8-deck baccarat standard deviations; the realised-RTP
range by a seeded simulation of independent rounds; the RTP distribution of a moving-price bet
(Hi-Lo's deck, enumerated) and its whole-shoe variance."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pricing.analysis.hilo import hilo_rtp
from pricing.analysis.par import (
    CONFIDENCE_LEVELS,
    ROUND_COUNTS,
    ParBet,
    par_bet,
    par_bets,
    z_score,
)
from pricing.analysis.par_shoe import hilo_states, rtp_distribution
from pricing.cards import DECK, Shoe
from pricing.games import baccarat
from pricing.games.baccarat import Commission, main_paytables
from pricing.games.dragon_tiger import bets as dt
from pricing.games.fixed_odds import SideBetOdds
from tests.support.effort import effort
from tests.support.reference import par_ref as ref

CARDS = [str(card) for card in DECK]


def counts_of(cards: Sequence[str]) -> list[int]:
    held = Counter(cards)
    return [held[text] for text in CARDS]


def against_the_reference(suite: int, exhaustive: int) -> settings:
    return settings(
        max_examples=effort(suite=suite, exhaustive=exhaustive),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )


def assert_matches_raw(par: ParBet, nets: Sequence[Fraction]) -> None:
    """The engine's figures are those read off the raw list of net results."""
    assert par.rtp == 1 + ref.mean(nets)
    assert par.variance == ref.variance(nets)
    assert par.hit_frequency == ref.hit_frequency(nets)
    assert math.isclose(par.standard_deviation, math.sqrt(ref.variance(nets)), abs_tol=1e-12)
    assert par.max_win == max(o.net for o in par.outcomes)


# --- The outcome table --------------------------------------------------------------------


def test_a_push_and_a_half_loss_are_outcomes_and_the_shares_sum_to_one() -> None:
    shoe = [0] * 52
    for text, n in (("KS", 2), ("3H", 2), ("3D", 1)):
        shoe[CARDS.index(text)] = n
    (dragon,) = dt.odds(shoe, None, dt.main_paytables()[:1]).values()
    par = par_bet(dragon)
    table = {o.name: (o.net, o.probability, o.one_in) for o in par.outcomes}
    # 20 ordered pairs: Dragon K vs 3 (6), 3 vs K (6), tie of kings (2) or of threes (6)
    assert table == {
        "WIN": (1, Fraction(6, 20), Fraction(20, 6)),
        "TIE_HALF_LOSS": (Fraction(-1, 2), Fraction(8, 20), Fraction(20, 8)),
        "LOSE": (-1, Fraction(6, 20), Fraction(20, 6)),
    }
    assert par.rtp == Fraction(6, 20) * 2 + Fraction(8, 20) / 2
    assert sum(o.rtp_share for o in par.outcomes) == 1
    assert [o.rtp_share for o in par.outcomes][-1] == 0  # a loss returns nothing
    assert par.hit_frequency == Fraction(6, 20)
    assert par.house_edge == 1 - par.rtp


def test_the_outcome_table_is_the_engines_odds_for_every_baccarat_bet() -> None:
    tables = (
        *main_paytables(Commission.EZ, 8),
        *(baccarat.paytable(bet) for bet in baccarat.SIDE_BETS),
    )
    priced = baccarat.odds(Shoe(8).counts(), [], [], tables)
    sheet = par_bets(priced)
    assert list(sheet) == list(priced)
    for bet, odds in priced.items():
        par = sheet[bet]
        assert par.rtp == odds.rtp_fraction, bet
        assert [(o.name, o.payout_hundredths, o.probability) for o in par.outcomes] == [
            (name, o.payout_hundredths, o.fraction) for name, o in odds.outcomes.items()
        ]
        assert sum(o.probability for o in par.outcomes) == 1
        assert sum(o.rtp_share for o in par.outcomes) == 1
        assert all(o.one_in == 1 / o.probability for o in par.outcomes if o.probability)


def test_a_closed_bet_has_no_sheet_and_a_game_leaves_it_out() -> None:
    closed = SideBetOdds.from_ways("TIE", {"WIN": 0}, 0, {"WIN": 800})
    with pytest.raises(ValueError, match="closed"):
        par_bet(closed)
    assert par_bets({"TIE": closed}) == {}


def test_an_outcome_that_cannot_happen_has_no_one_in_x() -> None:
    odds = SideBetOdds.from_ways("B", {"TOP": 0, "WIN": 1}, 2, {"TOP": 5000, "WIN": 100})
    par = par_bet(odds)
    assert par.outcomes[0].one_in is None
    assert (par.max_win, par.max_win_probability) == (Fraction(50), Fraction(0))
    assert par.max_win_one_in is None
    assert not par.max_win_hittable


@pytest.mark.parametrize(
    ("total", "hittable"), [(100_000_000, True), (100_000_001, False), (10**9, False)]
)
def test_the_top_award_is_hittable_once_in_a_hundred_million_games(
    total: int, hittable: bool
) -> None:
    odds = SideBetOdds.from_ways("B", {"TOP": 1, "WIN": 1000}, total, {"TOP": 10**6, "WIN": 100})
    par = par_bet(odds)
    assert par.max_win == 10_000
    assert par.max_win_one_in == total
    assert par.max_win_hittable is hittable


def test_the_volatility_index_and_the_ranges() -> None:
    par = par_bet(SideBetOdds.from_ways("TIE", {"WIN": 1}, 10, {"WIN": 800}))
    assert [v.level for v in par.volatility] == list(CONFIDENCE_LEVELS)
    assert round(z_score(90), 4) == 1.6449
    for v in par.volatility:
        assert v.index == pytest.approx(z_score(v.level) * 2.7)
        assert par.volatility_index(v.level) == v.index
        assert [r.rounds for r in v.ranges] == list(ROUND_COUNTS)
        for r in v.ranges:
            assert r.low == pytest.approx(0.9 - v.index / math.sqrt(r.rounds))
            assert r.high == pytest.approx(0.9 + v.index / math.sqrt(r.rounds))
    sheet = par.as_dict()
    assert sheet["rtp_exact"] == "9/10" and sheet["variance_exact"] == "729/100"
    assert list(sheet["volatility_index"]) == ["90", "95", "99"]
    with pytest.raises(ValueError, match="percent"):
        z_score(100)


# --- σ and the hit frequency against every deal of tiny shoes ------------------------------


@st.composite
def dragon_tiger_shoes(draw: st.DrawFn) -> list[str]:
    """2–16 physical cards of 1–8 decks, half the time of two or three ranks only."""
    decks = draw(st.integers(1, 8))
    pool = CARDS
    if draw(st.booleans()):
        ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=3, unique=True))
        pool = [c for i, c in enumerate(CARDS) if i // 4 in ranks]
    kinds = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8, unique=True))
    cards = [kind for kind in kinds for _ in range(draw(st.integers(1, decks)))]
    return cards[:16] if len(cards) >= 2 else cards * 2


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@settings(max_examples=effort(suite=20, exhaustive=300), deadline=None)
@given(cards=dragon_tiger_shoes(), tie=st.sampled_from([8, 11]), pay=st.integers(0, 5000))
def test_dragon_tiger_sigma_and_hit_frequency_match_every_deal(
    cards: list[str], tie: int, pay: int
) -> None:
    tables = (
        *dt.main_paytables(tie),
        *(
            dt.paytable(b, overrides={"WIN": pay} if b == "SUITED_TIE" else None)
            for b in dt.SIDE_BETS
        ),
    )
    priced = dt.odds(counts_of(cards), None, tables)
    for table in tables:
        win = dt.outcome_pays(table)["WIN"]
        assert_matches_raw(par_bet(priced[table.bet]), ref.dragon_tiger_nets(cards, table.bet, win))


#: The baccarat bets checked on tiny shoes, with the reference's (bet, variant).
BACCARAT_TABLES = (
    *main_paytables(Commission.STANDARD, 8),
    *main_paytables(Commission.EZ, 9)[1:2],
    *(
        baccarat.paytable(bet)
        for bet in ("PLAYER_PAIR", "PERFECT_PAIR", "DRAGON_BONUS_PLAYER", "LUCKY_6", "BIG")
    ),
)


@st.composite
def baccarat_shoes(draw: st.DrawFn) -> list[str]:
    """6–7 physical cards (every 6-card sequence is enumerated), of few kinds half the time."""
    pool = CARDS
    if draw(st.booleans()):
        ranks = draw(st.lists(st.integers(0, 12), min_size=2, max_size=3, unique=True))
        pool = [c for i, c in enumerate(CARDS) if i // 4 in ranks]
    return draw(st.lists(st.sampled_from(pool), min_size=6, max_size=7))


@pytest.mark.slow
@against_the_reference(suite=4, exhaustive=30)
@given(cards=baccarat_shoes())
def test_baccarat_sigma_and_hit_frequency_match_every_deal(cards: list[str]) -> None:
    # Two calls: a call prices each bet once, and the EZ Banker is a second BANKER.
    for tables in (BACCARAT_TABLES[:3] + BACCARAT_TABLES[4:], BACCARAT_TABLES[3:4]):
        priced = baccarat.odds(counts_of(cards), [], [], tables)
        for table in tables:
            nets = ref.baccarat_nets(cards, (table.bet, table.preset), table.pays)
            assert_matches_raw(par_bet(priced[table.bet]), nets)


# --- Published figures ----------------------------------------------------------------------


def test_published_baccarat_standard_deviations() -> None:
    """Wizard of Odds, "Baccarat" (https://wizardofodds.com/games/baccarat/), 8 decks: the
    standard deviation per hand of Banker 0.93, Player 0.95 and Tie (8 : 1) 2.64."""
    priced = baccarat.odds(Shoe(8).counts(), [], [], main_paytables(Commission.STANDARD, 8))
    sigma = {bet: round(par.standard_deviation, 2) for bet, par in par_bets(priced).items()}
    assert sigma == {"PLAYER": 0.95, "BANKER": 0.93, "TIE": 2.64}


# --- The realised-RTP range by simulation ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("bet", ["BANKER", "PLAYER"])
def test_the_realised_rtp_falls_in_the_90_percent_range_nine_runs_in_ten(bet: str) -> None:
    """A continuous shuffler: every round independent, drawn from the full 8-deck shoe's
    outcome odds. Each run of 1,000 rounds is inside the 90 % range after 1,000 rounds or not;
    the share inside is within 3 standard errors of 90 %."""
    priced = baccarat.odds(Shoe(8).counts(), [], [], main_paytables(Commission.STANDARD, 8))
    odds = priced[bet]
    par = par_bet(odds)
    (r,) = [r for r in par.volatility[0].ranges if r.rounds == 1000]
    returns = [100 + o.payout_hundredths for o in odds.outcomes.values()]
    ways = [o.ways for o in odds.outcomes.values()]
    rng = random.Random(f"par-{bet}")
    runs = effort(suite=2000, exhaustive=20000)
    inside = 0
    for _ in range(runs):
        back = sum(rng.choices(returns, weights=ways, k=r.rounds)) / (100 * r.rounds)
        inside += r.low <= back <= r.high
    se = math.sqrt(0.9 * 0.1 / runs)
    assert abs(inside / runs - 0.9) <= 3 * se, inside / runs


# --- A moving-price bet: the RTP's distribution over the shoe -------------------------------


@pytest.mark.parametrize("bet", ["LOW", "HIGH", "SEVEN", "ODD"])
def test_hilo_states_give_the_exact_report_mean_over_offered_rounds(bet: str) -> None:
    sizes = (3, 2, 1, 2, 3)  # a reduced deck: 11 cards, 2 burns, 5 results
    report = hilo_rtp(sizes=sizes, burns=2, results=5).bets[bet]
    states = list(hilo_states(bet, sizes=sizes, burns=2, results=5))
    d = rtp_distribution(states, min_rtp=Fraction(9, 10))
    assert d.mean == report.per_offered_round
    assert d.offered == 1 - report.closed
    # The whole-shoe variance is that of the net result of every outcome of every state.
    raw = [
        (w * o.fraction, Fraction(o.payout_hundredths, 100))
        for w, odds in states
        if odds.open
        for o in odds.outcomes.values()
    ]
    assert d.variance == ref.weighted_variance(raw)
    rtps = [odds.rtp_fraction for w, odds in states if odds.open]
    assert (d.minimum, d.maximum) == (min(rtps), max(rtps))
    offered = sum(w for w, odds in states if odds.open)
    below = sum(w for w, odds in states if odds.open and odds.rtp_fraction < Fraction(9, 10))
    assert d.below_min == below / offered


@pytest.mark.slow  # reduced in make test: make test-exhaustive runs it at full count
@settings(max_examples=effort(suite=40, exhaustive=400), deadline=None)
@given(
    states=st.lists(
        st.tuples(
            st.integers(0, 5),
            st.integers(1, 6).flatmap(lambda t: st.tuples(st.just(t), st.integers(0, t))),
            st.integers(-100, 2000),
        ),
        min_size=1,
        max_size=6,
    ),
    close=st.sampled_from([0, 9_000, 10_000]),
)
def test_the_distribution_of_random_states_against_the_raw_mixture(
    states: list[tuple[int, tuple[int, int], int]], close: int
) -> None:
    pairs = [
        (w, SideBetOdds.from_ways("B", {"WIN": wins}, total, {"WIN": pay}))
        for w, (total, wins), pay in states
    ]
    kept = [(w, o) for w, o in pairs if w and not (close and 10_000 * o.rtp_fraction >= close)]
    if not kept:
        with pytest.raises(ValueError, match="offered"):
            rtp_distribution(pairs, close_at_rtp_bp=close)
        return
    d = rtp_distribution(pairs, close_at_rtp_bp=close, min_rtp=Fraction(1))
    raw = [
        (w * o.fraction, Fraction(o.payout_hundredths, 100))
        for w, odds in kept
        for o in odds.outcomes.values()
    ]
    weight = sum(w for w, _ in kept)
    assert d.mean == sum(w * o.rtp_fraction for w, o in kept) / weight
    assert d.variance == ref.weighted_variance(raw)
    assert d.price_variance == ref.weighted_variance(
        [(Fraction(w), o.rtp_fraction) for w, o in kept]
    )
    assert d.offered == Fraction(weight, sum(w for w, _ in pairs))
    assert d.below_min == Fraction(sum(w for w, o in kept if o.rtp_fraction < 1), weight)
    by_rtp = rtp_distribution([(w, o.rtp_fraction) for w, o in pairs], close_at_rtp_bp=close)
    assert (by_rtp.mean, by_rtp.variance, by_rtp.standard_deviation) == (d.mean, None, None)
    assert by_rtp.volatility() is None
    volatility = d.volatility()
    assert volatility is not None and d.variance is not None
    assert volatility[0].index == pytest.approx(z_score(90) * math.sqrt(d.variance))


def test_a_negative_weight_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        rtp_distribution([(-1, Fraction(1))])
