"""Run the pricing service: gRPC (DealerService, PricingService, health, reflection) on one port,
Prometheus metrics over HTTP on another.

Every flag can also be set from the environment (the flag wins). Once the service is up and
health reports SERVING, one machine-readable line goes to standard output::

    {"event": "ready", "host": "127.0.0.1", "grpc_port": 50051, "metrics_port": 9464}

(with port 0 the ports are the ones the system picked). SIGTERM or SIGINT: health turns
NOT_SERVING, new dealer writes are answered UNAVAILABLE (nothing applied) while those begun
finish, every stream ends, then the server stops taking calls, all within the grace period,
and the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import ipaddress
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import grpc
import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from pricing.journal import MEMORY, Journal, JournalError, open_journal
from pricing.server import eventloop
from pricing.server import security as sec
from pricing.server.auth import AuthInterceptor, TokenStore
from pricing.server.limits import ConcurrencyInterceptor, grpc_options
from pricing.server.metrics import Metrics, serve_metrics
from pricing.server.security import TOKEN_ENV, Security
from pricing.server.service import DEALER_SERVICE, PRICING_SERVICE, PricingService
from pricing.server.store import DEFAULT_SNAPSHOT_EVERY, TableStore

__all__ = ["main", "parser", "serve"]

log = logging.getLogger("pricing.server")

ENV_PREFIX: Final = "PRICING_"
LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR")
#: How often health looks at the journal (a replica's lag, its NATS connection).
HEALTH_INTERVAL: Final = 0.05
#: On shutdown, how long no dealer write may be asked for before gRPC stops taking calls, and
#: how long to wait for such a moment at most (a busy server's feeds never fall quiet).
QUIET_GAP: Final = 0.02
QUIET_WAIT: Final = 0.25


class _FromEnvironment(str):
    """A flag's default read from the environment, which remembers its variable."""

    variable: str


def _env(name: str, default: str) -> str:
    # A string default goes through the flag's own ``type``, so an environment value is
    # checked exactly like the flag (a bad one is a usage error naming the variable).
    value = os.environ.get(ENV_PREFIX + name)
    if value is None:
        return default
    text = _FromEnvironment(value)
    text.variable = ENV_PREFIX + name
    return text


class _Parser(argparse.ArgumentParser):
    """Reports a bad environment value by its variable, not by the flag it stands in for."""

    def _get_value(self, action: argparse.Action, arg_string: str) -> object:
        if not isinstance(arg_string, _FromEnvironment):
            return super()._get_value(action, arg_string)
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as exc:
            self.error(f"{arg_string.variable}={str(arg_string)!r}: {exc.message}")


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: use 0-65535 (0: any free port)")
    return value


def _log_level(text: str) -> str:
    level = text.strip().upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(LOG_LEVELS)}")
    return level


