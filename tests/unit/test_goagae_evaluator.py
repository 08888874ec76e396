"""The Goa Gae hand order (docs/rules.md §4): the sheet's examples, the full-deck counts, and the
whole order checked hand by hand against the pure-Python reference."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict

import pytest

from pricing import _goagae
from pricing.cards import DECK, parse_card
from pricing.errors import InvalidCard, InvalidInput
from pricing.games.goagae import Category, HandValue, bet_wins, evaluate
from tests.support.reference import goagae_ref

CARD_TEXTS = [str(card) for card in DECK]
ALL_HANDS = list(itertools.combinations(CARD_TEXTS, 3))


def ev(text: str) -> HandValue:
    return evaluate(text.split())


# ---------------------------------------------------------------- the full-deck counts


def test_full_deck_category_counts() -> None:
    """docs/rules.md §4: over the 22,100 hands of one deck."""
    counts = Counter(evaluate(hand).category for hand in ALL_HANDS)
    assert len(ALL_HANDS) == 22_100
    assert counts == {
        "TRIPLE": 52,
        "STRAIGHT_FLUSH": 48,
        "JQK": 204,
        "STRAIGHT": 660,
        "FLUSH": 1_096,
        "POINTS": 20_040,
    }


def test_full_deck_points_counts() -> None:
    counts = Counter(evaluate(hand).points for hand in ALL_HANDS)
    assert counts == {0: 2_384} | {p: 2_212 for p in (1, 3, 5, 7, 9)} | {
        p: 2_164 for p in (2, 4, 6, 8)
    }


# ---------------------------------------------------------------- the sheet's examples


def test_sheet_examples() -> None:
    assert ev("2C 7D 8H").points == 7
    assert ev("2C 7D 8H").category is Category.POINTS
    assert ev("4C 5D 6H") < ev("7C 8D 9H")
    assert ev("AC 2D 3H") < ev("QC KD AH")
    assert ev("3C 3D 3H") > ev("AC AD AH") > ev("KC KD KH")


def test_triple_order_ignores_suits_and_ranks_three_then_ace_first() -> None:
    order = ["2", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "3"]
    values = [ev(f"{r}C {r}D {r}H") for r in order]
    assert values == sorted(values)
    assert len(set(values)) == 13
    assert ev("7C 7D 7H") == ev("7S 7D 7H")  # suits never count (they cannot meet anyway)


def test_every_category_beats_every_lower_category() -> None:
    best: dict[Category, HandValue] = {}
    worst: dict[Category, HandValue] = {}
    for hand in ALL_HANDS:
        value = evaluate(hand)
        cat = value.category
        best[cat] = max(best.get(cat, value), value)
        worst[cat] = min(worst.get(cat, value), value)
    ladder = sorted(Category)
    assert [c.value for c in ladder] == [
        "POINTS",
        "FLUSH",
        "STRAIGHT",
        "JQK",
        "STRAIGHT_FLUSH",
        "TRIPLE",
    ]
    for lower, higher in itertools.pairwise(ladder):
        assert best[lower] < worst[higher], (lower, higher)
    assert worst[Category.POINTS] == ev("3C 3D 4C")  # 0 points, top card the 4 of clubs
    assert best[Category.TRIPLE] == ev("3C 3D 3H")


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        # POINTS: points, then the highest card (A > K > … > 2), then its suit (the higher of
        # two cards of that rank).
        ("KC 2D 6H", "AS 3C 4H"),  # 8 points each: top K < top A
        ("2C 7D 9H", "4C 4D KS"),  # 8 points each: top 9 < top K
        ("10C 10D 9S", "10H 10S 9H"),  # 9 points, top a pair of 10s: D < S
        ("5C 5D 9S", "KC 2D 7H"),  # 9 points each: top 9 < top K
        ("QD 9C 10H", "9H 10S QS"),  # 9 points, top Q: D < S
        ("2C 3D 5H", "AC AD 7H"),  # 0 points < 9 points
        # FLUSH: suit, then highest card.
        ("AH KH 9H", "2S 4S 6S"),
        ("2S 4S 6S", "2S 4S 7S"),
        ("10C 8C 2C", "AC 4C 2C"),
        # STRAIGHT: sequence, then the suit of its top card.
        ("AS 2S 3H", "2C 3C 4D"),
        ("10C JD QS", "QC KD AH"),
        ("AC 2D 3H", "AD 2C 3S"),
        ("QS KS AC", "QC KC AD"),
        # JQK: highest card, then the suit of that card.
        ("JC JD QC", "JH QS KC"),
        ("KC JS JH", "KD JC QC"),
        ("QS QH KC", "KD KH QD"),
        # STRAIGHT_FLUSH: suit first, then sequence.
        ("QH KH AH", "AS 2S 3S"),
        ("AC 2C 3C", "2C 3C 4C"),
        # Across categories.
        ("AS KS QS", "2C 2D 2H"),
        ("JC QD KH", "AD 2D 3D"),
        ("2C 3D 4H", "JC JD QH"),
        ("7H 8H 10H", "AC 2D 3H"),
        ("9C 10D 7H", "2S 3S 5S"),
    ],
)
def test_pairs_in_order(lower: str, higher: str) -> None:
    assert ev(lower) < ev(higher)
    assert ev(higher) > ev(lower)
    assert ev(lower) != ev(higher)


def test_sequences_k_a_2_is_no_straight_and_a_plays_high_and_low() -> None:
    assert ev("KC AD 2H").category is Category.POINTS
    assert ev("AC 2D 3H").category is Category.STRAIGHT
    assert ev("QC KD AH").category is Category.STRAIGHT
    assert ev("JC QD KH").category is Category.JQK  # the highest category it qualifies for
    assert ev("JC QC KC").category is Category.STRAIGHT_FLUSH
    assert ev("JC JD JH").category is Category.TRIPLE
    assert ev("QC KC AC").category is Category.STRAIGHT_FLUSH


def test_card_points() -> None:
    assert ev("AC 2D 3H").points == 6
    assert ev("10C JD QH").points == 0
    assert ev("9C 9D 9H").points == 7
    assert ev("KC AD 8H").points == 9


# ---------------------------------------------------------------- the whole order


def test_order_matches_the_reference_on_every_hand() -> None:
    """Exhaustive: equal reference keys ⇔ equal engine keys, and the same order."""
    engine: dict[tuple[int, ...], set[int]] = defaultdict(set)
    for hand in ALL_HANDS:
        value = evaluate(hand)
        assert value.category == goagae_ref.category(hand), hand
        assert value.points == goagae_ref.points(hand), hand
        engine[goagae_ref.key(hand)].add(value.key)
    assert all(len(keys) == 1 for keys in engine.values())
    in_reference_order = [next(iter(engine[k])) for k in sorted(engine)]
    assert in_reference_order == list(range(_goagae.n_strengths()))


def test_two_disjoint_hands_never_tie_exhaustively() -> None:
    """docs/rules.md §4, over every pair of disjoint hands: hands of equal value share a card."""
    by_key: dict[int, list[frozenset[str]]] = defaultdict(list)
    for hand in ALL_HANDS:
        by_key[evaluate(hand).key].append(frozenset(hand))
    pairs_checked = 0
    for group in by_key.values():
        for one, other in itertools.combinations(group, 2):
            assert one & other, (sorted(one), sorted(other))
            pairs_checked += 1
    assert pairs_checked > 100_000  # the groups are large: the check has teeth
    assert _goagae.disjoint_tied_pairs() == 0


def test_hand_value_equality_is_the_game_tie() -> None:
    """Hands sharing a card may tie by the rules; ``==`` and ``hash`` say so."""
    a, b = ev("AS 2C 6D"), ev("AS 3C 5D")
    assert a == b and hash(a) == hash(b)
    assert a.cards != b.cards
    assert ev("AS 2C 6D") != ev("AH 2C 6D")


def test_category_compares_in_game_order_and_as_text() -> None:
    assert Category.JQK == "JQK"
    assert Category.POINTS < Category.FLUSH < Category.TRIPLE
    assert max(Category) is Category.TRIPLE
    assert [c.level for c in sorted(Category)] == list(range(6))


def test_bet_wins() -> None:
    assert bet_wins("TRIPLE", ["3C", "3D", "3H"])
    assert not bet_wins("JQK", ["JC", "QC", "KC"])  # a straight flush, not JQK
    assert bet_wins("STRAIGHT_FLUSH", ["JC", "QC", "KC"])
    assert bet_wins("NINE", ["KC", "AD", "8H"])
    assert not bet_wins("NINE", ["KC", "AC", "8C"])  # a flush of 9 points
    with pytest.raises(InvalidInput, match="'PAIR'"):
        bet_wins("PAIR", ["KC", "AD", "8H"])


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("cards", "error", "message"),
    [
        (["AS", "2C"], InvalidInput, "3 different cards, got AS 2C"),
        (["AS", "2C", "3D", "4H"], InvalidInput, "got AS 2C 3D 4H"),
        ([], InvalidInput, "got none"),
        (["AS", "as", "3D"], InvalidInput, "got AS AS 3D"),
        (["AS", "1C", "3D"], InvalidCard, "'1C'"),
        (["AS", None, "3D"], InvalidCard, "None"),
    ],
)
def test_evaluate_rejects_bad_hands(
    cards: list[object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        evaluate(cards)  # type: ignore[arg-type]


def test_evaluate_accepts_cards_and_any_notation() -> None:
    assert evaluate([parse_card("TS"), "j♠", "q♠"]) == ev("10S JS QS")


def test_evaluate_indices_rejects_bad_indices() -> None:
    with pytest.raises(InvalidInput, match="different"):
        _goagae.evaluate_indices(1, 1, 2)
    with pytest.raises(InvalidInput, match="0-51"):
        _goagae.evaluate_indices(0, 1, 52)
