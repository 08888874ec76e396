"""The blackjack shoe as a state machine: depleting vs continuous shuffle (docs/rules.md §2)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, Card, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput, InvalidOption
from pricing.games.blackjack import (
    BlackjackShoe,
    DealerRule,
    ShoeMode,
    dealer_odds,
    dealer_odds_from_hand,
    dealer_table,
    insurance,
    side_bets,
)
from pricing.games.blackjack.library import paytable
from pricing.games.events import CardRole, EndRound, Event, ExposeCard, NewShoe, VoidRound
from tests.support.reference import blackjack_ref as ref

P, D, B = CardRole.PLAYER, CardRole.DEALER, CardRole.BURN


def deal(state: BlackjackShoe, *cards: tuple[str, CardRole]) -> BlackjackShoe:
    for text, role in cards:
        state = state.apply(ExposeCard(parse_card(text), role))
    return state


ROUND = (("9C", P), ("AS", D), ("KH", P), ("QH", P))


def test_a_fresh_shoe() -> None:
    state = BlackjackShoe()
    assert (state.decks, state.rule, state.mode) == (6, DealerRule.S17, ShoeMode.DEPLETING)
    assert (state.shoe, state.round_id, state.exposed, state.round_exposed) == (1, 1, (), ())
    assert state.cards_remaining == 312
    assert state.dealer_up is None and state.insurance is None and state.dealer_outcomes is None
    assert state.side_bets == side_bets([], decks=6)
    assert state.favourable == ()


def test_depleting_shoe_keeps_cards_out_across_rounds() -> None:
    state = deal(BlackjackShoe(decks=2), ("5D", B), *ROUND)
    assert state.dealer_up == parse_card("AS")
    cards = ["5D", "9C", "AS", "KH", "QH"]
    assert [str(c) for c in state.exposed] == cards
    assert state.round_exposed[1] == ExposeCard(parse_card("9C"), P)
    assert state.side_bets == side_bets(cards, decks=2)
    assert state.insurance == insurance(cards, decks=2)
    others = [c for c in cards if c != "AS"]
    assert state.dealer_outcomes == dealer_odds("AS", others, decks=2, rule="S17")

    after = state.apply(EndRound())
    assert after.round_id == 2 and after.round_exposed == ()
    assert after.exposed == state.exposed and after.cards_remaining == 104 - 5
    assert after.side_bets == state.side_bets
    assert after.dealer_up is None and after.insurance is None and after.dealer_outcomes is None


def test_continuous_shuffle_returns_the_round_at_its_end() -> None:
    fresh = BlackjackShoe(decks=6, mode=ShoeMode.CONTINUOUS)
    state = deal(fresh, *ROUND)
    cards = ["9C", "AS", "KH", "QH"]
    # This round's dealer sees the depleted shoe ...
    assert [str(c) for c in state.exposed] == cards and state.cards_remaining == 308
    assert state.insurance == insurance(cards, decks=6)
    assert state.dealer_outcomes == dealer_odds("AS", ["9C", "KH", "QH"], decks=6)
    # ... but the next round is dealt from a full shoe.
    assert state.side_bets == side_bets([], decks=6)
    after = state.apply(EndRound())
    assert after.exposed == () and after.cards_remaining == 312 and after.round_id == 2
    assert after.side_bets == fresh.side_bets


def test_modes_differ_only_after_the_round() -> None:
    depleting = deal(BlackjackShoe(decks=1), *ROUND)
    continuous = deal(BlackjackShoe(decks=1, mode="CONTINUOUS"), *ROUND)  # type: ignore[arg-type]
    assert depleting.insurance == continuous.insurance
    assert depleting.dealer_outcomes == continuous.dealer_outcomes
    assert depleting.side_bets != continuous.side_bets


def test_up_card_is_the_first_dealer_card_of_the_round() -> None:
    state = deal(BlackjackShoe(decks=1), ("6H", D), ("AS", D))
    assert state.dealer_up == parse_card("6H")
    assert state.insurance is None
    # 6 then A is soft 17: the S17 dealer stands, whatever is left of the shoe.
    assert state.dealer_outcomes is not None
    assert state.dealer_outcomes.fractions()["17"] == 1
    burn_first = deal(BlackjackShoe(decks=1), ("AC", B), ("AD", P), ("7S", D))
    assert burn_first.dealer_up == parse_card("7S") and burn_first.insurance is None


def test_rule_and_paytables_flow_into_the_views() -> None:
    any_pair = (paytable("PAIRS", "any-pair"),)
    state = deal(BlackjackShoe(decks=8, rule=DealerRule.H17, side_bets_offered=any_pair), ("AS", D))
    assert state.dealer_outcomes == dealer_odds("AS", [], decks=8, rule="H17")
    assert list(state.side_bets["PAIRS"].outcomes) == ["PAIR", "LOSE"]


def test_new_shoe_resets_and_voids_a_round_in_progress() -> None:
    state = deal(BlackjackShoe(decks=1), *ROUND).apply(EndRound())
    between = state.apply(NewShoe())
    assert (between.shoe, between.round_id, between.exposed) == (2, 2, ())
    mid = deal(state, ("2C", P)).apply(NewShoe())
    assert (mid.shoe, mid.round_id, mid.exposed, mid.round_exposed) == (2, 3, (), ())


def test_void_round_is_a_round_boundary() -> None:
    state = deal(BlackjackShoe(decks=1, mode=ShoeMode.CONTINUOUS), *ROUND)
    assert state.apply(VoidRound()) == state.apply(EndRound())


def test_player_favourable_alerts() -> None:
    # A one-deck shoe left with spades only: every two-card hand is suited.
    others = [c for c in DECK if c.suit.symbol != "S"]
    state = BlackjackShoe(decks=1)
    for card in others:
        state = state.expose(card, B)
    assert state.side_bets["ROYAL_MATCH"].player_favourable
    assert state.favourable == ("ROYAL_MATCH",)
    # Tens rich against a dealer Ace: insurance is worth taking.
    state = BlackjackShoe(decks=1)
    for card in DECK:
        if 2 <= card.rank <= 9:
            state = state.expose(card, B)
    state = state.expose(parse_card("AS"), D)
    assert state.insurance is not None and state.insurance.player_favourable
    assert "INSURANCE" in state.favourable


def test_bad_events_raise_and_change_nothing() -> None:
    state = deal(BlackjackShoe(decks=1), *ROUND)
    snapshot = (state.exposed, state.round_exposed, state.round_id, state.shoe)
    with pytest.raises(CardNotInShoe, match="card AS is not in the shoe"):
        state.apply(ExposeCard(parse_card("AS"), P))
    with pytest.raises(InvalidInput, match="RESULT"):
        state.apply(ExposeCard(parse_card("2S"), CardRole.RESULT))
    with pytest.raises(InvalidInput, match="unknown event"):
        state.apply("EndRound")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'ZZ'"):
        state.apply(ExposeCard("ZZ", P))  # type: ignore[arg-type]
    assert (state.exposed, state.round_exposed, state.round_id, state.shoe) == snapshot


@pytest.mark.parametrize(
    ("option", "value"),
    [("decks", 0), ("decks", 9), ("rule", "S18"), ("mode", "SHUFFLED")],
)
def test_bad_configuration(option: str, value: object) -> None:
    with pytest.raises(InvalidOption, match=repr(value)):
        BlackjackShoe(**{option: value})  # type: ignore[arg-type]


def test_next_dealer_table_follows_rule_and_mode() -> None:
    state = deal(BlackjackShoe(decks=2, rule=DealerRule.H17), *ROUND)
    assert state.next_dealer_table == dealer_table(state.exposed, decks=2, rule="H17")
    continuous = deal(BlackjackShoe(decks=2, mode=ShoeMode.CONTINUOUS), *ROUND)
    assert continuous.next_dealer_table == dealer_table([], decks=2)


def test_a_state_built_with_impossible_cards_is_refused() -> None:
    with pytest.raises(CardNotInShoe, match="AS"):
        BlackjackShoe(decks=6, exposed=(parse_card("AS"),) * 7)


def test_seventh_ace_of_spades_in_a_six_deck_shoe() -> None:
    state = BlackjackShoe(decks=6)
    for _ in range(6):
        state = state.expose(parse_card("AS"), P)
    with pytest.raises(CardNotInShoe, match="all 6 of the 6-deck shoe"):
        state.expose(parse_card("AS"), P)
    assert state.cards_remaining == 306


# --- the fold against a plain model --------------------------------------------------------------


def assert_dealer_views(state: BlackjackShoe, out: list[Card], dealer: list[Card]) -> None:
    """The dealer views of ``state`` (S17) for the cards ``out`` of the shoe, ``dealer`` being
    the round's DEALER cards in order."""
    assert state.dealer_up == (dealer[0] if dealer else None)
    if dealer:
        # The dealer's hand: its cards up to the one after which the S17 dealer stops.
        hand = [dealer[0]]
        for card in dealer[1:]:
            if not ref.dealer_must_hit([int(c.rank) for c in hand], "S17"):
                break
            hand.append(card)
        others = list(out)
        for card in hand:
            others.remove(card)
        try:
            want = dealer_odds_from_hand(hand, others, decks=state.decks)
        except IllegalMove:
            want = None
        assert state.dealer_outcomes == want
    if len(dealer) == 1 and dealer[0].rank == 1 and state.cards_remaining:
        assert state.insurance == insurance(out, decks=state.decks)
    else:
        assert state.insurance is None


