"""The gRPC servicers: DealerService (write side, the dealer feed) and PricingService (read side,
game servers), over the live tables of ``pricing.tables``. No game rules here.

The hot path, a card arriving: the table folds the event (engine work once), the new state is
serialised once to bytes, and each watcher's slot is handed those same bytes
(``pricing.server.fanout``).
A slot holds only the newest state not yet sent (latest wins), so a slow watcher skips versions
(counted in ``pricing_conflated_total``) but never reorders them, never holds the feed up and
never makes the server buffer more than one state per watcher; the states that end a round are
held once per table (``--max-round-backlog``) and sent to every watcher before newer ones.
Every RPC that returns a ``TableState`` sends pre-serialised bytes (no serializer), so GetTable
costs no serialisation.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar

import grpc
import grpc.aio
from google.protobuf.message import DecodeError

from pricing.errors import IllegalMove, InvalidInput, LimitExceeded
from pricing.journal import JournalUnavailable
from pricing.journal.memory import MemoryJournal
from pricing.ratelog import LogBudget
from pricing.server.analyze import answer_analyze, answer_live, check_live_request
from pricing.server.fanout import FellBehind, Hub, Published, Slot, Waker
from pricing.server.limits import Limits, TokenBucket
from pricing.server.metrics import Metrics
from pricing.server.quoting import QuoteWorker
from pricing.server.store import TableStore
from pricing.tables import (
    CloseTable,
    EndRound,
    ExposeCard,
    FeedEvent,
    GameUnavailable,
    NewShoe,
    SeqConflict,
    Snapshot,
    Table,
    TableExists,
    TableNotFound,
    Tables,
    VoidRound,
)
from pricing.text import ascii_name, check_table_id
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import (
    config_from_proto,
    expose_event,
    game_from_proto,
    settlement_to_proto,
    snapshot_to_proto,
    summary_to_proto,
)

__all__ = [
    "DEALER_SERVICE",
    "PRICING_SERVICE",
    "PricingService",
]

log = logging.getLogger("pricing.service")

DEALER_SERVICE: Final = "pricing.v1.DealerService"
PRICING_SERVICE: Final = "pricing.v1.PricingService"

if TYPE_CHECKING:  # generic only in the type stubs
    Context = grpc.aio.ServicerContext[Any, Any]
else:
    Context = grpc.aio.ServicerContext


# ---------------------------------------------------------------------------------------------
# Error mapping


class NotReady(RuntimeError):
    """The server is still rebuilding its tables from the journal, or is shutting down
    (UNAVAILABLE: nothing was applied, so the same request can be sent again)."""


#: Only our own error types say what the caller did wrong. Anything else (a plain ValueError
#: from a kernel's internal contract, a protobuf range error, a KeyError) is a bug of ours:
#: INTERNAL, never a client error.
_CODES: Final[tuple[tuple[type[BaseException], grpc.StatusCode], ...]] = (
    (TableNotFound, grpc.StatusCode.NOT_FOUND),
    (TableExists, grpc.StatusCode.ALREADY_EXISTS),
    (SeqConflict, grpc.StatusCode.ALREADY_EXISTS),
    (GameUnavailable, grpc.StatusCode.UNIMPLEMENTED),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (IllegalMove, grpc.StatusCode.FAILED_PRECONDITION),
    (JournalUnavailable, grpc.StatusCode.UNAVAILABLE),
    (NotReady, grpc.StatusCode.UNAVAILABLE),
    (LimitExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED),
)

#: What the caller of a failed call is told of a bug: nothing of its internals.
INTERNAL_DETAILS: Final = "internal error: the server could not handle this request (logged)"


def status_code(exc: BaseException) -> grpc.StatusCode | None:
    """The status a rejected request gets, or None for an unexpected error (a bug)."""
    for kind, code in _CODES:
        if isinstance(exc, kind):
            return code
    return None


#: The longest message a rejected call is answered with (every client value in it is already
#: cut short by ``pricing.text.quoted``; this bounds the rest, far below gRPC's 8 KiB header limit).
MAX_DETAILS: Final = 1024


@dataclass(frozen=True, slots=True)
class Undecodable:
    """What the decoder hands a handler instead of a request it could not read (the handler
    answers it, so the caller gets INVALID_ARGUMENT or RESOURCE_EXHAUSTED, not UNKNOWN)."""

    error: InvalidInput | LimitExceeded


def too_large(name: str, size: int, max_bytes: int) -> LimitExceeded:
    """A request of ``size`` bytes, over ``max_bytes``, refused before it is read."""
    return LimitExceeded("max-message-bytes", max_bytes, f"a {name} of {size} bytes is too large")


def decoder(message_type: Any, max_bytes: int) -> Callable[[bytes], Any]:
    """The request deserializer of ``message_type``: no body over ``max_bytes`` is parsed."""
    name = message_type.DESCRIPTOR.name

    def decode(data: bytes) -> Any:
        if len(data) > max_bytes:
            return Undecodable(too_large(name, len(data), max_bytes))
        try:
            return message_type.FromString(data)
        except DecodeError:
            return Undecodable(InvalidInput(f"the request is not a valid {name} message"))

    return decode


R = TypeVar("R")
_DEALER_METHODS: Final = frozenset(
    {"OpenTable", "ExposeCard", "VoidRound", "EndRound", "NewShoe", "CloseTable"}
)


def _rpc(
    method: Callable[[Any, Any, Context], Awaitable[R]],
) -> Callable[[Any, Any, Context], Awaitable[R]]:
    """Turn the domain errors a unary handler raises into gRPC statuses, and any other
    exception into INTERNAL with a generic message (its traceback goes to the log)."""

    # Rejected feed events matter to an operator (a card reader out of step); rejected reads
    # are the caller's business.
    level = logging.INFO if method.__name__ in _DEALER_METHODS else logging.DEBUG

    @functools.wraps(method)
    async def wrapped(self: PricingService, request: Any, context: Context) -> R:
        try:
            if isinstance(request, Undecodable):
                raise request.error
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise  # the handler aborted with its own status
        except Exception as exc:
            await self.refuse(method.__name__, exc, context, level)

    return wrapped


#: What a FeedRequest adds to the event it carries: a field tag and a length (a varint of at
#: most 5 bytes for any message gRPC takes). The event itself is held to max-message-bytes.
FEED_WRAPPER_BYTES: Final = 6

#: The events a FeedRequest may carry (its oneof's fields), each with how its call reads it.
_FEED: Final[dict[str, Callable[[Any], FeedEvent]]] = {
    "expose_card": expose_event,
    "void_round": lambda _: VoidRound(),
    "end_round": lambda _: EndRound(),
    "new_shoe": lambda _: NewShoe(),
    "close_table": lambda _: CloseTable(),
}


def _published_state(snapshot: Snapshot) -> Published:
    """``snapshot`` as its watchers are sent it: serialised once."""
    payload = snapshot_to_proto(snapshot).SerializeToString()
    return Published(snapshot.version, payload, snapshot.closed, snapshot.view.ended is not None)


#: The response serializer of pre-serialised ``TableState`` bytes: none, gRPC sends bytes as
#: they are (one Python call less per message to every watcher).
_raw: Final = None


# ---------------------------------------------------------------------------------------------
# The service


class PricingService:
    """Both servicers over one set of tables, within ``limits``. Who may call which is checked
    before a call reaches them (``pricing.server.auth``)."""

    def __init__(
        self,
        metrics: Metrics | None = None,
        *,
        store: TableStore | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.metrics = metrics if metrics is not None else Metrics()
        self.limits = limits if limits is not None else Limits()
        self.store = store if store is not None else TableStore(MemoryJournal())
        self.store.tables.max_tables = self.limits.max_tables
        self.store.on_commit = self._published
        self.store.on_forget = self._forgotten
        #: False until ``serve_tables``: every call but health answers UNAVAILABLE meanwhile.
        self.ready = store is None
        self._hubs: dict[str, Hub] = {}
        self._buckets: dict[str, TokenBucket] = {}
        self._log_budget = LogBudget()
        self.quotes = QuoteWorker()
        # Every WatchTable stream in progress, whatever its table's state: what end_streams
        # must reach (a hub forgets its slots once its table has closed).
        self._watchers: set[Slot] = set()
        self._waker = Waker()
        self._stopping = False
        # Dealer writes being applied now, and set whenever there are none: a shutdown waits
        # for them before gRPC stops taking calls (``writes_done``).
        self._writes = 0
        self._no_writes = asyncio.Event()
        self._no_writes.set()
        self._last_write_at = 0.0
        # The tasks of the Feed streams open (max-feeds), and of those now waiting for their
        # next event (end_streams ends them).
        self._feeds: set[asyncio.Task[Any]] = set()
        # Tables whose hub is being given its past round results (``_backfill``).
        self._filling: dict[str, asyncio.Future[None]] = {}
        self._feed_readers: set[asyncio.Task[Any]] = set()

    # ---- wiring ----------------------------------------------------------------------------

    def handlers(self) -> tuple[grpc.GenericRpcHandler[Any, Any], ...]:
        """The two services' handlers, with raw-bytes serialisers for ``TableState``."""

        max_bytes = self.limits.max_message_bytes

        def unary(behaviour: Any, request_type: Any, serializer: Any = _raw) -> Any:
            return grpc.unary_unary_rpc_method_handler(
                behaviour,
                request_deserializer=decoder(request_type, max_bytes),
                response_serializer=serializer,
            )

        dealer = grpc.method_handlers_generic_handler(
            DEALER_SERVICE,
            {
                "OpenTable": unary(self.OpenTable, pb.OpenTableRequest),
                "ExposeCard": unary(self.ExposeCard, pb.ExposeCardRequest),
                "VoidRound": unary(self.VoidRound, pb.VoidRoundRequest),
                "EndRound": unary(self.EndRound, pb.EndRoundRequest),
                "NewShoe": unary(self.NewShoe, pb.NewShoeRequest),
                "CloseTable": unary(self.CloseTable, pb.CloseTableRequest),
                "Feed": grpc.stream_stream_rpc_method_handler(
                    self.Feed,
                    # The event inside may be as large as its call's request.
                    request_deserializer=decoder(pb.FeedRequest, max_bytes + FEED_WRAPPER_BYTES),
                    response_serializer=_raw,
                ),
            },
        )
        pricing = grpc.method_handlers_generic_handler(
            PRICING_SERVICE,
            {
                "GetTable": unary(self.GetTable, pb.GetTableRequest),
                "WatchTable": grpc.unary_stream_rpc_method_handler(
                    self.WatchTable,
                    request_deserializer=decoder(pb.WatchTableRequest, max_bytes),
                    response_serializer=_raw,
                ),
                "Quote": unary(self.Quote, pb.QuoteRequest),  # answered as bytes
                "Settle": unary(self.Settle, pb.SettleRequest, pb.Settlement.SerializeToString),
                "ListTables": unary(
                    self.ListTables,
                    pb.ListTablesRequest,
                    pb.ListTablesResponse.SerializeToString,
                ),
                "Analyze": unary(
                    self.Analyze, pb.AnalyzeRequest, pb.AnalyzeResponse.SerializeToString
                ),
            },
        )
        return (dealer, pricing)

    @property
    def tables(self) -> Tables:
        return self.store.tables

    def serve_tables(self) -> None:
        """The store has recovered its tables: publish each one's state and take calls."""
        for table in self.store.tables:
            self._published(table, table.snapshot)
        self.ready = True

    def _check_ready(self) -> None:
        if not self.ready:
            raise NotReady("the server is rebuilding its tables from the journal: retry shortly")

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """One dealer write, from its checks to its answer. Once the server is shutting down
        none starts: it is answered UNAVAILABLE with nothing applied (resend it, with the same
        seq, to the server that takes over), while those already started finish."""
        self._check_ready()
        self._last_write_at = time.monotonic()
        if self._stopping:
            raise NotReady(
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
        """Shutting down: no dealer write starts from now on (each is answered UNAVAILABLE,
        nothing applied), no WatchTable stream either; every Feed stream ends, at once if it
        waits for its next event, else once its event is answered. The writes begun go on,
        and their states reach the watchers (``end_streams`` comes after them)."""
        self._stopping = True
        for reader in self._feed_readers:  # Feed streams between events: they end now
            reader.cancel()

    def end_streams(self) -> None:
        """Shutting down, after ``stop_writes``: every WatchTable stream ends once it has sent
        what is due in its slot, with UNAVAILABLE (a table closing is the only OK end)."""
        for slot in self._watchers:
            slot.end()
        for hub in self._hubs.values():
            hub.slots.clear()

    # ---- DealerService ---------------------------------------------------------------------

    async def refuse(
        self, method: str, exc: Exception, context: Context, level: int = logging.INFO
    ) -> NoReturn:
        """End the call for ``exc``: its status (``status_code``) and message, or INTERNAL with
        nothing of the internals for anything else (a bug: its traceback goes to the log)."""
        code = status_code(exc)
        if code is None:
            log.error("%s failed: internal error", method, exc_info=exc)
            await context.abort(grpc.StatusCode.INTERNAL, INTERNAL_DETAILS)
        else:
            await context.abort(code, self.rejected(method, code, exc, level))
        raise AssertionError("unreachable: abort raises") from exc

    def rejected(
        self, method: str, code: grpc.StatusCode, exc: Exception, level: int = logging.INFO
    ) -> str:
        """The message a rejected call is answered with; logged at ``level``, at most a few
        lines a second however many calls are rejected, and counted if a limit refused it."""
        details = str(exc)
        if len(details) > MAX_DETAILS:
            details = details[:MAX_DETAILS] + "…"
        if isinstance(exc, LimitExceeded):
            self.metrics.limit_rejections.labels(exc.limit).inc()
        if log.isEnabledFor(level):
            suppressed = self._log_budget.take()
            if suppressed is not None:
                more = f" ({suppressed} more rejections not logged)" if suppressed else ""
                log.log(level, "%s rejected, %s: %s%s", method, code.name, details, more)
        return details

    @_rpc
    async def OpenTable(self, request: pb.OpenTableRequest, context: Context) -> bytes:
        with self._writing():
            config = config_from_proto(request.game, request.decks, request)
            snapshot, created = await self.store.open(request.table_id, config)
        if created:
            log.info(
                "opened table %r: %s, %d deck(s)",
                request.table_id,
                snapshot.game.name,
                snapshot.decks,
            )
        return self._answer(request.table_id, snapshot)

    @_rpc
    async def ExposeCard(self, request: pb.ExposeCardRequest, context: Context) -> bytes:
        return await self._write(request.table_id, request.seq, expose_event(request))

    @_rpc
    async def VoidRound(self, request: pb.VoidRoundRequest, context: Context) -> bytes:
        return await self._write(request.table_id, request.seq, VoidRound())

    @_rpc
    async def EndRound(self, request: pb.EndRoundRequest, context: Context) -> bytes:
        return await self._write(request.table_id, request.seq, EndRound())

    @_rpc
    async def NewShoe(self, request: pb.NewShoeRequest, context: Context) -> bytes:
        return await self._write(request.table_id, request.seq, NewShoe())

    @_rpc
    async def CloseTable(self, request: pb.CloseTableRequest, context: Context) -> bytes:
        return await self._write(request.table_id, request.seq, CloseTable())

    async def Feed(self, requests: AsyncIterator[Any], context: Context) -> AsyncIterator[bytes]:
        """The dealer events of one stream, each answered in turn as its own call would be.
        The first rejected event ends the stream with its status, and the events sent after
        it are never read; shutting down ends it with UNAVAILABLE, at once if the stream is
        waiting for its next event, else once the event in progress is answered."""
        reader = asyncio.current_task()
        assert reader is not None
        if len(self._feeds) >= self.limits.max_feeds:
            limit = LimitExceeded("max-feeds", self.limits.max_feeds, "too many Feed streams open")
            await self.refuse("Feed", limit, context)
        self._feeds.add(reader)
        try:
            while not self._stopping:
                self._feed_readers.add(reader)
                try:
                    request = await anext(requests)
                except StopAsyncIteration:
                    return  # the feed said it has no more: OK
                except asyncio.CancelledError:
                    if not self._stopping:
                        raise  # the client went away
                    reader.uncancel()  # end_streams: not waiting for the next event
                    break
                finally:
                    self._feed_readers.discard(reader)
                yield await self._feed_event(request, context)
        finally:
            self._feeds.discard(reader)
        await context.abort(
            grpc.StatusCode.UNAVAILABLE,
            "the server is shutting down: open a new Feed stream and resend the events not "
            "answered (from last_seq + 1)",
        )

    async def _feed_event(self, request: pb.FeedRequest | Undecodable, context: Context) -> bytes:
        """The event a Feed request carries, applied and answered; or the stream ended for
        it (timed and counted by event either way)."""
        kind = (None if isinstance(request, Undecodable) else request.WhichOneof("event")) or "none"
        t0 = time.perf_counter()
        try:
            if isinstance(request, Undecodable):
                raise request.error
            if kind == "none":
                raise InvalidInput(f"a FeedRequest carries no event: set one of {', '.join(_FEED)}")
            inner = getattr(request, kind)
            size = inner.ByteSize()  # as its call's request would be measured
            if size > self.limits.max_message_bytes:
                name = inner.DESCRIPTOR.name
                raise too_large(name, size, self.limits.max_message_bytes)
            return await self._write(inner.table_id, inner.seq, _FEED[kind](inner))
        except Exception as exc:
            code = status_code(exc)
            self.metrics.feed_rejected.labels(kind, code.name if code else "INTERNAL").inc()
            await self.refuse(f"Feed ({kind})", exc, context)
        finally:
            if kind != "none":
                self.metrics.feed_event.labels(kind).observe(time.perf_counter() - t0)

    async def _write(self, table_id: str, seq: int, event: FeedEvent) -> bytes:
        """Fold one feed event into its table durably; the store publishes the new state
        (``_published``) once it is on disk, before this returns."""
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
        return self._answer(table_id, snapshot)

    def _check_rate(self, table_id: str) -> None:
        """``--max-events-per-second`` per table (0: off), a burst of up to one second's worth."""
        rate = self.limits.max_events_per_second
        if rate <= 0 or table_id not in self.tables:
            return
        bucket = self._buckets.get(table_id)
        if bucket is None:
            bucket = self._buckets[table_id] = TokenBucket(rate, burst=max(1.0, rate))
        if not bucket.take():
            raise LimitExceeded(
                "max-events-per-second", rate, f"table {table_id!r} is sent events too fast"
            )

    def _answer(self, table_id: str, snapshot: Snapshot) -> bytes:
        """``snapshot`` as bytes: those published for it when they are still the latest."""
        hub = self._hubs.get(table_id)
        if hub is not None and hub.latest.version == snapshot.version:
            return hub.latest.payload
        return snapshot_to_proto(snapshot).SerializeToString()

    def _published(
        self, table: Table, snapshot: Snapshot, compute_seconds: float | None = None
    ) -> None:
        """A new state is committed (or recovered): serialise it once, hand it to every
        watcher. ``compute_seconds``: the engine's time to fold the event."""
        if compute_seconds is not None:
            self.metrics.compute.labels(snapshot.game.name).observe(compute_seconds)
        t0 = time.perf_counter()
        published = _published_state(snapshot)
        hub = self._hubs.get(table.table_id)
        if hub is None:
            # From its first version on, every state of the table passes through the hub: a
            # table it sees open, or one recovered (or followed) from that version.
            self._hubs[table.table_id] = Hub(
                published, self._waker, self.limits.max_round_backlog, horizon=snapshot.version
            )
            if not snapshot.closed:
                self.metrics.tables.inc()
                # Opened, or recovered at start-up: the idle clock starts now.
                self.metrics.last_card.labels(table.table_id).set_to_current_time()
                self._record_side_bets(table.table_id, snapshot)
            return
        conflated = hub.publish(published)
        if conflated:
            self.metrics.conflated.inc(conflated)
        if snapshot.closed:
            self.metrics.tables.dec()
            for side_bet in snapshot.view.side_bets:  # a closed table's series end with it
                self.metrics.side_bet_rtp.remove(table.table_id, side_bet.bet)
            self.metrics.last_card.remove(table.table_id)
            log.info("closed table %r at version %d", table.table_id, snapshot.version)
        else:
            self._record_side_bets(table.table_id, snapshot)
        self.metrics.publish.observe(time.perf_counter() - t0)

    def _forgotten(self, table_id: str) -> None:
        self._hubs.pop(table_id, None)
        self._buckets.pop(table_id, None)

    def _record_side_bets(self, table_id: str, snapshot: Snapshot) -> None:
        for side_bet in snapshot.view.side_bets:
            self.metrics.side_bet_rtp.labels(table_id, side_bet.bet).set(side_bet.rtp)

    # ---- PricingService --------------------------------------------------------------------

    def _hub(self, table_id: str) -> Hub:
        hub = self._hubs.get(check_table_id(table_id))
        if hub is None:
            raise TableNotFound(f"no table {table_id!r}")
        return hub

    @_rpc
    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> bytes:
        self._check_ready()
        return self._hub(request.table_id).latest.payload

    async def WatchTable(
        self, request: pb.WatchTableRequest, context: Context
    ) -> AsyncIterator[bytes]:
        if self._stopping or not self.ready:
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the server is shutting down" if self._stopping else "the server is starting",
            )
            return
        try:
            if isinstance(request, Undecodable):
                raise request.error
            hub = self._hub(request.table_id)
            self._check_watchers(hub)
        except (InvalidInput, LimitExceeded, TableNotFound) as exc:
            code = status_code(exc)
            assert code is not None
            await context.abort(code, self.rejected("WatchTable", code, exc, logging.DEBUG))
            return
        if 0 < request.from_version < hub.horizon:
            await self._backfill(request.table_id, hub)
            if self._stopping:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
                return
        slot = hub.subscribe(request.from_version)
        self._watchers.add(slot)
        self.metrics.watchers.inc()
        try:
            while True:
                try:
                    published = await slot.take()
                except FellBehind as exc:
                    limit = LimitExceeded("max-round-backlog", exc.backlog, str(exc))
                    code = grpc.StatusCode.RESOURCE_EXHAUSTED
                    await context.abort(code, self.rejected("WatchTable", code, limit))
                    return
                if published is None:
                    break
                yield published.payload
                if published.final:
                    return
        finally:
            hub.slots.discard(slot)
            self._watchers.discard(slot)
            self.metrics.watchers.dec()
        # Ended by the server, not by the table: the client reconnects (from_version resumes).
        await context.abort(
            grpc.StatusCode.UNAVAILABLE,
            "the server is shutting down: reconnect and resume with from_version",
        )

    async def _backfill(self, table_id: str, hub: Hub) -> None:
        """Give a table's hub the round-ending states from before this server started (a
        watcher resumes from a version older than that): its recent events' states, folding
        its journal once if needed. One fill per table, however many watchers wait on it."""
        filling = self._filling.get(table_id)
        if filling is None:
            filling = self._filling[table_id] = asyncio.ensure_future(self._fill(table_id, hub))
            filling.add_done_callback(lambda _: self._filling.pop(table_id, None))
        await asyncio.shield(filling)

    async def _fill(self, table_id: str, hub: Hub) -> None:
        try:
            table = await self.store.load_history(table_id)
        except Exception:  # the stream goes on with the round results held, as documented
            log.warning(
                "table %r: its past round results could not be read", table_id, exc_info=True
            )
            return
        endings, since = table.round_endings()
        hub.backfill([_published_state(s) for s in endings if s.version < hub.horizon], since)

    def _check_watchers(self, hub: Hub) -> None:
        limits = self.limits
        if len(hub.slots) >= limits.max_watchers_per_table:
            raise LimitExceeded(
                "max-watchers-per-table",
                limits.max_watchers_per_table,
                "too many WatchTable streams on this table",
            )
        if len(self._watchers) >= limits.max_watchers:
            raise LimitExceeded("max-watchers", limits.max_watchers, "too many WatchTable streams")

    @_rpc
    async def Quote(self, request: pb.QuoteRequest, context: Context) -> bytes:
        # Not timed into pricing_compute_seconds, which is per accepted feed event: a quote's
        # time is grpc_server_handling_seconds{grpc_method="Quote"}. Answered in a worker
        # process (pricing.server.quoting), so the heaviest quotes never hold the event loop.
        self._check_ready()
        return await self.quotes.answer(request)

    def _watching(self, table_id: str) -> int:
        """WatchTable streams following ``table_id`` now (none once it closed)."""
        hub = self._hubs.get(table_id)
        return 0 if hub is None else len(hub.slots)

    @_rpc
    async def ListTables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        """Every table held, open or closed, by id; ``game`` set: only that game's."""
        self._check_ready()
        game = None if request.game == pb.GAME_UNSPECIFIED else game_from_proto(request.game)
        return pb.ListTablesResponse(
            tables=[
                summary_to_proto(table.snapshot, table.seats, self._watching(table.table_id))
                for table in sorted(self.tables, key=lambda t: t.table_id)
                if game is None or table.config.game is game
            ]
        )

    @_rpc
    async def Analyze(self, request: pb.AnalyzeRequest, context: Context) -> pb.AnalyzeResponse:
        # A report can take seconds (blackjack's simulated shoes, folding a long journal): off
        # the event loop.
        if request.table_id:
            self._check_ready()
            check_live_request(request, self.tables.get(request.table_id).config.game)
            records = await self.store.journal.events(request.table_id)
            if not records:
                raise IllegalMove(
                    f"table {request.table_id!r} has no journal to analyse: this server keeps "
                    f"none ({self.store.journal.location})"
                )
            return await asyncio.to_thread(answer_live, request, records)
        return await asyncio.to_thread(answer_analyze, request)

    @_rpc
    async def Settle(self, request: pb.SettleRequest, context: Context) -> pb.Settlement:
        self._check_ready()
        bet = ascii_name("bet", request.bet)
        settlement = await self.store.settle(
            request.table_id,
            request.round_id,
            request.version,
            bet,
            request.stake_cents,
            seat=request.seat,
        )
        response = settlement_to_proto(settlement, request)
        response.bet = bet
        return response
