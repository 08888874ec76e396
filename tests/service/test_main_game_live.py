"""The main game's figures on a live blackjack table and in a Quote (docs/rules.md §3.9): each
seat's decisions while its hand is in play and the next round's player edge, computed after the
feed's acknowledgement and published on a later publication; never a figure of another shoe.

Every state read (acks and watch messages alike) is held to a model of the cards fed: the
figures it carries, if any, are exactly ``decisions`` and ``player_edge`` of its own version.
"""

from __future__ import annotations

import asyncio
import io
import threading
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from pricing.cards import Shoe
from pricing.errors import IllegalMove, InvalidInput
from pricing.games.blackjack.decisions import (
    HandDecisions,
    MainGameRules,
    decisions,
    player_edge,
)
from pricing.games.blackjack.hands import hand_total
from pricing.games.blackjack.rules import DealerRule
from pricing.server.fanout import Published
from pricing.server.service import PricingService
from pricing.tables import Figures, SeatDecisionsView, Snapshot
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name
from pricing.wire import config_from_proto, config_to_proto
from tests.service.test_service_errors import FakeContext
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import Feed, FeedStream

PLAYER, DEALER = pb.CARD_ROLE_PLAYER, pb.CARD_ROLE_DEALER

_EDGES: dict[tuple[tuple[int, ...], MainGameRules], float | None] = {}


def edge_of(counts: tuple[int, ...], rules: MainGameRules) -> float | None:
    """``player_edge``, None where the shoe could run out: once per shoe (about 0.1 s)."""
    key = (counts, rules)
    if key not in _EDGES:
        try:
            _EDGES[key] = player_edge(counts, rules)
        except IllegalMove:
            _EDGES[key] = None
    return _EDGES[key]


def wire_decisions(entry: pb.SeatCards | pb.QuoteResponse) -> list[tuple[str, float]]:
    return [(enum_short_name(pb.Action, d.action), d.ev) for d in entry.decisions]


def expected(d: HandDecisions | None) -> list[tuple[str, float]]:
    return [] if d is None else [(a.value, d.evs[a]) for a in d.legal]


@dataclass
class Model:
    """The cards fed to one table, and what each version's figures must be."""

    decks: int
    seats: int
    rules: MainGameRules
    exposed: list[str] = field(default_factory=list)
    round_start: int = 0  # len(exposed) when the round began
    hands: dict[int, list[str]] = field(default_factory=dict)
    dealer: list[str] = field(default_factory=list)
    #: version → (seat → its decisions, for the seats in play; the shoe of the round's edge)
    versions: dict[int, tuple[dict[int, list[tuple[str, float]]], tuple[int, ...]]] = field(
        default_factory=dict
    )

    def record(self, version: int) -> None:
        in_play: dict[int, list[tuple[str, float]]] = {}
        if len(self.dealer) == 1:
            counts = Shoe.without(self.exposed, decks=self.decks).counts()
            for seat, cards in self.hands.items():
                if len(cards) >= 2 and hand_total(cards)[0] < 21:
                    try:
                        d = decisions(cards, self.dealer[0], counts, self.rules)
                    except IllegalMove:
                        d = None
                    in_play[seat] = expected(d)
        shoe = Shoe.without(self.exposed[: self.round_start], decks=self.decks).counts()
        self.versions[version] = (in_play, tuple(shoe))

    def card(self, text: str, role: int, seat: int, version: int) -> None:
        self.exposed.append(text)
        if role == PLAYER:
            self.hands.setdefault(seat, []).append(text)
        elif role == DEALER:
            self.dealer.append(text)
        self.record(version)

    def end_round(self, version: int) -> None:
        self.round_start = len(self.exposed)
        self.hands, self.dealer = {}, []
        self.record(version)

    def check(self, state: pb.TableState) -> tuple[bool, bool]:
        """``state``'s figures are its own version's; (it has seat decisions, it has an edge)."""
        in_play, shoe = self.versions[state.version]
        seats = False
        for entry in state.seats:
            if entry.decisions:
                assert entry.seat in in_play, (state.version, entry)
                assert wire_decisions(entry) == in_play[entry.seat], (state.version, entry.seat)
                best = max(in_play[entry.seat], key=lambda pair: pair[1])[0]
                assert enum_short_name(pb.Action, entry.best_action) == best
                seats = True
            else:
                assert entry.best_action == pb.ACTION_UNSPECIFIED
        has_edge = state.HasField("player_edge")
        if has_edge:
            assert state.player_edge == edge_of(shoe, self.rules), state.version
        return seats, has_edge


