"""Replicas sharing their tables through NATS JetStream, with real processes only: nats-server
(from the venv) on loopback ports, and pricing servers started with ``--journal``."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from pricing.client import DealerFeed, PricingClient
from pricing.games import hilo
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_durability_e2e import CARDS, HiLoFeed
from tests.support import ROOT
from tests.support.effort import exhaustive_only
from tests.support.natsserver import NatsServer, cluster, kill_all
from tests.support.proxy import CuttableProxy
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import (
    engine_prices,
    expect_error,
    metric,
    scraped,
    wait_for,
    wire_prices,
)

MAX_LAG = 0.5


@pytest.fixture(scope="module", autouse=True)
def _no_nats_outlives_the_module() -> Iterator[None]:
    yield
    kill_all()


@pytest.fixture(scope="module")
def nats() -> Iterator[NatsServer]:
    server = NatsServer().start()
    yield server
    server.stop()


def replica(*servers: str, extra: tuple[str, ...] = (), **kwargs: Any) -> ServerProcess:
    return start_server(f"--journal={','.join(servers)}", f"--max-lag={MAX_LAG}", *extra, **kwargs)


@pytest.fixture(scope="module")
def pair(nats: NatsServer) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    a, b = replica(nats.url), replica(nats.url)
    yield a, b
    for server in (a, b):
        assert server.stop() == 0, server.log()


def health(server: ServerProcess) -> int:
    stub = health_pb2_grpc.HealthStub(server.channel())
    return int(stub.Check(health_pb2.HealthCheckRequest(), timeout=5).status)


def state_of(server: ServerProcess, table_id: str) -> pb.TableState:
    return server.pricing().GetTable(pb.GetTableRequest(table_id=table_id), timeout=10)


def version_on(server: ServerProcess, table_id: str) -> int:
    """The table's version on ``server``, 0 while it does not hold it yet."""
    try:
        return state_of(server, table_id).version
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.NOT_FOUND:
            raise
        return 0


def assert_engine_prices(state: pb.TableState) -> None:
    betting = state.phase == pb.PHASE_BETTING
    assert wire_prices(state) == engine_prices(hilo.quote(list(state.exposed)), betting)


# ---- one feed over both replicas ------------------------------------------------------------


