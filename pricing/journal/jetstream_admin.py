"""Where the JetStream journal (``pricing.journal.jetstream``) keeps its tables on NATS, and
how it sets that place up: the stream's and the key-value bucket's names and settings (created
on first start, checked against these after that), each table's subject token, the layout of an
image in the bucket, retrying while a cluster is still forming; the connection to NATS,
reading what a stream holds now, and how far behind it a replica's folding is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import struct
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, TypeVar

import nats
import nats.js.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api
from nats.js.client import KV_STREAM_TEMPLATE
from nats.js.kv import KeyValue

from pricing.journal import JournalError
from pricing.journal.codec import encode_image
from pricing.tables import TableImage

__all__ = [
    "BUCKET",
    "DUPLICATE_WINDOW",
    "START_SECONDS",
    "STREAM",
    "SUBJECT_PREFIX",
    "Lag",
    "connect",
    "differences",
    "ensure_bucket",
    "ensure_stream",
    "expected_stream",
    "image_of",
    "image_value",
    "read",
    "subject_token",
    "table_of_token",
    "while_forming",
]

log = logging.getLogger("pricing.journal")

T = TypeVar("T")

STREAM: Final = "PRICING_TABLES"
SUBJECT_PREFIX: Final = "pricing.tables."
BUCKET: Final = "PRICING_IMAGES"
#: How long JetStream remembers a ``Nats-Msg-Id`` (an append resent within it is stored once).
DUPLICATE_WINDOW: Final = 120.0
#: How long a start waits for JetStream to take the stream and bucket (a forming cluster).
START_SECONDS: Final = 20.0
_SAFE: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def subject_token(table_id: str) -> str:
    """``table_id`` as one NATS subject token and key-value key: letters, digits, ``_`` and
    ``-`` as they are, every other byte of its UTF-8 as ``=XX``.

    >>> subject_token("hilo-7"), subject_token("Baccarat 1.a"), subject_token("=")
    ('hilo-7', 'Baccarat=201=2Ea', '=3D')
    """
    return "".join(
        char if char in _SAFE else "".join(f"={byte:02X}" for byte in char.encode())
        for char in table_id
    )


def table_of_token(token: str) -> str:
    """The table id ``subject_token`` wrote.

    >>> table_of_token("Baccarat=201=2Ea"), table_of_token("caf=C3=A9")
    ('Baccarat 1.a', 'café')
    """
    out = bytearray()
    i = 0
    while i < len(token):
        if token[i] == "=":
            out.append(int(token[i + 1 : i + 3], 16))
            i += 3
        else:
            out += token[i].encode()
            i += 1
    return out.decode()


def image_value(image: TableImage, at: float) -> bytes:
    fmt, data = encode_image(image)
    meta = json.dumps({"version": image.snapshot.version, "at": at, "format": fmt})
    return struct.pack(">I", len(meta)) + meta.encode() + data


def image_of(value: bytes) -> tuple[int, float, str, bytes]:
    (size,) = struct.unpack_from(">I", value)
    meta = json.loads(value[4 : 4 + size])
    return int(meta["version"]), float(meta["at"]), str(meta["format"]), value[4 + size :]


async def while_forming(attempt: Callable[[], Awaitable[T]], location: str) -> T:
    """``attempt()``, again while JetStream is not ready: a cluster that is still forming
    (replicas started with it) answers "no suitable peers", "service unavailable" or times
    out for a while. Retried until ``START_SECONDS`` from the first failure, said once in
    the log; a ``JournalError`` (settings that no retry mends) is not retried."""
    deadline = time.monotonic() + START_SECONDS
    waiting = False
    while True:
        try:
            result = await attempt()
        except JournalError:
            raise
        except Exception as exc:
            if time.monotonic() >= deadline:
                raise JournalError(f"cannot use JetStream at {location}: {exc}") from exc
            if not waiting:
                log.warning("JetStream at %s not ready (%s): retrying", location, exc)
                waiting = True
            await asyncio.sleep(0.25)
        else:
            if waiting:
                log.info("JetStream at %s ready", location)
            return result


def expected_stream(stream: str, prefix: str, replicas: int) -> api.StreamConfig:
    """The settings of the tables' stream: every message kept until its table is purged."""
    return api.StreamConfig(
        name=stream,
        description="live-odds-pricing: every accepted event of every table",
        subjects=[prefix + ">"],
        retention=api.RetentionPolicy.LIMITS,
        storage=api.StorageType.FILE,
        num_replicas=replicas,
        duplicate_window=DUPLICATE_WINDOW,
        max_msgs_per_subject=-1,
        max_age=0,
        discard=api.DiscardPolicy.OLD,
        allow_direct=True,
    )


