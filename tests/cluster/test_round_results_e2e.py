"""No round result is conflated away (docs/rules.md §5.2), through real servers: a watcher that
falls behind on one server, a watcher on a replica that was paused while a whole shoe went
through another, and a watcher that reconnects with ``from_version`` each see the result of
every round; prices in between may be skipped."""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator

import grpc
import pytest

from pricing.cards import DECK
from pricing.client import DealerFeed, PricingClient
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.natsserver import NatsServer, free_port, kill_all
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import metric, wait_for

CARDS = [str(card) for card in DECK]


def shoe_events(seed: int) -> list[tuple[str, str]]:
    """One Hi-Lo shoe's cards: 5 opening burns, then 10 results with a burn (a void round)
    after the 3rd and the 7th."""
    deck = random.Random(seed).sample(CARDS, len(CARDS))
    events = [(deck.pop(), "BURN") for _ in range(5)]
    for i in range(10):
        events.append((deck.pop(), "RESULT"))
        if i in (2, 6):
            events.append((deck.pop(), "BURN"))
    return events


def send(feed: DealerFeed, events: list[tuple[str, str]]) -> list[pb.TableState]:
    return [feed.expose(card, role) for card, role in events]


def deal_shoe(feed: DealerFeed, seed: int) -> list[pb.TableState]:
    """A whole shoe and a new one: every answer, in order."""
    answers = send(feed, shoe_events(seed))
    assert answers[-1].phase == pb.PHASE_SHOE_COMPLETE
    return [*answers, feed.new_shoe()]


def round_results(states: list[pb.TableState]) -> list[tuple[int, bool, str]]:
    """(round, void, result card) of every state that ended a round, in order."""
    return [
        (s.ended_round.round_id, s.ended_round.void, s.ended_round.result_card)
        for s in states
        if s.HasField("ended_round")
    ]


def read_to(watcher: Watcher, version: int, timeout: float = 20.0) -> list[pb.TableState]:
    watcher.until(version, timeout=timeout)
    return watcher.received


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = start_server()
    yield process
    assert process.stop() == 0, process.log()


def test_a_watcher_that_falls_behind_skips_prices_but_sees_every_round_result(
    server: ServerProcess,
) -> None:
    table = "behind-1"
    with PricingClient(server.target) as client:
        feed = client.feed(table)
        feed.open("HILO")
        # A game server that does not read: its connection advertises a window of a few
        # states and never grows it, so the server's sends block and its slot conflates.
        channel = server.channel(
            options=[("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]
        )
        slow = pb_grpc.PricingServiceStub(channel).WatchTable(pb.WatchTableRequest(table_id=table))
        got = [next(slow)]
        conflated = metric(server, "pricing_conflated_total")
        answers = [state for shoe in range(3) for state in deal_shoe(feed, seed=shoe)]
        assert metric(server, "pricing_conflated_total") > conflated, "nothing was skipped"
        for state in slow:  # now it reads
            got.append(state)
            if state.version == answers[-1].version:
                break
        slow.cancel()
        versions = [s.version for s in got]
        assert versions == sorted(set(versions))
        assert len(got) < len(answers), "no price was skipped: the test proves nothing"
        assert round_results(got) == round_results(answers)
        assert len(round_results(answers)) == 3 * 12


def test_from_version_first_sends_every_round_result_since_then(server: ServerProcess) -> None:
    table = "resume-1"
    events = shoe_events(seed=11)
    with PricingClient(server.target) as client:
        feed = client.feed(table)
        feed.open("HILO")
        watcher = Watcher(server.pricing(), table)
        before = send(feed, events[:8])  # into the shoe: 3 results so far
        read_to(watcher, before[-1].version)
        watcher.cancel()  # the game server loses its connection here...
        meanwhile = send(feed, events[8:])  # ... while 9 rounds end (2 of them void)
        # ... and comes back: every round that ended meanwhile, then the state as it is.
        resumed = read_to(
            Watcher(server.pricing(), table, from_version=before[-1].version + 1),
            meanwhile[-1].version,
        )
    assert round_results(resumed) == round_results(meanwhile)
    assert len(round_results(meanwhile)) == 9
    assert resumed[-1] == meanwhile[-1]
    assert [s.version for s in resumed] == sorted({s.version for s in resumed})
    assert resumed[0].version > before[-1].version


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_from_version_finds_the_round_results_from_before_a_restart(sig: int) -> None:
    """The game server stops reading; rounds end; the server restarts (its tables rebuilt from
    snapshots); more rounds end; the game server resumes from its last version + 1 on the
    restarted server and is sent every round's result, from before the restart and after."""
    first = start_server("--snapshot-every=4", f"--port={free_port()}")
    events = shoe_events(seed=31)
    with PricingClient(first.target) as client:
        feed = client.feed("restarted")
        feed.open("HILO")
        watcher = Watcher(first.pricing(), "restarted")
        seen = send(feed, events[:6])  # the opening burns and one result
        read_to(watcher, seen[-1].version)
        watcher.cancel()
        before = send(feed, events[6:12])  # 6 rounds end unseen (one of them void)
    first.stop(sig)
    second = start_server(f"--port={first.grpc_port}", data_dir=first.data_dir)
    try:
        with PricingClient(second.target) as client:
            feed = client.feed("restarted")
            feed.open("HILO")  # joins the table where it is
            after = send(feed, events[12:])  # and the rest of the shoe
            resumed = read_to(
                Watcher(second.pricing(), "restarted", from_version=seen[-1].version + 1),
                after[-1].version,
            )
        assert round_results(resumed) == round_results(before + after)
        assert len(round_results(before)) == 6 and resumed[-1] == after[-1]
    finally:
        assert second.stop() == 0, second.log()


# ---- a replica paused while a shoe goes through another ------------------------------------


@pytest.fixture(scope="module")
def nats() -> Iterator[NatsServer]:
    server = NatsServer().start()
    yield server
    server.stop()
    kill_all()


def test_a_replica_paused_through_a_shoe_sends_its_watchers_every_round_result(
    nats: NatsServer,
) -> None:
    a, b = (start_server(f"--journal={nats.url}") for _ in range(2))
    table = "paused-1"
    try:
        with PricingClient(a.target) as client:
            feed = client.feed(table)
            feed.open("HILO")
            wait_for(lambda: _holds(b, table), what="the table on replica B")
            watcher = Watcher(b.pricing(), table)
            watcher.until(1)
            b.proc.send_signal(signal.SIGSTOP)  # B folds nothing while the shoe is dealt
            try:
                answers = deal_shoe(feed, seed=21)
            finally:
                b.proc.send_signal(signal.SIGCONT)
            got = read_to(watcher, answers[-1].version)
        assert round_results(got) == round_results(answers)
        assert len(round_results(answers)) == 12
        assert got[-1] == answers[-1]
        watcher.cancel()
    finally:
        for server in (a, b):
            assert server.stop() == 0, server.log()


def _holds(server: ServerProcess, table: str) -> bool:
    try:
        server.pricing().GetTable(pb.GetTableRequest(table_id=table), timeout=5)
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.NOT_FOUND:
            raise
        return False
    return True
