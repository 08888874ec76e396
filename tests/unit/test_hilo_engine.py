"""The Hi-Lo pricing engine (docs/rules.md §1.2, §1.3) against the published table and a
pure-Python reference."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, parse_card
from pricing.errors import CardNotInShoe, InvalidCard, InvalidOption
from pricing.games.hilo import (
    BETS,
    DEFAULT_PAYTABLE,
    HiLoPaytable,
    bet_wins,
    next_card_quotes,
    quote,
    quote_rank_counts,
)
from pricing.payout import PayRule
from tests.support.effort import effort
from tests.support.reference import hilo_ref

CARD_TEXTS = [str(card) for card in DECK]


def as_rules(paytable: HiLoPaytable) -> dict[str, tuple[int, int, int]]:
    return {bet: rule.as_tuple() for bet, rule in paytable.rules().items()}


def assert_matches_reference(exposed: list[str], paytable: HiLoPaytable) -> None:
    got = quote(exposed, paytable)
    want = hilo_ref.quote(exposed, as_rules(paytable))
    assert list(got) == list(BETS)
    for bet in BETS:
        g, w = got[bet], want[bet]
        assert (g.wins, g.remaining, g.payout_hundredths, g.open, g.clamped) == (
            w.wins,
            w.remaining,
            w.payout_hundredths,
            w.open,
            w.clamped,
        ), bet
        assert g.probability == float(w.probability)


# ---------------------------------------------------------------- the published table


def reachable_group_states() -> list[tuple[int, ...]]:
    """Every deck state with 5 to 14 cards exposed, up to what prices depend on.

    A Hi-Lo price depends only on how many cards of each bet class are left. The 52 cards fall
    into five classes on which the bets agree: low-odd (A 3 5), low-even (2 4 6), high-odd
    (9 J K), high-even (8 10 Q) — 12 cards each — and the four sevens. So every reachable deck
    state maps to how many were exposed from each class, and every such tuple is reachable.
    Returns 13 rank counts for one representative of each.
    """
    classes = [(1, 3, 5), (2, 4, 6), (9, 11, 13), (8, 10, 12), (7,)]
    states = []
    for taken in itertools.product(range(13), range(13), range(13), range(13), range(5)):
        if not 5 <= sum(taken) <= 14:
            continue
        counts = [4] * 13
        for ranks, n in zip(classes, taken, strict=True):
            left_to_take = n
            for rank in ranks:
                step = min(left_to_take, 4)
                counts[rank - 1] -= step
                left_to_take -= step
        states.append(tuple(counts))
    return states


def test_published_payout_range_is_exactly_the_extremes_over_reachable_states() -> None:
    """docs/rules.md §1: with 96.0 % and 83.5 % RTP, the extremes over every deck state with 5 to
    14 cards exposed are exactly 0.52–2.64 : 1 and 6.93–38.24 : 1, and no clamp binds there."""
    states = reachable_group_states()
    # As many as the coefficients of x^5 … x^14 in (1 + x + … + x^12)^4 (1 + … + x^4).
    poly = [1]
    for size in (12, 12, 12, 12, 4):
        poly = [
            sum(poly[k - j] for j in range(size + 1) if 0 <= k - j < len(poly))
            for k in range(len(poly) + size)
        ]
    assert len(states) == sum(poly[5:15]) == 9476
    unclamped = HiLoPaytable.from_rules(
        {bet: PayRule(rule.rtp_bp, 0, 10**6) for bet, rule in DEFAULT_PAYTABLE.rules().items()}
    )
    seen: dict[str, list[int]] = {bet: [] for bet in BETS}
    for counts in states:
        published = quote_rank_counts(counts)
        raw = quote_rank_counts(counts, unclamped)
        for bet in BETS:
            assert published[bet] == raw[bet]  # the clamp never binds
            assert not published[bet].clamped
            if published[bet].open:
                seen[bet].append(published[bet].payout_hundredths)
    for bet in ("LOW", "HIGH", "ODD", "EVEN"):
        assert (min(seen[bet]), max(seen[bet])) == (52, 264), bet
    assert (min(seen["SEVEN"]), max(seen["SEVEN"])) == (693, 3824)


def test_reference_agrees_on_the_published_extremes() -> None:
    # 14 exposed with all 24 high cards still in: HIGH at its minimum 0.52 : 1.
    assert hilo_ref.payout_hundredths(9600, 24, 38) == 52
    # 3 sevens among the 5 opening burns: SEVEN at its maximum 38.24 : 1.
    assert hilo_ref.payout_hundredths(8350, 1, 47) == 3824
    exposed = ["7S", "7H", "7D", "2C", "3C"]
    assert quote(exposed)["SEVEN"].payout_hundredths == 3824
    assert hilo_ref.quote(exposed)["SEVEN"].payout_hundredths == 3824


# ---------------------------------------------------------------- differential


@st.composite
def paytables(draw: st.DrawFn) -> HiLoPaytable:
    def rule() -> PayRule:
        low = draw(st.integers(0, 3000))
        return PayRule(draw(st.integers(1, 10_000)), low, draw(st.integers(low, 6000)))

    return HiLoPaytable(low=rule(), high=rule(), odd=rule(), even=rule(), seven=rule())


@pytest.mark.slow
@settings(max_examples=effort(suite=800, exhaustive=20_000), deadline=None)
@given(
    deck=st.permutations(CARD_TEXTS),
    exposed_count=st.integers(0, 51),
    paytable=st.one_of(st.just(DEFAULT_PAYTABLE), paytables()),
)
def test_engine_matches_reference(
    deck: list[str], exposed_count: int, paytable: HiLoPaytable
) -> None:
    assert_matches_reference(deck[:exposed_count], paytable)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(deck=st.permutations(CARD_TEXTS), exposed_count=st.integers(0, 50))
def test_next_card_quotes_match_reference(deck: list[str], exposed_count: int) -> None:
    exposed = deck[:exposed_count]
    staged = next_card_quotes(exposed)
    left = deck[exposed_count:]
    assert set(staged) == {card[:-1] for card in left}
    for card in left:
        want = hilo_ref.quote([*exposed, card])
        got = staged[card[:-1]]
        assert {b: (p.wins, p.remaining, p.payout_hundredths) for b, p in got.items()} == {
            b: (p.wins, p.remaining, p.payout_hundredths) for b, p in want.items()
        }


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(deck=st.permutations(DECK), exposed_count=st.integers(0, 51), data=st.data())
def test_any_spelling_of_a_card_prices_the_same(
    deck: list[object], exposed_count: int, data: st.DataObject
) -> None:
    exposed = deck[:exposed_count]
    spellings = [
        data.draw(st.sampled_from([card, str(card), str(card).lower(), f" {card} "]))
        for card in exposed
    ]
    assert quote(spellings) == quote([str(card) for card in exposed])


# ---------------------------------------------------------------- edge cases


def test_all_four_sevens_gone_closes_seven() -> None:
    prices = quote(["7S", "7H", "7D", "7C", "2S"])
    seven = prices["SEVEN"]
    assert (seven.open, seven.wins, seven.payout_hundredths, seven.probability) == (
        False,
        0,
        0,
        0.0,
    )
    assert all(prices[bet].open for bet in ("LOW", "HIGH", "ODD", "EVEN"))


def test_an_exhausted_class_closes_its_bet_only() -> None:
    lows = [r + s for r in ("A", "2", "3", "4", "5", "6") for s in "SHDC"]
    prices = quote(lows)
    assert not prices["LOW"].open and prices["LOW"].wins == 0
    assert prices["HIGH"].open and prices["HIGH"].wins == 24
    # 28 cards left, 24 high: 0.96 × 28/24 − 1 = 0.12, lifted to the published 0.52.
    assert prices["HIGH"].payout_hundredths == 52 and prices["HIGH"].clamped


def test_fifty_one_cards_exposed_leaves_one_card_to_price() -> None:
    exposed = [c for c in CARD_TEXTS if c != "KH"]
    prices = quote(exposed)
    assert {bet for bet, p in prices.items() if p.open} == {"HIGH", "ODD"}
    for bet in ("HIGH", "ODD"):
        p = prices[bet]
        # Certain to win: 0.96 × 1/1 − 1 = −0.04, clamped up to the minimum.
        assert (p.wins, p.remaining, p.probability, p.payout_hundredths, p.clamped) == (
            1,
            1,
            1.0,
            52,
            True,
        )
    assert_matches_reference(exposed, DEFAULT_PAYTABLE)


def test_all_fifty_two_exposed_closes_everything() -> None:
    prices = quote(CARD_TEXTS)
    assert not any(p.open for p in prices.values())
    assert {p.remaining for p in prices.values()} == {0}
    assert next_card_quotes(CARD_TEXTS) == {}


def test_custom_paytable_clamp_binds_both_ways() -> None:
    tight = HiLoPaytable(
        low=PayRule(9600, 100, 150), seven=PayRule(9000, 700, 1000), high=PayRule(5000, 0, 999)
    )
    prices = quote([], tight)
    # LOW: 0.96 × 52/24 − 1 = 1.08, inside [1.00, 1.50]: not clamped.
    assert (prices["LOW"].payout_hundredths, prices["LOW"].clamped) == (108, False)
    # SEVEN: 0.90 × 52/4 − 1 = 10.70 → clamped down to 10.00.
    assert (prices["SEVEN"].payout_hundredths, prices["SEVEN"].clamped) == (1000, True)
    # HIGH: 0.50 × 52/24 − 1 = 0.0833… → 0.08, inside [0, 9.99].
    assert (prices["HIGH"].payout_hundredths, prices["HIGH"].clamped) == (8, False)
    sevens_heavy = quote(["2S", "3S", "4S", "5S", "6S", "8S", "9S"], tight)
    # 45 left, 4 sevens: 0.90 × 45/4 − 1 = 9.125 → 9.12, inside.
    assert (sevens_heavy["SEVEN"].payout_hundredths, sevens_heavy["SEVEN"].clamped) == (912, False)
    few_lows = quote([r + s for r in ("A", "2", "3", "4", "5") for s in "SHDC"], tight)
    # 32 left, 4 lows: 0.96 × 32/4 − 1 = 6.68 → clamped to 1.50.
    assert (few_lows["LOW"].payout_hundredths, few_lows["LOW"].clamped) == (150, True)


def test_payout_is_rounded_down_in_integers_not_floats() -> None:
    # 30 cards left, 15 of them low: 0.96 × 30/15 − 1 = 0.92 exactly, on a hundredth boundary.
    # In floats the same product is 0.9199999…, which a float floor would turn into 0.91.
    assert 100 * (0.96 * 30 / 15 - 1) < 92  # the trap this guards against
    exposed = [r + s for r in ("A", "2") for s in "SHDC"] + ["3S"]  # 9 lows
    exposed += [r + s for r in ("8", "9", "10") for s in "SHDC"] + ["JS"]  # 13 others
    low = quote(exposed)["LOW"]
    assert (low.wins, low.remaining, low.payout_hundredths) == (15, 30, 92)
    assert hilo_ref.payout_hundredths(9600, 15, 30) == 92


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad", ["1H", "XX", "", None, "10"])
def test_bad_card_text_is_refused_naming_it(bad: object) -> None:
    with pytest.raises(InvalidCard) as info:
        quote(["2S", bad])  # type: ignore[list-item]
    assert repr(bad) in str(info.value)


def test_a_card_seen_twice_is_refused() -> None:
    with pytest.raises(CardNotInShoe, match="QD"):
        quote(["QD", "2S", "qd"])
    with pytest.raises(CardNotInShoe, match="QD"):
        next_card_quotes([parse_card("QD"), "Q♦"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 52, 264), "rtp_bp"),
        ((10_001, 52, 264), "rtp_bp"),
        ((9600, -1, 264), "min_hundredths"),
        ((9600, 300, 264), "above"),
        ((9600.0, 52, 264), "rtp_bp"),
        ((True, 52, 264), "rtp_bp"),
    ],
)
def test_custom_paytables_are_validated(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidOption, match=message):
        PayRule(*args)  # type: ignore[arg-type]


def test_unknown_bet_names_are_refused() -> None:
    with pytest.raises(InvalidOption, match="TWELVE"):
        HiLoPaytable.from_rules({"TWELVE": PayRule(9000, 0, 100)})
    with pytest.raises(ValueError, match="TWELVE"):
        bet_wins("TWELVE", parse_card("2S"))


def test_bet_table_of_the_rules() -> None:
    table = {
        bet: [rank for rank in range(1, 14) if bet_wins(bet, DECK[(rank - 1) * 4])] for bet in BETS
    }
    assert table == {bet: sorted(ranks) for bet, ranks in hilo_ref.WINS_ON.items()}
