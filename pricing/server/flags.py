"""The flags of ``pricing serve``, each also read from a ``PRICING_*`` environment variable
(the flag wins), and the checks of their values."""

from __future__ import annotations

import argparse
import ipaddress
import os
from collections.abc import Callable
from typing import Any, Final

from pricing.journal import MEMORY
from pricing.server import eventloop
from pricing.server import security as sec
from pricing.server.security import TOKEN_ENV
from pricing.server.service import DEALER_SERVICE, PRICING_SERVICE
from pricing.server.store import DEFAULT_SNAPSHOT_EVERY

__all__ = ["ENV_PREFIX", "LOG_LEVELS", "is_loopback", "parser"]


ENV_PREFIX: Final = "PRICING_"
LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR")


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


def _optional_port(text: str) -> int | None:
    """A port, or None for ``off`` or nothing: a part of the server that is not started.

    >>> _optional_port("off"), _optional_port(""), _optional_port("8080")
    (None, None, 8080)
    """
    return None if text.strip().lower() in ("", "off") else _port(text)


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
        "--console-host",
        default=_env("CONSOLE_HOST", "127.0.0.1"),
        help=(
            "address of the operators' web console [PRICING_CONSOLE_HOST]; beyond loopback only "
            "with TLS and reader tokens (or --insecure), as the gRPC port"
        ),
    )
    p.add_argument(
        "--console-port",
        type=_optional_port,
        default=_env("CONSOLE_PORT", "off"),
        metavar="PORT",
        help=(
            "HTTP port of the read-only web console (the lobby and each table, live), 0 for "
            "any free port, off for none [PRICING_CONSOLE_PORT]"
        ),
    )
    p.add_argument(
        "--no-table-metrics",
        dest="table_metrics",
        action="store_false",
        help=(
            "export no per-table series (pricing_side_bet_rtp, "
            "pricing_table_last_card_timestamp_seconds, pricing_player_edge, "
            "pricing_live_return_z, pricing_live_return_rounds): a server of "
            "tens of thousands of tables saves their memory and megabytes of every scrape "
            "(per-table series on: %(default)s)"
        ),
    )
    p.add_argument(
        "--no-main-game-analysis",
        dest="main_game_analysis",
        action="store_false",
        help=(
            "compute no blackjack main-game figures: no seat decisions and no player_edge on "
            "the tables' states, no pricing_player_edge series (they are computed after each "
            "event is acknowledged, in a worker thread; off, that thread's CPU is saved) "
            "(analysis on: %(default)s)"
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
