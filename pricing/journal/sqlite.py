"""``SqliteJournal``: the embedded default. One file, ``DATA_DIR/journal.sqlite3``, in WAL mode
with ``synchronous=FULL``: a commit has reached the disk (fsync) when it returns, so a ``kill
-9`` or a power cut loses nothing acknowledged.

Disk work happens in one writer thread, never on the event loop. Writes that arrive while a
commit is under way wait for the next one and then share it (group commit): a thousand tables'
feeds cost one fsync per batch, not one each. A failed commit (a full disk, a read-only file)
rolls back the whole batch, every write in it raises ``JournalUnavailable`` and nothing of it
is stored; the next batch tries again, so writes succeed by themselves once the disk can take
them. Reads (start-up, a table's history, export) use their own connections.

The file's schema, its upgrades and checks, the statements that store a write's rows and
reading records back are ``pricing.journal.sqlite_schema``'s.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pricing.journal import (
    Durable,
    Journal,
    JournalCorrupt,
    JournalError,
    JournalMetrics,
    JournalNewer,
    JournalUnavailable,
    Record,
    TableLog,
)
from pricing.journal.codec import decode_image, encode_event, encode_image
from pricing.journal.integrity import WAY_OUT, describe, image_crc
from pricing.journal.sqlite_schema import (
    FILE_NAME,
    RUNNING_MARK,
    SCHEMA_VERSION,
    QuickCheckFailed,
    _check_schema,
    _connect,
    _format_is_current,
    _Rows,
    check_sqlite,
    check_tables,
    create_schema,
    newer_build,
    read_records,
    rollback,
    upgrade_schema,
)
from pricing.ratelog import LogBudget
from pricing.tables import TableImage

__all__ = ["SqliteJournal"]

log = logging.getLogger("pricing.journal")

#: A failing disk is logged at most once per this many seconds (with the count in between).
ERROR_LOG_INTERVAL: Final = 60.0


class _Unreadable(JournalCorrupt):
    """A read of the file at start-up failed (each check and the load read it apart)."""


def _together(found: list[BaseException]) -> BaseException:
    """The start-up checks' problems as one error (a bug, if one was, as it is), each said
    once: the checks and the load each read the file, and a damaged one fails them all
    alike; once SQLite's quick_check has said the file is damaged, a read that failed on it
    adds nothing."""
    bugs = [exc for exc in found if not isinstance(exc, JournalCorrupt)]
    if bugs:
        return bugs[0]
    if any(isinstance(exc, QuickCheckFailed) for exc in found):
        found = [exc for exc in found if not isinstance(exc, _Unreadable)]
    messages = dict.fromkeys(str(exc).removesuffix(f". {WAY_OUT}") for exc in found)
    return JournalCorrupt(". ".join(messages) + f". {WAY_OUT}")


def _close_and_unmark(conn: sqlite3.Connection, running: Path) -> None:
    """Close the writer's connection (SQLite checkpoints the -wal into the file and removes
    it), then the mark that a server runs; the mark stays if the close failed."""
    try:
        conn.close()
    except sqlite3.Error:
        log.warning("journal: could not close the journal cleanly", exc_info=True)
        return
    running.unlink(missing_ok=True)


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
    """Logs a failing disk once per ``ERROR_LOG_INTERVAL``, not once per write, and its
    recovery at most as often. A nearly full disk fails one commit and takes the next (a
    smaller one) again and again: a success does not start the failures' minute afresh, so
    such a disk still logs two lines a minute, not two per commit."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = LogBudget(lines=1, seconds=ERROR_LOG_INTERVAL, clock=clock)
        self.recoveries = LogBudget(lines=1, seconds=ERROR_LOG_INTERVAL, clock=clock)
        self.failing = False

    def failed(self, message: str) -> None:
        self.failing = True
        suppressed = self.budget.take()
        if suppressed is not None:
            more = f" ({suppressed} more failed commits since last logged)" * bool(suppressed)
            log.error("journal writes are failing: %s%s", message, more)

    def succeeded(self, location: str) -> None:
        if self.failing:
            self.failing = False
            suppressed = self.recoveries.take()
            if suppressed is not None:
                more = f" ({suppressed} more recoveries since last logged)" * bool(suppressed)
                log.warning("journal writes succeed again (%s)%s", location, more)


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
        # Present from a server's first commit to its clean close: found at start-up, the last
        # server was killed, and its commits since the last checkpoint are in the -wal.
        self._running = data_dir / RUNNING_MARK
        self._marked = False
        wal = self.path.with_name(self.path.name + "-wal")
        if self._running.exists() and self.path.exists() and not wal.exists():
            self._lock.close()
            raise JournalCorrupt(
                f"{wal} is missing, and the server that used {data_dir} last was not stopped "
                "cleanly: the events it committed since its last checkpoint were in that file, "
                "so the journal would start without them. Put the file back if you have it; "
                f"else start from what is left knowingly: {WAY_OUT}"
            )
        try:
            self._conn = _connect(self.path)
        except sqlite3.Error as exc:
            raise JournalCorrupt(f"cannot open the journal {self.path}: {exc}") from exc
        # However this object goes (closed, collected, the interpreter exiting), the mark goes
        # only once its connection, the last, is closed: SQLite has then moved the -wal into
        # the file and removed it. A kill runs none of this, and leaves both.
        self._closer = weakref.finalize(self, _close_and_unmark, self._conn, self._running)
        version = _check_schema(self._conn, self.path)
        if version == 0:
            self._create()
        elif version < SCHEMA_VERSION:
            check_sqlite(self._conn, self.path)  # never write to a damaged file
            self._upgrade()
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
        create_schema(self._conn, self.path)

    def _upgrade(self) -> None:
        upgrade_schema(self._conn, self.path)

    # ---- start-up --------------------------------------------------------------------------

    def load(self) -> Iterator[TableLog]:
        """Every table's log, and a check that the journal is whole: ``JournalCorrupt``
        naming the file, every damaged table and what failed, if not, once every log was
        read (the store then starts nothing: never a partial start). A table a newer build
        wrote, and nothing of it damaged, comes as a log saying why it is held aside
        (``TableLog.held_aside``). The checks (SQLite's quick_check; every table's events
        against its recorded version) run in threads of their own meanwhile: they are
        SQLite's C, and the store folds the logs in Python."""
        found: list[BaseException] = []
        checkers = [
            threading.Thread(
                target=self._check_into, args=(check, found), name="journal-check", daemon=True
            )
            for check in (check_sqlite, check_tables)  # each a scan of the file: side by side
        ]
        for checker in checkers:
            checker.start()
        undecodable: list[tuple[str, str]] = []
        conn = _connect(self.path, readonly=True)
        try:
            recorded = dict(conn.execute("SELECT table_id, last_version FROM tables"))
            images = {
                table_id: (version, at, fmt, body, crc)
                for table_id, version, at, fmt, body, crc in conn.execute(
                    "SELECT table_id, version, accepted_at, format, body, crc FROM images"
                )
            }
            for table_id in sorted(recorded):
                last = recorded[table_id]
                try:
                    try:
                        log_ = self._table_log(conn, table_id, last, images.get(table_id))
                    except JournalNewer:  # held aside, if nothing of it is damaged
                        why = newer_build(conn, table_id)
                        log_ = TableLog(table_id, None, (), 0.0, recorded=last, held_aside=why)
                except JournalCorrupt as exc:  # an event that does not decode
                    undecodable.append((table_id, str(exc)))
                    continue
                yield log_
        except sqlite3.DatabaseError as exc:
            found.append(_Unreadable(f"{self.path} cannot be read: {exc}"))
        finally:
            conn.close()
            for checker in checkers:
                checker.join()
        if undecodable:
            found.append(JournalCorrupt(f"{self.path} is damaged: {describe(undecodable)}"))
        if found:
            raise _together(found)

    def _check_into(
        self, check: Callable[[sqlite3.Connection, Path], object], out: list[BaseException]
    ) -> None:
        try:
            conn = _connect(self.path, readonly=True)
        except BaseException as exc:  # a check not run is a problem, never a pass
            out.append(JournalCorrupt(f"cannot check {self.path}: {exc}"))
            return
        try:
            check(conn, self.path)
        except JournalCorrupt as exc:
            out.append(exc)
        except sqlite3.DatabaseError as exc:
            out.append(_Unreadable(f"{self.path} cannot be read: {exc}"))
        except BaseException as exc:  # a bug: raised in the loading thread all the same
            out.append(exc)
        finally:
            conn.close()

    def _table_log(
        self,
        conn: sqlite3.Connection,
        table_id: str,
        recorded: int,
        stored: tuple[int, float, str, bytes, int | None] | None,
    ) -> TableLog:
        image: TableImage | None = None
        after, last_at = 0, 0.0
        changed = False  # an image of classes this build changed: an upgrade, not damage
        if stored is not None:
            version, at, fmt, body, crc = stored
            damage = ""
            if crc is not None and crc != image_crc(fmt, body):
                damage = "its checksum does not match"
            elif version > recorded:
                damage = f"it is of version {version}, past the last one recorded"
            elif (current := _format_is_current(fmt)) is None:
                damage = f"its format is not one ({fmt[:40]!r})"
            elif current:
                try:
                    image = decode_image(body)
                    after, last_at = version, at
                except Exception as exc:  # a cache: fold from the events instead
                    damage = f"it does not decode ({exc})"
            else:
                changed = True
            if damage:
                log.warning(
                    "table %r: its snapshot (version %d) is damaged, %s: folding its events",
                    table_id,
                    version,
                    damage,
                )
        records = read_records(conn, table_id, after)
        if records:
            last_at = records[-1].accepted_at
        return TableLog(table_id, image, records, last_at, changed, recorded=recorded)

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
            self._succeeded()
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

    def _succeeded(self) -> None:
        self._errors.succeeded(self.location)
        if not self._marked:  # the -wal holds commits now: a kill leaves them only there
            self._marked = True
            try:
                self._running.touch()
            except OSError:  # only a guard for the -wal: never worth a write's answer
                log.warning("journal: cannot write %s", self._running, exc_info=True)

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
        rollback(self._conn)

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
        self._closer()
        self._lock.close()


def _encode(write: _Write) -> _Rows:
    events = []
    for r in write.records:
        kind, body = encode_event(r.entry.event)
        events.append((r.table_id, r.entry.version, r.entry.seq, r.accepted_at, kind, body))
    images = []
    for image, at in write.images:
        fmt, data = encode_image(image)
        crc = image_crc(fmt, data)
        images.append((image.table_id, image.snapshot.version, at, fmt, data, crc))
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
