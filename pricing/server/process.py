"""Run the pricing service: gRPC (DealerService, PricingService, health, reflection) on one port,
Prometheus metrics over HTTP on another.

Every flag (``pricing.server.flags``) can also be set from the environment (the flag wins).
Once the service is up and health reports SERVING, one machine-readable line goes to standard
output::

    {"event": "ready", "host": "127.0.0.1", "grpc_port": 50051, "metrics_port": 9464}

(with port 0 the ports are the ones the system picked). SIGTERM or SIGINT: health turns
NOT_SERVING, new dealer writes are answered UNAVAILABLE (nothing applied) while those begun
finish, every stream ends, then the server stops taking calls, all within the grace period,
and the process exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import json
import logging
import signal
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
import grpc.aio
from google.protobuf import descriptor_pb2, descriptor_pool, timestamp_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2 as reflection_v1alpha

from pricing.journal import MEMORY, Journal, JournalError, open_journal
from pricing.server import eventloop
from pricing.server import security as sec
from pricing.server.auth import TokenStore
from pricing.server.auth_interceptor import AuthInterceptor
from pricing.server.concurrency import ConcurrencyInterceptor
from pricing.server.flags import is_loopback, parser
from pricing.server.limits import grpc_options
from pricing.server.metrics import Metrics, serve_metrics
from pricing.server.security import Security
from pricing.server.service import DEALER_SERVICE, PRICING_SERVICE, PricingService
from pricing.server.store import DEFAULT_SNAPSHOT_EVERY, TableStore
from pricing.v1 import pricing_pb2

if TYPE_CHECKING:  # imported when a console is asked for: aiohttp and Jinja2 take 0.2 s
    from pricing.server.console import Console

__all__ = ["main", "parser", "serve"]

log = logging.getLogger("pricing.server")

#: How often health looks at the journal (a replica's lag, its NATS connection).
HEALTH_INTERVAL: Final = 0.05

#: On shutdown, how long no dealer write may be asked for before gRPC stops taking calls, and
#: how long to wait for such a moment at most (a busy server's feeds never fall quiet).
QUIET_GAP: Final = 0.02
QUIET_WAIT: Final = 0.25


def _bind_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def _grpc_server(metrics: Metrics, security: Security) -> grpc.aio.Server:
    """The gRPC server: metrics outermost (they count refused calls too), then the roles, then
    the concurrent-call budgets, one for the dealer's writes and one for the reads."""
    limits = security.limits

    def refused(limit: str) -> None:
        metrics.limit_rejections.labels(limit).inc()

    return grpc.aio.server(
        interceptors=[
            metrics.interceptor(),
            AuthInterceptor(
                security.tokens, dealer_service=DEALER_SERVICE, reader_service=PRICING_SERVICE
            ),
            ConcurrencyInterceptor(
                limits.max_concurrent_writes,
                (DEALER_SERVICE,),
                refused,
                flag="max-concurrent-writes",
            ),
            ConcurrencyInterceptor(
                limits.max_concurrent_reads,
                (PRICING_SERVICE,),
                refused,
                flag="max-concurrent-reads",
            ),
        ],
        # A busy port is an error, not a shared port.
        options=[("grpc.so_reuseport", 0), *grpc_options(security.limits)],
    )


def _cannot_bind(what: str, host: str, port: int, port_flag: str, host_flag: str) -> OSError:
    """The error of a port that cannot be bound: the address, why (a socket of our own is bound
    there to find out: gRPC only says it failed) and which flag to change."""
    address = _bind_address(host, port)
    try:
        found = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as exc:
        return OSError(f"{what} {address}: {exc.strerror or exc}: change {host_flag}")
    reason, code = "refused", 0
    for family, kind, proto, _, sockaddr in found:
        with socket.socket(family, kind, proto) as probe:
            try:
                probe.bind(sockaddr)
            except OSError as exc:
                reason, code = exc.strerror or str(exc), exc.errno or 0
                break
    if code in (errno.EADDRINUSE, errno.EACCES):  # another process's port, or a privileged one
        change = f"choose another {port_flag}"
    elif code == errno.EADDRNOTAVAIL:  # not an address of this machine
        change = f"change {host_flag}"
    else:
        change = f"change {port_flag} or {host_flag}"
    return OSError(f"{what} {address}: {reason}: {change}")


