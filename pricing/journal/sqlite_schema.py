"""The SQLite journal's file: its schema (created, upgraded from version 1, refused if newer or
not a journal), connections to it, the checks that it is whole, the statements that write its
rows, and reading its records. The journal (``pricing.journal.sqlite``), export and the
maintenance tools all open the file through these.
"""

from __future__ import annotations

import functools
import itertools
import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pricing.journal import JournalCorrupt, JournalNewer, Record
from pricing.journal.codec import decode_event, format_is_current
from pricing.journal.integrity import (
    WAY_OUT,
    TableHealth,
    describe,
    quick_check,
    table_health,
)
from pricing.tables import JournalEntry

__all__ = [
    "APPLICATION_ID",
    "CACHED_STATEMENTS",
    "FILE_NAME",
    "ROWS_PER_STATEMENT",
    "RUNNING_MARK",
    "SCHEMA_VERSION",
    "QuickCheckFailed",
    "check_sqlite",
    "check_tables",
    "check_whole",
    "connect_readonly",
    "create_schema",
    "newer_build",
    "read_records",
    "record_from_row",
    "upgrade_schema",
]

log = logging.getLogger("pricing.journal")

FILE_NAME: Final = "journal.sqlite3"
#: Beside the journal while a server that has committed to it runs (``SqliteJournal``).
RUNNING_MARK: Final = "journal.running"
#: ``PRAGMA user_version`` of the file; a file of a newer version is refused, one of version 1
#: is upgraded when a server opens it (2 adds each table's last version and each image's CRC).
SCHEMA_VERSION: Final = 2
#: ``PRAGMA application_id``: "PRCJ", so no other program's database is taken for a journal.
APPLICATION_ID: Final = 0x5052434A
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

#: ``tables.last_version`` is each table's newest journaled version, kept by a trigger in the
#: same statement as the events (no extra round trip): a second record, in another B-tree, of
#: what the events must account for, so events lost to damage are found at start-up.
#: ``images.crc`` (CRC-32 of format and body) tells a damaged snapshot from one of an older
#: layout.
_LAST_VERSION_TRIGGER: Final = """
CREATE TRIGGER events_last_version AFTER INSERT ON events BEGIN
    UPDATE tables SET last_version = NEW.version
    WHERE table_id = NEW.table_id AND last_version < NEW.version;
END;
"""
_SCHEMA: Final = (
    """
CREATE TABLE tables (
    table_id     TEXT    NOT NULL PRIMARY KEY,
    last_version INTEGER NOT NULL DEFAULT 0
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
    body        BLOB    NOT NULL,
    crc         INTEGER
) WITHOUT ROWID;
"""
    + _LAST_VERSION_TRIGGER
)
#: Version 1 to 2, in one transaction: the columns, each table's last version from its events
#: as they are (the check then holds them to that), the trigger. Images of version 1 have no
#: CRC (NULL): a damaged one is found only if it does not decode.
_UPGRADE_FROM_1: Final = (
    """
ALTER TABLE tables ADD COLUMN last_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE images ADD COLUMN crc INTEGER;
UPDATE tables SET last_version = coalesce(
    (SELECT max(version) FROM events WHERE events.table_id = tables.table_id), 0);
"""
    + _LAST_VERSION_TRIGGER
)


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


def check_whole(conn: sqlite3.Connection, path: Path) -> list[TableHealth]:
    """Every table's health, once SQLite's quick check and every table's events are found
    whole; else ``JournalCorrupt`` naming the file, the tables and what failed."""
    check_sqlite(conn, path)
    return check_tables(conn, path)


class QuickCheckFailed(JournalCorrupt):
    """SQLite's quick_check finds the file damaged: any other read of it that fails says no
    more than this does."""


def check_sqlite(conn: sqlite3.Connection, path: Path) -> None:
    """``QuickCheckFailed`` if SQLite's quick_check finds the file damaged."""
    problems = quick_check(conn)
    if problems:
        shown = "; ".join(problems[:3]) + (
            f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
        )
        raise QuickCheckFailed(f"{path} fails SQLite's quick_check: {shown}. {WAY_OUT}")


