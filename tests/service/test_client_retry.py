"""The clients honour a refusal's ``google.rpc.RetryInfo``: its delay is read into
``ErrorDetails.retry_after`` and the errors the clients raise, and is the pause before a
feed's event (or a watch) is sent again; a read refused for a budget that frees up by itself
is sent again after that delay, at most ``READ_TRIES`` times and within the client's
timeout; a RESOURCE_EXHAUSTED without one is raised at once.

The reads are tried against a real server with one place for reads
(``--max-concurrent-reads 1``), held by a report that would take minutes (``Analyze`` of
20,000 blackjack shoes) until the test cancels it: the server kills its worker and the place
frees up."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from pricing.client import AsyncPricingClient, PricingClient, error_details
from pricing.client._errors import annotate
from pricing.client._shared import READ_TRIES, pause, retry_delay
from pricing.client._streams import FeedStreamError
from pricing.server.concurrency import CONCURRENCY_RETRY_SECONDS
from pricing.server.status import Refusal, rich_status
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess, start_server

pytestmark = pytest.mark.timeout(120)

#: What holds the one read place: a report of minutes, cancelled by the test.
SLOW = pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, shoes=20000, side_bet="PAIRS")
#: A cheap read: its answer needs nothing but the server.
QUOTE = ("HILO", ["7H"])
LIMIT = {"limit": "max-concurrent-reads", "value": "1"}

T = TypeVar("T")


def limit_trailers(limit: str, retry_after: float | None) -> grpc.aio.Metadata:
    """The trailer the server answers a refusal by ``--limit`` with (its own encoder), with a
    ``RetryInfo`` when ``retry_after`` is set."""
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    refused = Refusal(code, "LIMIT_EXCEEDED", {"limit": limit}, retry_after)
    status = rich_status(refused, f"the limit --{limit}")
    return grpc.aio.Metadata(*rpc_status.to_status(status).trailing_metadata)


def refusal(retry_after: float | None) -> grpc.aio.AioRpcError:
    """An error as the server refuses a read with when --max-concurrent-reads is full."""
    trailers = limit_trailers("max-concurrent-reads", retry_after)
    return grpc.aio.AioRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.aio.Metadata(), trailers)


def test_error_details_read_the_retry_info() -> None:
    busy = refusal(0.25)
    assert error_details(busy).retry_after == 0.25
    assert annotate(busy).retry_after == 0.25  # type: ignore[attr-defined]
    assert annotate(refusal(None)).retry_after is None  # type: ignore[attr-defined]
    assert error_details(refusal(None)).reason == "LIMIT_EXCEEDED"
    # A RetryInfo with no ErrorInfo (another service's status) is read all the same.
    status = status_pb2.Status(code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], message="m")
    status.details.add().Pack(
        error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=2, nanos=5 * 10**8))
    )
    trailers = grpc.aio.Metadata(*rpc_status.to_status(status).trailing_metadata)
    bare = grpc.aio.AioRpcError(grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.aio.Metadata(), trailers)
    assert (error_details(bare).reason, error_details(bare).retry_after) == (None, 2.5)
    assert FeedStreamError(grpc.StatusCode.UNAVAILABLE, "ended").retry_after is None
    # The pause before sending again: the server's delay, else the client's own backoff.
    assert pause(busy, 3) == 0.25
    assert pause(refusal(None), 3) == retry_delay(3)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = start_server("--max-concurrent-reads=1", "--max-message-bytes=2048")
    yield process
    assert process.stop() == 0, process.log()


@pytest.fixture
def holder(server: ServerProcess) -> Iterator[grpc.Future]:
    """A report holding the server's one read place (checked: a read is refused), cancelled
    when the test ends if the test has not."""
    held = hold_the_read_place(server)
    yield held
    held.cancel()


def hold_the_read_place(server: ServerProcess) -> grpc.Future:
    pricing = server.pricing()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        held = pricing.Analyze.future(SLOW, timeout=90)
        while not held.done():  # until the report has the place, or was refused it
            try:
                pricing.ListTables(pb.ListTablesRequest(), timeout=10)
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, exc.details()
                return held
        # The report came while a probe held the place, and was refused: again.
    raise AssertionError("the report never held the read place")


def pausing(pauses: list[float], then: Callable[[float], T]) -> Callable[[float], T]:
    """A client's sleep (handed to it, not ``time``'s or ``asyncio``'s, which gRPC's own code
    may use) that records each pause, then does ``then`` (a coroutine function for the asyncio
    client)."""

    def sleep(seconds: float) -> T:
        pauses.append(seconds)
        return then(seconds)

    return sleep


def freeing(holder: grpc.Future) -> Callable[[float], None]:
    """While the client waits, the report is cancelled: its place frees up."""

    def wait(seconds: float) -> None:
        holder.cancel()
        time.sleep(seconds)

    return wait


def no_wait(seconds: float) -> None:
    """The place stays taken: nothing is waited for."""


def test_a_read_refused_with_retry_info_is_sent_again_after_its_delay_and_answered(
    server: ServerProcess, holder: grpc.Future
) -> None:
    pauses: list[float] = []
    sleep = pausing(pauses, freeing(holder))
    with PricingClient(server.target, timeout=10, sleep=sleep) as client:
        try:
            answer = client.quote(*QUOTE)
        except grpc.RpcError as exc:
            pytest.fail(f"not sent again: {exc.code().name} ({exc.details()})")
    assert answer.prices  # answered once the place was free
    assert pauses and set(pauses) == {CONCURRENCY_RETRY_SECONDS}  # the server's delay


def test_the_async_client_sends_a_read_again_alike(
    server: ServerProcess, holder: grpc.Future
) -> None:
    pauses: list[float] = []

    async def wait(seconds: float) -> None:
        holder.cancel()
        await asyncio.sleep(seconds)

    sleep = pausing(pauses, wait)

    async def quote() -> pb.QuoteResponse:
        async with AsyncPricingClient(server.target, timeout=10, sleep=sleep) as client:
            return await client.quote(*QUOTE)

    try:
        answer = asyncio.run(quote())
    except grpc.RpcError as exc:
        pytest.fail(f"not sent again: {exc.code().name} ({exc.details()})")
    assert answer.prices
    assert pauses and set(pauses) == {CONCURRENCY_RETRY_SECONDS}


def test_a_read_is_sent_at_most_read_tries_times_then_the_last_refusal_raised(
    server: ServerProcess, holder: grpc.Future
) -> None:
    pauses: list[float] = []
    sleep = pausing(pauses, no_wait)
    with (
        PricingClient(server.target, timeout=10, sleep=sleep) as client,
        pytest.raises(grpc.RpcError) as info,
    ):
        client.get_table("anything")
    err = info.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert (err.reason, dict(err.metadata)) == ("LIMIT_EXCEEDED", LIMIT)  # type: ignore[attr-defined]
    assert err.retry_after == CONCURRENCY_RETRY_SECONDS  # type: ignore[attr-defined]
    assert pauses == [CONCURRENCY_RETRY_SECONDS] * (READ_TRIES - 1)


@pytest.mark.serial
def test_a_read_is_never_sent_again_past_the_clients_timeout(
    server: ServerProcess, holder: grpc.Future
) -> None:
    """A timeout of 0.35 s leaves room for 3 pauses of 0.1 s, not the 4 ``READ_TRIES``
    would allow: the whole call is bounded by the timeout, as a call sent once is."""
    pauses: list[float] = []
    sleep = pausing(pauses, time.sleep)
    timeout = 0.35
    started = time.monotonic()
    with (
        PricingClient(server.target, timeout=timeout, sleep=sleep) as client,
        pytest.raises(grpc.RpcError),
    ):
        client.list_tables()
    assert sum(pauses) < timeout and len(pauses) < READ_TRIES - 1, pauses
    assert time.monotonic() - started < timeout + 0.5


def test_a_resource_exhausted_without_retry_info_is_raised_at_once(
    server: ServerProcess,
) -> None:
    """A request over --max-message-bytes would be refused again: never sent again."""

    def never(seconds: float) -> None:
        pytest.fail(f"sent again after {seconds} s")

    with (
        PricingClient(server.target, timeout=10, sleep=never) as client,
        pytest.raises(grpc.RpcError) as info,
    ):
        client.quote("BLACKJACK", ["10S"] * 500, decks=8)
    err = info.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert err.metadata["limit"] == "max-message-bytes"  # type: ignore[attr-defined]
    assert err.retry_after is None  # type: ignore[attr-defined]
