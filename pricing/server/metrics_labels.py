"""The label values of the gRPC series: each kind of RPC's ``grpc_type`` and each status's
``grpc_code``, as go-grpc-prometheus gives them, so that its stock dashboards and alerts
(``grpc_type="unary"``, ``grpc_code="InvalidArgument"``) find them: Python's own spellings
(UNARY, INVALID_ARGUMENT) would match none of their selectors."""

from __future__ import annotations

from typing import Any, Final

import grpc
import grpc.aio

__all__ = [
    "BIDI_STREAM",
    "CLIENT_STREAM",
    "CODE_LABELS",
    "SERVER_STREAM",
    "UNARY",
    "code_label",
    "rpc_type",
]

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

_UNKNOWN: Final = CODE_LABELS[grpc.StatusCode.UNKNOWN]
_CODE_BY_NUMBER: Final[dict[int, str]] = {c.value[0]: name for c, name in CODE_LABELS.items()}


def rpc_type(client_streaming: bool, server_streaming: bool) -> str:
    """The ``grpc_type`` of a method that streams requests, responses, both or neither."""
    if client_streaming:
        return BIDI_STREAM if server_streaming else CLIENT_STREAM
    return SERVER_STREAM if server_streaming else UNARY


def code_label(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The ``grpc_code`` of a call whose handler raised: the status it set, else Unknown (as
    grpc-go reports an error that carries no status)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return CODE_LABELS[code]
    if isinstance(code, int) and code != 0:
        return _CODE_BY_NUMBER.get(code, _UNKNOWN)
    return _UNKNOWN
