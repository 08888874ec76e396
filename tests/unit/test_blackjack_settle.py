"""Settling a dealt round's side bets: ``classify_royal_match`` and ``classify_pair`` agree with
the outcomes ``side_bets`` counts, over every deal of a (small) remaining shoe.
docs/rules.md §2.1, §3.6."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from pricing.cards import DECK, Card, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games.blackjack import (
    ANY_PAIR,
    DEFAULT_ROYAL_MATCH,
    PERFECT_PAIRS,
    STANDARD_ROYAL_MATCH,
    PairsPaytable,
    RoyalMatchPaytable,
    classify_pair,
    classify_royal_match,
    side_bets,
)


def _probabilities(counts: Counter[str]) -> dict[str, Fraction]:
    total = sum(counts.values())
    return {name: Fraction(ways, total) for name, ways in counts.items()}


def _engine(odds_outcomes: dict[str, Fraction]) -> dict[str, Fraction]:
    return {name: p for name, p in odds_outcomes.items() if p}


@pytest.mark.parametrize("paytable", [PERFECT_PAIRS, ANY_PAIR], ids=["perfect", "any"])
def test_pair_classification_counts_as_the_engine_over_a_whole_deck(
    paytable: PairsPaytable,
) -> None:
    counts: Counter[str] = Counter()
    for a, b in itertools.permutations(DECK, 2):
        counts[classify_pair([a, b], paytable)[0]] += 1
    odds = side_bets([], decks=1, pairs=paytable)["PAIRS"]
    assert _probabilities(counts) == _engine({n: o.fraction for n, o in odds.outcomes.items()})


def test_pair_classification_of_identical_cards_from_a_multi_deck_shoe() -> None:
    assert classify_pair(["QS", "QS"]) == ("PERFECT", 2500)
    assert classify_pair(["QS", "QC"]) == ("COLOURED", 1200)
    assert classify_pair(["QS", "QD"]) == ("MIXED", 600)
    assert classify_pair(["QS", "KS"]) == ("LOSE", -100)
    custom = PairsPaytable(perfect_hundredths=3000, coloured_hundredths=1000, mixed_hundredths=500)
    assert classify_pair(["2H", "2D"], custom) == ("COLOURED", 1000)


# Every deal of four cards (player two, dealer two) from a remaining shoe of 12 cards: the two
# suited K+Q of spades and hearts, so a Crown is possible, plus cards of every other outcome.
SMALL_SHOE = ["KS", "QS", "KH", "QH", "2S", "9S", "3D", "7D", "JC", "4C", "QC", "8H"]


@pytest.mark.parametrize(
    "paytable", [DEFAULT_ROYAL_MATCH, STANDARD_ROYAL_MATCH], ids=["crown", "standard"]
)
def test_royal_match_classification_counts_as_the_engine(paytable: RoyalMatchPaytable) -> None:
    left = {parse_card(c) for c in SMALL_SHOE}
    exposed = [c for c in DECK if c not in left]
    pays = paytable.pays()
    counts: Counter[str] = Counter()
    cards: tuple[Card, ...]
    for cards in itertools.permutations(sorted(left, key=lambda c: c.index), 4):
        name, paid = classify_royal_match(cards[:2], cards[2:], paytable)
        counts[name] += 1
        assert paid == pays.get(name, -100)
    odds = side_bets(exposed, decks=1, royal_match=paytable)["ROYAL_MATCH"]
    engine = {n: o.fraction for n, o in odds.outcomes.items()}
    assert ("CROWN" in engine) == paytable.crown_treasure  # off: a Crown deal is a ROYAL
    assert counts["CROWN"] > 0 or not paytable.crown_treasure
    assert _probabilities(counts) == _engine(engine)


def test_royal_match_without_the_dealers_second_card_is_no_crown() -> None:
    assert classify_royal_match(["KD", "QD"], ["KS", "QS"]) == ("CROWN", 100_000)
    assert classify_royal_match(["KD", "QD"], ["KS"]) == ("ROYAL", 2500)
    assert classify_royal_match(["KD", "QD"]) == ("ROYAL", 2500)
    assert classify_royal_match(["KD", "KD"]) == ("EASY", 250)
    assert classify_royal_match(["KD", "QH"], ["KS", "QS"]) == ("LOSE", -100)


def test_bad_hands_are_rejected() -> None:
    with pytest.raises(InvalidInput, match="first two cards"):
        classify_pair(["QS"])
    with pytest.raises(InvalidInput, match="first two cards"):
        classify_royal_match(["QS", "KS", "2D"])
    with pytest.raises(InvalidOption, match="two-pairs"):
        classify_pair(["QS", "QS"], "two-pairs")
