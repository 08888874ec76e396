"""The gRPC service: DealerService (the write side, ``pricing.server.dealer``) and
PricingService (the read side, ``pricing.server.reads``) over one store of live tables, wired
together here and handed to gRPC as method handlers. No game rules here.

The hot path, a card arriving: the dealer servicer checks it at the edge, the store folds it
durably (engine work once), and the publisher (``pricing.server.publisher``) serialises the new
state once and hands every watcher's slot those same bytes. Every RPC that returns a
``TableState`` sends pre-serialised bytes (no serializer), so GetTable costs no serialisation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

import grpc

from pricing.journal import Journal
from pricing.journal.memory import MemoryJournal
from pricing.server.dealer import FEED_WRAPPER_BYTES, DealerServicer
from pricing.server.limits import Limits, TableRates
from pricing.server.metrics import Metrics
from pricing.server.offload import Offload
from pricing.server.publisher import Publisher
from pricing.server.reads import PricingServicer
from pricing.server.status import (
    INTERNAL_DETAILS,
    MAX_DETAILS,
    Context,
    Gate,
    Refusals,
    Undecodable,
    decoder,
    status_code,
)
from pricing.server.store import DEFAULT_RETENTION, DEFAULT_SNAPSHOT_EVERY, TableStore
from pricing.tables import Tables
from pricing.v1 import pricing_pb2 as pb

__all__ = [
    "DEALER_SERVICE",
    "INTERNAL_DETAILS",
    "MAX_DETAILS",
    "PRICING_SERVICE",
    "PricingService",
    "Undecodable",
    "decoder",
    "status_code",
]

DEALER_SERVICE: Final = "pricing.v1.DealerService"
PRICING_SERVICE: Final = "pricing.v1.PricingService"

#: The response serializer of pre-serialised ``TableState`` bytes: none, gRPC sends bytes as
#: they are (one Python call less per message to every watcher).
_raw: Final = None

#: The read side's answers that are messages, not pre-serialised bytes (a quote's and a
#: report's come serialised from their worker process).
_SERIALIZERS: Final[dict[str, Callable[[Any], bytes]]] = {
    "Settle": pb.SettleResponse.SerializeToString,
    "SettlePosition": pb.SettlePositionResponse.SerializeToString,
    "ListTables": pb.ListTablesResponse.SerializeToString,
}


class PricingService:
    """The two servicers over one store kept in ``journal`` (in memory if none), within
    ``limits``. ``ready``: whether calls are taken at once; a server that recovers its tables
    first passes False and calls ``serve_tables`` once they are back. Who may call which is
    checked before a call reaches them (``pricing.server.auth``). ``main_game_analysis``
    False: blackjack tables' states carry no decisions and no player edge."""

    def __init__(
        self,
        metrics: Metrics | None = None,
        *,
        journal: Journal | None = None,
        limits: Limits | None = None,
        ready: bool = True,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        closed_retention: float = DEFAULT_RETENTION,
        archive_dir: Path | None = None,
        main_game_analysis: bool = True,
    ) -> None:
        self.metrics = metrics if metrics is not None else Metrics()
        self.limits = limits if limits is not None else Limits()
        self.gate = Gate(ready=ready)
        rates = TableRates(self.limits.max_events_per_second)
        self.publisher = Publisher(
            self.metrics, self.limits, rates, main_game_analysis=main_game_analysis
        )
        self.store = TableStore(
            journal if journal is not None else MemoryJournal(),
            listener=self.publisher,
            max_tables=self.limits.max_tables,
            snapshot_every=snapshot_every,
            closed_retention=closed_retention,
            archive_dir=archive_dir,
        )
        # Counted at each scrape (a failed recovery gives the store new tables).
        self.metrics.tables_held_aside.set_function(lambda: len(self.store.tables.held_aside))
        self.offload = Offload(self.limits)
        refusals = Refusals(self.metrics)
        self.dealer = DealerServicer(
            self.store,
            self.publisher,
            gate=self.gate,
            refusals=refusals,
            metrics=self.metrics,
            limits=self.limits,
            rates=rates,
        )
        self.reads = PricingServicer(
            self.store,
            self.publisher,
            gate=self.gate,
            refusals=refusals,
            metrics=self.metrics,
            limits=self.limits,
            offload=self.offload,
        )
        self._unary = {**self.dealer.unary_methods(), **self.reads.unary_methods()}

    @property
    def tables(self) -> Tables:
        return self.store.tables

    @property
    def ready(self) -> bool:
        return self.gate.ready

    def rpc(self, name: str) -> Callable[[Any, Context], Awaitable[Any]]:
        """The unary method ``name`` as gRPC calls it (its errors mapped to statuses): for
        tests and tools that call the service without a network."""
        return self._unary[name][0]

    def handlers(self) -> tuple[grpc.GenericRpcHandler[Any, Any], ...]:
        """The two services' handlers, with raw-bytes serialisers for ``TableState``."""
        max_bytes = self.limits.max_message_bytes

        def unary(name: str) -> Any:
            method, request_type = self._unary[name]
            return grpc.unary_unary_rpc_method_handler(
                method,
                request_deserializer=decoder(request_type, max_bytes),
                response_serializer=_SERIALIZERS.get(name, _raw),
            )

        dealer_methods = {name: unary(name) for name in self.dealer.unary_methods()}
        dealer_methods["Feed"] = grpc.stream_stream_rpc_method_handler(
            self.dealer.feed,
            # The event inside may be as large as its call's request.
            request_deserializer=decoder(pb.FeedRequest, max_bytes + FEED_WRAPPER_BYTES),
            response_serializer=_raw,
        )
        read_methods = {name: unary(name) for name in self.reads.unary_methods()}
        read_methods["WatchTable"] = grpc.unary_stream_rpc_method_handler(
            self.reads.watch_table,
            request_deserializer=decoder(pb.WatchTableRequest, max_bytes),
            response_serializer=_raw,
        )
        return (
            grpc.method_handlers_generic_handler(DEALER_SERVICE, dealer_methods),
            grpc.method_handlers_generic_handler(PRICING_SERVICE, read_methods),
        )

    def serve_tables(self) -> None:
        """The store has recovered its tables: publish each one's state and take calls."""
        for table in self.store.tables:
            self.publisher.committed(table, table.snapshot, None)
        self.gate.ready = True

    # ---- shutdown, in this order (``pricing.server.process``) ---------------------------------

    def stop_writes(self) -> None:
        """No dealer write starts from now on (each is answered UNAVAILABLE, nothing
        applied), no WatchTable stream either; every Feed stream ends, at once if it waits
        for its next event, else once its event is answered. The writes begun go on, and
        their states reach the watchers (``end_streams`` comes after them)."""
        self.gate.stopping = True
        self.dealer.stop_writes()

    async def writes_done(self, timeout: float) -> bool:
        return await self.dealer.writes_done(timeout)

    async def writes_quiet(self, gap: float, at_most: float) -> bool:
        return await self.dealer.writes_quiet(gap, at_most)

    def end_streams(self) -> None:
        self.publisher.end_streams()
