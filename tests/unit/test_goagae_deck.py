"""The Goa Gae deck of a live table (docs/rules.md §4.6): a pure fold of dealer-feed events."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidCard, InvalidInput
from pricing.games.events import CardRole, EndRound, Event, ExposeCard, NewShoe, VoidRound
from pricing.games.goagae import (
    BETS,
    GoaGaeDeck,
    GoaGaePaytable,
    Phase,
    RoundOutcome,
    quote,
)
from pricing.payout import PayRule
from pricing.tables import EndedRound, TablePhase, standard_view
from tests.support.effort import effort

PLAYER, DEALER, BURN = CardRole.PLAYER, CardRole.DEALER, CardRole.BURN


def deal(deck: GoaGaeDeck, *cards: str, role: CardRole = PLAYER) -> GoaGaeDeck:
    for text in cards:
        deck = deck.apply(ExposeCard(parse_card(text), role))
    return deck


def test_a_fresh_deck_opens_round_one_on_full_deck_prices() -> None:
    deck = GoaGaeDeck()
    assert (deck.shoe, deck.phase, deck.round_id, deck.exposed, deck.outcome) == (
        1,
        Phase.BETTING,
        1,
        (),
        None,
    )
    assert deck.betting and deck.cards_remaining == 52
    assert deck.prices == quote([])
    assert list(deck.prices) == list(BETS)


def test_a_round_closes_betting_on_its_first_card_and_settles_on_three_player_cards() -> None:
    deck = GoaGaeDeck()
    deck = deal(deck, "9S", role=BURN)
    assert deck.phase is Phase.DEALING and deck.outcome is None
    assert not any(price.open for price in deck.prices.values())
    # Closed prices still carry the live counts, for display.
    assert deck.prices["TRIPLE"].wins == quote(["9S"])["TRIPLE"].wins
    deck = deal(deck, "QD", role=DEALER)
    deck = deal(deck, "3C", "3D")
    deck = deal(deck, "2D", role=DEALER)
    deck = deal(deck, "3H", "AS")  # a fourth PLAYER card (another position) does not count
    assert [str(c) for c in deck.player_cards] == ["3C", "3D", "3H", "AS"]
    before = deck
    deck = deck.apply(EndRound())
    assert before.phase is Phase.DEALING  # the old state is untouched
    outcome = deck.outcome
    assert outcome is not None
    assert outcome.round_id == 1 and not outcome.voided and not outcome.refunded
    assert [str(c) for c in outcome.hand or ()] == ["3C", "3D", "3H"]
    assert [str(e.card) for e in outcome.cards] == ["9S", "QD", "3C", "3D", "2D", "3H", "AS"]
    assert outcome.cards[0].role is BURN
    assert outcome.result == outcome.hand  # the name Hi-Lo's outcome uses
    assert outcome.wins("TRIPLE") is True
    assert outcome.wins("NINE") is False
    assert outcome.value is not None and outcome.value.category == "TRIPLE"
    assert (deck.phase, deck.round_id, deck.cards_remaining) == (Phase.BETTING, 2, 45)
    assert deck.round_cards == () and deck.player_cards == ()
    assert deck.prices == quote(deck.exposed)
    assert (
        deck.prices["TRIPLE"].wins
        == quote(["9S", "QD", "3C", "3D", "2D", "3H", "AS"])["TRIPLE"].wins
    )


def test_a_round_short_of_three_player_cards_is_refunded() -> None:
    deck = deal(GoaGaeDeck(), "5C", "6C").apply(EndRound())
    assert deck.outcome == RoundOutcome(
        1,
        1,
        None,
        (ExposeCard(parse_card("5C"), PLAYER), ExposeCard(parse_card("6C"), PLAYER)),
    )
    assert deck.outcome.refunded and deck.outcome.wins("FLUSH") is None
    assert not deck.outcome.voided


def test_void_round_refunds_and_keeps_the_cards_out() -> None:
    deck = deal(GoaGaeDeck(), "5C", "6C", "7C").apply(VoidRound())
    assert deck.outcome is not None and deck.outcome.voided and deck.outcome.hand is None
    assert deck.outcome.wins("STRAIGHT_FLUSH") is None
    assert (deck.phase, deck.round_id, deck.cards_remaining) == (Phase.BETTING, 2, 49)
    # Voiding an open round before any card: refunds, same prices, next round id.
    again = deck.apply(VoidRound())
    assert again.outcome == RoundOutcome(2, 2, None, (), voided=True)
    assert (again.round_id, again.exposed, again.prices) == (3, deck.exposed, deck.prices)


def test_new_shoe_voids_a_round_in_progress_and_refills_the_deck() -> None:
    paytable = GoaGaePaytable(nine=PayRule(9_000, 0, 5_000))
    deck = deal(GoaGaeDeck(paytable=paytable), "5C").apply(NewShoe())
    assert deck.outcome == RoundOutcome(1, 1, None, (ExposeCard(parse_card("5C"), PLAYER),), True)
    assert (deck.shoe, deck.round_id, deck.phase, deck.exposed) == (2, 2, Phase.BETTING, ())
    assert deck.paytable is paytable
    assert deck.prices == quote([], paytable)


def test_the_deck_runs_down_to_shoe_complete() -> None:
    deck = GoaGaeDeck()
    texts = [str(card) for card in DECK]
    for start in range(0, 48, 6):  # eight rounds of six cards: 48 exposed
        deck = deal(deck, *texts[start : start + 3])
        deck = deal(deck, *texts[start + 3 : start + 6], role=DEALER)
        deck = deck.apply(EndRound())
    assert (deck.phase, deck.round_id, deck.cards_remaining) == (Phase.BETTING, 9, 4)
    assert deck.result_index == 9
    assert deck.prices["TRIPLE"].open  # KC KD KH KS left: every hand is a triple
    assert deck.prices["TRIPLE"].payout_hundredths == 0
    deck = deal(deck, "KC", "KD").apply(EndRound())  # two left: no hand can be dealt
    assert deck.phase is Phase.SHOE_COMPLETE and deck.round_id == 9
    assert deck.outcome is not None and deck.outcome.refunded
    assert not any(price.open for price in deck.prices.values())
    for event in (ExposeCard(parse_card("KH"), BURN), EndRound(), VoidRound()):
        with pytest.raises(IllegalMove):
            deck.apply(event)
    fresh = deck.apply(NewShoe())
    assert (fresh.phase, fresh.round_id, fresh.shoe, fresh.outcome) == (
        Phase.BETTING,
        10,
        2,
        None,
    )
    assert fresh.result_index == 1


def test_the_last_cards_of_a_round_can_empty_the_deck() -> None:
    deck = GoaGaeDeck()
    texts = [str(card) for card in DECK]
    deck = deal(deck, *texts[:52], role=BURN)
    assert deck.cards_remaining == 0
    with pytest.raises(CardNotInShoe):
        deal(deck, "AS")
    deck = deck.apply(EndRound())
    assert deck.phase is Phase.SHOE_COMPLETE


@pytest.mark.parametrize(
    ("deck", "event", "error", "message"),
    [
        (GoaGaeDeck(), ExposeCard(parse_card("3H"), CardRole.RESULT), InvalidInput, "RESULT"),
        (GoaGaeDeck(), ExposeCard("ZZ", PLAYER), InvalidCard, "'ZZ'"),  # type: ignore[arg-type]
        (GoaGaeDeck(), ExposeCard(parse_card("3H"), "PLAYER"), InvalidInput, "'PLAYER'"),  # type: ignore[arg-type]
        (deal(GoaGaeDeck(), "3H"), ExposeCard(parse_card("3H"), BURN), CardNotInShoe, "3H"),
        (
            deal(GoaGaeDeck(), "3H").apply(EndRound()),
            ExposeCard(parse_card("3H"), DEALER),
            CardNotInShoe,
            "already exposed",
        ),
        (GoaGaeDeck(), EndRound(), IllegalMove, "round 1 cannot end"),
        (GoaGaeDeck(), "EndRound", InvalidInput, "unknown event"),
    ],
)
def test_rejected_events_change_nothing(
    deck: GoaGaeDeck, event: Event, error: type[Exception], message: str
) -> None:
    snapshot = (deck.exposed, deck.phase, deck.round_id, deck.round_cards, deck.outcome)
    prices = deck.prices
    with pytest.raises(error, match=message):
        deck.apply(event)
    assert (deck.exposed, deck.phase, deck.round_id, deck.round_cards, deck.outcome) == snapshot
    assert deck.prices == prices


def test_accepts_card_text() -> None:
    deck = GoaGaeDeck().expose("th", PLAYER)
    assert deck.exposed == (parse_card("10H"),)


@st.composite
def event_lists(draw: st.DrawFn) -> list[Event]:
    events: list[Event] = []
    for _ in range(draw(st.integers(0, 80))):
        kind = draw(st.sampled_from(["card"] * 6 + ["end"] * 2 + ["void", "new_shoe"]))
        if kind == "card":
            role = draw(st.sampled_from([PLAYER, PLAYER, DEALER, BURN]))
            events.append(ExposeCard(draw(st.sampled_from(DECK)), role))
        elif kind == "end":
            events.append(EndRound())
        elif kind == "void":
            events.append(VoidRound())
        else:
            events.append(NewShoe())
    return events


@pytest.mark.slow
@settings(max_examples=effort(suite=80, exhaustive=800), deadline=None)
@given(events=event_lists())
def test_invariants_over_random_event_streams(events: list[Event]) -> None:
    """Whatever the feed sends: a rejected event changes nothing, round ids never go back,
    every accepted card leaves the deck, prices are a fresh quote while betting and closed
    otherwise, and every settled hand is the first three PLAYER cards of its round."""
    deck = GoaGaeDeck()
    for event in events:
        try:
            after = deck.apply(event)
        except ValueError:
            continue
        assert after.round_id >= deck.round_id
        assert len(set(after.exposed)) == len(after.exposed)
        if isinstance(event, ExposeCard):
            assert after.exposed == (*deck.exposed, event.card)
            assert after.phase is Phase.DEALING
            assert after.round_cards[-1] == event
        if after.phase is Phase.BETTING:
            assert after.prices == quote(after.exposed, after.paytable)
            assert after.cards_remaining >= 3 and after.round_cards == ()
        else:
            assert not any(price.open for price in after.prices.values())
        assert (after.phase is Phase.SHOE_COMPLETE) == (
            after.cards_remaining < 3 and after.phase is not Phase.DEALING
        )
        if isinstance(event, EndRound | VoidRound):
            outcome = after.outcome
            assert outcome is not None and outcome.round_id == deck.round_id
            assert outcome.result_index == deck.result_index
            assert outcome.cards == deck.round_cards
            players = [e.card for e in deck.round_cards if e.role is PLAYER]
            if isinstance(event, VoidRound) or len(players) < 3:
                assert outcome.hand is None
            else:
                assert outcome.hand == tuple(players[:3])
        if isinstance(event, NewShoe):
            assert after.exposed == () and after.shoe == deck.shoe + 1
            assert after.round_id == deck.round_id + 1 and after.result_index == 1
        else:
            assert after.round_id - after.result_index == deck.round_id - deck.result_index
        deck = after


def test_fits_the_tables_game_state_shape() -> None:
    """``pricing.tables.standard_view`` reads a Goa Gae deck between rounds as it reads Hi-Lo's:
    the ended round's cards are the three PLAYER cards the category bets settle on."""
    deck = deal(GoaGaeDeck(), "4C", "5H")
    deck = deal(deck, "QD", role=DEALER)
    deck = deal(deck, "KS").apply(EndRound())
    view = standard_view(deck)
    assert (view.phase, view.shoe, view.round_id, view.result_index) == (
        TablePhase.BETTING,
        1,
        2,
        2,
    )
    assert view.exposed == deck.exposed and view.cards_remaining == 48
    assert view.prices == quote(deck.exposed)
    hand = tuple(parse_card(t) for t in ("4C", "5H", "KS"))
    assert deck.outcome is not None
    assert view.ended == EndedRound(1, 1, hand, deck.outcome.cards)
    assert [e.role for e in deck.outcome.cards] == [PLAYER, PLAYER, DEALER, PLAYER]
    void = deal(deck, "2C").apply(VoidRound())
    ended = standard_view(void).ended
    assert ended is not None and (ended.round_id, ended.result, ended.void) == (2, (), True)
