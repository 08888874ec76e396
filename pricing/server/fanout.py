"""Fan-out: every version of a table reaches each of its watchers, newest first, and every
state that ends a round reaches each of them without fail.

A table's ``Hub`` holds its latest state, serialised once, the last round-ending states (up to
``ROUND_BACKLOG``), and a ``Slot`` per WatchTable stream. Publishing a version puts it in every
slot, replacing a version the watcher has not sent yet: a slow watcher skips prices, never a
backlog of them. A round's result is never skipped: before the newest state a slot sends, in
order, the round-ending states held that it has not sent. A watcher so far behind that one of
those is no longer held is told so (``FellBehind``) instead of silently missing a result.
Waiting watchers are woken by a ``Waker`` a batch per event-loop turn rather than all at once:
thousands of woken streams would otherwise fill the loop's queue, and the dealer feed's next
event, behind them, would wait for every one of their sends (docs/rules.md §5: what a watcher
receives).

>>> import asyncio
>>> async def demo() -> list[int]:
...     waker = Waker()
...     hub = Hub(Published(1, b"v1", final=False), waker)
...     slot = hub.subscribe(from_version=0)
...     got = [(await slot.take()).version]        # the state it subscribed to
...     hub.publish(Published(2, b"v2", final=False, ends_round=True))
...     hub.publish(Published(3, b"v3", final=False))
...     hub.publish(Published(4, b"v4", final=False))  # 3 unread: replaced; 2 ends a round
...     got.append((await slot.take()).version)
...     got.append((await slot.take()).version)
...     return got
>>> asyncio.run(demo())
[1, 2, 4]
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

__all__ = ["ROUND_BACKLOG", "WAKE_BATCH", "FellBehind", "Hub", "Published", "Slot", "Waker"]

#: Watchers woken per event-loop turn. Each woken watcher's step sends one message (some tens
#: of microseconds), so a turn stays around a millisecond and a feed event arriving meanwhile
#: waits for about that, not for the whole fan-out.
WAKE_BATCH: Final = 32

#: Round-ending states a hub holds by default (``--max-round-backlog``): how far a watcher may
#: fall behind, and how far back a ``from_version`` finds every round's result. Hi-Lo deals 10
#: rounds a deck, so this is about six decks; a table that ended no round holds none.
ROUND_BACKLOG: Final = 64


@dataclass(frozen=True, slots=True)
class Published:
    """One version of a table, serialised once."""

    version: int
    payload: bytes
    final: bool  # the table closed with this version: the streams end after it
    ends_round: bool = False  # the event of this version ended a round (``ended_round``)
    #: When it was published (seconds since the epoch): the console's "last change".
    at: float = field(default_factory=time.time, compare=False)


class FellBehind(Exception):
    """A watcher fell so far behind that a round-ending state it was due is no longer held:
    its stream ends, and it may resume with ``from_version`` = ``resume_from``."""

    def __init__(self, resume_from: int, backlog: int) -> None:
        super().__init__(
            f"the watcher fell more than {backlog} round results behind; the results after "
            f"version {resume_from - 1} are no longer all held: resume with from_version "
            f"{resume_from}, and settle the bets of the rounds missed with Settle"
        )
        self.resume_from = resume_from
        self.backlog = backlog


class Slot:
    """One watcher's mailbox: the newest state it has not been sent yet, or nothing; before
    that state, the round-ending states its hub holds that the watcher has not sent.

    The watcher waits on a bare future made only when the slot is empty, not on an
    ``asyncio.Event`` (a deque and a future per wait), since a table may have thousands of
    watchers, each woken at every version. A waiting slot is always empty: its watcher took
    everything before it waited. The round-ending states stay in the hub, shared by all its
    slots: a slot only remembers the last version it sent."""

    __slots__ = ("_floor", "_hub", "_waiter", "ended", "from_version", "pending", "sent")

    def __init__(self, hub: Hub, from_version: int) -> None:
        self._hub = hub
        self.from_version = from_version
        self.pending: Published | None = None
        self.ended = False
        self._waiter: asyncio.Future[None] | None = None
        #: The last version sent, or the version before the first one due: ``from_version``
        #: asks for every round's result from that version on, 0 for the state as it is now.
        self.sent = from_version - 1 if from_version > 0 else hub.latest.version - 1
        #: Round-ending states no longer held when the watcher came: not its loss, whatever
        #: ``from_version`` it asked for.
        self._floor = hub.dropped

    @property
    def waiting(self) -> bool:
        """The watcher waits for a state and must be woken to send it."""
        return self._waiter is not None

    def put(self, published: Published) -> bool:
        """Leave ``published`` for the watcher (without waking it: ``Waker``); True if it
        replaced a state the watcher had not read and will not be sent (a round-ending one
        still will be: its hub holds it).

        A state older than ``from_version`` is skipped, except a final one: nothing will ever
        follow it, so the watcher gets it and its stream ends (docs/rules.md §5: closing a table
        ends every stream on it with OK, whatever version the watcher asked to start from)."""
        if published.version < self.from_version and not published.final:
            return False
        pending = self.pending
        self.pending = published
        return pending is not None and not pending.ends_round

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
        """The next state to send: the oldest round-ending state not sent yet, else the
        newest state. None once the stream must end (server shutting down), after what is
        already due has been taken. ``FellBehind`` if a round-ending state it was due is no
        longer held."""
        while self.pending is None:
            if self.ended:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            await self._waiter
        hub, sent = self._hub, self.sent
        if hub.dropped > sent and hub.dropped > self._floor:
            raise FellBehind(sent + 1, hub.round_backlog)
        rounds = hub.rounds
        if rounds and rounds[-1].version > sent:  # a round ended since: it may be due first
            # The oldest held after ``sent``, searched from the newest end: a watcher that is
            # up to date has at most the pending state there, so it looks at one or two.
            oldest = len(rounds) - 1
            while oldest and rounds[oldest - 1].version > sent:
                oldest -= 1
            held = rounds[oldest]
            if held.version < self.pending.version:
                self.sent = held.version
                return held
        published, self.pending = self.pending, None
        self.sent = published.version
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
    """A table's watchers, its latest published state, and its last round-ending states."""

    __slots__ = ("_waker", "dropped", "horizon", "latest", "round_backlog", "rounds", "slots")

    def __init__(
        self,
        latest: Published,
        waker: Waker,
        round_backlog: int = ROUND_BACKLOG,
        *,
        horizon: int = 1,
    ) -> None:
        if round_backlog < 1:
            raise ValueError(f"round_backlog must be at least 1, not {round_backlog}")
        #: Every round-ending state from this version on has passed through the hub (held,
        #: or dropped past the backlog): 1 for a table it saw open, the version it started at
        #: for one recovered after a restart, until ``backfill`` reaches further back.
        self.horizon = horizon
        self.latest = latest
        self.slots: set[Slot] = set()
        self._waker = waker
        self.round_backlog = round_backlog
        #: The newest round-ending states, oldest first (None until the first: most tables
        #: are idle); ``dropped``, the version of the newest one no longer held (0: none).
        self.rounds: deque[Published] | None = None
        self.dropped = 0
        self._hold(latest)

    def _hold(self, published: Published) -> None:
        if not published.ends_round:
            return
        rounds = self.rounds
        if rounds is None:
            rounds = self.rounds = deque()
        rounds.append(published)
        if len(rounds) > self.round_backlog:
            self.dropped = rounds.popleft().version

    def backfill(self, older: list[Published], horizon: int) -> None:
        """Hold the round-ending states ``older`` (oldest first, all before ``horizon``'s
        current value) from before the hub started; every one from version ``horizon`` on is
        among them. The newest ``round_backlog`` of all held are kept."""
        if horizon >= self.horizon:
            return
        rounds = [p for p in older if p.version < self.horizon] + list(self.rounds or ())
        cut = max(0, len(rounds) - self.round_backlog)
        if cut:
            self.dropped = max(self.dropped, rounds[cut - 1].version)
        if rounds:
            self.rounds = deque(rounds[cut:])
        self.horizon = horizon

    def subscribe(self, from_version: int) -> Slot:
        """A new watcher's slot: it is sent the round-ending states held from
        ``from_version`` on (none with 0), then the latest state."""
        slot = Slot(self, from_version)
        slot.put(self.latest)  # not waiting yet: its first take finds it
        if not self.latest.final:  # closed: the slot holds the final state, nothing follows
            self.slots.add(slot)
        return slot

    def publish(self, published: Published) -> int:
        """Give every watcher the new state; the number of unread states it replaced that
        will not be sent. A final state is put in every slot whatever its ``from_version``
        (``Slot.put``), so each watcher dropped here sends it and ends."""
        self.latest = published
        self._hold(published)
        return self._hand_out(published)

    def refresh(self, published: Published) -> None:
        """The latest version again, with more in it (a blackjack table's main-game figures,
        computed after it was published): it becomes the latest state (and the held one, if
        it ended a round), and every watcher is handed it, one that sent the version already
        too (the same version comes again, more than once: with the edge, with the seats'
        decisions). A watcher that had not sent it yet sends it once, as refreshed: nothing is
        skipped."""
        if published.version != self.latest.version:
            raise ValueError(
                f"refresh of version {published.version}: the latest is {self.latest.version}"
            )
        self.latest = published
        rounds = self.rounds
        if published.ends_round and rounds and rounds[-1].version == published.version:
            rounds[-1] = published
        self._hand_out(published)

    def _hand_out(self, published: Published) -> int:
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
