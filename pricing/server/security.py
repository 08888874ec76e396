"""The security and limits flags of ``pricing serve``, and what they build: the tokens of each
role, the TLS certificates, the limits, and the rule for serving beyond this machine.

Beyond loopback the server serves only with TLS, dealer tokens and reader tokens, unless
``--insecure`` (the older ``--allow-open-feed`` is an alias) says to accept the risk, which is
logged as a WARNING at start. ``Security.reload`` (SIGHUP) re-reads the tokens files and the
certificates; a file that cannot be used keeps what was in force and is logged as an ERROR.
"""

from __future__ import annotations

import argparse
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pricing.server.auth import TokenError, TokenStore
from pricing.server.limits import KIB, Limits
from pricing.tls import ServerCertificates, TlsError

__all__ = ["TOKEN_ENV", "Security", "add_arguments", "beyond_loopback_refusal", "from_arguments"]

log = logging.getLogger("pricing.server")

TOKEN_ENV: Final = "PRICING_DEALER_TOKEN"
_DEFAULTS: Final = Limits()


@dataclass
class Security:
    """What ``pricing serve`` was asked to enforce."""

    tokens: TokenStore = field(default_factory=TokenStore)
    certificates: ServerCertificates | None = None
    limits: Limits = _DEFAULTS
    reflection: bool = True
    metrics_host: str | None = None  # None: the gRPC host
    insecure: bool = False

    def missing(self, *, dealer: bool = True) -> list[str]:
        """What serving beyond loopback needs and is not configured; ``dealer`` False: a
        read-only port (the console), which needs no dealer tokens."""
        gaps = []
        if self.certificates is None:
            gaps.append("TLS (--tls-cert and --tls-key)")
        if dealer and not self.tokens.dealer_required:
            gaps.append(f"dealer tokens (--dealer-tokens-file or {TOKEN_ENV})")
        if not self.tokens.reader_required:
            gaps.append("reader tokens (--reader-tokens-file)")
        return gaps

    def describe(self, *, console: bool = False) -> str:
        """For the start-up log line: what protects the port (never a token); ``console``:
        the read-only console's, which takes no dealer token."""
        if self.certificates is None:
            channel = "plaintext"
        elif self.certificates.client_ca is None:
            channel = "TLS"
        else:
            channel = "mutual TLS"
        dealer = "token required" if self.tokens.dealer_required else "open"
        reader = "token required" if self.tokens.reader_required else "open"
        if console:
            return f"{channel}; " + (
                "reader token required" if self.tokens.reader_required else "open to every reader"
            )
        return f"{channel}; dealer feed {dealer}; reads {reader}"

    def reload(self) -> None:
        """SIGHUP: re-read the tokens files and certificates; each part all or nothing."""
        try:
            dealers, readers = self.tokens.reload()
            log.info("reloaded tokens: %d dealer, %d reader", dealers, readers)
        except TokenError as exc:
            log.error("tokens not reloaded, the previous ones stay in force: %s", exc)
        if self.certificates is not None:
            try:
                self.certificates.reload()
                log.info("reloaded TLS certificates from %s", self.certificates.cert)
            except TlsError as exc:
                log.error("certificates not reloaded, the previous ones stay in force: %s", exc)


def _file(text: str) -> Path | None:
    return Path(text) if text else None


Bounded = Callable[[Callable[[str], float], str, float, float], Callable[[str], Any]]


