"""What a refused call says to a program, beyond its code and message: the ``google.rpc.Status``
the server puts in the ``grpc-status-details-bin`` trailer (docs/reference/errors.md),
read back from any ``grpc.RpcError``.

``error_details(err)`` reads it; the errors the clients' calls raise also carry it as
attributes (``err.reason``, ``err.metadata``, ``err.field_violations``, ``err.retry_after``),
set by ``detailed`` where each call's error leaves the client, so a caller needs no import to
branch on a reason.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

__all__ = ["DETAILS_KEY", "DOMAIN", "ErrorDetails", "FieldViolation", "detailed", "error_details"]

#: The trailer that carries a status's details (gRPC's name for it, in every language).
DETAILS_KEY: Final = "grpc-status-details-bin"
#: The ``ErrorInfo.domain`` of this service's refusals.
DOMAIN: Final = "pricing.v1"

E = TypeVar("E", bound=grpc.RpcError)


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """A request field at fault (``BadRequest``): its path in the request and why."""

    field: str
    description: str


@dataclass(frozen=True, slots=True)
class ErrorDetails:
    """A refusal as a program reads it. ``reason``: its stable name (``SEQ_GAP``, …; None when
    the status carries none: a refusal not from this service, a lost connection); ``metadata``:
    its values by name, as text (``expected_seq``, ``table_id``, ``limit``, …);
    ``field_violations``: the request fields at fault; ``status``: the whole
    ``google.rpc.Status``, for any other detail (None without one); ``retry_after``: the
    seconds after which the same call may succeed, from a ``RetryInfo`` (None without one:
    a refusal that does not free up by itself)."""

    reason: str | None = None
    domain: str = ""
    metadata: Mapping[str, str] = field(default_factory=dict)
    field_violations: tuple[FieldViolation, ...] = ()
    status: status_pb2.Status | None = None
    retry_after: float | None = None


def _status(err: grpc.RpcError) -> status_pb2.Status | None:
    trailing = getattr(err, "trailing_metadata", None)
    items: Any = trailing() if callable(trailing) else None
    for key, value in items or ():
        if key == DETAILS_KEY and isinstance(value, bytes):
            try:
                return status_pb2.Status.FromString(value)
            except DecodeError:
                return None  # not ours to fail on: the code and message still stand
    return None


def error_details(err: grpc.RpcError) -> ErrorDetails:
    """The details of ``err``'s status (empty if it carries none)."""
    status = _status(err)
    if status is None:
        return ErrorDetails()
    info = error_details_pb2.ErrorInfo()
    request = error_details_pb2.BadRequest()
    retry = error_details_pb2.RetryInfo()
    found_info = False
    retry_after: float | None = None
    violations: list[FieldViolation] = []
    for detail in status.details:  # Unpack: False for a detail of another type
        if not found_info and detail.Unpack(info):
            found_info = True
        elif detail.Unpack(request):
            violations += [FieldViolation(v.field, v.description) for v in request.field_violations]
        elif retry_after is None and detail.Unpack(retry):
            # Never negative: a delay before now is no delay.
            retry_after = max(retry.retry_delay.ToNanoseconds() / 1e9, 0.0)
    if not found_info:
        return ErrorDetails(
            field_violations=tuple(violations), status=status, retry_after=retry_after
        )
    return ErrorDetails(
        info.reason, info.domain, dict(info.metadata), tuple(violations), status, retry_after
    )


def annotate(err: E) -> E:
    """``err`` with its details as attributes: ``reason``, ``metadata``, ``field_violations``,
    ``retry_after`` (grpc's error types take attributes; ``FeedStreamError`` declares them)."""
    details = error_details(err)
    err.reason = details.reason  # type: ignore[attr-defined]
    err.metadata = details.metadata  # type: ignore[attr-defined]
    err.field_violations = details.field_violations  # type: ignore[attr-defined]
    err.retry_after = details.retry_after  # type: ignore[attr-defined]
    return err


@contextlib.contextmanager
def detailed() -> Iterator[None]:
    """Around a call: the ``grpc.RpcError`` it raises leaves with its details as attributes
    (the same object, so ``except grpc.RpcError`` and its code and message are as before)."""
    try:
        yield
    except grpc.RpcError as err:
        annotate(err)
        raise
