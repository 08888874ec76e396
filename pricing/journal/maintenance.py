"""What an operator does to an SQLite journal from outside the server: ``check`` (what is
damaged, table by table), ``salvage`` (copy what is whole to a new data directory, saying what
was dropped or cut short) and ``backup`` (a consistent copy while a server writes, by SQLite's
online backup API). ``pricing journal check|salvage|backup`` print their reports.

None of them writes to the directory it reads: check and backup read it through read-only
connections (safe while a server runs), salvage reads a damaged file as far as it can.

A table a newer build of the service wrote (``JournalNewer``) is not damage: check names it
and why (a server of this build holds it aside), salvage and backup copy it as it is.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from pricing.journal import JournalCorrupt, JournalNewer, Record
from pricing.journal.fold import apply_record, fold_records
from pricing.journal.integrity import (
    TableHealth,
    image_crc,
    quick_check,
    records_versions,
    snapshot,
    table_health,
)
from pricing.journal.sqlite import SqliteJournal
from pricing.journal.sqlite_schema import (
    FILE_NAME,
    check_whole,
    connect_readonly,
    record_from_row,
)

__all__ = ["Checked", "TableReport", "backup", "check", "salvage"]

ARCHIVE: str = "archive"


@dataclass(frozen=True, slots=True)
class TableReport:
    """One table: ``good``, the last version whose events are all there, decode and fold;
    ``recorded`` the last one the journal recorded; ``problem``, what is wrong with its events
    ('' if they are whole); ``snapshot``, what is wrong with its snapshot ('' if nothing: a
    damaged one is only a cache, folded again from the events at start-up); ``newer``, why a
    newer build of the service wrote it ('' if none did): this build cannot fold it, and a
    server of it holds the table aside, but that is not damage."""

    table_id: str
    good: int
    recorded: int
    problem: str = ""
    snapshot: str = ""
    newer: str = ""

    @property
    def whole(self) -> bool:
        return not self.problem


@dataclass(slots=True)
class Checked:
    """A journal's check: SQLite's quick_check messages, every table's report, and why not
    every table could be read, if that is so (``unread``: then ``tables`` holds those read
    before the file failed, whatever else it holds)."""

    path: Path
    sqlite_problems: list[str] = field(default_factory=list)
    tables: list[TableReport] = field(default_factory=list)
    unread: str = ""

    @property
    def file_whole(self) -> bool:
        """Whether the file itself is sound: nothing read from it is vouched for otherwise,
        whatever its tables' events say."""
        return not self.sqlite_problems and not self.unread

    @property
    def whole(self) -> bool:
        return self.file_whole and all(t.whole for t in self.tables)


def _good_records(
    conn: sqlite3.Connection, table_id: str, upto: int
) -> tuple[list[Record], int, str, str]:
    """``table_id``'s records from the opening to version ``upto``, up to the first that does
    not decode (one a newer build wrote is passed over: damage after it is still damage);
    the last version read before that one; what stopped them there ('' if none did); and why
    a newer build wrote the table ('' if none did)."""
    records: list[Record] = []
    reached, newer = 0, ""
    rows = conn.execute(
        "SELECT version, seq, accepted_at, kind, body FROM events "
        "WHERE table_id = ? AND version <= ? ORDER BY version",
        (table_id, upto),
    )
    for row in rows:
        try:
            records.append(record_from_row(table_id, row))
        except JournalNewer as exc:
            newer = newer or str(exc)
        except JournalCorrupt as exc:
            return records, reached, f"version {row[0]} does not decode: {exc}", newer
        reached = row[0]
    return records, reached, "", newer


def _folded_to(table_id: str, records: list[Record]) -> tuple[int, str]:
    """The last version ``records`` (from the opening, in order) fold to through the engines,
    and why the fold stopped there ('' if it took them all)."""
    if not records:
        return 0, "it has no events"
    try:
        table = fold_records(table_id, None, records[:1])
    except JournalCorrupt as exc:
        return 0, str(exc)
    for record in records[1:]:
        try:
            apply_record(table, record)
        except JournalCorrupt as exc:
            return table.snapshot.version, str(exc)
    return table.snapshot.version, ""


