"""The client's dealer feed: it numbers events itself and, when the server cannot be reached,
resends the SAME seq after a growing pause (the server applies a seq once: docs/rules.md §5.1)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import grpc
import pytest

from pricing.client import AsyncDealerFeed, BlockingFeedStream, DealerFeed, PricingClient
from pricing.client._feed import _OpenStream
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_client_retry import limit_trailers


class Unavailable(grpc.aio.AioRpcError):
    def __init__(
        self,
        code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE,
        trailers: grpc.aio.Metadata | None = None,
    ) -> None:
        trailing = grpc.aio.Metadata() if trailers is None else trailers
        super().__init__(code, grpc.aio.Metadata(), trailing, details="down")


class FlakyServer:
    """Fails the first ``failures`` calls with ``code`` (and ``trailers``), then answers."""

    def __init__(
        self,
        failures: int,
        code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE,
        trailers: grpc.aio.Metadata | None = None,
    ) -> None:
        self.failures = failures
        self.code = code
        self.trailers = trailers
        self.seqs: list[int] = []
        self.closed = False  # as the client's: True once its caller closed it

    def expose_card(
        self, table_id: str, seq: int, card: str, role: object, seat: int = 0
    ) -> pb.TableState:
        self.seqs.append(seq)
        if len(self.seqs) <= self.failures:
            raise Unavailable(self.code, self.trailers)
        return pb.TableState(table_id=table_id, last_seq=seq)


def test_a_retry_resends_the_same_seq_after_a_growing_pause(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pauses: list[float] = []
    server = FlakyServer(failures=2)
    feed = DealerFeed(server, "t", retries=3, sleep=pauses.append)  # type: ignore[arg-type]
    assert feed.expose("7H").last_seq == 1
    assert server.seqs == [1, 1, 1]
    assert pauses == [0.05, 0.1]
    said = [r.getMessage() for r in caplog.records if r.name == "pricing.client"]
    assert said == [  # the pause it then takes
        "table 't': UNAVAILABLE, resending seq 1 in 0.05 s",
        "table 't': UNAVAILABLE, resending seq 1 in 0.10 s",
    ]
    feed.expose("8H")
    assert server.seqs[-1] == 2 and feed.last_seq == 2


def test_it_gives_up_after_its_retries_and_keeps_its_seq() -> None:
    server = FlakyServer(failures=10)
    feed = DealerFeed(server, "t", retries=2, sleep=lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(grpc.RpcError):
        feed.expose("7H")
    assert server.seqs == [1, 1, 1] and feed.last_seq == 0


def test_a_refusal_is_not_retried() -> None:
    server = FlakyServer(failures=1, code=grpc.StatusCode.FAILED_PRECONDITION)
    feed = DealerFeed(server, "t", sleep=lambda _: pytest.fail("no retry expected"))  # type: ignore[arg-type]
    with pytest.raises(grpc.RpcError):
        feed.expose("7H")
    assert server.seqs == [1]


def test_a_refusal_for_a_budget_that_frees_up_is_resent_after_its_retry_info(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """RESOURCE_EXHAUSTED with a RetryInfo (--max-concurrent-writes full): the same seq again,
    after the delay the server asked for instead of the feed's own backoff."""
    pauses: list[float] = []
    busy = limit_trailers("max-concurrent-writes", retry_after=0.3)
    server = FlakyServer(failures=2, code=grpc.StatusCode.RESOURCE_EXHAUSTED, trailers=busy)
    feed = DealerFeed(server, "t", sleep=pauses.append)  # type: ignore[arg-type]
    try:
        state = feed.expose("7H")
    except grpc.RpcError as exc:
        pytest.fail(f"not resent: {exc.code().name} raised at once")
    assert state.last_seq == 1
    assert server.seqs == [1, 1, 1] and pauses == [0.3, 0.3]
    said = [r.getMessage() for r in caplog.records if r.name == "pricing.client"]
    assert said == ["table 't': RESOURCE_EXHAUSTED, resending seq 1 in 0.30 s"] * 2


