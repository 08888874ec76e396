"""What ``pricing journal export`` and ``pricing journal replay`` do, without the printing.

``export_records`` reads a table's records from a data directory: the live journal first (a
read-only connection, so it works while a server writes), else the newest archive file of that
table; ``table_ids`` lists every table either holds. ``replay_lines`` folds JSON Lines of
export's format through the engines, one table.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pricing.errors import InvalidInput
from pricing.journal import MEMORY, JournalCorrupt, Record
from pricing.journal.codec import archive_table_id, is_archive_of, record_from_json
from pricing.journal.fold import apply_record, fold_records
from pricing.journal.integrity import WAY_OUT, snapshot, table_health
from pricing.journal.sqlite import FILE_NAME, connect_readonly, read_records
from pricing.tables import Snapshot, Table

__all__ = ["Replayed", "export_records", "read_lines", "replay_lines", "table_ids"]


#: An archive file's name: the table id, the time of its last event, ``.jsonl.gz``.


def _archived(data_dir: Path, table_id: str) -> list[Path]:
    """``table_id``'s archive files, oldest first (the names end in the closing time)."""
    folder = data_dir / "archive"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if is_archive_of(p.name, table_id))


def table_ids(data_dir: Path) -> list[str]:
    """Every table with records in ``data_dir``: in its journal or its archive, sorted."""
    if str(data_dir) == MEMORY:
        raise LookupError(f"--data-dir {MEMORY} keeps nothing: there is no journal to read")
    conn = connect_readonly(data_dir)
    try:
        ids = {row[0] for row in conn.execute("SELECT table_id FROM tables")}
    finally:
        conn.close()
    folder = data_dir / "archive"
    for path in folder.iterdir() if folder.is_dir() else ():
        table_id = archive_table_id(path.name)
        if table_id is not None:
            ids.add(table_id)
    return sorted(ids)


def export_records(data_dir: Path, table_id: str) -> list[Record]:
    """Every record of ``table_id`` in ``data_dir``; ``LookupError`` if it has none."""
    if str(data_dir) == MEMORY:
        raise LookupError(f"--data-dir {MEMORY} keeps nothing: there is no journal to export")
    conn = connect_readonly(data_dir)
    try:
        with snapshot(conn):
            records = _whole_records(conn, data_dir, table_id)
    finally:
        conn.close()
    if records:
        return records
    archives = _archived(data_dir, table_id)
    if archives:
        records = [record_from_json(json.loads(line)) for line in read_lines(archives[-1])]
        strays = {r.table_id for r in records} - {table_id}
        if strays:
            raise JournalCorrupt(f"{archives[-1]} holds records of {sorted(strays)}")
        return records
    raise LookupError(f"no table {table_id!r} in the journal of {data_dir} or its archive")


def _whole_records(conn: sqlite3.Connection, data_dir: Path, table_id: str) -> list[Record]:
    """``table_id``'s records in the live journal; ``JournalCorrupt`` if they are not whole."""
    for health in table_health(conn, table_id):
        if not health.whole:  # never exported as if whole
            raise JournalCorrupt(
                f"table {table_id!r} in {data_dir / FILE_NAME} is damaged: "
                f"{health.problem()}. {WAY_OUT}"
            )
    return read_records(conn, table_id)


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