def check_tables(conn: sqlite3.Connection, path: Path) -> list[TableHealth]:
    """Every table's health; ``JournalCorrupt`` naming each table whose events do not account
    for every version it recorded."""
    _check_schema(conn, path)
    health = table_health(conn)
    damaged = [(h.table_id, h.problem()) for h in health if not h.whole]
    if damaged:
        raise JournalCorrupt(f"{path} is damaged: {describe(damaged)}. {WAY_OUT}")
    return health


def _format_is_current(fmt: str) -> bool | None:
    """Whether an image of format ``fmt`` is of this build's classes; None if ``fmt`` is not
    even a format (damage, which a CRC, if the row has one, would have found)."""
    try:
        return format_is_current(fmt)
    except ValueError:
        return None


def create_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Lay out a new, empty file as a journal of ``SCHEMA_VERSION``, in one transaction."""
    try:
        conn.executescript(
            f"BEGIN IMMEDIATE; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; "
            f"PRAGMA application_id = {APPLICATION_ID}; COMMIT;"
        )
    except sqlite3.Error as exc:
        raise JournalCorrupt(f"cannot create the journal {path}: {exc}") from exc


def upgrade_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Upgrade a journal of version 1 to ``SCHEMA_VERSION``, in one transaction: on failure
    it is rolled back and the file left as it was."""
    try:
        conn.executescript(
            f"BEGIN IMMEDIATE; {_UPGRADE_FROM_1} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        )
    except sqlite3.Error as exc:
        rollback(conn)
        raise JournalCorrupt(f"cannot upgrade the journal {path}: {exc}") from exc
    log.info("journal %s upgraded to schema version %d", path, SCHEMA_VERSION)


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back ``conn``'s open transaction, if it has one; a failure is only logged (the
    next write undoes what is left first)."""
    try:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        log.debug("journal: rollback failed", exc_info=True)


@dataclass(slots=True)
class _Rows:
    """One write, as rows of the journal's tables."""

    events: list[tuple[str, int, int, float, str, bytes]]
    images: list[tuple[str, int, float, str, bytes, int]]
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
            ("tables (table_id)", opened, 1, ""),  # its last version: the trigger's
            ("events", self.events, 6, ""),
            ("images", self.images, 6, _NEWER_IMAGE),
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
    "accepted_at = excluded.accepted_at, format = excluded.format, body = excluded.body, "
    "crc = excluded.crc WHERE excluded.version >= images.version"
)


@functools.cache
def _insert(table: str, width: int, rows: int, then: str) -> str:
    """``INSERT INTO table VALUES (?, ...), ...`` for ``rows`` rows of ``width`` columns.

    >>> _insert("tables", 1, 2, "")
    'INSERT INTO tables VALUES (?), (?)'
    """
    row = "(" + ", ".join("?" * width) + ")"
    return f"INSERT INTO {table} VALUES {', '.join([row] * rows)}{then}"


def record_from_row(table_id: str, row: tuple[int, int, float, str, bytes]) -> Record:
    """A record from its row (version, seq, accepted_at, kind, body); ``JournalCorrupt`` if
    its event does not decode."""
    version, seq, at, kind, body = row
    return Record(table_id, JournalEntry(seq, version, decode_event(kind, body)), at)


def read_records(conn: sqlite3.Connection, table_id: str, after: int = 0) -> list[Record]:
    """``table_id``'s records after version ``after``, in order."""
    rows = conn.execute(
        "SELECT version, seq, accepted_at, kind, body FROM events "
        "WHERE table_id = ? AND version > ? ORDER BY version",
        (table_id, after),
    ).fetchall()
    return [record_from_row(table_id, row) for row in rows]


def newer_build(conn: sqlite3.Connection, table_id: str) -> str:
    """Why a newer build of the service wrote ``table_id``'s journal, as this build cannot
    read it ('' if it can read every record): its first record that names what this build
    does not have (``JournalNewer``). Every record is read: ``JournalCorrupt`` if one is
    damaged, for a table is held aside only whole."""
    why = ""
    for row in conn.execute(
        "SELECT version, seq, accepted_at, kind, body FROM events WHERE table_id = ? "
        "ORDER BY version",
        (table_id,),
    ):
        try:
            record_from_row(table_id, row)
        except JournalNewer as exc:
            why = why or str(exc)
    return why