def _bind(server: grpc.aio.Server, host: str, port: int, security: Security) -> int:
    """Bind the port, TLS only once given certificates; the bound port. A port that cannot be
    bound is an ``OSError`` naming it and the flag to change (gRPC's own error names neither
    the reason nor the flag)."""
    address = _bind_address(host, port)
    try:
        if security.certificates is not None:
            return server.add_secure_port(address, security.certificates.credentials())
        return server.add_insecure_port(address)
    except RuntimeError:
        raise _cannot_bind(
            "gRPC port", host, port, "--port (PRICING_PORT)", "--host (PRICING_HOST)"
        ) from None


def _metrics_page(metrics: Metrics, host: str, port: int) -> tuple[Any, int]:
    """Serve /metrics; a port that cannot be bound is an ``OSError`` naming it and the flag to
    change."""
    try:
        return serve_metrics(metrics, host, port)
    except OSError as exc:
        where = _bind_address(host, port)
        if exc.errno in (errno.EADDRINUSE, errno.EACCES):
            change = "choose another --metrics-port (PRICING_METRICS_PORT)"
        else:
            change = (
                "change --metrics-port (PRICING_METRICS_PORT) or --metrics-host "
                "(PRICING_METRICS_HOST)"
            )
        raise OSError(f"metrics port {where}: {exc.strerror or exc}: {change}") from exc


#: gRPC reflection's current version. grpcio-reflection (1.85 too) serves only v1alpha, which
#: recent clients (grpcurl) ask for after v1; v1 is the same messages, field for field, under
#: another package, so the v1alpha servicer answers it too (``_enable_reflection``).
REFLECTION_V1: Final = "grpc.reflection.v1.ServerReflection"
_REFLECTION_V1_FILE: Final = "grpc/reflection/v1/reflection.proto"


def _reflection_pool() -> descriptor_pool.DescriptorPool:
    """The files reflection describes, in a pool of its own: the pricing services', health's,
    v1alpha's, and v1's as v1alpha's file renamed (no grpcio-reflection module holds v1's).
    Kept out of the default pool, where a real v1 file loaded later by some library would
    clash with the copy."""
    pool = descriptor_pool.DescriptorPool()
    # A file's imports before it (the pricing file's Timestamp).
    for module in (timestamp_pb2, pricing_pb2, health_pb2, reflection_v1alpha):
        pool.AddSerializedFile(module.DESCRIPTOR.serialized_pb)
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_v1alpha.DESCRIPTOR.CopyToProto(proto)
    old, new = f".{proto.package}.", ".grpc.reflection.v1."
    proto.name, proto.package = _REFLECTION_V1_FILE, "grpc.reflection.v1"
    proto.ClearField("options")  # v1alpha's: deprecated, its Java and Go packages

    def renamed(type_name: str) -> str:
        return new + type_name.removeprefix(old) if type_name.startswith(old) else type_name

    for message in proto.message_type:
        for field in message.field:
            if field.type_name:  # a message field (set on a string one, it is refused)
                field.type_name = renamed(field.type_name)
    for method in proto.service[0].method:
        method.input_type, method.output_type = (
            renamed(method.input_type),
            renamed(method.output_type),
        )
    pool.Add(proto)
    return pool


def _enable_reflection(server: grpc.aio.Server, services: Sequence[str], metrics: Metrics) -> None:
    """Server reflection, v1 and v1alpha, listing ``services``, health and itself; its
    methods' series at zero, as every other service's."""
    names = (
        *services,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        REFLECTION_V1,
        reflection.SERVICE_NAME,
    )
    pool = _reflection_pool()
    servicer = reflection.aio.ReflectionServicer(  # type: ignore[attr-defined]
        names, pool=pool
    )
    metrics.initialize(
        [
            pool.FindServiceByName(REFLECTION_V1),
            reflection_v1alpha.DESCRIPTOR.services_by_name["ServerReflection"],
        ]
    )
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_v1alpha.ServerReflectionRequest.FromString,
        response_serializer=reflection_v1alpha.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": v1}),)
    )


