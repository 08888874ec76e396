"""All the live tables of one server, by id."""

from __future__ import annotations

from collections.abc import Iterator

from pricing.errors import LimitExceeded
from pricing.tables.errors import TableExists, TableNotFound
from pricing.tables.events import FeedEvent, TableConfig
from pricing.tables.games import adapter_for, config_difference
from pricing.tables.history import Snapshot
from pricing.tables.table import Table

__all__ = ["Tables"]


class Tables:
    """The live tables by id, at most ``max_tables`` of them (None: no limit). A request's id
    is checked where it comes in (``pricing.text.check_table_id``), and a ``Table`` checks its
    own when it is made; looking a table up checks nothing again (an id that is not one is
    simply not found), so a card costs one check."""

    def __init__(
        self, *, keep_journal: bool = False, max_tables: int | None = None, **limits: int
    ) -> None:
        self._tables: dict[str, Table] = {}
        self._keep_journal = keep_journal
        self.max_tables = max_tables
        self._limits = limits

    def __len__(self) -> int:
        return len(self._tables)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables

    def put(self, table: Table) -> None:
        """Add (or replace) a table built elsewhere: recovered from a journal."""
        self._tables[table.table_id] = table

    def remove(self, table_id: str) -> None:
        del self._tables[table_id]

    def __iter__(self) -> Iterator[Table]:
        return iter(list(self._tables.values()))

    def get(self, table_id: str) -> Table:
        table = self._tables.get(table_id)
        if table is None:
            raise TableNotFound(f"no table {table_id!r}", table_id=table_id)
        return table

    def open(self, table_id: str, config: TableConfig) -> Snapshot:
        """Open a table; the same id and config again returns it as it is now."""
        return self.open_table(table_id, config)[0]

    def check_room(self) -> None:
        """``LimitExceeded`` if another table would be more than ``max_tables``."""
        if self.max_tables is not None and len(self._tables) >= self.max_tables:
            raise LimitExceeded("max-tables", self.max_tables, "no room for another table")

    def open_table(self, table_id: str, config: TableConfig) -> tuple[Snapshot, bool]:
        existing = self._tables.get(table_id)
        if existing is not None:
            wanted = adapter_for(config.game).configure(config)
            if wanted != existing.config:
                raise TableExists(
                    f"table {table_id!r} already exists with another configuration: "
                    f"{config_difference(existing.config, wanted)}",
                    table_id=table_id,
                )
            return existing.snapshot, False
        self.check_room()
        table = Table(table_id, config, keep_journal=self._keep_journal, **self._limits)
        self._tables[table_id] = table
        return table.snapshot, True

    def apply(self, table_id: str, seq: int, event: FeedEvent) -> Snapshot:
        return self.get(table_id).apply(seq, event)[0]
