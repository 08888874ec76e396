"""One lock per table id for the table store (``pricing.server.store``): made when a write of
the table first wants it, gone once no one holds it or waits for it, so an idle table keeps
none, however many tables a server has seen."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

__all__ = ["TableLock", "locked"]


class TableLock:
    """A table's lock, and how many coroutines hold it or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


@contextlib.asynccontextmanager
async def locked(locks: dict[str, TableLock], table_id: str) -> AsyncIterator[None]:
    """Hold ``table_id``'s lock: the one in ``locks`` once acquired (a retention sweep may
    have dropped the lock this coroutine was waiting on). The lock leaves ``locks`` when no
    one holds it or waits for it.

    >>> locks: dict[str, TableLock] = {}
    >>> async def write() -> bool:
    ...     async with locked(locks, "t"):
    ...         return "t" in locks
    >>> asyncio.run(write()), locks
    (True, {})
    """
    while True:
        held = locks.get(table_id)
        if held is None:
            held = locks[table_id] = TableLock()
        held.users += 1
        try:
            await held.lock.acquire()
        except BaseException:  # cancelled while waiting
            _unlocked(locks, table_id, held)
            raise
        if locks.get(table_id) is held:
            break
        held.lock.release()
        _unlocked(locks, table_id, held)
    try:
        yield
    finally:
        held.lock.release()
        _unlocked(locks, table_id, held)


def _unlocked(locks: dict[str, TableLock], table_id: str, held: TableLock) -> None:
    """One user of ``held`` is done with it (released it, or gave up waiting)."""
    held.users -= 1
    if held.users == 0 and locks.get(table_id) is held:
        del locks[table_id]