def _signals(stop: asyncio.Event | None, security: Security) -> asyncio.Event:
    """SIGTERM/SIGINT set the returned event (unless the caller gave its own); SIGHUP reloads
    tokens and certificates."""
    loop = asyncio.get_running_loop()
    if stop is None:
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
    with contextlib.suppress(ValueError, RuntimeError):  # not the main thread: no SIGHUP
        loop.add_signal_handler(signal.SIGHUP, security.reload)
    return stop


async def serve(
    host: str,
    port: int,
    metrics_port: int,
    *,
    grace: float = 5.0,
    dealer_token: str | None = None,
    data_dir: str = MEMORY,
    closed_retention: float = 24 * 3600.0,
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
    journal_servers: Sequence[str] = (),
    journal_replicas: int = 1,
    max_lag: float = 1.0,
    security: Security | None = None,
    stop: asyncio.Event | None = None,
    table_metrics: bool = True,
    main_game_analysis: bool = True,
    console_host: str = "127.0.0.1",
    console_port: int | None = None,
) -> None:
    """Run until ``stop`` is set (or SIGTERM/SIGINT when ``stop`` is None). Raises
    ``JournalError`` if the journal (JetStream on ``journal_servers``, or in ``data_dir``)
    cannot be used. ``security``: tokens, TLS and limits (default: none but ``dealer_token``,
    if given). ``table_metrics`` False: no per-table metric series. ``main_game_analysis``
    False: no blackjack decisions or player edge on the tables' states. ``console_port``: the
    web console's (``pricing.server.console``) on ``console_host``; None: no console."""
    if security is None:
        security = Security(tokens=TokenStore(dealer_token=dealer_token))
    metrics = Metrics(table_series=table_metrics)
    journal = open_journal(
        data_dir, metrics, servers=journal_servers, replicas=journal_replicas, max_lag=max_lag
    )
    service = PricingService(
        metrics,
        journal=journal,
        limits=security.limits,
        ready=False,  # until _recover has the tables back
        snapshot_every=snapshot_every,
        closed_retention=closed_retention,
        archive_dir=None if data_dir == MEMORY else Path(data_dir) / "archive",
        main_game_analysis=main_game_analysis,
    )
    await asyncio.to_thread(service.offload.start)  # the worker processes, before serving
    services = (DEALER_SERVICE, PRICING_SERVICE)
    server = _grpc_server(metrics, security)
    server.add_generic_rpc_handlers(service.handlers())
    health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    metrics.initialize([health_pb2.DESCRIPTOR.services_by_name["Health"]])
    for name in ("", *services):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    if security.reflection:
        _enable_reflection(server, services, metrics)
    grpc_port = _bind(server, host, port, security)
    metrics_host = security.metrics_host or host
    httpd, bound_metrics_port = _metrics_page(metrics, metrics_host, metrics_port)
    await server.start()

    stop = _signals(stop, security)
    if security.insecure and not is_loopback(host):
        log.warning("--insecure: serving beyond loopback without %s", ", ".join(security.missing()))

    try:
        console = await _console_then_recover(
            service, metrics, security, host=console_host, port=console_port, grace=grace
        )
    except BaseException:
        await server.stop(0)
        httpd.shutdown()
        await journal.close()
        raise
    refresh = asyncio.create_task(_refresh_images(service.store))
    sweeper = asyncio.create_task(_sweep(service.store, closed_retention))

    for name in ("", *services):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    health_follower = asyncio.create_task(_follow_health(journal, health_servicer, services))
    log.info(
        "serving gRPC on %s (%s), metrics on http://%s/metrics",
        _bind_address(host, grpc_port),
        security.describe(),
        _bind_address(metrics_host, bound_metrics_port),
    )
    ready = {
        "event": "ready",
        "host": host,
        "grpc_port": grpc_port,
        "metrics_port": bound_metrics_port,
        **({} if console is None else {"console_port": console.port}),
    }
    print(json.dumps(ready), flush=True)

    await stop.wait()
    log.info("shutting down: health NOT_SERVING, ending streams, %.1f s grace", grace)
    health_follower.cancel()
    await health_servicer.enter_graceful_shutdown()
    await asyncio.sleep(0)  # let health watchers see NOT_SERVING before the calls stop
    sweeper.cancel()
    refresh.cancel()
    await _stop_calls(service, server, grace, console)
    await asyncio.to_thread(service.offload.close)  # joins the workers: off the loop
    service.publisher.analyst.close()
    await service.store.close()
    httpd.shutdown()
    log.info("stopped")