def add_arguments(
    p: argparse.ArgumentParser,
    *,
    flag: Callable[[str], bool],
    env: Callable[[str, str], str],
    bounded: Bounded,
) -> None:
    """The security and limits flags, with the server's readers: ``flag`` parses a yes/no
    value, ``env(NAME, default)`` reads ``PRICING_NAME`` (a bad value is named by its
    variable), ``bounded(convert, what, low, high)`` makes a range-checked type."""

    def count(low: int) -> Callable[[str], Any]:
        return bounded(int, "a whole number", low, 10**9)

    rate = bounded(float, "a number", 0, 1e6)

    def _env(name: str, default: str | None = None) -> str | None:
        if default is None and os.environ.get("PRICING_" + name) is None:
            return None  # unset and no default: the flag's default is None
        return env(name, default or "")

    s = p.add_argument_group("security")

    def file_flag(name: str, what: str) -> None:
        env = name.upper().replace("-", "_")
        s.add_argument(
            f"--{name}", type=_file, default=_env(env), metavar="FILE",
            help=f"{what} [PRICING_{env}]",
        )  # fmt: skip

    file_flag(
        "dealer-tokens-file",
        "dealer (write) tokens, one a line, # comments; re-read on SIGHUP. "
        f"{TOKEN_ENV} adds one more",
    )
    file_flag(
        "reader-tokens-file",
        "reader tokens: once set, PricingService needs a reader or dealer token; re-read on SIGHUP",
    )
    file_flag(
        "tls-cert", "PEM certificate chain: serve TLS only (with --tls-key); re-read on SIGHUP"
    )
    file_flag("tls-key", "PEM private key of --tls-cert")
    file_flag("tls-client-ca", "PEM CA: mutual TLS, every client needs a certificate it signed")
    s.add_argument(
        "--insecure",
        "--allow-open-feed",
        dest="insecure",
        nargs="?",
        const="1",
        type=flag,
        default=_env("INSECURE", _env("ALLOW_OPEN_FEED", "0")),
        metavar="{1,0}",
        help="serve beyond loopback without TLS or tokens (logged as a WARNING): anyone who "
        "can reach the port may then read, expose cards and close tables "
        "[PRICING_INSECURE, PRICING_ALLOW_OPEN_FEED]",
    )
    s.add_argument(
        "--no-reflection",
        dest="reflection",
        action="store_false",
        help="do not serve gRPC reflection (reflection on: %(default)s)",
    )
    s.add_argument(
        "--metrics-host",
        default=_env("METRICS_HOST"),
        help="address the metrics page binds; None: the --host address [PRICING_METRICS_HOST]",
    )
    lim = p.add_argument_group("limits (each answered with RESOURCE_EXHAUSTED naming it)")
    d = _DEFAULTS

    def limit(name: str, parse: Callable[[str], object], default: object, what: str) -> None:
        env = name.upper().replace("-", "_")
        lim.add_argument(
            f"--{name}", type=parse, default=_env(env, str(default)),
            help=f"{what} [PRICING_{env}]",
        )  # fmt: skip

    limit("max-tables", count(1), d.max_tables, "tables held, open or closed")
    limit("max-watchers", count(0), d.max_watchers, "WatchTable streams in all")
    limit("max-watchers-per-table", count(0), d.max_watchers_per_table, "streams per table")
    limit(
        "max-round-backlog", count(1), d.max_round_backlog, "round results a table holds for "
        "its watchers: a watcher further behind has its stream ended (resume with "
        "from_version); a from_version finds the results held since then",
    )  # fmt: skip
    limit("max-message-bytes", count(KIB), d.max_message_bytes, "largest request body")
    limit(
        "max-events-per-second", rate, 0, "feed events per second per table, bursts of one "
        "second's worth (0: no limit; a replayed or simulated feed may burst)",
    )  # fmt: skip
    limit(
        "max-concurrent-writes", count(1), d.max_concurrent_writes,
        "DealerService unary calls in progress (reads never count here)",
    )  # fmt: skip
    limit(
        "max-concurrent-reads", count(1), d.max_concurrent_reads,
        "PricingService unary calls in progress (writes never count here)",
    )  # fmt: skip
    lim.add_argument(
        "--max-concurrent-rpcs", type=count(1), default=_env("MAX_CONCURRENT_RPCS"),
        metavar="N",
        help="deprecated, for one release: sets both --max-concurrent-writes and "
        "--max-concurrent-reads; None: not used [PRICING_MAX_CONCURRENT_RPCS]",
    )  # fmt: skip
    limit(
        "max-expensive-reads", count(1), d.max_expensive_reads,
        "expensive reads of each kind (player edges and hands, reports, long positions) "
        "running or waiting on the server; more are refused with a RetryInfo",
    )  # fmt: skip
    limit(
        "max-expensive-reads-per-caller", count(1), d.max_expensive_reads_per_caller,
        "expensive reads of each kind one caller (its token, else its IP) may have running "
        "or waiting",
    )  # fmt: skip
    limit(
        "max-read-seconds", bounded(float, "a number of seconds", 0.1, 86_400),
        d.max_read_seconds,
        "longest a Quote or Analyze may take, waiting for a worker included (a shorter "
        "deadline of the call's own wins); then its worker is stopped and the call answered "
        "DEADLINE_EXCEEDED",
    )  # fmt: skip
    limit(
        "max-answer-bytes", count(4 * 1024 * KIB), d.max_answer_bytes,
        "largest answer a worker may compute (a report); gRPC clients receive at most 4 MiB "
        "unless told otherwise",
    )  # fmt: skip
    limit(
        "read-workers", bounded(int, "a whole number", 1, 64), d.read_workers,
        "worker processes for quotes, and as many for reports, run at a lower priority than "
        "the server",
    )  # fmt: skip
    limit("max-feeds", count(1), d.max_feeds, "Feed streams open at once")
    limit("keepalive-seconds", rate, d.keepalive_seconds, "ping a quiet connection this often")
    limit(
        "keepalive-timeout-seconds", rate, d.keepalive_timeout_seconds,
        "close a connection whose ping is not answered in this time",
    )  # fmt: skip
    limit("idle-seconds", rate, d.idle_seconds, "close a connection with no call this long")
    limit(
        "console-max-connections", count(1), d.console_max_connections,
        "connections the web console holds open at once; more are answered 503 and closed",
    )  # fmt: skip
    limit("console-max-lobbies", count(1), d.console_max_lobbies, "console lobby pages open")
    limit(
        "console-max-requests-per-second", bounded(float, "a number", 0.1, 1e6),
        d.console_max_requests_per_second,
        "console requests a second from one client (its token if one of ours, else its "
        "address), in bursts of two seconds' worth",
    )  # fmt: skip
    limit(
        "console-idle-seconds", bounded(float, "a number of seconds", 0.1, 3_600),
        d.console_idle_seconds,
        "seconds a console connection may take to send a request, or stay idle between two; "
        "an event stream silent this long sends a comment line",
    )  # fmt: skip