def _rules_proto(rules: MainGameRules) -> pb.BlackjackRules:
    return pb.BlackjackRules(
        double_after_split=rules.double_after_split, max_splits=rules.max_splits
    )


class Table:
    """A blackjack table fed card by card, its acks and watch stream held to the model."""

    def __init__(self, server: ServerProcess, table_id: str, seats: int, rules: MainGameRules):
        self.feed = Feed(server, table_id)
        self.model = Model(6, seats, rules)
        opened = self.feed.open(
            game=pb.GAME_BLACKJACK,
            decks=6,
            blackjack=pb.BlackjackRules(
                seats=seats,
                double_after_split=rules.double_after_split,
                max_splits=rules.max_splits,
            ),
        )
        self.model.record(opened.version)
        self.model.check(opened)
        self.watcher = Watcher(server.pricing(), table_id)
        self.seen = 0  # the newest version read: a republication never goes back

    def card(self, text: str, role: int = PLAYER, seat: int = 0) -> pb.TableState:
        ack = self.feed.expose(text, role, seat)
        self.model.card(text, role, seat, ack.version)
        seats, _ = self.model.check(ack)
        assert not seats, "the ack waited for the seats' decisions"
        return ack

    def end_round(self) -> pb.TableState:
        ack = self.feed.end_round()
        self.model.end_round(ack.version)
        self.model.check(ack)
        return ack

    def until(self, version: int, *, seats: bool = False, edge: bool = False) -> pb.TableState:
        """Read the stream until a state of ``version`` (or later) has the figures asked for,
        checking every state read."""
        while True:
            state = self.watcher.next()
            assert state.version >= self.seen, (state.version, self.seen)
            self.seen = state.version
            has_seats, has_edge = self.model.check(state)
            if state.version >= version and (has_seats or not seats) and (has_edge or not edge):
                return state


def test_seat_decisions_and_the_edge_follow_the_cards(server: ServerProcess, table_id: str) -> None:
    rules = MainGameRules(DealerRule.S17, double_after_split=False, max_splits=1)
    table = Table(server, table_id, seats=2, rules=rules)
    table.until(1, edge=True)  # the fresh shoe's edge, after the opening
    table.card("9S", seat=1)
    table.card("8C", seat=2)
    table.card("6D", DEALER)
    ack = table.card("7H", seat=1)  # seat 1 in play: 16 against a 6
    assert not ack.seats[0].decisions
    state = table.until(ack.version, seats=True)
    assert [a for a, _ in wire_decisions(state.seats[0])] == [
        "STAND", "HIT", "DOUBLE", "SURRENDER",
    ]  # fmt: skip
    ack = table.card("8D", seat=2)  # a pair: SPLIT, under the table's split rules
    state = table.until(ack.version, seats=True)
    assert "SPLIT" in dict(wire_decisions(state.seats[1]))
    assert all(entry.decisions for entry in state.seats)
    ack = table.card("3H", seat=2)  # 19: stand or hit only
    state = table.until(ack.version, seats=True)
    assert [a for a, _ in wire_decisions(state.seats[1])] == ["STAND", "HIT"]
    ack = table.card("5C", seat=1)  # 21: out of play
    state = table.until(ack.version, seats=True)
    assert not state.seats[0].decisions and state.seats[1].decisions
    ack = table.card("10S", DEALER)  # the dealer's second card: the players' turn is over
    end = table.end_round()
    state = table.until(end.version, edge=True)
    counts = tuple(Shoe.without(table.model.exposed, decks=6).counts())
    assert state.player_edge == edge_of(counts, rules)
    got = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert got.version == state.version and got.player_edge == state.player_edge
    line = f'pricing_player_edge{{table_id="{table_id}"}} '
    metric = next(x for x in server.metrics_text().splitlines() if x.startswith(line))
    assert float(metric.removeprefix(line)) == pytest.approx(state.player_edge, rel=1e-12)
    table.feed.close()
    assert line not in server.metrics_text()  # a closed table's series ends with it
    table.watcher.cancel()


