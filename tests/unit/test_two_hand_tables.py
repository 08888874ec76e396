"""Baccarat and Dragon Tiger tables without gRPC (docs/rules.md §7, §8): the round flow of
``TwoHandShoe`` through ``Tables`` — betting, the first card closing it, the tableau refusing
a card it does not call for with nothing changed, the round decided by its last card, burns,
voids, a new shoe, the cut of 6 cards, a continuous shuffler; every bet priced as the engine
prices it, for the next round and in round; game protection; settlement of wins, pushes and
half losses at the version a bet was accepted on."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, Shoe, parse_card, parse_cards
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput, InvalidOption
from pricing.games.baccarat import Commission
from pricing.games.baccarat import odds as baccarat_odds
from pricing.games.baccarat import paytable as baccarat_paytable
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.blackjack import ShoeMode
from pricing.games.dragon_tiger import bets as dragon_tiger
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.games.fixed_odds import SideBetOdds
from pricing.tables import (
    CloseTable,
    FeedEvent,
    Game,
    SettleStatus,
    Table,
    TableConfig,
    TablePhase,
    Tables,
    replay,
)

PLAYER, BANKER, BURN = CardRole.PLAYER, CardRole.BANKER, CardRole.BURN
DRAGON, TIGER = CardRole.DRAGON, CardRole.TIGER


def card(text: str, role: CardRole) -> ExposeCard:
    return ExposeCard(parse_card(text), role)


def feed(table: Table, *events: FeedEvent) -> None:
    for event in events:
        table.apply(table.snapshot.last_seq + 1, event)


def baccarat_table(rules: BaccaratRules | None = None, decks: int = 0) -> Table:
    tables = Tables(keep_journal=True)
    tables.open("b", TableConfig(Game.BACCARAT, decks, rules))
    return tables.get("b")


def dragon_tiger_table(rules: DragonTigerRules | None = None, decks: int = 0) -> Table:
    tables = Tables(keep_journal=True)
    tables.open("d", TableConfig(Game.DRAGON_TIGER, decks, rules))
    return tables.get("d")


def counts_without(decks: int, *texts: str) -> list[int]:
    counts = list(Shoe(decks).counts())
    for c in parse_cards(list(texts)):
        counts[c.index] -= 1
    return counts


def bets_of(views: tuple[object, ...]) -> list[str]:
    return [v.bet for v in views]  # type: ignore[attr-defined]


SIDE = (baccarat_paytable("PLAYER_PAIR"), baccarat_paytable("DRAGON_7"))


# ---------------------------------------------------------------------------------------------
# Baccarat: the round


def test_a_baccarat_table_opens_betting_on_eight_decks_with_the_main_bets_first() -> None:
    table = baccarat_table(BaccaratRules(side_bets=SIDE))
    snap = table.snapshot
    assert (snap.decks, snap.phase, snap.view.round_id, snap.view.cards_remaining) == (
        8,
        TablePhase.BETTING,
        1,
        416,
    )
    assert bets_of(snap.view.side_bets) == ["PLAYER", "BANKER", "TIE", "PLAYER_PAIR", "DRAGON_7"]
    # the main bets are marked: game protection and the favourable-rounds counter leave them out
    assert [sb.main for sb in snap.view.side_bets] == [True, True, True, False, False]
    assert all(sb.open for sb in snap.view.side_bets)
    assert not snap.view.round_odds and not snap.view.hands and not snap.view.prices
    want = baccarat_odds(Shoe(8).counts(), [], [], BaccaratRules(side_bets=SIDE).paytables)
    assert {sb.bet: sb.rtp_exact for sb in snap.view.side_bets} == {
        bet: o.rtp_fraction for bet, o in want.items()
    }


def test_a_round_is_dealt_by_the_tableau_priced_after_each_card_and_decided_by_its_last() -> None:
    rules = BaccaratRules(side_bets=SIDE)
    table = baccarat_table(rules)
    # Player 2 3 (5) draws a 7 (2); Banker K 6 (6) draws on a Player 7; 9: Banker 5 wins.
    deal = [("2S", PLAYER), ("KC", BANKER), ("3H", PLAYER), ("6D", BANKER), ("7C", PLAYER)]
    dealt: dict[CardRole, list[str]] = {PLAYER: [], BANKER: []}
    for text, role in deal:
        feed(table, card(text, role))
        dealt[role].append(text)
        view = table.snapshot.view
        assert table.snapshot.phase is TablePhase.DEALING
        assert not any(sb.open for sb in view.side_bets)
        assert [(h.hand, [str(c) for c in h.cards]) for h in view.hands] == [
            ("PLAYER", dealt[PLAYER]),
            ("BANKER", dealt[BANKER]),
        ]
        want = baccarat_odds(
            counts_without(8, *dealt[PLAYER], *dealt[BANKER]),
            parse_cards(dealt[PLAYER]),
            parse_cards(dealt[BANKER]),
            rules.paytables,
        )
        assert {sb.bet: sb.rtp_exact for sb in view.round_odds} == {
            bet: o.rtp_fraction for bet, o in want.items()
        }
        assert not any(sb.open for sb in view.round_odds)
    feed(table, card("9H", BANKER))
    view = table.snapshot.view
    assert table.snapshot.phase is TablePhase.BETTING and view.round_id == 2
    assert not view.round_odds and not view.hands
    assert view.ended is not None and view.ended.round_id == 1
    assert [(h.hand, [str(c) for c in h.cards]) for h in view.ended.hands] == [
        ("PLAYER", ["2S", "3H", "7C"]),
        ("BANKER", ["KC", "6D", "9H"]),
    ]
    assert table.settle(1, 1, "BANKER", 1000).returned_cents == 1950  # 0.95 : 1
    assert table.settle(1, 1, "PLAYER", 1000).status is SettleStatus.LOSE
    assert table.settle(1, 1, "DRAGON_7", 1000).status is SettleStatus.LOSE


@pytest.mark.parametrize(
    ("dealt", "role", "rule"),
    [
        # the first four cards: each hand needs two, in any order, but no hand a third yet
        (["2S:P", "3H:P"], PLAYER, "two cards"),
        (["2S:B", "3H:B"], BANKER, "two cards"),
        # a natural: both hands stand (the round would be complete: the Banker's card is due)
        (["9S:P", "KC:B", "KD:P"], PLAYER, "two cards"),
        # the Player draws before the Banker
        (["2S:P", "3C:B", "KD:P", "KC:B"], BANKER, "[Pp]layer"),
    ],
)
def test_a_card_the_tableau_does_not_call_for_is_refused_and_changes_nothing(
    dealt: list[str], role: CardRole, rule: str
) -> None:
    table = baccarat_table()
    for spec in dealt:
        text, hand = spec.split(":")
        feed(table, card(text, PLAYER if hand == "P" else BANKER))
    assert table.snapshot.phase is TablePhase.DEALING
    before = (table.snapshot, len(table.journal))
    with pytest.raises(IllegalMove, match=rule):
        feed(table, card("5D", role))
    assert (table.snapshot, len(table.journal)) == before


def test_roles_and_events_the_game_does_not_have_are_refused_and_change_nothing() -> None:
    table = baccarat_table()
    before = (table.snapshot, len(table.journal))
    for event, error, message in [
        (card("2S", CardRole.DEALER), InvalidInput, "CARD_ROLE_DEALER is not used in baccarat"),
        (card("2S", DRAGON), InvalidInput, "CARD_ROLE_PLAYER, CARD_ROLE_BANKER"),
        (ExposeCard(parse_card("2S"), PLAYER, 1), InvalidInput, "no seats"),
        (EndRound(), IllegalMove, "no EndRound"),
    ]:
        with pytest.raises(error, match=message):
            feed(table, event)
        assert (table.snapshot, len(table.journal)) == before


def test_burns_voids_and_a_new_shoe() -> None:
    table = baccarat_table(decks=1)
    feed(table, card("AS", BURN))  # betting: a burn voids nothing
    assert table.snapshot.phase is TablePhase.BETTING and table.snapshot.view.round_id == 1
    assert table.snapshot.view.cards_remaining == 51
    v = table.snapshot.version
    feed(table, card("2S", PLAYER), card("3S", BURN))  # dealing: a card exposed by mistake
    view = table.snapshot.view
    assert [str(c) for c in view.hands[0].cards] == ["2S"] and not view.hands[1].cards
    assert view.cards_remaining == 49 and table.snapshot.phase is TablePhase.DEALING
    feed(table, VoidRound())
    assert table.settle(1, v, "PLAYER", 500).status is SettleStatus.VOID
    assert table.settle(1, v, "PLAYER", 500).returned_cents == 500
    view = table.snapshot.view
    assert view.round_id == 2 and view.cards_remaining == 49  # the void round's cards stay out
    with pytest.raises(CardNotInShoe):
        feed(table, card("2S", PLAYER))
    v = table.snapshot.version
    feed(table, card("4S", PLAYER), NewShoe())
    assert table.settle(2, v, "TIE", 500).status is SettleStatus.VOID
    assert table.snapshot.view.cards_remaining == 52 and table.snapshot.view.shoe == 2


def test_a_round_needs_six_cards_and_a_short_shoe_is_complete() -> None:
    table = baccarat_table(decks=1)
    for text in [str(c) for c in DECK][:46]:
        feed(table, card(text, BURN))
    assert table.snapshot.view.cards_remaining == 6 and table.snapshot.phase is TablePhase.BETTING
    assert all(sb.open for sb in table.snapshot.view.side_bets)
    feed(table, card(str(DECK[46]), BURN))
    assert table.snapshot.phase is TablePhase.SHOE_COMPLETE
    assert not any(sb.open for sb in table.snapshot.view.side_bets)
    before = (table.snapshot, len(table.journal))
    with pytest.raises(IllegalMove, match="new shoe"):
        feed(table, card(str(DECK[47]), PLAYER))
    assert (table.snapshot, len(table.journal)) == before


def test_a_continuous_shuffler_takes_each_rounds_cards_back() -> None:
    table = baccarat_table(BaccaratRules(mode=ShoeMode.CONTINUOUS))
    feed(table, card("AS", BURN), card("9S", PLAYER), card("KC", BANKER), card("KD", PLAYER))
    assert table.snapshot.view.cards_remaining == 412
    feed(table, card("2C", BANKER))  # a natural 9: decided
    assert table.snapshot.view.cards_remaining == 416
    assert {sb.bet: sb.rtp_exact for sb in table.snapshot.view.side_bets} == {
        sb.bet: sb.rtp_exact for sb in baccarat_table(BaccaratRules()).snapshot.view.side_bets
    }


def test_a_continuous_shufflers_burns_while_betting_are_out_of_the_coming_round() -> None:
    rules = BaccaratRules(side_bets=(baccarat_paytable("PLAYER_PAIR"),), mode=ShoeMode.CONTINUOUS)
    table = baccarat_table(rules, decks=1)
    feed(table, card("AS", BURN), card("AH", BURN), card("AD", BURN))
    want = baccarat_odds(counts_without(1, "AS", "AH", "AD"), [], [], rules.paytables)
    assert {sb.bet: sb.rtp_exact for sb in table.snapshot.view.side_bets} == {
        bet: o.rtp_fraction for bet, o in want.items()
    }
    feed(table, card("2S", PLAYER))  # dealing: the next round is dealt from the full shoe
    full = baccarat_odds(counts_without(1), [], [], rules.paytables)
    assert {sb.bet: sb.rtp_exact for sb in table.snapshot.view.side_bets} == {
        bet: o.rtp_fraction for bet, o in full.items()
    }


# ---------------------------------------------------------------------------------------------
# Money: pushes and half losses, by the one rule


@pytest.mark.parametrize(
    ("commission", "deal", "bet", "status", "returned"),
    [
        # a natural tie: TIE wins 8:1, PLAYER and BANKER push
        (Commission.STANDARD, ["9S", "9C", "KD", "KH"], "TIE", SettleStatus.WIN, 900),
        (Commission.STANDARD, ["9S", "9C", "KD", "KH"], "PLAYER", SettleStatus.PUSH, 100),
        (Commission.STANDARD, ["9S", "9C", "KD", "KH"], "BANKER", SettleStatus.PUSH, 100),
        # no commission: a Banker win on 6 pays 1:2
        (Commission.NO_COMMISSION, ["2S", "6C", "3D", "KH", "KS"], "BANKER", SettleStatus.WIN, 150),
        # EZ: a Banker win with a three-card 7 pushes
        (Commission.EZ, ["KS", "2C", "6D", "3H", "2D"], "BANKER", SettleStatus.PUSH, 100),
    ],
)
def test_pushes_and_commission_variants_settle_by_the_one_money_rule(
    commission: Commission, deal: list[str], bet: str, status: SettleStatus, returned: int
) -> None:
    table = baccarat_table(BaccaratRules(commission=commission))
    # Player, Banker, Player, Banker, then the third card (the Player's if five cards are
    # dealt and the Player draws: here the Player draws on 5, the Banker on a Player's 6)
    for i, text in enumerate(deal):
        role = [PLAYER, BANKER, PLAYER, BANKER][i] if i < 4 else BANKER
        if i == 4 and commission is Commission.NO_COMMISSION:
            role = PLAYER
        feed(table, card(text, role))
    assert table.snapshot.view.round_id == 2, "the hand-built round is complete"
    settled = table.settle(1, 1, bet, 100)
    assert (settled.status, settled.returned_cents) == (status, returned)


def test_dragon_tiger_half_loss_keeps_the_odd_cent_for_the_house() -> None:
    table = dragon_tiger_table(DragonTigerRules(side_bets=(dragon_tiger.paytable("SUITED_TIE"),)))
    feed(table, card("7S", DRAGON), card("7S", TIGER))  # a suited tie of sevens
    half = table.settle(1, 1, "DRAGON", 101)
    assert (half.status, half.net_payout_hundredths, half.returned_cents) == (
        SettleStatus.LOSE,
        -50,
        50,
    )
    assert table.settle(1, 1, "TIE", 100).returned_cents == 900
    assert table.settle(1, 1, "SUITED_TIE", 100).returned_cents == 5100


# ---------------------------------------------------------------------------------------------
# Dragon Tiger: the round


def test_dragon_tiger_deals_a_dragon_card_then_a_tiger_card() -> None:
    table = dragon_tiger_table(decks=1)
    view = table.snapshot.view
    assert bets_of(view.side_bets)[:3] == ["DRAGON", "TIGER", "TIE"]
    before = (table.snapshot, len(table.journal))
    with pytest.raises(IllegalMove, match="the Dragon's card comes first"):
        feed(table, card("2S", TIGER))
    assert (table.snapshot, len(table.journal)) == before
    feed(table, card("KS", DRAGON))
    view = table.snapshot.view
    want = dragon_tiger.odds(
        counts_without(1, "KS"), parse_card("KS"), dragon_tiger.main_paytables(8)
    )
    assert {sb.bet: sb.rtp_exact for sb in view.round_odds} == {
        bet: o.rtp_fraction for bet, o in want.items()
    }
    feed(table, card("2S", TIGER))
    assert table.settle(1, 1, "DRAGON", 100).returned_cents == 200
    assert table.settle(1, 1, "TIGER", 100).returned_cents == 0


# ---------------------------------------------------------------------------------------------
# Game protection


def burns_to_kings_and_queens(decks: int) -> list[str]:
    """The burns that leave a Dragon Tiger shoe of ``decks`` decks with its kings and queens
    alone: from two decks, 16 cards, 8 of them each twice, so a suited tie is 1 in 15 at 50:1
    (RTP 17/5) and a tie 7 in 15 at 8:1."""
    return [str(c) for c in DECK for _ in range(decks) if c.rank.name not in ("KING", "QUEEN")]


def test_protection_closes_a_side_bet_exactly_while_it_is_favourable() -> None:
    rules = DragonTigerRules(
        side_bets=(dragon_tiger.paytable("SUITED_TIE"),), close_at_rtp_bp=10_000
    )
    table = dragon_tiger_table(rules, decks=2)
    for text in burns_to_kings_and_queens(2):
        feed(table, card(text, BURN))
        for sb in table.snapshot.view.side_bets:
            favourable = sb.rtp_exact >= 1
            main = sb.bet in ("DRAGON", "TIGER", "TIE")
            assert sb.protected == (favourable and not main), sb
            assert sb.open == (not sb.protected), sb
    suited = next(sb for sb in table.snapshot.view.side_bets if sb.bet == "SUITED_TIE")
    assert suited.protected and not suited.open
    v = table.snapshot.version
    feed(table, card("KS", DRAGON), card("KH", TIGER))
    with pytest.raises(IllegalMove, match=r"SUITED_TIE .*closed by game protection"):
        table.settle(1, v, "SUITED_TIE", 100)
    assert table.settle(1, v, "TIE", 100).status is SettleStatus.WIN  # main bets stay open


def test_protection_follows_the_shoe_round_by_round_closing_and_reopening() -> None:
    """From two decks' kings and queens (every card twice: SUITED_TIE favourable), rounds that
    each take one copy of two cards: the bet stays closed while some card is left twice, and
    reopens the round none is (its RTP then 0). At every betting version it is closed exactly
    when its exact RTP is at least 1, and Settle follows: BET_CLOSED there, settled elsewhere."""
    rules = DragonTigerRules(
        side_bets=(dragon_tiger.paytable("SUITED_TIE"),), close_at_rtp_bp=10_000
    )
    table = dragon_tiger_table(rules, decks=2)
    for text in burns_to_kings_and_queens(2):
        feed(table, card(text, BURN))
    faces = [f"{rank}{suit}" for rank in "KQ" for suit in "SHDC"]
    seen = []
    for round_id, (dragon, tiger) in enumerate(zip(faces[::2], faces[1::2], strict=True), 1):
        view = table.snapshot.view
        suited = next(sb for sb in view.side_bets if sb.bet == "SUITED_TIE")
        seen.append(suited.protected)
        assert suited.protected == (suited.rtp_exact >= 1) and suited.open == (not suited.protected)
        version = table.snapshot.version
        feed(table, card(dragon, DRAGON), card(tiger, TIGER))
        if suited.protected:
            with pytest.raises(IllegalMove, match="closed by game protection"):
                table.settle(round_id, version, "SUITED_TIE", 100)
        else:
            assert table.settle(round_id, version, "SUITED_TIE", 100).status is SettleStatus.LOSE
    suited = next(sb for sb in table.snapshot.view.side_bets if sb.bet == "SUITED_TIE")
    seen.append(suited.protected)
    # 16 cards, each twice: closed; each round leaves fewer pairs; none left: open again.
    assert seen == [True, True, True, True, False], seen
    assert suited.rtp_exact == 0 and suited.open


def test_close_at_rtp_bp_is_checked() -> None:
    with pytest.raises(InvalidOption, match="close_at_rtp_bp"):
        BaccaratRules(close_at_rtp_bp=-1)
    with pytest.raises(InvalidOption, match="named twice"):
        BaccaratRules(
            side_bets=(baccarat_paytable("PLAYER_PAIR"), baccarat_paytable("PLAYER_PAIR"))
        )


# ---------------------------------------------------------------------------------------------
# Folds


_BACCARAT_EVENT = st.one_of(
    st.builds(
        card,
        st.sampled_from([str(c) for c in DECK]),
        st.sampled_from([PLAYER, BANKER, PLAYER, BANKER, BURN, DRAGON]),
    ),
    st.just(VoidRound()),
    st.just(NewShoe()),
    st.just(EndRound()),
    st.just(CloseTable()),
)


@settings(max_examples=40, deadline=None)
@given(events=st.lists(_BACCARAT_EVENT, max_size=60))
def test_a_baccarat_table_is_a_pure_fold_and_refusals_change_nothing(
    events: list[FeedEvent],
) -> None:
    table = baccarat_table(BaccaratRules(side_bets=SIDE), decks=1)
    for event in events:
        before = (table.snapshot, len(table.journal))
        try:
            table.apply(table.snapshot.last_seq + 1, event)
        except ValueError:
            assert (table.snapshot, len(table.journal)) == before
    assert replay(table.journal).snapshot == table.snapshot


def test_side_bet_odds_views_carry_signed_pays() -> None:
    table = dragon_tiger_table()
    dragon = next(sb for sb in table.snapshot.view.side_bets if sb.bet == "DRAGON")
    pays = {o.name: o.payout_hundredths for o in dragon.outcomes}
    assert pays["WIN"] == 100 and pays["TIE_HALF_LOSS"] == -50
    assert isinstance(
        dragon_tiger.odds(Shoe(8).counts(), None, dragon_tiger.main_paytables(8))["DRAGON"],
        SideBetOdds,
    )
