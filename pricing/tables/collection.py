"""All the live tables of one server, by id."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pricing.errors import LimitExceeded
from pricing.tables.errors import TableExists, TableHeldAside, TableNotFound
from pricing.tables.events import FeedEvent, TableConfig
from pricing.tables.games import adapter_for, config_difference
from pricing.tables.history import Snapshot
from pricing.tables.table import Table

__all__ = ["Tables"]


class Tables:
    """The live tables by id, at most ``max_tables`` of them (None: no limit). A request's id
    is checked where it comes in (``pricing.text.check_table_id``), and a ``Table`` checks its
    own when it is made; looking a table up checks nothing again (an id that is not one is
    simply not found), so a card costs one check.

    A table whose journal a newer build of the service wrote is held aside (``hold_aside``):
    not among the tables, yet not unknown either. Looking it up or opening it again raises
    ``TableHeldAside``, so no table is made over it."""

    def __init__(
        self, *, keep_journal: bool = False, max_tables: int | None = None, **limits: int
    ) -> None:
        self._tables: dict[str, Table] = {}
        self._held: dict[str, str] = {}  # table id -> why it is held aside
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
            self.refuse_held(table_id)
            raise TableNotFound(f"no table {table_id!r}", table_id=table_id)
        return table

    @property
    def held_aside(self) -> Mapping[str, str]:
        """The tables held aside, by id, each with why."""
        return self._held

    def hold_aside(self, table_id: str, why: str) -> bool:
        """Hold ``table_id`` aside (out of the tables, if it was one): a newer build wrote
        what ``why`` says, which this one cannot read. Whether it was not held aside yet."""
        self._tables.pop(table_id, None)
        new = table_id not in self._held
        self._held[table_id] = why
        return new

    def release(self, table_id: str) -> None:
        """``table_id`` is held aside no more (its journal was purged, and it opened again)."""
        self._held.pop(table_id, None)

    def refuse_held(self, table_id: str) -> None:
        """``TableHeldAside`` if ``table_id`` is held aside."""
        why = self._held.get(table_id)
        if why is not None:
            raise TableHeldAside(
                f"table {table_id!r} was written by a newer build of the service and is held "
                f"aside until this replica is upgraded ({why})",
                table_id=table_id,
                why=why,
            )

    def open(self, table_id: str, config: TableConfig) -> Snapshot:
        """Open a table; the same id and config again returns it as it is now."""
        return self.open_table(table_id, config)[0]

    def check_room(self) -> None:
        """``LimitExceeded`` if another table would be more than ``max_tables``."""
        if self.max_tables is not None and len(self._tables) >= self.max_tables:
            raise LimitExceeded("max-tables", self.max_tables, "no room for another table")

    def open_table(self, table_id: str, config: TableConfig) -> tuple[Snapshot, bool]:
        self.refuse_held(table_id)
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
