"""Writing a client method once for both clients: the method is a coroutine that does its I/O
through its object's transport (``_transport``); on the asyncio side it is that coroutine, on
the blocking side it is run to its end at once, since the blocking transport never suspends.
Also the protocol's decisions both sides share: when a feed event is resent, when a read is
sent again, how long to wait, and when ``follow_table`` resumes."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from types import MethodType
from typing import Any, Concatenate, Final, Generic, ParamSpec, Self, TypeVar, overload

import grpc

from pricing.client._errors import error_details

log = logging.getLogger("pricing.client")

P = ParamSpec("P")
T = TypeVar("T")


class Blocking:
    """Marks a blocking class: its ``shared`` methods return their result."""


class Asyncio:
    """Marks an asyncio class: its ``shared`` methods are coroutines."""


def run(awaitable: Awaitable[T]) -> T:
    """The result of a coroutine that does its I/O through the blocking transport: it finishes
    at its first step, as nothing in it waits on an event loop."""
    steps = awaitable.__await__()
    try:
        steps.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    steps.close()
    raise RuntimeError("a blocking client's call waited on an event loop")


def iterate(states: AsyncIterator[T]) -> Iterator[T]:
    """``states`` (an async generator on the blocking transport) as a blocking iterator;
    closing or dropping the iterator closes the generator (its ``finally`` cancels its call)."""
    try:
        while True:
            try:
                yield run(states.__anext__())
            except StopAsyncIteration:
                return
    finally:
        run(states.aclose())  # type: ignore[attr-defined]  # an async generator's


class _Method:
    """A method written once for both sides: the method itself on an ``Asyncio`` object,
    ``drive`` (``run``, ``iterate``) applied to what it returns on a ``Blocking`` one."""

    def __init__(self, method: Callable[..., Any], drive: Callable[[Any], Any]) -> None:
        self.method = method
        self.__doc__ = method.__doc__
        self.__wrapped__ = method

        @functools.wraps(method)
        def blocking(obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            return drive(method(obj, *args, **kwargs))

        self._blocking = blocking

    def _bind(self, obj: object) -> Any:
        if obj is None:
            return self
        return MethodType(self._blocking if isinstance(obj, Blocking) else self.method, obj)

    def __call__(self, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        """Called on the class, with the object first, as a plain method is."""
        return self._bind(obj)(*args, **kwargs)


class shared(_Method, Generic[P, T]):  # noqa: N801  (a decorator, named as one)
    """A method written once as a coroutine: awaited on an ``Asyncio`` object, run to its end
    (``run``) on a ``Blocking`` one."""

    def __init__(self, method: Callable[Concatenate[Any, P], Coroutine[Any, Any, T]]) -> None:
        super().__init__(method, run)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: Blocking, owner: type[Any]) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: Asyncio, owner: type[Any]) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, obj: object, owner: type[Any]) -> Any:
        return self._bind(obj)


class shared_iterator(_Method, Generic[P, T]):  # noqa: N801
    """``shared`` for an async generator method: a blocking iterator on a ``Blocking``
    object."""

    def __init__(self, method: Callable[Concatenate[Any, P], AsyncIterator[T]]) -> None:
        super().__init__(method, iterate)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, obj: Blocking, owner: type[Any]) -> Callable[P, Iterator[T]]: ...
    @overload
    def __get__(self, obj: Asyncio, owner: type[Any]) -> Callable[P, AsyncIterator[T]]: ...
    def __get__(self, obj: object, owner: type[Any]) -> Any:
        return self._bind(obj)


#: How often a feed resends one event before it gives up: with ``retry_delay``'s backoff,
#: about 20 s, long enough for a server to restart and recover its tables.
FEED_RETRIES: Final = 24
#: Calls that may be resent with the same seq: the server applies a seq once. CANCELLED only
#: when the server (or the connection) cancelled the call, not this client (``resend``).
_RETRYABLE: Final = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
)


#: How many times a read (``get_table``, ``quote``, ...) is sent in all while the server
#: refuses it for a budget that frees up (``refused_for_now``): enough to ride out a burst of
#: other readers, few enough that a server that stays full is soon reported to the caller.
READ_TRIES: Final = 5


def refused_for_now(exc: grpc.RpcError) -> float | None:
    """The seconds the server asked to wait when it refused a call for a budget that frees up
    by itself (RESOURCE_EXHAUSTED with a ``google.rpc.RetryInfo``: the concurrency budgets,
    the expensive reads'), else None. Any other RESOURCE_EXHAUSTED (``--max-tables``,
    ``--max-events-per-second``, a request too large) would be refused again: never resent."""
    if exc.code() is not grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    return error_details(exc).retry_after


def resend(exc: grpc.RpcError, cancelled_here: bool) -> bool:
    """Whether a feed event that failed with ``exc`` is sent again (with the same seq).
    ``cancelled_here``: the caller cut it off (closed the client, ended or cancelled the feed's
    stream meanwhile), which is never undone by a resend. Otherwise a CANCELLED came from the
    server or the connection (a call cut off by a shutdown), and the seq makes resending safe;
    so does a refusal for a budget that frees up (``refused_for_now``), after its delay.
    (Ctrl-C and a cancelled task raise no RpcError: they are never resent either.)"""
    if cancelled_here:
        return False
    return exc.code() in _RETRYABLE or refused_for_now(exc) is not None


def retry_delay(attempt: int) -> float:
    """Seconds to wait before resending after failed attempt ``attempt`` (0-based): doubling
    from 50 ms, at most 1 s, so a restarting server is not hammered.

    >>> [retry_delay(a) for a in range(6)]
    [0.05, 0.1, 0.2, 0.4, 0.8, 1.0]
    """
    return float(min(0.05 * 2**attempt, 1.0))


def pause(exc: grpc.RpcError, attempt: int) -> float:
    """Seconds to wait before sending again after failed attempt ``attempt``: the delay the
    server asked for (its ``RetryInfo``), else ``retry_delay``'s backoff."""
    asked = error_details(exc).retry_after
    return retry_delay(attempt) if asked is None else asked


def say_resending(table_id: str, what: str, exc: grpc.RpcError, delay: float) -> str:
    return f"table {table_id!r}: {exc.code().name}, resending {what} in {delay:.2f} s"


def say_reconnecting(table_id: str, from_version: int, exc: grpc.RpcError) -> str:
    details = exc.details() or ""
    return (
        f"table {table_id!r}: {exc.code().name} ({details}), reconnecting and resuming "
        f"from version {from_version}"
    )


def resumable(exc: grpc.RpcError, streaming: bool) -> bool:
    """Whether ``follow_table`` resumes a watch that failed with ``exc``: the server shutting
    down or unreachable, or a stream it ended mid-way for falling behind its round backlog
    (the only RESOURCE_EXHAUSTED after a state: the watcher limits refuse a stream at once)."""
    code = exc.code()
    return code is grpc.StatusCode.UNAVAILABLE or (
        streaming and code is grpc.StatusCode.RESOURCE_EXHAUSTED
    )
