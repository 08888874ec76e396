"""The main game's figures of live blackjack tables (docs/rules.md §3.9), computed after the
feed's event is acknowledged and published on a later publication of the table's state.

A state says what it calls for (``GameView.work``: the decisions of each seat in play, the
next round's edge for the shoe the round was dealt from). Those take milliseconds a seat and
about 0.1 s for the edge on a full 6–8 deck shoe, so the feed's acknowledgement never waits for
them: after each commit the publisher sends the state with the figures already known for it
(the edge of its round), and the analyst computes the rest in worker threads (the kernel
releases the GIL, so the event loop goes on meanwhile), then hands the publisher the same state
again, figures attached (``Publisher.refresh``): a version may so be published more than
twice. No journal version is made for them: versions are folded from the journal and every
server holding a table must agree on them, and the figures are a pure function of a version's
cards, so every server computes the same ones for it.

Priority: seat decisions are wanted while the player decides (seconds), an edge holds for a
whole round. They run on two executors of one thread each, shared by all tables: a seat's
decisions never queue behind other tables' edges (a dozen tables ending their rounds at once
is a second or more of edges), and a table's seats and its edge are two tasks, so its seats do
not wait for its own edge either. One thread each keeps at most two kernels running at a time
on the two cores the event loop shares (bench/main_game_ack.py holds the acks to it).

Staleness: a table has at most one seat task and one edge task under way. Each step starts
from the table's newest state, so no stale work is started; seat decisions belong to their
version: a newer state stops them between two seats and the ones computed are dropped; the edge
belongs to the round's shoe (``edge_key``): an edge job that went stale while it queued (a later
round ended, the table closed) is skipped by the worker just before the kernel would run, a
result that went stale while it was computed is dropped (the gauge shows only the current
shoe's edge), and an edge is published only with states of its shoe (the same round, any later
version), never with a later round's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Final

from pricing.server.metrics_tables import TableGauge
from pricing.tables import Figures, LiveWork, SeatDecisionsView, Snapshot

__all__ = ["Analyst"]

log = logging.getLogger("pricing.analyst")

#: Hands a state's figures to the publisher: False if that state is no longer the latest.
Publish = Callable[[str, Snapshot, Figures], bool]

#: ``_Table.edge_key`` before any edge was computed: equal to no key.
_NO_KEY: Final = object()


@dataclass(slots=True)
class _Table:
    """One table's figures so far, and its newest state."""

    snapshot: Snapshot
    seats_task: asyncio.Task[None] | None = None
    edge_task: asyncio.Task[None] | None = None
    closed: bool = False
    #: The decisions of the seats in play at version ``seats_version``.
    seats_version: int = 0
    seats: tuple[SeatDecisionsView, ...] = ()
    #: The next round's edge for the shoe ``edge_key`` (None: the shoe could run out).
    edge_key: Hashable = _NO_KEY
    edge: float | None = None

    def figures(self, snapshot: Snapshot) -> Figures | None:
        """The figures known for ``snapshot``: its own version's decisions, its round's edge."""
        work = snapshot.view.work
        if work is None:
            return None
        seats = self.seats if self.seats_version == snapshot.version else ()
        edge = self.edge if self.edge_key == work.edge_key else None
        if not seats and edge is None:
            return None
        return Figures(seats, edge)

    def tasks(self) -> list[asyncio.Task[None]]:
        return [t for t in (self.seats_task, self.edge_task) if t is not None]


def _is(table: _Table, snapshot: Snapshot) -> bool:
    """``snapshot`` is still ``table``'s newest state (read from a worker thread: one attribute
    read, atomic)."""
    return table.snapshot is snapshot


def _wants_edge(table: _Table, key: Hashable) -> bool:
    """The edge of the shoe ``key`` is still wanted: the table is open and its newest state's
    round is of that shoe (safe from a worker thread: attribute reads of immutable states)."""
    work = table.snapshot.view.work
    return not table.closed and work is not None and work.edge_key == key


def _seat_decisions(
    work: LiveWork, is_current: Callable[[], bool]
) -> tuple[SeatDecisionsView, ...] | None:
    """Every seat in play's decisions (in a worker thread); None as soon as the state they are
    for is no longer the table's newest."""
    out = []
    for seat in work.seats:
        if not is_current():
            return None
        decisions = work.seat_decisions(seat)
        if decisions is not None:
            out.append(decisions)
    return tuple(out)


def _edge(table: _Table, work: LiveWork) -> tuple[bool, float | None]:
    """(True, ``work``'s edge) in a worker thread, or (False, None) without running the kernel
    when the job went stale while it queued behind other tables' edges."""
    if not _wants_edge(table, work.edge_key):
        return False, None
    return True, work.edge()


