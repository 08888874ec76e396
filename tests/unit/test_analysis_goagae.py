"""Goa Gae's exact RTP report against brute force on reduced decks."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import pytest

from pricing.analysis.goagae import goagae_rtp
from pricing.errors import InvalidOption
from pricing.games.goagae import BETS, DEFAULT_PAYTABLE, GoaGaePaytable, quote
from pricing.payout import PayRule
from tests.support.reference import goagae_ref

# 15 cards holding every category: the J/Q/K of every suit (triples, JQK hands, suited
# J-Q-K straight flushes), the 9 and 10 of spades (9-10-J and 10-J-Q straight flushes, a
# STRAIGHT 10-J-Q offsuit, NINE hands 9 + two faces) and the ace of spades (Q-K-A).
REDUCED = [f"{r}{s}" for r in ("J", "Q", "K") for s in "CDHS"] + ["9S", "10S", "AS"]


def as_rules(paytable: GoaGaePaytable) -> dict[str, tuple[int, int, int]]:
    return {bet: rule.as_tuple() for bet, rule in paytable.rules().items()}


def brute_force(
    deck: list[str], rounds: int, per_round: int, paytable: GoaGaePaytable
) -> dict[str, list[Fraction]]:
    """Each bet's return by round, given offered, over every set of cards gone before the
    round (the first m cards of a uniform shuffle are a uniform m-subset), priced by the
    live engine's own hand counts."""
    missing = [c for c in goagae_ref.FULL_DECK if c not in deck]
    out: dict[str, list[Fraction]] = {bet: [] for bet in BETS}
    for k in range(rounds):
        back = dict.fromkeys(BETS, Fraction(0))
        offered = dict.fromkeys(BETS, 0)
        for gone in itertools.combinations(deck, per_round * k):
            prices = quote([*missing, *gone], paytable)
            for bet, p in prices.items():
                if p.open:
                    offered[bet] += 1
                    back[bet] += (1 + Fraction(p.payout_hundredths, 100)) * Fraction(
                        p.wins, p.remaining
                    )
        for bet in BETS:
            out[bet].append(back[bet] / offered[bet] if offered[bet] else Fraction(0))
    return out


def test_fresh_deck_is_the_full_deck_price() -> None:
    report = goagae_rtp()
    for bet, price in quote([]).items():
        rule = DEFAULT_PAYTABLE.rules()[bet]
        want = (1 + Fraction(price.payout_hundredths, 100)) * Fraction(price.wins, 22_100)
        assert report.bets[bet].by_position == (want,)
        assert want <= Fraction(rule.rtp_bp, 10_000)
        assert report.bets[bet].distribution == {price.payout_hundredths: 1}


def test_rounds_from_a_reduced_deck_equal_brute_force() -> None:
    paytable = GoaGaePaytable(
        jqk=PayRule(9600, 0, 400), flush=PayRule(9000, 100, 900), triple=PayRule(9800, 50, 2000)
    )
    report = goagae_rtp(paytable, rounds=4, cards_per_round=3, deck=REDUCED)
    want = brute_force(REDUCED, 4, 3, paytable)
    assert report.left_out == ()
    for bet in BETS:
        assert list(report.bets[bet].by_position) == want[bet], bet
    # the clamps bind on this deck, so the test sees them
    assert report.bets["JQK"].clamped_max > 0 and report.bets["FLUSH"].clamped_min > 0


def test_every_order_of_a_tiny_deck() -> None:
    """8 cards, two rounds of 3: every order of the 6 cards dealt, equally likely; prices and
    hands by the pure-Python reference (memoised: an order's price depends on its first 3)."""
    deck = ["JC", "JD", "JH", "QC", "QS", "KS", "9S", "10S"]
    missing = [c for c in goagae_ref.FULL_DECK if c not in deck]

    @functools.cache
    def prices(gone: frozenset[str]) -> dict[str, goagae_ref.RefPrice]:
        return goagae_ref.quote([*missing, *gone], as_rules(DEFAULT_PAYTABLE))

    @functools.cache
    def winner(hand: frozenset[str]) -> str:
        cat = goagae_ref.category(sorted(hand))
        return "NINE" if cat == "POINTS" and goagae_ref.points(sorted(hand)) == 9 else cat

    back = dict.fromkeys(BETS, Fraction(0))
    offered = dict.fromkeys(BETS, 0)
    for order in itertools.permutations(deck, 6):
        won = winner(frozenset(order[3:]))
        for bet, p in prices(frozenset(order[:3])).items():
            if p.open:
                offered[bet] += 1
                back[bet] += (1 + Fraction(p.payout_hundredths, 100)) if won == bet else 0
    report = goagae_rtp(rounds=2, cards_per_round=3, deck=deck)
    for bet in BETS:
        want = back[bet] / offered[bet] if offered[bet] else Fraction(0)
        assert report.bets[bet].by_position[1] == want, bet


def test_rounds_from_the_full_deck() -> None:
    report = goagae_rtp(rounds=8)
    # STRAIGHT and NINE do not split into independent groups; 8 rounds are too many sets
    assert report.left_out == ("STRAIGHT", "NINE")
    for bet, r in report.bets.items():
        assert len(r.by_position) == 8
        assert r.by_position[0] == goagae_rtp().bets[bet].by_position[0]
        for dist, closed in zip(r.distribution_by_position, r.closed_by_position, strict=True):
            assert sum(dist.values()) + closed == 1
    # the max clamp costs JQK most late in the deck
    assert report.bets["JQK"].rtp < Fraction(90, 100) < report.bets["TRIPLE"].rtp


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rounds": 0}, "rounds must be"),
        ({"cards_per_round": 2}, "cards_per_round must be at least 3"),
        ({"rounds": 10}, "need at least 57 cards"),
    ],
)
def test_bad_deals_are_rejected(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(InvalidOption, match=message):
        goagae_rtp(**kwargs)
