"""End to end: DealerService.Feed, the dealer's events on one stream, against the real server.

Each event on a stream must be answered exactly as its own call would answer it (the
differential test sends the same random scripts both ways); a rejected event ends the stream
with its call's status and changes nothing; a shutdown ends a waiting stream at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.cards import DECK
from pricing.client import AsyncPricingClient, PricingClient
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.natsserver import free_port
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import (
    FEED_CALLS,
    FeedStream,
    event,
    metric,
    scraped,
    wait_for,
    without_figures,
)

pytestmark = pytest.mark.timeout(180)

CARDS = [str(c) for c in DECK]


def by_call(dealer: pb_grpc.DealerServiceStub, request: pb.FeedRequest) -> pb.TableState:
    """The same event through its own unary call."""
    kind = str(request.WhichOneof("event"))
    state: pb.TableState = getattr(dealer, FEED_CALLS[kind])(getattr(request, kind), timeout=30)
    return state


Outcome = tuple[str, bytes | str]


def outcome(table_id: str, answer: Any) -> Outcome:
    """What an event came to, with the table's own id taken out (the two tables differ in it)
    and the main game's figures (whether an answer carries its round's edge depends on when
    the analyzer finished, not on the event)."""
    if isinstance(answer, grpc.RpcError):
        return (answer.code().name, (answer.details() or "").replace(table_id, "<table>"))
    assert isinstance(answer, pb.TableState)
    answer.table_id = ""
    return ("OK", without_figures(answer).SerializeToString(deterministic=True))


# A step of a random script: (kind, card, role, seq offset from the table's next seq).
step = st.tuples(
    st.sampled_from(["expose_card"] * 12 + ["void_round", "end_round", "new_shoe", "close_table"]),
    st.sampled_from(CARDS),
    st.sampled_from(
        [pb.CARD_ROLE_BURN, pb.CARD_ROLE_RESULT, pb.CARD_ROLE_PLAYER, pb.CARD_ROLE_DEALER]
    ),
    st.sampled_from([0] * 10 + [-1, 1]),
)
_ids = itertools.count(1)


@pytest.mark.parametrize("game", [pb.GAME_HILO, pb.GAME_BLACKJACK, pb.GAME_GOA_GAE])
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(script=st.lists(step, min_size=1, max_size=30))
def test_each_event_on_a_stream_is_answered_as_its_call_answers_it(
    server: ServerProcess, game: int, script: list[tuple[str, str, int, int]]
) -> None:
    dealer = server.dealer()
    n = next(_ids)
    by_unary, by_stream = f"feed-call-{n}", f"feed-stream-{n}"
    for table_id in (by_unary, by_stream):
        dealer.OpenTable(pb.OpenTableRequest(table_id=table_id, game=game))  # type: ignore[arg-type]
    next_seq = {by_unary: 1, by_stream: 1}
    stream: FeedStream | None = None
    for kind, card, role, offset in script:
        answers: dict[str, Any] = {}
        for table_id in (by_unary, by_stream):
            request = event(table_id, next_seq[table_id] + offset, kind, card, role)
            try:
                if table_id == by_unary:
                    answers[table_id] = by_call(dealer, request)
                else:
                    stream = stream or FeedStream(dealer)
                    stream.send(request)
                    answers[table_id] = stream.answer()
            except grpc.RpcError as exc:
                answers[table_id] = exc
                stream = None  # a rejected event ended the stream: the feed opens another
            else:
                next_seq[table_id] = answers[table_id].last_seq + 1
        assert outcome(by_stream, answers[by_stream]) == outcome(by_unary, answers[by_unary])
    if stream is not None:
        stream.done()
        assert list(stream.call) == []


def test_a_stream_answers_in_order_and_watchers_see_every_version(
    server: ServerProcess, table_id: str
) -> None:
    dealer = server.dealer()
    dealer.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
    watcher = Watcher(server.pricing(), table_id)
    assert watcher.next().version == 1
    stream = FeedStream(dealer)
    cards = CARDS[:15]  # a deck's 5 opening burns and 10 results (docs/rules.md §1.1)
    roles = [pb.CARD_ROLE_BURN] * 5 + [pb.CARD_ROLE_RESULT] * 10
    for seq, (card, role) in enumerate(zip(cards, roles, strict=True), 1):
        stream.send(event(table_id, seq, "expose_card", card, role))  # all before any answer
    answers = [stream.answer() for _ in cards]
    assert [a.last_seq for a in answers] == list(range(1, 16))
    assert [a.version for a in answers] == list(range(2, 17))
    assert list(answers[-1].exposed)[-1] == cards[-1]
    assert watcher.until(16) == answers[-1]
    stream.done()
    assert list(stream.call) == []
    watcher.cancel()


def test_a_rejected_event_ends_the_stream_and_a_resent_one_is_not_applied_twice(
    server: ServerProcess, table_id: str
) -> None:
    dealer = server.dealer()
    dealer.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
    stream = FeedStream(dealer)
    stream.send(event(table_id, 1, "expose_card", "2S", pb.CARD_ROLE_BURN))
    first = stream.answer()
    stream.send(event(table_id, 2, "expose_card", "ZZ", pb.CARD_ROLE_BURN))
    stream.send(
        event(table_id, 2, "expose_card", "3S", pb.CARD_ROLE_BURN)
    )  # never read: the stream ended
    with pytest.raises(grpc.RpcError) as info:
        stream.answer()
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'ZZ'" in (info.value.details() or "")
    table = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert table == first  # the card before it stands; the bad one and the one after: nothing
    again = FeedStream(dealer)
    again.send(
        event(table_id, 1, "expose_card", "2S", pb.CARD_ROLE_BURN)
    )  # its answer was lost: resent
    assert again.answer() == first
    again.send(event(table_id, 2, "expose_card", "3S", pb.CARD_ROLE_BURN))
    assert again.answer().version == first.version + 1
    again.done()
    assert list(again.call) == []


def test_the_stream_is_counted_per_message_and_by_how_it_ended(
    server: ServerProcess, table_id: str
) -> None:
    labels = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}

    def read(name: str, **more: str) -> float:
        return metric(server, name, {**labels, **more})

    def read_rejected() -> float:
        kind = {"event": "none", "grpc_code": "InvalidArgument"}
        return metric(server, "pricing_feed_rejected_total", kind)

    before = {
        "received": read("grpc_server_msg_received_total"),
        "sent": read("grpc_server_msg_sent_total"),
        "ok": read("grpc_server_handled_total", grpc_code="OK"),
        "bad": read("grpc_server_handled_total", grpc_code="InvalidArgument"),
        "rejected": metric(
            server,
            "pricing_feed_rejected_total",
            {"event": "none", "grpc_code": "InvalidArgument"},
        ),
    }
    dealer = server.dealer()
    dealer.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
    stream = FeedStream(dealer)
    for seq, card in enumerate(["2S", "3S", "4S"], 1):
        stream.send(event(table_id, seq, "expose_card", card, pb.CARD_ROLE_BURN))
        stream.answer()
    stream.done()
    assert list(stream.call) == []
    bad = FeedStream(dealer)
    bad.send(pb.FeedRequest())
    with pytest.raises(grpc.RpcError):
        bad.answer()

    def counted() -> dict[str, float]:
        return {
            "received": read("grpc_server_msg_received_total") - before["received"],
            "sent": read("grpc_server_msg_sent_total") - before["sent"],
            "ok": read("grpc_server_handled_total", grpc_code="OK") - before["ok"],
            "bad": read("grpc_server_handled_total", grpc_code="InvalidArgument") - before["bad"],
            "rejected": read_rejected() - before["rejected"],
        }

    # The status reaches the client before the server's metrics wrapper has counted it.
    expected = {"received": 4, "sent": 3, "ok": 1, "bad": 1, "rejected": 1}
    assert scraped(counted, lambda now: now == expected) == expected


@pytest.fixture
def slow_to_stop() -> Iterator[ServerProcess]:
    """A server whose grace period is long: what ends a stream at once is not the grace."""
    process = start_server("--grace=10")
    yield process
    if process.proc.poll() is None:
        process.stop()


def test_a_shutdown_ends_a_waiting_stream_at_once_with_unavailable(
    slow_to_stop: ServerProcess,
) -> None:
    dealer = slow_to_stop.dealer()
    dealer.OpenTable(pb.OpenTableRequest(table_id="waiting", game=pb.GAME_HILO))
    stream = FeedStream(dealer)
    stream.send(event("waiting", 1, "expose_card", "2S", pb.CARD_ROLE_BURN))
    assert stream.answer().last_seq == 1
    t0 = time.monotonic()
    slow_to_stop.proc.send_signal(signal.SIGTERM)
    with pytest.raises(grpc.RpcError) as info:
        stream.answer()
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE, info.value.details()
    assert "open a new Feed stream" in (info.value.details() or "")
    assert slow_to_stop.proc.wait(25) == 0
    assert time.monotonic() - t0 < 5, "the shutdown waited for the grace period"


def test_the_async_client_feeds_on_one_stream_and_opens_another_after_a_refusal(
    server: ServerProcess, table_id: str
) -> None:
    started = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}
    streams_before = metric(server, "grpc_server_started_total", started)

    async def run() -> tuple[list[pb.TableState], grpc.aio.AioRpcError]:
        async with AsyncPricingClient(server.target) as client:
            feed = client.feed(table_id, streamed=True)
            await feed.open("HILO")
            states = [await feed.expose(card, "BURN") for card in ("2S", "3S")]
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await feed.expose("ZZ", "BURN")
            states.append(await feed.expose("4S", "BURN"))  # on a new stream, the same seq
            states.append(await feed.new_shoe())
            await feed.end_stream()
            return states, info.value

    states, refusal = asyncio.run(run())
    assert refusal.code() == grpc.StatusCode.INVALID_ARGUMENT and "'ZZ'" in refusal.details()
    assert [s.last_seq for s in states] == [1, 2, 3, 4]
    assert list(states[2].exposed) == ["2S", "3S", "4S"] and states[3].shoe == 2
    assert metric(server, "grpc_server_started_total", started) - streams_before == 2


def test_an_answer_that_comes_too_late_is_asked_again_and_the_card_applied_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The server stops (SIGSTOP) with the card sent: the feed gives up on its stream after
    the client's timeout and resends the same seq on new streams until the server runs again
    (SIGCONT); whichever stream carried it first, the card leaves the deck once."""
    process = start_server()
    try:

        async def run() -> pb.TableState:
            async with AsyncPricingClient(process.target) as client:
                feed = client.feed("late", streamed=True)
                await feed.open("HILO")
                await feed.expose("2S", "BURN")
                client.timeout = 0.5  # from now on: an answer later than that is asked again
                process.proc.send_signal(signal.SIGSTOP)
                resume = threading.Timer(2.0, process.proc.send_signal, (signal.SIGCONT,))
                resume.start()
                try:
                    state = await feed.expose("3S", "BURN")
                finally:
                    resume.join()
                after = await feed.expose("4S", "BURN")  # its own answer, no stale one
                assert (after.last_seq, list(after.exposed)) == (3, ["2S", "3S", "4S"])
                await feed.end_stream()
                return state

        state = asyncio.run(run())
        assert (state.last_seq, list(state.exposed)) == (2, ["2S", "3S"])
        table = process.pricing().GetTable(pb.GetTableRequest(table_id="late"))
        assert (table.version, table.last_seq, table.cards_remaining) == (4, 3, 49)
        resent = [r.getMessage() for r in caplog.records if "resending seq 2" in r.getMessage()]
        assert resent and all("DEADLINE_EXCEEDED" in m for m in resent), resent
    finally:
        process.proc.send_signal(signal.SIGCONT)
        assert process.stop() == 0