def test_a_card_while_figures_are_computed_never_shows_another_shoes(
    server: ServerProcess, table_id: str
) -> None:
    """Events sent back to back on a Feed stream: most figures go stale before they are done.
    Every state read carries only its own version's, and the last ones do arrive."""
    rules = MainGameRules()
    table = Table(server, table_id, seats=3, rules=rules)
    stream = FeedStream(server.dealer())
    rounds = [
        [("2S", 1), ("3S", 2), ("4S", 3), ("5D", 0), ("9S", 1), ("8S", 2), ("7S", 3)],
        [("KH", 1), ("2H", 2), ("3H", 3), ("6C", 0), ("4H", 1), ("5H", 2), ("6H", 3)],
        [("9D", 1), ("9C", 2), ("AD", 3), ("8C", 0), ("2D", 1), ("3D", 2), ("4D", 3)],
    ]
    sent = 0
    for number, cards in enumerate(rounds):
        for text, seat in cards:
            role = DEALER if seat == 0 else PLAYER
            table.feed.seq += 1
            request = pb.ExposeCardRequest(
                table_id=table_id, seq=table.feed.seq, card=text, role=role, seat=seat
            )
            stream.send(pb.FeedRequest(expose_card=request))
            table.model.card(text, role, seat, 1 + table.feed.seq)
            sent += 1
        if number < len(rounds) - 1:  # the last round stays in play: its figures must come
            table.feed.seq += 1
            ending = pb.EndRoundRequest(table_id=table_id, seq=table.feed.seq)
            stream.send(pb.FeedRequest(end_round=ending))
            table.model.end_round(1 + table.feed.seq)
            sent += 1
    acks = [stream.answer() for _ in range(sent)]
    stream.done()
    for ack in acks:
        assert not table.model.check(ack)[0]
    last = acks[-1].version
    state = table.until(last, seats=True, edge=True)
    assert all(entry.decisions for entry in state.seats)
    table.watcher.cancel()


def test_a_quote_prices_a_hand_and_the_shoe(server: ServerProcess) -> None:
    exposed, hand, up = ["2S", "KD", "5C"], ["8S", "8H"], "10D"
    rules = MainGameRules(DealerRule.H17, double_after_split=False, max_splits=2)
    request = pb.QuoteRequest(
        game=pb.GAME_BLACKJACK,
        decks=2,
        exposed=exposed,
        player_hand=hand,
        dealer_up_card=up,
        blackjack=pb.BlackjackRules(
            dealer_rule=pb.DEALER_RULE_H17, double_after_split=False, max_splits=2
        ),
    )
    answer = server.pricing().Quote(request)
    counts = Shoe.without([*exposed, *hand, up], decks=2).counts()
    want = decisions(hand, up, counts, rules)
    assert wire_decisions(answer) == expected(want)
    assert "SPLIT" in dict(wire_decisions(answer))
    assert enum_short_name(pb.Action, answer.best_action) == want.best.value
    assert not answer.HasField("player_edge")  # not asked for: not computed
    assert answer.cards_remaining == 104 - 6
    request.include_player_edge = True
    with_edge = server.pricing().Quote(request)
    assert with_edge.HasField("player_edge")
    assert with_edge.player_edge == edge_of(tuple(counts), rules)
    assert wire_decisions(with_edge) == expected(want)
    without_hand = server.pricing().Quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=2))
    assert not without_hand.decisions and without_hand.best_action == pb.ACTION_UNSPECIFIED
    assert not without_hand.HasField("player_edge")
    shoe_only = server.pricing().Quote(
        pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=2, include_player_edge=True)
    )
    assert shoe_only.player_edge == edge_of(tuple(Shoe(decks=2).counts()), MainGameRules())


