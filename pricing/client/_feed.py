"""Dealer feeds: a table's events numbered by the feed, and resent with the same seq when the
server did not answer. Written once (``_Feed``); ``DealerFeed`` (blocking) and
``AsyncDealerFeed`` (asyncio), which differ only in their transport, stand beside the clients
they belong to (``_client``)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Generic, TypeVar

import grpc
from google.protobuf.message import Message

from pricing.client._errors import annotate
from pricing.client._requests import EVENTS, Rules, feed_request, numbered
from pricing.client._shared import FEED_RETRIES, log, pause, resend, say_resending, shared
from pricing.client._streams import Cancellable
from pricing.client._transport import Sleep, Transport
from pricing.v1 import pricing_pb2 as pb

_Stream = TypeVar("_Stream", bound=Cancellable)
_C = TypeVar("_C")


class _OpenStream(Generic[_Stream]):
    """A feed's open Feed stream, held apart from the feed so that a finalizer can cancel it
    without keeping the feed alive. gRPC keeps a stream that has not ended (and the blocking
    stream's reader thread keeps its own), so a feed dropped without ``end_stream()`` would
    otherwise hold its stream, and a place under the server's ``--max-feeds``, until its
    channel closes."""

    def __init__(self) -> None:
        self.stream: _Stream | None = None
        #: The event loop a grpc.aio stream belongs to (None for the blocking client's): the
        #: collector may run in any thread, and grpc.aio is cancelled only from its own loop.
        self.loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def cancelling_when_collected(cls, owner: object) -> _OpenStream[_Stream]:
        """A holder whose stream is cancelled once ``owner`` is garbage-collected."""
        held: _OpenStream[_Stream] = cls()
        weakref.finalize(owner, held.cancel).atexit = False  # at exit the channels go anyway
        return held

    def cancel(self) -> None:
        stream, self.stream = self.stream, None
        if stream is None:
            return
        try:
            if self.loop is None or _running_loop() is self.loop:
                stream.cancel()
            elif not self.loop.is_closed():
                self.loop.call_soon_threadsafe(stream.cancel)
        except Exception:  # run by the collector: its channel or event loop may be gone
            log.debug("feed: could not cancel a dropped Feed stream", exc_info=True)


def _interrupted(exc_type: type[BaseException] | None) -> bool:
    """A feed's ``with`` left by an interrupt (Ctrl-C, a cancelled task, an exit), not an
    error: its stream is cancelled, with no wait for the server to end it."""
    return exc_type is not None and not issubclass(exc_type, Exception)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class _Feed(Generic[_C, _Stream]):
    """A dealer feed for one table: numbers events ``last_seq + 1`` and resends the same
    ``seq`` when the server was unreachable, or refused it for a budget that frees up (after
    the delay its ``RetryInfo`` asks for); safe: the server applies a seq once.
    ``streamed``: the events go on one Feed stream (opened at the first event, and again after
    it failed) instead of a call each; an event not answered within the client's ``timeout``
    is resent on a new stream. ``end_stream()`` or leaving ``with feed:`` ends the stream
    (leaving it on Ctrl-C cancels the stream instead of waiting); a feed garbage-collected
    with its stream open has the stream cancelled. ``sleep``: what it waits with before a resend
    (default: the client's, ``time.sleep`` or ``asyncio.sleep``)."""

    _io: ClassVar[Transport[Any]]

    def __init__(
        self,
        client: _C,
        table_id: str,
        *,
        retries: int = FEED_RETRIES,
        streamed: bool = False,
        on_resend: Callable[[str], None] | None = None,
        sleep: Sleep | None = None,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.last_seq = 0
        self.retries = retries
        self.streamed = streamed
        #: Told one line before each resend (default: a warning on ``pricing.client``).
        self.on_resend: Callable[[str], None] = on_resend or log.warning
        self._sleep = self._io.sleeper(sleep)
        self._open: _OpenStream[_Stream] = _OpenStream.cancelling_when_collected(self)
        #: How many times the caller ended or cancelled the stream: an event cut off by that
        #: is not resent.
        self._ended = 0

    # The client as the shared code calls it: its methods answer at once on the blocking side
    # and are awaited (``_io.answer``) on the asyncio one.
    @property
    def _client(self) -> Any:
        return self.client

    @shared
    async def open(
        self,
        game: str | int = "HILO",
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        rules: Rules | None = None,
    ) -> pb.TableState:
        """Open the table, or join it as it is (same config): the feed carries on from its
        ``last_seq``."""
        rules = rules if rules is not None else hilo
        state = await self._resending(
            "the opening",
            lambda: self._io.answer(
                self._client.open_table(self.table_id, game, decks=decks, rules=rules)
            ),
        )
        self.last_seq = state.last_seq
        return state

    async def _resending(
        self, what: str, send: Callable[[], Awaitable[pb.TableState]]
    ) -> pb.TableState:
        """``send()``, sent again while it fails in a way a resend may cure (``resend``) and the
        caller has not cut it off meanwhile: after the delay the server asked for, else a
        growing pause (``pause``); ``what`` it sends, for the log. Safe: the server applies a
        seq once, and an opening once per config."""
        for attempt in range(self.retries + 1):
            ended = self._ended
            try:
                return await send()
            except self._io.error as exc:
                annotate(exc)  # a Feed stream's error too, as a call's
                if not self._may_resend(exc, ended) or attempt == self.retries:
                    raise
                delay = pause(exc, attempt)
                self.on_resend(say_resending(self.table_id, what, exc, delay))
                await self._sleep(delay)
                if not self._may_resend(exc, ended):  # the caller ended it while we waited
                    raise
        raise AssertionError("unreachable: the last attempt raises")

    def _may_resend(self, exc: grpc.RpcError, ended: int) -> bool:
        return resend(exc, cancelled_here=self._client.closed or self._ended != ended)

    async def _numbered(
        self, call: Callable[[int], object], event: Callable[[int], Message]
    ) -> pb.TableState:
        """The next event: ``call(seq)`` (the client's call for it), or ``event(seq)`` on the
        Feed stream when ``streamed``."""
        seq = self.last_seq + 1
        if self.streamed:
            request = feed_request(event(seq))
            state = await self._resending(f"seq {seq}", lambda: self._on_stream(request))
        else:
            state = await self._resending(f"seq {seq}", lambda: self._io.answer(call(seq)))
        self.last_seq = seq
        return state

    async def _typed(self, kind: str, *args: object) -> pb.TableState:
        """The event ``kind`` with its typed call's ``args`` (after table and seq)."""
        return await self._numbered(
            lambda seq: getattr(self._client, kind)(self.table_id, seq, *args),
            lambda seq: EVENTS[kind].request(self.table_id, seq, *args),
        )

    def _on_stream(self, request: pb.FeedRequest) -> Awaitable[pb.TableState]:
        """``request`` on the feed's stream (opened if none is), and its answer."""
        client = self._client
        return self._io.exchange(self._open, client.feed_stream, request, client.timeout)

    @shared
    async def send(self, event: Message) -> pb.TableState:
        """Any dealer-feed event (an ``ExposeCardRequest``, ... any message ``FeedRequest``
        carries), as this table's next: its ``table_id`` and ``seq`` are the feed's."""
        return await self._numbered(
            lambda seq: self._client.send(numbered(event, self.table_id, seq)),
            lambda seq: numbered(event, self.table_id, seq),
        )

    async def _end_stream(self) -> None:
        """End the Feed stream, if one is open, within the client's timeout (the events
        already answered stand, however the stream ends; one still waiting for its answer
        fails, and is not resent)."""
        stream, self._open.stream = self._open.stream, None
        if stream is None or self._io.finished(stream):
            return
        self._ended += 1
        await self._io.end(stream, self._client.timeout)

    end_stream = shared(_end_stream)

    @shared
    async def _leave(self, exc_type: type[BaseException] | None) -> None:
        """Leaving ``with feed:``: an interrupt cancels the stream at once, else it is ended."""
        if _interrupted(exc_type):
            self._ended += 1
            self._open.cancel()
        else:
            await self._end_stream()

    @shared
    async def expose(self, card: str, role: str | int = "BURN", seat: int = 0) -> pb.TableState:
        return await self._typed("expose_card", card, role, seat)

    @shared
    async def void(self) -> pb.TableState:
        return await self._typed("void_round")

    @shared
    async def end_round(self) -> pb.TableState:
        return await self._typed("end_round")

    @shared
    async def new_shoe(self) -> pb.TableState:
        return await self._typed("new_shoe")

    @shared
    async def close(self) -> pb.TableState:
        return await self._typed("close_table")
