"""Hi-Lo's exact RTP report against brute force, a pure-Python DP, Monte Carlo and the
published table."""

from __future__ import annotations

import math
import random
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing import _hilo_rtp
from pricing.analysis import hilo_rtp
from pricing.analysis.hilo import CLASSES, FULL_DECK_CLASSES, class_sizes
from pricing.cards import DECK
from pricing.errors import InvalidOption
from pricing.games.hilo import BETS, DEFAULT_PAYTABLE, HiLoPaytable, bet_wins, quote
from pricing.payout import PayRule
from tests.support.reference import hilo_rtp_ref

DEFAULT = hilo_rtp()


def as_rules(paytable: HiLoPaytable) -> dict[str, tuple[int, int, int]]:
    return {bet: rule.as_tuple() for bet, rule in paytable.rules().items()}


def assert_matches_dp(
    paytable: HiLoPaytable, sizes: tuple[int, ...], burns: int, results: int
) -> None:
    got = hilo_rtp(paytable, sizes=sizes, burns=burns, results=results)
    want = hilo_rtp_ref.dp_report(sizes, burns, results, as_rules(paytable))
    for bet in BETS:
        g, w = got.bets[bet], want[bet]
        assert list(g.by_position) == w.by_position, bet
        assert list(g.closed_by_position) == w.closed_by_position, bet
        assert list(g.distribution_by_position) == w.distribution_by_position, bet
        assert (g.clamped_min, g.clamped_max) == (w.clamped_min, w.clamped_max), bet


# ------------------------------------------------------------------ the acceptance points


def test_every_position_returns_at_most_the_configured_rtp() -> None:
    for bet, report in DEFAULT.bets.items():
        rtp = Fraction(DEFAULT_PAYTABLE.rules()[bet].rtp_bp, 10_000)
        assert len(report.by_position) == 10
        assert all(isinstance(r, Fraction) and 0 < r <= rtp for r in report.by_position), bet
        assert report.rtp == sum(report.by_position) / 10
        assert report.rtp < rtp  # rounding down always costs the player something


def test_the_extremes_offered_are_the_published_table() -> None:
    for bet in ("LOW", "HIGH", "ODD", "EVEN"):
        assert (DEFAULT.bets[bet].min_payout, DEFAULT.bets[bet].max_payout) == (52, 264)
    assert (DEFAULT.bets["SEVEN"].min_payout, DEFAULT.bets["SEVEN"].max_payout) == (693, 3824)
    for report in DEFAULT.bets.values():
        assert min(report.distribution) == report.min_payout
        assert max(report.distribution) == report.max_payout


def test_default_figures() -> None:
    """The default paytable's numbers, as docs/analysis/rtp.md quotes them."""
    low, seven = DEFAULT.bets["LOW"], DEFAULT.bets["SEVEN"]
    assert f"{float(low.rtp):.6f}" == "0.958390"
    assert f"{float(seven.rtp):.6f}" == "0.834694"
    # The four even-chance bets are the same bet on relabelled classes.
    for bet in ("HIGH", "ODD", "EVEN"):
        assert DEFAULT.bets[bet].by_position == low.by_position
    # Only SEVEN can close: all four sevens among the first 5-14 cards.
    assert all(DEFAULT.bets[bet].closed == 0 for bet in ("LOW", "HIGH", "ODD", "EVEN"))
    assert seven.closed_by_position[0] == Fraction(math.comb(48, 1), math.comb(52, 5))
    # With the published RTPs the clamps never bind: the range is exactly the reachable one.
    assert all(r.clamped_min == r.clamped_max == 0 for r in DEFAULT.bets.values())
    for report in DEFAULT.bets.values():
        for dist, closed in zip(
            report.distribution_by_position, report.closed_by_position, strict=True
        ):
            assert sum(dist.values()) + closed == 1


@pytest.mark.slow
def test_brute_force_over_every_order_of_a_reduced_deck() -> None:
    """8 distinct cards (two per class, one seven, one high-even), 2 burns, 5 results: every
    one of the 8!/1 orders of the 7 cards dealt, each equally likely."""
    sizes, burns, results = (2, 2, 1, 2, 1), 2, 5
    want = hilo_rtp_ref.brute_force_report(sizes, burns, results)
    got = hilo_rtp(sizes=sizes, burns=burns, results=results)
    for bet in BETS:
        assert list(got.bets[bet].by_position) == want[bet], bet


def test_brute_force_with_binding_clamps() -> None:
    """A paytable whose clamps bind on a small deck, so the clamp and floor are exercised."""
    paytable = HiLoPaytable(
        low=PayRule(9000, 80, 120), seven=PayRule(9500, 150, 250), odd=PayRule(10_000, 0, 90)
    )
    sizes, burns, results = (2, 1, 1, 2, 1), 1, 5
    want = hilo_rtp_ref.brute_force_report(sizes, burns, results, as_rules(paytable))
    got = hilo_rtp(paytable, sizes=sizes, burns=burns, results=results)
    for bet in BETS:
        assert list(got.bets[bet].by_position) == want[bet], bet
    assert got.bets["LOW"].clamped_min > 0 and got.bets["LOW"].clamped_max > 0
    assert_matches_dp(paytable, sizes, burns, results)