def test_a_quote_computes_the_edge_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The edge's kernel (a tenth of a second on a full 8-deck shoe) runs only for a Quote
    that asks for it; the offline ``pricing quote --player-edge`` prints it."""
    from pricing.games.blackjack import rounds  # noqa: PLC0415
    from pricing.wire import answer_quote  # noqa: PLC0415

    calls: list[int] = []
    compute = rounds.edge

    def counted(counts: tuple[int, ...], rules: MainGameRules) -> float | None:
        calls.append(sum(counts))
        return compute(counts, rules)

    monkeypatch.setattr(rounds, "edge", counted)
    request = pb.QuoteRequest(
        game=pb.GAME_BLACKJACK,
        decks=1,
        exposed=["2S"],
        player_hand=["8S", "3H"],
        dealer_up_card="6D",
    )
    answer = answer_quote(request)
    assert calls == [] and not answer.HasField("player_edge") and answer.decisions
    request.include_player_edge = True
    answer = answer_quote(request)
    assert calls == [52 - 4]
    counts = tuple(Shoe.without(["2S", "8S", "3H", "6D"], decks=1).counts())
    assert answer.player_edge == edge_of(counts, MainGameRules())
    with pytest.raises(InvalidInput, match="include_player_edge"):
        answer_quote(pb.QuoteRequest(game=pb.GAME_HILO, include_player_edge=True))


def test_the_quote_command_prints_the_edge_only_when_asked() -> None:
    from pricing.cli import main  # noqa: PLC0415

    plain, edged = io.StringIO(), io.StringIO()
    assert main(["quote", "blackjack", "--decks", "1", "2S"], out=plain) == 0
    assert main(["quote", "blackjack", "--decks", "1", "2S", "--player-edge"], out=edged) == 0
    assert "PLAYER EDGE" not in plain.getvalue()
    edge = edge_of(tuple(Shoe.without(["2S"], decks=1).counts()), MainGameRules())
    assert edge is not None and f"PLAYER EDGE  {edge:+.6%}" in edged.getvalue()


@pytest.mark.parametrize("max_splits", [0, 4])
def test_max_splits_out_of_range_is_refused_by_name(server: ServerProcess, max_splits: int) -> None:
    rules = pb.BlackjackRules(max_splits=max_splits)
    for call in (
        lambda: server.pricing().Quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, blackjack=rules)),
        lambda: server.dealer().OpenTable(
            pb.OpenTableRequest(table_id="splits", game=pb.GAME_BLACKJACK, blackjack=rules)
        ),
    ):
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"max_splits {max_splits}" in (info.value.details() or "")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"player_hand": ["8S", "8H"]}, "player_hand"),  # no dealer_up_card
        ({"player_hand": ["8S"], "dealer_up_card": "5D"}, "player_hand"),
        ({"player_hand": ["KS", "QS", "5H"], "dealer_up_card": "5D"}, "busted"),
    ],
)
def test_a_quote_of_a_bad_hand_is_refused(
    server: ServerProcess, fields: dict[str, object], named: str
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        server.pricing().Quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, **fields))  # type: ignore[arg-type]
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert named in (info.value.details() or "")


def test_the_split_rules_are_journaled_and_old_tables_get_the_defaults() -> None:
    """A table's split rules go to the journal with its config; an OpenTable written before
    they existed (no such fields) configures to the defaults, with the same bytes as then."""
    old = pb.OpenTableRequest(table_id="t", game=pb.GAME_BLACKJACK, decks=6)
    old.blackjack.seats = 7
    config = config_from_proto(old.game, old.decks, old)
    assert config.rules.main_game == MainGameRules()  # type: ignore[union-attr]
    again = config_to_proto("t", config)
    assert not again.blackjack.HasField("max_splits")
    assert not again.blackjack.HasField("double_after_split")
    custom = pb.OpenTableRequest(
        table_id="t",
        game=pb.GAME_BLACKJACK,
        decks=6,
        blackjack=_rules_proto(MainGameRules(double_after_split=False, max_splits=2)),
    )
    config = config_from_proto(custom.game, custom.decks, custom)
    written = config_to_proto("t", config)
    assert written.blackjack.max_splits == 2 and written.blackjack.double_after_split is False
    assert config_from_proto(written.game, written.decks, written) == config


def test_a_restarted_server_prices_by_the_journaled_rules(tmp_path: Path, table_id: str) -> None:
    rules = MainGameRules(DealerRule.S17, double_after_split=False, max_splits=1)
    first = start_server(data_dir=tmp_path)
    try:
        table = Table(first, table_id, seats=1, rules=rules)
        for text, role in [("8S", PLAYER), ("6D", DEALER), ("8H", PLAYER)]:
            table.card(text, role, 1 if role == PLAYER else 0)
        table.watcher.cancel()
    finally:
        assert first.stop() == 0
    second = start_server(data_dir=tmp_path)
    try:
        watcher = Watcher(second.pricing(), table_id)
        while not (state := watcher.next()).seats[0].decisions:
            pass
        counts = Shoe.without(["8S", "6D", "8H"], decks=6).counts()
        assert wire_decisions(state.seats[0]) == expected(
            decisions(["8S", "8H"], "6D", counts, rules)
        )
        watcher.cancel()
    finally:
        assert second.stop() == 0


@pytest.mark.parametrize("analysis", [True, False])
def test_the_analysis_can_be_turned_off(analysis: bool) -> None:
    """``--no-main-game-analysis``: the states never carry figures (a server with it on, fed
    the same, does)."""

    async def run() -> pb.TableState:
        service = PricingService(main_game_analysis=analysis)
        context = FakeContext()
        await service.rpc("OpenTable")(
            pb.OpenTableRequest(
                table_id="t", game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=1)
            ),
            context,
        )
        for seq, (card, role) in enumerate([("9S", PLAYER), ("6D", DEALER), ("5H", PLAYER)], 1):
            request = pb.ExposeCardRequest(table_id="t", seq=seq, card=card, role=role)
            await service.rpc("ExposeCard")(request, context)
        await service.publisher.analyst.settled()
        payload = await service.rpc("GetTable")(pb.GetTableRequest(table_id="t"), context)
        service.publisher.analyst.close()
        return pb.TableState.FromString(payload)

    state = asyncio.run(run())
    assert bool(state.seats[0].decisions) is analysis
    assert state.HasField("player_edge") is analysis


def test_stale_work_is_not_started_dropped_between_seats_and_never_published(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In one process, the analyzer held on a seat while two more cards come: the rest of that
    version's seats are not computed, the version in between is never started, and every
    state published (in order, versions never back) carries its own version's figures."""
    from pricing.server import publisher  # noqa: PLC0415
    from pricing.tables.adapters.blackjack import MainGameWork  # noqa: PLC0415

    model = Model(6, 2, MainGameRules())
    calls: list[tuple[int, int]] = []  # (cards left in the shoe: the version's, seat)
    armed, started, release = threading.Event(), threading.Event(), threading.Event()
    compute = MainGameWork.seat_decisions

    def held(self: MainGameWork, seat: int) -> SeatDecisionsView | None:
        calls.append((sum(self.work.counts), seat))
        if armed.is_set() and not started.is_set():
            started.set()
            assert release.wait(10)
        return compute(self, seat)

    published: list[pb.TableState] = []
    serialise = publisher.published_state

    def recorded(snapshot: Snapshot, figures: Figures | None = None) -> Published:
        out = serialise(snapshot, figures)
        published.append(pb.TableState.FromString(out.payload))
        return out

    monkeypatch.setattr(MainGameWork, "seat_decisions", held)
    monkeypatch.setattr(publisher, "published_state", recorded)

    async def run() -> None:
        service = PricingService()
        context = FakeContext()
        rules = pb.BlackjackRules(seats=2)
        opening = pb.OpenTableRequest(table_id="t", game=pb.GAME_BLACKJACK, blackjack=rules)
        await service.rpc("OpenTable")(opening, context)
        model.record(1)

        async def card(text: str, role: int, seat: int) -> None:
            seq = len(model.exposed) + 1
            request = pb.ExposeCardRequest(table_id="t", seq=seq, card=text, role=role, seat=seat)
            payload = await service.rpc("ExposeCard")(request, context)
            model.card(text, role, seat, pb.TableState.FromString(payload).version)

        for text, role, seat in [("9S", PLAYER, 1), ("8C", PLAYER, 2), ("6D", DEALER, 0)]:
            await card(text, role, seat)
        await card("7H", PLAYER, 1)  # seat 1 in play
        await service.publisher.analyst.settled()
        armed.set()
        await card("5D", PLAYER, 2)  # both in play: held on seat 1
        assert await asyncio.to_thread(started.wait, 10)
        await card("2C", PLAYER, 1)  # stale before it starts
        await card("2H", PLAYER, 2)  # the newest: computed
        release.set()
        await service.publisher.analyst.settled()
        service.publisher.analyst.close()

    asyncio.run(run())
    left = [52 * 6 - n for n in (4, 5, 6, 7)]  # the shoe at versions 5 (7H) to 8 (2H)
    assert calls[-4:] == [(left[0], 1), (left[1], 1), (left[3], 1), (left[3], 2)]
    versions = [state.version for state in published]
    assert versions == sorted(versions)
    assert any(entry.decisions for entry in published[-1].seats) and published[-1].version == 8
    for state in published:
        model.check(state)