def test_an_event_cut_off_by_end_stream_is_not_resent() -> None:
    """The caller ends the feed's stream (from another thread, or another task) while an event
    waits for its answer: the event fails at once, CANCELLED or UNAVAILABLE as the stream
    ended, and is not resent on a new stream (the server, stopped, never answers)."""
    process = start_server()
    try:
        with PricingClient(process.target, timeout=1) as client:
            feed = client.feed("cut-off", streamed=True)
            feed.open("HILO")
            feed.expose("2S", "BURN")
            process.proc.send_signal(signal.SIGSTOP)
            failed: list[BaseException] = []

            def expose() -> None:
                try:
                    feed.expose("3S", "BURN")
                except BaseException as exc:
                    failed.append(exc)

            sender = threading.Thread(target=expose)
            sender.start()
            wait_for(lambda: feed._open.stream is not None, what="the event's stream open")
            feed.end_stream()
            sender.join(10)
            assert not sender.is_alive(), "the event was resent after the caller ended its stream"
            assert isinstance(failed[0], grpc.RpcError) and feed.last_seq == 1
        process.proc.send_signal(signal.SIGCONT)

        async def run() -> BaseException | None:
            # No timeout of the client's: the event waits until its stream goes. The caller
            # gives its end_stream a second (the stopped server never ends the stream), so
            # end_stream cancels the stream under the waiting event.
            async with AsyncPricingClient(process.target, timeout=None) as client:
                feed = client.feed("cut-off-async", streamed=True)
                await feed.open("HILO")
                await feed.expose("2S", "BURN")  # the stream is open, the server running
                process.proc.send_signal(signal.SIGSTOP)
                sending = asyncio.create_task(feed.expose("3S", "BURN"))
                while feed._open.stream is None:  # its stream is open: the event is on it
                    await asyncio.sleep(0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(feed.end_stream(), 1)
                async with asyncio.timeout(10):
                    return (await asyncio.gather(sending, return_exceptions=True))[0]

        cut = asyncio.run(run())
        assert isinstance(cut, grpc.RpcError), repr(cut)  # not the task's CancelledError
        assert cut.code() == grpc.StatusCode.CANCELLED
    finally:
        process.proc.send_signal(signal.SIGCONT)
        assert process.stop() == 0


def test_a_streamed_feed_carries_on_across_a_restart() -> None:
    """A shutdown ends the feed's idle stream; the next event, on a new stream, waits out the
    restart (the same seq resent) and lands once on the restarted server."""
    first = start_server(f"--port={free_port()}")
    second: ServerProcess | None = None
    try:

        async def run() -> pb.TableState:
            nonlocal second
            async with AsyncPricingClient(first.target) as client:
                feed = client.feed("restarted", streamed=True)
                await feed.open("HILO")
                await feed.expose("2S", "BURN")
                assert first.stop() == 0  # the stream, waiting for its next event, ends
                second = start_server(f"--port={first.grpc_port}", data_dir=first.data_dir)
                state = await feed.expose("3S", "BURN")
                await feed.end_stream()
                return state

        state = asyncio.run(run())
        assert (state.last_seq, list(state.exposed)) == (2, ["2S", "3S"])
        assert second is not None
        table = second.pricing().GetTable(pb.GetTableRequest(table_id="restarted"))
        assert (table.last_seq, table.cards_remaining) == (2, 50)
    finally:
        if second is not None:
            assert second.stop() == 0


def test_the_blocking_client_feeds_on_one_stream_across_a_refusal_and_a_restart() -> None:
    first = start_server(f"--port={free_port()}")
    second: ServerProcess | None = None
    started = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}
    try:
        with PricingClient(first.target) as client:
            feed = client.feed("blocking", streamed=True)
            feed.open("HILO")
            states = [feed.expose(card, "BURN") for card in ("2S", "3S")]
            with pytest.raises(grpc.RpcError) as info:
                feed.expose("ZZ", "BURN")
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "'ZZ'" in (info.value.details() or "")
            states.append(feed.expose("4S", "BURN"))  # on a new stream, the same seq
            assert metric(first, "grpc_server_started_total", started) == 2
            assert first.stop() == 0  # the stream, waiting for its next event, ends
            second = start_server(f"--port={first.grpc_port}", data_dir=first.data_dir)
            states.append(feed.expose("5S", "BURN"))  # its stream ended: on a new one
            feed.end_stream()
        assert [s.last_seq for s in states] == [1, 2, 3, 4]
        assert list(states[-1].exposed) == ["2S", "3S", "4S", "5S"]
        table = second.pricing().GetTable(pb.GetTableRequest(table_id="blocking"))
        assert (table.last_seq, table.cards_remaining) == (4, 48)
    finally:
        if second is not None:
            assert second.stop() == 0