async def ensure_stream(js: JetStreamContext, stream: str, prefix: str, replicas: int) -> None:
    """Create the tables' stream, or check the one there: ``JournalError`` if its settings
    differ."""
    expected = expected_stream(stream, prefix, replicas)
    try:
        info = await js.stream_info(stream)
    except nats.js.errors.NotFoundError:
        await js.add_stream(expected)
        log.info("created the JetStream stream %s (replicas %d)", stream, replicas)
        return
    have = info.config
    wrong = differences(
        {
            "subjects": (have.subjects, expected.subjects),
            "storage": (have.storage, expected.storage),
            "replicas": (have.num_replicas, expected.num_replicas),
            "retention": (have.retention, expected.retention),
            "max_msgs_per_subject": (have.max_msgs_per_subject or -1, -1),
            "max_age": (have.max_age or 0, 0),
            "max_msgs": (have.max_msgs or -1, -1),
            "max_bytes": (have.max_bytes or -1, -1),
        }
    )
    if wrong:
        raise JournalError(
            f"the JetStream stream {stream} exists with other settings ({wrong}): "
            "fix it with the nats CLI, or point --journal at another cluster"
        )


async def ensure_bucket(js: JetStreamContext, bucket: str, replicas: int) -> KeyValue:
    """Create the images' key-value bucket, or check the one there (``JournalError`` if its
    settings differ); its handle."""
    try:
        info = await js.stream_info(KV_STREAM_TEMPLATE.format(bucket=bucket))
    except nats.js.errors.NotFoundError:
        return await js.create_key_value(
            api.KeyValueConfig(
                bucket=bucket,
                description="live-odds-pricing: the newest image (snapshot) of each table",
                history=1,
                storage=api.StorageType.FILE,
                replicas=replicas,
            )
        )
    have = info.config
    wrong = differences(
        {
            "storage": (have.storage, api.StorageType.FILE),
            "replicas": (have.num_replicas, replicas),
        }
    )
    if wrong:
        raise JournalError(
            f"the key-value bucket {bucket} exists with other settings ({wrong}): "
            "fix it with the nats CLI, or point --journal at another cluster"
        )
    return await js.key_value(bucket)


async def connect(
    servers: list[str],
    max_lag: float,
    disconnected_cb: Callable[[], Awaitable[None]],
    reconnected_cb: Callable[[], Awaitable[None]],
    error_cb: Callable[[Exception], Awaitable[None]],
) -> NatsClient:
    """A connection to the NATS ``servers`` that reconnects for ever, pinging often enough
    that a lost server is noticed within about ``2 * max_lag`` seconds."""
    return await nats.connect(
        servers,
        name="pricing",
        connect_timeout=2,
        reconnect_time_wait=0.25,
        max_reconnect_attempts=-1,
        allow_reconnect=True,
        ping_interval=max(1, int(max_lag * 2)),
        max_outstanding_pings=2,
        disconnected_cb=disconnected_cb,
        reconnected_cb=reconnected_cb,
        error_cb=error_cb,
    )


async def read(
    nc: NatsClient,
    js_of: Callable[[], JetStreamContext],
    stream: str,
    subject: str,
    start: int = 0,
    *,
    last_per_subject: bool = False,
) -> list[Msg]:
    """Every message of ``stream`` on ``subject`` from sequence ``start`` (0: the first)
    that is there now, in order, through an ephemeral pull consumer of ``nc``. ``js_of``
    gives the JetStream context at each use (the journal's, which closing it takes away)."""
    if last_per_subject:
        policy = api.DeliverPolicy.LAST_PER_SUBJECT
    elif start > 1:
        policy = api.DeliverPolicy.BY_START_SEQUENCE
    else:
        policy = api.DeliverPolicy.ALL
    name = nc._nuid.next().decode()
    config = api.ConsumerConfig(
        name=name,
        deliver_policy=policy,
        opt_start_seq=start if policy is api.DeliverPolicy.BY_START_SEQUENCE else None,
        ack_policy=api.AckPolicy.NONE,
        filter_subject=subject,
        inactive_threshold=30.0,
        mem_storage=True,
        num_replicas=1,
    )
    info = await js_of().add_consumer(stream, config)
    pending = info.num_pending or 0
    messages: list[Msg] = []
    sub = await js_of().pull_subscribe_bind(stream=stream, name=name, durable=None)
    try:
        while len(messages) < pending:
            messages += await sub.fetch(min(pending - len(messages), 512), timeout=10)
    finally:
        await sub.unsubscribe()
        try:
            await js_of().delete_consumer(stream, name)
        except Exception:  # it goes by itself after its inactive threshold
            log.debug("could not delete the reading consumer %s", name, exc_info=True)
    return messages


def differences(settings: Mapping[str, tuple[object, object]]) -> str:
    return ", ".join(
        f"{name} is {have!r}, expected {want!r}"
        for name, (have, want) in settings.items()
        if have != want
    )


@dataclass(slots=True)
class Lag:
    """How far behind the stream this replica's folding is: the stream's last sequence is
    probed a few times per ``max_lag``; the lag is the age of the oldest probe that saw a
    message not folded yet (so it grows only while something stays unfolded)."""

    probes: list[tuple[float, int]] = field(default_factory=list)

    def seen(self, now: float, last_seq: int) -> None:
        if not self.probes or self.probes[-1][1] < last_seq:
            self.probes.append((now, last_seq))

    def seconds(self, now: float, position: int) -> float:
        self.probes = [(t, s) for t, s in self.probes if s > position]
        return now - self.probes[0][0] if self.probes else 0.0

    def oldest_unfolded(self) -> int:
        return self.probes[-1][1] if self.probes else 0
