"""Blackjack side bets' report: exact full-shoe RTPs, and simulated penetration figures that
agree with the exact mean."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pricing.analysis.blackjack import PENETRATIONS, blackjack_rtp, side_bet_presets
from pricing.errors import InvalidOption
from pricing.games.blackjack import side_bets

REPORT = blackjack_rtp(shoes=1_500, seed=7)


def test_full_shoe_rtps_are_the_engines() -> None:
    assert set(REPORT.full_shoe) == {6, 8}
    assert set(REPORT.full_shoe[6]) == {
        "ROYAL_MATCH/crown-treasure",
        "ROYAL_MATCH/standard",
        "PAIRS/any-pair",
        "PAIRS/perfect-pairs",
    }
    for decks in (6, 8):
        for key, (rm, pairs) in side_bet_presets().items():
            engine = side_bets([], decks, royal_match=rm or "standard", pairs=pairs or "any-pair")
            bet = "ROYAL_MATCH" if rm else "PAIRS"
            assert REPORT.full_shoe[decks][key] == engine[bet].rtp_fraction, key
    # Any Pair on 6 decks, by hand: 13 ranks × C(24, 2) pairs of C(312, 2) hands, paid 12 for 1
    assert REPORT.full_shoe[6]["PAIRS/any-pair"] == Fraction(12 * 13 * 276, 48_516)


def test_simulated_means_agree_with_the_exact_mean_at_every_penetration() -> None:
    for decks, by_key in REPORT.by_penetration.items():
        for key, points in by_key.items():
            assert [p.penetration for p in points] == list(PENETRATIONS)
            first = points[0]  # a full shoe every time: no spread, never favourable
            assert first.spread < 1e-12 and first.favourable == 0
            assert first.simulated_mean == pytest.approx(float(first.exact_mean), rel=1e-12)
            for p in points[1:]:
                assert p.exact_mean == REPORT.full_shoe[decks][key]
                assert abs(p.simulated_mean - float(p.exact_mean)) <= 4 * p.simulated_se, (
                    decks,
                    key,
                    p.penetration,
                )
            # the deeper the shoe, the wider the spread and the more favourable rounds
            assert points[-1].spread > points[1].spread
            assert points[-1].favourable > points[1].favourable


def test_the_same_seed_gives_the_same_report() -> None:
    a = blackjack_rtp(shoes=20, decks=(6,), seed=3)
    b = blackjack_rtp(shoes=20, decks=(6,), seed=3)
    assert a.as_dict() == b.as_dict()
    assert a.as_dict() != blackjack_rtp(shoes=20, decks=(6,), seed=4).as_dict()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"shoes": 1}, "shoes must be"), ({"decks": (9,)}, "decks must be whole numbers")],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOption, match=message):
        blackjack_rtp(**kwargs)  # type: ignore[arg-type]
