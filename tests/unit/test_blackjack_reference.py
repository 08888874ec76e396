"""Differential tests: every blackjack function against the brute-force ``Fraction`` references
in ``tests/support/reference/blackjack_ref.py``, on random partially-dealt shoes. Exact equality.
docs/rules.md §2, §3."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.cards import DECK
from pricing.errors import IllegalMove
from pricing.games.blackjack import (
    PairsPaytable,
    RoyalMatchPaytable,
    dealer_odds,
    dealer_odds_from_hand,
    dealer_table,
    insurance,
    side_bets,
)
from tests.support.effort import effort
from tests.support.reference import blackjack_ref as ref


def examples(n: int) -> settings:
    """Hypothesis settings for ``n`` examples in make test-exhaustive, a third of them in make
    test: no deadline (the references are slow)."""
    return settings(
        max_examples=effort(suite=max(1, n // 3), exhaustive=n),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


CARDS = [str(card) for card in DECK]


@st.composite
def shoes(draw: st.DrawFn, max_decks: int = 8, min_left: int = 0) -> tuple[int, list[str]]:
    """``(decks, exposed)``: a shoe dealt to a random point, either a random prefix of a
    shuffled shoe, or a lopsided one where each card keeps a random number of copies (rich or
    poor in a suit or a rank, where side bets turn player-favourable)."""
    decks = draw(st.integers(1, max_decks))
    if draw(st.booleans()):
        left = [c for c in CARDS for _ in range(decks)]
        order = draw(st.permutations(range(len(left))))
        exposed_count = draw(st.integers(0, len(left) - min_left))
        exposed = [left[i] for i in order[:exposed_count]]
    else:
        keep = draw(st.lists(st.integers(0, decks), min_size=52, max_size=52))
        exposed = [c for c, k in zip(CARDS, keep, strict=True) for _ in range(decks - k)]
        if 52 * decks - len(exposed) < min_left:
            exposed = exposed[: 52 * decks - min_left]
        exposed = draw(st.permutations(exposed))
    return decks, exposed


pays = st.integers(0, 200_000)


@pytest.mark.slow
@examples(60)
@given(
    shoe=shoes(),
    royal=pays,
    easy=pays,
    crown=st.none() | pays,
)
def test_royal_match_matches_reference(
    shoe: tuple[int, list[str]], royal: int, easy: int, crown: int | None
) -> None:
    decks, exposed = shoe
    table = RoyalMatchPaytable(royal_hundredths=royal, easy_hundredths=easy, crown_hundredths=crown)
    got = side_bets(exposed, decks=decks, royal_match=table)["ROYAL_MATCH"]
    if 52 * decks - len(exposed) < 4:
        assert not got.open
        return
    want = ref.royal_match(exposed, decks)
    if crown is None:  # without Crown Treasure a Crown deal is a ROYAL
        want["ROYAL"] += want.pop("CROWN")
    assert {o: v.fraction for o, v in got.outcomes.items()} == want
    assert got.rtp_fraction == ref.rtp(want, table.pays())
    assert got.player_favourable == (ref.rtp(want, table.pays()) > 1)


@pytest.mark.slow
@examples(60)
@given(shoe=shoes(min_left=2), pair=st.none() | pays, three=st.tuples(pays, pays, pays))
def test_pairs_match_reference(
    shoe: tuple[int, list[str]], pair: int | None, three: tuple[int, int, int]
) -> None:
    decks, exposed = shoe
    if pair is None:
        table = PairsPaytable(
            perfect_hundredths=three[0], coloured_hundredths=three[1], mixed_hundredths=three[2]
        )
    else:
        table = PairsPaytable(pair_hundredths=pair)
    got = side_bets(exposed, decks=decks, pairs=table)["PAIRS"]
    want = ref.pairs(exposed, decks)
    if pair is not None:
        want = {
            "PAIR": want["PERFECT"] + want["COLOURED"] + want["MIXED"],
            "LOSE": want["LOSE"],
        }
    assert {o: v.fraction for o, v in got.outcomes.items()} == want
    assert got.rtp_fraction == ref.rtp(want, table.pays())
    assert got.player_favourable == (got.rtp_fraction > 1)


@pytest.mark.slow
@examples(60)
@given(shoe=shoes(min_left=2), data=st.data())
def test_insurance_matches_reference(shoe: tuple[int, list[str]], data: st.DataObject) -> None:
    decks, exposed = shoe
    left = [c for c in CARDS if exposed.count(c) < decks]
    aces = [c for c in left if c.startswith("A")]
    if aces:  # the dealer's Ace comes out of the shoe too
        exposed = [*exposed, data.draw(st.sampled_from(aces))]
    got = insurance(exposed, decks=decks)
    want = ref.insurance(exposed, decks)
    assert got.fraction == want
    assert got.rtp_fraction == 3 * want
    assert got.take_even_money == ((1 - want) * Fraction(3, 2) < 1)


@pytest.mark.slow
@examples(50)
@given(shoe=shoes(max_decks=2, min_left=1), rule=st.sampled_from(["S17", "H17"]), data=st.data())
def test_dealer_outcomes_match_reference(
    shoe: tuple[int, list[str]], rule: str, data: st.DataObject
) -> None:
    decks, exposed = shoe
    left = [c for c in CARDS if exposed.count(c) < decks]
    up = data.draw(st.sampled_from(left))
    try:
        want = ref.dealer(up, exposed, decks, rule)
    except ValueError:  # the shoe runs out in some hand: the kernel must refuse it too
        try:
            dealer_odds(up, exposed, decks=decks, rule=rule)
        except IllegalMove:
            return
        raise AssertionError("the kernel priced a shoe that runs out") from None
    got = dealer_odds(up, exposed, decks=decks, rule=rule)
    assert got.fractions() == want
    assert got.probabilities() == {o: float(p) for o, p in want.items()}


@pytest.mark.slow
@examples(60)
@given(shoe=shoes(max_decks=2, min_left=1), rule=st.sampled_from(["S17", "H17"]), data=st.data())
def test_dealer_outcomes_from_a_partial_hand_match_reference(
    shoe: tuple[int, list[str]], rule: str, data: st.DataObject
) -> None:
    """The dealer's hand so far (two to six cards, drawn from the shoe and stopped at a
    random point or where the rule says the hand is over): the kernel's exact distribution
    equals the reference's, point masses on finished hands included."""
    decks, exposed = shoe
    left = [c for c in CARDS for _ in range(decks - exposed.count(c))]
    hand: list[str] = []
    extra = data.draw(st.integers(1, 5))  # cards after the up card (one card: test above)
    while left and len(hand) <= extra:
        if len(hand) >= 2 and not ref.dealer_must_hit([ref.kind(c)[0] for c in hand], rule):
            break
        low = [c for c in left if ref.kind(c)[0] <= 5]  # long hands: A-5 keep it drawing
        card = data.draw(st.sampled_from(low if low and data.draw(st.booleans()) else left))
        left.remove(card)
        hand.append(card)
    if not hand:
        return
    try:
        want = ref.dealer_from_hand(hand, exposed, decks, rule)
    except ValueError:  # the shoe runs out in some hand: the kernel must refuse it too
        with pytest.raises(IllegalMove):
            dealer_odds_from_hand(hand, exposed, decks=decks, rule=rule)
        return
    got = dealer_odds_from_hand(hand, exposed, decks=decks, rule=rule)
    assert got.fractions() == want
    assert got.probabilities() == {o: float(p) for o, p in want.items()}
    if len(hand) == 1:
        assert got == dealer_odds(hand[0], exposed, decks=decks, rule=rule)


