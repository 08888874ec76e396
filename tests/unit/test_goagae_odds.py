"""Exact odds of the next Goa Gae hand, showdowns and the category bets, against the
brute-force reference on random partially-dealt decks (docs/rules.md §4.4, §4.5)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing import _goagae
from pricing.cards import CARD_INDEX, DECK, card_index, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidCard, InvalidInput, InvalidOption
from pricing.games.goagae import (
    BETS,
    DEFAULT_PAYTABLE,
    GoaGaePaytable,
    Showdown,
    category_odds,
    points_odds,
    quote,
    showdown,
    win_probability,
)
from pricing.payout import PayRule, raw_payout_hundredths
from tests.support.effort import effort
from tests.support.reference import goagae_ref

CARD_TEXTS = [str(card) for card in DECK]


def as_rules(paytable: GoaGaePaytable) -> dict[str, tuple[int, int, int]]:
    return {bet: rule.as_tuple() for bet, rule in paytable.rules().items()}


# ---------------------------------------------------------------- category_odds


def test_full_deck_odds() -> None:
    odds = category_odds([])
    assert odds == goagae_ref.category_odds([])
    assert odds["TRIPLE"] == (52, 22_100)
    assert odds["POINTS"] == (20_040, 22_100)
    assert sum(odds[c][0] for c in goagae_ref.CATEGORIES) == 22_100
    assert sum(odds[f"TOTAL_{p}"][0] for p in range(10)) == 22_100
    assert points_odds([]) == {p: odds[f"TOTAL_{p}"] for p in range(10)}


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(deck=st.permutations(CARD_TEXTS), exposed_count=st.integers(0, 52))
def test_category_odds_match_the_reference(deck: list[str], exposed_count: int) -> None:
    exposed = deck[:exposed_count]
    got = category_odds(exposed)
    assert got == goagae_ref.category_odds(exposed)
    assert list(got)[:7] == [*goagae_ref.CATEGORIES, "NINE"]
    assert points_odds(exposed) == {p: got[f"TOTAL_{p}"] for p in range(10)}
    assert got["TRIPLE"][1] == math.comb(52 - exposed_count, 3)


@pytest.mark.slow
@settings(max_examples=effort(suite=120, exhaustive=3_000), deadline=None)
@given(deck=st.permutations(CARD_TEXTS), exposed_count=st.integers(0, 52))
def test_rank_triple_counting_matches_hand_by_hand_enumeration(
    deck: list[str], exposed_count: int
) -> None:
    """The fast path counts by rank triple; the strength table enumerates every hand. Two
    independent paths inside the engine, cheap enough to compare on many decks."""
    exposed = deck[:exposed_count]
    fast = _goagae.hand_counts(exposed, CARD_INDEX, card_index)
    assert fast == _goagae.hand_counts(exposed, CARD_INDEX, card_index, by_enumeration=True)


def test_short_deck_has_no_hand() -> None:
    for left in (0, 1, 2):
        odds = category_odds(CARD_TEXTS[left:])
        assert set(odds.values()) == {(0, 0)}
    assert category_odds(CARD_TEXTS[3:])["TRIPLE"] == (1, 1)  # AC AD AH left: one triple
    assert category_odds(CARD_TEXTS[3:])["NINE"] == (0, 1)


def test_odds_accept_cards_and_any_notation() -> None:
    assert category_odds([parse_card("AS"), "th", "7♣"]) == category_odds(["AS", "10H", "7C"])


@pytest.mark.parametrize(
    ("exposed", "error", "message"),
    [
        (["AS", "KD", "as"], CardNotInShoe, "AS"),
        (["AS", "XX"], InvalidCard, "'XX'"),
        ([None], InvalidCard, "None"),
    ],
)
def test_odds_reject_bad_decks(exposed: list[object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        category_odds(exposed)  # type: ignore[arg-type]
    with pytest.raises(error, match=message):
        quote(exposed)  # type: ignore[arg-type]


# ---------------------------------------------------------------- showdowns


@st.composite
def showdown_cases(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A hand of 1-3 known cards and a deck dealt far enough that the O(n^6) reference stays
    quick: the fewer known cards, the more completions, the shorter the deck."""
    known = draw(st.integers(1, 3))
    lowest = {1: 32, 2: 20, 3: 0}[known]
    deck = draw(st.permutations(CARD_TEXTS))
    exposed_count = draw(st.integers(lowest, 52 - known - (3 - known) - 3))
    return deck[:known], deck[known : known + exposed_count]