events = st.one_of(
    st.builds(
        ExposeCard,
        st.sampled_from(DECK),
        st.sampled_from([P, D, B, CardRole.RESULT]),
    ),
    st.just(EndRound()),
    st.just(VoidRound()),
    st.just(NewShoe()),
)


@settings(max_examples=60, deadline=None)
@given(
    decks=st.integers(1, 2),
    mode=st.sampled_from(list(ShoeMode)),
    feed=st.lists(events, max_size=60),
)
def test_fold_matches_a_plain_model(decks: int, mode: ShoeMode, feed: list[Event]) -> None:
    state = BlackjackShoe(decks=decks, mode=mode)
    out: list[Card] = []  # cards out of the shoe
    this_round: list[Card] = []
    dealer: list[Card] = []  # the round's DEALER cards
    round_id, shoe = 1, 1
    for event in feed:
        before = state
        if isinstance(event, ExposeCard):
            bad = event.role is CardRole.RESULT or Counter(out)[event.card] >= decks
            if bad:
                with pytest.raises(ValueError):
                    state.apply(event)
                assert state == before
                continue
            out.append(event.card)
            this_round.append(event.card)
            if event.role is CardRole.DEALER:
                dealer.append(event.card)
        elif isinstance(event, EndRound | VoidRound):
            round_id += 1
            if mode is ShoeMode.CONTINUOUS:
                for card in this_round:
                    out.remove(card)
            this_round, dealer = [], []
        else:
            shoe += 1
            round_id += 1 if this_round else 0
            out, this_round, dealer = [], [], []
        state = state.apply(event)
        assert list(state.exposed) == out
        assert [e.card for e in state.round_exposed] == this_round
        assert (state.round_id, state.shoe) == (round_id, shoe)
        assert state.cards_remaining == 52 * decks - len(out)
        assert state.counts == tuple(decks - out.count(card) for card in DECK)
    assert_dealer_views(state, out, dealer)
    if mode is ShoeMode.CONTINUOUS:
        assert out == this_round  # only the current round is ever out of a continuous shoe
        assert state.side_bets == side_bets([], decks=decks)
    else:
        assert state.side_bets == side_bets(out, decks=decks)