def test_the_blocking_client_asks_again_for_a_late_answer_and_the_card_lands_once() -> None:
    process = start_server()
    try:
        with PricingClient(process.target) as client:
            feed = client.feed("late-blocking", streamed=True)
            feed.open("HILO")
            feed.expose("2S", "BURN")
            client.timeout = 0.5  # from now on: an answer later than that is asked again
            process.proc.send_signal(signal.SIGSTOP)
            resume = threading.Timer(2.0, process.proc.send_signal, (signal.SIGCONT,))
            resume.start()
            try:
                state = feed.expose("3S", "BURN")
            finally:
                resume.join()
            after = feed.expose("4S", "BURN")  # its own answer, not the late one's
            feed.end_stream()
        assert (state.last_seq, after.last_seq) == (2, 3)
        assert list(after.exposed) == ["2S", "3S", "4S"]
        table = process.pricing().GetTable(pb.GetTableRequest(table_id="late-blocking"))
        assert (table.version, table.cards_remaining) == (4, 49)
        feeds = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}
        assert metric(process, "grpc_server_started_total", feeds) >= 2  # it was asked again
        ended_ok = {**feeds, "grpc_code": "OK"}  # end_stream: the last stream ended cleanly
        assert scraped(lambda: metric(process, "grpc_server_handled_total", ended_ok), bool) == 1
    finally:
        process.proc.send_signal(signal.SIGCONT)
        assert process.stop() == 0


