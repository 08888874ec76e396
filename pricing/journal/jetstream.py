"""``JetStreamJournal``: every table's events in one NATS JetStream stream, shared by several
servers (replicas), so any replica takes the feed and serves the watchers and one can die.

The stream ``PRICING_TABLES`` has one subject per table, ``pricing.tables.<token>``
(``subject_token``: the table id with every character that a NATS subject or key cannot hold
written ``=XX``), file storage and ``replicas`` copies on the NATS cluster. A message is one
record: the event's body as ``pricing.journal.codec`` writes it, its kind, seq, version and
acceptance time in headers. The events are the record; images (snapshots) are caches kept in
the key-value bucket ``PRICING_IMAGES``, one key per table, written after the event they
follow. Both are created on first start and checked against these settings after that.

Writes from any replica, never twice: an append carries ``Nats-Expected-Last-Subject-Sequence``,
the stream sequence of the table's previous version as this replica folded it, so JetStream
stores it only if nothing was appended to that table since; otherwise ``JournalConflict`` and
the store catches up (``catch_up``) and answers as one server would. ``Nats-Msg-Id`` is
unique to the append (table, version, a random nonce), so resending it after a lost
acknowledgement (a NATS node died, a leader election) never stores it twice, while another
replica's event, or the same table opened again after its events were purged, is never taken
for it. An append returns once JetStream has acknowledged it (stored on a quorum of the
stream's replicas).

Every replica follows the stream with an ordered consumer from where its start-up read ended,
and hands each record to the store (``follow``), which folds the ones it has not committed
itself. Health: a replica that lost NATS, or whose folding lags more than ``max_lag`` behind
the stream, is unhealthy (``unavailable_reason``): NOT_SERVING, and its appends UNAVAILABLE.

Old events leave the stream with their table: a closed table's subject is purged (and its image
deleted) when the store's retention moves it out, as the SQLite journal deletes its rows. A
live table keeps all its events, because a retry or a bet older than the newest image is
answered by folding the table's whole journal; per-subject limits or a maximum age would cut
that journal short, so the stream has neither. Start-up reads the stream once and folds, per
table, only the events after its image. A table with an event a newer build wrote
(``JournalNewer``) is held aside, at start-up or when it is followed; its messages stay.

The stream's and the bucket's names, settings and set-up, each table's subject token and the
layout of an image in the bucket are ``pricing.journal.jetstream_admin``'s. NATS's own header
and key-value names are nats.py's constants.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import struct
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Final, Protocol, TypeVar, runtime_checkable

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext, api
from nats.js.client import KV_PRE_TEMPLATE, KV_STREAM_TEMPLATE
from nats.js.kv import KV_DEL, KV_OP, KV_PURGE, KeyValue

from pricing.journal import (
    Journal,
    JournalConflict,
    JournalCorrupt,
    JournalError,
    JournalMetrics,
    JournalNewer,
    JournalUnavailable,
    Record,
    TableLog,
)
from pricing.journal.codec import decode_event, decode_image, encode_event, format_is_current
from pricing.journal.jetstream_admin import (
    BUCKET,
    STREAM,
    SUBJECT_PREFIX,
    Lag,
    connect,
    ensure_bucket,
    ensure_stream,
    image_of,
    image_value,
    read,
    subject_token,
    table_of_token,
    while_forming,
)
from pricing.tables import JournalEntry, TableImage

__all__ = ["JetStreamJournal", "ReplicaMetrics"]

log = logging.getLogger("pricing.journal")

T = TypeVar("T")

#: How long an append keeps resending before it answers UNAVAILABLE (a leader election takes
#: a few seconds).
WRITE_TIMEOUT: Final = 10.0
#: Wait for one acknowledgement before resending.
ATTEMPT_TIMEOUT: Final = 2.0
#: JetStream's error code for a failed ``Nats-Expected-Last-Subject-Sequence``.
WRONG_LAST_SEQUENCE: Final = 10071
#: Stream sequences remembered per table (version -> sequence): a replica is never that many
#: versions behind what it has seen of a table; if it were, the append conflicts and catches up.
KNOWN_VERSIONS: Final = 64

_VERSION: Final = "Pricing-Version"
_SEQ: Final = "Pricing-Seq"
_AT: Final = "Pricing-At"
_KIND: Final = "Pricing-Kind"


@runtime_checkable
class ReplicaMetrics(JournalMetrics, Protocol):
    """What a replicated journal reports besides commits (``pricing.server.metrics.Metrics``)."""

    def journal_lagged(self, seconds: float) -> None: ...
    def journal_conflicted(self) -> None: ...


class JetStreamJournal(Journal):
    """The tables' stream on the NATS ``servers`` (``nats://host:port``, one or more nodes of
    one cluster). ``start`` connects and creates or checks the stream and the bucket."""

    def __init__(
        self,
        servers: Sequence[str],
        *,
        replicas: int = 1,
        max_lag: float = 1.0,
        metrics: JournalMetrics | None = None,
        stream: str = STREAM,
        bucket: str = BUCKET,
        subject_prefix: str = SUBJECT_PREFIX,
        write_timeout: float = WRITE_TIMEOUT,
    ) -> None:
        self.servers = list(servers)
        self.replicas = replicas
        self.max_lag = max_lag
        self.stream = stream
        self.bucket = bucket
        self.prefix = subject_prefix
        self.write_timeout = write_timeout
        self.location = f"JetStream stream {stream} on {','.join(self.servers)}"
        self._metrics = metrics
        self._replica_metrics = metrics if isinstance(metrics, ReplicaMetrics) else None
        self._nc: NatsClient | None = None
        self._js: JetStreamContext | None = None
        self._kv: KeyValue | None = None  # the images' bucket, looked up once at the start
        self._loop: asyncio.AbstractEventLoop | None = None
        self._known: dict[str, dict[int, int]] = {}  # table id -> version -> stream sequence
        self._position = 0  # stream sequence of the last message handed to the store
        self._deliver: Callable[[Record], Awaitable[None]] | None = None
        self._hold_aside: Callable[[str, str], None] | None = None
        self._undelivered: dict[str, Record] = {}  # table id -> its newest record not folded
        self._follower: JetStreamContext.PushSubscription | None = None
        self._lag = Lag()
        self._lag_seconds = 0.0
        self._probe_failed: str | None = "not following the stream yet"
        self._rejoin_at: int | None = None  # the stream sequence to fold up to before serving
        self._connected = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._prober: asyncio.Task[None] | None = None
        self._probe_interval = min(1.0, max(0.02, max_lag / 4))

    # ---- connection and settings -----------------------------------------------------------

    @property
    def js(self) -> JetStreamContext:
        if self._js is None:
            raise JournalUnavailable(f"the journal ({self.location}) is not connected")
        return self._js

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            self._nc = await connect(
                self.servers, self.max_lag, self._disconnected, self._reconnected, self._error
            )
        except Exception as exc:
            raise JournalError(f"cannot reach NATS at {','.join(self.servers)}: {exc}") from exc
        self._connected = True
        self._js = self._nc.jetstream(timeout=ATTEMPT_TIMEOUT)
        try:
            await self._while_forming(self._ensure_stream)
            await self._while_forming(self._ensure_bucket)
        except JournalError:
            await self._nc.close()
            raise

    async def _while_forming(self, attempt: Callable[[], Awaitable[T]]) -> T:
        return await while_forming(attempt, self.location)

    async def _ensure_stream(self) -> None:
        await ensure_stream(self.js, self.stream, self.prefix, self.replicas)

    async def _ensure_bucket(self) -> None:
        self._kv = await ensure_bucket(self.js, self.bucket, self.replicas)

    @property
    def kv(self) -> KeyValue:
        """The images' key-value bucket."""
        if self._kv is None:
            raise JournalUnavailable(f"the journal ({self.location}) is not connected")
        return self._kv

    async def _disconnected(self) -> None:
        if self._connected and self._js is not None:
            log.warning("lost NATS (%s): not serving until it is back", self.location)
        self._connected = False
        # Back, it serves only once it has folded what it missed (the next probes see to it).
        self._probe_failed = f"lost NATS ({self.location}), catching up"
        self._rejoin_at = None

    async def _reconnected(self) -> None:
        self._connected = True
        url = self._nc.connected_url if self._nc is not None else None
        log.info("NATS reconnected (%s)", url.netloc if url is not None else "?")

    async def _error(self, exc: Exception) -> None:
        log.debug("NATS: %s", exc)

    # ---- health ----------------------------------------------------------------------------

    def unavailable_reason(self) -> str | None:
        if not self._connected:
            return f"lost NATS ({self.location})"
        if self._probe_failed is not None:
            return self._probe_failed
        if self._undelivered:
            return f"{len(self._undelivered)} table(s) behind the stream, catching up"
        if self._lag_seconds > self.max_lag:
            return (
                f"{self._lag_seconds:.1f} s behind the stream {self.stream} "
                f"(--max-lag {self.max_lag:g} s)"
            )
        return None

    async def _probe(self) -> None:
        """Measure the lag; a failed probe (NATS lost, JetStream without a leader) makes the
        replica unhealthy until one succeeds and it has folded what was appended meanwhile."""
        try:
            info = await self.js.stream_info(self.stream)
            now = time.monotonic()
            self._lag.seen(now, info.state.last_seq)
            lag = self._lag.seconds(now, self._position)
            if lag > self._probe_interval and not await self._anything_after(self._position):
                # The messages behind the probe were purged (a table's retention ended):
                # nothing is left to fold up to that sequence.
                self._position = max(self._position, self._lag.oldest_unfolded())
                lag = self._lag.seconds(now, self._position)
            if self._probe_failed is not None:
                # Unhealthy until now: the lag, measured from this probe on, would call the
                # replica "just behind" while it may miss events appended meanwhile. It serves
                # again once it has folded up to where the stream ended at this first probe.
                if self._rejoin_at is None:
                    self._rejoin_at = info.state.last_seq
                if self._position < self._rejoin_at and await self._anything_after(self._position):
                    self._probe_failed = (
                        f"catching up with the stream {self.stream}: folded up to sequence "
                        f"{self._position} of {self._rejoin_at}"
                    )
                else:
                    self._probe_failed = self._rejoin_at = None
        except Exception as exc:
            self._probe_failed = (
                f"cannot read the stream {self.stream}: {exc or type(exc).__name__}"
            )
            self._rejoin_at = None
            return
        self._lag_seconds = lag
        if self._replica_metrics is not None:
            self._replica_metrics.journal_lagged(lag)

    async def _anything_after(self, position: int) -> bool:
        try:
            await self.js.get_msg(
                self.stream, seq=position + 1, subject=self.prefix + ">", next=True
            )
        except nats.js.errors.NotFoundError:
            return False
        return True

    async def _probe_forever(self) -> None:
        while True:
            for record in list(self._undelivered.values()):
                await self._hand_over(record)
            await self._probe()
            await asyncio.sleep(self._probe_interval)

    # ---- reading ---------------------------------------------------------------------------

    async def _read(
        self, stream: str, subject: str, start: int = 0, *, last_per_subject: bool = False
    ) -> list[Msg]:
        assert self._nc is not None
        return await read(
            self._nc, lambda: self.js, stream, subject, start, last_per_subject=last_per_subject
        )

    def _record(self, msg: Msg) -> tuple[Record, int]:
        """The record a stream message holds, and its stream sequence."""
        headers = msg.headers or {}
        try:
            table_id = table_of_token(msg.subject[len(self.prefix) :])
            entry = JournalEntry(
                int(headers[_SEQ]),
                int(headers[_VERSION]),
                decode_event(headers[_KIND], msg.data),
            )
            return Record(table_id, entry, float(headers[_AT])), msg.metadata.sequence.stream
        except (KeyError, ValueError) as exc:
            raise JournalCorrupt(f"a message on {msg.subject} is not a table event: {exc}") from exc

    def _remember(self, table_id: str, version: int, stream_seq: int) -> None:
        if version == 1:  # opened (again, after its events were purged)
            self._known[table_id] = {}
        known = self._known.setdefault(table_id, {})
        known[version] = stream_seq
        known.pop(version - KNOWN_VERSIONS, None)

    # ---- start-up --------------------------------------------------------------------------

    def load(self) -> Iterator[TableLog]:
        """Read the images, then the stream once (blocking: run in a thread; the reads run on
        the event loop ``start`` ran on)."""
        if self._loop is None:
            raise JournalError("JetStreamJournal.load before start")
        logs = asyncio.run_coroutine_threadsafe(self._load(), self._loop).result()
        return iter(logs)

    async def _images(self) -> tuple[dict[str, tuple[int, float, bytes]], set[str]]:
        """Each table's image (version, time, body) this build can use; the tables whose
        image is of classes this build changed."""
        images: dict[str, tuple[int, float, bytes]] = {}
        ignored: set[str] = set()
        keys = KV_PRE_TEMPLATE.format(bucket=self.bucket)
        kv_messages = await self._while_forming(
            lambda: self._read(
                KV_STREAM_TEMPLATE.format(bucket=self.bucket), keys + ">", last_per_subject=True
            )
        )
        for msg in kv_messages:
            if (msg.headers or {}).get(KV_OP) in (KV_DEL, KV_PURGE):
                continue
            token = msg.subject[len(keys) :]
            try:
                version, at, fmt, body = image_of(msg.data)
                current = format_is_current(fmt)  # ValueError: not even a format (damage)
            except (ValueError, KeyError, TypeError, struct.error) as exc:
                log.warning("table key %r: image unreadable (%s), folding its events", token, exc)
                continue
            if not current:
                ignored.add(table_of_token(token))  # of classes this build changed
                continue
            images[table_of_token(token)] = (version, at, body)
        return images, ignored

    async def _load(self) -> list[TableLog]:
        images, ignored = await self._images()
        tables: dict[str, list[Record]] = {}
        last_at: dict[str, float] = {}
        last_version: dict[str, int] = {}
        held: dict[str, str] = {}  # table id -> why a newer build's records hold it aside
        for msg in await self._while_forming(lambda: self._read(self.stream, self.prefix + ">")):
            table_id = table_of_token(msg.subject[len(self.prefix) :])
            stream_seq = msg.metadata.sequence.stream
            self._position = stream_seq
            headers = msg.headers or {}
            version = int(headers.get(_VERSION, "0"))
            if version == 1:  # the table opened (again, after a purge): start over
                tables[table_id] = []
                held.pop(table_id, None)
            records = tables.setdefault(table_id, [])
            self._remember(table_id, version, stream_seq)
            last_at[table_id] = float(headers.get(_AT, "0"))
            last_version[table_id] = version
            imaged = images.get(table_id)
            if imaged is None or version > imaged[0]:
                try:  # every record is read: damage after a newer build's is still damage
                    records.append(self._record(msg)[0])
                except JournalNewer as exc:
                    held.setdefault(table_id, str(exc))
        logs = []
        for table_id, newer in tables.items():
            if table_id in held:
                logs.append(TableLog(table_id, None, [], 0.0, held_aside=held[table_id]))
                continue
            records = newer
            image = None
            imaged = images.get(table_id)
            # An image newer than the stream's last version is of a table since purged.
            if imaged is not None and imaged[0] <= last_version[table_id]:
                try:
                    image = decode_image(imaged[2])
                except Exception as exc:  # a cache: fold the events instead
                    log.warning("table %r: image unreadable (%s), folding events", table_id, exc)
            if image is None and imaged is not None:  # the events it skipped are needed
                records = await self.events(table_id)
            logs.append(
                TableLog(
                    table_id,
                    image,
                    records,
                    last_at.get(table_id, 0.0),
                    image is None and (imaged is not None or table_id in ignored),
                )
            )
        return logs

    # ---- writes ----------------------------------------------------------------------------

    async def append(self, record: Record, image: TableImage | None = None) -> None:
        reason = self.unavailable_reason() if self._deliver is not None else None
        if reason is not None:
            raise JournalUnavailable(f"this replica is not serving writes: {reason}")
        table_id, entry = record.table_id, record.entry
        if entry.version == 1:
            expected = 0  # the subject must be empty: no other replica opened it
        else:
            known = self._known.get(table_id, {}).get(entry.version - 1)
            if known is None:
                self._conflicted()
                raise JournalConflict(f"table {table_id!r}: version {entry.version - 1} unseen")
            expected = known
        token = subject_token(table_id)
        kind, body = encode_event(entry.event)
        headers = {
            _VERSION: str(entry.version),
            _SEQ: str(entry.seq),
            _AT: repr(record.accepted_at),
            _KIND: kind,
            api.Header.EXPECTED_LAST_SUBJECT_SEQUENCE: str(expected),
            api.Header.MSG_ID: f"{token}/{entry.version}/{secrets.token_hex(8)}",
        }
        t0 = time.perf_counter()
        ack = await self._publish(self.prefix + token, body, headers, table_id)
        self._remember(table_id, entry.version, ack.seq)
        if self._metrics is not None:
            self._metrics.journal_committed(time.perf_counter() - t0, 1)
        if image is not None:
            self._spawn(self._put_image(image, record.accepted_at))

    async def _publish(
        self, subject: str, body: bytes, headers: dict[str, str], table_id: str
    ) -> api.PubAck:
        """Publish until JetStream acknowledges (the same ``Nats-Msg-Id`` each time, so a
        resend of a stored message is answered as a duplicate and not stored again)."""
        deadline = time.monotonic() + self.write_timeout
        while True:
            left = deadline - time.monotonic()
            try:
                return await self.js.publish(
                    subject,
                    body,
                    timeout=max(0.05, min(ATTEMPT_TIMEOUT, left)),
                    stream=self.stream,
                    headers=dict(headers),
                )
            except nats.js.errors.APIError as exc:
                if exc.err_code == WRONG_LAST_SEQUENCE:
                    self._conflicted()
                    raise JournalConflict(
                        f"table {table_id!r}: another replica wrote first"
                    ) from exc
                error: Exception = exc
            except (TimeoutError, nats.errors.Error) as exc:
                error = exc
            if time.monotonic() >= deadline:
                if self._metrics is not None:
                    self._metrics.journal_failed("no acknowledgement")
                raise JournalUnavailable(
                    f"JetStream did not acknowledge the write within {self.write_timeout:g} s "
                    f"({error or type(error).__name__}); retry it: if it was stored after all, "
                    "the retry is answered as the repeat it is"
                ) from error
            await asyncio.sleep(0.1)

    def _conflicted(self) -> None:
        if self._replica_metrics is not None:
            self._replica_metrics.journal_conflicted()

    async def _put_image(self, image: TableImage, at: float) -> None:
        try:
            await self.kv.put(subject_token(image.table_id), image_value(image, at))
        except Exception as exc:  # a cache: the events are safe, the next image replaces it
            log.warning("table %r: could not store its image: %s", image.table_id, exc)

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def save_images(self, images: Sequence[tuple[TableImage, float]]) -> None:
        await asyncio.gather(*(self._put_image(image, at) for image, at in images))

    async def forget(self, table_id: str) -> None:
        token = subject_token(table_id)
        try:
            await self.js.purge_stream(self.stream, subject=self.prefix + token)
            await self.kv.purge(token)
        except nats.errors.Error as exc:
            raise JournalUnavailable(
                f"cannot purge table {table_id!r} from JetStream: {exc}"
            ) from exc
        self._known.pop(table_id, None)

    # ---- other replicas --------------------------------------------------------------------

    async def events(self, table_id: str) -> list[Record]:
        records = await self.catch_up(table_id, 0)
        return records

    async def catch_up(self, table_id: str, after: int) -> list[Record]:
        start = self._known.get(table_id, {}).get(after, 0) + 1 if after else 0
        try:
            messages = await self._read(self.stream, self.prefix + subject_token(table_id), start)
        except (TimeoutError, nats.errors.Error) as exc:
            raise JournalUnavailable(
                f"cannot read table {table_id!r} from JetStream: {exc or type(exc).__name__}"
            ) from exc
        records: list[Record] = []
        for msg in messages:
            record, stream_seq = self._record(msg)
            if record.entry.version == 1:
                records = []  # opened again after a purge: only this opening counts
            self._remember(table_id, record.entry.version, stream_seq)
            records.append(record)
        return [r for r in records if r.entry.version > after]

    async def follow(
        self,
        deliver: Callable[[Record], Awaitable[None]],
        hold_aside: Callable[[str, str], None] | None = None,
    ) -> None:
        """Deliver every message after the ones ``load`` read (an ordered consumer, which
        JetStream restarts from the next sequence after any gap or reconnection)."""
        self._deliver, self._hold_aside = deliver, hold_aside
        self._follower = await self.js.subscribe(
            self.prefix + ">",
            stream=self.stream,
            cb=self._on_message,
            ordered_consumer=True,
            idle_heartbeat=max(0.1, min(1.0, self.max_lag / 2)),
            config=api.ConsumerConfig(
                deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE,
                opt_start_seq=self._position + 1,
            ),
        )
        await self._probe()
        self._prober = asyncio.create_task(self._probe_forever())

    async def _on_message(self, msg: Msg) -> None:
        try:
            stream_seq = msg.metadata.sequence.stream
            if stream_seq <= self._position:
                return  # delivered again after the consumer restarted
            record, _ = self._record(msg)
            self._remember(record.table_id, record.entry.version, stream_seq)
        except JournalNewer as exc:  # a newer replica's: this one cannot fold its table
            self._position = stream_seq
            if self._hold_aside is not None:
                self._hold_aside(table_of_token(msg.subject[len(self.prefix) :]), str(exc))
            return
        except Exception:
            log.exception("a message of %s (%s) is not a table event", self.stream, msg.subject)
            return
        self._position = stream_seq
        await self._hand_over(record)

    async def _hand_over(self, record: Record) -> None:
        """Deliver ``record``; one the store could not take (NATS lost while it caught up) is
        kept and delivered again by the prober, the replica unhealthy until then."""
        assert self._deliver is not None
        try:
            await self._deliver(record)
        except Exception as exc:
            if record.table_id not in self._undelivered:
                log.warning(
                    "table %r: could not fold its newest events yet: %s", record.table_id, exc
                )
            self._undelivered[record.table_id] = record
        else:
            self._undelivered.pop(record.table_id, None)

    async def close(self) -> None:
        if self._prober is not None:
            self._prober.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._follower is not None:
            try:
                await self._follower.unsubscribe()
            except Exception:
                log.debug("could not unsubscribe the follower", exc_info=True)
        self._js = self._kv = None
        if self._nc is not None:
            await self._nc.close()
