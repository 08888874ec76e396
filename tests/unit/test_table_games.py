"""Goa Gae and blackjack tables without gRPC: each adapter through ``Tables`` — open, rounds,
prices equal to the engine's, settlement WIN/LOSE/VOID/PENDING, rejected events change nothing.
docs/rules.md §3.7, §4.6, §5."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput, InvalidOption
from pricing.games import blackjack, goagae, hilo
from pricing.games.blackjack import DealerRule, ShoeMode
from pricing.games.blackjack.library import Paytable, paytable
from pricing.games.blackjack.library.royal_match import royal_match
from pricing.games.blackjack.rounds import BlackjackOptions
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.payout import PayRule
from pricing.tables import (
    CloseTable,
    FeedEvent,
    Game,
    SettleStatus,
    Table,
    TableConfig,
    TableExists,
    TablePhase,
    Tables,
    replay,
)
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto

PLAYER, DEALER, BURN = CardRole.PLAYER, CardRole.DEALER, CardRole.BURN


def expose(text: str, role: CardRole = PLAYER, seat: int = 0) -> ExposeCard:
    return ExposeCard(parse_card(text), role, seat)


def feed(table: Table, *events: FeedEvent) -> None:
    for event in events:
        table.apply(table.snapshot.last_seq + 1, event)


def exposed_text(table: Table) -> list[str]:
    return [str(c) for c in table.snapshot.view.exposed]


# ---------------------------------------------------------------------------------------------
# Goa Gae


def goagae_table(rules: goagae.GoaGaePaytable | None = None) -> Table:
    tables = Tables(keep_journal=True)
    tables.open("g", TableConfig(Game.GOA_GAE, 0, rules))
    return tables.get("g")


def test_goagae_opens_betting_on_the_engine_prices() -> None:
    table = goagae_table()
    snap = table.snapshot
    assert (snap.decks, snap.version, snap.phase, snap.view.round_id) == (
        1,
        1,
        TablePhase.BETTING,
        1,
    )
    assert snap.view.prices == goagae.quote([])
    assert snap.view.cards_remaining == 52 and not snap.view.side_bets


def test_goagae_round_closes_betting_then_settles_on_the_players_hand() -> None:
    table = goagae_table()
    feed(table, expose("9S", BURN), expose("2C"), expose("QD", DEALER), expose("2H"))
    feed(table, expose("2D"), expose("8D", DEALER), EndRound())
    v = table.snapshot.version  # round 2 open for betting
    prices = table.snapshot.view.prices
    assert prices == goagae.quote(exposed_text(table))
    feed(table, expose("5C"))
    assert table.snapshot.phase is TablePhase.DEALING
    assert not any(p.open for p in table.snapshot.view.prices.values())
    assert table.settle(2, v, "TRIPLE", 100).status is SettleStatus.PENDING
    feed(table, expose("6C"), expose("7C"), EndRound())  # a straight flush
    ended = table.snapshot.view.ended
    assert ended is not None and [str(c) for c in ended.result] == ["5C", "6C", "7C"]
    win = table.settle(2, v, "STRAIGHT_FLUSH", 1000)
    payout = prices["STRAIGHT_FLUSH"].payout_hundredths
    assert (win.status, win.payout_hundredths) == (SettleStatus.WIN, payout)
    assert win.returned_cents == 1000 + 1000 * payout // 100
    assert [str(c) for c in win.result] == ["5C", "6C", "7C"]
    lose = table.settle(2, v, "STRAIGHT", 1000)
    assert (lose.status, lose.returned_cents) == (SettleStatus.LOSE, 0)
    # Round 1 (2C 2H 2D: a triple) settled too, on its own prices.
    assert table.settle(1, 1, "TRIPLE", 100).status is SettleStatus.WIN
    assert table.settle(1, 1, "NINE", 100).status is SettleStatus.LOSE


def test_goagae_bets_are_only_valid_while_their_round_is_open() -> None:
    table = goagae_table()
    feed(table, expose("2C"))
    with pytest.raises(IllegalMove, match="no round was open for betting"):
        table.settle(1, 2, "FLUSH", 100)
    with pytest.raises(InvalidInput, match="'HIGH'"):
        table.settle(1, 1, "HIGH", 100)


def test_goagae_void_short_hand_new_shoe_and_close_refund() -> None:
    table = goagae_table()
    feed(table, expose("2C"), VoidRound())  # round 1 voided
    assert table.settle(1, 1, "FLUSH", 500).status is SettleStatus.VOID
    assert table.settle(1, 1, "FLUSH", 500).returned_cents == 500
    v2 = table.snapshot.version
    feed(table, expose("3C"), expose("4C"), EndRound())  # round 2: two PLAYER cards only
    assert table.snapshot.view.ended is not None and table.snapshot.view.ended.void
    assert table.settle(2, v2, "FLUSH", 500).status is SettleStatus.VOID
    v3 = table.snapshot.version
    feed(table, expose("5C"), NewShoe())  # round 3 voided by a new deck
    assert table.settle(3, v3, "NINE", 500).status is SettleStatus.VOID
    assert table.snapshot.view.cards_remaining == 52 and table.snapshot.view.shoe == 2
    v4 = table.snapshot.version
    feed(table, expose("6C"), CloseTable())  # round 4 dealing when the table closed
    assert table.settle(4, v4, "NINE", 500).status is SettleStatus.VOID


def test_goagae_custom_paytable_prices_through_the_engine() -> None:
    paytable = goagae.GoaGaePaytable(nine=PayRule(9000, 100, 5000))
    table = goagae_table(paytable)
    assert table.snapshot.view.prices == goagae.quote([], paytable)
    with pytest.raises(InvalidOption, match="decks 2"):
        Tables().open("x", TableConfig(Game.GOA_GAE, 2))


def test_goagae_rejected_events_change_nothing() -> None:
    table = goagae_table()
    feed(table, expose("2C"))
    before = (table.snapshot, len(table.journal))
    for event, error in [
        (expose("2C"), CardNotInShoe),
        (expose("3C", CardRole.RESULT), InvalidInput),
    ]:
        with pytest.raises(error):
            table.apply(table.snapshot.last_seq + 1, event)
        assert (table.snapshot, len(table.journal)) == before
    feed(table, EndRound())
    with pytest.raises(IllegalMove, match="VoidRound"):
        table.apply(table.snapshot.last_seq + 1, EndRound())  # no card dealt in round 2


def test_goagae_whole_deck_ends_in_shoe_complete_and_replays() -> None:
    cards = [str(c) for c in DECK]
    random.Random(4).shuffle(cards)
    table = goagae_table()
    while table.snapshot.phase is not TablePhase.SHOE_COMPLETE:
        feed(table, expose(cards.pop()), expose(cards.pop()), expose(cards.pop()), EndRound())
        assert table.snapshot.view.prices == goagae.quote(exposed_text(table)) or (
            table.snapshot.phase is TablePhase.SHOE_COMPLETE
        )
    assert table.snapshot.view.cards_remaining == 1 and table.snapshot.view.round_id == 17
    with pytest.raises(IllegalMove, match="new shoe"):
        table.apply(table.snapshot.last_seq + 1, expose(cards[0]))
    assert replay(table.journal).snapshot == table.snapshot


# ---------------------------------------------------------------------------------------------
# Blackjack


def blackjack_table(decks: int = 0, **options: object) -> Table:
    """A blackjack table, one seat unless ``seats`` says otherwise: PLAYER cards need no seat."""
    options.setdefault("seats", 1)
    tables = Tables(keep_journal=True)
    tables.open("b", TableConfig(Game.BLACKJACK, decks, BlackjackOptions(**options)))  # type: ignore[arg-type]
    return tables.get("b")


def side_bet_rows(table: Table) -> dict[str, tuple[object, ...]]:
    return {
        sb.bet: (
            tuple((o.name, o.ways, o.total, o.payout_hundredths) for o in sb.outcomes),
            sb.rtp,
            sb.player_favourable,
        )
        for sb in table.snapshot.view.side_bets
    }


def engine_rows(exposed: list[str], decks: int, **kwargs: object) -> dict[str, tuple[object, ...]]:
    odds = blackjack.side_bets(exposed, decks, **kwargs)  # type: ignore[arg-type]
    return {
        bet: (
            tuple(
                (name, o.ways, o.total, o.payout_hundredths)
                for name, o in odds[bet].outcomes.items()
                if name != "LOSE"
            ),
            odds[bet].rtp,
            odds[bet].player_favourable,
        )
        for bet in ("ROYAL_MATCH", "PAIRS")
    }


def test_blackjack_opens_with_six_decks_and_the_engine_side_bets() -> None:
    table = blackjack_table()
    snap = table.snapshot
    assert (snap.decks, snap.phase, snap.view.cards_remaining) == (6, TablePhase.BETTING, 312)
    assert side_bet_rows(table) == engine_rows([], 6)
    assert all(sb.open for sb in snap.view.side_bets)
    assert snap.view.insurance is None and snap.view.dealer_outcomes is None
    assert snap.view.prices == {}
    with pytest.raises(InvalidOption, match="decks 9"):
        blackjack_table(decks=9)


def test_blackjack_depleting_round_prices_insurance_dealer_outcomes_and_settles() -> None:
    table = blackjack_table(decks=2, rule=blackjack.DealerRule.H17)
    v = table.snapshot.version
    feed(table, expose("KH"), expose("AS", DEALER))
    view = table.snapshot.view
    assert table.snapshot.phase is TablePhase.DEALING
    assert not any(sb.open for sb in view.side_bets)
    assert side_bet_rows(table) == engine_rows(["KH", "AS"], 2)
    ins = blackjack.insurance(["KH", "AS"], decks=2)
    assert view.insurance is not None and view.insurance.offered
    assert (view.insurance.probability, view.insurance.rtp) == (ins.probability, ins.rtp)
    assert view.dealer_outcomes is not None
    assert view.dealer_outcomes.up_card == "AS" and view.dealer_outcomes.rule == "H17"
    assert dict(view.dealer_outcomes.outcomes) == blackjack.dealer_outcomes(
        "AS", ["KH"], decks=2, rule="H17"
    )
    assert table.settle(1, v, "PAIRS", 100).status is SettleStatus.PENDING
    feed(table, expose("KH"), expose("9D", DEALER), EndRound())  # a perfect pair of KH
    pair = table.settle(1, v, "PAIRS", 100)
    assert (pair.status, pair.outcome, pair.payout_hundredths, pair.returned_cents) == (
        SettleStatus.WIN,
        "PERFECT",
        2500,
        2600,
    )
    assert [str(c) for c in pair.result] == ["KH", "KH"]  # the pair bet reads no dealer card
    royal = table.settle(1, v, "ROYAL_MATCH", 100)
    assert (royal.status, royal.outcome, royal.returned_cents) == (SettleStatus.WIN, "EASY", 350)
    # Round 2 is open on the depleted shoe.
    assert table.snapshot.view.round_id == 2 and table.snapshot.phase is TablePhase.BETTING
    assert side_bet_rows(table) == engine_rows(["KH", "AS", "KH", "9D"], 2)
    assert table.snapshot.view.cards_remaining == 100


def test_blackjack_continuous_shuffle_returns_the_rounds_cards() -> None:
    table = blackjack_table(mode=blackjack.ShoeMode.CONTINUOUS)
    feed(table, expose("QS"), expose("5D", DEALER), expose("KS"))
    assert table.snapshot.view.cards_remaining == 309
    assert side_bet_rows(table) == engine_rows([], 6)  # odds of the next round: a full shoe
    v = table.snapshot.version
    feed(table, EndRound())
    assert table.snapshot.view.cards_remaining == 312 and table.snapshot.view.exposed == ()
    assert table.settle(1, 1, "ROYAL_MATCH", 100).outcome == "ROYAL"
    assert table.settle(1, 1, "PAIRS", 100).status is SettleStatus.LOSE
    with pytest.raises(IllegalMove, match="no round was open"):
        table.settle(1, v, "PAIRS", 100)


def test_blackjack_crown_void_short_round_and_new_shoe() -> None:
    table = blackjack_table(decks=1)
    feed(table, expose("KD"), expose("KS", DEALER), expose("QD"), expose("QS", DEALER), EndRound())
    assert table.settle(1, 1, "ROYAL_MATCH", 200).outcome == "CROWN"
    assert table.settle(1, 1, "ROYAL_MATCH", 200).returned_cents == 200 + 200 * 1000
    v2 = table.snapshot.version
    feed(table, expose("2C"), VoidRound())
    assert table.settle(2, v2, "PAIRS", 200).status is SettleStatus.VOID
    v3 = table.snapshot.version
    feed(table, expose("3C"), EndRound())  # one PLAYER card: refunded
    assert table.settle(3, v3, "ROYAL_MATCH", 200).status is SettleStatus.VOID
    v4 = table.snapshot.version
    feed(table, NewShoe())  # nothing of round 4 dealt: it stays open on the new shoe
    assert table.snapshot.view.round_id == 4 and table.snapshot.view.cards_remaining == 52
    feed(table, expose("7H"), expose("7D"), NewShoe())  # mid-round: void
    assert table.settle(4, v4, "PAIRS", 200).status is SettleStatus.VOID
    with pytest.raises(InvalidInput, match="'HIGH'"):
        table.settle(5, table.snapshot.version, "HIGH", 100)


def test_blackjack_rejected_events_change_nothing() -> None:
    table = blackjack_table(decks=1)
    feed(table, expose("AS"))
    before = (table.snapshot, len(table.journal))
    for event, error in [
        (expose("AS"), CardNotInShoe),
        (expose("2S", CardRole.RESULT), InvalidInput),
    ]:
        with pytest.raises(error):
            table.apply(table.snapshot.last_seq + 1, event)
        assert (table.snapshot, len(table.journal)) == before


_CARD = st.sampled_from([str(c) for c in DECK])
_EVENT = st.one_of(
    st.builds(
        expose,
        _CARD,
        st.sampled_from([PLAYER, DEALER, BURN, CardRole.RESULT]),
        st.sampled_from([0, 0, 1, 2, 3]),  # blackjack has 2 seats here: 3 is refused
    ),
    st.just(VoidRound()),
    st.just(NewShoe()),
    st.just(EndRound()),
)


@pytest.mark.parametrize("game", [Game.GOA_GAE, Game.BLACKJACK])
@settings(max_examples=25, deadline=None)
@given(events=st.lists(_EVENT, max_size=40))
def test_tables_of_both_games_are_pure_folds(game: Game, events: list[FeedEvent]) -> None:
    config = TableConfig(game, 1, BlackjackOptions(seats=2) if game is Game.BLACKJACK else None)
    table = Table("t", config, keep_journal=True)
    for event in events:
        before = (table.snapshot, len(table.journal))
        try:
            table.apply(table.snapshot.last_seq + 1, event)
        except ValueError:
            assert (table.snapshot, len(table.journal)) == before
    assert replay(table.journal).snapshot == table.snapshot


ROYAL_MATCH, PAIRS = paytable("ROYAL_MATCH"), paytable("PAIRS")


def options(*side_bets: Paytable) -> BlackjackOptions:
    return BlackjackOptions(side_bets=side_bets)


def test_a_reopen_with_another_config_names_what_differs_as_the_request_does() -> None:
    tables = Tables(keep_journal=True)
    tables.open("b", TableConfig(Game.BLACKJACK))
    prefix = "table 'b' already exists with another configuration: "
    cases = [
        (
            TableConfig(Game.BLACKJACK, 6, BlackjackOptions(rule=DealerRule.H17)),
            "it has blackjack.dealer_rule DEALER_RULE_S17; this request asks for "
            "blackjack.dealer_rule DEALER_RULE_H17",
        ),
        (TableConfig(Game.BLACKJACK, 8), "it has decks 6; this request asks for decks 8"),
        (
            TableConfig(Game.BLACKJACK, 0, options(paytable("ROYAL_MATCH", "standard"), PAIRS)),
            "it has blackjack.side_bets[ROYAL_MATCH] crown-treasure {CROWN: 100000 ROYAL: 2500 "
            "EASY: 250}; this request asks for blackjack.side_bets[ROYAL_MATCH] standard "
            "{ROYAL: 2500 EASY: 250}",
        ),
        (
            TableConfig(Game.BLACKJACK, 0, options(ROYAL_MATCH, paytable("PAIRS", "any-pair"))),
            "it has blackjack.side_bets[PAIRS] perfect-pairs {PERFECT: 2500 COLOURED: 1200 "
            "MIXED: 600}; this request asks for blackjack.side_bets[PAIRS] any-pair {PAIR: 1100}",
        ),
        (
            TableConfig(Game.BLACKJACK, 0, options(ROYAL_MATCH)),
            "it has blackjack.side_bets[PAIRS] perfect-pairs {PERFECT: 2500 COLOURED: 1200 "
            "MIXED: 600}; this request asks for blackjack.side_bets[PAIRS] (not set)",
        ),
        (
            TableConfig(Game.HILO),
            "it has game GAME_BLACKJACK; this request asks for game GAME_HILO",
        ),
    ]
    for config, difference in cases:
        with pytest.raises(TableExists) as info:
            tables.open("b", config)
        assert str(info.value) == prefix + difference
    tables.open("h", TableConfig(Game.HILO))
    seven = hilo.HiLoPaytable(seven=PayRule(9000, 100, 5000))
    with pytest.raises(TableExists) as info:
        tables.open("h", TableConfig(Game.HILO, 1, seven))
    assert str(info.value).endswith(
        "it has hilo.seven {rtp_bp: 8350 min_hundredths: 693 max_hundredths: 3824}; this "
        "request asks for hilo.seven {rtp_bp: 9000 min_hundredths: 100 max_hundredths: 5000}"
    )
    tables.open("g", TableConfig(Game.GOA_GAE))
    nine = goagae.GoaGaePaytable(nine=PayRule(9000, 100, 5000))
    with pytest.raises(TableExists, match=r"it has goa_gae\.bets\[NINE\] \{rtp_bp: 9600 "):
        tables.open("g", TableConfig(Game.GOA_GAE, 1, nine))


def test_reopening_is_idempotent_for_the_same_options_once_defaults_are_filled_in() -> None:
    tables = Tables(keep_journal=True)
    first = tables.open("b", TableConfig(Game.BLACKJACK))
    assert tables.open("b", TableConfig(Game.BLACKJACK, 6, BlackjackOptions())) is first
    with pytest.raises(TableExists, match="already exists"):
        tables.open("b", TableConfig(Game.BLACKJACK, 6, BlackjackOptions(rule=DealerRule.H17)))
    with pytest.raises(TableExists):
        tables.open("b", TableConfig(Game.BLACKJACK, 8))
    goa = tables.open("g", TableConfig(Game.GOA_GAE))
    assert tables.open("g", TableConfig(Game.GOA_GAE, 1, goagae.DEFAULT_PAYTABLE)) is goa


def test_rules_messages_become_the_engines_objects() -> None:
    def blackjack_options(rules: pb.BlackjackRules) -> object:
        request = pb.OpenTableRequest(table_id="x", game=pb.GAME_BLACKJACK, blackjack=rules)
        return config_from_proto(request.game, 0, request).rules

    assert blackjack_options(pb.BlackjackRules()) == BlackjackOptions()
    options = blackjack_options(
        pb.BlackjackRules(
            dealer_rule=pb.DEALER_RULE_H17,
            shuffle_mode=pb.SHUFFLE_MODE_CONTINUOUS,
            royal_match=pb.RoyalMatchPaytable(crown_enabled=True, easy_hundredths=300),
            pairs=pb.PairsPaytable(payout_hundredths={"perfect": 3000}),
        )
    )
    assert options == BlackjackOptions(
        DealerRule.H17,
        ShoeMode.CONTINUOUS,
        (
            paytable("ROYAL_MATCH", "crown-treasure", {"EASY": 300}),
            paytable("PAIRS", "perfect-pairs", {"PERFECT": 3000}),
        ),
    )
    no_crown = blackjack_options(
        pb.BlackjackRules(royal_match=pb.RoyalMatchPaytable(crown_enabled=False))
    )
    assert isinstance(no_crown, BlackjackOptions)
    assert no_crown.paytable("ROYAL_MATCH") == paytable("ROYAL_MATCH", "standard")
    # Each field left out keeps its default: an empty message, or one pay alone, leaves the
    # Crown on; a pay sent as 0 is 0, not "the default".
    for message, want in [
        (pb.RoyalMatchPaytable(), blackjack.DEFAULT_ROYAL_MATCH),
        (pb.RoyalMatchPaytable(royal_hundredths=2000), blackjack.RoyalMatchPaytable(2000)),
        (pb.RoyalMatchPaytable(easy_hundredths=0), blackjack.RoyalMatchPaytable(2500, 0)),
        (
            pb.RoyalMatchPaytable(crown_hundredths=50_000),
            blackjack.RoyalMatchPaytable(2500, 250, 50_000),
        ),
    ]:
        options = blackjack_options(pb.BlackjackRules(royal_match=message))
        assert isinstance(options, BlackjackOptions)
        assert royal_match(options.paytable("ROYAL_MATCH")) == want, message  # type: ignore[arg-type]
    any_pair = blackjack_options(
        pb.BlackjackRules(
            pairs=pb.PairsPaytable(preset=pb.PAIRS_PRESET_ANY_PAIR, payout_hundredths={"PAIR": 900})
        )
    )
    assert isinstance(any_pair, BlackjackOptions)
    assert any_pair.paytable("PAIRS") == paytable("PAIRS", "any-pair", {"PAIR": 900})

    request = pb.QuoteRequest(
        game=pb.GAME_GOA_GAE, goa_gae=pb.GoaGaeRules(bets={"nine": pb.PayRule(rtp_bp=9000)})
    )
    rules = config_from_proto(request.game, 0, request).rules
    assert rules == goagae.GoaGaePaytable(nine=PayRule(9000, 0, 0))
