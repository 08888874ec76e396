"""How the servicers answer what they refuse: each domain error's gRPC status, requests too
large or unreadable, the message and log line of a refusal, and the gate a call passes before
anything is read (the server ready, not shutting down)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar

import grpc
import grpc.aio
from google.protobuf.message import DecodeError

from pricing.errors import IllegalMove, InvalidInput, LimitExceeded
from pricing.journal import JournalUnavailable
from pricing.ratelog import LogBudget
from pricing.server.metrics import Metrics
from pricing.tables import GameUnavailable, SeqConflict, TableExists, TableNotFound

__all__ = [
    "INTERNAL_DETAILS",
    "MAX_DETAILS",
    "Context",
    "Gate",
    "NotReady",
    "Refusals",
    "Undecodable",
    "decoder",
    "status_code",
    "too_large",
]

log = logging.getLogger("pricing.service")

if TYPE_CHECKING:  # generic only in the type stubs
    Context = grpc.aio.ServicerContext[Any, Any]
else:
    Context = grpc.aio.ServicerContext


class NotReady(RuntimeError):
    """The server is still rebuilding its tables from the journal, or is shutting down
    (UNAVAILABLE: nothing was applied, so the same request can be sent again)."""


#: Only our own error types say what the caller did wrong. Anything else (a plain ValueError
#: from a kernel's internal contract, a protobuf range error, a KeyError) is a bug of ours:
#: INTERNAL, never a client error.
_CODES: Final[tuple[tuple[type[BaseException], grpc.StatusCode], ...]] = (
    (TableNotFound, grpc.StatusCode.NOT_FOUND),
    (TableExists, grpc.StatusCode.ALREADY_EXISTS),
    (SeqConflict, grpc.StatusCode.ALREADY_EXISTS),
    (GameUnavailable, grpc.StatusCode.UNIMPLEMENTED),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (IllegalMove, grpc.StatusCode.FAILED_PRECONDITION),
    (JournalUnavailable, grpc.StatusCode.UNAVAILABLE),
    (NotReady, grpc.StatusCode.UNAVAILABLE),
    (LimitExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED),
)

#: What the caller of a failed call is told of a bug: nothing of its internals.
INTERNAL_DETAILS: Final = "internal error: the server could not handle this request (logged)"


def status_code(exc: BaseException) -> grpc.StatusCode | None:
    """The status a rejected request gets, or None for an unexpected error (a bug)."""
    for kind, code in _CODES:
        if isinstance(exc, kind):
            return code
    return None


#: The longest message a rejected call is answered with (every client value in it is already
#: cut short by ``pricing.text.quoted``; this bounds the rest, far below gRPC's 8 KiB header
#: limit).
MAX_DETAILS: Final = 1024


@dataclass(frozen=True, slots=True)
class Undecodable:
    """What the decoder hands a handler instead of a request it could not read (the handler
    answers it, so the caller gets INVALID_ARGUMENT or RESOURCE_EXHAUSTED, not UNKNOWN)."""

    error: InvalidInput | LimitExceeded


def too_large(name: str, size: int, max_bytes: int) -> LimitExceeded:
    """A request of ``size`` bytes, over ``max_bytes``, refused before it is read."""
    return LimitExceeded("max-message-bytes", max_bytes, f"a {name} of {size} bytes is too large")


def decoder(message_type: Any, max_bytes: int) -> Callable[[bytes], Any]:
    """The request deserializer of ``message_type``: no body over ``max_bytes`` is parsed."""
    name = message_type.DESCRIPTOR.name

    def decode(data: bytes) -> Any:
        if len(data) > max_bytes:
            return Undecodable(too_large(name, len(data), max_bytes))
        try:
            return message_type.FromString(data)
        except DecodeError:
            return Undecodable(InvalidInput(f"the request is not a valid {name} message"))

    return decode


class Gate:
    """Whether calls are taken: not before the tables are rebuilt (``ready``), and no write
    or new stream once the server is shutting down (``stopping``)."""

    def __init__(self, *, ready: bool) -> None:
        self.ready = ready
        self.stopping = False

    def check_ready(self) -> None:
        if not self.ready:
            raise NotReady("the server is rebuilding its tables from the journal: retry shortly")


class Refusals:
    """Ends refused calls: their status and message, logged at a bounded rate, and counted
    when a limit refused them."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._log_budget = LogBudget()

    async def refuse(
        self, method: str, exc: Exception, context: Context, level: int = logging.INFO
    ) -> NoReturn:
        """End the call for ``exc``: its status (``status_code``) and message, or INTERNAL with
        nothing of the internals for anything else (a bug: its traceback goes to the log)."""
        code = status_code(exc)
        if code is None:
            log.error("%s failed: internal error", method, exc_info=exc)
            await context.abort(grpc.StatusCode.INTERNAL, INTERNAL_DETAILS)
        else:
            await context.abort(code, self.rejected(method, code, exc, level))
        raise AssertionError("unreachable: abort raises") from exc

    def rejected(
        self, method: str, code: grpc.StatusCode, exc: Exception, level: int = logging.INFO
    ) -> str:
        """The message a rejected call is answered with; logged at ``level``, at most a few
        lines a second however many calls are rejected, and counted if a limit refused it."""
        details = str(exc)
        if len(details) > MAX_DETAILS:
            details = details[:MAX_DETAILS] + "…"
        if isinstance(exc, LimitExceeded):
            self.metrics.limit_rejections.labels(exc.limit).inc()
        if log.isEnabledFor(level):
            suppressed = self._log_budget.take()
            if suppressed is not None:
                more = f" ({suppressed} more rejections not logged)" if suppressed else ""
                log.log(level, "%s rejected, %s: %s%s", method, code.name, details, more)
        return details


R = TypeVar("R")
Handler = Callable[[Any, Context], Awaitable[R]]


def unary(
    name: str, refusals: Refusals, method: Handler[R], level: int = logging.DEBUG
) -> Handler[R]:
    """A unary handler whose domain errors become gRPC statuses, and any other exception
    INTERNAL with a generic message (its traceback goes to the log). ``level``: how its
    refusals are logged."""

    @functools.wraps(method)
    async def wrapped(request: Any, context: Context) -> R:
        try:
            if isinstance(request, Undecodable):
                raise request.error
            return await method(request, context)
        except grpc.aio.AbortError:
            raise  # the handler aborted with its own status
        except Exception as exc:
            await refusals.refuse(name, exc, context, level)

    return wrapped