class _Held:
    """``live.edge`` counted (the cards in each shoe it is asked for) and held on the shoes
    of ``hold`` sizes until released."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *hold: int) -> None:
        from pricing.games.blackjack import live  # noqa: PLC0415

        self.calls: list[int] = []
        self.started = {n: threading.Event() for n in hold}
        self.release = {n: threading.Event() for n in hold}
        compute = live.edge

        def held(counts: tuple[int, ...], rules: MainGameRules) -> float | None:
            cards = sum(counts)
            self.calls.append(cards)
            if cards in self.started:
                self.started[cards].set()
                assert self.release[cards].wait(10)
            return compute(counts, rules)

        monkeypatch.setattr(live, "edge", held)

    async def wait(self, cards: int) -> None:
        assert await asyncio.to_thread(self.started[cards].wait, 10)


class _InProcess:
    """Tables fed in one process (``PricingService``), with every edge set on the gauge and
    every state published recorded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from pricing.server import publisher  # noqa: PLC0415
        from pricing.server.metrics_tables import TableGauge  # noqa: PLC0415

        self.service = PricingService()
        self.context = FakeContext()
        self.seq: dict[str, int] = {}
        self.gauge_sets: list[tuple[str, float]] = []
        self.published: list[pb.TableState] = []
        set_line, serialise = TableGauge._set, publisher.published_state

        def recorded_set(gauge: TableGauge, key: tuple[str, ...], value: float) -> None:
            if gauge.name == "pricing_player_edge":
                self.gauge_sets.append((key[0], value))
            set_line(gauge, key, value)

        def recorded(snapshot: Snapshot, figures: Figures | None = None) -> Published:
            out = serialise(snapshot, figures)
            self.published.append(pb.TableState.FromString(out.payload))
            return out

        monkeypatch.setattr(TableGauge, "_set", recorded_set)
        monkeypatch.setattr(publisher, "published_state", recorded)

    async def call(self, method: str, request: object) -> pb.TableState:
        payload = await self.service.rpc(method)(request, self.context)
        return pb.TableState.FromString(payload)

    async def open(self, table_id: str, decks: int) -> None:
        self.seq[table_id] = 0
        rules = pb.BlackjackRules(seats=1)
        request = pb.OpenTableRequest(
            table_id=table_id, game=pb.GAME_BLACKJACK, decks=decks, blackjack=rules
        )
        await self.call("OpenTable", request)

    def next_seq(self, table_id: str) -> int:
        self.seq[table_id] += 1
        return self.seq[table_id]

    async def round(self, table_id: str, player: str, dealer: str) -> None:
        for card, role in [(player, PLAYER), (dealer, DEALER)]:
            seq = self.next_seq(table_id)
            request = pb.ExposeCardRequest(table_id=table_id, seq=seq, card=card, role=role)
            await self.call("ExposeCard", request)
        ending = pb.EndRoundRequest(table_id=table_id, seq=self.next_seq(table_id))
        await self.call("EndRound", ending)

    def edges(self, table_id: str) -> list[float]:
        return [value for table, value in self.gauge_sets if table == table_id]


