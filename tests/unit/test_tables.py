"""Live tables without gRPC: the fold, seq idempotency, histories, settlement, adapters.
docs/rules.md §5."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing import tables as tables_module
from pricing.cards import DECK, Card, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput, InvalidOption
from pricing.games import hilo
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.games.fixed_odds import SideBetOdds
from pricing.payout import MAX_HUNDREDTHS, BetPrice, PayRule
from pricing.tables import (
    CloseTable,
    EndedRound,
    FeedEvent,
    Game,
    GameState,
    GameView,
    SeqConflict,
    SettleStatus,
    SideBetResult,
    SideBetView,
    Table,
    TableConfig,
    TableExists,
    TableNotFound,
    TablePhase,
    Tables,
    plugged_in,
    replay,
    standard_view,
)
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import settlement_to_proto

BURN, RESULT = CardRole.BURN, CardRole.RESULT


def expose(text: str, role: CardRole = BURN) -> ExposeCard:
    return ExposeCard(parse_card(text), role)


def hilo_table(**limits: int) -> Table:
    return Table("t", TableConfig(Game.HILO), keep_journal=True, **limits)


def feed(table: Table, *events: FeedEvent) -> None:
    for event in events:
        table.apply(table.snapshot.last_seq + 1, event)


BURNS = [expose(c) for c in ("2S", "3S", "4S", "5S", "6S")]


def test_enums_match_the_wire() -> None:
    """The tables' enums are the wire's, number for number, each named as the wire's value
    without its enum's prefix (``Game.HILO`` is ``GAME_HILO``)."""
    wire_games = {v.name: v.number for v in pb.Game.DESCRIPTOR.values if v.number}
    assert {f"GAME_{g.name}": int(g) for g in Game} == wire_games
    wire_phases = {v.name: v.number for v in pb.Phase.DESCRIPTOR.values if v.number}
    assert {f"PHASE_{p.name}": int(p) for p in TablePhase} == wire_phases


def test_a_full_deck_folds_to_the_engine_state() -> None:
    table = hilo_table()
    cards = [str(c) for c in DECK]
    random.Random(1).shuffle(cards)
    deck = hilo.HiLoDeck()
    for i, text in enumerate(cards[:15]):
        event = expose(text, BURN if i < 5 else RESULT)
        snap, new = table.apply(i + 1, event)
        deck = deck.apply(event)
        assert new and snap.version == i + 2 and snap.last_seq == i + 1
        assert snap.view.prices == deck.prices
        assert snap.view.exposed == deck.exposed
    assert table.snapshot.phase is TablePhase.SHOE_COMPLETE
    assert len(table.journal) == 16 and table.journal[0].seq == 0


def test_a_repeated_seq_returns_the_state_as_of_that_event() -> None:
    table = hilo_table()
    first, _ = table.apply(1, expose("AS"))
    feed(table, expose("KS"))
    now = table.snapshot
    again, new = table.apply(1, expose("as"))
    assert again is first and not new
    assert table.snapshot is now and len(table.journal) == 3


def test_conflicts_gaps_and_bad_seqs_change_nothing() -> None:
    table = hilo_table(seq_history=2)
    feed(table, expose("AS"), expose("KS"), expose("QS"))
    now, journal = table.snapshot, list(table.journal)
    with pytest.raises(
        SeqConflict,
        match=r"seq 3 .* ExposeCard QS CARD_ROLE_BURN, not ExposeCard JS CARD_ROLE_BURN",
    ):
        table.apply(3, expose("JS"))
    with pytest.raises(SeqConflict, match="VoidRound"):
        table.apply(2, VoidRound())
    with pytest.raises(IllegalMove, match="expected seq 4"):
        table.apply(6, expose("JS"))
    with pytest.raises(InvalidInput, match="seq must be 1 or more"):
        table.apply(0, expose("JS"))
    with pytest.raises(IllegalMove, match="too old"):
        table.apply(1, expose("AS"))  # beyond the 2 remembered
    assert table.snapshot is now and table.journal == journal


