"""``SqliteJournal``: the embedded default. One file, ``DATA_DIR/journal.sqlite3``, in WAL mode
with ``synchronous=FULL``: a commit has reached the disk (fsync) when it returns, so a ``kill
-9`` or a power cut loses nothing acknowledged.

Disk work happens in one writer thread, never on the event loop. Writes that arrive while a
commit is under way wait for the next one and then share it (group commit): a thousand tables'
feeds cost one fsync per batch, not one each. A failed commit (a full disk, a read-only file)
rolls back the whole batch, every write in it raises ``JournalUnavailable`` and nothing of it
is stored; the next batch tries again, so writes succeed by themselves once the disk can take
them. Reads (start-up, a table's history, export) use their own connections.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import itertools
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pricing.journal import (
    Durable,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalMetrics,
    JournalUnavailable,
    Record,
    TableLog,
)
from pricing.journal.codec import (
    decode_event,
    decode_image,
    encode_event,
    encode_image,
    format_is_current,
)
from pricing.ratelog import LogBudget
from pricing.tables import JournalEntry, TableImage

__all__ = ["FILE_NAME", "SCHEMA_VERSION", "SqliteJournal", "connect_readonly", "read_records"]

log = logging.getLogger("pricing.journal")

FILE_NAME: Final = "journal.sqlite3"
#: ``PRAGMA user_version`` of the file; a file of a newer version is refused.
SCHEMA_VERSION: Final = 1
#: ``PRAGMA application_id``: "PRCJ", so no other program's database is taken for a journal.
APPLICATION_ID: Final = 0x5052434A
#: A failing disk is logged at most once per this many seconds (with the count in between).
ERROR_LOG_INTERVAL: Final = 60.0
#: Rows of one kind in one INSERT statement. Every statement is a trip into SQLite that gives
#: up the GIL and must wait to take it back: while the event loop is busy (a fan-out) each
#: wait can last the interpreter's switch interval. The usual batch, up to this many events
#: of tables already open (or as many images), is one statement and its own transaction, so
#: a commit waits for the GIL once, not five times (BEGIN, a savepoint, the rows, its
#: release, COMMIT).
ROWS_PER_STATEMENT: Final = 64
#: Prepared statements kept by a connection: one per size of INSERT of each of the three
#: kinds of row, and room for the rest.
CACHED_STATEMENTS: Final = 3 * ROWS_PER_STATEMENT + 64

_SCHEMA: Final = """
CREATE TABLE tables (
    table_id    TEXT    NOT NULL PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE events (
    table_id    TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    accepted_at REAL    NOT NULL,
    kind        TEXT    NOT NULL,
    body        BLOB    NOT NULL,
    PRIMARY KEY (table_id, version)
) WITHOUT ROWID;
CREATE TABLE images (
    table_id    TEXT    NOT NULL PRIMARY KEY,
    version     INTEGER NOT NULL,
    accepted_at REAL    NOT NULL,
    format      TEXT    NOT NULL,
    body        BLOB    NOT NULL
) WITHOUT ROWID;
"""


def _connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}?mode=rwc"
    conn = sqlite3.connect(
        uri,
        uri=True,
        isolation_level=None,
        check_same_thread=False,
        cached_statements=CACHED_STATEMENTS,
    )
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def connect_readonly(data_dir: Path) -> sqlite3.Connection:
    """A read-only connection to the journal in ``data_dir`` (export reads while a server
    writes: WAL lets both go on)."""
    path = data_dir / FILE_NAME
    if not path.exists():
        raise JournalCorrupt(f"no journal at {path}")
    conn = _connect(path, readonly=True)
    _check_schema(conn, path)
    return conn


def _check_schema(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema version (0: a new, empty file); ``JournalCorrupt`` for a file that
    is not a journal of a version this build reads."""
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        (app,) = conn.execute("PRAGMA application_id").fetchone()
        if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise JournalCorrupt(
                f"{path} is an SQLite database of another program (it has tables but no "
                "journal schema version): point --data-dir elsewhere"
            )
        if version and app != APPLICATION_ID:
            raise JournalCorrupt(
                f"{path} is not a pricing journal (application_id {app:#x}, expected "
                f"{APPLICATION_ID:#x}): point --data-dir elsewhere"
            )
        if version > SCHEMA_VERSION:
            raise JournalCorrupt(
                f"{path} has journal schema version {version}, newer than this build's "
                f"version {SCHEMA_VERSION}: run a newer build, or point --data-dir elsewhere"
            )
        if version:
            conn.execute("SELECT 1 FROM events LIMIT 1").fetchall()
        return int(version)
    except sqlite3.DatabaseError as exc:
        raise JournalCorrupt(f"{path} is not a readable journal: {exc}") from exc


def _record(table_id: str, row: tuple[int, int, float, str, bytes]) -> Record:
    version, seq, at, kind, body = row
    return Record(table_id, JournalEntry(seq, version, decode_event(kind, body)), at)


def read_records(conn: sqlite3.Connection, table_id: str, after: int = 0) -> list[Record]:
    """``table_id``'s records after version ``after``, in order."""
    rows = conn.execute(
        "SELECT version, seq, accepted_at, kind, body FROM events "
        "WHERE table_id = ? AND version > ? ORDER BY version",
        (table_id, after),
    ).fetchall()
    return [_record(table_id, row) for row in rows]


def _reason(exc: sqlite3.Error) -> str:
    """What an operator should read for a failed commit (the metric's ``reason`` label)."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith("SQLITE_FULL"):
        return "disk full"
    if name.startswith("SQLITE_READONLY"):
        return "read-only"
    if name.startswith("SQLITE_IOERR"):
        return "I/O error"
    return "error"


@dataclass(slots=True)
class _Write:
    records: Sequence[Record]
    images: Sequence[tuple[TableImage, float]]
    forget: Sequence[str]
    loop: asyncio.AbstractEventLoop
    future: Durable


class _Errors:
    """Logs a failing disk once per ``ERROR_LOG_INTERVAL``, not once per write."""

    def __init__(self) -> None:
        self.budget = LogBudget(lines=1, seconds=ERROR_LOG_INTERVAL)
        self.failing = False

    def failed(self, message: str) -> None:
        self.failing = True
        suppressed = self.budget.take()
        if suppressed is not None:
            more = f" ({suppressed} more failed commits since last logged)" * bool(suppressed)
            log.error("journal writes are failing: %s%s", message, more)

    def succeeded(self, location: str) -> None:
        if self.failing:
            log.warning("journal writes succeed again (%s)", location)
            self.failing = False
            self.budget.reset()


class SqliteJournal(Journal):
    """The SQLite journal in ``data_dir`` (created if missing). Raises ``JournalCorrupt`` for
    a file that is not a journal, or one of a newer schema."""

    def __init__(self, data_dir: Path, *, metrics: JournalMetrics | None = None) -> None:
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalCorrupt(f"cannot create the data directory {data_dir}: {exc}") from exc
        self.path = data_dir / FILE_NAME
        self.location = str(self.path)
        # One server per data directory: a second one would fold the same tables apart.
        self._lock = (data_dir / "journal.lock").open("a")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            raise JournalError(
                f"{data_dir} is in use by another server (journal.lock is held): give each "
                "server its own --data-dir"
            ) from None
        self._metrics = metrics
        try:
            self._conn = _connect(self.path)
        except sqlite3.Error as exc:
            raise JournalCorrupt(f"cannot open the journal {self.path}: {exc}") from exc
        if _check_schema(self._conn, self.path) == 0:
            self._create()
        try:
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            self._conn.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as exc:
            raise JournalCorrupt(f"cannot open the journal {self.path}: {exc}") from exc
        if mode != "wal":
            raise JournalCorrupt(f"{self.path} cannot be put in WAL mode (journal_mode {mode})")
        self._pending: list[_Write] = []
        self._cond = threading.Condition()
        self._closing = False
        self._errors = _Errors()
        self._writer = threading.Thread(target=self._run, name="journal-writer", daemon=True)
        self._writer.start()

    def _create(self) -> None:
        try:
            self._conn.executescript(
                f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; "
                f"PRAGMA application_id = {APPLICATION_ID}; COMMIT;"
            )
        except sqlite3.Error as exc:
            raise JournalCorrupt(f"cannot create the journal {self.path}: {exc}") from exc

    # ---- start-up --------------------------------------------------------------------------

    def load(self) -> Iterator[TableLog]:
        conn = _connect(self.path, readonly=True)
        try:
            images = {
                table_id: (version, at, fmt, body)
                for table_id, version, at, fmt, body in conn.execute(
                    "SELECT table_id, version, accepted_at, format, body FROM images"
                )
            }
            table_ids = [row[0] for row in conn.execute("SELECT table_id FROM tables")]
            for table_id in table_ids:
                yield self._table_log(conn, table_id, images.get(table_id))
        except sqlite3.DatabaseError as exc:
            raise JournalCorrupt(f"{self.path} cannot be read: {exc}") from exc
        finally:
            conn.close()

    def _table_log(
        self,
        conn: sqlite3.Connection,
        table_id: str,
        stored: tuple[int, float, str, bytes] | None,
    ) -> TableLog:
        image: TableImage | None = None
        after, last_at = 0, 0.0
        if stored is not None:
            version, at, fmt, body = stored
            if format_is_current(fmt):
                try:
                    image = decode_image(body)
                    after, last_at = version, at
                except Exception as exc:  # a cache: fold from the events instead
                    log.warning(
                        "table %r: snapshot unreadable (%s), folding its events", table_id, exc
                    )
            # else: of classes this build changed; recovery counts them in its summary
        records = read_records(conn, table_id, after)
        if records:
            last_at = records[-1].accepted_at
        return TableLog(table_id, image, records, last_at, stored is not None and image is None)

    # ---- writes ----------------------------------------------------------------------------

    async def append(self, record: Record, image: TableImage | None = None) -> None:
        # A caller that gives up (cancelled, a timeout) stops waiting at once; the write goes
        # on. The table store waits on ``submit``'s Durable instead.
        await asyncio.shield(self.submit(record, image))

    def submit(self, record: Record, image: TableImage | None = None) -> Durable:
        images = () if image is None else ((image, record.accepted_at),)
        return self._write((record,), images)

    async def save_images(self, images: Sequence[tuple[TableImage, float]]) -> None:
        if images:
            await asyncio.shield(self._write((), images))

    async def forget(self, table_id: str) -> None:
        await asyncio.shield(self._write((), (), (table_id,)))

    def _write(
        self,
        records: Sequence[Record],
        images: Sequence[tuple[TableImage, float]],
        forget: Sequence[str] = (),
    ) -> Durable:
        """Hand a write to the writer thread; settled on this loop once it is committed."""
        write = _Write(records, images, forget, asyncio.get_running_loop(), Durable())
        with self._cond:
            if self._closing:
                return Durable.done_with(JournalUnavailable(f"the journal {self.path} is closed"))
            self._pending.append(write)
            self._cond.notify()
        return write.future

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closing:
                    self._cond.wait()
                batch, self._pending = self._pending, []
                if not batch and self._closing:
                    return
            self._commit(batch)

    def _commit(self, batch: list[_Write]) -> None:
        """Store the batch: as one statement that is its own transaction when its rows fit in
        one (``ROWS_PER_STATEMENT`` rows of one kind: events of open tables, or images);
        otherwise in one transaction, its rows together (a statement per kind of row and
        ``ROWS_PER_STATEMENT`` rows). If the database refuses a row (a constraint),
        the batch is stored again write by write, a savepoint each, so the refused write
        fails alone. A disk that cannot be written fails the whole batch, and nothing of it
        is stored."""
        outcome: dict[int, BaseException | None] = {}
        good: list[tuple[int, _Rows]] = []
        for n, write in enumerate(batch):  # encoding is CPU work: here, off the event loop
            try:
                good.append((n, _encode(write)))
            except Exception as exc:  # a bug, not the disk: fail this write, keep the writer
                log.exception("journal: cannot encode a write")
                outcome[n] = exc
        t0 = time.perf_counter()
        try:
            if self._conn.in_transaction:  # left by a rollback that failed: undo it first
                self._rollback()
            # A forget keeps the order of the batch's writes: write by write. Otherwise the
            # rows go in together, as one statement that is its own transaction if they fit
            # in one (never inside a transaction left open, which would not commit them).
            together: list[tuple[str, tuple[object, ...]]] | None = None
            if not any(rows.forget for _, rows in good):
                together = _Rows.joined([rows for _, rows in good]).statements()
                if len(together) == 1 and not self._conn.in_transaction:
                    try:
                        self._conn.execute(*together[0])  # autocommit: one transaction
                    except sqlite3.IntegrityError:  # nothing stored: find the refused write
                        together = None
                    else:
                        outcome.update(dict.fromkeys((n for n, _ in good), None))
            if len(outcome) < len(batch):
                self._conn.execute("BEGIN IMMEDIATE")
                outcome.update(self._store(good, together))
                self._conn.execute("COMMIT")
        except Exception as exc:  # the disk (sqlite3.Error), or a bug: never the writer's end
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                reason = _reason(exc)
            else:  # a writer thread that died would leave every later write waiting for ever
                reason = "error"
                log.exception("journal: cannot store a batch")
            message = f"{reason} ({exc}) writing {self.path}"
            self._errors.failed(message)
            if self._metrics is not None:
                self._metrics.journal_failed(reason)
            # An I/O error on COMMIT may still leave the transaction in the WAL, to be found
            # at the next start: then it was not acknowledged, which the seq rules allow for.
            failed = JournalUnavailable(
                f"the journal cannot be written: {message}; nothing was applied (not "
                "acknowledged), retry once the disk can be written"
            )
            outcome.update(dict.fromkeys((n for n, _ in good), failed))
        else:
            self._errors.succeeded(self.location)
            if self._metrics is not None:
                records = sum(len(rows.events) for n, rows in good if outcome[n] is None)
                self._metrics.journal_committed(time.perf_counter() - t0, records)
        # One wake-up of each event loop for the whole batch (a write to its self-pipe each),
        # not one per write.
        settled: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
        for n, write in enumerate(batch):
            settled.setdefault(write.loop, []).append((write.future, outcome[n]))
        for loop, outcomes in settled.items():
            try:
                loop.call_soon_threadsafe(_settle, outcomes)
            except RuntimeError:  # that loop is closed: no one waits there any more
                log.debug("journal: a write's event loop closed before its commit")

    def _store(
        self,
        good: list[tuple[int, _Rows]],
        together: list[tuple[str, tuple[object, ...]]] | None,
    ) -> dict[int, BaseException | None]:
        """Store the writes' rows in the open transaction: each one's outcome by its place.

        The rows of every write go in together, by the statements ``together``, unless it is
        None (a write forgets a table, or the database refused them together): then write by
        write, a savepoint each."""
        if together is not None:
            self._conn.execute("SAVEPOINT batch")
            try:
                for sql, parameters in together:
                    self._conn.execute(sql, parameters)
            except sqlite3.IntegrityError:  # undone; the transaction and its lock are kept
                self._conn.execute("ROLLBACK TO batch")
                self._conn.execute("RELEASE batch")
            else:
                self._conn.execute("RELEASE batch")
                return dict.fromkeys((n for n, _ in good), None)
        outcome: dict[int, BaseException | None] = {}
        for n, rows in good:
            self._conn.execute("SAVEPOINT write")
            try:
                rows.store(self._conn)
            except sqlite3.IntegrityError as exc:
                self._conn.execute("ROLLBACK TO write")
                outcome[n] = JournalUnavailable(
                    f"the journal refused the write ({exc}): nothing of it was stored"
                )
                log.error("journal refused a write: %s", exc)
                if self._metrics is not None:
                    self._metrics.journal_failed("refused")
            else:
                outcome[n] = None
            self._conn.execute("RELEASE write")
        return outcome

    def _rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            log.debug("journal: rollback failed", exc_info=True)

    # ---- reads -----------------------------------------------------------------------------

    async def events(self, table_id: str) -> list[Record]:
        return await asyncio.to_thread(self._events, table_id)

    def _events(self, table_id: str) -> list[Record]:
        conn = _connect(self.path, readonly=True)
        try:
            return read_records(conn, table_id)
        finally:
            conn.close()

    async def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify()
        await asyncio.to_thread(self._writer.join)
        self._conn.close()
        self._lock.close()


@dataclass(slots=True)
class _Rows:
    """One write, as rows of the journal's tables."""

    events: list[tuple[str, int, int, float, str, bytes]]
    images: list[tuple[str, int, float, str, bytes]]
    forget: list[tuple[str]]

    @classmethod
    def joined(cls, writes: list[_Rows]) -> _Rows:
        """The rows of ``writes``, in their order, as one write."""
        if len(writes) == 1:
            return writes[0]
        return cls(
            [e for w in writes for e in w.events],
            [i for w in writes for i in w.images],
            [f for w in writes for f in w.forget],
        )

    def statements(self) -> list[tuple[str, tuple[object, ...]]]:
        """The statements that store the rows, each with its parameters: an INSERT per kind
        of row and ``ROWS_PER_STATEMENT`` rows; a kind of row this write has none of costs
        no statement."""
        opened = [(row[0],) for row in self.events if row[1] == 1]  # a table's first version
        out: list[tuple[str, tuple[object, ...]]] = []
        for into, rows, width, then in (
            ("tables", opened, 1, ""),
            ("events", self.events, 6, ""),
            ("images", self.images, 5, _NEWER_IMAGE),
        ):
            for start in range(0, len(rows), ROWS_PER_STATEMENT):
                chunk: Sequence[tuple[object, ...]] = rows[start : start + ROWS_PER_STATEMENT]
                sql = _insert(into, width, len(chunk), then)
                out.append((sql, tuple(itertools.chain.from_iterable(chunk))))
        for table in ("tables", "events", "images") if self.forget else ():
            for (table_id,) in self.forget:
                out.append((f"DELETE FROM {table} WHERE table_id = ?", (table_id,)))
        return out

    def store(self, conn: sqlite3.Connection) -> None:
        for sql, parameters in self.statements():
            conn.execute(sql, parameters)


#: An image is stored over an older one of its table, never over a newer one.
_NEWER_IMAGE: Final = (
    " ON CONFLICT (table_id) DO UPDATE SET version = excluded.version, "
    "accepted_at = excluded.accepted_at, format = excluded.format, body = excluded.body "
    "WHERE excluded.version >= images.version"
)


@functools.cache
def _insert(table: str, width: int, rows: int, then: str) -> str:
    """``INSERT INTO table VALUES (?, ...), ...`` for ``rows`` rows of ``width`` columns.

    >>> _insert("tables", 1, 2, "")
    'INSERT INTO tables VALUES (?), (?)'
    """
    row = "(" + ", ".join("?" * width) + ")"
    return f"INSERT INTO {table} VALUES {', '.join([row] * rows)}{then}"


def _encode(write: _Write) -> _Rows:
    events = []
    for r in write.records:
        kind, body = encode_event(r.entry.event)
        events.append((r.table_id, r.entry.version, r.entry.seq, r.accepted_at, kind, body))
    images = []
    for image, at in write.images:
        fmt, data = encode_image(image)
        images.append((image.table_id, image.snapshot.version, at, fmt, data))
    return _Rows(events, images, [(table_id,) for table_id in write.forget])


_Outcome = tuple["asyncio.Future[None]", BaseException | None]


def _settle(outcomes: list[_Outcome]) -> None:
    for future, error in outcomes:
        if future.done():  # a plain future its caller cancelled (a Durable never is)
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