def test_an_edge_gone_stale_is_never_computed_nor_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """One edge thread for every table: table a's edge held while b opens and ends two rounds,
    so b's opening edge goes stale in the queue: the worker skips it (the kernel never runs
    for it). Then b's newest edge held while b ends one more round: its result is stale when
    it comes, and the gauge never shows it. The gauge shows b's current edge only."""
    held = _Held(monkeypatch, 8 * 52, 6 * 52 - 4)
    feed = _InProcess(monkeypatch)
    rules = MainGameRules()

    async def run() -> None:
        await feed.open("a", decks=8)
        await held.wait(8 * 52)  # a's fresh-shoe edge in the kernel: the edge thread is busy
        await feed.open("b", decks=6)
        await asyncio.sleep(0.01)  # b's edge task runs: its fresh-shoe edge queues behind a's
        await feed.round("b", "9S", "6D")
        await feed.round("b", "2C", "5H")  # b's queued edge is two shoes old
        held.release[8 * 52].set()
        await held.wait(6 * 52 - 4)  # b's newest shoe's edge in the kernel
        await feed.round("b", "KD", "3S")  # ... stale before it is done
        held.release[6 * 52 - 4].set()
        await feed.service.publisher.analyst.settled()
        gauge.append(feed.service.metrics.player_edge.value("b"))
        feed.service.publisher.analyst.close()

    gauge: list[float | None] = []
    asyncio.run(run())
    assert held.calls == [8 * 52, 6 * 52 - 4, 6 * 52 - 6]  # never b's fresh shoe (312)
    current = edge_of(
        tuple(Shoe.without(["9S", "6D", "2C", "5H", "KD", "3S"], decks=6).counts()), rules
    )
    assert current is not None
    assert feed.edges("b") == [current]
    assert gauge == [current]
    published = [s for s in feed.published if s.table_id == "b" and s.HasField("player_edge")]
    assert [s.player_edge for s in published] == [current]