def from_arguments(
    args: argparse.Namespace, error: Callable[[str], object], *, beyond_loopback: bool
) -> Security:
    """Build what the flags ask for; ``error`` (argparse's) reports what cannot be used."""
    try:
        tokens = TokenStore(
            dealer_file=args.dealer_tokens_file,
            reader_file=args.reader_tokens_file,
            dealer_token=os.environ.get(TOKEN_ENV) or None,
        )
        certificates = None
        if args.tls_cert or args.tls_key:
            if not (args.tls_cert and args.tls_key):
                raise TlsError("--tls-cert and --tls-key go together")
            certificates = ServerCertificates(args.tls_cert, args.tls_key, args.tls_client_ca)
        elif args.tls_client_ca:
            raise TlsError("--tls-client-ca needs --tls-cert and --tls-key")
    except (TokenError, TlsError) as exc:
        error(str(exc))
        raise AssertionError("unreachable: error exits") from exc
    concurrent_writes, concurrent_reads = args.max_concurrent_writes, args.max_concurrent_reads
    if args.max_concurrent_rpcs is not None:
        log.warning(
            "--max-concurrent-rpcs is deprecated: it now sets --max-concurrent-writes and "
            "--max-concurrent-reads (both %d); set those instead",
            args.max_concurrent_rpcs,
        )
        concurrent_writes = concurrent_reads = args.max_concurrent_rpcs
    security = Security(
        tokens=tokens,
        certificates=certificates,
        limits=Limits(
            max_tables=args.max_tables,
            max_watchers=args.max_watchers,
            max_watchers_per_table=args.max_watchers_per_table,
            max_round_backlog=args.max_round_backlog,
            max_message_bytes=args.max_message_bytes,
            max_events_per_second=args.max_events_per_second,
            max_concurrent_writes=concurrent_writes,
            max_concurrent_reads=concurrent_reads,
            max_expensive_reads=args.max_expensive_reads,
            max_expensive_reads_per_caller=args.max_expensive_reads_per_caller,
            max_read_seconds=args.max_read_seconds,
            max_answer_bytes=args.max_answer_bytes,
            read_workers=args.read_workers,
            max_feeds=args.max_feeds,
            keepalive_seconds=args.keepalive_seconds,
            keepalive_timeout_seconds=args.keepalive_timeout_seconds,
            idle_seconds=args.idle_seconds,
            console_max_connections=args.console_max_connections,
            console_max_lobbies=args.console_max_lobbies,
            console_max_requests_per_second=args.console_max_requests_per_second,
            console_idle_seconds=args.console_idle_seconds,
        ),
        reflection=args.reflection,
        metrics_host=args.metrics_host or None,
        insecure=args.insecure,
    )
    missing = security.missing()
    if beyond_loopback and missing and not args.insecure:
        error(beyond_loopback_refusal("--host", args.host, missing))
    return security


def beyond_loopback_refusal(flag: str, host: str, missing: list[str]) -> str:
    """Why a port bound beyond loopback is refused: the gRPC port's and the console's words.

    >>> beyond_loopback_refusal("--console-host", "0.0.0.0", ["TLS"]).split(":")[0]
    '--console-host 0.0.0.0 serves beyond this machine without TLS'
    """
    return (
        f"{flag} {host} serves beyond this machine without {', '.join(missing)}: "
        "configure them, or pass --insecure to accept the risk"
    )