@pytest.mark.slow
@settings(max_examples=effort(suite=40, exhaustive=400), deadline=None)
@given(case=showdown_cases())
def test_showdown_matches_the_reference(case: tuple[list[str], list[str]]) -> None:
    hand, exposed = case
    want = goagae_ref.showdown(hand, exposed)
    got = showdown(hand, exposed)
    assert got == Showdown(want.wins, want.ties, want.losses, want.total)
    assert got.ties == 0
    assert win_probability(hand, exposed) == (want.wins, want.total)
    known = len(hand)
    left = 52 - known - len(exposed)
    assert got.total == math.comb(left, 3 - known) * math.comb(left - (3 - known), 3)


def test_showdown_from_a_fresh_deck() -> None:
    assert showdown(["AS", "KS"], []) == Showdown(*_ref_tuple(["AS", "KS"], []))
    assert win_probability(["3C", "3D", "3H"], []) == (18_424, 18_424)
    low_straight = ["2C", "3D", "4H"]
    assert tuple(showdown(low_straight, [])) == _ref_tuple(low_straight, [])
    # One card: every (completion, opponent) pair, 1,275 × 18,424 of them; by symmetry of a
    # random hand against a random hand, the three of clubs' deal wins and loses as follows:
    wins, total = win_probability(["3C"], [])
    assert total == 1_275 * 18_424
    assert 0 < wins < total


def _ref_tuple(hand: list[str], exposed: list[str]) -> tuple[int, int, int, int]:
    ref = goagae_ref.showdown(hand, exposed)
    return (ref.wins, ref.ties, ref.losses, ref.total)


def test_random_hand_against_random_hand_wins_half_the_time() -> None:
    """Summed over every card of the deck, a one-card hand wins exactly half of all deals (no
    ties): a check of the one-card path that does not go through the reference."""
    wins = sum(win_probability([text], [])[0] for text in CARD_TEXTS)
    assert 2 * wins == 52 * 1_275 * 18_424