def test_a_table_closed_while_its_edge_is_computed_shows_and_publishes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held = _Held(monkeypatch, 8 * 52)
    feed = _InProcess(monkeypatch)

    async def run() -> None:
        await feed.open("t", decks=8)
        await held.wait(8 * 52)
        closing = pb.CloseTableRequest(table_id="t", seq=feed.next_seq("t"))
        await feed.call("CloseTable", closing)
        before = len(feed.published)
        held.release[8 * 52].set()
        await feed.service.publisher.analyst.settled()
        await asyncio.sleep(0.05)  # the edge's task, were it still running, has its result
        assert len(feed.published) == before  # nothing published after the close
        feed.service.publisher.analyst.close()

    asyncio.run(run())
    assert held.calls == [8 * 52]
    assert feed.edges("t") == []
    assert 'table_id="t"' not in feed.service.metrics.player_edge.text()
    assert not any(s.HasField("player_edge") for s in feed.published)


def test_seat_decisions_never_wait_for_an_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat's decisions (wanted within seconds) are computed while another table's edge, and
    the table's own, are still under way: they have a thread of their own."""
    held = _Held(monkeypatch, 8 * 52)
    feed = _InProcess(monkeypatch)

    async def run() -> bool:
        await feed.open("a", decks=8)
        await held.wait(8 * 52)  # the edge thread is busy with a's edge
        await feed.open("b", decks=6)  # b's edge queues behind it
        for card, role in [("9S", PLAYER), ("6D", DEALER), ("7H", PLAYER)]:
            request = pb.ExposeCardRequest(
                table_id="b", seq=feed.next_seq("b"), card=card, role=role
            )
            await feed.call("ExposeCard", request)
        for _ in range(300):
            if any(s.table_id == "b" and s.seats[0].decisions for s in feed.published):
                break
            await asyncio.sleep(0.01)
        decided = any(s.table_id == "b" and s.seats[0].decisions for s in feed.published)
        held.release[8 * 52].set()  # a's edge was held all along
        await feed.service.publisher.analyst.settled()
        feed.service.publisher.analyst.close()
        return decided

    assert asyncio.run(run())