async def _console_then_recover(
    service: PricingService,
    metrics: Metrics,
    security: Security,
    *,
    host: str,
    port: int | None,
    grace: float,
) -> Console | None:
    """Serve the web console on ``host``:``port``, if asked for (bound first, so a port taken
    is told at once; its pages answer 503 until the tables are rebuilt), then rebuild the
    tables (``_recover``)."""
    console = None if port is None else await _console(service, security, host, port, grace)
    try:
        await _recover(service, metrics)
    except BaseException:
        if console is not None:
            await console.stop(0)
        raise
    return console


async def _console(
    service: PricingService, security: Security, host: str, port: int, grace: float
) -> Console:
    """Serve the web console on ``host``:``port``, its address logged."""
    from pricing.server.console import start_console  # noqa: PLC0415 (see TYPE_CHECKING)

    console = await start_console(service, security, host, port, grace=grace)
    log.info("console on %s (%s)", console.url, security.describe(console=True))
    if security.insecure and not is_loopback(host):
        gaps = security.missing(dealer=False)
        if gaps:
            log.warning(
                "--insecure: the console serves beyond loopback without %s", ", ".join(gaps)
            )
    return console


async def _stop_calls(
    service: PricingService, server: grpc.aio.Server, grace: float, console: Console | None
) -> None:
    """Refuse every new dealer write (UNAVAILABLE, nothing applied), let those begun finish
    and reach the watchers, end every stream, then stop gRPC: all within ``grace``.

    Once stopped, gRPC cancels the calls it has not handed to the service yet: CANCELLED,
    though nothing of them was applied. So it stops when the writes begun are answered and,
    best effort, at a moment when no write has been asked for lately (each refused feed backs
    off before it resends); a call already on its way can still be cancelled, which is why
    the clients resend a CANCELLED they did not cause."""
    deadline = time.monotonic() + grace
    service.stop_writes()
    if not await service.writes_done(grace):
        log.warning("dealer writes still being applied after %.1f s: they are cut off", grace)
    await service.writes_quiet(QUIET_GAP, max(0.0, min(deadline - time.monotonic(), QUIET_WAIT)))
    service.end_streams()
    left = max(0.0, deadline - time.monotonic())
    if console is None:
        await server.stop(left)
    else:  # side by side: a page that does not read cannot take gRPC's grace
        await asyncio.gather(console.stop(left), server.stop(left))


async def _refresh_images(store: TableStore) -> None:
    try:
        count = await store.refresh_images()
    except Exception:  # the events are safe; the next start folds them
        log.warning("could not snapshot the recovered tables", exc_info=True)
    else:
        if count:
            log.info("snapshot taken of %d recovered table(s)", count)


#: Container objects allocated (net) between two young-generation collections; CPython's
#: default is 700. A fan-out to thousands of watchers holds thousands of futures and send
#: batches at once, so at 700 the collector ran several times per published version, scanning
#: live objects that never form cycles (about 9 objects freed per collection): a tenth of the
#: server's CPU. At 20,000 most fan-outs end before a collection and their objects die
#: uncounted.
GC_YOUNG_THRESHOLD: Final = 20_000
#: Young collections between two middle-generation ones (CPython: 10). The middle generation
#: holds what survived them, so with 20,000 young objects a time it could reach 200,000 after
#: a burst of stream opens: a 164 ms collection, seen right after 10,000 watchers opened.
#: At 2 it stays under 40,000 objects.
GC_MIDDLE_THRESHOLD: Final = 2


