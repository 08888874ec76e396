"""The DealerService servicer: the write side, where the dealer feed reports each table's events.

Every event kind is served the same way, from its one declaration (``pricing.wire.FEED_KINDS``):
a unary method named for it (``ExposeCard``, …) and a field of the ``Feed`` stream's
``FeedRequest``. An event is checked at this edge (its table id, the per-table rate), folded
durably by the store, and answered with the bytes its watchers were sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from pricing.errors import InvalidInput, LimitExceeded
from pricing.server.limits import Limits, TableRates
from pricing.server.metrics import Metrics
from pricing.server.publisher import Publisher
from pricing.server.status import (
    Context,
    Gate,
    Handler,
    Refusals,
    ShuttingDown,
    Undecodable,
    abort,
    status_code,
    too_large,
    unary,
)
from pricing.server.store import TableStore
from pricing.tables import ExposeCard, FeedEvent
from pricing.text import check_table_id
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import FEED_FIELDS, FEED_KINDS, FeedKind, config_from_proto, snapshot_to_proto

__all__ = ["FEED_WRAPPER_BYTES", "DealerServicer"]

log = logging.getLogger("pricing.service")

#: What a FeedRequest adds to the event it carries: a field tag and a length (a varint of at
#: most 5 bytes for any message gRPC takes). The event itself is held to max-message-bytes.
FEED_WRAPPER_BYTES = 6


class DealerServicer:
    """``pricing.v1.DealerService`` over the store's tables. Rejected feed events are logged
    at INFO: they matter to an operator (a card reader out of step)."""

    def __init__(
        self,
        store: TableStore,
        publisher: Publisher,
        *,
        gate: Gate,
        refusals: Refusals,
        metrics: Metrics,
        limits: Limits,
        rates: TableRates,
    ) -> None:
        self.store = store
        self.publisher = publisher
        self.gate = gate
        self.refusals = refusals
        self.metrics = metrics
        self.limits = limits
        self.rates = rates
        # Dealer writes being applied now, and set whenever there are none: a shutdown waits
        # for them before gRPC stops taking calls (``writes_done``).
        self._writes = 0
        self._no_writes = asyncio.Event()
        self._no_writes.set()
        self._last_write_at = 0.0
        # The tasks of the Feed streams open (max-feeds), and of those now waiting for their
        # next event (stop_writes ends them).
        self._feeds: set[asyncio.Task[Any]] = set()
        self._feed_readers: set[asyncio.Task[Any]] = set()

    def unary_methods(self) -> dict[str, tuple[Handler[bytes], Any]]:
        """Every unary method, by name, with its request message: OpenTable, then one per
        kind of feed event."""
        methods = {"OpenTable": (self._unary("OpenTable", self.open_table), pb.OpenTableRequest)}
        for kind in FEED_KINDS.values():
            methods[kind.name] = (self._unary(kind.name, self._event_call(kind)), kind.request)
        return methods

    def _unary(self, name: str, method: Handler[bytes]) -> Handler[bytes]:
        return unary(name, self.refusals, method, logging.INFO)

    def _event_call(self, kind: FeedKind) -> Handler[bytes]:
        async def call(request: Any, context: Context) -> bytes:
            return await self._write(request.table_id, request.seq, kind.event(request))

        call.__name__ = call.__qualname__ = kind.name
        return call

    # ---- shutdown ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """One dealer write, from its checks to its answer. Once the server is shutting down
        none starts: it is answered UNAVAILABLE with nothing applied (resend it, with the same
        seq, to the server that takes over), while those already started finish."""
        self.gate.check_ready()
        self._last_write_at = time.monotonic()
        if self.gate.stopping:
            raise ShuttingDown(
                "the server is shutting down: nothing was applied; resend with the same seq"
            )
        self._writes += 1
        self._no_writes.clear()
        try:
            yield
        finally:
            self._writes -= 1
            if not self._writes:
                self._no_writes.set()

    async def writes_done(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` seconds) until no dealer write is being applied; whether
        none is. Called after ``stop_writes``, when every new write is refused."""
        try:
            async with asyncio.timeout(timeout):
                await self._no_writes.wait()
        except TimeoutError:
            return False
        return True

    async def writes_quiet(self, gap: float, at_most: float) -> bool:
        """Wait until no dealer write has been asked for in the last ``gap`` seconds, for at
        most ``at_most``; whether that came. (A shutdown's refusals send the feeds into their
        backoff: a quiet moment is when no call of theirs is on its way.)"""
        deadline = time.monotonic() + at_most
        while (wait := self._last_write_at + gap - time.monotonic()) > 0:
            if time.monotonic() + wait > deadline:
                return False
            await asyncio.sleep(wait)
        return True

    def stop_writes(self) -> None:
        """Shutting down (``gate.stopping`` is set): every Feed stream ends, at once if it
        waits for its next event, else once its event is answered."""
        for reader in self._feed_readers:  # Feed streams between events: they end now
            reader.cancel()

    # ---- the calls --------------------------------------------------------------------------

    async def open_table(self, request: pb.OpenTableRequest, context: Context) -> bytes:
        with self._writing():
            config = config_from_proto(request.game, request.decks, request)
            snapshot, created = await self.store.open(check_table_id(request.table_id), config)
        if created:
            log.info(
                "opened table %r: %s, %d deck(s)",
                request.table_id,
                snapshot.game.name,
                snapshot.decks,
            )
        return self.publisher.answer(request.table_id, snapshot)

    async def feed(self, requests: AsyncIterator[Any], context: Context) -> AsyncIterator[bytes]:
        """The dealer events of one stream, each answered in turn as its own call would be.
        The first rejected event ends the stream with its status, and the events sent after
        it are never read; shutting down ends it with UNAVAILABLE, at once if the stream is
        waiting for its next event, else once the event in progress is answered."""
        reader = asyncio.current_task()
        assert reader is not None
        if len(self._feeds) >= self.limits.max_feeds:
            limit = LimitExceeded("max-feeds", self.limits.max_feeds, "too many Feed streams open")
            await self.refusals.refuse("Feed", limit, context)
        self._feeds.add(reader)
        try:
            while not self.gate.stopping:
                self._feed_readers.add(reader)
                try:
                    request = await anext(requests)
                except StopAsyncIteration:
                    return  # the feed said it has no more: OK
                except asyncio.CancelledError:
                    if not self.gate.stopping:
                        raise  # the client went away
                    reader.uncancel()  # stop_writes: not waiting for the next event
                    break
                finally:
                    self._feed_readers.discard(reader)
                yield await self._feed_event(request, context)
        finally:
            self._feeds.discard(reader)
        await abort(
            context,
            ShuttingDown(
                "the server is shutting down: open a new Feed stream and resend the events not "
                "answered (from last_seq + 1)"
            ),
        )

    async def _feed_event(self, request: pb.FeedRequest | Undecodable, context: Context) -> bytes:
        """The event a Feed request carries, applied and answered; or the stream ended for
        it (timed and counted by event either way)."""
        field = (
            None if isinstance(request, Undecodable) else request.WhichOneof("event")
        ) or "none"
        t0 = time.perf_counter()
        try:
            if isinstance(request, Undecodable):
                raise request.error
            if field == "none":
                raise InvalidInput(
                    f"a FeedRequest carries no event: set one of {', '.join(FEED_FIELDS)}",
                    field="event",
                )
            inner = getattr(request, field)
            size = inner.ByteSize()  # as its call's request would be measured
            if size > self.limits.max_message_bytes:
                raise too_large(inner.DESCRIPTOR.name, size, self.limits.max_message_bytes)
            kind = FEED_FIELDS[field]
            return await self._write(inner.table_id, inner.seq, kind.event(inner))
        except Exception as exc:
            if isinstance(exc, InvalidInput) and exc.field and field != "none":
                exc.field = f"{field}.{exc.field}"  # a path within the FeedRequest
            code = status_code(exc)
            self.metrics.feed_refused(field, code)
            await self.refusals.refuse(f"Feed ({field})", exc, context)
        finally:
            if field != "none":
                self.metrics.feed_event.labels(field).observe(time.perf_counter() - t0)

    async def _write(self, table_id: str, seq: int, event: FeedEvent) -> bytes:
        """Fold one feed event into its table durably; the store's listener publishes the new
        state once it is on disk, before this returns."""
        with self._writing():
            self._check_rate(check_table_id(table_id))
            snapshot, new = await self.store.apply(table_id, seq, event)
        if not new:
            log.info(
                "table %r: seq %d repeated, answered with version %d",
                table_id,
                seq,
                snapshot.version,
            )
            return snapshot_to_proto(snapshot).SerializeToString()
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "table %r seq %d: %s -> version %d, %s",
                table_id,
                seq,
                event,
                snapshot.version,
                snapshot.phase.name,
            )
        if isinstance(event, ExposeCard):
            self.metrics.cards.labels(snapshot.game.name, event.role.name).inc()
            self.metrics.last_card.labels(table_id).set_to_current_time()
        return self.publisher.answer(table_id, snapshot)

    def _check_rate(self, table_id: str) -> None:
        """``--max-events-per-second`` per table (0: off), for a table this server holds."""
        if self.limits.max_events_per_second > 0 and table_id in self.store.tables:
            self.rates.check(table_id)