@pytest.mark.parametrize(
    ("hand", "exposed", "error", "message"),
    [
        ([], [], InvalidInput, "1 to 3 known cards, got 0"),
        (["AS", "2S", "3S", "4S"], [], InvalidInput, "got 4"),
        (["AS", "AS"], [], CardNotInShoe, "AS is in the hand twice"),
        (["AS", "2S"], ["3S", "2S"], CardNotInShoe, "2S"),
        (["AS"], ["ZZ"], InvalidCard, "'ZZ'"),
        (
            ["AS", "KS"],
            [c for c in CARD_TEXTS if c not in ("AS", "KS")][:47],
            IllegalMove,
            "only 3 cards left",
        ),
        (["AC"], CARD_TEXTS[4:51], IllegalMove, "only 4 cards left"),
    ],
)
def test_showdown_rejects_bad_input(
    hand: list[str], exposed: list[str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        win_probability(hand, exposed)


def test_showdown_on_the_shortest_decks() -> None:
    # Six cards left, a one-card hand: the engine and the reference agree to the last deal.
    exposed = CARD_TEXTS[7:52]
    hand = CARD_TEXTS[:1]
    assert tuple(showdown(hand, exposed)) == _ref_tuple(hand, exposed)
    assert showdown(hand, exposed).total == math.comb(6, 2) * math.comb(4, 3)


# ---------------------------------------------------------------- quote and the paytable


def assert_quote_matches_reference(exposed: list[str], paytable: GoaGaePaytable) -> None:
    got = quote(exposed, paytable)
    want = goagae_ref.quote(exposed, as_rules(paytable))
    assert list(got) == list(BETS) == goagae_ref.BETS
    for bet in BETS:
        g, w = got[bet], want[bet]
        assert (g.bet, g.wins, g.remaining, g.payout_hundredths, g.open, g.clamped) == (
            bet,
            w.wins,
            w.remaining,
            w.payout_hundredths,
            w.open,
            w.clamped,
        ), bet


def test_full_deck_quote() -> None:
    prices = quote([])
    assert {bet: p.payout_hundredths for bet, p in prices.items()} == {
        "TRIPLE": 40_700,
        "STRAIGHT_FLUSH": 44_100,
        "JQK": 10_300,
        "STRAIGHT": 3_114,
        "FLUSH": 1_835,
        "NINE": 978,
    }
    assert not any(p.clamped for p in prices.values())
    assert all(p.open and p.remaining == 22_100 for p in prices.values())
    assert_quote_matches_reference([], DEFAULT_PAYTABLE)


def test_default_clamps_are_zero_to_twice_the_full_deck_payout() -> None:
    """The documented choice: 96 % RTP, minimum 0 : 1, maximum twice the full-deck price."""
    fresh = quote([])
    for bet, rule in DEFAULT_PAYTABLE.rules().items():
        assert rule.rtp_bp == 9_600
        assert rule.min_hundredths == 0
        assert rule.max_hundredths == 2 * fresh[bet].payout_hundredths


rules = st.builds(
    lambda rtp, low, span: PayRule(rtp, low, low + span),
    st.integers(1, 10_000),
    st.integers(0, 50_000),
    st.integers(0, 100_000),
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    deck=st.permutations(CARD_TEXTS),
    exposed_count=st.integers(0, 52),
    paytable=st.one_of(
        st.just(DEFAULT_PAYTABLE),
        st.builds(GoaGaePaytable, rules, rules, rules, rules, rules, rules),
    ),
)
def test_quote_matches_the_reference(
    deck: list[str], exposed_count: int, paytable: GoaGaePaytable
) -> None:
    assert_quote_matches_reference(deck[:exposed_count], paytable)


def test_depleted_decks_hit_the_clamps_and_close_bets() -> None:
    # 27 cards left holding exactly one triple (three 2s, two of every other rank).
    left = ["2C", "2D", "2H"] + [f"{r}{s}" for r in goagae_ref.RANKS if r != "2" for s in "CD"]
    exposed = [card for card in CARD_TEXTS if card not in left]
    prices = quote(exposed)
    triple = prices["TRIPLE"]
    assert (triple.wins, triple.remaining) == (1, math.comb(27, 3))
    assert triple.clamped and triple.payout_hundredths == 81_400
    assert raw_payout_hundredths(9_600, 1, triple.remaining) == 280_700  # 2,807 : 1 unclamped
    assert_quote_matches_reference(exposed, DEFAULT_PAYTABLE)
    # The last three cards: a certain triple pays its stake back (floor 0), the rest closed.
    last = quote(CARD_TEXTS[:49])  # KD KH KS left
    assert last["TRIPLE"].open and last["TRIPLE"].payout_hundredths == 0
    assert last["TRIPLE"].clamped  # raw 0.96 × 1/1 − 1 = −0.04
    assert [bet for bet, p in last.items() if p.open] == ["TRIPLE"]
    assert not any(p.open for p in quote(CARD_TEXTS[:50]).values())


def test_paytable_validation_and_from_rules() -> None:
    custom = GoaGaePaytable.from_rules({"NINE": PayRule(9_000, 100, 2_000)})
    assert custom.nine == PayRule(9_000, 100, 2_000)
    assert custom.triple == DEFAULT_PAYTABLE.triple
    assert quote([], custom)["NINE"].payout_hundredths == 910  # 0.9 × 22100/1968 − 1 = 9.106
    with pytest.raises(InvalidOption, match="PAIR"):
        GoaGaePaytable.from_rules({"PAIR": PayRule(9_000, 0, 1)})
    with pytest.raises(InvalidOption, match="'jqk' must be a PayRule"):
        GoaGaePaytable(jqk=(9_600, 0, 100))  # type: ignore[arg-type]
