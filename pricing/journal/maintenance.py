"""What an operator does to an SQLite journal from outside the server: ``check`` (what is
damaged, table by table), ``salvage`` (copy what is whole to a new data directory, saying what
was dropped or cut short) and ``backup`` (a consistent copy while a server writes, by SQLite's
online backup API). ``pricing journal check|salvage|backup`` print their reports.

None of them writes to the directory it reads: check and backup read it through read-only
connections (safe while a server runs), salvage reads a damaged file as far as it can.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from pricing.journal import JournalCorrupt, Record
from pricing.journal.integrity import TableHealth, image_crc, quick_check, table_health
from pricing.journal.sqlite import (
    FILE_NAME,
    SqliteJournal,
    check_whole,
    connect_readonly,
    read_records,
    schema_version,
)
from pricing.store import apply_record, fold_records

__all__ = ["Checked", "TableReport", "backup", "check", "salvage"]

ARCHIVE: str = "archive"


@dataclass(frozen=True, slots=True)
class TableReport:
    """One table: ``good``, the last version whose events are all there and fold; ``recorded``
    the last one the journal recorded; ``problem``, what is wrong ('' if it is whole)."""

    table_id: str
    good: int
    recorded: int
    problem: str = ""

    @property
    def whole(self) -> bool:
        return not self.problem


@dataclass(slots=True)
class Checked:
    """A journal's check: SQLite's quick_check messages, and every table's report."""

    path: Path
    sqlite_problems: list[str] = field(default_factory=list)
    tables: list[TableReport] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return not self.sqlite_problems and all(t.whole for t in self.tables)


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


def _report(conn: sqlite3.Connection, health: TableHealth) -> TableReport:
    """A table's report: its events against its recorded version, folded through the engines,
    and its snapshot (if any) against its checksum."""
    table_id = health.table_id
    try:
        records = read_records(conn, table_id)
    except (sqlite3.DatabaseError, JournalCorrupt) as exc:
        return TableReport(table_id, 0, health.recorded, f"its events cannot be read: {exc}")
    whole = records[: health.whole_to]
    good, stopped = _folded_to(table_id, whole)
    problem = health.problem() or stopped
    if not problem:
        row = conn.execute(
            "SELECT version, format, body, crc FROM images WHERE table_id = ?", (table_id,)
        ).fetchone()
        if row is not None and row[3] is not None and row[3] != image_crc(row[1], row[2]):
            problem = f"its snapshot (version {row[0]}) is damaged: checksum (refolded at start)"
            return TableReport(table_id, good, health.recorded, problem)
    return TableReport(table_id, good, health.recorded, problem)


def check(data_dir: Path) -> Checked:
    """What is damaged in the journal of ``data_dir``: read-only, safe while a server runs."""
    path = data_dir / FILE_NAME
    conn = connect_readonly(data_dir)
    try:
        checked = Checked(path, quick_check(conn))
        version = schema_version(conn, path)
        for health in table_health(conn, recorded_column=version >= 2):
            checked.tables.append(_report(conn, health))
    except sqlite3.DatabaseError as exc:
        checked.sqlite_problems.append(f"the file cannot be read through: {exc}")
    finally:
        conn.close()
    return checked


def _fresh_journal(to: Path) -> Path:
    """A new, empty journal in ``to`` (refused if one is there already)."""
    if (to / FILE_NAME).exists():
        raise JournalCorrupt(f"{to / FILE_NAME} exists already: give a new directory")
    to.mkdir(parents=True, exist_ok=True)
    asyncio.run(SqliteJournal(to).close())  # created, with the schema of this build
    return to / FILE_NAME


def _copy_archive(data_dir: Path, to: Path) -> int:
    """Copy the archive's files (closed tables' events), as they are; how many."""
    source = data_dir / ARCHIVE
    if not source.is_dir():
        return 0
    (to / ARCHIVE).mkdir(exist_ok=True)
    copied = 0
    for path in sorted(source.iterdir()):
        if path.is_file():
            shutil.copy2(path, to / ARCHIVE / path.name)
            copied += 1
    return copied


def salvage(data_dir: Path, to: Path) -> Checked:
    """Copy to the new data directory ``to`` every table whose events are whole, each other
    table up to its last good version (dropped if it has none), and the archive; the check
    of ``data_dir`` it went by, which names what was cut short or dropped."""
    checked = check(data_dir)
    target = _fresh_journal(to)
    source = connect_readonly(data_dir)
    out = sqlite3.connect(target, isolation_level=None)
    try:
        out.execute("BEGIN IMMEDIATE")
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
    if path.exists():
        raise JournalCorrupt(f"{path} exists already: give a new directory")
    to.mkdir(parents=True, exist_ok=True)
    source = connect_readonly(data_dir)
    copy = sqlite3.connect(path, isolation_level=None)
    try:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode = WAL")
        health = check_whole(copy, path)
    except BaseException:
        copy.close()
        path.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    copy.close()
    archived = _copy_archive(data_dir, to)
    return BackedUp(path, len(health), sum(h.events for h in health), archived)