def test_full_deck_equals_the_pure_python_dp() -> None:
    """The default paytable, whose clamps never bind, on the whole deck; random paytables are
    compared on small decks below (each full-deck reference run takes a couple of seconds)."""
    assert_matches_dp(DEFAULT_PAYTABLE, FULL_DECK_CLASSES, 5, 10)


def test_monte_carlo_within_four_standard_errors() -> None:
    """Shuffled decks priced by the live engine: the realised return at each position (and
    averaged over a deck) agrees with the exact figure within 4 standard errors."""
    rng = random.Random(12)
    decks = 6_000
    per_position: dict[tuple[str, int], list[float]] = {}
    per_deck: dict[str, list[float]] = {bet: [] for bet in ("LOW", "HIGH", "ODD", "EVEN")}
    for _ in range(decks):
        order = rng.sample(DECK, 15)
        totals = dict.fromkeys(per_deck, 0.0)
        for k in range(10):
            prices = quote(order[: 5 + k])
            result = order[5 + k]
            for bet, price in prices.items():
                if not price.open:
                    continue
                back = (1 + price.payout_hundredths / 100) if bet_wins(bet, result) else 0.0
                per_position.setdefault((bet, k), []).append(back)
                if bet in totals:
                    totals[bet] += back / 10
        for bet, total in totals.items():
            per_deck[bet].append(total)

    def within(samples: list[float], exact: Fraction) -> bool:
        se = statistics.stdev(samples) / math.sqrt(len(samples))
        return abs(statistics.fmean(samples) - float(exact)) <= 4 * se

    for (bet, k), samples in per_position.items():
        assert within(samples, DEFAULT.bets[bet].by_position[k]), (bet, k)
    for bet, samples in per_deck.items():
        assert within(samples, DEFAULT.bets[bet].rtp), bet


# ------------------------------------------------------------------ differential tests

rules = st.builds(
    lambda rtp, low, width: PayRule(rtp, low, low + width),
    st.integers(1, 10_000),
    st.integers(0, 3_000),
    st.integers(0, 5_000),
)
paytables = st.builds(HiLoPaytable, low=rules, high=rules, odd=rules, even=rules, seven=rules)


@settings(max_examples=40, deadline=None)
@given(
    paytables,
    st.tuples(*[st.integers(0, 3)] * 5).filter(lambda s: sum(s) >= 2),
    st.data(),
)
def test_random_paytables_and_small_decks_match_the_dp(
    paytable: HiLoPaytable, sizes: tuple[int, ...], data: st.DataObject
) -> None:
    burns = data.draw(st.integers(0, sum(sizes) - 1))
    results = data.draw(st.integers(1, sum(sizes) - burns))
    assert_matches_dp(paytable, sizes, burns, results)


def test_kernel_counts_are_the_hypergeometric_law() -> None:
    """A third way: the winning-card count of a bet covering K of D cards after m are exposed
    is hypergeometric."""
    tallies = _hilo_rtp.hilo_win_tallies(FULL_DECK_CLASSES, 5, 10)
    for k in range(10):
        m = 5 + k
        for b, bet in enumerate(BETS):
            size = sum(FULL_DECK_CLASSES[CLASSES.index(c)] for c in _hilo_rtp.bet_classes(bet))
            want = [0] * 53
            for out in range(min(size, m) + 1):
                want[size - out] = math.comb(size, out) * math.comb(52 - size, m - out)
            assert list(tallies[k][b]) == want, (bet, k)


def test_classes_follow_the_bets() -> None:
    assert CLASSES == ("LOW_ODD", "LOW_EVEN", "SEVEN", "HIGH_ODD", "HIGH_EVEN")
    assert class_sizes([4] * 13) == (12, 12, 4, 12, 12)
    assert class_sizes([1] + [0] * 12) == (1, 0, 0, 0, 0)  # the ace is low and odd
    assert class_sizes([0] * 7 + [1] + [0] * 5) == (0, 0, 0, 0, 1)  # the 8 is high and even


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sizes": (12, 12, 4, 12)}, "need 5 class sizes"),
        ({"sizes": (12, 12, -1, 12, 12)}, "need 5 class sizes"),
        ({"sizes": (12, 12, 12, 12, 12)}, "at most 52 cards"),
        ({"burns": 40, "results": 13}, r"burns \+ results <= 52"),
    ],
)
def test_bad_decks_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOption, match=message):
        hilo_rtp(**kwargs)  # type: ignore[arg-type]
