"""Typed clients of the pricing service: ``AsyncPricingClient`` (grpc.aio) and ``PricingClient``
(blocking), with the same methods, plus ``DealerFeed``/``AsyncDealerFeed`` that number the
dealer feed's events themselves.

Failed calls raise ``grpc.RpcError`` (``grpc.aio.AioRpcError`` for the async client) with the
server's status code and message. Enum arguments take the proto's names (``"HILO"``,
``"RESULT"``) or numbers.

Typical use (a game server)::

    with PricingClient("127.0.0.1:50051") as client:
        for state in client.watch_table("hilo-1"):
            show(state.prices)

and a dealer feed (``streamed=True``: its events on one Feed stream, not a call each)::

    with PricingClient() as client, client.feed("hilo-1", streamed=True) as feed:
        feed.open("HILO")
        feed.expose("7H", "BURN")

(leaving the ``with`` ends the stream, as ``feed.end_stream()`` does; ``async with`` on the
asyncio client. A feed dropped without either has its stream cancelled when it is
garbage-collected, which gives its place under the server's ``--max-feeds`` back.)
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, Self, TypeVar

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.tls import channel_credentials
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc

__all__ = [
    "DEFAULT_TARGET",
    "AsyncDealerFeed",
    "AsyncPricingClient",
    "BlockingFeedStream",
    "Connection",
    "DealerFeed",
    "FeedStreamError",
    "PricingClient",
    "default_target",
]

log = logging.getLogger("pricing.client")

DEFAULT_TARGET: Final = "127.0.0.1:50051"
#: How often a feed resends one event before it gives up: with ``retry_delay``'s backoff,
#: about 20 s, long enough for a server to restart and recover its tables.
FEED_RETRIES: Final = 24
#: Calls that may be resent with the same seq: the server applies a seq once. CANCELLED only
#: when the server (or the connection) cancelled the call, not this client (``_resend``).
_RETRYABLE: Final = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
)


def _resend(exc: grpc.RpcError, cancelled_here: bool) -> bool:
    """Whether a feed event that failed with ``exc`` is sent again (with the same seq).
    ``cancelled_here``: the caller cut it off (closed the client, ended or cancelled the feed's
    stream meanwhile), which is never undone by a resend. Otherwise a CANCELLED came from the
    server or the connection (a call cut off by a shutdown), and the seq makes resending safe.
    (Ctrl-C and a cancelled task raise no RpcError: they are never resent either.)"""
    return exc.code() in _RETRYABLE and not cancelled_here


def retry_delay(attempt: int) -> float:
    """Seconds to wait before resending after failed attempt ``attempt`` (0-based): doubling
    from 50 ms, at most 1 s, so a restarting server is not hammered.

    >>> [retry_delay(a) for a in range(6)]
    [0.05, 0.1, 0.2, 0.4, 0.8, 1.0]
    """
    return float(min(0.05 * 2**attempt, 1.0))


def _say_resending(table_id: str, what: str, exc: grpc.RpcError, delay: float) -> str:
    return f"table {table_id!r}: {exc.code().name}, resending {what} in {delay:.2f} s"


def _say_reconnecting(table_id: str, from_version: int, exc: grpc.RpcError) -> str:
    details = exc.details() or ""
    return (
        f"table {table_id!r}: {exc.code().name} ({details}), reconnecting and resuming "
        f"from version {from_version}"
    )


def _resumable(exc: grpc.RpcError, streaming: bool) -> bool:
    """Whether ``follow_table`` resumes a watch that failed with ``exc``: the server shutting
    down or unreachable, or a stream it ended mid-way for falling behind its round backlog
    (the only RESOURCE_EXHAUSTED after a state: the watcher limits refuse a stream at once)."""
    code = exc.code()
    return code is grpc.StatusCode.UNAVAILABLE or (
        streaming and code is grpc.StatusCode.RESOURCE_EXHAUSTED
    )


def default_target() -> str:
    """``$PRICING_SERVER`` or ``127.0.0.1:50051``."""
    return os.environ.get("PRICING_SERVER", DEFAULT_TARGET)


def _game(game: str | int) -> pb.Game.ValueType:
    return pb.Game.Value(game.upper()) if isinstance(game, str) else pb.Game.ValueType(game)


def _role(role: str | int) -> pb.CardRole.ValueType:
    return pb.CardRole.Value(role.upper()) if isinstance(role, str) else pb.CardRole.ValueType(role)


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


def _path(value: str | os.PathLike[str] | None, env: str) -> Path | None:
    chosen = value if value is not None else os.environ.get(env)
    return Path(chosen) if chosen else None


@dataclass(frozen=True)
class Connection:
    """How a client reaches the server: its token and, for TLS, the CA that signed the
    server's certificate (and the client's own certificate and key, for mutual TLS). Each
    defaults to the environment: ``$PRICING_TOKEN`` (else ``$PRICING_DEALER_TOKEN``),
    ``$PRICING_TLS_CA``, ``$PRICING_TLS_CERT``, ``$PRICING_TLS_KEY``; TLS is used once any
    of the three is set."""

    token: str | None = None
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None

    @classmethod
    def resolve(
        cls,
        token: str | None = None,
        tls_ca: str | os.PathLike[str] | None = None,
        tls_cert: str | os.PathLike[str] | None = None,
        tls_key: str | os.PathLike[str] | None = None,
    ) -> Connection:
        if token is None:
            token = os.environ.get("PRICING_TOKEN") or os.environ.get("PRICING_DEALER_TOKEN")
        return cls(
            token or None,
            _path(tls_ca, "PRICING_TLS_CA"),
            _path(tls_cert, "PRICING_TLS_CERT"),
            _path(tls_key, "PRICING_TLS_KEY"),
        )

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return _metadata(self.token)

    def credentials(self) -> grpc.ChannelCredentials | None:
        """TLS credentials, or None for a plaintext channel."""
        if self.tls_ca is None and self.tls_cert is None and self.tls_key is None:
            return None
        return channel_credentials(self.tls_ca, self.tls_cert, self.tls_key)


Rules = pb.HiLoRules | pb.BlackjackRules | pb.GoaGaeRules
"""A game's rules message: it goes into the request's ``rules`` oneof by its type."""

_RULES_FIELD: Final = {
    pb.HiLoRules: "hilo",
    pb.BlackjackRules: "blackjack",
    pb.GoaGaeRules: "goa_gae",
}


def _set_rules(request: pb.OpenTableRequest | pb.QuoteRequest, rules: Rules | None) -> None:
    if rules is not None:
        getattr(request, _RULES_FIELD[type(rules)]).CopyFrom(rules)


def _open_request(
    table_id: str, game: str | int, decks: int, rules: Rules | None
) -> pb.OpenTableRequest:
    request = pb.OpenTableRequest(table_id=table_id, game=_game(game), decks=decks)
    _set_rules(request, rules)
    return request


def _quote_request(
    game: str | int, exposed: Sequence[str], decks: int, rules: Rules | None, dealer_up_card: str
) -> pb.QuoteRequest:
    request = pb.QuoteRequest(
        game=_game(game), decks=decks, exposed=exposed, dealer_up_card=dealer_up_card
    )
    _set_rules(request, rules)
    return request


def _expose_request(
    table_id: str, seq: int, card: str, role: str | int, seat: int
) -> pb.ExposeCardRequest:
    return pb.ExposeCardRequest(table_id=table_id, seq=seq, card=card, role=_role(role), seat=seat)


def _settle_request(
    table_id: str, round_id: int, version: int, bet: str, stake_cents: int, *, seat: int
) -> pb.SettleRequest:
    return pb.SettleRequest(
        table_id=table_id,
        round_id=round_id,
        version=version,
        bet=bet,
        stake_cents=stake_cents,
        seat=seat,
    )


class PricingClient:
    """Blocking client. ``token`` (``dealer_token`` is its older name; default
    ``$PRICING_TOKEN``, else ``$PRICING_DEALER_TOKEN``) is sent with every call; ``tls_ca``,
    ``tls_cert`` and ``tls_key`` (default ``$PRICING_TLS_CA`` …) make the channel TLS."""

    def __init__(
        self,
        target: str | None = None,
        *,
        token: str | None = None,
        dealer_token: str | None = None,
        tls_ca: str | os.PathLike[str] | None = None,
        tls_cert: str | os.PathLike[str] | None = None,
        tls_key: str | os.PathLike[str] | None = None,
        timeout: float | None = 10.0,
    ) -> None:
        self.target = target or default_target()
        connection = Connection.resolve(
            token if token is not None else dealer_token, tls_ca, tls_cert, tls_key
        )
        credentials = connection.credentials()
        self._channel = (
            grpc.secure_channel(self.target, credentials)
            if credentials is not None
            else grpc.insecure_channel(self.target)
        )
        self._dealer = pb_grpc.DealerServiceStub(self._channel)
        self._pricing = pb_grpc.PricingServiceStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._md = connection.metadata
        self.timeout = timeout
        #: ``close()`` was called: the calls it cut off are not resent.
        self.closed = False

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True
        self._channel.close()

    # DealerService
    def open_table(
        self,
        table_id: str,
        game: str | int = "HILO",
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        rules: Rules | None = None,
    ) -> pb.TableState:
        """``rules``: any game's rules message (``hilo`` is the Hi-Lo-only spelling)."""
        request = _open_request(table_id, game, decks, rules if rules is not None else hilo)
        return self._dealer.OpenTable(request, timeout=self.timeout, metadata=self._md)

    def expose_card(
        self, table_id: str, seq: int, card: str, role: str | int, seat: int = 0
    ) -> pb.TableState:
        """``seat``: a blackjack PLAYER card's seat (box), 1 to the table's seats."""
        request = _expose_request(table_id, seq, card, role, seat)
        return self._dealer.ExposeCard(request, timeout=self.timeout, metadata=self._md)

    def void_round(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.VoidRoundRequest(table_id=table_id, seq=seq)
        return self._dealer.VoidRound(request, timeout=self.timeout, metadata=self._md)

    def end_round(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.EndRoundRequest(table_id=table_id, seq=seq)
        return self._dealer.EndRound(request, timeout=self.timeout, metadata=self._md)

    def new_shoe(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.NewShoeRequest(table_id=table_id, seq=seq)
        return self._dealer.NewShoe(request, timeout=self.timeout, metadata=self._md)

    def close_table(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.CloseTableRequest(table_id=table_id, seq=seq)
        return self._dealer.CloseTable(request, timeout=self.timeout, metadata=self._md)

    def feed(
        self,
        table_id: str,
        *,
        streamed: bool = False,
        on_resend: Callable[[str], None] | None = None,
    ) -> DealerFeed:
        """A feed numbering ``table_id``'s events; ``streamed``: on a Feed stream;
        ``on_resend``: told a line before each resend (default: a warning logged)."""
        return DealerFeed(self, table_id, streamed=streamed, on_resend=on_resend)

    def feed_stream(self) -> BlockingFeedStream:
        """A new DealerService.Feed stream (``exchange`` an event for its answer)."""
        return BlockingFeedStream(self._dealer.Feed, self._md)

    # PricingService
    def get_table(self, table_id: str) -> pb.TableState:
        return self._pricing.GetTable(
            pb.GetTableRequest(table_id=table_id), timeout=self.timeout, metadata=self._md
        )

    def watch_table(self, table_id: str, from_version: int = 0) -> Iterator[pb.TableState]:
        """The current state, then each new one. Ends when the table closes (the last state's
        phase is CLOSED) or when the server shuts down (any other phase: reconnect from the
        last version + 1). Cancelled when the iterator is closed or garbage-collected."""
        call = self._pricing.WatchTable(
            pb.WatchTableRequest(table_id=table_id, from_version=from_version), metadata=self._md
        )
        try:
            yield from call
        finally:
            call.cancel()  # type: ignore[no-untyped-call]

    def follow_table(
        self,
        table_id: str,
        from_version: int = 0,
        *,
        on_reconnect: Callable[[str], None] | None = None,
    ) -> Iterator[pb.TableState]:
        """``watch_table`` across server restarts: on UNAVAILABLE (the server shutting down or
        unreachable) it waits with backoff, reconnects and resumes after the last version it
        yielded, so versions only go up and none is seen twice, and every round result the
        server still holds is seen. Ends when the table closes. A stream that fell further
        behind than the server's round backlog (RESOURCE_EXHAUSTED) is resumed the same way:
        the results no longer held are skipped (settle those rounds' bets with ``settle``).
        ``on_reconnect`` gets one line saying so (default: a warning on ``pricing.client``)."""
        say = on_reconnect or log.warning
        attempt = 0
        while True:
            streaming = False
            try:
                for state in self.watch_table(table_id, from_version):
                    attempt, streaming = 0, True
                    from_version = state.version + 1
                    yield state
                    if state.phase == pb.CLOSED:
                        return
                return  # an OK end: the table closed
            except grpc.RpcError as exc:
                if not _resumable(exc, streaming):
                    raise
                if attempt == 0:  # once per outage
                    say(_say_reconnecting(table_id, from_version, exc))
                time.sleep(retry_delay(attempt))
                attempt += 1

    def quote(
        self,
        game: str | int,
        exposed: Sequence[str],
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        dealer_up_card: str = "",
        rules: Rules | None = None,
    ) -> pb.QuoteResponse:
        request = _quote_request(
            game, exposed, decks, rules if rules is not None else hilo, dealer_up_card
        )
        return self._pricing.Quote(request, timeout=self.timeout, metadata=self._md)

    def settle(
        self,
        table_id: str,
        round_id: int,
        version: int,
        bet: str,
        stake_cents: int,
        *,
        seat: int = 0,
    ) -> pb.Settlement:
        """``seat``: the seat (box) a blackjack side bet is on, 1 to the table's seats."""
        request = _settle_request(table_id, round_id, version, bet, stake_cents, seat=seat)
        return self._pricing.Settle(request, timeout=self.timeout, metadata=self._md)

    def list_tables(self, game: str | int = 0) -> list[pb.TableSummary]:
        """The lobby: every table the server holds (open or closed), by id; ``game``: only
        that game's."""
        request = pb.ListTablesRequest(game=_game(game) if game else pb.GAME_UNSPECIFIED)
        return list(
            self._pricing.ListTables(request, timeout=self.timeout, metadata=self._md).tables
        )

    def health(self, service: str = "") -> str:
        """``"SERVING"``, ``"NOT_SERVING"``, ... of ``service`` ("" for the whole server)."""
        response = self._health.Check(
            health_pb2.HealthCheckRequest(service=service), timeout=self.timeout
        )
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


class _Cancellable(Protocol):
    def cancel(self) -> object: ...


_Stream = TypeVar("_Stream", bound=_Cancellable)


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


class DealerFeed:
    """A dealer feed for one table: numbers events ``last_seq + 1`` and resends the same
    ``seq`` when the server was unreachable (safe: the server applies a seq once).
    ``streamed``: the events go on one Feed stream (opened at the first event, and again after
    it failed) instead of a call each; an event not answered within the client's ``timeout``
    is resent on a new stream. ``end_stream()`` or leaving ``with feed:`` ends the stream
    (leaving it on Ctrl-C cancels the stream instead of waiting); a feed garbage-collected
    with its stream open has the stream cancelled."""

    def __init__(
        self,
        client: PricingClient,
        table_id: str,
        *,
        retries: int = FEED_RETRIES,
        streamed: bool = False,
        on_resend: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.last_seq = 0
        self.retries = retries
        self.streamed = streamed
        #: Told one line before each resend (default: a warning on ``pricing.client``).
        self.on_resend: Callable[[str], None] = on_resend or log.warning
        self._open: _OpenStream[BlockingFeedStream] = _OpenStream.cancelling_when_collected(self)
        #: How many times the caller ended or cancelled the stream: an event cut off by that
        #: is not resent.
        self._ended = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if _interrupted(exc_type):
            self._ended += 1
            self._open.cancel()
        else:
            self.end_stream()

    def open(
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
        state = self._resending(
            "the opening",
            lambda: self.client.open_table(self.table_id, game, decks=decks, rules=rules),
        )
        self.last_seq = state.last_seq
        return state

    def _resending(self, what: str, send: Callable[[], pb.TableState]) -> pb.TableState:
        """``send()``, sent again after a growing pause while it fails in a way a resend may
        cure (``_resend``) and the caller has not cut it off meanwhile; ``what`` it sends, for
        the log. Safe: the server applies a seq once, and an opening once per config."""
        for attempt in range(self.retries + 1):
            ended = self._ended
            try:
                return send()
            except grpc.RpcError as exc:
                if not self._may_resend(exc, ended) or attempt == self.retries:
                    raise
                self.on_resend(_say_resending(self.table_id, what, exc, retry_delay(attempt)))
                time.sleep(retry_delay(attempt))
                if not self._may_resend(exc, ended):  # the caller ended it while we waited
                    raise
        raise AssertionError("unreachable: the last attempt raises")

    def _may_resend(self, exc: grpc.RpcError, ended: int) -> bool:
        return _resend(exc, cancelled_here=self.client.closed or self._ended != ended)

    def _send(self, event: str, *args: object) -> pb.TableState:
        """``event`` (the client's call of that name, or its FeedRequest), numbered."""
        seq = self.last_seq + 1
        if self.streamed:
            request = _FEED_REQUESTS[event](self.table_id, seq, *args)
            state = self._resending(f"seq {seq}", lambda: self._on_stream(request))
        else:
            call = getattr(self.client, event)
            state = self._resending(f"seq {seq}", lambda: call(self.table_id, seq, *args))
        self.last_seq = seq
        return state

    def _on_stream(self, request: pb.FeedRequest) -> pb.TableState:
        """As ``AsyncDealerFeed._on_stream``: a stream that failed, ended or answered late is
        dropped (the next attempt opens another) and the error raised as the call's would be."""
        if self._open.stream is None:
            self._open.stream = self.client.feed_stream()
        stream = self._open.stream
        try:
            return stream.exchange(request, self.client.timeout)
        except BaseException:
            stream.cancel()
            self._open.stream = None
            raise

    def end_stream(self) -> None:
        """End the Feed stream, if one is open (the events already answered stand; one still
        waiting for its answer fails, and is not resent)."""
        stream, self._open.stream = self._open.stream, None
        if stream is not None:
            self._ended += 1
            stream.end(self.client.timeout)

    def expose(self, card: str, role: str | int = "BURN", seat: int = 0) -> pb.TableState:
        return self._send("expose_card", card, role, seat)

    def void(self) -> pb.TableState:
        return self._send("void_round")

    def end_round(self) -> pb.TableState:
        return self._send("end_round")

    def new_shoe(self) -> pb.TableState:
        return self._send("new_shoe")

    def close(self) -> pb.TableState:
        return self._send("close_table")


class BlockingFeedStream:
    """A Feed stream for the blocking client: events go on a queue the call reads from, and a
    thread puts the answers (or how the stream ended) on another, so each wait for an answer
    can have its own deadline. Once an answer is late the stream is given up: it would hand
    that answer to the next event."""

    def __init__(self, call: Callable[..., Any], metadata: Sequence[tuple[str, str]]) -> None:
        self._requests: queue.SimpleQueue[pb.FeedRequest | None] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[pb.TableState | grpc.RpcError | None] = queue.SimpleQueue()
        self._given_up = False
        self._cancelled = False  # by this client (``cancel``)
        self._call = call(iter(self._requests.get, None), metadata=metadata)
        self._reader = threading.Thread(target=self._read, name="feed-stream", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for answer in self._call:
                self._answers.put(answer)
            self._answers.put(None)  # ended OK
        except grpc.RpcError as exc:
            self._answers.put(exc)
        except BaseException as exc:  # not the server's: say so rather than go quiet
            self._answers.put(FeedStreamError(grpc.StatusCode.UNKNOWN, f"reading answers: {exc}"))

    def exchange(self, request: pb.FeedRequest, timeout: float | None) -> pb.TableState:
        """Send ``request``; its answer, or the stream's error: the server's own status, or
        UNAVAILABLE when it ended the stream without one (or cancelled it), CANCELLED when this
        client cancelled it (``cancel``, ``end``), DEADLINE_EXCEEDED when no answer came within
        ``timeout`` (the stream is then given up)."""
        if self._given_up:
            raise FeedStreamError(grpc.StatusCode.UNAVAILABLE, "the Feed stream was given up")
        self._requests.put(request)
        try:
            item = self._answers.get(timeout=timeout)
        except queue.Empty:
            self.cancel()
            raise FeedStreamError(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time") from None
        if isinstance(item, pb.TableState):
            return item
        self._answers.put(item)  # every later exchange hears the same
        if item is None or item.code() == grpc.StatusCode.CANCELLED:
            if self._cancelled:
                raise FeedStreamError(grpc.StatusCode.CANCELLED, "the Feed stream was cancelled")
            raise FeedStreamError(grpc.StatusCode.UNAVAILABLE, "the Feed stream ended")
        raise item

    def end(self, timeout: float | None) -> None:
        """No more events: wait (at most ``timeout``) for the server to end the stream."""
        self._requests.put(None)
        try:
            self._reader.join(timeout)
        finally:  # ended, or the wait given up (or interrupted): nothing is left open
            self.cancel()

    def cancel(self) -> None:
        """End the stream now (nothing more is sent; gRPC's thread reading the events ends)."""
        self._given_up = self._cancelled = True
        self._call.cancel()
        self._requests.put(None)


class FeedStreamError(grpc.RpcError):
    """What a blocking Feed stream raises when the server did not say how it ended (or the
    client gave up waiting): a ``grpc.RpcError`` with a status code, as a call's error is."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def initial_metadata(self) -> tuple[Any, ...]:
        return ()

    def trailing_metadata(self) -> tuple[Any, ...]:  # none: the server sent no status
        return ()

    def debug_error_string(self) -> str:
        return f"{self._code.name}: {self._details}"


class AsyncPricingClient:
    """The asyncio client (grpc.aio); use ``async with``. Arguments as ``PricingClient``."""

    def __init__(
        self,
        target: str | None = None,
        *,
        token: str | None = None,
        dealer_token: str | None = None,
        tls_ca: str | os.PathLike[str] | None = None,
        tls_cert: str | os.PathLike[str] | None = None,
        tls_key: str | os.PathLike[str] | None = None,
        timeout: float | None = 10.0,
    ) -> None:
        self.target = target or default_target()
        connection = Connection.resolve(
            token if token is not None else dealer_token, tls_ca, tls_cert, tls_key
        )
        credentials = connection.credentials()
        self._channel = (
            grpc.aio.secure_channel(self.target, credentials)
            if credentials is not None
            else grpc.aio.insecure_channel(self.target)
        )
        self._dealer = pb_grpc.DealerServiceStub(self._channel)
        self._pricing = pb_grpc.PricingServiceStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._md = connection.metadata
        self.timeout = timeout
        #: ``close()`` was called: the calls it cut off are not resent.
        self.closed = False

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        self.closed = True
        await self._channel.close(None)

    # DealerService
    async def open_table(
        self,
        table_id: str,
        game: str | int = "HILO",
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        rules: Rules | None = None,
    ) -> pb.TableState:
        """``rules``: any game's rules message (``hilo`` is the Hi-Lo-only spelling)."""
        request = _open_request(table_id, game, decks, rules if rules is not None else hilo)
        return await self._dealer.OpenTable(request, timeout=self.timeout, metadata=self._md)

    async def expose_card(
        self, table_id: str, seq: int, card: str, role: str | int, seat: int = 0
    ) -> pb.TableState:
        request = _expose_request(table_id, seq, card, role, seat)
        return await self._dealer.ExposeCard(request, timeout=self.timeout, metadata=self._md)

    async def void_round(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.VoidRoundRequest(table_id=table_id, seq=seq)
        return await self._dealer.VoidRound(request, timeout=self.timeout, metadata=self._md)

    async def end_round(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.EndRoundRequest(table_id=table_id, seq=seq)
        return await self._dealer.EndRound(request, timeout=self.timeout, metadata=self._md)

    async def new_shoe(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.NewShoeRequest(table_id=table_id, seq=seq)
        return await self._dealer.NewShoe(request, timeout=self.timeout, metadata=self._md)

    async def close_table(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.CloseTableRequest(table_id=table_id, seq=seq)
        return await self._dealer.CloseTable(request, timeout=self.timeout, metadata=self._md)

    def feed(
        self,
        table_id: str,
        *,
        streamed: bool = False,
        on_resend: Callable[[str], None] | None = None,
    ) -> AsyncDealerFeed:
        """A feed numbering ``table_id``'s events; ``streamed``: on a Feed stream;
        ``on_resend``: told a line before each resend (default: a warning logged)."""
        return AsyncDealerFeed(self, table_id, streamed=streamed, on_resend=on_resend)

    def feed_stream(self) -> FeedStream:
        """A new DealerService.Feed stream: write ``FeedRequest``s, read their answers."""
        return self._dealer.Feed(None, metadata=self._md)  # no iterator: written to one by one

    # PricingService
    async def get_table(self, table_id: str) -> pb.TableState:
        return await self._pricing.GetTable(
            pb.GetTableRequest(table_id=table_id), timeout=self.timeout, metadata=self._md
        )

    async def watch_table(
        self, table_id: str, from_version: int = 0
    ) -> AsyncIterator[pb.TableState]:
        """As ``PricingClient.watch_table``: the table closed only if the last state's phase is
        CLOSED; otherwise the server ended the stream (shutting down)."""
        call = self._pricing.WatchTable(
            pb.WatchTableRequest(table_id=table_id, from_version=from_version), metadata=self._md
        )
        try:
            async for state in call:
                yield state
        finally:
            call.cancel()

    async def follow_table(
        self,
        table_id: str,
        from_version: int = 0,
        *,
        on_reconnect: Callable[[str], None] | None = None,
    ) -> AsyncIterator[pb.TableState]:
        """As ``PricingClient.follow_table``."""
        say = on_reconnect or log.warning
        attempt = 0
        while True:
            streaming = False
            try:
                async for state in self.watch_table(table_id, from_version):
                    attempt, streaming = 0, True
                    from_version = state.version + 1
                    yield state
                    if state.phase == pb.CLOSED:
                        return
                return
            except grpc.aio.AioRpcError as exc:
                if not _resumable(exc, streaming):
                    raise
                if attempt == 0:  # once per outage
                    say(_say_reconnecting(table_id, from_version, exc))
                await asyncio.sleep(retry_delay(attempt))
                attempt += 1

    async def quote(
        self,
        game: str | int,
        exposed: Sequence[str],
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        dealer_up_card: str = "",
        rules: Rules | None = None,
    ) -> pb.QuoteResponse:
        request = _quote_request(
            game, exposed, decks, rules if rules is not None else hilo, dealer_up_card
        )
        return await self._pricing.Quote(request, timeout=self.timeout, metadata=self._md)

    async def settle(
        self,
        table_id: str,
        round_id: int,
        version: int,
        bet: str,
        stake_cents: int,
        *,
        seat: int = 0,
    ) -> pb.Settlement:
        request = _settle_request(table_id, round_id, version, bet, stake_cents, seat=seat)
        return await self._pricing.Settle(request, timeout=self.timeout, metadata=self._md)

    async def list_tables(self, game: str | int = 0) -> list[pb.TableSummary]:
        request = pb.ListTablesRequest(game=_game(game) if game else pb.GAME_UNSPECIFIED)
        response = await self._pricing.ListTables(request, timeout=self.timeout, metadata=self._md)
        return list(response.tables)

    async def health(self, service: str = "") -> str:
        response = await self._health.Check(
            health_pb2.HealthCheckRequest(service=service), timeout=self.timeout
        )
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


class AsyncDealerFeed:
    """``DealerFeed`` for the asyncio client. ``streamed``: the events go on one Feed stream
    (opened at the first event, and again after it failed) instead of a call each; an event
    not answered within the client's ``timeout`` is resent on a new stream, as a call past its
    deadline is resent. ``end_stream()`` or leaving ``async with feed:`` ends the stream
    (leaving it as the task is cancelled cancels the stream instead of waiting); a feed
    garbage-collected with its stream open has the stream cancelled."""

    def __init__(
        self,
        client: AsyncPricingClient,
        table_id: str,
        *,
        retries: int = FEED_RETRIES,
        streamed: bool = False,
        on_resend: Callable[[str], None] | None = None,
    ) -> None:
        self.client = client
        self.table_id = table_id
        self.last_seq = 0
        self.retries = retries
        self.streamed = streamed
        #: Told one line before each resend (default: a warning on ``pricing.client``).
        self.on_resend: Callable[[str], None] = on_resend or log.warning
        self._open: _OpenStream[FeedStream] = _OpenStream.cancelling_when_collected(self)
        #: As ``DealerFeed._ended``.
        self._ended = 0

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if _interrupted(exc_type):
            self._ended += 1
            self._open.cancel()
        else:
            await self.end_stream()

    async def open(
        self,
        game: str | int = "HILO",
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        rules: Rules | None = None,
    ) -> pb.TableState:
        rules = rules if rules is not None else hilo
        state = await self._resending(
            "the opening",
            lambda: self.client.open_table(self.table_id, game, decks=decks, rules=rules),
        )
        self.last_seq = state.last_seq
        return state

    async def _resending(
        self, what: str, send: Callable[[], Awaitable[pb.TableState]]
    ) -> pb.TableState:
        """As ``DealerFeed._resending``."""
        for attempt in range(self.retries + 1):
            ended = self._ended
            try:
                return await send()
            except grpc.aio.AioRpcError as exc:
                if not self._may_resend(exc, ended) or attempt == self.retries:
                    raise
                self.on_resend(_say_resending(self.table_id, what, exc, retry_delay(attempt)))
                await asyncio.sleep(retry_delay(attempt))
                if not self._may_resend(exc, ended):  # the caller ended it while we waited
                    raise
        raise AssertionError("unreachable: the last attempt raises")

    def _may_resend(self, exc: grpc.RpcError, ended: int) -> bool:
        return _resend(exc, cancelled_here=self.client.closed or self._ended != ended)

    async def _send(self, event: str, *args: object) -> pb.TableState:
        """``event`` (the client's call of that name, or its FeedRequest), numbered."""
        seq = self.last_seq + 1
        if self.streamed:
            request = _FEED_REQUESTS[event](self.table_id, seq, *args)
            state = await self._resending(f"seq {seq}", lambda: self._on_stream(request))
        else:
            call = getattr(self.client, event)
            state = await self._resending(f"seq {seq}", lambda: call(self.table_id, seq, *args))
        self.last_seq = seq
        return state

    async def _on_stream(self, request: pb.FeedRequest) -> pb.TableState:
        """``request`` on the feed's stream, and its answer. A stream that failed, that the
        server ended meanwhile (a shutdown ends a stream waiting for its next event), or whose
        answer is late, is dropped (the next attempt opens another) and the error raised as
        the call's would be."""
        if self._open.stream is not None and self._open.stream.done():
            self._drop(self._open.stream)
        if self._open.stream is None:
            self._open.stream = self.client.feed_stream()
            self._open.loop = asyncio.get_running_loop()
        stream = self._open.stream
        try:
            async with asyncio.timeout(self.client.timeout):
                try:
                    await stream.write(request)
                except (asyncio.InvalidStateError, grpc.aio.AioRpcError):
                    # It ended (a shutdown, a lost connection) or could not take the event:
                    # say how the stream ended, as the call's error would.
                    raise await _ending(stream) from None
                answer = await stream.read()
        except TimeoutError:
            self._drop(stream)
            raise _stream_error(grpc.StatusCode.DEADLINE_EXCEEDED, "no answer in time") from None
        except asyncio.CancelledError:
            self._drop(stream)
            task = asyncio.current_task()
            if stream.cancelled() and task is not None and not task.cancelling():
                # The stream was cancelled under it (end_stream from another task), not this
                # task: say so as a call would, not as if the task had been cancelled.
                raise _stream_error(
                    grpc.StatusCode.CANCELLED, "the Feed stream was cancelled"
                ) from None
            raise
        except BaseException:
            self._drop(stream)
            raise
        if not isinstance(answer, pb.TableState):  # EOF: ended without answering
            self._drop(stream)
            raise _stream_error(grpc.StatusCode.UNAVAILABLE, "the Feed stream ended")
        return answer

    def _drop(self, stream: FeedStream) -> None:
        stream.cancel()
        if self._open.stream is stream:
            self._open.stream = None

    async def end_stream(self) -> None:
        """End the Feed stream, if one is open, within the client's timeout (the events
        already answered stand, however the stream ends; one still waiting for its answer
        fails, and is not resent)."""
        stream, self._open.stream = self._open.stream, None
        if stream is None or stream.done():
            return
        self._ended += 1
        try:
            async with asyncio.timeout(self.client.timeout):
                await stream.done_writing()
                await stream.code()
        except (TimeoutError, asyncio.InvalidStateError, grpc.aio.AioRpcError):
            stream.cancel()
        except BaseException:  # interrupted while waiting: nothing is left open
            stream.cancel()
            raise

    async def expose(self, card: str, role: str | int = "BURN", seat: int = 0) -> pb.TableState:
        return await self._send("expose_card", card, role, seat)

    async def void(self) -> pb.TableState:
        return await self._send("void_round")

    async def end_round(self) -> pb.TableState:
        return await self._send("end_round")

    async def new_shoe(self) -> pb.TableState:
        return await self._send("new_shoe")

    async def close(self) -> pb.TableState:
        return await self._send("close_table")


if TYPE_CHECKING:  # generic only in the type stubs
    FeedStream = grpc.aio.StreamStreamCall[pb.FeedRequest, pb.TableState]
else:
    FeedStream = grpc.aio.StreamStreamCall


#: How a stream that could not take an event may have ended without the server saying why:
#: as the server finished it (OK), cancelled, or failed locally (a write on a stream whose
#: end has not been read yet fails INTERNAL, "Internal error from Core").
_ENDED_UNSAID: Final = (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL)


async def _ending(stream: FeedStream) -> grpc.aio.AioRpcError:
    """The error of a stream that could not take an event: the status the server ended it
    with, or UNAVAILABLE when it said none (the event was not taken: resend it)."""
    code = await stream.code()
    if code in _ENDED_UNSAID:
        return _stream_error(grpc.StatusCode.UNAVAILABLE, "the Feed stream ended")
    return _stream_error(code, await stream.details())


def _stream_error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    """The error a call would have raised, for a stream the client gave up on."""
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details, details)


#: Each event's FeedRequest, from the arguments its call takes.
_FEED_REQUESTS: Final[dict[str, Callable[..., pb.FeedRequest]]] = {
    "expose_card": lambda table_id, seq, card, role, seat: pb.FeedRequest(
        expose_card=_expose_request(table_id, seq, card, role, seat)
    ),
    "void_round": lambda table_id, seq: pb.FeedRequest(
        void_round=pb.VoidRoundRequest(table_id=table_id, seq=seq)
    ),
    "end_round": lambda table_id, seq: pb.FeedRequest(
        end_round=pb.EndRoundRequest(table_id=table_id, seq=seq)
    ),
    "new_shoe": lambda table_id, seq: pb.FeedRequest(
        new_shoe=pb.NewShoeRequest(table_id=table_id, seq=seq)
    ),
    "close_table": lambda table_id, seq: pb.FeedRequest(
        close_table=pb.CloseTableRequest(table_id=table_id, seq=seq)
    ),
}