@pytest.mark.parametrize(
    ("events", "bad", "error", "message"),
    [
        ([], expose("2S", RESULT), IllegalMove, "no round is open"),
        (BURNS, expose("3S", RESULT), CardNotInShoe, "3S"),
        (BURNS, EndRound(), IllegalMove, "EndRound"),
        (BURNS[:2], VoidRound(), IllegalMove, "OPENING"),
        (BURNS, expose("9H", CardRole.PLAYER), InvalidInput, "PLAYER"),
        ([*BURNS, CloseTable()], NewShoe(), IllegalMove, "closed"),
    ],
)
def test_rejected_events_leave_the_table_exactly_unchanged(
    events: list[FeedEvent], bad: FeedEvent, error: type[Exception], message: str
) -> None:
    table = hilo_table()
    feed(table, *events)
    now, journal = table.snapshot, list(table.journal)
    with pytest.raises(error, match=message):
        table.apply(now.last_seq + 1, bad)
    assert table.snapshot is now and table.journal == journal


def test_after_shoe_complete_only_a_new_shoe() -> None:
    table = hilo_table()
    results = [
        expose(c, RESULT) for c in ("7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS", "AH", "2H")
    ]
    feed(table, *BURNS, *results)
    assert table.snapshot.phase is TablePhase.SHOE_COMPLETE
    with pytest.raises(IllegalMove, match="shoe is complete"):
        table.apply(16, expose("3H"))
    snap, _ = table.apply(16, NewShoe())
    assert (snap.view.shoe, snap.phase, snap.view.exposed) == (2, TablePhase.OPENING, ())


def test_open_is_idempotent_for_the_same_config_only() -> None:
    tables = Tables(keep_journal=True)
    first = tables.open("a", TableConfig(Game.HILO))
    assert tables.open("a", TableConfig(Game.HILO, decks=1, rules=hilo.DEFAULT_PAYTABLE)) is first
    other = hilo.HiLoPaytable(seven=PayRule(9000, 100, 5000))
    with pytest.raises(TableExists, match="already exists"):
        tables.open("a", TableConfig(Game.HILO, rules=other))
    with pytest.raises(InvalidOption, match="decks 2"):
        tables.open("b", TableConfig(Game.HILO, decks=2))
    with pytest.raises(InvalidInput, match="table_id"):
        tables.open("", TableConfig(Game.HILO))
    with pytest.raises(InvalidOption, match="decks 2 is not allowed for Goa Gae"):
        tables.open("c", TableConfig(Game.GOA_GAE, decks=2))
    with pytest.raises(InvalidOption, match="decks 9 is not allowed for blackjack"):
        tables.open("c", TableConfig(Game.BLACKJACK, decks=9))
    with pytest.raises(TableNotFound, match="'zz'"):
        tables.get("zz")
    assert len(tables) == 1


def test_settlement_pays_in_integers_at_the_version_price() -> None:
    table = hilo_table()
    feed(table, *BURNS)
    v, payouts = (
        table.snapshot.version,
        {b: p.payout_hundredths for b, p in table.snapshot.view.prices.items()},
    )
    assert table.settle(1, v, "HIGH", 333).status is SettleStatus.PENDING
    feed(table, expose("KH", RESULT))
    win = table.settle(1, v, "HIGH", 333)
    assert (win.status, win.returned_cents) == (
        SettleStatus.WIN,
        333 + 333 * payouts["HIGH"] // 100,
    )
    assert win.payout_hundredths == payouts["HIGH"] and [str(c) for c in win.result] == ["KH"]
    assert table.settle(1, v, "LOW", 333).returned_cents == 0
    feed(table, VoidRound())
    assert table.settle(2, v + 1, "LOW", 50).status is SettleStatus.VOID
    with pytest.raises(IllegalMove, match="round 1 at version 7"):
        table.settle(1, v + 1, "HIGH", 100)
    with pytest.raises(InvalidInput, match="SOMETHING"):
        table.settle(1, v, "SOMETHING", 100)
    with pytest.raises(InvalidInput, match="stake_cents"):
        table.settle(1, v, "HIGH", 0)


