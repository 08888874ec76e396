"""What the server's interceptors share: the types of a handler and of an interceptor, and the
cache of the handlers each builds around the ones it is handed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio

__all__ = ["BuiltHandlers", "Continuation", "Handler", "ServerInterceptor"]


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
