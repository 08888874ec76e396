"""Every limit reached against the real server: RESOURCE_EXHAUSTED naming the limit and its
value, counted in pricing_limit_rejections_total{limit}, the server healthy and other tables
unaffected."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.cards import DECK
from pricing.server.auth import TokenStore
from pricing.server.auth_interceptor import AuthInterceptor
from pricing.server.concurrency import ConcurrencyInterceptor
from pricing.server.limits import LimitExceeded, Limits, TableRates, TokenBucket, grpc_options
from pricing.server.metrics import Metrics
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import Feed, FeedStream, event, expect_error, metric

pytestmark = pytest.mark.timeout(120)


def serving(server: ServerProcess) -> bool:
    stub = health_pb2_grpc.HealthStub(server.channel())
    response = stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
    return response.status == health_pb2.HealthCheckResponse.SERVING


def rejections(server: ServerProcess, limit: str) -> float:
    return metric(server, "pricing_limit_rejections_total", {"limit": limit})


def test_max_tables() -> None:
    server = start_server("--max-tables=3")
    try:
        feeds = [Feed(server, f"t{i}") for i in range(3)]
        for feed in feeds:
            feed.open()
        expect_error(
            Feed(server, "t3").open, grpc.StatusCode.RESOURCE_EXHAUSTED, "--max-tables is 3"
        )
        assert feeds[0].open().version == 1  # re-joining a table is not a new one
        assert feeds[1].expose("2S").version == 2  # the tables there carry on
        assert rejections(server, "max-tables") == 1 and serving(server)
    finally:
        assert server.stop() == 0


def test_max_feeds() -> None:
    server = start_server("--max-feeds=2")
    streams: list[FeedStream] = []
    try:
        dealer = server.dealer()
        for table in ("a", "b", "c"):
            dealer.OpenTable(pb.OpenTableRequest(table_id=table, game=pb.GAME_HILO))
        for table in ("a", "b"):
            streams.append(FeedStream(dealer))
            streams[-1].send(event(table, 1, "expose_card", "2S", pb.CARD_ROLE_BURN))
            assert streams[-1].answer().last_seq == 1
        over = FeedStream(dealer)
        over.send(event("c", 1, "expose_card", "2S", pb.CARD_ROLE_BURN))
        with pytest.raises(grpc.RpcError) as info:
            over.answer()
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "--max-feeds is 2" in (info.value.details() or "")
        assert rejections(server, "max-feeds") == 1 and serving(server)
        assert Feed(server, "c").expose("2S").last_seq == 1  # calls are not Feed streams
        streams[0].send(event("a", 2, "expose_card", "3S", pb.CARD_ROLE_BURN))
        assert streams[0].answer().last_seq == 2  # the open streams go on
        streams.pop().done()  # a stream ending frees its place
        for attempt in range(100):
            again = FeedStream(dealer)
            again.send(event("b", 1, "expose_card", "2S", pb.CARD_ROLE_BURN))  # a repeat: answered
            try:
                assert again.answer().last_seq == 1
                break
            except grpc.RpcError as exc:  # the ended stream's place not yet given back
                assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and attempt < 99
        again.done()
    finally:
        for stream in streams:
            stream.done()
        assert server.stop() == 0


def test_max_watchers_in_all_and_per_table() -> None:
    server = start_server("--max-watchers=3", "--max-watchers-per-table=2")
    watchers: list[Watcher] = []
    try:
        a, b = Feed(server, "a"), Feed(server, "b")
        a.open()
        b.open()
        pricing = server.pricing()
        for table in ("a", "a", "b"):
            watchers.append(Watcher(pricing, table))
            watchers[-1].next()
        over_table = Watcher(pricing, "a")
        assert over_table.end() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "--max-watchers-per-table is 2" in over_table.call.details()
        over_all = Watcher(pricing, "b")
        assert over_all.end() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "--max-watchers is 3" in over_all.call.details()
        assert b.expose("2S").version == 2
        assert watchers[2].next().version == 2  # the streams in place go on
        assert rejections(server, "max-watchers-per-table") == 1
        assert rejections(server, "max-watchers") == 1 and serving(server)
        watchers.pop().cancel()  # a stream ending frees its place
        deadline = time.monotonic() + 10
        while True:
            again = Watcher(pricing, "b")
            item = again.states.get(timeout=10)
            if isinstance(item, pb.TableState):
                again.cancel()
                break
            assert time.monotonic() < deadline, item
    finally:
        for w in watchers:
            w.cancel()
        assert server.stop() == 0


def test_max_message_bytes() -> None:
    server = start_server("--max-message-bytes=2048")
    try:
        pricing = server.pricing()
        big = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=["10S"] * 500)
        expect_error(
            lambda: pricing.Quote(big),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "--max-message-bytes is 2048",
        )
        small = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=[str(c) for c in DECK] * 2)
        assert pricing.Quote(small).game == pb.GAME_BLACKJACK
        assert rejections(server, "max-message-bytes") == 1 and serving(server)
    finally:
        assert server.stop() == 0


@pytest.mark.serial
def test_max_events_per_second_per_table() -> None:
    server = start_server("--max-events-per-second=5")
    try:
        fast, calm = Feed(server, "fast"), Feed(server, "calm")
        fast.open()
        calm.open()
        accepted = refused = 0
        for card in ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]:
            try:
                fast.expose(card)
                accepted += 1
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "--max-events-per-second is 5.0" in (exc.details() or "")
                fast.seq -= 1  # not applied: the next card takes the same seq
                refused += 1
        assert refused >= 1 and accepted >= 5
        state = server.pricing().GetTable(pb.GetTableRequest(table_id="fast"))
        assert state.last_seq == accepted  # nothing refused was applied
        assert calm.expose("2S").version == 2  # another table has its own bucket
        assert rejections(server, "max-events-per-second") == refused and serving(server)
    finally:
        assert server.stop() == 0


def test_an_idle_connection_is_closed_by_the_server() -> None:
    server = start_server("--idle-seconds=1")
    try:
        channel = server.channel()
        assert serving(server)
        Feed(server, "idle").open()
        stub = health_pb2_grpc.HealthStub(channel)
        stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
        states: list[grpc.ChannelConnectivity] = []
        channel.subscribe(states.append)
        deadline = time.monotonic() + 15
        while grpc.ChannelConnectivity.IDLE not in states[1:]:
            assert time.monotonic() < deadline, states
            time.sleep(0.1)
    finally:
        assert server.stop() == 0


def test_the_transport_settings_follow_the_limits() -> None:
    options = dict(grpc_options(Limits(keepalive_seconds=30, idle_seconds=60)))
    assert options["grpc.keepalive_time_ms"] == 30_000
    assert options["grpc.max_connection_idle_ms"] == 60_000
    assert options["grpc.max_receive_message_length"] > Limits().max_message_bytes
    # Every call the limits let in can wait for a handler: none is cancelled unseen.
    limits = Limits(
        max_watchers=70_000, max_concurrent_writes=300, max_concurrent_reads=200, max_feeds=20
    )
    options = dict(grpc_options(limits))
    assert options["grpc.server.max_pending_requests_hard_limit"] == 70_520


@pytest.mark.serial
def test_a_burst_of_opens_beyond_grpcs_default_pending_limit_is_served_or_refused() -> None:
    """5,000 WatchTable streams opened at once (gRPC cancels calls past 3,000 waiting for a
    handler by default, unseen by the service): every one gets its first state or
    RESOURCE_EXHAUSTED from --max-watchers, counted; none is lost (CANCELLED or anything else)."""
    server = start_server("--max-watchers=4000")
    try:
        Feed(server, "burst").open()
        outcomes = asyncio.run(_open_at_once(server.target, "burst", 5000))
        assert outcomes == {"served": 4000, "RESOURCE_EXHAUSTED": 1000}
        assert rejections(server, "max-watchers") == 1000 and serving(server)
    finally:
        assert server.stop() == 0


async def _open_at_once(target: str, table_id: str, streams: int) -> dict[str, int]:
    """Each stream's outcome: its first state ('served') or its status code's name. The
    served streams stay open until every stream has its outcome."""
    outcomes: dict[str, int] = {}
    done = asyncio.Event()
    async with grpc.aio.insecure_channel(target) as channel:
        watch = channel.unary_stream(
            "/pricing.v1.PricingService/WatchTable",
            request_serializer=pb.WatchTableRequest.SerializeToString,
        )

        async def one() -> None:
            call = watch(pb.WatchTableRequest(table_id=table_id), timeout=60)
            try:
                await call.read()
                outcome = "served"
            except grpc.aio.AioRpcError as exc:
                outcome = exc.code().name
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if sum(outcomes.values()) == streams:
                done.set()
            await done.wait()
            call.cancel()

        await asyncio.gather(*(one() for _ in range(streams)))
    return outcomes


def test_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=10, burst=10, clock=lambda: now[0])
    assert sum(bucket.take() for _ in range(20)) == 10
    now[0] = 0.35
    assert sum(bucket.take() for _ in range(20)) == 3


def test_half_an_event_a_second_lets_one_event_through_every_two_seconds() -> None:
    """A rate under one a second still holds a whole token: the first event passes, then one
    every 1 / rate seconds (a bucket that never reached one token would refuse them all)."""
    now = [0.0]
    bucket = TokenBucket(rate=0.5, burst=0.5, clock=lambda: now[0])
    rates = TableRates(0.5, clock=lambda: now[0])
    taken = []
    for second in range(7):
        now[0] = float(second)
        taken.append(bucket.take())
        try:
            rates.check("t")
            taken.append(True)
        except LimitExceeded:
            taken.append(False)
    assert taken == [True, True, False, False] * 3 + [True, True]


class _Context:
    def __init__(self) -> None:
        self.aborted: tuple[grpc.StatusCode, str] | None = None
        self.trailers: object = ()

    async def abort(
        self, code: grpc.StatusCode, details: str, trailing_metadata: object = ()
    ) -> None:
        self.aborted = (code, details)
        self.trailers = trailing_metadata  # the google.rpc.Status of the refusal
        raise RuntimeError("aborted")


class _Details:
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


def test_max_concurrent_reads_refuses_the_next_call_and_frees_its_place() -> None:
    """Handlers that wait (a write awaiting its journal) hold a place until they answer."""
    refused: list[str] = []
    limiter = ConcurrencyInterceptor(2, ("pricing.v1.PricingService",), refused.append)
    release = asyncio.Event()

    async def slow(request: Any, context: Any) -> str:
        await release.wait()
        return "done"

    handler = grpc.unary_unary_rpc_method_handler(slow)

    async def continuation(details: Any) -> Any:
        return handler

    async def run() -> None:
        method = "/pricing.v1.PricingService/Quote"
        calls, calls_handlers = [], []
        for _ in range(2):
            wrapped = await limiter.intercept_service(continuation, _Details(method))  # type: ignore[arg-type]
            calls_handlers.append(wrapped)
            calls.append(asyncio.ensure_future(wrapped.unary_unary(None, _Context())))
        assert calls_handlers[0] is calls_handlers[1]
        await asyncio.sleep(0)
        third = await limiter.intercept_service(continuation, _Details(method))  # type: ignore[arg-type]
        context = _Context()
        with pytest.raises(RuntimeError):
            await third.unary_unary(None, context)
        assert context.aborted is not None
        assert context.aborted[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "--max-concurrent-reads is 2" in context.aborted[1]
        ((key, value),) = context.trailers  # type: ignore[misc]
        status = status_pb2.Status.FromString(value)
        info = error_details_pb2.ErrorInfo()
        assert key == "grpc-status-details-bin" and status.details[0].Unpack(info)
        assert (info.reason, dict(info.metadata)) == (
            "LIMIT_EXCEEDED",
            {"limit": "max-concurrent-reads", "value": "2"},
        )
        health = await limiter.intercept_service(
            continuation, _Details("/grpc.health.v1.Health/Check")
        )  # type: ignore[arg-type]
        assert health is handler  # health is never limited
        release.set()
        assert await asyncio.gather(*calls) == ["done", "done"]
        fourth = await limiter.intercept_service(continuation, _Details(method))  # type: ignore[arg-type]
        assert await fourth.unary_unary(None, _Context()) == "done"
        # An accepted call gets the counting handler built for its method the first time, so
        # the metrics interceptor outside meets the same handler and keeps its own wrapper.
        assert fourth is calls_handlers[0]

    asyncio.run(run())
    assert refused == ["max-concurrent-reads"]


def test_the_interceptors_build_each_handler_once_for_the_metrics_to_keep(
    tmp_path: Path,
) -> None:
    """Metrics, then roles, then the concurrent-call limit, as the server chains them: over
    many calls, accepted and refused (each refusal for its own reason) in turn, the metrics
    interceptor meters each distinct handler once. If an inner interceptor handed over a new
    handler per call, the metrics would build a wrapper (closures, label lookups) per call."""
    (tmp_path / "dealer").write_text("d" * 32 + "\n")
    tokens = TokenStore(dealer_file=tmp_path / "dealer")
    metrics = Metrics()
    outer = metrics.interceptor()
    built: list[str] = []
    wrap = outer._wrap

    def counting_wrap(handler: Any, full_name: str) -> Any:
        built.append(full_name)
        return wrap(handler, full_name)

    outer._wrap = counting_wrap  # type: ignore[method-assign]
    auth = AuthInterceptor(
        tokens,
        dealer_service="pricing.v1.DealerService",
        reader_service="pricing.v1.PricingService",
    )
    limiter = ConcurrencyInterceptor(1, ("pricing.v1.DealerService",), lambda _: None)

    async def answer(request: Any, context: Any) -> str:
        return "done"

    handler = grpc.unary_unary_rpc_method_handler(answer)

    async def innermost(details: Any) -> Any:
        return handler

    async def chain(details: Any) -> Any:
        async def through_limit(d: Any) -> Any:
            return await limiter.intercept_service(innermost, d)

        async def through_auth(d: Any) -> Any:
            return await auth.intercept_service(through_limit, d)

        return await outer.intercept_service(through_auth, details)

    method = "/pricing.v1.DealerService/ExposeCard"
    dealer = _Details(method)
    dealer.invocation_metadata = (("authorization", "Bearer " + "d" * 32),)  # type: ignore[assignment]
    nobody, stranger = _Details(method), _Details(method)
    stranger.invocation_metadata = (("authorization", "Bearer " + "x" * 32),)  # type: ignore[assignment]

    async def run() -> None:
        seen = set()
        for _ in range(5):
            for details in (dealer, nobody, stranger):
                seen.add(id(await chain(details)))
        assert len(seen) == 3, seen  # accepted (or over the limit), no token, a bad token

    asyncio.run(run())
    assert built == [method] * 3


def test_a_burst_intercepted_at_once_gets_no_more_than_the_limit() -> None:
    """Calls are intercepted before their requests arrive: ten intercepted in one turn of the
    loop, then started together, must still see at most ``limit`` of them run at once."""
    refused: list[str] = []
    limiter = ConcurrencyInterceptor(3, ("pricing.v1.PricingService",), refused.append)
    release = asyncio.Event()
    running = 0

    async def slow(request: Any, context: Any) -> str:
        nonlocal running
        running += 1
        await release.wait()
        return "done"

    handler = grpc.unary_unary_rpc_method_handler(slow)

    async def continuation(details: Any) -> Any:
        return handler

    async def run() -> list[object]:
        details = _Details("/pricing.v1.PricingService/GetTable")
        handlers = [await limiter.intercept_service(continuation, details) for _ in range(10)]  # type: ignore[arg-type]
        contexts = [_Context() for _ in handlers]
        calls = [
            asyncio.ensure_future(h.unary_unary(None, c))
            for h, c in zip(handlers, contexts, strict=True)
        ]
        await asyncio.sleep(0)
        assert running == 3 and limiter.in_flight == 3
        release.set()
        results = await asyncio.gather(*calls, return_exceptions=True)
        codes = [c.aborted[0] for c in contexts if c.aborted is not None]
        assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 7
        assert limiter.in_flight == 0
        return results

    results = asyncio.run(run())
    assert results.count("done") == 3
    assert refused == ["max-concurrent-reads"] * 7
