"""How the servicers answer what they refuse: each domain error's gRPC status, requests too
large or unreadable, the message and log line of a refusal, and the gate a call passes before
anything is read (the server ready, not shutting down).

Every refusal also carries a ``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer:
an ``ErrorInfo`` (domain ``pricing.v1``, a stable ``reason``, the values a program needs as
``metadata``), plus a ``BadRequest``, ``PreconditionFailure``, ``ResourceInfo`` or
``QuotaFailure`` where one fits, so that a client in any language acts on a refusal without
parsing its message. ``_RULES`` is the one place an error's code, reason and values are chosen.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeVar

import grpc
import grpc.aio
from google.protobuf import duration_pb2
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from pricing.errors import (
    CardNotInShoe,
    IllegalMove,
    InvalidCard,
    InvalidInput,
    InvalidOption,
    LimitExceeded,
)
from pricing.journal import JournalUnavailable
from pricing.ratelog import LogBudget
from pricing.server.metrics import Metrics
from pricing.server.workers import DeadlinePassed, WorkerLost
from pricing.tables import (
    GameUnavailable,
    SeqConflict,
    SeqGap,
    SeqTooOld,
    StaleBet,
    TableClosed,
    TableExists,
    TableHeldAside,
    TableNotFound,
    VersionNotReached,
)

__all__ = [
    "DOMAIN",
    "INTERNAL_DETAILS",
    "MAX_DETAILS",
    "REASONS",
    "TABLE_RESOURCE",
    "Context",
    "Gate",
    "NotReady",
    "Refusal",
    "Refusals",
    "ShuttingDown",
    "Undecodable",
    "abort",
    "decoder",
    "refusal_of",
    "rich_status",
    "status_code",
    "too_large",
]

log = logging.getLogger("pricing.service")

if TYPE_CHECKING:
    Context = grpc.aio.ServicerContext[Any, Any]  # generic only in the type stubs
else:
    Context = grpc.aio.ServicerContext


class NotReady(RuntimeError):
    """The server is still rebuilding its tables from the journal, or is shutting down
    (UNAVAILABLE: nothing was applied, so the same request can be sent again)."""


class ShuttingDown(NotReady):
    """The server is shutting down: it takes no new write or stream (UNAVAILABLE)."""


#: The ``ErrorInfo.domain`` of every refusal: the API, as google.rpc asks (a service name).
DOMAIN: Final = "pricing.v1"
#: The ``ResourceInfo.resource_type`` of a table (the message the API shows it as).
TABLE_RESOURCE: Final = "pricing.v1.TableState"

_FP = grpc.StatusCode.FAILED_PRECONDITION

#: Each refusal, most specific type first: the error type, its status code, its reason, and
#: the error's attributes that become the ``ErrorInfo`` metadata (by the same name, those that
#: are set). Only our own error types say what the caller did wrong. Anything else (a plain
#: ValueError from a kernel's internal contract, a protobuf range error, a KeyError) is a bug
#: of ours: INTERNAL, never a client error. docs/reference/errors.md lists these.
_RULES: Final[tuple[tuple[type[BaseException], grpc.StatusCode, str, tuple[str, ...]], ...]] = (
    (TableNotFound, grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", ("table_id",)),
    (TableExists, grpc.StatusCode.ALREADY_EXISTS, "TABLE_EXISTS", ("table_id",)),
    (SeqConflict, grpc.StatusCode.ALREADY_EXISTS, "SEQ_CONFLICT", ("table_id", "seq", "last_seq")),
    (GameUnavailable, grpc.StatusCode.UNIMPLEMENTED, "GAME_UNAVAILABLE", ("game",)),
    (InvalidCard, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CARD", ("field",)),
    (InvalidOption, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_OPTION", ("field",)),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", ("field",)),
    (SeqGap, _FP, "SEQ_GAP", ("table_id", "seq", "expected_seq", "last_seq")),
    (SeqTooOld, _FP, "SEQ_TOO_OLD", ("table_id", "seq", "last_seq", "held")),
    (TableClosed, _FP, "TABLE_CLOSED", ("table_id",)),
    (TableHeldAside, _FP, "TABLE_HELD_ASIDE", ("table_id", "why")),
    (CardNotInShoe, _FP, "CARD_NOT_IN_SHOE", ("table_id", "card")),
    (
        VersionNotReached,
        _FP,
        "VERSION_NOT_REACHED",
        ("table_id", "version", "current_version"),
    ),
    (
        StaleBet,
        _FP,
        "STALE_BET",
        ("table_id", "why", "round_id", "version", "bet", "current_version"),
    ),
    (IllegalMove, _FP, "ILLEGAL_MOVE", ("table_id",)),
    (JournalUnavailable, grpc.StatusCode.UNAVAILABLE, "JOURNAL_UNAVAILABLE", ()),
    (WorkerLost, grpc.StatusCode.UNAVAILABLE, "WORKER_LOST", ()),
    (DeadlinePassed, grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", ("limit",)),
    (ShuttingDown, grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN", ()),
    (NotReady, grpc.StatusCode.UNAVAILABLE, "NOT_READY", ()),
    (
        LimitExceeded,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "LIMIT_EXCEEDED",
        ("limit", "value", "table_id", "from_version"),
    ),
)

#: Every reason a refusal may carry (and ``INTERNAL``, a bug's).
REASONS: Final = (
    *dict.fromkeys(reason for _, _, reason, _ in _RULES),
    "INTERNAL",
    # the roles' refusals, made by their interceptor (``trailers``)
    grpc.StatusCode.UNAUTHENTICATED.name,
    grpc.StatusCode.PERMISSION_DENIED.name,
)

#: What the caller of a failed call is told of a bug: nothing of its internals.
INTERNAL_DETAILS: Final = "internal error: the server could not handle this request (logged)"


@dataclass(frozen=True, slots=True)
class Refusal:
    """How a refused call is answered, but for its message: its status code, its reason and
    the values a program needs (``metadata``, as text: ``ErrorInfo`` holds strings); and
    ``retry_after``, seconds after which the same call may succeed (a ``RetryInfo``)."""

    code: grpc.StatusCode
    reason: str
    metadata: dict[str, str]
    retry_after: float | None = None


def refusal_of(exc: BaseException) -> Refusal | None:
    """How ``exc`` is answered, or None for an unexpected error (a bug)."""
    for kind, code, reason, keys in _RULES:
        if isinstance(exc, kind):
            values = {key: getattr(exc, key, None) for key in keys}
            metadata = {key: str(value) for key, value in values.items() if value is not None}
            return Refusal(code, reason, metadata, getattr(exc, "retry_after", None))
    return None


def status_code(exc: BaseException) -> grpc.StatusCode | None:
    """The status a rejected request gets, or None for an unexpected error (a bug)."""
    refusal = refusal_of(exc)
    return None if refusal is None else refusal.code


def rich_status(refusal: Refusal, message: str) -> status_pb2.Status:
    """The ``google.rpc.Status`` of a refusal answered with ``message``: its ``ErrorInfo``, and
    the standard detail that fits its kind (the table it names, the field at fault, the
    limit). Its code and message are the call's own, as ``grpc_status`` requires."""
    status = status_pb2.Status(code=refusal.code.value[0], message=message)
    metadata = refusal.metadata
    status.details.add().Pack(
        error_details_pb2.ErrorInfo(reason=refusal.reason, domain=DOMAIN, metadata=metadata)
    )
    table_id = metadata.get("table_id")
    if refusal.code is grpc.StatusCode.INVALID_ARGUMENT and "field" in metadata:
        violation = error_details_pb2.BadRequest.FieldViolation(
            field=metadata["field"], description=message, reason=refusal.reason
        )
        status.details.add().Pack(error_details_pb2.BadRequest(field_violations=[violation]))
    elif refusal.code is grpc.StatusCode.FAILED_PRECONDITION:
        precondition = error_details_pb2.PreconditionFailure.Violation(
            type=refusal.reason, subject=table_id or "", description=message
        )
        status.details.add().Pack(error_details_pb2.PreconditionFailure(violations=[precondition]))
    elif refusal.code is grpc.StatusCode.RESOURCE_EXHAUSTED and "limit" in metadata:
        quota = error_details_pb2.QuotaFailure.Violation(
            subject=f"--{metadata['limit']}", description=message
        )
        status.details.add().Pack(error_details_pb2.QuotaFailure(violations=[quota]))
    if refusal.retry_after is not None:
        delay = duration_pb2.Duration()
        delay.FromNanoseconds(round(refusal.retry_after * 1e9))
        status.details.add().Pack(error_details_pb2.RetryInfo(retry_delay=delay))
    if table_id is not None and refusal.reason in (
        "TABLE_NOT_FOUND",
        "TABLE_EXISTS",
        "SEQ_CONFLICT",
    ):
        resource = error_details_pb2.ResourceInfo(
            resource_type=TABLE_RESOURCE, resource_name=table_id, description=message
        )
        status.details.add().Pack(resource)
    return status


def trailers(code: grpc.StatusCode, message: str, **metadata: str) -> Any:
    """The trailing metadata of a refusal made before any servicer runs (an interceptor's):
    its ``google.rpc.Status``, whose ``ErrorInfo`` reason is the status code's name."""
    status = rich_status(Refusal(code, code.name, dict(metadata)), message)
    return rpc_status.to_status(status).trailing_metadata


async def abort(context: Context, exc: BaseException, message: str | None = None) -> NoReturn:
    """End the call for ``exc``: its status (``refusal_of``; INTERNAL for a bug), answered
    ``message`` (default: ``exc``'s), its ``google.rpc.Status`` in the trailer. Nothing is
    logged or counted (``Refusals.refuse`` does that)."""
    refusal = refusal_of(exc) or Refusal(grpc.StatusCode.INTERNAL, "INTERNAL", {})
    status = rich_status(refusal, str(exc) if message is None else message)
    answer = rpc_status.to_status(status)
    await context.abort(answer.code, answer.details, answer.trailing_metadata)
    raise AssertionError("unreachable: abort raises") from exc


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
            await abort(context, exc, INTERNAL_DETAILS)
        await abort(context, exc, self.rejected(method, code, exc, level))

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
