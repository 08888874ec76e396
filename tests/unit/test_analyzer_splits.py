"""Splitting and the next round's edge (docs/rules.md §3.9): the kernel's split EV and
``player_edge`` equal a slow card-by-card ``Fraction`` reference on small shoes.

The kernel splits by Eric Farmer's algebraic method (exchangeable per-hand EVs combined with
sequence probabilities); ``tests/support/reference/analyzer_ref.py`` shares none of it: it plays the
split out card by card in casino order on one shoe (resplitting, each hand to the end, then the
dealer) and settles every line. The reference itself is first held to a third, even plainer
count: every order of a tiny shoe dealt out as at the table.

Test shoes are one or two decks' worth of a few values, always aces and tens (soft hands,
blackjacks, up cards Ace and ten): big enough for the kernel's conservative run-out bound
(it refuses a shoe unless remaining >= hands + 1 + K, K the most of the shoe's smallest cards
whose values fit in 20 * hands + 16), small and high enough for the reference to take a second
or so. Examples the kernel still refuses are skipped with an ``event``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, Card
from pricing.errors import IllegalMove
from pricing.games.blackjack.decisions import (
    Action,
    MainGameRules,
    Strategy,
    decisions,
    player_edge,
)
from pricing.games.blackjack.rules import DealerRule
from tests.support.effort import effort
from tests.support.reference import analyzer_ref
from tests.support.reference.analyzer_ref import RoundRules, Split

TOLERANCE = 1e-12
#: A CDZ- decision whose EVs differ, but by less than this, may be decided the other way by a
#: kernel in doubles (it takes EVs within 1e-12 as a tie): not a disagreement of method. Exact
#: ties (gap 0) must agree: both stand.
TIE = 1e-9


def _ranks_of(value: int) -> list[int]:
    return [value] if value < 10 else [10, 11, 12, 13]


def _cards(values: dict[int, int]) -> list[Card]:
    """``values[v]`` cards of each value ``v``, spread over its ranks and the four suits."""
    out: list[Card] = []
    for value, n in values.items():
        kinds = [c for c in DECK if int(c.rank) in _ranks_of(value)]
        out += [kinds[i % len(kinds)] for i in range(n)]
    return out


def _card(rank: int, suit: int) -> Card:
    return next(c for c in DECK if int(c.rank) == rank and int(c.suit) == suit)


def _counts(cards: list[Card]) -> tuple[int, ...]:
    counts = [0] * 52
    for c in cards:
        counts[c.index] += 1
    return tuple(counts)


def _bound_holds(values: dict[int, int], hands: int) -> bool:
    """The kernel's documented run-out bound (see the module docstring)."""
    budget, fit = 20 * hands + 16, 0
    for value in sorted(values):
        k = min(values[value], budget // value)
        fit += k
        budget -= k * value
    return sum(values.values()) >= fit + hands + 1


def _topped_up(values: dict[int, int], hands: int) -> dict[int, int]:
    """``values`` with tens added until the bound holds: each ten adds a card left and, once
    the budget is spent, nothing to K (tens keep the reference fast too)."""
    values = dict(values)
    while not _bound_holds(values, hands):
        values[10] = values.get(10, 0) + 1
    return values


def _rules(h17: bool, das: bool, max_splits: int, surrender: bool = True) -> MainGameRules:
    return MainGameRules(
        dealer_rule=DealerRule.H17 if h17 else DealerRule.S17,
        double_after_split=das,
        max_splits=max_splits,
        surrender=surrender,
    )


# 1. The split EV ------------------------------------------------------------------------------

SplitCase = tuple[list[Card], Card, dict[int, int], MainGameRules]


@st.composite
def split_cases(draw: st.DrawFn) -> SplitCase:
    """A pair (for tens, two ranks of value 10, e.g. 10 and K), an up card, and the rest of a
    shoe of aces, tens and one to three other values (at most 5 of each), tens topped up for
    the kernel's bound."""
    max_splits = draw(st.integers(1, 3))
    others = draw(st.lists(st.integers(2, 9), min_size=1, max_size=3, unique=True))
    present = sorted({1, 10, *others})
    values = {v: draw(st.integers(1, 5)) for v in present}
    values[10] = draw(st.integers(3, 8))
    pair_value = draw(st.sampled_from(present))
    up_value = draw(st.sampled_from(present))
    pair = [
        _card(draw(st.sampled_from(_ranks_of(pair_value))), 0),
        _card(draw(st.sampled_from(_ranks_of(pair_value))), 1),
    ]
    up = _cards({up_value: 1})[0]
    hands = 2 if pair_value == 1 else max_splits + 1
    values = _topped_up(values, hands)
    rules = _rules(draw(st.booleans()), draw(st.booleans()), max_splits)
    return pair, up, values, rules


def _value(card: Card) -> int:
    return min(int(card.rank), 10)


def _split_reference(
    pair: list[Card], up: Card, values: dict[int, int], rules: MainGameRules
) -> tuple[Fraction, float]:
    analyzer_ref.clear_caches()
    base = [0] * 10
    for v, n in values.items():
        base[v - 1] += n
    base[_value(pair[0]) - 1] += 2
    return analyzer_ref.split_with_margin(
        Split(
            _value(pair[0]),
            _value(up),
            tuple(base),
            rules.h17,
            rules.double_after_split,
            rules.max_splits + 1,
        )
    )


@pytest.mark.slow
@settings(
    max_examples=effort(suite=20, exhaustive=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(split_cases())
def test_split_equals_the_card_by_card_playout(case: SplitCase) -> None:
    pair, up, values, rules = case
    counts = _counts(_cards(values))
    try:
        d = decisions(pair, up, counts, rules)
    except IllegalMove:
        event("skipped: the kernel refuses the shoe")
        return
    assert Action.SPLIT in d.legal
    got = d.ev(Action.SPLIT)
    expected, gap = _split_reference(pair, up, values, rules)
    if abs(got - float(expected)) >= TOLERANCE and 0 < gap < TIE:
        event("skipped: a near tie of CDZ- EVs decided the other way")
        return
    event("compared")
    assert abs(got - float(expected)) < TOLERANCE, (float(expected), got)


# 2. The next round's edge ---------------------------------------------------------------------

EdgeCase = tuple[dict[int, int], MainGameRules]


@st.composite
def edge_cases(draw: st.DrawFn) -> EdgeCase:
    """A shoe of aces, tens and one to three other values (every pair of the shoe is split in
    some deal, so the reference plays up to ~50 splits: at most 3 of each but tens, and low
    values, whose long hands make the playout slow, are drawn less often)."""
    max_splits = draw(st.integers(1, 3))
    others = draw(
        st.lists(
            st.sampled_from([2, 4, 5, 6, 7, 7, 8, 8, 9, 9]), min_size=1, max_size=3, unique=True
        )
    )
    present = sorted({1, 10, *others})
    values = {v: draw(st.integers(2, 3)) for v in present}
    values[10] = draw(st.integers(4, 9))
    values = _topped_up(values, max_splits + 1)
    rules = _rules(draw(st.booleans()), draw(st.booleans()), max_splits, draw(st.booleans()))
    return values, rules


@pytest.mark.slow
@settings(
    max_examples=effort(suite=12, exhaustive=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(edge_cases(), st.sampled_from(list(Strategy)))
def test_player_edge_equals_the_reference(case: EdgeCase, strategy: Strategy) -> None:
    values, rules = case
    counts = _counts(_cards(values))
    try:
        got = player_edge(counts, rules, strategy)
    except IllegalMove:
        event("skipped: the kernel refuses the shoe")
        return
    analyzer_ref.clear_caches()
    expected, gap = analyzer_ref.player_edge_with_margin(
        counts,
        RoundRules(
            rules.h17,
            rules.double_after_split,
            rules.max_splits + 1,
            rules.surrender,
            strategy is Strategy.BASIC,
        ),
    )
    if abs(got - float(expected)) >= TOLERANCE and 0 < gap < TIE:
        event("skipped: a near tie of CDZ- EVs decided the other way")
        return
    event(f"compared ({strategy.value})")
    assert abs(got - float(expected)) < TOLERANCE, (float(expected), got)


# 3. Rules that a wrong kernel could get wrong and still look plausible ------------------------


def test_a_dealer_blackjack_takes_one_in_all_from_a_split() -> None:
    # 8-8 against an Ace from a shoe of eights and tens: resplits are frequent and a dealer
    # blackjack comes in about a third of the lines, so taking 1 per hand would be far lower.
    pair, up = [Card.parse("8S"), Card.parse("8H")], Card.parse("AD")
    values = _topped_up({1: 3, 8: 6, 10: 12}, 4)
    rules = _rules(False, True, 3)
    got = decisions(pair, up, _counts(_cards(values)), rules).ev(Action.SPLIT)
    expected, _ = _split_reference(pair, up, values, rules)
    assert abs(got - float(expected)) < TOLERANCE
    base = analyzer_ref.plus(analyzer_ref.value_counts(_counts(_cards(values))), (8, 8))
    per_hand, _ = analyzer_ref.split_with_margin(
        Split(8, 1, base, False, True, 4, mutant_dealer_blackjack_per_hand=True)
    )
    assert expected - per_hand > Fraction(1, 20)  # the kernel would be far off with it


def test_split_aces_are_not_split_again() -> None:
    # A-A against a 6 from an ace-rich shoe under max_splits=3: the second card is an ace
    # often, and resplitting aces (good for the player here) would raise the EV clearly.
    pair, up = [Card.parse("AS"), Card.parse("AH")], Card.parse("6D")
    values = _topped_up({1: 8, 6: 4, 9: 4, 10: 10}, 4)
    rules = _rules(False, True, 3)
    got = decisions(pair, up, _counts(_cards(values)), rules).ev(Action.SPLIT)
    expected, _ = _split_reference(pair, up, values, rules)
    assert abs(got - float(expected)) < TOLERANCE
    base = analyzer_ref.plus(analyzer_ref.value_counts(_counts(_cards(values))), (1, 1))
    resplit, _ = analyzer_ref.split_with_margin(
        Split(1, 6, base, False, True, 4, mutant_resplit_aces=True)
    )
    assert abs(resplit - expected) > Fraction(1, 20)


# The reference against a plainer count of itself ----------------------------------------------


def _orders(values: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every distinct order of a shoe of ``values[v - 1]`` cards of each value ``v``."""
    if not any(values):
        yield ()
        return
    for v, n in enumerate(values, start=1):
        if n:
            rest = (*values[: v - 1], n - 1, *values[v:])
            for tail in _orders(rest):
                yield (v, *tail)


def _deal_out(order: tuple[int, ...], g: Split) -> int:
    """One order of the shoe dealt as at the table: what the split wins."""
    cards = iter(order)
    hands: list[list[int]] = [[g.pair], [g.pair]]
    done: list[tuple[int, int]] = []
    for hand in hands:  # the list grows as hands are resplit: each is dealt in turn
        while len(hand) == 1:
            card = next(cards)
            if card == g.pair and len(hands) < g.hand_limit:
                hands.append([g.pair])
            else:
                hand.append(card)
        stake = 1
        while g.pair != 1 and analyzer_ref.total(tuple(hand)) <= 21:
            action, _ = analyzer_ref._decide(tuple(sorted(hand)), g)
            if action == "S":
                break
            hand.append(next(cards))
            if action == "D":
                stake = 2
                break
        done.append((analyzer_ref.total(tuple(hand)), stake))
    dealer = [g.up, next(cards)]
    if analyzer_ref.total(tuple(dealer)) == 21:
        return -len(done) if g.mutant_dealer_blackjack_per_hand else -1
    while (t := analyzer_ref.total(tuple(dealer))) < 17 or (
        t == 17 and g.h17 and analyzer_ref.is_soft(tuple(dealer))
    ):
        dealer.append(next(cards))
    won = 0
    for mine, stake in done:
        won += -stake if mine > 21 else stake if t > 21 or mine > t else -stake if mine < t else 0
    return won


TinyCase = tuple[int, int, dict[int, int], int, bool]


@pytest.mark.parametrize(
    "case",
    [  # pair, up card, the shoe without them, max hands, chart play
        (10, 3, {1: 2, 3: 2, 8: 2, 10: 3}, 3, False),
        (10, 3, {3: 1, 6: 3, 10: 3}, 3, True),
        (8, 10, {1: 2, 6: 1, 8: 2, 10: 3}, 3, False),
        (10, 6, {1: 2, 6: 3, 9: 1, 10: 3}, 3, True),
        (9, 9, {1: 1, 8: 3, 9: 3}, 3, False),
        (1, 1, {1: 3, 6: 2, 8: 3, 10: 1}, 3, False),
        (1, 10, {1: 2, 7: 3, 10: 3}, 3, True),
    ],
)
@pytest.mark.parametrize("h17", [False, True])
def test_reference_equals_every_order_of_a_tiny_shoe(case: TinyCase, h17: bool) -> None:
    pair, up, shoe, max_hands, basic = case
    # Every distinct order of the shoe is equally likely: the split's EV is the average over
    # them of what the round wins dealt out in that order. No probabilities, no memoising.
    base = tuple(shoe.get(v, 0) + 2 * (v == pair) for v in range(1, 11))
    for mutant in (False, True):  # the mutation too, so that the sanity tests mean something
        g = Split(pair, up, base, h17, True, max_hands, basic, mutant, mutant)
        analyzer_ref.clear_caches()
        expected, _ = analyzer_ref.split_with_margin(g)
        won = [
            _deal_out(order, g) for order in _orders(tuple(shoe.get(v, 0) for v in range(1, 11)))
        ]
        counted = Fraction(sum(won), len(won))
        assert counted == expected


def test_one_value_shoes_by_hand() -> None:
    # Only eights: 16 against an 8 whose dealer busts on 8-8-8. CDZ- stands every 8-8 and
    # splits to the limit: the edge is the number of hands. The chart splits and hits every
    # split 16 against an 8: it loses every hand. Only tens: 20 pushes 20, nothing beats 0.
    eights = _counts(_cards({8: 16}))
    for max_splits in (1, 2, 3):
        hands = max_splits + 1
        rules = _rules(False, True, max_splits)
        assert analyzer_ref.player_edge(
            eights, RoundRules(False, True, hands, True, False)
        ) == Fraction(hands)
        assert analyzer_ref.player_edge(
            eights, RoundRules(False, True, hands, True, True)
        ) == Fraction(-hands)
        for strategy, edge in ((Strategy.COMPOSITION, hands), (Strategy.BASIC, -hands)):
            # 16 eights can be too few for the kernel's bound at 4 hands: a refusal is fine.
            with contextlib.suppress(IllegalMove):
                assert player_edge(eights, rules, strategy) == pytest.approx(edge, abs=TOLERANCE)
    tens = _counts(_cards({10: 16}))
    for basic in (False, True):
        assert analyzer_ref.player_edge(tens, RoundRules(True, True, 4, True, basic)) == 0


def test_an_exact_tie_is_broken_by_standing() -> None:
    # Split 9s against a 10 from A A A 9 9 9 10 10 10 10 J: a split A-9 is decided on the
    # pre-split shoe A A 9 9 10 10 10 10, where standing and hitting are both worth exactly 0.
    # The rules stand unless hitting is strictly better; a kernel in doubles that hit on its
    # rounding noise (hit 2.8e-17) would change the edge by 0.003.
    counts = _counts(_cards({1: 3, 9: 3, 10: 5}))
    expected = analyzer_ref.player_edge(counts, RoundRules(False, False, 2, False, False))
    assert expected == Fraction(1249, 4620)
    assert abs(player_edge(counts, _rules(False, False, 1, False)) - float(expected)) < TOLERANCE


# 5. Ties and the run-out bound ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "pair", "up", "h17", "expected"),
    [
        ({9: 3, 2: 2, 10: 5}, 8, 2, True, Fraction(263, 630)),
        ({9: 1, 3: 1, 5: 1, 10: 6}, 4, 9, True, Fraction(-10, 9)),
        ({5: 3, 8: 3, 10: 4}, 8, 8, False, Fraction(-47, 210)),
    ],
)
def test_a_split_hand_doubles_only_when_doubling_is_strictly_better(
    values: dict[int, int], pair: int, up: int, h17: bool, expected: Fraction
) -> None:
    # Shoes where some split hand's double is worth exactly the better of standing and
    # hitting (found by search): doubling on that tie instead gives another split EV
    # (respectively 47/105, -47/42, -59/210).
    rules = _rules(h17, True, 1)
    hand = [_card(pair, 0), _card(pair, 1)]
    dealer = _cards({up: 1})[0]
    assert _split_reference(hand, dealer, values, rules)[0] == expected
    got = decisions(hand, dealer, _counts(_cards(values)), rules).ev(Action.SPLIT)
    assert abs(got - float(expected)) < TOLERANCE, (float(expected), got)


@st.composite
def short_shoes(draw: st.DrawFn) -> SplitCase:
    """A pair, an up card and a short shoe of low and middle values, near the kernel's run-out
    bound on either side (not topped up)."""
    max_splits = draw(st.integers(1, 3))
    present = draw(st.lists(st.integers(2, 10), min_size=2, max_size=4, unique=True))
    values = {v: draw(st.integers(1, 3)) for v in present}
    pair_value = draw(st.sampled_from(present))
    pair = [_card(pair_value, 0), _card(pair_value, 1)]
    up = _cards({draw(st.sampled_from(present)): 1})[0]
    rules = _rules(draw(st.booleans()), draw(st.booleans()), max_splits)
    return pair, up, values, rules


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(short_shoes())
def test_a_shoe_the_kernel_accepts_never_runs_out(case: SplitCase) -> None:
    # The bound may refuse a shoe that would not run out, never accept one that could: where
    # the kernel prices a split, the card-by-card playout completes and agrees.
    pair, up, values, rules = case
    try:
        got = decisions(pair, up, _counts(_cards(values)), rules).ev(Action.SPLIT)
    except IllegalMove:
        event("refused")
        return
    event("accepted")
    expected, gap = _split_reference(pair, up, values, rules)  # ShoeRanOut would fail here
    if abs(got - float(expected)) >= TOLERANCE and 0 < gap < TIE:
        event("skipped: a near tie of CDZ- EVs decided the other way")
        return
    assert abs(got - float(expected)) < TOLERANCE, (float(expected), got)


def test_a_shoe_that_could_run_out_is_refused() -> None:
    # 3-3 against a 2 with one 2, three 5s and three tens left: some line of the split runs
    # the shoe out (the reference says so), and the kernel refuses it.
    values, rules = {2: 1, 5: 3, 10: 3}, _rules(False, True, 1)
    pair, up = [_card(3, 0), _card(3, 1)], _cards({2: 1})[0]
    with pytest.raises(analyzer_ref.ShoeRanOut):
        _split_reference(pair, up, values, rules)
    with pytest.raises(IllegalMove, match="reshuffled"):
        decisions(pair, up, _counts(_cards(values)), rules)
