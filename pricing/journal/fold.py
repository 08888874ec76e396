"""Journaled records folded into tables: ``pricing.tables.fold`` over a journal's records, its
errors as the journal's (``JournalCorrupt``: the records do not make a table)."""

from __future__ import annotations

from collections.abc import Sequence

from pricing.journal import JournalCorrupt, Record
from pricing.tables.fold import FoldError, fold, fold_entry
from pricing.tables.table import Table, TableImage

__all__ = ["apply_record", "fold_records"]


def fold_records(table_id: str, image: TableImage | None, records: Sequence[Record]) -> Table:
    """The table an image and the records after it (or, without an image, its whole journal
    from ``OpenTable``) fold to. ``JournalCorrupt`` if they do not follow on from each other."""
    todo = list(records)
    opening = [todo.pop(0).entry] if image is None and todo else []
    try:
        table = fold(table_id, image, opening)
    except FoldError as exc:
        raise JournalCorrupt(str(exc)) from exc
    for record in todo:
        apply_record(table, record)
    return table


def apply_record(table: Table, record: Record) -> None:
    """Fold one journaled record into ``table``: ``JournalCorrupt`` if it is not the next
    version of that table, or if the engines refuse what they once accepted."""
    if record.table_id != table.table_id:
        raise JournalCorrupt(
            f"table {table.table_id!r}: journaled version {record.entry.version} of table "
            f"{record.table_id!r} does not follow version {table.snapshot.version}"
        )
    try:
        fold_entry(table, record.entry)
    except FoldError as exc:
        raise JournalCorrupt(str(exc)) from exc
