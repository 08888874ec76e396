"""The Hi-Lo round lifecycle (docs/rules.md §1): opening burns, betting rounds, voids, new shoe."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput
from pricing.games.events import CardRole, EndRound, Event, ExposeCard, NewShoe, VoidRound
from pricing.games.hilo import (
    OPENING_BURNS,
    RESULTS_PER_DECK,
    HiLoDeck,
    Phase,
    RoundOutcome,
    quote,
)
from tests.support.effort import effort

BURN, RESULT = CardRole.BURN, CardRole.RESULT


def burn(deck: HiLoDeck, *texts: str) -> HiLoDeck:
    for text in texts:
        deck = deck.expose(parse_card(text), BURN)
    return deck


def result(deck: HiLoDeck, text: str) -> HiLoDeck:
    return deck.expose(parse_card(text), RESULT)


OPENING = ("2S", "3S", "4S", "5S", "6S")


def test_opening_burns_then_betting() -> None:
    deck = HiLoDeck()
    assert (deck.phase, deck.round_id, deck.result_index) == (Phase.OPENING, 0, 0)
    for i, text in enumerate(OPENING, start=1):
        deck = burn(deck, text)
        assert len(deck.exposed) == i
        assert deck.phase is (Phase.BETTING if i == OPENING_BURNS else Phase.OPENING)
    assert (deck.round_id, deck.result_index, deck.cards_remaining) == (1, 1, 47)
    assert deck.prices == quote(OPENING)


def test_bets_are_closed_while_opening_but_counts_still_move() -> None:
    deck = burn(HiLoDeck(), "7S", "7H")
    assert not any(p.open for p in deck.prices.values())
    assert deck.prices["SEVEN"].wins == 2
    assert deck.prices["LOW"].remaining == 50


def test_a_full_deck_of_ten_results() -> None:
    deck = burn(HiLoDeck(), *OPENING)
    results = ["KS", "QS", "JS", "10S", "9S", "8S", "7S", "AS", "2H", "3H"]
    round_ids = []
    for index, text in enumerate(results, start=1):
        assert deck.phase is Phase.BETTING and deck.result_index == index
        round_ids.append(deck.round_id)
        deck = result(deck, text)
        assert deck.outcome == RoundOutcome(round_ids[-1], index, parse_card(text))
    assert deck.phase is Phase.SHOE_COMPLETE
    assert len(set(round_ids)) == RESULTS_PER_DECK
    assert deck.cards_remaining == 52 - 15
    assert not any(p.open for p in deck.prices.values())


def test_a_burn_during_betting_voids_the_round_and_reopens_on_new_prices() -> None:
    deck = burn(HiLoDeck(), *OPENING)
    before = deck
    deck = burn(deck, "7D")  # exposed during betting
    assert deck.outcome == RoundOutcome(before.round_id, 1, None)
    assert deck.round_id == before.round_id + 1
    assert deck.result_index == 1 and deck.phase is Phase.BETTING
    assert deck.prices == quote([*OPENING, "7D"])
    assert deck.prices != before.prices


def test_void_round_opens_a_new_round_for_the_same_result() -> None:
    deck = result(burn(HiLoDeck(), *OPENING), "KD")
    voided = deck.void_round()
    assert voided.outcome == RoundOutcome(deck.round_id, 2, None)
    assert (voided.round_id, voided.result_index) == (deck.round_id + 1, 2)
    assert voided.exposed == deck.exposed and voided.prices == deck.prices
    assert voided.apply(VoidRound()).round_id == voided.round_id + 1


def test_new_shoe_at_any_time_voids_an_open_round() -> None:
    deck = burn(HiLoDeck(), *OPENING)
    fresh = deck.new_shoe()
    assert fresh.outcome == RoundOutcome(deck.round_id, 1, None)
    assert (fresh.shoe, fresh.phase, fresh.exposed, fresh.result_index) == (
        2,
        Phase.OPENING,
        (),
        0,
    )
    # A misdeal during the opening: nothing to void, round ids keep increasing.
    misdeal = burn(fresh, "AS").new_shoe()
    assert misdeal.outcome is None and misdeal.shoe == 3
    assert burn(misdeal, *OPENING).round_id == deck.round_id + 1


@pytest.mark.parametrize(
    ("deck", "event", "error", "message"),
    [
        (HiLoDeck(), ExposeCard(parse_card("KS"), RESULT), IllegalMove, "no round"),
        (HiLoDeck(), VoidRound(), IllegalMove, "OPENING"),
        (HiLoDeck(), EndRound(), IllegalMove, "EndRound"),
        (burn(HiLoDeck(), "KS"), ExposeCard(parse_card("KS"), BURN), CardNotInShoe, "KS"),
        (
            burn(HiLoDeck(), *OPENING),
            ExposeCard(parse_card("3S"), RESULT),
            CardNotInShoe,
            "3S",
        ),
        (
            burn(HiLoDeck(), *OPENING),
            ExposeCard(parse_card("3H"), CardRole.PLAYER),
            InvalidInput,
            "PLAYER",
        ),
    ],
)
def test_rejected_events_change_nothing(
    deck: HiLoDeck, event: Event, error: type[Exception], message: str
) -> None:
    snapshot = (deck.exposed, deck.phase, deck.round_id, deck.result_index, deck.prices)
    with pytest.raises(error, match=message):
        deck.apply(event)
    assert (deck.exposed, deck.phase, deck.round_id, deck.result_index, deck.prices) == snapshot


def test_nothing_but_a_new_shoe_after_the_tenth_result() -> None:
    deck = burn(HiLoDeck(), *OPENING)
    for text in ["KS", "QS", "JS", "10S", "9S", "8S", "7S", "AS", "2H", "3H"]:
        deck = result(deck, text)
    for event in (
        ExposeCard(parse_card("4H"), BURN),
        ExposeCard(parse_card("4H"), RESULT),
        VoidRound(),
    ):
        with pytest.raises(IllegalMove):
            deck.apply(event)
    assert deck.apply(NewShoe()).phase is Phase.OPENING


@pytest.mark.parametrize("last", [BURN, RESULT])
def test_a_deck_with_no_card_left_is_complete_whatever_its_cards_roles(last: CardRole) -> None:
    """52 cards dealt with fewer than 10 results (burns voiding round after round): the last
    card ends the round open, void for a burn or decided by a result, and no round follows."""
    cards = [str(card) for card in DECK]
    deck = burn(HiLoDeck(), *cards[:51])
    assert deck.phase is Phase.BETTING and deck.cards_remaining == 1
    open_round = deck.round_id
    deck = deck.expose(parse_card(cards[51]), last)
    assert deck.phase is Phase.SHOE_COMPLETE and deck.cards_remaining == 0
    assert deck.outcome is not None and deck.outcome.round_id == open_round
    assert deck.outcome.result == (parse_card(cards[51]) if last is RESULT else None)
    assert deck.round_id == open_round  # no new round opened
    assert all(not price.open for price in deck.prices.values())
    with pytest.raises(IllegalMove, match="phase is SHOE_COMPLETE"):
        deck.apply(VoidRound())
    assert deck.apply(NewShoe()).phase is Phase.OPENING


@st.composite
def event_lists(draw: st.DrawFn) -> list[Event]:
    events: list[Event] = []
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.sampled_from(["burn", "result", "result", "void", "new_shoe"]))
        if kind in ("burn", "result"):
            card = draw(st.sampled_from(DECK))
            events.append(ExposeCard(card, BURN if kind == "burn" else RESULT))
        elif kind == "void":
            events.append(VoidRound())
        else:
            events.append(NewShoe())
    return events


@pytest.mark.slow
@settings(max_examples=effort(suite=100, exhaustive=1_000), deadline=None)
@given(events=event_lists())
def test_invariants_over_random_event_streams(events: list[Event]) -> None:
    """Whatever the feed sends: a rejected event changes nothing, round ids never go back,
    every accepted card leaves the deck, and prices always equal a fresh quote."""
    deck = HiLoDeck()
    results_this_shoe = 0
    for event in events:
        try:
            after = deck.apply(event)
        except ValueError:
            continue
        assert after.round_id >= deck.round_id
        assert len(set(after.exposed)) == len(after.exposed)
        if isinstance(event, ExposeCard):
            assert after.exposed == (*deck.exposed, event.card)
        assert after.prices.keys() == quote(after.exposed).keys()
        if after.phase is Phase.BETTING:
            assert after.prices == quote(after.exposed)
            assert 1 <= after.result_index <= RESULTS_PER_DECK
        if isinstance(event, NewShoe):
            results_this_shoe = 0
        elif after.outcome is not None and after.outcome.result is not None:
            results_this_shoe += 1
        complete = results_this_shoe == RESULTS_PER_DECK or after.cards_remaining == 0
        assert (after.phase is Phase.SHOE_COMPLETE) == complete
        deck = after