@pytest.mark.parametrize(
    ("round_id", "version", "bet", "stake", "error", "fragments"),
    [
        (1, 6, "HIGH", 0, InvalidInput, ("stake_cents", "got 0")),
        (1, 6, "HIGH", 2**64 - 1, InvalidInput, ("stake_cents", str(2**64 - 1), "10000")),
        (1, 6, "HIGH", tables_module.MAX_STAKE_CENTS + 1, InvalidInput, ("stake_cents",)),
        (1, 0, "HIGH", 100, InvalidInput, ("version", "got 0")),
        (0, 6, "HIGH", 100, InvalidInput, ("round_id", "got 0")),
        (1, 6, "PURPLE", 100, InvalidInput, ("'PURPLE'", "HIGH")),
        (1, 0, "PURPLE", 100, InvalidInput, ("version",)),  # malformed first, in order
        (1, 99, "PURPLE", 100, InvalidInput, ("'PURPLE'",)),  # a bad name, whatever the version
        (1, 7, "HIGH", 100, IllegalMove, ("version 7", "does not exist yet", "current version 6")),
    ],
)
def test_settle_rejects_malformed_and_impossible_bets(
    *,
    round_id: int,
    version: int,
    bet: str,
    stake: int,
    error: type[Exception],
    fragments: tuple[str, ...],
) -> None:
    table = hilo_table()
    feed(table, *BURNS)  # version 6, round 1 open for betting
    assert (table.snapshot.version, table.snapshot.view.round_id) == (6, 1)
    with pytest.raises(error) as info:
        table.settle(round_id, version, bet, stake)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_the_largest_stake_at_the_largest_pay_fits_the_wire() -> None:
    most = PayRule(10_000, MAX_HUNDREDTHS, MAX_HUNDREDTHS)
    table = Table(
        "t", TableConfig(Game.HILO, rules=hilo.HiLoPaytable(seven=most)), keep_journal=True
    )
    feed(table, *BURNS)
    v = table.snapshot.version
    assert table.snapshot.view.prices["SEVEN"].payout_hundredths == MAX_HUNDREDTHS
    feed(table, expose("7H", RESULT))
    stake = tables_module.MAX_STAKE_CENTS
    win = table.settle(1, v, "SEVEN", stake)
    assert win.returned_cents == stake + stake * MAX_HUNDREDTHS // 100 < 2**64
    request = pb.SettleRequest(table_id="t", round_id=1, version=v, bet="SEVEN", stake_cents=stake)
    assert settlement_to_proto(win, request).returned_cents == win.returned_cents


def test_settlement_history_is_bounded() -> None:
    table = hilo_table(price_history=3, round_history=2)
    feed(table, *BURNS, expose("KH", RESULT), expose("QH", RESULT), expose("JH", RESULT))
    with pytest.raises(IllegalMove, match="no longer held"):
        table.settle(1, 6, "HIGH", 100)


def test_closing_mid_round_voids_it() -> None:
    table = hilo_table()
    feed(table, *BURNS)
    v = table.snapshot.version
    feed(table, CloseTable())
    assert table.snapshot.phase is TablePhase.CLOSED
    assert not any(p.open for p in table.snapshot.view.prices.values())
    assert table.settle(1, v, "HIGH", 100).status is SettleStatus.VOID


_CARD = st.sampled_from([str(c) for c in DECK])
_EVENT = st.one_of(
    st.builds(expose, _CARD, st.sampled_from([BURN, RESULT, CardRole.PLAYER])),
    st.just(VoidRound()),
    st.just(NewShoe()),
    st.just(EndRound()),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_EVENT, max_size=60))
def test_a_table_is_a_pure_fold_of_its_journal(events: list[FeedEvent]) -> None:
    """Whatever the feed sends, a rejected event changes nothing, and replaying the journal
    gives the same table."""
    table = hilo_table()
    for event in events:
        before = table.snapshot
        try:
            table.apply(before.last_seq + 1, event)
        except ValueError:
            assert table.snapshot is before
        else:
            assert table.snapshot.version == before.version + 1
    again = replay(table.journal)
    assert again.snapshot == table.snapshot
    assert again.journal == table.journal


# ---------------------------------------------------------------------------------------------
# A new game plugs in with one adapter: a toy engine of the HiLoDeck shape


class _ToyPhase(Enum):
    OPENING = "OPENING"
    BETTING = "BETTING"
    SHOE_COMPLETE = "SHOE_COMPLETE"


@dataclass(frozen=True)
class _ToyOutcome:
    round_id: int
    result_index: int
    result: tuple[Card, ...] | None


