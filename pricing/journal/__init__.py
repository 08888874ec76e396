"""The table journal: where every accepted event is kept, so a table outlives its process.

Tables are a pure fold of their events (``pricing.tables``). A ``Journal`` stores those events
durably, one ``Record`` each, plus now and then a ``TableImage`` of a table (a snapshot) so a
restart folds only what came after it. The tables, the table store and the servicers see only
this interface; each storage engine is one module beside it:

- ``pricing.journal.sqlite``: ``SqliteJournal``, the embedded default (one SQLite file, WAL,
  ``synchronous=FULL``, group commit);
- ``pricing.journal.memory``: ``MemoryJournal``, which keeps nothing (``--data-dir :memory:``);
- ``pricing.journal.jetstream``: ``JetStreamJournal``, one NATS JetStream stream shared by
  several servers (replicas), each folding every table (``--journal nats://...``).

``open_journal`` picks one from the ``--journal`` and ``--data-dir`` values.

A journal with other writers (JetStream) refuses an append that another replica got in first
(``JournalConflict``: nothing stored) and hands the store the records it is missing
(``catch_up``, and ``follow`` for everything the others append). The embedded journals have
no other writer: the defaults below (nothing to catch up, nothing to follow) are theirs.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from pricing.tables import JournalEntry, TableImage

__all__ = [
    "MEMORY",
    "Durable",
    "Journal",
    "JournalConflict",
    "JournalCorrupt",
    "JournalError",
    "JournalMetrics",
    "JournalNewer",
    "JournalUnavailable",
    "Record",
    "TableLog",
    "open_journal",
]

#: The ``--data-dir`` value that keeps nothing.
MEMORY: Final = ":memory:"


class JournalUnavailable(RuntimeError):
    """The journal cannot be written now (a full disk, a read-only file): nothing was applied,
    and the same write may succeed later (UNAVAILABLE)."""


class JournalConflict(RuntimeError):
    """Another writer appended to the table first: nothing of this write was stored. The
    store catches the table up (``Journal.catch_up``) and checks the event again."""


class JournalError(RuntimeError):
    """The journal cannot be opened: the server must not start on it."""


class JournalCorrupt(JournalError):
    """The journal cannot be read as a journal (not a journal, a newer schema, a record that
    does not decode)."""


class JournalNewer(JournalCorrupt):
    """A record a newer build of the service wrote, which this one cannot read: it parses, but
    names a game this build does not serve, carries fields or enum values its messages do not
    have, or is of an event kind it does not know. Not damage: its table is held aside (not
    loaded, not served, its records left as they are) until the server is upgraded. A
    ``JournalCorrupt`` all the same, so whatever does not tell the two apart refuses it as
    it refuses damage."""


@dataclass(frozen=True, slots=True)
class Record:
    """One accepted event of one table, as journaled: ``accepted_at`` in Unix seconds."""

    table_id: str
    entry: JournalEntry
    accepted_at: float


@dataclass(frozen=True, slots=True)
class TableLog:
    """What recovery folds for one table: its newest usable image (``None``: fold from the
    opening) and the records after it, in version order. ``last_at``: when the newest record
    (or the image's last event) was accepted."""

    table_id: str
    image: TableImage | None
    records: Sequence[Record]
    last_at: float
    image_ignored: bool = False  # it had an image this build cannot use (changed classes)
    #: The newest version the journal recorded for the table, which its fold must reach (0:
    #: the journal records none apart from its events).
    recorded: int = 0
    #: Why the table is held aside ('' if it loads): a newer build wrote records of it that
    #: this one cannot read (``JournalNewer``). Then ``image`` is None and ``records`` empty.
    held_aside: str = ""


class JournalMetrics(Protocol):
    """What a journal reports (``pricing.server.metrics.Metrics`` has these)."""

    def journal_committed(self, seconds: float, records: int) -> None: ...
    def journal_failed(self, reason: str) -> None: ...


class Durable(asyncio.Future[None]):
    """A write in progress: done once it is durable, or failed having stored nothing.

    Cancelling a task that awaits it does not cancel it (``cancel`` refuses): a client's
    deadline must not undo a write the disk may already have. That task gets its
    ``CancelledError`` once the write is over, so it can first commit what the disk holds.
    This is ``asyncio.shield`` without its extra future, and so without the two turns of the
    event loop its callbacks take once the write is over: a busy loop makes each a wait.
    ``asyncio.wait_for`` and ``asyncio.timeout`` wait for the write too before they time
    out: a caller that must give up early awaits ``asyncio.shield`` of it (the journals'
    ``append`` does).
    """

    def cancel(self, msg: object = None) -> bool:
        return False

    @classmethod
    def done_with(cls, error: BaseException | None = None) -> Durable:
        """A write that is already over: awaiting it takes no turn of the loop."""
        durable = cls()
        if error is None:
            durable.set_result(None)
        else:
            durable.set_exception(error)
        return durable

    def follow(self, write: Awaitable[None]) -> Durable:
        """Be done when ``write`` (a coroutine) is; run as a task of its own."""
        task = asyncio.ensure_future(write)
        task.add_done_callback(self._copy)
        self._task: asyncio.Future[None] | None = task  # the loop keeps a task weakly
        return self

    def _copy(self, task: asyncio.Future[None]) -> None:
        self._task = None
        if task.cancelled():  # the loop is closing: the write's outcome is unknown
            self.set_exception(JournalUnavailable("the journal write was cancelled"))
        elif (error := task.exception()) is not None:
            self.set_exception(error)
        else:
            self.set_result(None)


class Journal(ABC):
    """Durable storage of table events. Writes are coroutines that return once the event is
    on disk (or raise ``JournalUnavailable``, having stored nothing); a journal shares one
    commit among the writes that arrive together. The table store appends through
    ``submit``, whose ``Durable`` outlives a cancelled caller."""

    #: Where it keeps its data, for logs and messages.
    location: str = ""

    async def start(self) -> None:  # noqa: B027 (optional: the embedded journals are open)
        """Connect (a journal over the network); ``JournalError`` if it cannot be used."""

    @abstractmethod
    def load(self) -> Iterator[TableLog]:
        """Every table in the journal, to rebuild at start-up (blocking: run it in a thread)."""

    @abstractmethod
    async def append(self, record: Record, image: TableImage | None = None) -> None:
        """Store ``record`` durably (and ``image``, a snapshot as of ``record``, with it)."""

    def submit(self, record: Record, image: TableImage | None = None) -> Durable:
        """``append`` under way: a ``Durable`` write, which no cancellation of its awaiter
        stops. A journal whose writes are futures already returns one of its own."""
        return Durable().follow(self.append(record, image))

    @abstractmethod
    async def save_images(self, images: Sequence[tuple[TableImage, float]]) -> None:
        """Store snapshots (each with the time of its last event), replacing older ones."""

    @abstractmethod
    async def events(self, table_id: str) -> list[Record]:
        """Every record of ``table_id`` still in the journal, in version order."""

    @abstractmethod
    async def forget(self, table_id: str) -> None:
        """Drop ``table_id``'s records and snapshot from the journal."""

    @abstractmethod
    async def close(self) -> None:
        """Finish pending writes and release the storage."""

    # ---- other writers (replicas); the defaults are a journal that has none -----------------

    async def catch_up(self, table_id: str, after: int) -> list[Record]:
        """The records of ``table_id`` after version ``after`` that other writers appended
        and the caller has not seen yet, in version order."""
        return []

    async def follow(  # noqa: B027
        self,
        deliver: Callable[[Record], Awaitable[None]],
        hold_aside: Callable[[str, str], None] | None = None,
    ) -> None:
        """From now on, ``deliver`` every record other writers append (after those ``load``
        returned), in order; the caller skips the versions it has already. A record a newer
        build wrote (``JournalNewer``) is not delivered: ``hold_aside(table_id, why)`` is
        called instead, and the caller holds that table aside."""

    def unavailable_reason(self) -> str | None:
        """Why this journal should not take writes now (lost its cluster, lagging behind the
        other writers), or None: health reports NOT_SERVING meanwhile."""
        return None


def open_journal(
    data_dir: str,
    metrics: JournalMetrics | None = None,
    *,
    servers: Sequence[str] = (),
    replicas: int = 1,
    max_lag: float = 1.0,
) -> Journal:
    """The journal for ``--journal`` and ``--data-dir``: with NATS ``servers``, the JetStream
    stream on them (``replicas`` copies of it; lagging more than ``max_lag`` seconds behind
    it is unhealthy); otherwise ``:memory:`` keeps nothing and anything else is a folder for
    the SQLite journal (created if missing)."""
    # Imported here: each engine's module imports this one.
    if servers:
        try:
            from pricing.journal.jetstream import JetStreamJournal  # noqa: PLC0415
        except ImportError as exc:
            raise JournalError(
                f"--journal needs the NATS client ({exc}): pip install 'live-odds-pricing[nats]'"
            ) from exc
        return JetStreamJournal(servers, replicas=replicas, max_lag=max_lag, metrics=metrics)
    if data_dir == MEMORY:
        from pricing.journal.memory import MemoryJournal  # noqa: PLC0415

        return MemoryJournal()
    from pricing.journal.sqlite import SqliteJournal  # noqa: PLC0415

    return SqliteJournal(Path(data_dir), metrics=metrics)
