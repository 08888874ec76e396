"""The Feed stream on each side: ``BlockingFeedStream`` (a reader thread, so that each wait for
an answer has its own deadline) and, for grpc.aio, the errors a stream the client gave up on
raises, as a call would."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol

import grpc
import grpc.aio

from pricing.client._errors import FieldViolation, annotate
from pricing.v1 import pricing_pb2 as pb


class Cancellable(Protocol):
    def cancel(self) -> object: ...


class BlockingFeedStream:
    """A Feed stream for the blocking client: events go on a queue the call reads from, and a
    thread puts the answers (or how the stream ended) on another, so each wait for an answer
    can have its own deadline. Once an answer is late the stream is given up: it would hand
    that answer to the next event."""

    def __init__(self, call: Callable[..., Any], metadata: Sequence[tuple[str, str]]) -> None:
        self._requests: queue.SimpleQueue[pb.FeedRequest | None] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[pb.TableState | grpc.RpcError | None] = queue.SimpleQueue()
        self._given_up = False
        self._cancelled = False  # by this client (``cancel``)
        self._call = call(iter(self._requests.get, None), metadata=metadata)
        self._reader = threading.Thread(target=self._read, name="feed-stream", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for answer in self._call:
                self._answers.put(answer)
            self._answers.put(None)  # ended OK
        except grpc.RpcError as exc:
            self._answers.put(exc)
        except BaseException as exc:  # not the server's: say so rather than go quiet
            self._answers.put(FeedStreamError(grpc.StatusCode.UNKNOWN, f"reading answers: {exc}"))

    def exchange(self, request: pb.FeedRequest, timeout: float | None) -> pb.TableState:
        """Send ``request``; its answer, or the stream's error: the server's own status, or
        UNAVAILABLE when it ended the stream without one (or cancelled it), CANCELLED when this
        client cancelled it (``cancel``, ``end``), DEADLINE_EXCEEDED when no answer came within
        ``timeout`` (the stream is then given up)."""
        if self._given_up:
            raise FeedStreamError(grpc.StatusCode.UNAVAILABLE, "the Feed stream was given up")
        self._requests.put(request)
        try:
            item = self._answers.get(timeout=timeout)
        except queue.Empty:
            self.cancel()
            raise FeedStreamError(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time") from None
        if isinstance(item, pb.TableState):
            return item
        self._answers.put(item)  # every later exchange hears the same
        if item is None or item.code() == grpc.StatusCode.CANCELLED:
            if self._cancelled:
                raise FeedStreamError(grpc.StatusCode.CANCELLED, "the Feed stream was cancelled")
            raise FeedStreamError(grpc.StatusCode.UNAVAILABLE, "the Feed stream ended")
        raise annotate(item)

    def end(self, timeout: float | None) -> None:
        """No more events: wait (at most ``timeout``) for the server to end the stream."""
        self._requests.put(None)
        try:
            self._reader.join(timeout)
        finally:  # ended, or the wait given up (or interrupted): nothing is left open
            self.cancel()

    def cancel(self) -> None:
        """End the stream now (nothing more is sent; gRPC's thread reading the events ends)."""
        self._given_up = self._cancelled = True
        self._call.cancel()
        self._requests.put(None)


class FeedStreamError(grpc.RpcError):
    """What a blocking Feed stream raises when the server did not say how it ended (or the
    client gave up waiting): a ``grpc.RpcError`` with a status code, as a call's error is."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self._code, self._details = code, details
        # As on a call's error (``pricing.client.error_details``): the server said nothing.
        self.reason: str | None = None
        self.metadata: Mapping[str, str] = {}
        self.field_violations: tuple[FieldViolation, ...] = ()
        self.retry_after: float | None = None

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def initial_metadata(self) -> tuple[Any, ...]:
        return ()

    def trailing_metadata(self) -> tuple[Any, ...]:  # none: the server sent no status
        return ()

    def debug_error_string(self) -> str:
        return f"{self._code.name}: {self._details}"


if TYPE_CHECKING:  # generic only in the type stubs
    FeedStream = grpc.aio.StreamStreamCall[pb.FeedRequest, pb.TableState]
else:
    FeedStream = grpc.aio.StreamStreamCall


#: How a stream that could not take an event may have ended without the server saying why:
#: as the server finished it (OK), cancelled, or failed locally (a write on a stream whose
#: end has not been read yet fails INTERNAL, "Internal error from Core").
_ENDED_UNSAID: Final = (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL)


async def ending(stream: FeedStream) -> grpc.aio.AioRpcError:
    """The error of a stream that could not take an event: the status the server ended it
    with, or UNAVAILABLE when it said none (the event was not taken: resend it)."""
    code = await stream.code()
    if code in _ENDED_UNSAID:
        return stream_error(grpc.StatusCode.UNAVAILABLE, "the Feed stream ended")
    # The trailer too: it carries the refusal's details (``error_details``).
    trailing = await stream.trailing_metadata()
    return stream_error(code, await stream.details(), trailing)


def stream_error(
    code: grpc.StatusCode, details: str, trailing: grpc.aio.Metadata | None = None
) -> grpc.aio.AioRpcError:
    """The error a call would have raised, for a stream the client gave up on."""
    trailing = grpc.aio.Metadata() if trailing is None else trailing
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), trailing, details, details)
