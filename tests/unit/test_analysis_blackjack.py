"""Blackjack side bets' report: every bet and preset of the library, exact full-shoe RTPs that
are ``library.odds``'s, and simulated penetration figures that agree with the exact mean and
with the same shoes recounted here."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from pricing.analysis.blackjack import PENETRATIONS, blackjack_rtp, full_shoe_rtps
from pricing.cards import DECK
from pricing.errors import InvalidOption
from pricing.games.blackjack import library
from pricing.games.blackjack.rules import DealerRule
from tests.support import toy_side_bet

SHOES = 300
REPORT = blackjack_rtp(shoes=SHOES, seed=7)


def every_key() -> set[str]:
    return {f"{bet}/{preset}" for bet, engine in library.BETS.items() for preset in engine.presets}


def test_the_report_covers_every_bet_and_preset_of_the_library() -> None:
    assert len(every_key()) > len(library.BETS)  # some bet has several presets
    assert set(REPORT.full_shoe) == {6, 8}
    for decks in (6, 8):
        for part in (
            REPORT.full_shoe,
            REPORT.by_penetration,
            REPORT.favourable_rounds,
            REPORT.effect_of_removal,
        ):
            assert set(part[decks]) == every_key()  # type: ignore[attr-defined]
    assert REPORT.rule is DealerRule.S17 and REPORT.as_dict()["rule"] == "S17"


def test_full_shoe_rtps_are_library_odds_on_a_full_shoe() -> None:
    for decks in (6, 8):
        for key, rtp in REPORT.full_shoe[decks].items():
            bet, preset = key.split("/")
            table = library.paytable(bet, preset)
            odds = library.odds((decks,) * 52, DealerRule.S17, [table])
            assert rtp == odds[bet].rtp_fraction, key
            assert isinstance(rtp, Fraction)
    assert full_shoe_rtps(8) == REPORT.full_shoe[8]
    # Any Pair on 6 decks, by hand: 13 ranks × C(24, 2) pairs of C(312, 2) hands, paid 12 for 1
    assert REPORT.full_shoe[6]["PAIRS/any-pair"] == Fraction(12 * 13 * 276, 48_516)


def test_simulated_means_agree_with_the_exact_mean_at_every_penetration() -> None:
    for decks, by_key in REPORT.by_penetration.items():
        for key, points in by_key.items():
            exact = REPORT.full_shoe[decks][key]
            assert [p.penetration for p in points] == list(PENETRATIONS)
            first = points[0]  # a full shoe every time: no spread; favourable every time or never
            assert first.spread == 0 and first.simulated_se == 0
            assert first.simulated_mean == pytest.approx(float(exact), rel=1e-12)
            assert first.favourable == (exact > 1)
            assert first.favourable_edge == pytest.approx(float(max(exact - 1, Fraction(0))))
            for p in points[1:]:
                assert p.exact_mean == exact and p.closed == 0
                # 5 standard errors: some 360 points are checked here
                assert abs(p.simulated_mean - float(exact)) <= 5 * p.simulated_se, (
                    decks,
                    key,
                    p.penetration,
                )
            # the deeper the shoe, the wider the spread, and the more often a bet is on the
            # other side of 1 from its full-shoe RTP
            assert points[-1].spread > points[1].spread
            if exact < 1:
                assert points[-1].favourable > points[1].favourable, (decks, key)
            else:
                assert points[-1].favourable < points[1].favourable, (decks, key)


def test_penetration_figures_are_those_of_the_same_shoes_recounted() -> None:
    """The report's statistics against a plain recount: the same seeded shuffles, every RTP
    from ``library.odds`` kept in a list, the textbook formulas over them."""
    shoes, decks = 40, 6
    report = blackjack_rtp(shoes=shoes, decks=(decks,), seed=11)
    rng = random.Random(11)
    cards = [card.index for card in DECK for _ in range(decks)]
    rtps: dict[str, list[list[Fraction]]] = {key: [[] for _ in PENETRATIONS] for key in every_key()}
    for _ in range(shoes):
        rng.shuffle(cards)
        for k, p in enumerate(PENETRATIONS):
            counts = [decks] * 52
            for index in cards[: int(p * len(cards))]:
                counts[index] -= 1
            for key in every_key():
                bet, preset = key.split("/")
                odds = library.odds(counts, DealerRule.S17, [library.paytable(bet, preset)])
                rtps[key][k].append(odds[bet].rtp_fraction)
    seen_an_edge = False
    for key, by_point in rtps.items():
        for values, point in zip(by_point, report.by_penetration[decks][key], strict=True):
            mean = sum(values, Fraction(0)) / shoes
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (shoes - 1))
            edges = [float(v - 1) for v in values if v > 1]
            assert point.simulated_mean == pytest.approx(float(mean), rel=1e-12, abs=1e-15)
            assert point.spread == pytest.approx(sd, rel=1e-9, abs=1e-15)
            assert point.simulated_se == pytest.approx(sd / math.sqrt(shoes), rel=1e-9, abs=1e-15)
            assert point.favourable == len(edges) / shoes
            if not edges:
                assert point.favourable_edge == 0 and point.favourable_edge_se == 0
                continue
            edge = sum(edges) / len(edges)
            assert point.favourable_edge == pytest.approx(edge, rel=1e-9)
            if len(edges) > 1:
                seen_an_edge = True
                edge_sd = math.sqrt(sum((e - edge) ** 2 for e in edges) / (len(edges) - 1))
                assert point.favourable_edge_se == pytest.approx(
                    edge_sd / math.sqrt(len(edges)), rel=1e-6, abs=1e-15
                )
    assert seen_an_edge


def test_one_bet_or_one_preset_and_the_dealer_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    one_bet = blackjack_rtp(shoes=4, decks=(6,), bet="pairs")
    assert set(one_bet.full_shoe[6]) == {f"PAIRS/{p}" for p in library.BETS["PAIRS"].presets}
    one_preset = blackjack_rtp(shoes=4, decks=(6,), bet="PAIRS", preset="Any-Pair")
    assert list(one_preset.full_shoe[6]) == ["PAIRS/any-pair"]
    # a bet the library gains is reported, under the rule asked for
    toy_side_bet.register(monkeypatch)
    for rule in DealerRule:
        report = blackjack_rtp(shoes=4, decks=(1, 2), rule=rule.value.lower(), bet="HEART_QUEEN")
        assert report.rule is rule
        for decks in (1, 2):
            for preset, pays in (("fifty", 5000), ("forty", 4000)):
                key = f"HEART_QUEEN/{preset}"
                assert report.full_shoe[decks][key] == toy_side_bet.full_shoe_rtp(decks, rule, pays)
                assert report.effect_of_removal[decks][key] == toy_side_bet.effect_of_removal(
                    decks, rule, pays
                )
    assert "HEART_QUEEN/forty" in blackjack_rtp(shoes=2, decks=(1,)).full_shoe[1]


def test_a_shoe_too_short_to_deal_a_bet_counts_it_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    class Deep(toy_side_bet.HeartQueen):
        name = "DEEP"

        def ways(self, counts, rule, paytable):  # type: ignore[no-untyped-def]
            ways, total = super().ways(counts, rule, paytable)
            return ways, total if sum(counts) > 10 else 0  # needs 11 cards

    monkeypatch.setitem(library.BETS, "DEEP", Deep())  # type: ignore[arg-type]
    report = blackjack_rtp(shoes=5, decks=(1,), bet="DEEP", preset="fifty")
    deepest = report.by_penetration[1]["DEEP/fifty"][-1]  # 6 cards left
    assert deepest.closed == 1 and deepest.favourable == 0 and deepest.simulated_mean == 0
    assert report.by_penetration[1]["DEEP/fifty"][-2].closed == 0  # 11 cards left


def test_the_same_seed_gives_the_same_report() -> None:
    a = blackjack_rtp(shoes=20, decks=(6,), seed=3)
    b = blackjack_rtp(shoes=20, decks=(6,), seed=3)
    assert a.as_dict() == b.as_dict()
    assert a.as_dict() != blackjack_rtp(shoes=20, decks=(6,), seed=4).as_dict()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shoes": 1}, "shoes must be"),
        ({"decks": (9,)}, "decks must be whole numbers"),
        ({"bet": "POKER"}, "unknown side bet 'POKER'"),
        ({"bet": "PAIRS", "preset": "two-pairs"}, "unknown PAIRS preset 'two-pairs'"),
        ({"preset": "any-pair"}, "needs the side bet"),
        ({"rule": "S18"}, "unknown dealer rule"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidOption, match=message):
        blackjack_rtp(**kwargs)  # type: ignore[arg-type]
