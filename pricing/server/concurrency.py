"""The concurrent-call budgets: at most so many unary calls of a service in progress at once
(``--max-concurrent-writes`` for the dealer's, ``--max-concurrent-reads`` for the reads'), the
next one refused with a ``RetryInfo`` before it runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import grpc
import grpc.aio

from pricing.errors import LimitExceeded
from pricing.server.handlers import BuiltHandlers, Continuation, Handler, ServerInterceptor
from pricing.server.status import abort

__all__ = ["CONCURRENCY_RETRY_SECONDS", "ConcurrencyInterceptor"]


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