class Analyst:
    """Computes the main-game figures of every table's newest state off the event loop and
    hands them to ``publish``; ``edges`` is the ``pricing_player_edge`` gauge. ``enabled``
    False (``--no-main-game-analysis``): no figures at all."""

    def __init__(self, publish: Publish, edges: TableGauge, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._publish = publish
        self._edges = edges
        self._tables: dict[str, _Table] = {}
        #: One thread for every table's seat decisions, one for their edges (see the module).
        self._executors: dict[str, ThreadPoolExecutor] = {}

    def known(self, table_id: str, snapshot: Snapshot) -> Figures | None:
        """The figures known at once for a newly committed ``snapshot``: its round's edge, when
        it was computed on an earlier version of the same round."""
        table = self._tables.get(table_id)
        return None if table is None else table.figures(snapshot)

    def changed(self, table_id: str, snapshot: Snapshot) -> None:
        """``snapshot`` is the table's newest state (just published): compute what it calls
        for, after what is under way for the table."""
        if not self.enabled:
            return
        work = snapshot.view.work
        if snapshot.closed or work is None:
            self.forget(table_id)
            return
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = _Table(snapshot)
        table.snapshot = snapshot
        needs_seats = table.seats_task is None and bool(work.seats)
        needs_edge = table.edge_task is None and table.edge_key != work.edge_key
        if not needs_seats and not needs_edge:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # published outside a server (a tool, a test): no figures
            return
        if needs_seats:
            table.seats_task = loop.create_task(self._guarded(self._run_seats, table_id, table))
        if needs_edge:
            table.edge_task = loop.create_task(self._guarded(self._run_edge, table_id, table))

    def forget(self, table_id: str) -> None:
        """The table closed or left: drop its figures; a computation under way is dropped."""
        table = self._tables.pop(table_id, None)
        if table is not None:
            table.closed = True
        self._edges.remove(table_id)

    async def settled(self) -> None:
        """Once every table's newest state has all its figures (a tool or a test waiting for
        them without a stream to read)."""
        while running := [t for table in self._tables.values() for t in table.tasks()]:
            await asyncio.wait(running)

    def close(self) -> None:
        """Shutting down: nothing more is computed (a kernel call under way finishes)."""
        self.enabled = False
        for table_id in list(self._tables):
            tasks = self._tables[table_id].tasks()
            self.forget(table_id)
            for task in tasks:
                task.cancel()
        for executor in self._executors.values():
            executor.shutdown(wait=False, cancel_futures=True)
        self._executors.clear()

    def _pool(self, kind: str) -> ThreadPoolExecutor:
        executor = self._executors.get(kind)
        if executor is None:
            executor = ThreadPoolExecutor(1, thread_name_prefix=f"analyst-{kind}")
            self._executors[kind] = executor
        return executor

    async def _guarded(
        self, run: Callable[[str, _Table], Awaitable[None]], table_id: str, table: _Table
    ) -> None:
        """``run`` as a table's task: a bug in it is logged (the feed goes on without figures
        for this table), and the table's slot for it is free once it ends."""
        try:
            await run(table_id, table)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %r: the main game's figures could not be computed", table_id)
        finally:
            if run == self._run_seats:
                table.seats_task = None
            else:
                table.edge_task = None

    async def _run_seats(self, table_id: str, table: _Table) -> None:
        """Until the table's newest state has its seats' decisions."""
        loop = asyncio.get_running_loop()
        while not table.closed:
            snapshot = table.snapshot
            work = snapshot.view.work
            assert work is not None  # ``changed`` keeps no table without work
            if not work.seats or table.seats_version == snapshot.version:
                return
            seats = await loop.run_in_executor(
                self._pool("seats"), _seat_decisions, work, partial(_is, table, snapshot)
            )
            if seats is None or table.snapshot is not snapshot or table.closed:
                continue  # a newer state came: its own figures, not these
            table.seats_version, table.seats = snapshot.version, seats
            figures = table.figures(snapshot)
            if figures is not None:
                self._publish(table_id, snapshot, figures)

    async def _run_edge(self, table_id: str, table: _Table) -> None:
        """Until the table's newest state's round has its edge."""
        loop = asyncio.get_running_loop()
        while not table.closed:
            work = table.snapshot.view.work
            assert work is not None  # ``changed`` keeps no table without work
            key = work.edge_key
            if table.edge_key == key:
                return
            done, edge = await loop.run_in_executor(self._pool("edges"), _edge, table, work)
            if not done or not _wants_edge(table, key):
                # Stale: the table closed meanwhile (no gauge, nothing published), or a later
                # round's shoe came (its edge next, not this one).
                continue
            table.edge_key, table.edge = key, edge
            if edge is None:
                self._edges.remove(table_id)
            else:
                self._edges.labels(table_id).set(edge)
            # With the newest state, if it is of the shoe the edge is for (a card of the same
            # round may have come meanwhile); never with a later round's.
            newest = table.snapshot
            figures = table.figures(newest)
            if figures is not None and figures.player_edge is not None:
                self._publish(table_id, newest, figures)