FEED = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}


def ended(process: ServerProcess, count: int) -> float:
    """Feed streams the server has seen end, once there are ``count``. A stream the client
    cancels may be counted OK: the server may read the cancel as the end of the events."""

    def total() -> float:
        codes = ("OK", "Canceled")
        return sum(
            metric(process, "grpc_server_handled_total", {**FEED, "grpc_code": c}) for c in codes
        )

    return scraped(total, lambda seen: seen >= count)


def test_a_blocking_feed_left_or_dropped_gives_its_stream_back() -> None:
    process = start_server("--max-feeds=1")  # a stream kept open would refuse the next one
    try:
        with PricingClient(process.target) as client:
            with client.feed("left", streamed=True) as feed:
                feed.open("HILO")
                feed.expose("2S", "BURN")
            assert ended(process, 1) == 1  # leaving the with ended it
            dropped = client.feed("dropped", streamed=True)
            dropped.open("HILO")
            dropped.expose("2S", "BURN")
            del dropped
            assert ended(process, 2) == 2  # collected: its stream cancelled
            with client.feed("next", streamed=True) as feed:
                feed.open("HILO")
                assert feed.expose("2S", "BURN").last_seq == 1  # the one place is free
        assert metric(process, "pricing_limit_rejections_total", {"limit": "max-feeds"}) == 0
    finally:
        assert process.stop() == 0


def test_an_async_feed_left_or_dropped_gives_its_stream_back() -> None:
    process = start_server("--max-feeds=1")

    async def run() -> int:
        async with AsyncPricingClient(process.target) as client:
            async with client.feed("left", streamed=True) as feed:
                await feed.open("HILO")
                await feed.expose("2S", "BURN")
            assert await asyncio.to_thread(ended, process, 1) == 1
            dropped = client.feed("dropped", streamed=True)
            await dropped.open("HILO")
            await dropped.expose("2S", "BURN")
            del dropped
            assert await asyncio.to_thread(ended, process, 2) == 2
            async with client.feed("next", streamed=True) as feed:
                await feed.open("HILO")
                return (await feed.expose("2S", "BURN")).last_seq

    try:
        assert asyncio.run(run()) == 1
        assert metric(process, "pricing_limit_rejections_total", {"limit": "max-feeds"}) == 0
    finally:
        assert process.stop() == 0
