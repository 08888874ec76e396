"""The main game's decisions (docs/rules.md §3.9): the kernel's EVs equal an exact card-by-card
reference on small shoes, the published figures are reproduced on a full 6-deck shoe, and each
action is open exactly when the rules open it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from pricing import _analyzer
from pricing.cards import DECK, Card, Shoe
from pricing.errors import IllegalMove, InvalidInput, InvalidOption
from pricing.games.blackjack.decisions import (
    Action,
    MainGameRules,
    Strategy,
    decisions,
    player_edge,
)
from pricing.games.blackjack.rules import DealerRule
from tests.support.effort import effort, exhaustive_only
from tests.support.reference import analyzer_ref

TOLERANCE = 1e-12
RANK_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]


@st.composite
def small_deals(draw: st.DrawFn) -> tuple[list[Card], Card, tuple[int, ...], DealerRule]:
    """A shoe of one or two decks reduced to a few ranks (always some aces and tens, so soft
    hands, blackjacks and up cards Ace and ten come up), a hand of two or three of its cards
    that is not busted, an up card, and the rest of the shoe."""
    decks = draw(st.sampled_from([1, 2]))
    others = draw(st.lists(st.sampled_from(RANK_CHOICES[1:9]), min_size=1, max_size=3, unique=True))
    ranks = {1, 10, *others}
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True))
    cards = [c for c in DECK if int(c.rank) in ranks and int(c.suit) in suits for _ in range(decks)]
    n_hand = draw(st.sampled_from([2, 2, 2, 3]))
    assume(n_hand + 4 < len(cards) <= 18)  # the reference grows fast with the shoe
    order = draw(st.permutations(cards))
    hand = list(order[:n_hand])
    up = order[n_hand]
    if sum(min(int(c.rank), 10) for c in hand) > 21:
        hand = hand[:2]
    counts = [0] * 52
    for c in order[n_hand + 1 :]:
        counts[c.index] += 1
    for c in order[len(hand) + 1 : n_hand + 1]:  # a third card dropped from a busted hand
        counts[c.index] += 1
    rule = draw(st.sampled_from(list(DealerRule)))
    return hand, up, tuple(counts), rule


def _reference(
    hand: list[Card], up: Card, counts: tuple[int, ...], rule: DealerRule
) -> dict[str, Fraction | None]:
    return analyzer_ref.decisions(
        [int(c.rank) for c in hand], int(up.rank), counts, rule is DealerRule.H17
    )


@pytest.mark.slow
@settings(
    max_examples=effort(suite=25, exhaustive=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(small_deals())
def test_kernel_equals_card_by_card_reference(
    deal: tuple[list[Card], Card, tuple[int, ...], DealerRule],
) -> None:
    hand, up, counts, rule = deal
    analyzer_ref.dealer.cache_clear()
    analyzer_ref.best.cache_clear()
    try:
        expected = _reference(hand, up, counts, rule)
    except analyzer_ref.ShoeRanOut:
        event("the shoe runs out")
        with pytest.raises(IllegalMove):
            decisions(hand, up, counts, rule)
        return
    pair = min(int(hand[0].rank), 10) == min(int(hand[1].rank), 10) and len(hand) == 2
    try:
        got = decisions(hand, up, counts, rule)
    except IllegalMove:
        # A split's lines need more cards than these few: the whole hand is refused (the
        # splits are held to their own reference in test_analyzer_splits.py).
        assert pair
        event("a pair on a shoe too short to split")
        return
    open_ = {Action(name) for name, ev in expected.items() if ev is not None}
    assert set(got.legal) - {Action.SPLIT} == open_
    assert (Action.SPLIT in got.legal) == pair
    for action in open_:
        assert abs(got.ev(action) - float(expected[action.value] or 0)) < TOLERANCE, action
    if not pair:  # the reference does not split: its best is over the same actions
        exact = {Action(name): ev for name, ev in expected.items() if ev is not None}
        assert got.best == max(Action, key=lambda a: exact.get(a, Fraction(-9))), exact


def _full(decks: int, *cards: str) -> tuple[int, ...]:
    return Shoe.without(cards, decks=decks).counts()


def test_published_six_deck_s17_figures() -> None:
    eleven = decisions(["6S", "5H"], "2D", _full(6, "6S", "5H", "2D"), DealerRule.S17)
    assert round(eleven.ev(Action.HIT), 6) == 0.245699
    assert round(eleven.ev(Action.DOUBLE), 8) == 0.48605718
    assert eleven.best is Action.DOUBLE
    sixteen = decisions(["10S", "6H"], "2D", _full(6, "10S", "6H", "2D"), DealerRule.S17)
    assert round(sixteen.ev(Action.STAND), 8) == -0.29362664
    assert round(sixteen.ev(Action.HIT), 6) == -0.470104
    assert sixteen.best is Action.STAND


def test_surrender_is_half_and_not_against_an_ace() -> None:
    against_ten = decisions(["10S", "6H"], "KD", _full(6, "10S", "6H", "KD"))
    assert against_ten.ev(Action.SURRENDER) == -0.5
    assert against_ten.best is Action.SURRENDER  # 16 v 10 on six decks: below −0.5 otherwise
    against_ace = decisions(["10S", "6H"], "AD", _full(6, "10S", "6H", "AD"))
    assert Action.SURRENDER not in against_ace.legal
    with pytest.raises(InvalidInput, match="SURRENDER is not open"):
        against_ace.ev(Action.SURRENDER)


def test_double_and_surrender_only_on_the_first_two_cards() -> None:
    three = decisions(["2S", "3H", "6C"], "5D", _full(6, "2S", "3H", "6C", "5D"))
    assert three.legal == (Action.STAND, Action.HIT)
    two = decisions(["5S", "6C"], "5D", _full(6, "5S", "6C", "5D"))
    assert two.legal == (Action.STAND, Action.HIT, Action.DOUBLE, Action.SURRENDER)
    assert Action.SPLIT not in two.legal
    assert Action.SPLIT in decisions(["8S", "8C"], "5D", _full(6, "8S", "8C", "5D")).legal
    tens = decisions(["10S", "KC"], "5D", _full(6, "10S", "KC", "5D"))  # equal values
    assert tens.legal == (*two.legal[:3], Action.SPLIT, Action.SURRENDER)
    assert Action.SPLIT not in three.legal


def test_blackjack_only_stands_and_pushes_a_dealer_blackjack() -> None:
    # Against an Ace on one deck: 1.5 unless the dealer's second card is one of the 15 tens
    # of the 49 cards left (an ace counted 1 only would make A + K 11, no blackjack).
    d = decisions(["AS", "KH"], "AD", _full(1, "AS", "KH", "AD"))
    assert d.legal == (Action.STAND,)
    assert d.ev(Action.STAND) == pytest.approx(1.5 * (1 - 15 / 49), abs=TOLERANCE)


def _small(*ranks: int, without: tuple[str, ...] = ()) -> tuple[int, ...]:
    """One deck of ``ranks`` only, without the cards ``without``."""
    counts = [0] * 52
    for rank in ranks:
        for suit in range(4):
            counts[(rank - 1) * 4 + suit] += 1
    for card in without:
        counts[Card.parse(card).index] -= 1
    return tuple(counts)


def _check(hand: list[str], up: str, counts: tuple[int, ...], rule: DealerRule) -> None:
    got = decisions(hand, up, counts, rule)
    expected = analyzer_ref.decisions(
        [int(Card.parse(c).rank) for c in hand],
        int(Card.parse(up).rank),
        counts,
        rule is DealerRule.H17,
    )
    assert set(got.legal) == {Action(a) for a, ev in expected.items() if ev is not None}
    for action in got.legal:
        assert abs(got.ev(action) - float(expected[action.value] or 0)) < TOLERANCE, action


@pytest.mark.slow
def test_a_dealer_blackjack_takes_one_from_a_double() -> None:
    # 2 + 9 against an Ace, from aces, 2s, 9s and tens: the dealer's second card is a ten in
    # about a quarter of the lines, so a doubled hand losing 2 to it would be far lower.
    hand, up = ["2S", "9H"], "AD"
    counts = _small(1, 2, 9, 10, without=(*hand, up))
    _check(hand, up, counts, DealerRule.S17)
    doubled = decisions(hand, up, counts).ev(Action.DOUBLE)
    tens = sum(counts[36:])
    assert doubled > decisions(hand, up, counts).ev(Action.HIT) - tens / sum(counts)


def test_an_ace_counts_one_when_eleven_would_bust() -> None:
    # Soft 17 (A 6) against a ten, from aces, 5s, 6s and tens: after a ten the hand is hard 17,
    # not a bust; an ace always 11 would lose every hit but an ace's.
    hand, up = ["AS", "6H"], "10D"
    for rule in DealerRule:
        _check(hand, up, _small(1, 5, 6, 10, without=(*hand, up)), rule)


def test_soft_seventeen_rule_matters_and_is_not_swapped() -> None:
    # 17 against a 6: under S17 a dealer soft 17 stands and pushes it, under H17 it draws and
    # more often beats it, so standing is worth more under S17.
    counts = _full(6, "10S", "7H", "6D")
    s17 = decisions(["10S", "7H"], "6D", counts, DealerRule.S17).ev(Action.STAND)
    h17 = decisions(["10S", "7H"], "6D", counts, DealerRule.H17).ev(Action.STAND)
    assert s17 > h17 + 0.01
    small = _small(1, 6, 7, 10, without=("10S", "7H", "6D"))
    for rule in DealerRule:
        _check(["10S", "7H"], "6D", small, rule)


def test_bad_hands_are_refused() -> None:
    counts = _full(6, "10S", "6H", "9C", "2D")
    with pytest.raises(InvalidInput, match="busted"):
        decisions(["10S", "6H", "9C"], "2D", counts)
    with pytest.raises(InvalidInput, match="at least two"):
        decisions(["10S"], "2D", counts)
    with pytest.raises(InvalidInput, match="52 card counts"):
        decisions(["10S", "6H"], "2D", counts[:10])


def test_a_shoe_that_runs_out_is_refused() -> None:
    counts = [0] * 52
    counts[Card.parse("2C").index] = 1
    with pytest.raises(IllegalMove, match="reshuffled"):
        decisions(["10S", "2H"], "3D", counts)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("hand", "up", "ranks"),
    [
        (["10S", "6H"], "10D", (1, 2, 6, 10)),
        pytest.param(["3S", "4H"], "9D", (1, 3, 4, 9, 10), marks=exhaustive_only),
        (["AS", "7H"], "8D", (1, 7, 8, 10)),
        (["5S", "6H"], "7D", (1, 5, 6, 7, 10)),
        pytest.param(["9S", "2H"], "AD", (1, 2, 9, 10), marks=exhaustive_only),
    ],
)
def test_dealer_table_equals_reference_when_the_shoe_cannot_run_short(
    hand: list[str], up: str, ranks: tuple[int, ...]
) -> None:
    # Shoes of 13-17 cards against a high up card: the dealer needs at most 6-12 cards, so
    # the kernel sums the up card's table of dealer hands for most of the player's
    # compositions and falls back to drawing level by level near the end of the shoe.
    counts = _small(*ranks, without=(*hand, up))
    for rule in DealerRule:
        _check(hand, up, counts, rule)


def test_farmers_six_deck_edge() -> None:
    # E. Farmer's analyzer, CDZ-: a full 6-deck shoe, S17, double any two, double after split,
    # split to four hands, aces once, 3:2, no surrender: the player's edge is -0.402870 %.
    rules = MainGameRules(DealerRule.S17, double_after_split=True, max_splits=3, surrender=False)
    assert round(player_edge(_full(6), rules) * 100, 6) == -0.402870


def test_splits_change_with_the_rules_as_they_should() -> None:
    counts = _full(6, "8S", "8H", "6D")
    split = {
        (das, limit): decisions(
            ["8S", "8H"], "6D", counts, MainGameRules(double_after_split=das, max_splits=limit)
        ).ev(Action.SPLIT)
        for das in (True, False)
        for limit in (1, 2, 3)
    }
    # Against a 6, every further split and every double after one is worth having.
    assert split[True, 3] > split[True, 2] > split[True, 1] > split[False, 1]
    assert split[True, 3] > split[False, 3]
    # Aces split once only, whatever the limit.
    aces = _full(6, "AS", "AH", "6D")
    evs = {
        limit: decisions(["AS", "AH"], "6D", aces, MainGameRules(max_splits=limit)).ev(Action.SPLIT)
        for limit in (1, 3)
    }
    assert evs[1] == evs[3]


@pytest.mark.parametrize("decks", [1, 2, 8])
def test_dealer_variants_change_nothing(decks: int) -> None:
    # A split computes the dealer's distributions for several shoes in one pass (shoes short of
    # a few more pair cards); one by one gives the same EVs.
    for pair, up in [("2", "A"), ("3", "10"), ("8", "6"), ("9", "7"), ("A", "5"), ("10", "2")]:
        hand, dealer = [pair + "S", pair + "H"], up + "D"
        counts = _full(decks, *hand, dealer)
        together = decisions(hand, dealer, counts).ev(Action.SPLIT)
        previous = _analyzer.dealer_variants(False)
        try:
            one_by_one = decisions(hand, dealer, counts).ev(Action.SPLIT)
        finally:
            _analyzer.dealer_variants(previous)
        assert abs(together - one_by_one) < TOLERANCE, (pair, up)


@pytest.mark.parametrize("decks", [1, 6, 8])
@pytest.mark.parametrize("rule", list(DealerRule))
def test_basic_strategy_trails_composition_dependent_play_by_little(
    decks: int, rule: DealerRule
) -> None:
    rules = MainGameRules(rule)
    best = player_edge(_full(decks), rules)
    basic = player_edge(_full(decks), rules, Strategy.BASIC)
    assert best - 0.003 < basic < best


def test_bad_rules_and_short_shoes_are_refused() -> None:
    for bad in (0, 4, True):
        with pytest.raises(InvalidOption, match=f"max_splits must be 1-3, got {bad!r}"):
            MainGameRules(max_splits=bad)
    with pytest.raises(InvalidOption, match="unknown dealer rule"):
        MainGameRules("S18")  # type: ignore[arg-type]
    with pytest.raises(IllegalMove, match="reshuffled"):
        player_edge(_small(1, 2, 10))


def test_an_exact_tie_of_actions_goes_to_the_first() -> None:
    # A-3-A against a ten, from A, 2, 9 and a ten: standing and hitting are both worth
    # exactly -2/3, which doubles round to -0.6666666666666667 and -0.6666666666666666.
    counts = [0] * 52
    for card in ("AD", "10H", "2S", "9S"):
        counts[Card.parse(card).index] += 1
    d = decisions(["AS", "3S", "AH"], "10S", tuple(counts))
    assert abs(d.ev(Action.STAND) - d.ev(Action.HIT)) < 1e-15
    assert d.best is Action.STAND
