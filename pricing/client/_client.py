"""The clients: every call written once (``_Client``), as ``PricingClient`` (blocking) and
``AsyncPricingClient`` (asyncio), which differ only in their transport; and their dealer feeds,
``DealerFeed`` and ``AsyncDealerFeed`` (``_feed._Feed`` on each transport), each typed with
the client it belongs to."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar

from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.client._connection import Connection, default_target
from pricing.client._errors import detailed
from pricing.client._feed import _Feed
from pricing.client._requests import (
    Rules,
    event_of,
    expose_request,
    list_request,
    open_request,
    position_request,
    quote_request,
    settle_request,
)
from pricing.client._shared import (
    READ_TRIES,
    Asyncio,
    Blocking,
    log,
    pause,
    refused_for_now,
    resumable,
    say_reconnecting,
    shared,
    shared_iterator,
)
from pricing.client._streams import BlockingFeedStream, FeedStream
from pricing.client._transport import ASYNCIO, BLOCKING, Sleep, Transport
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc


class DealerFeed(_Feed["PricingClient", BlockingFeedStream], Blocking):
    __doc__ = _Feed.__doc__
    _io = BLOCKING

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._leave(exc_type)


class AsyncDealerFeed(_Feed["AsyncPricingClient", FeedStream], Asyncio):
    """``DealerFeed`` for the asyncio client. ``streamed``: the events go on one Feed stream
    (opened at the first event, and again after it failed) instead of a call each; an event
    not answered within the client's ``timeout`` is resent on a new stream, as a call past its
    deadline is resent. ``end_stream()`` or leaving ``async with feed:`` ends the stream
    (leaving it as the task is cancelled cancels the stream instead of waiting); a feed
    garbage-collected with its stream open has the stream cancelled."""

    _io = ASYNCIO

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._leave(exc_type)


FeedT = TypeVar("FeedT", bound=_Feed[Any, Any])


class _Client(Generic[FeedT]):
    """Every call of both clients, written once; their transport (``_io``) does the I/O."""

    _io: ClassVar[Transport[Any]]
    _feed: ClassVar[type[_Feed[Any, Any]]]

    def __init__(
        self,
        target: str | None = None,
        *,
        token: str | None = None,
        dealer_token: str | None = None,
        tls_ca: str | os.PathLike[str] | None = None,
        tls_cert: str | os.PathLike[str] | None = None,
        tls_key: str | os.PathLike[str] | None = None,
        tls_server_name: str | None = None,
        timeout: float | None = 10.0,
        sleep: Sleep | None = None,
    ) -> None:
        self.target = target or default_target()
        connection = Connection.resolve(
            token if token is not None else dealer_token, tls_ca, tls_cert, tls_key, tls_server_name
        )
        self._channel = self._io.channel(self.target, connection.credentials(), connection.options)
        self._dealer = pb_grpc.DealerServiceStub(self._channel)
        self._pricing = pb_grpc.PricingServiceStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)
        self._md = connection.metadata
        self.timeout = timeout
        #: ``close()`` was called: the calls it cut off are not resent.
        self.closed = False
        self._sleep_with = sleep  # handed to its feeds too
        self._sleep = self._io.sleeper(sleep)

    @shared
    async def close(self) -> None:
        self.closed = True
        await self._io.close(self._channel)

    async def _call(self, call: Callable[..., Any], request: Message) -> Any:
        with detailed():
            return await self._io.unary(call, request, self.timeout, self._md)

    async def _read(self, call: Callable[..., Any], request: Message) -> Any:
        """A read (a PricingService call: it changes nothing, so sending it again is safe),
        sent again while the server refuses it for a budget that frees up, after the delay it
        asks for (``refused_for_now``): at most ``READ_TRIES`` times in all, all within the
        client's timeout, which bounds the whole call as it bounds a call sent once. Then the
        last refusal is raised."""
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        for attempt in range(1, READ_TRIES + 1):
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                with detailed():
                    return await self._io.unary(call, request, left, self._md)
            except self._io.error as exc:
                delay = refused_for_now(exc)
                if delay is None or attempt == READ_TRIES or self.closed:
                    raise
                if deadline is not None and time.monotonic() + delay >= deadline:
                    raise  # no time left for another try
                what = type(request).__name__
                log.debug("%s refused (%s): sent again in %.2f s", what, exc.details(), delay)
                await self._sleep(delay)
                if self.closed:  # closed while it waited: its channel is gone
                    raise
        raise AssertionError("unreachable: the last try raises")

    # DealerService
    @shared
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
        request = open_request(table_id, game, decks, rules if rules is not None else hilo)
        state: pb.TableState = await self._call(self._dealer.OpenTable, request)
        return state

    async def _send(self, request: Message) -> pb.TableState:
        """Any dealer-feed event (an ``ExposeCardRequest``, ``VoidRoundRequest``, ... any
        message ``FeedRequest`` carries) by its own call (``ExposeCard``, ...)."""
        state: pb.TableState = await self._call(
            getattr(self._dealer, event_of(request).rpc), request
        )
        return state

    send = shared(_send)

    @shared
    async def expose_card(
        self, table_id: str, seq: int, card: str, role: str | int, seat: int = 0
    ) -> pb.TableState:
        """``seat``: a blackjack PLAYER card's seat (box), 1 to the table's seats."""
        return await self._send(expose_request(table_id, seq, card, role, seat))

    @shared
    async def void_round(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.VoidRoundRequest(table_id=table_id, seq=seq)
        return await self._send(request)

    @shared
    async def end_round(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.EndRoundRequest(table_id=table_id, seq=seq)
        return await self._send(request)

    @shared
    async def new_shoe(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.NewShoeRequest(table_id=table_id, seq=seq)
        return await self._send(request)

    @shared
    async def close_table(self, table_id: str, seq: int) -> pb.TableState:
        request = pb.CloseTableRequest(table_id=table_id, seq=seq)
        return await self._send(request)

    def feed(
        self,
        table_id: str,
        *,
        streamed: bool = False,
        on_resend: Callable[[str], None] | None = None,
    ) -> FeedT:
        """A feed numbering ``table_id``'s events; ``streamed``: on a Feed stream;
        ``on_resend``: told a line before each resend (default: a warning logged)."""
        feed: FeedT = self._feed(  # type: ignore[assignment]
            self, table_id, streamed=streamed, on_resend=on_resend, sleep=self._sleep_with
        )
        return feed

    # PricingService
    @shared
    async def get_table(self, table_id: str) -> pb.TableState:
        state: pb.TableState = await self._read(
            self._pricing.GetTable, pb.GetTableRequest(table_id=table_id)
        )
        return state

    async def _watch(
        self, table_id: str, from_version: int = 0
    ) -> AsyncGenerator[pb.TableState, None]:
        """The current state, then each new one. Ends when the table closes (the last state's
        phase is CLOSED) or when the server shuts down (any other phase: reconnect from the
        last version + 1). Cancelled when the iterator is closed or garbage-collected."""
        request = pb.WatchTableRequest(table_id=table_id, from_version=from_version)
        call = self._io.watch(self._pricing.WatchTable, request, self._md)
        try:
            with detailed():
                async for state in call:
                    yield state
        finally:
            call.cancel()

    watch_table = shared_iterator(_watch)

    @shared_iterator
    async def follow_table(
        self,
        table_id: str,
        from_version: int = 0,
        *,
        on_reconnect: Callable[[str], None] | None = None,
    ) -> AsyncIterator[pb.TableState]:
        """``watch_table`` across server restarts: on UNAVAILABLE (the server shutting down or
        unreachable) it waits with backoff (or as long as the error's ``RetryInfo`` asks, when
        it has one), reconnects and resumes after the last version it yielded, so versions
        never go back, and every round result the server still holds is seen. A version comes
        twice only when the server adds a blackjack table's main-game figures to it
        (docs/rules.md §3.9): the second time with them. Ends when the table closes. A stream
        that fell further behind than the server's round backlog (RESOURCE_EXHAUSTED) is
        resumed the same way: the results no longer held are skipped (settle those rounds' bets
        with ``settle``). ``on_reconnect`` gets one line saying so (default: a warning on
        ``pricing.client``)."""
        say = on_reconnect or log.warning
        attempt = 0
        while True:
            streaming = False
            try:
                # Closed here, not by a finaliser: the stream's call is cancelled as soon as
                # this generator is (a blocking one on a thread with a running event loop too).
                async with contextlib.aclosing(self._watch(table_id, from_version)) as states:
                    async for state in states:
                        attempt, streaming = 0, True
                        from_version = state.version + 1
                        yield state
                        if state.phase == pb.PHASE_CLOSED:
                            return
                return  # an OK end: the table closed
            except self._io.error as exc:
                if not resumable(exc, streaming):
                    raise
                if attempt == 0:  # once per outage
                    say(say_reconnecting(table_id, from_version, exc))
                await self._sleep(pause(exc, attempt))
                attempt += 1

    @shared
    async def quote(
        self,
        game: str | int,
        exposed: Sequence[str],
        *,
        decks: int = 0,
        hilo: pb.HiLoRules | None = None,
        dealer_up_card: str = "",
        rules: Rules | None = None,
        include_player_edge: bool = False,
        base_card: str = "",
        player_hand: Sequence[str] = (),
        banker_hand: Sequence[str] = (),
    ) -> pb.QuoteResponse:
        """``include_player_edge`` (blackjack): also the next round's player edge, about 0.1 s
        on a full 8-deck shoe (QuoteRequest.include_player_edge); ``base_card`` (Higher/Lower):
        the card the next one is compared with; ``player_hand`` (blackjack, with
        ``dealer_up_card``): a hand whose decisions to answer (QuoteResponse.decisions);
        baccarat: the Player's cards of a round being dealt, ``banker_hand`` the Banker's
        (Dragon Tiger: ``player_hand`` is the Dragon's card): the round's odds given them
        (QuoteResponse.round_odds)."""
        request = quote_request(
            game, exposed, decks, rules if rules is not None else hilo, dealer_up_card
        )
        request.include_player_edge = include_player_edge
        request.base_card = base_card
        request.player_hand.extend(player_hand)
        request.banker_hand.extend(banker_hand)
        response: pb.QuoteResponse = await self._read(self._pricing.Quote, request)
        return response

    @shared
    async def settle(
        self,
        table_id: str,
        round_id: int,
        version: int,
        bet: str,
        stake_cents: int,
        *,
        seat: int = 0,
    ) -> pb.SettleResponse:
        """``seat``: the seat (box) a blackjack side bet is on, 1 to the table's seats."""
        request = settle_request(table_id, round_id, version, bet, stake_cents, seat=seat)
        settlement: pb.SettleResponse = await self._read(self._pricing.Settle, request)
        return settlement

    @shared
    async def settle_position(
        self, table_id: str, stake_cents: int, legs: Iterable[pb.PositionLeg]
    ) -> pb.SettlePositionResponse:
        """A stake carried through ``legs`` (each a bet at its version, and what is collected
        after it): each leg's value, what was collected and what still rides
        (SettlePositionRequest)."""
        request = position_request(table_id, stake_cents, legs)
        position: pb.SettlePositionResponse = await self._read(
            self._pricing.SettlePosition, request
        )
        return position

    @shared
    async def list_tables(self, game: str | int = 0) -> list[pb.TableSummary]:
        """The lobby: every table the server holds (open or closed), by id; ``game``: only
        that game's."""
        response = await self._read(self._pricing.ListTables, list_request(game))
        return list(response.tables)

    @shared
    async def health(self, service: str = "") -> str:
        """``"SERVING"``, ``"NOT_SERVING"``, ... of ``service`` ("" for the whole server)."""
        request = health_pb2.HealthCheckRequest(service=service)
        with detailed():
            response = await self._io.unary(self._health.Check, request, self.timeout, None)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


class PricingClient(_Client[DealerFeed], Blocking):
    """Blocking client. ``token`` (``dealer_token`` is its older name; default
    ``$PRICING_TOKEN``, else ``$PRICING_DEALER_TOKEN``) is sent with every call; ``tls_ca``,
    ``tls_cert`` and ``tls_key`` (default ``$PRICING_TLS_CA`` …) make the channel TLS, and
    ``tls_server_name`` (``$PRICING_TLS_SERVER_NAME``) names the host the server's
    certificate must be for when ``target`` lists several replicas. ``sleep`` is what the
    client and its feeds wait with before sending again (default ``time.sleep``; the asyncio
    client's, a coroutine function, default ``asyncio.sleep``): a test's or a simulation's
    clock."""

    _io = BLOCKING
    _feed = DealerFeed

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def feed_stream(self) -> BlockingFeedStream:
        """A new DealerService.Feed stream (``exchange`` an event for its answer)."""
        return BlockingFeedStream(self._dealer.Feed, self._md)


class AsyncPricingClient(_Client[AsyncDealerFeed], Asyncio):
    """The asyncio client (grpc.aio); use ``async with``. Arguments as ``PricingClient``."""

    _io = ASYNCIO
    _feed = AsyncDealerFeed

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def feed_stream(self) -> FeedStream:
        """A new DealerService.Feed stream: write ``FeedRequest``s, read their answers."""
        stream: FeedStream = self._dealer.Feed(None, metadata=self._md)  # written to one by one
        return stream
