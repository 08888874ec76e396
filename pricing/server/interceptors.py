"""The server's interceptors, outermost first as ``pricing.server.process`` installs them:
metrics (every call counted and timed, refused ones too), roles (a call without the token its
service needs is refused before its request is read), and the concurrent-call limit; with the
handlers they build once per method and the handler that refuses a call; and the label values
the metrics give each kind of RPC and each status code (go-grpc-prometheus's)."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

import grpc
import grpc.aio

from pricing.errors import LimitExceeded
from pricing.server.auth import Role, TokenStore, bearer_token
from pricing.server.status import abort, trailers

if TYPE_CHECKING:
    from pricing.server.metrics import Metrics

__all__ = [
    "BIDI_STREAM",
    "CLIENT_STREAM",
    "CODE_LABELS",
    "CONCURRENCY_RETRY_SECONDS",
    "SERVER_STREAM",
    "UNARY",
    "AuthInterceptor",
    "BuiltHandlers",
    "ConcurrencyInterceptor",
    "Continuation",
    "Handler",
    "MetricsInterceptor",
    "ServerInterceptor",
    "refusing_handler",
    "rpc_type",
]


if TYPE_CHECKING:  # generic only in the type stubs
    ServerInterceptor = grpc.aio.ServerInterceptor[Any, Any]
    Handler = grpc.RpcMethodHandler[Any, Any]
else:
    ServerInterceptor = grpc.aio.ServerInterceptor
    Handler = grpc.RpcMethodHandler


Continuation = Callable[[grpc.HandlerCallDetails], Awaitable[Handler]]


class BuiltHandlers:
    """Handlers an interceptor builds around others, each built once and then reused.

    A wrapper built per call costs its closures, and hands the interceptor outside a new
    handler every call, so that one cannot reuse what it built either. ``get(key, inner,
    build)`` returns the handler built from ``inner`` under ``key`` while ``inner`` is the very
    handler it was built from (each is held here, so no other object can take its id).
    Bounded: should some path hand over a new inner handler every call, the cache starts
    afresh at ``limit`` entries rather than grow."""

    __slots__ = ("_built", "_limit")

    def __init__(self, limit: int = 4096) -> None:
        self._built: dict[object, tuple[Handler, Handler]] = {}
        self._limit = limit

    def get(self, key: object, inner: Handler, build: Callable[[Handler], Handler]) -> Handler:
        cached = self._built.get(key)
        if cached is not None and cached[0] is inner:
            return cached[1]
        if len(self._built) >= self._limit:
            self._built.clear()
        built = build(inner)
        self._built[key] = (inner, built)
        return built


def refusing_handler(handler: Handler, code: grpc.StatusCode, details: str) -> Handler:
    """A handler of ``handler``'s kind that ends the call at once with ``code``, before the
    request is even decoded (a stream: on its first message), its ``ErrorInfo`` reason the
    code's name. The roles' interceptor keeps the ones it builds (``BuiltHandlers``, keyed by
    method, code and details)."""
    trailing = trailers(code, details)

    async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, details, trailing)

    async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, details, trailing)
        yield  # pragma: no cover - abort raises

    async def bidi(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await context.abort(code, details, trailing)
        yield  # pragma: no cover - abort raises

    def keep(data: bytes) -> bytes:
        return data

    if handler.stream_stream is not None:
        return grpc.stream_stream_rpc_method_handler(bidi, request_deserializer=keep)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(stream, request_deserializer=keep)
    return grpc.unary_unary_rpc_method_handler(unary, request_deserializer=keep)


#: What a call refused for a concurrency budget is told to wait before it tries again: calls
#: in progress mostly answer within milliseconds, so a place is soon free.
CONCURRENCY_RETRY_SECONDS: Final = 0.1


class ConcurrencyInterceptor(ServerInterceptor):
    """At most ``limit`` unary calls of ``services`` in progress at once; the next one is
    refused with RESOURCE_EXHAUSTED naming ``flag`` (counted by ``on_reject``), with a
    ``RetryInfo``. The server has one for the dealer's writes and one for the reads, so that
    no number of reads can take a write's place.

    A call is counted, or refused, as its handler starts: interception comes earlier, before
    the request has arrived, so a burst of calls intercepted in one turn of the event loop
    would all find the count as it was and all be let in."""

    def __init__(
        self,
        limit: int,
        services: tuple[str, ...],
        on_reject: Callable[[str], None],
        *,
        flag: str = "max-concurrent-reads",
    ) -> None:
        self.limit = limit
        self.flag = flag
        self.in_flight = 0
        self._prefixes = tuple(f"/{s}/" for s in services)
        self._on_reject = on_reject
        # Each method's counting handler, built once: the metrics interceptor outside then
        # meets the same handler every call and keeps its own.
        self._built = BuiltHandlers()
        self._refused = LimitExceeded(
            flag,
            limit,
            "too many calls in progress; retry later",
            retry_after=CONCURRENCY_RETRY_SECONDS,
        )

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if (
            handler is None
            or handler.unary_unary is None
            or not handler_call_details.method.startswith(self._prefixes)
        ):
            return handler
        return self._built.get(handler_call_details.method, handler, self._count)

    def _count(self, handler: Handler) -> Handler:
        behaviour: Any = handler.unary_unary

        async def counted(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if self.in_flight >= self.limit:  # checked and counted with no await between
                self._on_reject(self.flag)
                await abort(context, self._refused)
            self.in_flight += 1
            try:
                return await behaviour(request, context)
            finally:
                self.in_flight -= 1

        return grpc.unary_unary_rpc_method_handler(
            counted,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


class AuthInterceptor(ServerInterceptor):
    """Refuses a call to ``dealer_service`` or ``reader_service`` without the role it needs,
    before its request is decoded; every other service (health, reflection) passes."""

    def __init__(self, tokens: TokenStore, *, dealer_service: str, reader_service: str) -> None:
        self.tokens = tokens
        self._dealer = f"/{dealer_service}/"
        self._reader = f"/{reader_service}/"
        self._guarded = (self._dealer, self._reader)
        self._built = BuiltHandlers()  # each refusal's handler, built once per method

    def _refusal(self, method: str, token: str | None) -> tuple[grpc.StatusCode, str] | None:
        if method.startswith(self._dealer):
            service, needed = "DealerService", self.tokens.dealer_required
        elif method.startswith(self._reader):
            service, needed = "PricingService", self.tokens.reader_required
        else:
            return None
        if not needed:
            return None
        if token is None:
            return (
                grpc.StatusCode.UNAUTHENTICATED,
                f"{service} needs a token: send 'authorization: Bearer <token>' metadata",
            )
        role = self.tokens.role_of(token)
        if role is None:
            return grpc.StatusCode.UNAUTHENTICATED, f"{service}: the token is not valid"
        if service == "DealerService" and role is not Role.DEALER:
            return (
                grpc.StatusCode.PERMISSION_DENIED,
                "DealerService needs a dealer token; this one is a reader's",
            )
        return None

    def _rechecked(self, handler: Handler, method: str) -> Handler:
        """``handler``, a stream of requests (a Feed), with each request let through only if
        the stream's token still has the role a call would need: a token taken back (the
        tokens files reloaded on SIGHUP) stops its open streams at their next message."""
        behaviour: Any = handler.stream_stream

        async def rechecked(
            requests: AsyncIterator[Any], context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            token = bearer_token(context.invocation_metadata())

            async def checked() -> AsyncIterator[Any]:
                async for request in requests:
                    refusal = self._refusal(method, token)
                    if refusal is not None:
                        code, details = refusal
                        await context.abort(code, details, trailers(code, details))
                    yield request

            async for answer in behaviour(checked(), context):
                yield answer

        return grpc.stream_stream_rpc_method_handler(
            rechecked,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if handler is None:  # no such method: gRPC answers UNIMPLEMENTED
            return handler
        token = bearer_token(handler_call_details.invocation_metadata)
        method = handler_call_details.method
        refusal = self._refusal(method, token)
        if refusal is None:
            if handler.stream_stream is not None and method.startswith(self._guarded):
                return self._built.get(
                    (method, "each message"), handler, lambda h: self._rechecked(h, method)
                )
            return handler
        code, details = refusal
        return self._built.get(
            (method, code, details), handler, lambda h: refusing_handler(h, code, details)
        )


_Behaviour = Callable[[Any, Any], Any]

# The gRPC series carry the label values go-grpc-prometheus gives them, so that its stock
# dashboards and alerts (``grpc_type="unary"``, ``grpc_code="InvalidArgument"``) find them:
# Python's own spellings (UNARY, INVALID_ARGUMENT) would match none of their selectors.

#: ``grpc_type`` of each kind of RPC: go-grpc-prometheus's ``grpcType`` values (util.go).
UNARY: Final = "unary"
CLIENT_STREAM: Final = "client_stream"
SERVER_STREAM: Final = "server_stream"
BIDI_STREAM: Final = "bidi_stream"

#: ``grpc_code`` of each status: its name in Go, ``codes.Code.String()`` (grpc-go's
#: codes/code_string.go), which go-grpc-prometheus labels with.
CODE_LABELS: Final[dict[grpc.StatusCode, str]] = {
    grpc.StatusCode.OK: "OK",
    grpc.StatusCode.CANCELLED: "Canceled",
    grpc.StatusCode.UNKNOWN: "Unknown",
    grpc.StatusCode.INVALID_ARGUMENT: "InvalidArgument",
    grpc.StatusCode.DEADLINE_EXCEEDED: "DeadlineExceeded",
    grpc.StatusCode.NOT_FOUND: "NotFound",
    grpc.StatusCode.ALREADY_EXISTS: "AlreadyExists",
    grpc.StatusCode.PERMISSION_DENIED: "PermissionDenied",
    grpc.StatusCode.RESOURCE_EXHAUSTED: "ResourceExhausted",
    grpc.StatusCode.FAILED_PRECONDITION: "FailedPrecondition",
    grpc.StatusCode.ABORTED: "Aborted",
    grpc.StatusCode.OUT_OF_RANGE: "OutOfRange",
    grpc.StatusCode.UNIMPLEMENTED: "Unimplemented",
    grpc.StatusCode.INTERNAL: "Internal",
    grpc.StatusCode.UNAVAILABLE: "Unavailable",
    grpc.StatusCode.DATA_LOSS: "DataLoss",
    grpc.StatusCode.UNAUTHENTICATED: "Unauthenticated",
}


def rpc_type(client_streaming: bool, server_streaming: bool) -> str:
    """The ``grpc_type`` of a method that streams requests, responses, both or neither."""
    if client_streaming:
        return BIDI_STREAM if server_streaming else CLIENT_STREAM
    return SERVER_STREAM if server_streaming else UNARY


def _code_label(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The ``grpc_code`` of a call whose handler raised: the status it set, else Unknown (as
    grpc-go reports an error that carries no status)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return CODE_LABELS[code]
    if isinstance(code, int) and code != 0:
        return _CODE_BY_NUMBER.get(code, _UNKNOWN)
    return _UNKNOWN


_OK: Final = CODE_LABELS[grpc.StatusCode.OK]
_CANCELED: Final = CODE_LABELS[grpc.StatusCode.CANCELLED]
_UNKNOWN: Final = CODE_LABELS[grpc.StatusCode.UNKNOWN]
_CODE_BY_NUMBER: Final[dict[int, str]] = {c.value[0]: name for c, name in CODE_LABELS.items()}


if TYPE_CHECKING:  # generic only in the type stubs
    _Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    _Interceptor = grpc.aio.ServerInterceptor


class MetricsInterceptor(_Interceptor):
    """Counts and times every unary, server-streaming and bidirectional RPC (the kinds this
    server has), labelled as go-grpc-prometheus labels them (``UNARY``…, ``CODE_LABELS``)."""

    def __init__(self, metrics: Metrics) -> None:
        self._m = metrics
        # Per method and inner handler (accepted, or refused for one reason): its metered
        # wrapper, built once, not per call (about 1 KiB held by every open stream, and four
        # label lookups). The inner interceptors hand over the same handlers every call.
        self._built = BuiltHandlers()

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any]]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        full_name = handler_call_details.method
        return self._built.get(
            (full_name, id(handler)), handler, lambda h: self._wrap(h, full_name)
        )

    def _wrap(
        self, handler: grpc.RpcMethodHandler[Any, Any], full_name: str
    ) -> grpc.RpcMethodHandler[Any, Any]:
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
                code = _code_label(context)
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
                code = _code_label(context)
                raise
            finally:
                handling.observe(time.perf_counter() - t0)
                m.handled.labels(*labels, code).inc()

        return wrapped
