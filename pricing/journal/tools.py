"""What ``pricing journal export`` and ``pricing journal replay`` do, without the printing.

``export_records`` reads a table's records from a data directory: the live journal first (a
read-only connection, so it works while a server writes), else the newest archive file of that
table; ``export_tables`` reads several, or every table either holds. A journal file that fails
SQLite's quick_check is refused, whichever table is asked for. A table a newer build of the
service wrote is not exported: this build cannot read its records (``JournalNewer``, naming
why, when it is asked for; left out of every table). ``replay_lines`` folds JSON
Lines of export's format through the engines, one table.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pricing.errors import InvalidInput
from pricing.journal import MEMORY, JournalCorrupt, JournalNewer, Record
from pricing.journal.codec import archive_table_id, is_archive_of, record_from_json
from pricing.journal.fold import apply_record, fold_records
from pricing.journal.integrity import WAY_OUT, snapshot, table_health
from pricing.journal.sqlite_schema import (
    FILE_NAME,
    check_sqlite,
    connect_readonly,
    newer_build,
    read_records,
)
from pricing.tables import Snapshot, Table

__all__ = ["Replayed", "export_records", "export_tables", "read_lines", "replay_lines"]


#: An archive file's name: the table id, the time of its last event, ``.jsonl.gz``.


def _archived(data_dir: Path, table_id: str) -> list[Path]:
    """``table_id``'s archive files, oldest first (the names end in the closing time)."""
    folder = data_dir / "archive"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if is_archive_of(p.name, table_id))


@contextlib.contextmanager
def _sound_journal(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """The journal of ``data_dir`` read-only, as of one moment, once SQLite's quick_check
    found the file sound: nothing read from a damaged file can be vouched for, whatever the
    table. ``JournalCorrupt`` naming the file otherwise, or if a read of it fails."""
    path = data_dir / FILE_NAME
    conn = connect_readonly(data_dir)
    try:
        with snapshot(conn):
            check_sqlite(conn, path)
            yield conn
    except sqlite3.DatabaseError as exc:
        raise JournalCorrupt(f"{path} cannot be read: {exc}. {WAY_OUT}") from exc
    finally:
        conn.close()


def export_tables(
    data_dir: Path, table_ids: Sequence[str] | None = None
) -> Iterator[tuple[str, list[Record]]]:
    """Each of ``table_ids`` (default: every table ``data_dir`` holds, in its journal or its
    archive, by id, but those a newer build wrote) with every record of it: from the live
    journal, else from the newest archive file of the table. The journal is checked once for
    them all; ``LookupError`` for a table it and the archive lack, ``JournalNewer`` for one
    asked for that a newer build wrote."""
    if str(data_dir) == MEMORY:
        raise LookupError(f"--data-dir {MEMORY} keeps nothing: there is no journal to read")
    with _sound_journal(data_dir) as conn:
        every = table_ids is None
        if table_ids is None:
            listed = {row[0] for row in conn.execute("SELECT table_id FROM tables")}
            table_ids = sorted(listed | _archived_ids(data_dir))
        for table_id in table_ids:
            try:
                records = _whole_records(conn, data_dir, table_id)
            except JournalNewer:
                if every:
                    continue
                raise
            yield table_id, records or _archived_records(data_dir, table_id)


def export_records(data_dir: Path, table_id: str) -> list[Record]:
    """Every record of ``table_id`` in ``data_dir`` (``export_tables``)."""
    [(_, records)] = export_tables(data_dir, [table_id])
    return records


def _archived_ids(data_dir: Path) -> set[str]:
    folder = data_dir / "archive"
    names = (archive_table_id(path.name) for path in folder.iterdir()) if folder.is_dir() else ()
    return {table_id for table_id in names if table_id is not None}


def _archived_records(data_dir: Path, table_id: str) -> list[Record]:
    """``table_id``'s records in its newest archive file; ``LookupError`` if it has none."""
    archives = _archived(data_dir, table_id)
    if not archives:
        raise LookupError(f"no table {table_id!r} in the journal of {data_dir} or its archive")
    records = [record_from_json(json.loads(line)) for line in read_lines(archives[-1])]
    strays = {r.table_id for r in records} - {table_id}
    if strays:
        raise JournalCorrupt(f"{archives[-1]} holds records of {sorted(strays)}")
    return records


def _whole_records(conn: sqlite3.Connection, data_dir: Path, table_id: str) -> list[Record]:
    """``table_id``'s records in the live journal; ``JournalCorrupt`` if they are not whole,
    ``JournalNewer`` if a newer build wrote them."""
    for health in table_health(conn, table_id):
        if not health.whole:  # never exported as if whole
            raise JournalCorrupt(
                f"table {table_id!r} in {data_dir / FILE_NAME} is damaged: "
                f"{health.problem()}. {WAY_OUT}"
            )
    try:
        return read_records(conn, table_id)
    except JournalNewer:
        why = newer_build(conn, table_id)  # JournalCorrupt if any of its records is damaged
        raise JournalNewer(
            f"table {table_id!r} in {data_dir / FILE_NAME} was written by a newer build of "
            f"the service ({why}): this build cannot read its events; export or analyze it "
            "with a build as new"
        ) from None


def read_lines(path: Path) -> Iterator[str]:
    """The non-blank lines of a JSON Lines file, gzip-compressed or not."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield line


@dataclass(frozen=True, slots=True)
class Replayed:
    """A snapshot the replay reached, with the record that led to it."""

    record: Record
    snapshot: Snapshot


def replay_lines(lines: Iterable[str]) -> Iterator[Replayed]:
    """Fold JSON Lines of ``pricing journal export`` (one table), yielding the state after
    each record. ``InvalidInput`` names the line that is not a record or does not follow on."""
    table: Table | None = None
    for number, line in enumerate(lines, start=1):
        try:
            record = record_from_json(json.loads(line))
            if table is None:
                table = fold_records(record.table_id, None, [record])
            else:
                apply_record(table, record)
        except (InvalidInput, JournalCorrupt, json.JSONDecodeError) as exc:
            raise InvalidInput(f"line {number}: {exc}") from None
        yield Replayed(record, table.snapshot)
    if table is None:
        raise InvalidInput("no records to replay")
