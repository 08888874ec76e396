"""What ``pricing journal export`` and ``pricing journal replay`` do, without the printing.

``export_records`` reads a table's records from a data directory: the live journal first (a
read-only connection, so it works while a server writes), else the newest archive file of that
table; ``table_ids`` lists every table either holds. ``replay_lines`` folds JSON Lines of
export's format through the engines, one table.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pricing.errors import InvalidInput
from pricing.journal import JournalCorrupt, Record
from pricing.journal.codec import record_from_json
from pricing.journal.sqlite import connect_readonly, read_records
from pricing.store import apply_record, fold_records
from pricing.tables import Snapshot, Table

__all__ = ["Replayed", "export_records", "read_lines", "replay_lines", "table_ids"]


#: An archive file's name: the table id, the time of its last event, ``.jsonl.gz``.
_ARCHIVE_NAME = re.compile(r"(?P<table_id>.+)\.\d{8}T\d{6}Z\.jsonl\.gz")


def _archived(data_dir: Path, table_id: str) -> list[Path]:
    return sorted((data_dir / "archive").glob(f"{table_id}.*.jsonl.gz"))


def table_ids(data_dir: Path) -> list[str]:
    """Every table with records in ``data_dir``: in its journal or its archive, sorted."""
    conn = connect_readonly(data_dir)
    try:
        ids = {row[0] for row in conn.execute("SELECT table_id FROM tables")}
    finally:
        conn.close()
    for path in (data_dir / "archive").glob("*.jsonl.gz"):
        name = _ARCHIVE_NAME.fullmatch(path.name)
        if name is not None:
            ids.add(name["table_id"])
    return sorted(ids)


def export_records(data_dir: Path, table_id: str) -> list[Record]:
    """Every record of ``table_id`` in ``data_dir``; ``LookupError`` if it has none."""
    conn = connect_readonly(data_dir)
    try:
        records = read_records(conn, table_id)
    finally:
        conn.close()
    if records:
        return records
    archives = _archived(data_dir, table_id)
    if archives:
        return [record_from_json(json.loads(line)) for line in read_lines(archives[-1])]
    raise LookupError(f"no table {table_id!r} in the journal of {data_dir} or its archive")


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
