"""Model-based: hypothesis drives random sequences of feed and read calls against the real server
and a pure-Python model of Hi-Lo tables (seq, versions, phases, cards, settlement), and checks
after every step that the two agree, accepted or refused.

The model is written from the rules alone (docs/rules.md §1 and the seq discipline of the
service contract), sharing no code with the service; prices come from ``tests.support.reference``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from pricing.v1.enums import enum_number, enum_short_name
from tests.support.reference import hilo_ref
from tests.support.server import ServerProcess, start_server

pytestmark = pytest.mark.timeout(600)

CARDS = hilo_ref.FULL_DECK
BETS = ["LOW", "HIGH", "ODD", "EVEN", "SEVEN"]
C = grpc.StatusCode


class Refused(Exception):
    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__(code)
        self.code = code


@dataclass
class ModelTable:
    """A Hi-Lo table as the rules describe it."""

    version: int = 1
    last_seq: int = 0
    shoe: int = 1
    exposed: list[str] = field(default_factory=list)
    phase: str = "OPENING"
    result_index: int = 0
    round_id: int = 0
    ended: tuple[int, str | None] | None = None  # (round, result card or None if void)
    seen: dict[int, tuple[tuple[str, ...], tuple[object, ...]]] = field(default_factory=dict)
    rounds: dict[int, str | None] = field(default_factory=dict)
    prices: dict[int, tuple[int, bool, dict[str, int | None]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._remember()

    def state(self) -> tuple[object, ...]:
        return (self.version, self.last_seq, self.shoe, tuple(self.exposed), self.phase,
                self.result_index, self.round_id, self.ended)  # fmt: skip

    def _remember(self) -> None:
        betting = self.phase == "BETTING"
        quote = hilo_ref.quote(self.exposed)
        payouts = {
            b: (p.payout_hundredths if betting and p.open else None) for b, p in quote.items()
        }
        self.prices[self.version] = (self.round_id, betting, payouts)
        if self.ended is not None:
            self.rounds[self.ended[0]] = self.ended[1]

    def apply(self, seq: int, event: tuple[str, ...]) -> tuple[object, ...]:
        if seq <= self.last_seq:
            if seq == 0:
                raise Refused(C.INVALID_ARGUMENT)
            applied, state = self.seen[seq]
            if applied != event:
                raise Refused(C.ALREADY_EXISTS)
            return state
        if seq != self.last_seq + 1 or self.phase == "CLOSED":
            raise Refused(C.FAILED_PRECONDITION)
        self._fold(event)
        self.version += 1
        self.last_seq = seq
        self.seen[seq] = (event, self.state())
        self._remember()
        return self.state()

    def _fold(self, event: tuple[str, ...]) -> None:
        kind = event[0]
        if kind == "close":
            self.ended = (self.round_id, None) if self.phase == "BETTING" else None
            self.phase = "CLOSED"
        elif kind == "void":
            if self.phase != "BETTING":
                raise Refused(C.FAILED_PRECONDITION)
            self.ended = (self.round_id, None)
            self.round_id += 1
        elif kind == "shoe":
            self.ended = (self.round_id, None) if self.phase == "BETTING" else None
            self.shoe += 1
            self.exposed = []
            self.phase = "OPENING"
            self.result_index = 0
        else:
            _, card, role = event
            if self.phase == "SHOE_COMPLETE":
                raise Refused(C.FAILED_PRECONDITION)
            if role == "RESULT" and self.phase != "BETTING":
                raise Refused(C.FAILED_PRECONDITION)
            if card in self.exposed:
                raise Refused(C.FAILED_PRECONDITION)
            self.exposed.append(card)
            self.ended = None
            if self.phase == "OPENING":
                if len(self.exposed) == 5:
                    self.phase, self.result_index = "BETTING", 1
                    self.round_id += 1
            elif role == "BURN":  # a card exposed while betting voids the round
                self.ended = (self.round_id, None)
                self.round_id += 1
            else:
                self.ended = (self.round_id, card)
                if self.result_index == 10:
                    self.phase = "SHOE_COMPLETE"
                else:
                    self.result_index += 1
                    self.round_id += 1

    def settle(self, round_id: int, version: int, bet: str, stake: int) -> tuple[str, int]:
        if version > self.version:
            raise Refused(C.FAILED_PRECONDITION)
        point_round, betting, payouts = self.prices[version]
        if not betting or point_round != round_id or payouts[bet] is None:
            raise Refused(C.FAILED_PRECONDITION)
        payout = payouts[bet]
        assert payout is not None
        if round_id not in self.rounds:
            return "PENDING", 0
        result = self.rounds[round_id]
        if result is None:
            return "VOID", stake
        wins = hilo_ref.rank_value(result) in hilo_ref.WINS_ON[bet]
        return ("WIN", stake + stake * payout // 100) if wins else ("LOSE", 0)


def wire_state(state: pb.TableState) -> tuple[object, ...]:
    ended = None
    if state.HasField("ended_round"):
        e = state.ended_round
        ended = (e.round_id, None if e.void else e.result_card)
    phase = enum_short_name(pb.Phase, state.phase)
    return (state.version, state.last_seq, state.shoe, tuple(state.exposed),
            phase, state.result_index, state.round_id, ended)  # fmt: skip


@pytest.fixture(scope="module")
def model_server() -> Iterator[ServerProcess]:
    server = start_server()
    yield server
    assert server.stop() == 0


class TablesMachine(RuleBasedStateMachine):
    server: ServerProcess
    runs = 0

    def __init__(self) -> None:
        super().__init__()
        TablesMachine.runs += 1
        self.dealer = pb_grpc.DealerServiceStub(self.server.channel())
        self.pricing = pb_grpc.PricingServiceStub(self.server.channel())
        self.models: dict[str, ModelTable] = {}

    @initialize()
    def open_tables(self) -> None:
        for i in range(2):
            table_id = f"model-{TablesMachine.runs}-{i}"
            state = self.dealer.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
            self.models[table_id] = model = ModelTable()
            assert wire_state(state) == model.state()

    def _send(self, table_id: str, seq: int, event: tuple[str, ...]) -> None:
        model = self.models[table_id]
        try:
            expected: tuple[object, ...] | grpc.StatusCode = model.apply(seq, event)
        except Refused as refused:
            expected = refused.code
        try:
            got: tuple[object, ...] | grpc.StatusCode = wire_state(self._call(table_id, seq, event))
        except grpc.RpcError as exc:
            got = exc.code()
        assert got == expected, (event, seq)

    def _call(self, table_id: str, seq: int, event: tuple[str, ...]) -> pb.TableState:
        d = self.dealer
        if event[0] == "card":
            role = enum_number(pb.CardRole, event[2])
            return d.ExposeCard(
                pb.ExposeCardRequest(table_id=table_id, seq=seq, card=event[1], role=role)
            )
        if event[0] == "void":
            return d.VoidRound(pb.VoidRoundRequest(table_id=table_id, seq=seq))
        if event[0] == "shoe":
            return d.NewShoe(pb.NewShoeRequest(table_id=table_id, seq=seq))
        return d.CloseTable(pb.CloseTableRequest(table_id=table_id, seq=seq))

    def _seq(self, table_id: str, offset: int) -> int:
        return max(0, self.models[table_id].last_seq + offset)

    tables = st.sampled_from([0, 1])
    # Mostly the next seq; now and then a repeat, a stale one or a gap.
    offsets = st.sampled_from([1] * 8 + [0, -1, -3, 2])

    def _id(self, index: int) -> str:
        return sorted(self.models)[index]

    @rule(index=tables, offset=offsets, pick=st.integers(0, 51), fresh=st.integers(0, 5),
          role=st.sampled_from(["BURN"] + ["RESULT"] * 3))  # fmt: skip
    def expose(self, index: int, offset: int, pick: int, fresh: int, role: str) -> None:
        """Mostly a card still in the deck; now and then any card (maybe one already out)."""
        table_id = self._id(index)
        left = [c for c in CARDS if c not in self.models[table_id].exposed] or CARDS
        card = left[pick % len(left)] if fresh else CARDS[pick]
        self._send(table_id, self._seq(table_id, offset), ("card", card, role))

    @rule(index=tables, pick=st.integers(0, 51))
    def deal_opening(self, index: int, pick: int) -> None:
        """A dealer starting a deck: burns until betting opens."""
        table_id = self._id(index)
        model = self.models[table_id]
        while model.phase == "OPENING":
            left = [c for c in CARDS if c not in model.exposed]
            self._send(table_id, model.last_seq + 1, ("card", left[pick % len(left)], "BURN"))

    @rule(index=tables, offset=offsets)
    def void(self, index: int, offset: int) -> None:
        table_id = self._id(index)
        self._send(table_id, self._seq(table_id, offset), ("void",))

    @rule(index=tables, offset=offsets)
    def new_shoe(self, index: int, offset: int) -> None:
        table_id = self._id(index)
        self._send(table_id, self._seq(table_id, offset), ("shoe",))

    @rule(index=tables, chance=st.integers(0, 9))
    def close(self, index: int, chance: int) -> None:
        if chance == 0:  # rarely: a closed table takes nothing more
            table_id = self._id(index)
            self._send(table_id, self._seq(table_id, 1), ("close",))

    @rule(index=tables, back=st.integers(0, 6), bet=st.sampled_from(BETS),
          stake=st.integers(1, 10**6), round_shift=st.sampled_from([0, 0, 0, -1, 1]))  # fmt: skip
    def settle(self, index: int, back: int, bet: str, stake: int, round_shift: int) -> None:
        """Mostly a bet taken at a version that was open for betting, on its round."""
        table_id = self._id(index)
        model = self.models[table_id]
        open_versions = [v for v, (_, betting, _) in model.prices.items() if betting]
        if open_versions and round_shift == 0:
            version = open_versions[-1 - back % len(open_versions)]
        else:
            version = max(1, model.version - back)
        round_id = max(1, model.prices[version][0] + round_shift)
        try:
            expected: object = model.settle(round_id, version, bet, stake)
        except Refused as refused:
            expected = refused.code
        request = pb.SettleRequest(
            table_id=table_id, round_id=round_id, version=version, bet=bet, stake_cents=stake
        )
        try:
            answer = self.pricing.Settle(request)
            got: object = (
                enum_short_name(pb.SettleResponse.Status, answer.status),
                answer.returned_cents,
            )
        except grpc.RpcError as exc:
            got = exc.code()
        assert got == expected

    @invariant()
    def tables_agree(self) -> None:
        for table_id, model in self.models.items():
            state = self.pricing.GetTable(pb.GetTableRequest(table_id=table_id))
            assert wire_state(state) == model.state()
            expected = hilo_ref.quote(model.exposed)
            for price in state.prices:
                ref = expected[price.bet]
                assert (price.wins, price.remaining) == (ref.wins, ref.remaining)
                betting = model.phase == "BETTING"
                assert price.open == (betting and ref.open)
                if price.open:
                    assert price.payout_hundredths == ref.payout_hundredths


def test_the_server_agrees_with_the_model(model_server: ServerProcess) -> None:
    TablesMachine.server = model_server
    test = TablesMachine.TestCase
    test.settings = settings(
        max_examples=30,
        stateful_step_count=50,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    test().runTest()