def test_a_refusal_without_retry_info_is_not_resent() -> None:
    """RESOURCE_EXHAUSTED without one (--max-events-per-second, --max-tables) would be refused
    again: raised at once, with no delay to say."""
    refused = limit_trailers("max-events-per-second", retry_after=None)
    server = FlakyServer(failures=1, code=grpc.StatusCode.RESOURCE_EXHAUSTED, trailers=refused)
    feed = DealerFeed(server, "t", sleep=lambda _: pytest.fail("no resend expected"))  # type: ignore[arg-type]
    with pytest.raises(grpc.RpcError) as info:
        feed.expose("7H")
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert info.value.retry_after is None  # type: ignore[attr-defined]
    assert info.value.metadata == {"limit": "max-events-per-second"}  # type: ignore[attr-defined]
    assert server.seqs == [1]


@pytest.mark.parametrize("closed", [False, True])
def test_a_call_the_server_cancelled_is_resent_but_not_one_the_caller_cut_off(
    closed: bool,
) -> None:
    """CANCELLED from the server (a call cut off by its shutdown) is resent with the same seq;
    CANCELLED because the caller closed the client is not."""
    server = FlakyServer(failures=1, code=grpc.StatusCode.CANCELLED)
    server.closed = closed
    feed = DealerFeed(server, "t", sleep=lambda _: None)  # type: ignore[arg-type]
    if closed:
        with pytest.raises(grpc.RpcError) as info:
            feed.expose("7H")
        assert info.value.code() == grpc.StatusCode.CANCELLED
        assert server.seqs == [1] and feed.last_seq == 0
    else:
        assert feed.expose("7H").last_seq == 1
        assert server.seqs == [1, 1]


def test_the_async_feed_retries_alike() -> None:
    pauses: list[float] = []

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    class AsyncFlaky(FlakyServer):
        async def expose_card(  # type: ignore[override]
            self, table_id: str, seq: int, card: str, role: object, seat: int = 0
        ) -> pb.TableState:
            return FlakyServer.expose_card(self, table_id, seq, card, role, seat)

    server = AsyncFlaky(failures=1)
    feed = AsyncDealerFeed(server, "t", sleep=record)  # type: ignore[arg-type]
    state = asyncio.run(feed.expose("7H"))
    assert state.last_seq == 1 and server.seqs == [1, 1] and pauses == [0.05]
    # CANCELLED by the server: resent; by the caller closing the client: not.
    server = AsyncFlaky(failures=1, code=grpc.StatusCode.CANCELLED)
    assert asyncio.run(AsyncDealerFeed(server, "t").expose("7H")).last_seq == 1  # type: ignore[arg-type]
    assert server.seqs == [1, 1]
    server = AsyncFlaky(failures=1, code=grpc.StatusCode.CANCELLED)
    server.closed = True
    with pytest.raises(grpc.RpcError):
        asyncio.run(AsyncDealerFeed(server, "t").expose("7H"))  # type: ignore[arg-type]
    assert server.seqs == [1]


class FakeFeedCall:
    """Stands in for gRPC's blocking bidi call: answers each event it reads with the given
    answers in turn, then ends with ``ending`` (an RpcError, or None: OK)."""

    def __init__(self, answers: list[pb.TableState], ending: grpc.RpcError | None) -> None:
        self.answers, self.ending = answers, ending
        self.events: list[pb.FeedRequest] = []
        self.cancelled = False
        self.requests: Iterator[pb.FeedRequest] = iter(())

    def __call__(self, requests: Iterator[pb.FeedRequest], metadata: object) -> FakeFeedCall:
        self.requests = requests
        return self

    def __iter__(self) -> Iterator[pb.TableState]:
        for answer in self.answers:
            self.events.append(next(self.requests))
            yield answer
        next(self.requests)  # one more event, then the end
        if self.ending is not None:
            raise self.ending

    def cancel(self) -> None:
        self.cancelled = True