def test_a_feed_alternating_between_replicas_reaches_every_watcher_in_order(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = pair
    table = "alternate-1"
    a.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
    wait_for(lambda: bool(b.pricing().ListTables(pb.ListTablesRequest()).tables), what="open on B")
    watchers = [Watcher(a.pricing(), table), Watcher(b.pricing(), table)]
    for watcher in watchers:  # subscribed before the feed starts: the opening is seen too
        watcher.until(1)
    feed = HiLoFeed(table, random.Random(7), deck=random.Random(7).sample(CARDS, len(CARDS)))
    stubs = [a.dealer(), b.dealer()]
    for i in range(40):
        feed.send(stubs[i % 2])  # odd seqs to A, even seqs to B
        for watcher in watchers:  # each sees every version (none conflated away)
            watcher.until(feed.last_seq + 1)
    versions = [[s.version for s in w.received] for w in watchers]
    assert versions[0] == versions[1] == list(range(1, 42))
    for w in watchers:
        for state in w.received:
            assert_engine_prices(state)
        w.cancel()
    assert [s.SerializeToString() for s in watchers[0].received] == [
        s.SerializeToString() for s in watchers[1].received
    ]
    assert state_of(a, table).SerializeToString() == state_of(b, table).SerializeToString()
    # The live return each folds from the same records: the same figures, to the last digit.
    figures = scraped(
        lambda: (live_return(a, table), live_return(b, table)), lambda f: f[0] == f[1]
    )
    assert figures[0] and figures[0] == figures[1]


def live_return(server: ServerProcess, table_id: str) -> dict[tuple[str, str], float]:
    return {
        (sample.name, sample.labels["bet"]): sample.value
        for family in text_string_to_metric_families(server.metrics_text())
        if family.name.startswith("pricing_live_return_")
        for sample in family.samples
        if sample.labels["table_id"] == table_id
    }


def _race(
    stubs: dict[str, Any], table: str, seq: int, role: int, cards: dict[str, str]
) -> dict[str, pb.TableState | grpc.RpcError]:
    """Send seq ``seq`` to each replica at the same moment, each with its card."""
    answers: dict[str, pb.TableState | grpc.RpcError] = {}
    start = threading.Barrier(len(cards))

    def send(name: str, card: str) -> None:
        request = pb.ExposeCardRequest(table_id=table, seq=seq, card=card, role=role)
        start.wait()
        try:
            answers[name] = stubs[name].ExposeCard(request, timeout=10)
        except grpc.RpcError as exc:
            answers[name] = exc

    threads = [threading.Thread(target=send, args=item) for item in cards.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_racing_feeders_get_exactly_one_answer_each_time_and_no_card_twice(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = pair
    table = "race-1"
    a.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
    stubs = {"A": a.dealer(), "B": b.dealer()}
    rng = random.Random(20261201)
    conflicts_before = sum(metric(s, "pricing_journal_conflicts_total") for s in pair)
    deck = rng.sample(CARDS, len(CARDS))
    phase, last_seq, accepted = pb.PHASE_OPENING, 0, []
    for _ in range(30):
        seq = last_seq + 1
        if phase == pb.PHASE_SHOE_COMPLETE:
            break
        role = pb.CARD_ROLE_BURN if phase == pb.PHASE_OPENING else pb.CARD_ROLE_RESULT
        same = rng.random() < 0.2
        cards = {"A": deck[-1], "B": deck[-1] if same else deck[-2]}
        answers = _race(stubs, table, seq, role, cards)
        won = [n for n, r in answers.items() if isinstance(r, pb.TableState)]
        lost = [r for r in answers.values() if isinstance(r, grpc.RpcError)]
        if same:
            assert len(won) == 2, answers  # the second is the idempotent repeat
            assert answers["A"] == answers["B"]
        else:
            assert len(won) == 1, answers
            assert [e.code() for e in lost] == [grpc.StatusCode.ALREADY_EXISTS], lost[0].details()
            assert f"seq {seq}" in lost[0].details()
        winner = answers[won[0]]
        assert isinstance(winner, pb.TableState)
        assert winner.last_seq == seq
        card = cards[won[0]]
        accepted.append(card)
        deck.remove(card)
        phase, last_seq = winner.phase, seq
    final = state_of(a, table)
    wait_for(lambda: version_on(b, table) == final.version, what="B caught up")
    assert list(final.exposed) == accepted
    assert len(set(final.exposed)) == len(final.exposed)  # no card in the shoe twice
    assert final.SerializeToString() == state_of(b, table).SerializeToString()
    assert_engine_prices(final)
    # Most races are settled by JetStream's per-subject check (an append refused, caught up).
    assert sum(metric(s, "pricing_journal_conflicts_total") for s in pair) > conflicts_before


def test_a_replica_behind_answers_as_the_one_ahead(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    """Straight after a write on A, B takes the next seq (not a gap), refuses a stale one with
    ALREADY_EXISTS and answers a rejoining feed's OpenTable with the journal's last seq:
    whatever it has folded, it answers from the journal."""
    a, b = pair
    for i in range(10):
        table = f"behind-{i}"
        a.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        state = b.dealer().ExposeCard(
            pb.ExposeCardRequest(table_id=table, seq=1, card="AS", role=pb.CARD_ROLE_BURN)
        )
        assert state.version == 2
        a.dealer().ExposeCard(
            pb.ExposeCardRequest(table_id=table, seq=2, card="2S", role=pb.CARD_ROLE_BURN)
        )
        # A feed rejoining on B carries on from the journal's last_seq, not B's.
        rejoined = b.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        assert (rejoined.last_seq, list(rejoined.exposed)) == (2, ["AS", "2S"])
        expect_error(
            lambda t=table: b.dealer().ExposeCard(
                pb.ExposeCardRequest(table_id=t, seq=2, card="3S", role=pb.CARD_ROLE_BURN)
            ),
            grpc.StatusCode.ALREADY_EXISTS,
            "seq 2",
        )
        expect_error(
            lambda t=table: b.dealer().ExposeCard(
                pb.ExposeCardRequest(table_id=t, seq=4, card="3S", role=pb.CARD_ROLE_BURN)
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
            "gap",
        )
        # The same id opened on B with other rules is the table A opened: ALREADY_EXISTS.
        expect_error(
            lambda t=table: b.dealer().OpenTable(
                pb.OpenTableRequest(table_id=t, game=pb.GAME_BLACKJACK)
            ),
            grpc.StatusCode.ALREADY_EXISTS,
        )


# ---- a replica dies -------------------------------------------------------------------------


def test_kill_9_a_replica_the_feed_and_watchers_move_to_the_other(nats: NatsServer) -> None:
    a, b = replica(nats.url), replica(nats.url)
    both = f"ipv4:127.0.0.1:{a.grpc_port},127.0.0.1:{b.grpc_port}"  # pick_first: A, then B
    table = "failover-1"
    client = PricingClient(both, timeout=10)
    feed = DealerFeed(client, table)
    feed.open("HILO")
    assert version_on(a, table) == 1
    wait_for(lambda: version_on(b, table) == 1, what="B has the table")
    seen: list[list[int]] = [[], []]

    def watch(out: list[int]) -> None:
        with PricingClient(both) as reader:
            for state in reader.follow_table(table, on_reconnect=lambda _: None):
                assert_engine_prices(state)
                out.append(state.version)
                if state.phase == pb.PHASE_SHOE_COMPLETE:
                    return

    threads = [threading.Thread(target=watch, args=(out,), daemon=True) for out in seen]
    for t in threads:
        t.start()
    wait_for(lambda: all(seen), what="watchers connected")
    rng = random.Random(3)
    deck = rng.sample(CARDS, len(CARDS))
    acknowledged: list[str] = []
    killed_at = 8  # mid-shoe (a Hi-Lo shoe is 5 burns and 10 results)
    for i in range(40):
        if i == killed_at:
            a.stop(signal.SIGKILL)  # the feed's next send meets a dead server
        card = deck.pop()
        state = feed.expose(card, "BURN" if len(acknowledged) < 5 else "RESULT")
        acknowledged.append(card)
        wait_for(lambda v=state.version: all(o and o[-1] >= v for o in seen), what="watchers")
        if state.phase == pb.PHASE_SHOE_COMPLETE:
            break
    assert len(acknowledged) > killed_at  # B took the feed's events after A died
    final = state_of(b, table)
    assert list(final.exposed) == acknowledged  # nothing acknowledged lost, nothing added
    assert final.last_seq == feed.last_seq
    for out in seen:  # resumed by from_version on B: every version once, no gap
        assert out == list(range(1, final.version + 1))
    c = replica(nats.url)
    wait_for(lambda: version_on(c, table) == final.version, what="C caught up")
    assert state_of(c, table).SerializeToString() == state_of(b, table).SerializeToString()
    client.close()
    for server in (b, c):
        assert server.stop() == 0, server.log()


def _stream_on(node: NatsServer) -> dict[str, Any] | None:
    """The tables' stream as ``node`` holds it (its monitoring endpoint), if it does."""
    url = f"http://127.0.0.1:{node.monitor_port}/jsz?streams=true"
    with urllib.request.urlopen(url, timeout=5) as response:
        info = json.load(response)
    for account in info.get("account_details", []):
        for stream in account.get("stream_detail", []):
            if stream["name"] == "PRICING_TABLES":
                return dict(stream)
    return None


def _leader_named(nodes: list[NatsServer]) -> NatsServer | None:
    """The one of ``nodes`` some node names the tables' stream's leader, if one does now: a
    stream just made (or one whose leader left) has none until its nodes elect one, and
    until then its ``cluster`` has no ``leader``."""
    for node in nodes:
        cluster_info = (_stream_on(node) or {}).get("cluster", {})
        leader = next((n for n in nodes if n.name == cluster_info.get("leader")), None)
        if leader is not None:
            return leader
    return None


def _stream_leader(nodes: list[NatsServer], timeout: float = 15.0) -> NatsServer:
    """The node leading the tables' stream, once its nodes have elected one (polled from
    their monitoring endpoints, failing after ``timeout`` seconds)."""
    leader: NatsServer | None = None

    def elected() -> bool:
        nonlocal leader
        leader = _leader_named(nodes)
        return leader is not None

    wait_for(elected, timeout=timeout, what="a leader of the tables' stream")
    assert leader is not None
    return leader


@pytest.mark.slow
@exhaustive_only  # a chaos run (a node killed, an election waited out): make test-exhaustive
def test_a_three_node_cluster_loses_a_node_during_a_feed_and_loses_nothing() -> None:
    nodes = cluster(3)
    urls = [n.url for n in nodes]
    server = replica(*urls, extra=("--journal-replicas=3",))
    table = "cluster-1"
    client = PricingClient(server.target, timeout=15)
    feed = DealerFeed(client, table)
    feed.open("HILO")
    rng = random.Random(11)
    deck = rng.sample(CARDS, len(CARDS))
    acknowledged: list[str] = []
    killed: NatsServer | None = None
    for i in range(40):
        if i == 10:
            killed = _stream_leader(nodes)
            killed.stop(signal.SIGKILL)
        card = deck.pop()
        feed.expose(card, "BURN")
        acknowledged.append(card)
    assert killed is not None
    assert list(state_of(server, table).exposed) == acknowledged
    killed.start()  # the same store and ports: it rejoins and catches up
    wait_for(
        lambda: (_stream_on(killed) or {}).get("state", {}).get("messages") == 41,
        what="the restarted node holds every event again",
    )
    assert server.stop() == 0, server.log()
    # A replica reading only from the node that was killed sees every acknowledged event.
    again = replica(killed.url, extra=("--journal-replicas=3",))
    assert list(state_of(again, table).exposed) == acknowledged
    assert again.stop() == 0, again.log()
    client.close()
    for node in nodes:
        node.stop()


# ---- health follows the journal -------------------------------------------------------------


@pytest.mark.serial
def test_a_replica_that_loses_nats_stops_serving_and_comes_back_caught_up(
    nats: NatsServer,
) -> None:
    proxy = CuttableProxy(nats.port)
    a, b = replica(nats.url), replica(f"nats://{proxy.target}")
    table = "cut-1"
    a.dealer().OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
    wait_for(lambda: version_on(b, table) == 1, what="B has the table")
    serving = health_pb2.HealthCheckResponse.SERVING
    assert health(b) == serving
    proxy.cut()
    took = wait_for(lambda: health(b) != serving, timeout=10, what="B NOT_SERVING")
    assert took <= MAX_LAG + 0.25, took  # within --max-lag (plus the probe's step)
    assert health(a) == serving
    expect_error(
        lambda: b.dealer().ExposeCard(
            pb.ExposeCardRequest(table_id=table, seq=1, card="AS", role=pb.CARD_ROLE_BURN)
        ),
        grpc.StatusCode.UNAVAILABLE,
    )
    for seq, card in enumerate(["AS", "2S", "3S"], start=1):  # A goes on meanwhile
        a.dealer().ExposeCard(
            pb.ExposeCardRequest(table_id=table, seq=seq, card=card, role=pb.CARD_ROLE_BURN)
        )
    proxy.restore()
    wait_for(lambda: health(b) == serving, timeout=20, what="B SERVING again")
    assert state_of(b, table).SerializeToString() == state_of(a, table).SerializeToString()
    assert "NOT_SERVING" in b.log()
    for server in (a, b):
        assert server.stop() == 0, server.log()
    proxy.close()


def test_a_stream_with_other_settings_stops_the_start_with_a_message(tmp_path: Any) -> None:
    node = NatsServer().start()
    try:
        first = replica(node.url)
        assert first.stop() == 0
        # One node cannot hold 3 copies: the stream exists with 1, and the start says so.
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "server.py"),
                "--port=0",
                "--metrics-port=0",
                f"--journal={node.url}",
                "--journal-replicas=3",
                f"--data-dir={tmp_path}",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1
        assert "PRICING_TABLES exists with other settings" in done.stderr
        assert "replicas is 1, expected 3" in done.stderr
    finally:
        node.stop()
