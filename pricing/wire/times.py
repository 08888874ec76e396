"""Times: ``google.protobuf.Timestamp`` on the wire, Unix seconds (a float) inside."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp

__all__ = ["seconds", "timestamp"]


def timestamp(unix_seconds: float) -> Timestamp:
    """A time as the wire carries it, to the microsecond.

    >>> timestamp(1764633600.25).ToJsonString()
    '2025-12-02T00:00:00.250Z'
    """
    at = Timestamp()
    at.FromMicroseconds(round(unix_seconds * 1_000_000))
    return at


def seconds(at: Timestamp) -> float:
    """A wire time in Unix seconds.

    >>> seconds(timestamp(1764633600.25))
    1764633600.25
    """
    return at.ToMicroseconds() / 1_000_000