def _snapshot_note(conn: sqlite3.Connection, table_id: str) -> str:
    crc = "crc" if records_versions(conn) else "NULL"
    try:
        row = conn.execute(
            f"SELECT version, format, body, {crc} FROM images WHERE table_id = ?", (table_id,)
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        return f"its snapshot cannot be read ({exc}): start-up folds its events instead"
    if row is not None and row[3] is not None and row[3] != image_crc(row[1], row[2]):
        return f"its snapshot (version {row[0]}) is damaged: start-up folds its events instead"
    return ""


def _report(conn: sqlite3.Connection, health: TableHealth) -> TableReport:
    """A table's report: its events against its recorded version, decoded and folded through
    the engines; its snapshot against its checksum, apart."""
    table_id = health.table_id
    try:
        records, reached, undecodable, newer = _good_records(conn, table_id, health.whole_to)
    except sqlite3.DatabaseError as exc:
        return TableReport(table_id, 0, health.recorded, f"its events cannot be read: {exc}")
    # A newer build's table is not folded (this build cannot): its good versions are read.
    good, stopped = (reached, "") if newer else _folded_to(table_id, records)
    problem = health.problem() or undecodable or stopped
    snapshot = _snapshot_note(conn, table_id)
    return TableReport(table_id, good, health.recorded, problem, snapshot, newer)


def check(data_dir: Path) -> Checked:
    """What is damaged in the journal of ``data_dir``: read-only, safe while a server runs
    (one read transaction: the journal as of one moment)."""
    path = data_dir / FILE_NAME
    conn = connect_readonly(data_dir)
    checked = Checked(path)
    try:
        with snapshot(conn):
            checked.sqlite_problems = quick_check(conn)
            for health in table_health(conn):
                checked.tables.append(_report(conn, health))
    except sqlite3.DatabaseError as exc:
        checked.unread = str(exc)
    finally:
        conn.close()
    return checked


def _fresh_journal(to: Path) -> Path:
    """A new, empty journal in ``to``."""
    to.mkdir(parents=True, exist_ok=True)
    asyncio.run(SqliteJournal(to).close())  # created, with the schema of this build
    return to / FILE_NAME


def _refuse_existing(to: Path) -> None:
    if (to / FILE_NAME).exists():
        raise JournalCorrupt(f"{to / FILE_NAME} exists already: give a new directory")


def _remove_journal(to: Path) -> None:
    """What a failed salvage or backup left in ``to`` (so that it can be run again)."""
    for name in (FILE_NAME, FILE_NAME + "-wal", FILE_NAME + "-shm", "journal.lock"):
        (to / name).unlink(missing_ok=True)


def _copy_archive(data_dir: Path, to: Path) -> int:
    """Copy the archive's files (closed tables' events), as they are; how many. A file being
    written (``.tmp``) is not yet one, and one a running server's retention removes
    meanwhile is left out."""
    source = data_dir / ARCHIVE
    if not source.is_dir():
        return 0
    (to / ARCHIVE).mkdir(exist_ok=True)
    copied = 0
    for path in sorted(source.iterdir()):
        if path.suffix == ".tmp" or not path.is_file():
            continue
        try:
            shutil.copy2(path, to / ARCHIVE / path.name)
        except FileNotFoundError:
            continue
        copied += 1
    return copied


def salvage(data_dir: Path, to: Path) -> Checked:
    """Copy to the new data directory ``to`` every table whose events are whole, each other
    table up to its last good version (dropped if it has none), and the archive; the check
    of ``data_dir`` it went by, which names what was cut short or dropped. Snapshots are not
    copied: the server started on ``to`` folds every table once and snapshots it again."""
    _refuse_existing(to)
    checked = check(data_dir)
    target = _fresh_journal(to)
    source = connect_readonly(data_dir)
    out = sqlite3.connect(target, isolation_level=None)
    try:
        out.execute("BEGIN IMMEDIATE")
        with snapshot(source):
            for table in checked.tables:
                if table.good == 0:
                    continue
                out.execute("INSERT INTO tables (table_id) VALUES (?)", (table.table_id,))
                rows = source.execute(
                    "SELECT table_id, version, seq, accepted_at, kind, body FROM events "
                    "WHERE table_id = ? AND version <= ? ORDER BY version",
                    (table.table_id, table.good),
                ).fetchall()
                out.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", rows)
        out.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        out.close()
        _remove_journal(to)
        raise JournalCorrupt(f"salvage of {data_dir / FILE_NAME} failed: {exc}") from exc
    finally:
        out.close()
        source.close()
    _copy_archive(data_dir, to)
    return checked


@dataclass(frozen=True, slots=True)
class BackedUp:
    """A backup: where, how many tables and events it holds, archive files copied."""

    path: Path
    tables: int
    events: int
    archived: int


def backup(data_dir: Path, to: Path) -> BackedUp:
    """A consistent copy of the journal of ``data_dir`` in ``to``, taken while a server may be
    writing it (SQLite's online backup API: the journal as of one moment, every event
    committed before it began), checked whole, then the archive's files. Start a server with
    ``--data-dir`` ``to`` to restore it."""
    path = to / FILE_NAME
    _refuse_existing(to)
    to.mkdir(parents=True, exist_ok=True)
    source = connect_readonly(data_dir)
    copy = sqlite3.connect(path, isolation_level=None)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode = WAL")
        health = check_whole(copy, path)
    except BaseException:
        copy.close()
        _remove_journal(to)
        raise
    finally:
        source.close()
    copy.close()
    archived = _copy_archive(data_dir, to)
    return BackedUp(path, len(health), sum(h.events for h in health), archived)