@pytest.mark.slow
@examples(5)
@given(shoe=shoes(max_decks=1, min_left=20), rule=st.sampled_from(["S17", "H17"]))
def test_dealer_table_matches_reference(shoe: tuple[int, list[str]], rule: str) -> None:
    decks, exposed = shoe
    table = dealer_table(exposed, decks=decks, rule=rule)
    for up, odds in table.items():
        spare = [c for c in CARDS if c[:-1] in ({up} if up != "10" else {"10", "J", "Q", "K"})]
        spare = [c for c in spare if exposed.count(c) < decks]
        if not spare:
            assert odds is None
            continue
        try:
            want = ref.dealer(spare[0], exposed, decks, rule)
        except ValueError:
            assert odds is None
            continue
        assert odds is not None and odds.fractions() == want


@pytest.mark.parametrize(
    ("up", "decks", "rule", "dealt"),
    [("2S", 8, "H17", 0), ("AS", 8, "S17", 0), ("6D", 6, "H17", 150)],
)
def test_dealer_outcomes_on_big_shoes_match_reference(
    up: str, decks: int, rule: str, dealt: int
) -> None:
    """The largest denominators (8 decks: about 416**12, far beyond 64 bits) are exact too."""
    cards = [c for c in CARDS for _ in range(decks)]
    random.Random(dealt).shuffle(cards)
    exposed = cards[:dealt]
    if up in exposed:
        exposed.remove(up)
    odds = dealer_odds(up, exposed, decks=decks, rule=rule)
    assert odds.fractions() == ref.dealer(up, exposed, decks, rule)
