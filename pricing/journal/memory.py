"""``MemoryJournal``: keeps nothing (``--data-dir :memory:``), for tests and demos. The tables
in memory are all there is; a restart starts empty."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pricing.journal import Durable, Journal, Record, TableLog
from pricing.tables import TableImage

__all__ = ["MemoryJournal"]


class MemoryJournal(Journal):
    location = ":memory:"

    def load(self) -> Iterator[TableLog]:
        return iter(())

    async def append(self, record: Record, image: TableImage | None = None) -> None:
        return None

    def submit(self, record: Record, image: TableImage | None = None) -> Durable:
        return Durable.done_with(None)  # nothing to wait for

    async def save_images(self, images: Sequence[tuple[TableImage, float]]) -> None:
        return None

    async def events(self, table_id: str) -> list[Record]:
        return []

    async def forget(self, table_id: str) -> None:
        return None

    async def close(self) -> None:
        return None
