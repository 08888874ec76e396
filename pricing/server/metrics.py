"""Prometheus metrics of the pricing service, and the gRPC server interceptor that counts calls
into them (``MetricsInterceptor``, outermost: refused calls are counted too).

Every metric lives in the ``CollectorRegistry`` of one ``Metrics`` object, so each server (and
each test) has its own. Latency histograms are in seconds with the sub-millisecond buckets of
gRFC A66: a card's whole trip through the service is well under a millisecond.

The gRPC series are named and labelled as go-grpc-prometheus names and labels them
(``grpc_server_*`` with ``grpc_service``, ``grpc_method``, ``grpc_type="unary"``…, and
``grpc_code="InvalidArgument"``…: Go's names of the status codes), and every method of the
service's two gRPC services has its series from the server's start, as its
``InitializeMetrics`` gives them, so dashboards and alerts built for it work here. The
service's own ``grpc_code`` label (``pricing_feed_rejected_total``) has the same values.
The exposition carries no ``_created`` series (each would double the counters and histograms
for a timestamp nobody graphs) and includes the process's own metrics (``process_*``: CPU,
memory, file descriptors) and the interpreter's (``python_*``). ``deploy/`` holds a Grafana
dashboard and Prometheus alerts over these names.

>>> m = Metrics()
>>> m.cards.labels(game="HILO", role="BURN").inc()
>>> m.registry.get_sample_value("pricing_cards_total", {"game": "HILO", "role": "BURN"})
1.0
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, Final

import grpc
import grpc.aio
from google.protobuf.descriptor import ServiceDescriptor
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector

from pricing.games.baccarat.bets import SIDE_BETS as BACCARAT_SIDE_BETS
from pricing.games.blackjack import library
from pricing.games.dragon_tiger.bets import SIDE_BETS as DRAGON_TIGER_SIDE_BETS
from pricing.server.handlers import BuiltHandlers, Continuation, Handler, ServerInterceptor
from pricing.server.metrics_http import serve_metrics_http
from pricing.server.metrics_labels import (
    BIDI_STREAM,
    CODE_LABELS,
    SERVER_STREAM,
    UNARY,
    code_label,
    rpc_type,
)
from pricing.server.metrics_tables import TableGauge
from pricing.v1 import pricing_pb2

__all__ = ["LATENCY_BUCKETS", "Metrics", "MetricsInterceptor", "serve_metrics"]

#: Every side bet of every game, by name: each one's series start at zero.
SIDE_BET_NAMES: Final = (*library.BETS, *BACCARAT_SIDE_BETS, *DRAGON_TIGER_SIDE_BETS)

# A process-wide switch of the client library: no ``*_created`` series in any registry.
disable_created_metrics()  # type: ignore[no-untyped-call]

#: gRFC A66's latency buckets, in seconds.
LATENCY_BUCKETS: Final[tuple[float, ...]] = (
    0, 1e-5, 5e-5, 1e-4, 3e-4, 6e-4, 8e-4, 0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.008,
    0.01, 0.013, 0.016, 0.02, 0.025, 0.03, 0.04, 0.05, 0.065, 0.08, 0.1, 0.13, 0.16, 0.2, 0.25,
    0.3, 0.4, 0.5, 0.65, 0.8, 1, 2, 5, 10, 20, 50, 100,
)  # fmt: skip


class Metrics:
    """The service's metrics, registered in ``registry`` (a fresh one by default)."""

    def __init__(
        self, registry: CollectorRegistry | None = None, *, table_series: bool = True
    ) -> None:
        """``table_series`` False: no per-table series (``pricing_side_bet_rtp``,
        ``pricing_table_last_card_timestamp_seconds``, ``pricing_player_edge``,
        ``pricing_live_return_z`` and ``pricing_live_return_rounds``), for servers with so
        many tables that their series would cost more than they tell."""
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        grpc_labels = ("grpc_service", "grpc_method", "grpc_type")
        self.started = Counter(
            "grpc_server_started_total", "RPCs started on the server.", grpc_labels, registry=r
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, by status code.",
            (*grpc_labels, "grpc_code"),
            registry=r,
        )
        self.msg_received = Counter(
            "grpc_server_msg_received_total",
            "RPC stream messages received on the server (a unary call: its request).",
            grpc_labels,
            registry=r,
        )
        self.msg_sent = Counter(
            "grpc_server_msg_sent_total",
            "gRPC stream messages sent by the server (a unary call: its response, if OK).",
            grpc_labels,
            registry=r,
        )
        self.handling = Histogram(
            "grpc_server_handling_seconds",
            "Time from an RPC's start to its end on the server (a stream: its whole life).",
            grpc_labels,
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.feed_event = Histogram(
            "pricing_feed_event_seconds",
            "Time from an event read on a Feed stream to its answer or refusal (the stream's "
            "counterpart of the event's call in grpc_server_handling_seconds), by event.",
            ("event",),
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.feed_rejected = Counter(
            "pricing_feed_rejected_total",
            "Events a Feed stream carried that were refused (each ended its stream), by event "
            "and status code. The stream's other ends (a shutdown, a client hanging up) are "
            "not refusals.",
            ("event", "grpc_code"),
            registry=r,
        )
        self.compute = Histogram(
            "pricing_compute_seconds",
            "Engine time to fold one accepted event into a table and price the new state.",
            ("game",),
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.publish = Histogram(
            "pricing_publish_seconds",
            "From an event accepted to every watcher's slot holding the new state "
            "(serialising it once included).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.tables = Gauge("pricing_tables", "Open tables (not closed).", registry=r)
        self.watchers = Gauge("pricing_watchers", "WatchTable streams in progress.", registry=r)
        self.cards = Counter(
            "pricing_cards_total", "Cards exposed at live tables.", ("game", "role"), registry=r
        )
        self.conflated = Counter(
            "pricing_conflated_total",
            "States a slow watcher skipped: replaced in its slot by a newer one before it read "
            "them.",
            registry=r,
        )
        # Per-table series: rendered when they change, not at every scrape (metrics_tables).
        self.side_bet_rtp = TableGauge(
            "pricing_side_bet_rtp",
            "Current RTP of each blackjack side bet at each table (1.0 = break-even).",
            ("table_id", "bet"),
            enabled=table_series,
        )
        self.last_card = TableGauge(
            "pricing_table_last_card_timestamp_seconds",
            "Unix time of each open table's last exposed card (its opening, before the first).",
            ("table_id",),
            enabled=table_series,
        )
        self.player_edge = TableGauge(
            "pricing_player_edge",
            "The next round's player edge at each blackjack table, per unit of the original "
            "wager on the main bet (composition-dependent play; above 0: the shoe favours a "
            "perfect player; the alert fires above 0.01). Set when computed, after the round "
            "that leaves the shoe ends.",
            ("table_id",),
            enabled=table_series,
        )
        self.live_return_z = TableGauge(
            "pricing_live_return_z",
            "Each bet's live return at each table in standard errors: one unit staked on every "
            "round the bet was offered since the table opened, (returned - expected) / "
            "sqrt(sum of variances), against the exact expectation at the price offered. "
            "|z| >= 4 over enough rounds: the table is not dealing the cards it is priced on.",
            ("table_id", "bet"),
            enabled=table_series,
        )
        self.live_return_rounds = TableGauge(
            "pricing_live_return_rounds",
            "Stakes pricing_live_return_z counts: the rounds the bet was offered since the "
            "table opened (a blackjack side bet: one a round, its seats' mean).",
            ("table_id", "bet"),
            enabled=table_series,
        )
        self.per_table = (
            self.side_bet_rtp,
            self.last_card,
            self.player_edge,
            self.live_return_z,
            self.live_return_rounds,
        )
        if r is not REGISTRY:  # the library's default registry has them already
            ProcessCollector(registry=r)
            PlatformCollector(registry=r)
            GCCollector(registry=r)

        self.journal_commit = Histogram(
            "pricing_journal_commit_seconds",
            "Time of one journal commit (a batch of writes, fsync included).",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.journal_records = Counter(
            "pricing_journal_records_total", "Events committed to the journal.", registry=r
        )
        self.journal_errors = Counter(
            "pricing_journal_errors_total",
            "Journal commits that failed (their writes answered UNAVAILABLE), by reason.",
            ("reason",),
            registry=r,
        )
        self.journal_lag = Gauge(
            "pricing_journal_lag_seconds",
            "How long the oldest event other replicas appended has waited to be folded here "
            "(JetStream journal; 0 when caught up).",
            registry=r,
        )
        self.journal_conflicts = Counter(
            "pricing_journal_conflicts_total",
            "Appends another replica got in first: the table was caught up and the event "
            "checked again (JetStream journal).",
            registry=r,
        )
        self.recovery = Gauge(
            "pricing_recovery_seconds",
            "Time the last start-up took to rebuild every table from the journal.",
            registry=r,
        )
        self.tables_held_aside = Gauge(
            "pricing_tables_held_aside",
            "Tables held aside: a newer build of the service wrote their journal, which this "
            "one cannot read (a game, a rules field or an event kind it does not have). Not "
            "served, their journal left as it is, until this server is upgraded.",
            registry=r,
        )
        self.limit_rejections = Counter(
            "pricing_limit_rejections_total",
            "Requests refused with RESOURCE_EXHAUSTED by a configured limit, by its flag.",
            ("limit",),
            registry=r,
        )
        self.favourable_rounds = Counter(
            "pricing_side_bet_favourable_rounds_total",
            "Rounds dealt with the side bet open and its exact RTP above 1 (blackjack, "
            "baccarat, Dragon Tiger; counted at every table that offers it).",
            ("bet",),
            registry=r,
        )
        self.closed_rounds = Counter(
            "pricing_side_bet_closed_rounds_total",
            "Rounds dealt with the side bet closed by game protection (close_at_rtp_bp: its "
            "exact RTP for the round at or over the table's bound), at every table offering it.",
            ("bet",),
            registry=r,
        )
        for bet in SIDE_BET_NAMES:  # at zero: the first round counted shows in increase()
            self.favourable_rounds.labels(bet)
            self.closed_rounds.labels(bet)

    def initialize(self, services: Iterable[ServiceDescriptor]) -> None:
        """Every series of every method of ``services`` at zero, as go-grpc-prometheus's
        ``InitializeMetrics`` makes them (its ``preRegisterMethod``: started, messages received
        and sent, the handling time histogram, and handled for each status code).

        A counter's series that first appears at 1 has no increase in PromQL's eyes: without
        these the first refused call of a method would raise no alert and show in no rate."""
        for service in services:
            for method in service.methods:
                labels = (
                    service.full_name,
                    method.name,
                    rpc_type(method.client_streaming, method.server_streaming),
                )
                for family in (self.started, self.msg_received, self.msg_sent, self.handling):
                    family.labels(*labels)
                for code in CODE_LABELS.values():
                    self.handled.labels(*labels, code)

    def feed_refused(self, event: str, code: grpc.StatusCode | None) -> None:
        """A Feed stream's ``event`` refused with ``code`` (None: an unexpected error, which the
        stream ends with INTERNAL)."""
        self.feed_rejected.labels(event, CODE_LABELS[code or grpc.StatusCode.INTERNAL]).inc()

    def journal_committed(self, seconds: float, records: int) -> None:
        self.journal_commit.observe(seconds)
        self.journal_records.inc(records)

    def journal_failed(self, reason: str) -> None:
        self.journal_errors.labels(reason).inc()

    def journal_lagged(self, seconds: float) -> None:
        self.journal_lag.set(seconds)

    def journal_conflicted(self) -> None:
        self.journal_conflicts.inc()

    def interceptor(self) -> MetricsInterceptor:
        """The interceptor that meters a server's calls. That server serves the pricing
        services, so their methods' series are initialised now (``initialize``)."""
        self.initialize(pricing_pb2.DESCRIPTOR.services_by_name.values())
        # The Feed stream's refusals too, by event (a FeedRequest field, or "none") and code:
        # the first refusal of each then shows in increase() and its alert.
        feed = pricing_pb2.FeedRequest.DESCRIPTOR.oneofs_by_name["event"]
        for event in [*(field.name for field in feed.fields), "none"]:
            for code in CODE_LABELS.values():
                self.feed_rejected.labels(event, code)
        return MetricsInterceptor(self)


def serve_metrics(metrics: Metrics, host: str, port: int) -> tuple[Any, int]:
    """Serve ``/metrics`` (only) over HTTP on ``host:port`` (port 0: any free port) in a
    daemon thread; return the server (``shutdown()`` stops it) and the bound port."""
    return serve_metrics_http(
        metrics.registry,
        host,
        port,
        extra=lambda: "".join(g.text() for g in metrics.per_table).encode(),
    )


_Behaviour = Callable[[Any, Any], Any]

_OK: Final = CODE_LABELS[grpc.StatusCode.OK]
_CANCELED: Final = CODE_LABELS[grpc.StatusCode.CANCELLED]


class MetricsInterceptor(ServerInterceptor):
    """Counts and times every unary, server-streaming and bidirectional RPC (the kinds this
    server has), labelled as go-grpc-prometheus labels them (``UNARY``…, ``CODE_LABELS``)."""

    def __init__(self, metrics: Metrics) -> None:
        self._m = metrics
        # Per method and inner handler (accepted, or refused for one reason): its metered
        # wrapper, built once, not per call (about 1 KiB held by every open stream, and four
        # label lookups). The inner interceptors hand over the same handlers every call.
        self._built = BuiltHandlers()

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        full_name = handler_call_details.method
        return self._built.get(
            (full_name, id(handler)), handler, lambda h: self._wrap(h, full_name)
        )

    def _wrap(self, handler: Handler, full_name: str) -> Handler:
        service, _, method = full_name.lstrip("/").rpartition("/")
        if handler.unary_unary is not None:
            labels = (service, method, UNARY)
            return grpc.unary_unary_rpc_method_handler(
                self._unary(handler.unary_unary, labels),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            labels = (service, method, SERVER_STREAM)
            return grpc.unary_stream_rpc_method_handler(
                self._stream(handler.unary_stream, labels),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream is not None:
            labels = (service, method, BIDI_STREAM)
            return grpc.stream_stream_rpc_method_handler(
                self._stream(handler.stream_stream, labels, bidi=True),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler  # client streaming: none on this server

    def _unary(
        self, behaviour: _Behaviour, labels: tuple[str, str, str], *, responds: bool = True
    ) -> _Behaviour:
        """``responds``: the call's return value is its one response (as go-grpc-prometheus
        counts a unary call: one message received, one sent if it succeeded)."""
        m = self._m
        started = m.started.labels(*labels)
        handling = m.handling.labels(*labels)
        received = m.msg_received.labels(*labels)
        sent = m.msg_sent.labels(*labels)

        async def wrapped(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            started.inc()
            received.inc()
            t0 = time.perf_counter()
            code = _OK
            try:
                response = await behaviour(request, context)
                if responds:
                    sent.inc()
                return response
            except asyncio.CancelledError:
                code = _CANCELED
                raise
            except BaseException:
                code = code_label(context)
                raise
            finally:
                handling.observe(time.perf_counter() - t0)
                m.handled.labels(*labels, code).inc()

        return wrapped

    def _stream(
        self, behaviour: _Behaviour, labels: tuple[str, str, str], *, bidi: bool = False
    ) -> _Behaviour:
        """A server stream (its one request counted as it starts), or with ``bidi`` a
        bidirectional one (each request counted as the handler reads it); either timed as a
        whole, each message it sends counted."""
        if not inspect.isasyncgenfunction(behaviour):
            # A streaming handler may also be a coroutine that calls context.write() (the
            # health service's Watch) or context.read(): time it as a whole like a unary call;
            # the messages it reads or writes are not seen here, so none are counted.
            return self._unary(behaviour, labels, responds=False)
        m = self._m
        started = m.started.labels(*labels)
        handling = m.handling.labels(*labels)
        received = m.msg_received.labels(*labels)
        sent = m.msg_sent.labels(*labels)

        async def counted(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
            async for request in requests:
                received.inc()
                yield request

        async def wrapped(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            started.inc()
            if bidi:
                request = counted(request)
            else:
                received.inc()
            t0 = time.perf_counter()
            code = _OK
            try:
                async for response in behaviour(request, context):
                    yield response
                    sent.inc()
            except (asyncio.CancelledError, GeneratorExit):
                code = _CANCELED
                raise
            except BaseException:
                code = code_label(context)
                raise
            finally:
                handling.observe(time.perf_counter() - t0)
                m.handled.labels(*labels, code).inc()

        return wrapped
