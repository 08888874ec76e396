"""The roles' interceptor: a call without the token its service needs is refused before its
request is read, and a Feed stream whose token is taken back stops at its next message (the
tokens themselves are ``pricing.server.auth``'s)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio

from pricing.server.auth import Role, TokenStore, bearer_token
from pricing.server.handlers import BuiltHandlers, Continuation, Handler, ServerInterceptor
from pricing.server.status import trailers

__all__ = ["AuthInterceptor", "refusing_handler"]


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