def _bounded(
    convert: Callable[[str], float], what: str, low: float, high: float, unit: str = ""
) -> Callable[[str], Any]:
    """An argparse ``type``: ``convert`` the text, then check it is within ``low``-``high``."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value}{unit} is outside {low}-{high}")
        return value

    return parse


_seconds = _bounded(float, "a number of seconds", 0, 3600, " seconds")
_positive = _bounded(int, "a whole number", 1, 1_000_000)
_lag = _bounded(float, "a number of seconds", 0.05, 3600, " seconds")
_stream_replicas = _bounded(int, "a whole number", 1, 5)


def _nats_servers(text: str) -> list[str]:
    """``nats://HOST:PORT[,HOST:PORT...]`` as one URL per node (empty: no JetStream).

    >>> _nats_servers("nats://a:4222,b:4223"), _nats_servers("")
    (['nats://a:4222', 'nats://b:4223'], [])
    """
    urls = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        url = part if "://" in part else f"nats://{part}"
        scheme, _, rest = url.partition("://")
        host, _, port = rest.rpartition(":")
        if scheme not in ("nats", "tls") or not host or not port.isdigit() or "/" in rest:
            raise argparse.ArgumentTypeError(
                f"{part!r} is not a NATS server: use nats://HOST:PORT[,HOST:PORT...]"
            )
        urls.append(url)
    return urls


_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(text: str) -> float:
    """Seconds from ``90``, ``90s``, ``15m``, ``24h`` or ``7d``.

    >>> _duration("24h"), _duration("90"), _duration("1.5m")
    (86400.0, 90.0, 90.0)
    """
    value = text.strip().lower()
    scale = _UNITS.get(value[-1:], 0)
    number = value[:-1] if scale else value
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a duration: use seconds, or a number with s, m, h or d (24h)"
        ) from None
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration of 0 or more")
    return seconds


def _flag(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("", "0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not a yes/no value (use 1 or 0)")


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve beyond this machine


def parser(prog: str = "pricing serve") -> argparse.ArgumentParser:
    p = _Parser(
        prog=prog,
        description=(
            "Serve live-table prices over gRPC. Game servers read from "
            f"{PRICING_SERVICE}; the dealer feed writes to {DEALER_SERVICE}; health "
            "(grpc.health.v1) and reflection share the gRPC port; Prometheus scrapes /metrics "
            "on the metrics port."
        ),
        epilog=(
            "Each flag also reads an environment variable, shown in brackets (the flag wins). "
            "Clients send tokens as 'authorization: Bearer <token>' metadata; "
            f"{TOKEN_ENV} is a one-token shortcut for a dealer token (tokens are never "
            "logged). Beyond loopback the server needs TLS, dealer and reader tokens, unless "
            "--insecure. SIGHUP re-reads the tokens files and certificates. On start-up a JSON "
            'line {"event": "ready", ...} with the bound ports is printed to standard output.'
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--host",
        default=_env("HOST", "127.0.0.1"),
        help="address to bind, gRPC and metrics [PRICING_HOST]; 0.0.0.0 to serve other hosts",
    )
    p.add_argument(
        "--port",
        type=_port,
        default=_env("PORT", "50051"),
        help="gRPC port, 0 for any free port [PRICING_PORT]",
    )
    p.add_argument(
        "--metrics-port",
        type=_port,
        default=_env("METRICS_PORT", "9464"),
        help="Prometheus /metrics HTTP port, 0 for any free port [PRICING_METRICS_PORT]",
    )
    p.add_argument(
        "--no-table-metrics",
        dest="table_metrics",
        action="store_false",
        help=(
            "export no per-table series (pricing_side_bet_rtp, "
            "pricing_table_last_card_timestamp_seconds): a server of tens of thousands of "
            "tables saves their memory and megabytes of every scrape (per-table series on: "
            "%(default)s)"
        ),
    )
    p.add_argument(
        "--log-level",
        type=_log_level,
        default=_env("LOG_LEVEL", "INFO"),
        metavar="{" + ",".join(LOG_LEVELS) + "}",
        help="log verbosity; logs go to standard error [PRICING_LOG_LEVEL]",
    )
    p.add_argument(
        "--grace",
        type=_seconds,
        default=_env("GRACE", "5"),
        help="seconds calls in flight get to finish on shutdown [PRICING_GRACE]",
    )
    p.add_argument(
        "--data-dir",
        default=_env("DATA_DIR", "data"),
        help=(
            "folder of the table journal (an SQLite file, created if missing): every accepted "
            "event is on disk before it is acknowledged, and a restart continues every table; "
            f"'{MEMORY}' keeps nothing (tests, demos) [PRICING_DATA_DIR]"
        ),
    )
    p.add_argument(
        "--closed-retention",
        type=_duration,
        default=_env("CLOSED_RETENTION", "24h"),
        metavar="DURATION",
        help=(
            "how long a closed table stays readable (GetTable, Settle) before it leaves memory "
            "and the journal, its events archived to DATA_DIR/archive/ as JSON Lines "
            "(seconds, or 90m, 24h, 7d) [PRICING_CLOSED_RETENTION]"
        ),
    )
    p.add_argument(
        "--snapshot-every",
        type=_positive,
        default=_env("SNAPSHOT_EVERY", str(DEFAULT_SNAPSHOT_EVERY)),
        metavar="N",
        help=(
            "events between two snapshots of a table: after a crash a restart folds at most N "
            "events per table [PRICING_SNAPSHOT_EVERY]"
        ),
    )
    p.add_argument(
        "--journal",
        type=_nats_servers,
        default=_env("JOURNAL", ""),
        metavar="nats://HOST:PORT[,...]",
        help=(
            "keep the tables in NATS JetStream instead of --data-dir, shared by every server "
            "given the same cluster (replicas: each takes writes and serves every table); "
            "needs the [nats] extra [PRICING_JOURNAL]"
        ),
    )
    p.add_argument(
        "--journal-replicas",
        type=_stream_replicas,
        default=_env("JOURNAL_REPLICAS", "1"),
        metavar="N",
        help=(
            "copies JetStream keeps of the tables' stream: 1 for a single NATS server, 3 for "
            "a cluster that survives losing a node [PRICING_JOURNAL_REPLICAS]"
        ),
    )
    p.add_argument(
        "--max-lag",
        type=_lag,
        default=_env("MAX_LAG", "1"),
        metavar="SECONDS",
        help=(
            "with --journal: a replica that lost NATS, or folds the other replicas' events "
            "more than this late, reports NOT_SERVING and refuses writes until caught up "
            "[PRICING_MAX_LAG]"
        ),
    )
    p.add_argument(
        "--event-loop",
        choices=eventloop.LOOPS,
        default=_env("EVENT_LOOP", eventloop.default()),
        help=(
            "the asyncio event loop: uvloop (in C: less CPU per message sent to a watcher) "
            "or the standard library's [PRICING_EVENT_LOOP]"
        ),
    )
    sec.add_arguments(p, flag=_flag, env=_env, bounded=_bounded)
    return p


def _bind_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def _grpc_server(metrics: Metrics, security: Security) -> grpc.aio.Server:
    """The gRPC server: metrics outermost (they count refused calls too), then the roles, then
    the concurrent-call limit."""
    return grpc.aio.server(
        interceptors=[
            metrics.interceptor(),
            AuthInterceptor(
                security.tokens, dealer_service=DEALER_SERVICE, reader_service=PRICING_SERVICE
            ),
            ConcurrencyInterceptor(
                security.limits.max_concurrent_rpcs,
                (DEALER_SERVICE, PRICING_SERVICE),
                lambda limit: metrics.limit_rejections.labels(limit).inc(),
            ),
        ],
        # A busy port is an error, not a shared port.
        options=[("grpc.so_reuseport", 0), *grpc_options(security.limits)],
    )


def _bind(server: grpc.aio.Server, host: str, port: int, security: Security) -> int:
    """Bind the port, TLS only once given certificates; the bound port."""
    address = _bind_address(host, port)
    if security.certificates is not None:
        return server.add_secure_port(address, security.certificates.credentials())
    return server.add_insecure_port(address)


def _metrics_page(metrics: Metrics, host: str, port: int) -> tuple[Any, int]:
    """Serve /metrics; a port that cannot be bound is an ``OSError`` naming it."""
    try:
        return serve_metrics(metrics, host, port)
    except OSError as exc:
        where = _bind_address(host, port)
        raise OSError(f"metrics port {where}: {exc.strerror or exc}") from exc


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
) -> None:
    """Run until ``stop`` is set (or SIGTERM/SIGINT when ``stop`` is None). Raises
    ``JournalError`` if the journal (JetStream on ``journal_servers``, or in ``data_dir``)
    cannot be used. ``security``: tokens, TLS and limits (default: none but ``dealer_token``,
    if given). ``table_metrics`` False: no per-table metric series."""
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
    )
    await asyncio.to_thread(service.quotes.start)  # its worker process, before serving
    services = (DEALER_SERVICE, PRICING_SERVICE)
    server = _grpc_server(metrics, security)
    server.add_generic_rpc_handlers(service.handlers())
    health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *services):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    if security.reflection:
        reflection.enable_server_reflection(
            (
                *services,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            server,
        )
    grpc_port = _bind(server, host, port, security)
    metrics_host = security.metrics_host or host
    httpd, bound_metrics_port = _metrics_page(metrics, metrics_host, metrics_port)
    await server.start()

    stop = _signals(stop, security)
    if security.insecure and not is_loopback(host):
        log.warning("--insecure: serving beyond loopback without %s", ", ".join(security.missing()))

    try:
        await _recover(service, metrics)
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
    }
    print(json.dumps(ready), flush=True)

    await stop.wait()
    log.info("shutting down: health NOT_SERVING, ending streams, %.1f s grace", grace)
    health_follower.cancel()
    await health_servicer.enter_graceful_shutdown()
    await asyncio.sleep(0)  # let health watchers see NOT_SERVING before the calls stop
    sweeper.cancel()
    refresh.cancel()
    await _stop_calls(service, server, grace)
    service.quotes.close()
    await service.store.close()
    httpd.shutdown()
    log.info("stopped")


async def _stop_calls(service: PricingService, server: grpc.aio.Server, grace: float) -> None:
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
    await server.stop(max(0.0, deadline - time.monotonic()))


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
    await journal.follow(store.receive)
    service.serve_tables()
    _settle_heap()
    log.info(
        "journal %s: %d table(s) recovered (%d from snapshots, %d events folded) in %.3f s%s",
        journal.location,
        recovery.tables,
        recovery.images,
        recovery.events_folded,
        recovery.seconds,
        f"; {recovery.images_ignored} snapshot(s) were of classes this build changed"
        * bool(recovery.images_ignored),
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
    security = sec.from_arguments(args, p.error, beyond_loopback=not is_loopback(args.host))
    # A file-size limit (RLIMIT_FSIZE) must fail the journal's write like a full disk does
    # (UNAVAILABLE, retried), not kill the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    logging.basicConfig(
        level=args.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stderr,
    )
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