@dataclass(frozen=True)
class _ToyState:
    """RED or BLACK on the next card; one burn opens betting; 3 results per deck."""

    shoe: int = 1
    round_id: int = 0
    exposed: tuple[Card, ...] = ()
    phase: _ToyPhase = _ToyPhase.OPENING
    outcome: _ToyOutcome | None = None

    @property
    def cards_remaining(self) -> int:
        return 52 - len(self.exposed)

    @property
    def prices(self) -> dict[str, BetPrice]:
        left = [c for c in DECK if c not in self.exposed]
        rule = PayRule(9500, 10, 500)
        out = {}
        for bet, red in (("RED", True), ("BLACK", False)):
            p = rule.price(bet, sum(c.suit.is_red == red for c in left), len(left))
            betting = self.phase is _ToyPhase.BETTING
            out[bet] = p if betting else BetPrice(bet, p.wins, p.remaining, 0, False, False)
        return out

    def apply(self, event: object) -> _ToyState:
        if not isinstance(event, ExposeCard):
            raise IllegalMove(f"{type(event).__name__} is not part of the toy game")
        if event.card in self.exposed:
            raise CardNotInShoe(f"{event.card} is gone")
        exposed = (*self.exposed, event.card)
        if self.phase is _ToyPhase.OPENING:
            return replace(self, exposed=exposed, phase=_ToyPhase.BETTING, round_id=1)
        outcome = _ToyOutcome(self.round_id, self.round_id, (event.card,))
        done = self.round_id == 3
        return replace(
            self,
            exposed=exposed,
            round_id=self.round_id + (not done),
            phase=_ToyPhase.SHOE_COMPLETE if done else _ToyPhase.BETTING,
            outcome=outcome,
        )


class _ToyAdapter:
    game = Game.GOA_GAE  # standing in for a game whose engine lands later

    def configure(self, config: TableConfig) -> TableConfig:
        return TableConfig(self.game, 1, None)

    def new_state(self, config: TableConfig) -> _ToyState:
        return _ToyState()

    def view(self, state: GameState) -> GameView:
        return standard_view(
            state,
            side_bets=(SideBetView("TOY", SideBetOdds.from_ways("TOY", {"X": 1}, 52, {"X": 100})),),
        )

    def quote(
        self, config: TableConfig, exposed: Sequence[str], up_card: str | None = None
    ) -> GameView:
        return standard_view(
            _ToyState(exposed=tuple(parse_card(c) for c in exposed), phase=_ToyPhase.BETTING)
        )

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        return result[0].suit.is_red == (bet == "RED")

    def seats(self, config: TableConfig) -> int:
        return 0

    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None:
        red = ended.result[0].suit.is_red
        return SideBetResult("RED", 100, ended.result) if red else SideBetResult("LOSE", -100, ())

    def position_cap_cents(self, config: TableConfig) -> int:
        return 0

    def describe(self, config: TableConfig) -> dict[str, str]:
        return {"toy.rules": str(config.rules)}


@pytest.fixture
def toy_game() -> Iterator[None]:
    with plugged_in(_ToyAdapter()):
        yield


def test_tables_opened_alike_share_one_fresh_state_from_their_own_adapter() -> None:
    tables = Tables(keep_journal=True)
    for table_id in ("a", "b"):
        tables.open(table_id, TableConfig(Game.GOA_GAE))
    a, b = tables.get("a"), tables.get("b")
    assert a.image().state is b.image().state and a.config is b.config
    tables.apply("a", 1, ExposeCard(parse_card("2S"), CardRole.PLAYER))
    assert b.snapshot.view.exposed == ()  # a's event gave a a state of its own
    real = a.config

    class Replacement(_ToyAdapter):  # the same configuration, another engine
        def configure(self, config: TableConfig) -> TableConfig:
            return real

    with plugged_in(Replacement()):
        tables.open("c", TableConfig(Game.GOA_GAE))
        assert isinstance(tables.get("c").image().state, _ToyState)


def test_a_new_game_plugs_in_with_one_adapter(toy_game: None) -> None:
    tables = Tables(keep_journal=True)
    tables.open("toy", TableConfig(Game.GOA_GAE))
    table = tables.get("toy")
    feed(table, expose("2C"))
    bet_version = table.snapshot.version
    assert table.snapshot.view.prices["RED"].open
    feed(table, expose("KH", RESULT))
    assert table.snapshot.view.ended == EndedRound(1, 1, (parse_card("KH"),))
    assert table.snapshot.view.side_bets[0].bet == "TOY"
    assert table.settle(1, bet_version, "RED", 100).status is SettleStatus.WIN
    assert table.settle(1, bet_version, "BLACK", 100).status is SettleStatus.LOSE
    toy = table.settle(1, bet_version, "TOY", 100)  # a fixed-paytable side bet
    assert (toy.status, toy.outcome, toy.returned_cents) == (SettleStatus.WIN, "RED", 200)
    with pytest.raises(IllegalMove, match="VoidRound"):
        table.apply(3, VoidRound())
    assert replay(table.journal).snapshot == table.snapshot
