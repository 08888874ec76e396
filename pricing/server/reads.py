"""The PricingService servicer: the read side, where game servers watch tables, quote and
settle bets and positions. No call changes a table."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Final

from pricing.errors import IllegalMove, InvalidInput, LimitExceeded
from pricing.server.analyze import check_live_request
from pricing.server.budgets import ReadKind
from pricing.server.fanout import FellBehind, Hub, Slot
from pricing.server.limits import Limits
from pricing.server.metrics import Metrics
from pricing.server.offload import Offload
from pricing.server.publisher import Publisher, published_state
from pricing.server.status import (
    Context,
    Gate,
    Handler,
    NotReady,
    Refusals,
    ShuttingDown,
    Undecodable,
    abort,
    unary,
)
from pricing.server.store import TableStore
from pricing.tables import STEP_LEGS, PositionLeg, TableHeldAside, TableNotFound
from pricing.text import ascii_name, check_table_id
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import (
    game_from_proto,
    leg_results_to_proto,
    position_legs,
    position_to_proto,
    settlement_to_proto,
    summary_to_proto,
)

__all__ = ["PricingServicer"]

log = logging.getLogger("pricing.service")


class PricingServicer:
    """``pricing.v1.PricingService`` over the store's tables and the publisher's hubs. Its
    refusals are the caller's business: logged at DEBUG."""

    def __init__(
        self,
        store: TableStore,
        publisher: Publisher,
        *,
        gate: Gate,
        refusals: Refusals,
        metrics: Metrics,
        limits: Limits,
        offload: Offload,
    ) -> None:
        self.store = store
        self.publisher = publisher
        self.gate = gate
        self.refusals = refusals
        self.metrics = metrics
        self.limits = limits
        self.offload = offload
        # Long positions take turns: one at a time on the event loop, a step at a time.
        self._long_positions = asyncio.Lock()
        # Tables whose hub is being given its past round results (``_backfill``).
        self._filling: dict[str, asyncio.Future[None]] = {}

    def unary_methods(self) -> dict[str, tuple[Handler[Any], Any]]:
        """Every unary method, by name, with its request message."""
        methods: dict[str, tuple[Handler[Any], Any]] = {
            "GetTable": (self.get_table, pb.GetTableRequest),
            "Quote": (self.quote, pb.QuoteRequest),
            "Settle": (self.settle, pb.SettleRequest),
            "SettlePosition": (self.settle_position, pb.SettlePositionRequest),
            "ListTables": (self.list_tables, pb.ListTablesRequest),
            "Analyze": (self.analyze, pb.AnalyzeRequest),
        }
        return {
            name: (unary(name, self.refusals, method), request)
            for name, (method, request) in methods.items()
        }

    def table_hub(self, table_id: str) -> Hub:
        try:
            return self.publisher.hub(check_table_id(table_id))
        except TableNotFound:
            self.store.tables.refuse_held(table_id)  # it exists, but is held aside
            raise

    async def get_table(self, request: pb.GetTableRequest, context: Context) -> bytes:
        self.gate.check_ready()
        return self.table_hub(request.table_id).latest.payload

    async def watch_table(
        self, request: pb.WatchTableRequest | Undecodable, context: Context
    ) -> AsyncIterator[bytes]:
        if self.gate.stopping or not self.gate.ready:
            await abort(
                context,
                ShuttingDown("the server is shutting down")
                if self.gate.stopping
                else NotReady("the server is starting"),
            )
        try:
            if isinstance(request, Undecodable):
                raise request.error
            hub = self.table_hub(request.table_id)
            self.check_watchers(hub, request.table_id)
        except (InvalidInput, LimitExceeded, TableNotFound, TableHeldAside) as exc:
            await self.refusals.refuse("WatchTable", exc, context, logging.DEBUG)
        if 0 < request.from_version < hub.horizon:
            await self._backfill(request.table_id, hub)
            if self.gate.stopping:
                await abort(context, ShuttingDown("the server is shutting down"))
        with self.watching(hub, request.from_version) as slot:
            while True:
                try:
                    published = await slot.take()
                except FellBehind as exc:
                    limit = LimitExceeded(
                        "max-round-backlog",
                        exc.backlog,
                        str(exc),
                        table_id=request.table_id,
                        from_version=exc.resume_from,
                    )
                    await self.refusals.refuse("WatchTable", limit, context)
                if published is None:
                    break
                yield published.payload
                if published.final:
                    return
        # Ended by the server, not by the table: the client reconnects (from_version resumes).
        await abort(
            context,
            ShuttingDown("the server is shutting down: reconnect and resume with from_version"),
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
        hub.backfill([published_state(s) for s in endings if s.version < hub.horizon], since)

    @contextlib.contextmanager
    def watching(self, hub: Hub, from_version: int) -> Iterator[Slot]:
        """A watcher's slot of ``hub`` (``Hub.subscribe``), counted among the watchers (the
        limits' and ``pricing_watchers``') until the block ends: a WatchTable stream's, or a
        console page's."""
        slot = hub.subscribe(from_version)
        watchers = self.publisher.watchers
        watchers.add(slot)
        self.metrics.watchers.inc()
        try:
            yield slot
        finally:
            hub.slots.discard(slot)
            watchers.discard(slot)
            self.metrics.watchers.dec()

    def check_watchers(self, hub: Hub, table_id: str) -> None:
        limits = self.limits
        if len(hub.slots) >= limits.max_watchers_per_table:
            raise LimitExceeded(
                "max-watchers-per-table",
                limits.max_watchers_per_table,
                "too many WatchTable streams on this table",
                table_id=table_id,
            )
        if len(self.publisher.watchers) >= limits.max_watchers:
            raise LimitExceeded("max-watchers", limits.max_watchers, "too many WatchTable streams")

    async def quote(self, request: pb.QuoteRequest, context: Context) -> bytes:
        # Not timed into pricing_compute_seconds, which is per accepted feed event: a quote's
        # time is grpc_server_handling_seconds{grpc_method="Quote"}. Answered in a worker
        # process (pricing.server.offload), so no quote ever holds the event loop.
        self.gate.check_ready()
        return await self.offload.quote(request, context)

    async def list_tables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        """Every table held, open or closed, by id; ``game`` set: only that game's."""
        self.gate.check_ready()
        game = None if request.game == pb.GAME_UNSPECIFIED else game_from_proto(request.game)
        watching = self.publisher.watching
        return pb.ListTablesResponse(
            tables=[
                summary_to_proto(table.snapshot, table.seats, watching(table.table_id))
                for table in sorted(self.store.tables, key=lambda t: t.table_id)
                if game is None or table.config.game is game
            ]
        )

    async def analyze(self, request: pb.AnalyzeRequest, context: Context) -> bytes:
        """A report takes seconds (blackjack's simulated shoes, folding a long journal): in a
        worker process, by the call's deadline, stopped if the caller goes."""
        if not request.table_id:
            with self.offload.admit(ReadKind.REPORT, context):
                return await self.offload.report(request, context)
        self.gate.check_ready()
        table = self.store.tables.get(check_table_id(request.table_id))
        check_live_request(request, table.config.game)
        with self.offload.admit(ReadKind.REPORT, context):
            records = await self.store.journal.events(request.table_id)
            if not records:
                raise IllegalMove(
                    f"table {request.table_id!r} has no journal to analyse: this server keeps "
                    f"none ({self.store.journal.location})",
                    table_id=request.table_id,
                )
            return await self.offload.report(request, context, records)

    async def settle(self, request: pb.SettleRequest, context: Context) -> pb.SettleResponse:
        self.gate.check_ready()
        bet = ascii_name("bet", request.bet)
        settlement = await self.store.settle(
            check_table_id(request.table_id),
            request.round_id,
            request.version,
            bet,
            request.stake_cents,
            seat=request.seat,
        )
        response = settlement_to_proto(settlement, request)
        response.bet = bet
        return response

    async def settle_position(
        self, request: pb.SettlePositionRequest, context: Context
    ) -> pb.SettlePositionResponse:
        """A position's legs, each settled as its bet would be (docs/rules.md §6.3). One of
        more than ``STEP_LEGS`` legs is an expensive read: it waits its turn and is settled a
        step at a time, the dealer's feed let in between steps."""
        self.gate.check_ready()
        table_id = check_table_id(request.table_id)
        if len(request.legs) <= STEP_LEGS:
            position = await self.store.settle_position(
                table_id, request.stake_cents, position_legs(request)
            )
            return position_to_proto(position)
        with self.offload.admit(ReadKind.POSITION, context):
            async with self._long_positions:
                return await self._long_position(table_id, request)

    async def _long_position(
        self, table_id: str, request: pb.SettlePositionRequest
    ) -> pb.SettlePositionResponse:
        paced = Paced(LONG_POSITIONS_SHARE)
        legs: list[PositionLeg] = []
        for start in range(0, len(request.legs), STEP_LEGS):
            legs.extend(position_legs(request, start, start + STEP_LEGS))
            await paced.pause()
        position = await self.store.settle_position_in_steps(
            table_id, request.stake_cents, legs, paced.pause
        )
        response = position_to_proto(position, legs=False)
        for start in range(0, len(position.legs), STEP_LEGS):
            await paced.pause()
            response.legs.extend(leg_results_to_proto(position.legs[start : start + STEP_LEGS]))
        return response


#: The most of the event loop's time long positions may take, however many readers loop them:
#: a 1,000-leg position (about 12 ms of work) so takes about 50 ms to answer.
LONG_POSITIONS_SHARE: Final = 0.25


class Paced:
    """Work done in steps on the event loop, paced to at most ``share`` of its time: after a
    step that took t seconds, ``pause()`` waits t × (1 / share − 1), the loop free meanwhile
    (a feed event, other reads).

    >>> now, slept = [0.0], []
    >>> async def sleep(seconds: float) -> None:
    ...     slept.append(seconds)
    ...     now[0] += seconds
    >>> paced = Paced(0.25, clock=lambda: now[0], sleep=sleep)
    >>> now[0] += 0.002  # a step of 2 ms
    >>> asyncio.run(paced.pause()); slept
    [0.006]
    """

    def __init__(
        self,
        share: float,
        *,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._rest = 1 / share - 1
        self._clock = clock
        self._sleep = sleep
        self._since = clock()

    async def pause(self) -> None:
        await self._sleep((self._clock() - self._since) * self._rest)
        self._since = self._clock()