def _settle_heap() -> None:
    """After recovery: the recovered tables and everything loaded at start-up are moved out
    of the collector's sight (``gc.freeze``: they live as long as the process and are not
    garbage), and the collector's thresholds set for many short-lived objects
    (``GC_YOUNG_THRESHOLD``, ``GC_MIDDLE_THRESHOLD``)."""
    gc.collect()
    gc.freeze()
    oldest = gc.get_threshold()[2]
    gc.set_threshold(GC_YOUNG_THRESHOLD, GC_MIDDLE_THRESHOLD, oldest)


async def _recover(service: PricingService, metrics: Metrics) -> None:
    """Rebuild every table from the journal, then follow it (the other replicas' writes)."""
    store = service.store
    journal = store.journal
    await journal.start()
    recovery = await asyncio.to_thread(store.recover)
    metrics.recovery.set(recovery.seconds)
    await journal.follow(store.receive, store.hold_aside)
    service.serve_tables()
    _settle_heap()
    log.info(
        "journal %s: %d table(s) recovered (%d from snapshots, %d events folded) in %.3f s%s%s",
        journal.location,
        recovery.tables,
        recovery.images,
        recovery.events_folded,
        recovery.seconds,
        f"; {recovery.images_ignored} snapshot(s) were of classes this build changed"
        * bool(recovery.images_ignored),
        f"; {recovery.held_aside} table(s) held aside, written by a newer build"
        * bool(recovery.held_aside),
    )


async def _follow_health(journal: Journal, servicer: Any, services: Sequence[str]) -> None:
    """Health follows the journal: NOT_SERVING while it cannot take writes (a replica that
    lost NATS or lags behind), SERVING again once it can."""
    serving = True
    while True:
        reason = journal.unavailable_reason()
        if (reason is None) != serving:
            serving = reason is None
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if serving
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            for name in ("", *services):
                await servicer.set(name, status)
            if serving:
                log.info("journal caught up: SERVING")
            else:
                log.warning("NOT_SERVING: %s", reason)
        await asyncio.sleep(HEALTH_INTERVAL)


async def _sweep(store: TableStore, retention: float) -> None:
    """Move closed tables out once their retention is over, checking a few times per
    retention period (at most once a minute)."""
    interval = min(60.0, max(0.05, retention / 4))
    while True:
        await asyncio.sleep(interval)
        try:
            await store.sweep()
        except Exception:  # the next sweep tries again
            log.warning("could not move out closed tables", exc_info=True)


def main(argv: Sequence[str] | None = None, prog: str = "pricing serve") -> int:
    p = parser(prog)
    args = p.parse_args(argv)
    logging.basicConfig(
        level=args.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    security = sec.from_arguments(args, p.error, beyond_loopback=not is_loopback(args.host))
    gaps = security.missing(dealer=False)  # the console is read-only: no dealer tokens needed
    console_beyond = args.console_port is not None and not is_loopback(args.console_host)
    if console_beyond and gaps and not args.insecure:
        p.error(sec.beyond_loopback_refusal("--console-host", args.console_host, gaps))
    # A file-size limit (RLIMIT_FSIZE) must fail the journal's write like a full disk does
    # (UNAVAILABLE, retried), not kill the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        new_loop = eventloop.factory(args.event_loop)
    except ValueError as exc:
        p.error(str(exc))
    log.info("event loop: %s", args.event_loop)
    try:
        with asyncio.Runner(loop_factory=new_loop) as runner:
            runner.run(
                serve(
                    args.host,
                    args.port,
                    args.metrics_port,
                    grace=args.grace,
                    data_dir=args.data_dir,
                    closed_retention=args.closed_retention,
                    snapshot_every=args.snapshot_every,
                    journal_servers=args.journal,
                    journal_replicas=args.journal_replicas,
                    max_lag=args.max_lag,
                    security=security,
                    table_metrics=args.table_metrics,
                    main_game_analysis=args.main_game_analysis,
                    console_host=args.console_host,
                    console_port=args.console_port,
                )
            )
    except JournalError as exc:
        log.error("cannot start: %s", exc)
        return 1
    except (RuntimeError, OSError) as exc:
        log.error("cannot serve: %s", exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
