"""Insurance and dealer outcomes after the dealer's second and later cards (docs/rules.md §3: one
dealer card at the deal, then the dealer draws by S17 or H17)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from pricing.cards import DECK, parse_card
from pricing.errors import IllegalMove, InvalidInput
from pricing.games.blackjack import (
    DEALER_OUTCOMES,
    BlackjackShoe,
    DealerRule,
    dealer_hand_result,
    dealer_odds,
    dealer_odds_from_hand,
    dealer_outcomes_from_hand,
    insurance,
    played_dealer_hand,
)
from pricing.games.events import CardRole, ExposeCard
from tests.support.reference import blackjack_ref as ref

P, D, B = CardRole.PLAYER, CardRole.DEALER, CardRole.BURN


def deal(state: BlackjackShoe, *cards: tuple[str, CardRole]) -> BlackjackShoe:
    for text, role in cards:
        state = state.apply(ExposeCard(parse_card(text), role))
    return state


def point_mass(outcome: str) -> dict[str, Fraction]:
    return {o: Fraction(int(o == outcome)) for o in DEALER_OUTCOMES}


def test_ace_then_ten_is_blackjack_for_sure_and_ends_insurance() -> None:
    state = deal(BlackjackShoe(decks=6), ("9C", P), ("AS", D), ("KH", P), ("7D", P))
    assert state.insurance == insurance(["9C", "AS", "KH", "7D"], decks=6)  # still offered
    assert state.dealer_outcomes == dealer_odds("AS", ["9C", "KH", "7D"], decks=6)
    state = deal(state, ("KD", D))
    assert state.insurance is None and "INSURANCE" not in state.favourable
    assert state.dealer_result == "BJ"
    assert state.dealer_outcomes is not None
    assert state.dealer_outcomes.fractions() == point_mass("BJ")
    assert state.dealer_outcomes.up == "A"


def test_a_dealer_ace_then_a_non_ten_ends_insurance_too() -> None:
    state = deal(BlackjackShoe(decks=1), ("AS", D), ("2H", P), ("5C", D))
    assert state.insurance is None
    assert state.dealer_outcomes is not None
    assert state.dealer_outcomes.fractions() == ref.dealer_from_hand(["AS", "5C"], ["2H"], 1, "S17")
    assert state.dealer_outcomes.fractions()["BJ"] == 0


def test_bust_is_a_point_mass() -> None:
    state = deal(BlackjackShoe(decks=6), ("6S", D), ("10C", P), ("KH", D), ("9D", D))
    assert state.dealer_result == "BUST" and state.insurance is None
    assert state.dealer_outcomes is not None
    assert state.dealer_outcomes.fractions() == point_mass("BUST")
    assert dealer_outcomes_from_hand(["6S", "KH", "9D"], ["10C"], decks=6)["BUST"] == 1.0


def test_two_cards_in_hand_condition_the_distribution() -> None:
    seen = [("4C", P), ("6S", D), ("QC", P), ("AD", P), ("KH", D)]
    for rule in DealerRule:
        state = deal(BlackjackShoe(decks=2, rule=rule), *seen)
        want = ref.dealer_from_hand(["6S", "KH"], ["4C", "QC", "AD"], 2, rule.value)
        assert state.dealer_result is None
        assert state.dealer_outcomes is not None
        assert state.dealer_outcomes.fractions() == want
        # Hard 16 draws once: a card of value 6 or more busts; never a blackjack.
        assert want["BJ"] == 0 and want["BUST"] > Fraction(1, 2)
        # Not what the up card alone would give.
        assert state.dealer_outcomes != dealer_odds("6S", ["4C", "QC", "AD", "KH"], 2, rule)


def test_soft_17_stands_under_s17_and_draws_under_h17() -> None:
    cards = (("AS", D), ("9C", P), ("6H", D))
    s17 = deal(BlackjackShoe(decks=1, rule=DealerRule.S17), *cards)
    assert s17.dealer_result == "17"
    assert s17.dealer_outcomes is not None
    assert s17.dealer_outcomes.fractions() == point_mass("17")

    h17 = deal(BlackjackShoe(decks=1, rule=DealerRule.H17), *cards)
    assert h17.dealer_result is None
    assert h17.dealer_outcomes is not None
    want = ref.dealer_from_hand(["AS", "6H"], ["9C"], 1, "H17")
    assert h17.dealer_outcomes.fractions() == want
    assert 0 < want["17"] < 1 and want["BJ"] == 0
    # A soft 17 of three cards stands under S17 too: a 21 of three cards is not a blackjack.
    assert dealer_hand_result(["AS", "5C", "AH"], "S17") == "17"
    assert dealer_hand_result(["AS", "5C", "AH"], "H17") is None
    assert dealer_hand_result(["5S", "6C", "KH"], "H17") == "21"


def test_a_finished_hand_needs_no_card_left_in_the_shoe() -> None:
    rest = [c for c in DECK if str(c) not in {"6S", "KH", "9D"}]
    state = BlackjackShoe(decks=1)
    for card in rest:
        state = state.expose(card, B)
    state = deal(state, ("6S", D), ("KH", D))
    assert state.dealer_outcomes is not None  # hard 16 draws the one card left, 9D: bust
    assert state.dealer_outcomes.fractions() == point_mass("BUST")
    state = deal(state, ("9D", D))  # the shoe is empty, the hand is over
    assert state.cards_remaining == 0
    assert state.dealer_outcomes is not None
    assert state.dealer_outcomes.fractions() == point_mass("BUST")
    # 2 + 3 + A is 16 (soft): with only the ace out of the shoe, the hand cannot be completed.
    others = [str(c) for c in DECK if str(c) not in {"2S", "3S", "AH"}]
    with pytest.raises(IllegalMove, match="the dealer's 2 cards"):
        dealer_odds_from_hand(["2S", "3S"], others, decks=1)
    state = BlackjackShoe(decks=1)
    for card in others:
        state = state.expose(card, B)
    assert deal(state, ("2S", D), ("3S", D)).dealer_outcomes is None


def test_a_dealer_card_after_the_hand_is_over_is_a_burn() -> None:
    """Interpretation (docs/rules.md §1: an over-drawn card is a burn): it leaves the shoe but
    does not change the dealer's result."""
    state = deal(BlackjackShoe(decks=1), ("10S", D), ("8H", D), ("5D", D))
    assert [str(c) for c in state.dealer_hand] == ["10S", "8H"]
    assert state.cards_remaining == 49 and state.dealer_result == "18"
    assert state.dealer_outcomes is not None
    assert state.dealer_outcomes.fractions() == point_mass("18")
    assert played_dealer_hand(["AS", "KH", "2C"]) == (parse_card("AS"), parse_card("KH"))
    with pytest.raises(
        InvalidInput, match=re.escape("over after 2 cards (10S 8H): 5D is not part")
    ):
        dealer_odds_from_hand(["10S", "8H", "5D"], [], decks=1)
    with pytest.raises(InvalidInput, match="at least one card"):
        dealer_odds_from_hand([], [], decks=1)


def test_one_card_hand_is_the_up_card_fast_path() -> None:
    for up in ("AS", "6H", "10D"):
        for rule in DealerRule:
            got = dealer_odds_from_hand([up], ["2C", "KS"], decks=2, rule=rule)
            assert got == dealer_odds(up, ["2C", "KS"], decks=2, rule=rule)


def test_partial_hands_on_an_eight_deck_shoe_match_reference() -> None:
    """Eight decks (the kernel's common denominator is beyond 64 bits): soft and hard
    partial hands, exact."""
    for hand, rule in ((["2S", "AH"], "H17"), (["AS", "AD", "3C"], "S17"), (["4S", "3D"], "H17")):
        got = dealer_odds_from_hand(hand, ["KC", "9H"], decks=8, rule=rule)
        assert got.fractions() == ref.dealer_from_hand(hand, ["KC", "9H"], 8, rule)
