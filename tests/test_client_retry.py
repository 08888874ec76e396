"""The clients honour a refusal's ``google.rpc.RetryInfo``: its delay is read into
``ErrorDetails.retry_after`` and the errors the clients raise, and is the pause before a
feed's event (or a watch) is sent again."""

from __future__ import annotations

import grpc
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from pricing.client import error_details
from pricing.client._errors import annotate
from pricing.client._shared import pause, retry_delay
from pricing.client._streams import FeedStreamError
from pricing.server.status import Refusal, rich_status


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
