"""Fan-out: every version of a table reaches each of its watchers, newest first.

A table's ``Hub`` holds its latest state, serialised once, and a ``Slot`` per WatchTable
stream. Publishing a version puts it in every slot, replacing a version the watcher has not
sent yet (a slow watcher gets the newest state, never a backlog). Waiting watchers are woken
by a ``Waker`` a batch per event-loop turn rather than all at once: thousands of woken
streams would otherwise fill the loop's queue, and the dealer feed's next event, behind
them, would wait for every one of their sends (docs/rules.md §5: what a watcher receives).

>>> import asyncio
>>> async def demo() -> list[int]:
...     waker = Waker()
...     hub = Hub(Published(1, b"v1", final=False), waker)
...     slot = hub.subscribe(from_version=0)
...     got = [(await slot.take()).version]        # the state it subscribed to
...     hub.publish(Published(2, b"v2", final=False))
...     hub.publish(Published(3, b"v3", final=False))  # 2 unread: replaced
...     got.append((await slot.take()).version)
...     return got
>>> asyncio.run(demo())
[1, 3]
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["WAKE_BATCH", "Hub", "Published", "Slot", "Waker"]

#: Watchers woken per event-loop turn. Each woken watcher's step sends one message (some tens
#: of microseconds), so a turn stays around a millisecond and a feed event arriving meanwhile
#: waits for about that, not for the whole fan-out.
WAKE_BATCH: Final = 32


@dataclass(frozen=True, slots=True)
class Published:
    """One version of a table, serialised once."""

    version: int
    payload: bytes
    final: bool  # the table closed with this version: the streams end after it


class Slot:
    """One watcher's mailbox: the newest state it has not been sent yet, or nothing.

    The watcher waits on a bare future made only when the slot is empty, not on an
    ``asyncio.Event`` (a deque and a future per wait), since a table may have thousands of
    watchers, each woken at every version. A waiting slot is always empty: its watcher took
    everything before it waited."""

    __slots__ = ("_waiter", "ended", "from_version", "pending")

    def __init__(self, from_version: int) -> None:
        self.from_version = from_version
        self.pending: Published | None = None
        self.ended = False
        self._waiter: asyncio.Future[None] | None = None

    @property
    def waiting(self) -> bool:
        """The watcher waits for a state and must be woken to send it."""
        return self._waiter is not None

    def put(self, published: Published) -> bool:
        """Leave ``published`` for the watcher (without waking it: ``Waker``); True if it
        replaced a state the watcher had not read.

        A state older than ``from_version`` is skipped, except a final one: nothing will ever
        follow it, so the watcher gets it and its stream ends (docs/rules.md §5: closing a table
        ends every stream on it with OK, whatever version the watcher asked to start from)."""
        if published.version < self.from_version and not published.final:
            return False
        conflated = self.pending is not None
        self.pending = published
        return conflated

    def end(self) -> None:
        """The stream must end (the server is shutting down), once the slot is empty."""
        self.ended = True
        self.wake()

    def wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # done: the watcher's task was cancelled while it waited
                waiter.set_result(None)

    async def take(self) -> Published | None:
        """The next state to send; None once the stream must end (server shutting down),
        after the state already in the slot has been taken."""
        while self.pending is None:
            if self.ended:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        published, self.pending = self.pending, None
        return published


class Waker:
    """Wakes the watchers given to it, ``batch`` per event-loop turn, in the order given.

    Between two batches the loop runs whatever else is ready (a feed event, a read), so no
    call waits for more than a batch of sends. A slot woken late just sends whatever is newest
    in it by then."""

    __slots__ = ("_batch", "_due", "_scheduled")

    def __init__(self, batch: int = WAKE_BATCH) -> None:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, not {batch}")
        self._batch = batch
        self._due: deque[Slot] = deque()
        self._scheduled = False

    def __len__(self) -> int:
        """Watchers still to wake."""
        return len(self._due)

    def wake(self, slots: Iterable[Slot]) -> None:
        self._due.extend(slots)
        if self._due and not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._turn)

    def _turn(self) -> None:
        due = self._due
        for _ in range(min(self._batch, len(due))):
            due.popleft().wake()
        if due:
            asyncio.get_running_loop().call_soon(self._turn)
        else:
            self._scheduled = False


class Hub:
    """A table's watchers and its latest published state."""

    __slots__ = ("_waker", "latest", "slots")

    def __init__(self, latest: Published, waker: Waker) -> None:
        self.latest = latest
        self.slots: set[Slot] = set()
        self._waker = waker

    def subscribe(self, from_version: int) -> Slot:
        slot = Slot(from_version)
        slot.put(self.latest)  # not waiting yet: its first take finds it
        if not self.latest.final:  # closed: the slot holds the final state, nothing follows
            self.slots.add(slot)
        return slot

    def publish(self, published: Published) -> int:
        """Give every watcher the new state; the number of unread states it replaced. A final
        state is put in every slot whatever its ``from_version`` (``Slot.put``), so each
        watcher dropped here sends it and ends."""
        self.latest = published
        conflated = 0
        due = []
        for slot in self.slots:
            if slot.put(published):
                conflated += 1  # woken already, or busy sending: it finds the new state
            elif slot.waiting and slot.pending is not None:
                due.append(slot)
        if published.final:
            self.slots.clear()
        self._waker.wake(due)
        return conflated
