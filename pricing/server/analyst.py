"""The main game's figures of live blackjack tables (docs/rules.md §3.9), computed after the
feed's event is acknowledged and published on a later publication of the table's state.

A state says what it calls for (``GameView.work``: the decisions of each seat in play, the
next round's edge for the shoe the round was dealt from). Those take milliseconds a seat and up
to half a second for the edge, so the feed's acknowledgement never waits for them: after each
commit the publisher sends the state with the figures already known for it (the edge of its
round), and the analyst computes the rest in a worker thread (the kernel releases the GIL, so
the event loop goes on meanwhile), then hands the publisher the same state again, figures
attached (``Publisher.refresh``). No journal version is made for them: versions are folded
from the journal and every server holding a table must agree on them, and the figures are a
pure function of a version's cards, so every server computes the same ones for it.

Staleness: a table has at most one computation under way (a task per table, the threads
shared by all tables). Each step starts from the table's newest state, so no stale work is
started; seat decisions belong to their version: a newer state stops them between two seats
and the ones computed are dropped; the edge belongs to the round's shoe (``edge_key``): it is
kept, and published, only with states of that shoe (the same round, any later version), never
with a later round's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Final

from pricing.server.metrics_tables import TableGauge
from pricing.tables import Figures, LiveWork, SeatDecisionsView, Snapshot

__all__ = ["ANALYST_THREADS", "Analyst"]

log = logging.getLogger("pricing.analyst")

#: Worker threads for every table's figures: one, so the event loop keeps the other core of a
#: two-core machine; a table's figures are computed one piece at a time whatever the count.
ANALYST_THREADS: Final = 1

#: Hands a state's figures to the publisher: False if that state is no longer the latest.
Publish = Callable[[str, Snapshot, Figures], bool]

#: ``_Table.edge_key`` before any edge was computed: equal to no key.
_NO_KEY: Final = object()


@dataclass(slots=True)
class _Table:
    """One table's figures so far, and its newest state."""

    snapshot: Snapshot
    task: asyncio.Task[None] | None = None
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


def _is(table: _Table, snapshot: Snapshot) -> bool:
    """``snapshot`` is still ``table``'s newest state (read from a worker thread: one attribute
    read, atomic)."""
    return table.snapshot is snapshot


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


class Analyst:
    """Computes the main-game figures of every table's newest state off the event loop and
    hands them to ``publish``; ``edges`` is the ``pricing_player_edge`` gauge. ``enabled``
    False (``--no-main-game-analysis``): no figures at all."""

    def __init__(
        self,
        publish: Publish,
        edges: TableGauge,
        *,
        enabled: bool = True,
        threads: int = ANALYST_THREADS,
    ) -> None:
        self.enabled = enabled
        self._publish = publish
        self._edges = edges
        self._tables: dict[str, _Table] = {}
        self._executor: ThreadPoolExecutor | None = None
        self._threads = threads

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
        if snapshot.closed or snapshot.view.work is None:
            self.forget(table_id)
            return
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = _Table(snapshot)
        table.snapshot = snapshot
        if table.task is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # published outside a server (a tool, a test): no figures
                return
            table.task = loop.create_task(self._run(table_id, table))

    def forget(self, table_id: str) -> None:
        """The table closed or left: drop its figures; a computation under way is dropped."""
        table = self._tables.pop(table_id, None)
        if table is not None:
            table.closed = True
        self._edges.remove(table_id)

    async def settled(self) -> None:
        """Once every table's newest state has all its figures (a tool or a test waiting for
        them without a stream to read)."""
        while running := [t.task for t in self._tables.values() if t.task is not None]:
            await asyncio.wait(running)

    def close(self) -> None:
        """Shutting down: nothing more is computed (a kernel call under way finishes)."""
        self.enabled = False
        for table_id in list(self._tables):
            task = self._tables[table_id].task
            self.forget(table_id)
            if task is not None:
                task.cancel()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self._threads, thread_name_prefix="analyst")
        return self._executor

    async def _run(self, table_id: str, table: _Table) -> None:
        """Until the table's newest state has every figure it calls for."""
        loop = asyncio.get_running_loop()
        try:
            while not table.closed:
                snapshot = table.snapshot
                work = snapshot.view.work
                assert work is not None  # ``changed`` keeps no table without work
                if work.seats and table.seats_version != snapshot.version:
                    seats = await loop.run_in_executor(
                        self._pool(), _seat_decisions, work, partial(_is, table, snapshot)
                    )
                    if seats is None or table.snapshot is not snapshot or table.closed:
                        continue  # a newer state came: its own figures, not these
                    table.seats_version, table.seats = snapshot.version, seats
                    figures = table.figures(snapshot)
                    if figures is not None:
                        self._publish(table_id, snapshot, figures)
                    continue
                if table.edge_key != work.edge_key:
                    key = work.edge_key
                    edge = await loop.run_in_executor(self._pool(), work.edge)
                    if table.closed:
                        return
                    table.edge_key, table.edge = key, edge
                    if edge is None:
                        self._edges.remove(table_id)
                    else:
                        self._edges.labels(table_id).set(edge)
                    # With the newest state, if it is of the shoe the edge is for (a card of
                    # the same round may have come meanwhile); never with a later round's.
                    newest = table.snapshot
                    figures = table.figures(newest)
                    if figures is not None and figures.player_edge is not None:
                        self._publish(table_id, newest, figures)
                    continue
                if table.snapshot is snapshot:
                    return
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: the feed goes on without figures for this table
            log.exception("table %r: the main game's figures could not be computed", table_id)
        finally:
            table.task = None
