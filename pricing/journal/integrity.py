"""Whether an SQLite journal is whole: SQLite's own ``PRAGMA quick_check`` of the file, and for
each table, whether its events account for every version it recorded (``tables.last_version``,
kept by a trigger as the events are written). Start-up refuses a journal that fails either
(``pricing.journal.sqlite``); ``pricing journal check`` reports it table by table, and
``salvage`` copies what is whole (``pricing.journal.tools``).

A table is whole when it is listed and its events are versions 1 to its recorded last version,
each once (the primary key makes each version unique, so the count and the newest tell it).
Otherwise its events are good up to ``whole_to``: the last version before the first one
missing. Every read of a journal a server may be writing is one read transaction
(``snapshot``): counted apart, a commit between two reads looks like damage.
"""

from __future__ import annotations

import contextlib
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

__all__ = [
    "WAY_OUT",
    "TableHealth",
    "describe",
    "image_crc",
    "is_damage",
    "quick_check",
    "records_versions",
    "snapshot",
    "table_health",
]

#: Problems named in one message; the rest are counted.
SHOWN: Final = 10
#: What an operator can do about a damaged journal: said with every report of damage.
WAY_OUT: Final = (
    "'pricing journal check --data-dir DIR' reports every table; 'pricing journal salvage "
    "--data-dir DIR --to NEWDIR' copies the tables whose events are whole (and the others up "
    "to their last good version) to start a server from"
)


@dataclass(frozen=True, slots=True)
class TableHealth:
    """One table's events against its recorded last version."""

    table_id: str
    recorded: int  # the newest version the journal recorded for it
    events: int  # its event rows
    newest: int  # the newest version among them (0: none)
    whole_to: int  # versions 1 to this are all there (0: not even the opening)
    listed: bool = True  # it has its row in the journal's list of tables

    @property
    def whole(self) -> bool:
        return self.listed and self.recorded >= 1 and self.events == self.newest == self.recorded

    def problem(self) -> str:
        """What is wrong with it, in a phrase ('' if nothing)."""
        if self.whole:
            return ""
        if not self.listed:
            return f"it has events (to version {self.newest}) but no row in the list of tables"
        if self.whole_to == 0:
            return f"its opening (version 1) is missing; {self.recorded} recorded"
        if self.whole_to < self.recorded:
            missing = "missing" if self.newest <= self.whole_to else "missing, later ones kept"
            return (
                f"its events stop at version {self.whole_to} (version {self.whole_to + 1} "
                f"{missing}); {self.recorded} recorded"
            )
        return f"it has events past its recorded last version {self.recorded} (to {self.newest})"


@contextlib.contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Reads through ``conn`` (autocommit) as one read transaction: the journal as of one
    moment, whatever a server commits meanwhile."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        # Nothing was written: ending the transaction can fail only on a damaged file (SQLite
        # reads it again), which the reads made in it have said, or will say, better.
        with contextlib.suppress(sqlite3.DatabaseError):
            conn.execute("ROLLBACK")


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file is damaged (not busy, locked or unreachable)."""
    return getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))


def quick_check(conn: sqlite3.Connection) -> list[str]:
    """SQLite's ``PRAGMA quick_check``: its messages, one a line, none if the file is sound.
    A file too damaged for the check to finish ("database disk image is malformed") fails
    it with that message."""
    try:
        rows = [str(row[0]) for row in conn.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return [str(exc)]
    if rows == ["ok"]:
        return []
    lines = (line.strip() for row in rows for line in row.splitlines())
    return [line for line in lines if line and not line.startswith("***")]


def records_versions(conn: sqlite3.Connection) -> bool:
    """Whether the journal records each table's last version and each image's CRC (schema 2
    on); before, the newest event stands for the recorded version, so only a gap shows."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0]) >= 2


def table_health(conn: sqlite3.Connection, table_id: str | None = None) -> list[TableHealth]:
    """Every table's health (or only ``table_id``'s), by id."""
    where, args = ("WHERE table_id = ?", (table_id,)) if table_id is not None else ("", ())
    counts = {
        row[0]: (row[1], row[2])
        for row in conn.execute(
            f"SELECT table_id, count(*), max(version) FROM events {where} GROUP BY table_id",
            args,
        )
    }
    column = "last_version" if records_versions(conn) else "0"
    listed = dict(conn.execute(f"SELECT table_id, {column} FROM tables {where}", args))
    out = []
    for table in sorted(listed.keys() | counts.keys(), key=str):  # events unlisted: damage
        count, newest = counts.get(table, (0, 0))
        recorded = int(listed.get(table, 0)) or newest
        whole_to = newest if count == newest else _whole_to(conn, table)
        out.append(TableHealth(table, recorded, count, newest, whole_to, table in listed))
    return out


def _whole_to(conn: sqlite3.Connection, table_id: str) -> int:
    """The last version before the first one missing (read only for a damaged table)."""
    expected = 1
    for (version,) in conn.execute(
        "SELECT version FROM events WHERE table_id = ? ORDER BY version", (table_id,)
    ):
        if version != expected:
            break
        expected += 1
    return expected - 1


def describe(problems: list[tuple[str, str]]) -> str:
    """``(table, what is wrong)`` pairs as one line: the first ``SHOWN``, then a count."""
    shown = "; ".join(f"table {table!r}: {what}" for table, what in problems[:SHOWN])
    more = len(problems) - SHOWN
    return shown + (f"; and {more} more table(s)" if more > 0 else "")


def image_crc(fmt: str, body: bytes) -> int:
    """The CRC-32 an image row is stored with, of its format and its body."""
    return zlib.crc32(body, zlib.crc32(fmt.encode()))