class Ended(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return f"ended {self._code.name}"


EVENT = pb.FeedRequest(new_shoe=pb.NewShoeRequest(table_id="t", seq=1))


@pytest.mark.parametrize(
    ("ending", "raised"),
    [
        (None, grpc.StatusCode.UNAVAILABLE),  # ended OK without an answer: resend
        (Ended(grpc.StatusCode.CANCELLED), grpc.StatusCode.UNAVAILABLE),
        (Ended(grpc.StatusCode.UNAVAILABLE), grpc.StatusCode.UNAVAILABLE),
        (Ended(grpc.StatusCode.INTERNAL), grpc.StatusCode.INTERNAL),  # a server's bug: as it is
        (Ended(grpc.StatusCode.INVALID_ARGUMENT), grpc.StatusCode.INVALID_ARGUMENT),
    ],
)
def test_a_blocking_feed_stream_ends_with_the_servers_status_or_unavailable(
    ending: grpc.RpcError | None, raised: grpc.StatusCode
) -> None:
    answer = pb.TableState(table_id="t", last_seq=1)
    call = FakeFeedCall([answer], ending)
    stream = BlockingFeedStream(call, ())
    assert stream.exchange(EVENT, 5) == answer
    for _ in range(2):  # and every later event hears the same
        with pytest.raises(grpc.RpcError) as info:
            stream.exchange(EVENT, 5)
        assert info.value.code() == raised
        if ending is not None and raised == ending.code():
            assert info.value is ending  # the server's own error, details and all
    stream.cancel()


def test_a_late_answer_gives_the_stream_up_and_ends_grpcs_reading_of_events() -> None:
    silent = Silent()
    stream = BlockingFeedStream(silent, ())
    with pytest.raises(grpc.RpcError) as info:
        stream.exchange(EVENT, 0.05)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert silent.cancelled.is_set()
    with pytest.raises(grpc.RpcError) as again:  # never the late answer to another event
        stream.exchange(EVENT, 5)
    assert again.value.code() == grpc.StatusCode.UNAVAILABLE
    rest: list[pb.FeedRequest] = []
    reader = threading.Thread(target=lambda: rest.extend(silent.requests), daemon=True)
    reader.start()  # as gRPC's thread sending the events would
    reader.join(5)
    assert not reader.is_alive(), "the events' iterator never ends: gRPC's thread would leak"
    assert rest == [EVENT]


class Silent:
    """A call that reads nothing and answers only once cancelled, too late (a stopped
    server's answer that arrives as the client gives up)."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.requests: Iterator[pb.FeedRequest] = iter(())

    def __call__(self, requests: Iterator[pb.FeedRequest], metadata: object) -> Silent:
        self.requests = requests
        return self

    def __iter__(self) -> Iterator[pb.TableState]:
        self.cancelled.wait(10)
        yield pb.TableState(table_id="t", last_seq=1)  # the late answer
        raise Ended(grpc.StatusCode.CANCELLED)

    def cancel(self) -> None:
        self.cancelled.set()


class Held:
    """A stream in a feed's holder: records how it was ended, and from which thread."""

    def __init__(self) -> None:
        self.cancelled_in: list[threading.Thread] = []
        self.ended = False

    def cancel(self) -> None:
        self.cancelled_in.append(threading.current_thread())

    def end(self, timeout: float | None) -> None:
        self.ended = True


def test_a_collected_async_feed_cancels_its_stream_on_the_streams_own_loop() -> None:
    held = Held()

    async def collected_elsewhere() -> list[threading.Thread]:
        holder: _OpenStream[Held] = _OpenStream()
        holder.stream, holder.loop = held, asyncio.get_running_loop()
        await asyncio.to_thread(holder.cancel)  # the collector ran in a worker thread
        await asyncio.sleep(0)  # the loop's turn
        return held.cancelled_in

    assert asyncio.run(collected_elsewhere()) == [threading.main_thread()]
    late = Held()
    holder: _OpenStream[Held] = _OpenStream()
    loop = asyncio.new_event_loop()
    loop.close()
    holder.stream, holder.loop = late, loop
    holder.cancel()  # its loop gone: nothing to cancel on, and no error
    assert late.cancelled_in == [] and holder.stream is None


@pytest.mark.parametrize(
    ("raised", "ended", "cancelled"),
    [(None, True, False), (RuntimeError, True, False), (KeyboardInterrupt, False, True)],
)
def test_leaving_a_feed_ends_its_stream_and_an_interrupt_cancels_it_at_once(
    raised: type[BaseException] | None, ended: bool, cancelled: bool
) -> None:
    held = Held()
    feed = DealerFeed(PricingClient.__new__(PricingClient), "t")
    feed.client.timeout = 5
    feed._open.stream = held  # type: ignore[assignment]
    try:
        with feed:
            if raised is not None:
                raise raised
    except BaseException as exc:
        assert type(exc) is raised
    assert (held.ended, bool(held.cancelled_in)) == (ended, cancelled)
    assert feed._open.stream is None
