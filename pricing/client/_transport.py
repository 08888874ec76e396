"""The two transports the shared methods do their I/O through: ``BLOCKING`` (grpc's blocking
stubs; its coroutines never suspend, so ``_shared.run`` finishes them at once) and ``ASYNCIO``
(grpc.aio). Everything else about a call is the same on both sides and lives with the
clients and feeds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Generic, Protocol, TypeVar

import grpc
import grpc.aio

from pricing.client._streams import (
    BlockingFeedStream,
    Cancellable,
    FeedStream,
    ending,
    stream_error,
)
from pricing.v1 import pricing_pb2 as pb

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
Stream = TypeVar("Stream", bound=Cancellable)
Metadata = tuple[tuple[str, str], ...] | None
#: What a client or feed waits with: its transport's ``sleeper`` makes it a coroutine.
Sleep = Callable[[float], Any]


class HeldStream(Protocol[Stream]):
    """Where a feed holds its open Feed stream (``_feed._OpenStream``): the transport opens one
    into it, and drops one that failed."""

    stream: Stream | None
    #: The event loop an asyncio stream belongs to (None on the blocking side).
    loop: asyncio.AbstractEventLoop | None


class Watch(Protocol[T_co]):
    """A WatchTable call as the shared code reads it."""

    def __aiter__(self) -> AsyncIterator[T_co]: ...
    def cancel(self) -> object: ...


class Transport(Protocol[Stream]):
    """What a client or feed does its I/O with (``BLOCKING`` or ``ASYNCIO``)."""

    @property
    def error(self) -> type[grpc.RpcError]:
        """The error a failed call raises on this side."""

    def channel(
        self,
        target: str,
        credentials: grpc.ChannelCredentials | None,
        options: tuple[tuple[str, str], ...] = (),
    ) -> Any: ...
    async def close(self, channel: Any) -> None: ...
    async def unary(
        self, call: Callable[..., Any], request: Any, timeout: float | None, metadata: Metadata
    ) -> Any: ...
    def watch(self, call: Callable[..., Any], request: Any, metadata: Metadata) -> Watch[Any]: ...
    async def answer(self, answer: Any) -> Any:
        """What a call of the client's answered (the blocking client's is there already)."""

    def sleeper(self, sleep: Sleep | None) -> Callable[[float], Awaitable[None]]:
        """What the shared code waits with: ``sleep`` (a function on the blocking side, a
        coroutine function on the asyncio one), by default the standard library's."""

    async def exchange(
        self,
        held: HeldStream[Stream],
        open_stream: Callable[[], Stream],
        request: pb.FeedRequest,
        timeout: float | None,
    ) -> pb.TableState: ...
    def finished(self, stream: Stream) -> bool: ...
    async def end(self, stream: Stream, timeout: float | None) -> None: ...


class _Awaiting(Generic[T]):
    """A blocking call's iterator as the shared code reads it: each step done at once."""

    def __init__(self, call: Any) -> None:
        self._call = call
        self._states: Iterator[T] = iter(call)

    def __aiter__(self) -> _Awaiting[T]:
        return self

    async def __anext__(self) -> T:
        try:
            return next(self._states)
        except StopIteration:
            raise StopAsyncIteration from None

    def cancel(self) -> object:
        return self._call.cancel()


class _Blocking:
    error = grpc.RpcError

    def channel(
        self,
        target: str,
        credentials: grpc.ChannelCredentials | None,
        options: tuple[tuple[str, str], ...] = (),
    ) -> grpc.Channel:
        if credentials is None:
            return grpc.insecure_channel(target, options)
        return grpc.secure_channel(target, credentials, options)

    async def close(self, channel: grpc.Channel) -> None:
        channel.close()

    async def unary(
        self, call: Callable[..., Any], request: Any, timeout: float | None, metadata: Metadata
    ) -> Any:
        return call(request, timeout=timeout, metadata=metadata)

    def watch(self, call: Callable[..., Any], request: Any, metadata: Metadata) -> Watch[Any]:
        return _Awaiting(call(request, metadata=metadata))

    async def answer(self, answer: Any) -> Any:
        return answer

    def sleeper(self, sleep: Sleep | None) -> Callable[[float], Awaitable[None]]:
        pause = time.sleep if sleep is None else sleep

        async def wait(seconds: float) -> None:
            pause(seconds)

        return wait

    async def exchange(
        self,
        held: HeldStream[BlockingFeedStream],
        open_stream: Callable[[], BlockingFeedStream],
        request: pb.FeedRequest,
        timeout: float | None,
    ) -> pb.TableState:
        """As the asyncio side's: a stream that failed, ended or answered late is dropped
        (the next attempt opens another) and the error raised as the call's would be."""
        if held.stream is None:
            held.stream = open_stream()
        stream = held.stream
        try:
            return stream.exchange(request, timeout)
        except BaseException:
            stream.cancel()
            held.stream = None
            raise

    def finished(self, stream: BlockingFeedStream) -> bool:
        return False  # its own ``end`` says

    async def end(self, stream: BlockingFeedStream, timeout: float | None) -> None:
        stream.end(timeout)


