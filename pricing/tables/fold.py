"""The one fold of a journal: the table a list of entries (or an image and the entries after
it) makes. The store's recovery, the journal tools, the live analysis and the tests all fold
with it, so they agree by construction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pricing.errors import InvalidInput
from pricing.tables.events import JournalEntry, OpenTable
from pricing.tables.table import Table, TableImage

__all__ = ["FoldError", "fold", "fold_entry", "replay"]


class FoldError(InvalidInput):
    """Entries that do not fold into one table: the first is not its ``OpenTable``, one does not
    follow the version before it, or the game refuses an event it once accepted."""


def fold(
    table_id: str,
    image: TableImage | None,
    entries: Iterable[JournalEntry],
    *,
    keep_journal: bool = False,
    **limits: int,
) -> Table:
    """The table ``image`` and the entries after it fold to; without an image, ``entries`` is
    the whole journal, from its ``OpenTable``."""
    todo = iter(entries)
    if image is None:
        first = next(todo, None)
        if first is None or not isinstance(first.event, OpenTable):
            raise FoldError(f"table {table_id!r}: its journal does not start with OpenTable")
        table = Table(table_id, first.event.config, keep_journal=keep_journal, **limits)
    else:
        table = Table.from_image(image, **limits)
    for entry in todo:
        fold_entry(table, entry)
    return table


def fold_entry(table: Table, entry: JournalEntry) -> None:
    """Fold the next entry into ``table``: ``FoldError`` if it is not the next version, or if
    the game refuses what it once accepted."""
    event = entry.event
    if isinstance(event, OpenTable) or entry.version != table.snapshot.version + 1:
        raise FoldError(
            f"table {table.table_id!r}: journaled version {entry.version} of table "
            f"{table.table_id!r} does not follow version {table.snapshot.version}"
        )
    try:
        _, new = table.apply(entry.seq, event)
    except (ValueError, LookupError) as exc:
        raise FoldError(
            f"table {table.table_id!r}: journaled version {entry.version} (seq {entry.seq}) "
            f"no longer applies: {exc}"
        ) from exc
    if not new:  # a repeat answers, changes nothing: never journaled as a version of its own
        raise FoldError(
            f"table {table.table_id!r}: journaled version {entry.version} repeats seq "
            f"{entry.seq}, applied before"
        )


def replay(journal: Sequence[JournalEntry], *, keep_journal: bool = True, **limits: int) -> Table:
    """A whole journal folded again, keeping the entries it folds (to compare): the same events
    give the same table."""
    opening = journal[0].event if journal else None
    table_id = opening.table_id if isinstance(opening, OpenTable) else ""
    return fold(table_id, None, journal, keep_journal=keep_journal, **limits)