class _Asyncio:
    error = grpc.aio.AioRpcError

    def channel(
        self,
        target: str,
        credentials: grpc.ChannelCredentials | None,
        options: tuple[tuple[str, str], ...] = (),
    ) -> grpc.aio.Channel:
        if credentials is None:
            return grpc.aio.insecure_channel(target, options)
        return grpc.aio.secure_channel(target, credentials, options)

    async def close(self, channel: grpc.aio.Channel) -> None:
        await channel.close(None)

    async def unary(
        self, call: Callable[..., Any], request: Any, timeout: float | None, metadata: Metadata
    ) -> Any:
        return await call(request, timeout=timeout, metadata=metadata)

    def watch(self, call: Callable[..., Any], request: Any, metadata: Metadata) -> Watch[Any]:
        return call(request, metadata=metadata)  # type: ignore[no-any-return]

    async def answer(self, answer: Awaitable[Any]) -> Any:
        return await answer

    def sleeper(self, sleep: Sleep | None) -> Callable[[float], Awaitable[None]]:
        pause = asyncio.sleep if sleep is None else sleep

        async def wait(seconds: float) -> None:
            await pause(seconds)

        return wait

    async def exchange(
        self,
        held: HeldStream[FeedStream],
        open_stream: Callable[[], FeedStream],
        request: pb.FeedRequest,
        timeout: float | None,
    ) -> pb.TableState:
        """``request`` on the feed's stream, and its answer. A stream that failed, that the
        server ended meanwhile (a shutdown ends a stream waiting for its next event), or whose
        answer is late, is dropped (the next attempt opens another) and the error raised as
        the call's would be."""

        def drop(stream: FeedStream) -> None:
            stream.cancel()
            if held.stream is stream:
                held.stream = None

        if held.stream is not None and held.stream.done():
            drop(held.stream)
        if held.stream is None:
            held.stream = open_stream()
            held.loop = asyncio.get_running_loop()
        stream = held.stream
        try:
            async with asyncio.timeout(timeout):
                try:
                    await stream.write(request)
                except (asyncio.InvalidStateError, grpc.aio.AioRpcError):
                    # It ended (a shutdown, a lost connection) or could not take the event:
                    # say how the stream ended, as the call's error would.
                    raise await ending(stream) from None
                answer = await stream.read()
        except TimeoutError:
            drop(stream)
            raise stream_error(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time") from None
        except asyncio.CancelledError:
            drop(stream)
            task = asyncio.current_task()
            if stream.cancelled() and task is not None and not task.cancelling():
                # The stream was cancelled under it (end_stream from another task), not this
                # task: say so as a call would, not as if the task had been cancelled.
                raise stream_error(
                    grpc.StatusCode.CANCELLED, "the Feed stream was cancelled"
                ) from None
            raise
        except BaseException:
            drop(stream)
            raise
        if not isinstance(answer, pb.TableState):  # EOF: ended without answering
            drop(stream)
            raise stream_error(grpc.StatusCode.UNAVAILABLE, "the Feed stream ended")
        return answer

    def finished(self, stream: FeedStream) -> bool:
        return stream.done()

    async def end(self, stream: FeedStream, timeout: float | None) -> None:
        """Let the server end ``stream`` within ``timeout``, else cancel it."""
        try:
            async with asyncio.timeout(timeout):
                await stream.done_writing()
                await stream.code()
        except (TimeoutError, asyncio.InvalidStateError, grpc.aio.AioRpcError):
            stream.cancel()
        except BaseException:  # interrupted while waiting: nothing is left open
            stream.cancel()
            raise


BLOCKING: Transport[BlockingFeedStream] = _Blocking()
ASYNCIO: Transport[FeedStream] = _Asyncio()
