"""The table store: live tables (``pricing.tables``) kept in a journal (``pricing.journal``).

Every accepted write goes the same way, one table at a time (a lock per table id):

1. the table checks the event (``Table.check``): a rejected one raises and leaves no trace;
2. the journal stores it durably (writes of many tables share one commit);
3. the table commits it in memory and the store's ``listener`` publishes the new state to
   watchers.

So nothing is acknowledged or seen before it is on disk, and a restart folds exactly what was
acknowledged (plus at most the one write per table whose answer was lost in the crash).

A journal shared with other servers (replicas, ``pricing.journal.jetstream``) may refuse step 2
because another replica appended to the table first (``JournalConflict``): the store then
folds the records it is missing (``Journal.catch_up``) and checks the event again, so the
answer is the one a single server would give (the repeat, ALREADY_EXISTS, a gap). An unknown
table, or an event the table refuses, is checked again the same way after catching up, so a
replica a moment behind answers as the one ahead. Records the other replicas append arrive
through ``receive``, folded under the same lock and published like the store's own.

At start-up ``recover`` rebuilds every table from its newest image (snapshot) and the events
after it; images are written every ``snapshot_every`` events, and for every table on a clean
shutdown. A table rebuilt from an image holds its retry answers and price histories from the
image on; anything older (a bet accepted long before the restart) makes the store fold the
table's whole journal once (``HistoryNotLoaded``), after which it is as if it never restarted.

Closed tables stay readable for ``closed_retention`` seconds, then leave memory and the
journal; their events go to ``archive_dir`` as JSON Lines first (``pricing journal export``'s
format), when there is one.

A table whose journal a newer build of the service wrote (``JournalNewer``: a game, a rules
field or an event kind this build does not have) is held aside, at start-up or when another
replica appends such a record: not folded, not served, not opened anew (``TableHeldAside``),
and its journal never written, snapshotted, swept or archived, until an upgraded server
reads it as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from pricing.errors import IllegalMove
from pricing.journal import (
    Journal,
    JournalConflict,
    JournalCorrupt,
    JournalNewer,
    JournalUnavailable,
    Record,
    TableLog,
)
from pricing.journal.archive import write_archive
from pricing.journal.fold import apply_record, fold_records
from pricing.journal.integrity import WAY_OUT, describe
from pricing.server.table_locks import TableLock, locked
from pricing.tables import (
    FeedEvent,
    HistoryNotLoaded,
    OpenTable,
    PositionLeg,
    PositionSettlement,
    Settlement,
    Snapshot,
    Table,
    TableChange,
    TableConfig,
    TableHeldAside,
    TableImage,
    Tables,
    adapter_for,
)
from pricing.tables.positions import step

__all__ = [
    "DEFAULT_RETENTION",
    "DEFAULT_SNAPSHOT_EVERY",
    "Recovery",
    "StoreListener",
    "TableStore",
]

log = logging.getLogger("pricing.store")

T = TypeVar("T")

#: Events between two images of a table: a restart after a crash folds fewer than this many
#: per table (~140 µs each for Hi-Lo), so 1,000 tables start in well under 2 s; an image is
#: ~1-2 KB, written in the same commit as the event that triggers it.
DEFAULT_SNAPSHOT_EVERY: Final = 8
DEFAULT_RETENTION: Final = 24 * 3600.0
#: Appends that lose to other replicas in a row before a write answers UNAVAILABLE.
CONFLICT_RETRIES: Final = 16


@dataclass(frozen=True, slots=True)
class Recovery:
    """What ``recover`` rebuilt."""

    tables: int
    images: int
    events_folded: int
    seconds: float
    images_ignored: int = 0  # snapshots of classes this build changed: folded from events
    held_aside: int = 0  # tables a newer build wrote: not folded (``TableStore.hold_aside``)


class StoreListener:
    """What a store tells as it goes (this base: nothing is listening). The service's publisher
    is one (``pricing.server.publisher``); a test may be another."""

    def committed(self, table: Table, snapshot: Snapshot, compute_seconds: float | None) -> None:
        """Right after each commit, under the table's lock (so in version order), with the
        engine's time to fold the event (None for an opening, a recovery, a catch-up)."""

    def forgotten(self, table_id: str) -> None:
        """A table left memory (retention)."""


class TableStore:
    """The live tables of one server, kept in ``journal``."""

    def __init__(
        self,
        journal: Journal,
        *,
        listener: StoreListener | None = None,
        max_tables: int | None = None,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        closed_retention: float = DEFAULT_RETENTION,
        archive_dir: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.journal = journal
        #: Told of every commit and of every table leaving memory (``StoreListener``).
        self.listener = listener if listener is not None else StoreListener()
        self.tables = Tables(max_tables=max_tables)
        self.snapshot_every = snapshot_every
        self.closed_retention = closed_retention
        self.archive_dir = archive_dir
        self._clock = clock
        self._locks: dict[str, TableLock] = {}  # the tables being written now
        self._imaged: dict[str, int] = {}  # table id → version of its newest image, if it has one
        self._last_at: dict[str, float] = {}  # table id → when its last event was accepted
        # Journal folds (a late bet's histories) and archives, on a thread of their own: never
        # queued behind other work of the default executor.
        self._folds = ThreadPoolExecutor(1, thread_name_prefix="journal-fold")

    # ---- start-up --------------------------------------------------------------------------

    def recover(self) -> Recovery:
        """Rebuild every table in the journal (blocking: run it in a thread before serving).
        ``JournalCorrupt`` naming every damaged table, and no table kept, if the journal is
        not whole: never a partial start."""
        t0 = time.perf_counter()
        try:
            images, folded, ignored = self._recover_tables()
        except BaseException:
            self.tables = Tables(max_tables=self.tables.max_tables)
            self._imaged.clear()
            self._last_at.clear()
            raise
        seconds = time.perf_counter() - t0
        held = len(self.tables.held_aside)
        return Recovery(len(self.tables), images, folded, seconds, ignored, held)

    def _recover_tables(self) -> tuple[int, int, int]:
        images = folded = ignored = 0
        damaged: list[tuple[str, str]] = []
        try:
            for log_ in self.journal.load():
                if self._recover_table(log_, damaged) is not None:
                    images += log_.image is not None
                    ignored += log_.image_ignored
                    folded += len(log_.records)
        except JournalCorrupt as exc:  # what the journal found, and what the folds did
            if damaged:
                raise JournalCorrupt(f"{exc} Also: {describe(damaged)}") from exc
            raise
        if damaged:
            raise JournalCorrupt(
                f"{self.journal.location} is damaged: {describe(damaged)}. {WAY_OUT}"
            )
        return images, folded, ignored

    def _recover_table(self, log_: TableLog, damaged: list[tuple[str, str]]) -> Table | None:
        """Fold one table's log into the store; None (and why in ``damaged``) if it does not
        fold, or not to its recorded version; None too if it is held aside."""
        if log_.held_aside:
            self.hold_aside(log_.table_id, log_.held_aside)
            return None
        try:
            table = self._rebuild(log_)
        except JournalCorrupt as exc:
            damaged.append((log_.table_id, str(exc)))
            return None
        if log_.recorded and table.snapshot.version != log_.recorded:
            reached = table.snapshot.version
            what = f"it folds to version {reached}, not to its recorded {log_.recorded}"
            damaged.append((log_.table_id, what))
            return None
        self.tables.put(table)
        version = log_.image.snapshot.version if log_.image is not None else 0
        if version:
            self._imaged[table.table_id] = version
        self._last_at[table.table_id] = log_.last_at
        return table

    async def refresh_images(self) -> int:
        """After recovery: snapshot every table that had events past its image, so the next
        start (after a crash, or after an upgrade that changed the classes) folds nothing. A
        table that never had an event needs none: its opening is all there is to fold, and
        folded it shares its fresh state with the tables opened alike (unpickled, each
        would hold a copy of its own)."""
        behind = [
            (table.image(), self._last_at.get(table.table_id, 0.0))
            for table in self.tables
            if table.snapshot.version > max(self._imaged.get(table.table_id, 0), 1)
        ]
        for start in range(0, len(behind), 256):  # in slices: the feed's commits go between
            chunk = behind[start : start + 256]
            await self.journal.save_images(chunk)
            for image, _ in chunk:
                self._imaged[image.table_id] = max(
                    self._imaged.get(image.table_id, 0), image.snapshot.version
                )
        return len(behind)

    @staticmethod
    def _rebuild(log_: TableLog) -> Table:
        return fold_records(log_.table_id, log_.image, list(log_.records))

    # ---- writes ----------------------------------------------------------------------------

    def _locked(self, table_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``table_id``'s lock (``pricing.server.table_locks``)."""
        return locked(self._locks, table_id)

    async def _durably(
        self, record: Record, image: TableImage | None, commit: Callable[[], None]
    ) -> None:
        """Append ``record`` and then ``commit`` it in memory, even if the caller is cancelled
        meanwhile (a client's deadline): the journal may have it on disk by then, and memory
        must never fall behind the disk. The cancellation is passed on afterwards (a
        ``Durable`` write is not cancelled with its awaiter: the awaiter's CancelledError
        comes once the write is over)."""
        write = self.journal.submit(record, image)
        try:
            await write  # the journal's error, if any, is raised here: nothing is committed
        except asyncio.CancelledError:  # the write is over, so it is known how it ended
            if write.exception() is None:
                commit()
            raise
        commit()

    async def open(self, table_id: str, config: TableConfig) -> tuple[Snapshot, bool]:
        """Open a table (durably); the same id and config again returns it as it is now."""
        self.tables.refuse_held(table_id)
        if table_id not in self.tables:
            # Refused before a lock is made for the id: a flood of opens leaves nothing. (The
            # id itself was checked where the request came in: ``pricing.server.dealer``.)
            self.tables.check_room()
            adapter = adapter_for(config.game)
            adapter.check_offer(adapter.configure(config))
        async with self._locked(table_id):
            for _ in range(CONFLICT_RETRIES):
                if table_id in self.tables:
                    # A feed rejoining here (its replica died) carries on from the last_seq
                    # it is answered: the journal's, not what this store has folded so far.
                    await self._catch_up(table_id)
                    return self.tables.open_table(table_id, config)  # TableExists if it differs
                table = Table(table_id, config, keep_journal=False)
                now = self._clock()

                def commit(table: Table = table, now: float = now) -> None:
                    self.tables.put(table)
                    self._imaged.pop(table_id, None)  # no image yet
                    self._last_at[table_id] = now
                    self.listener.committed(table, table.snapshot, None)

                try:
                    await self._durably(Record(table_id, table.opening, now), None, commit)
                except JournalConflict:  # another replica opened it: compare with that one
                    await self._catch_up(table_id)
                    continue
                return table.snapshot, True
            raise _outrun(table_id)

    async def apply(self, table_id: str, seq: int, event: FeedEvent) -> tuple[Snapshot, bool]:
        """Apply the feed's event ``seq`` durably; ``(snapshot, False)`` for a repeat."""
        for attempt in range(2):
            async with self._locked(table_id):
                try:
                    return await self._apply(table_id, seq, event)
                except HistoryNotLoaded:
                    if attempt:
                        raise
            await self._hydrate(table_id)  # a retry older than the image: fold, then again
        raise AssertionError("unreachable")

    async def _apply(self, table_id: str, seq: int, event: FeedEvent) -> tuple[Snapshot, bool]:
        """``apply`` under the table's lock; ``HistoryNotLoaded`` if the table must be folded
        from its journal first."""
        for _ in range(CONFLICT_RETRIES):
            table, change, compute = await self._check(table_id, seq, event)
            if isinstance(change, Snapshot):
                return change, False
            now = self._clock()
            image = None
            if change.snapshot.version - self._imaged.get(table_id, 0) >= self.snapshot_every:
                image = _image_after(table, change)

            def commit(
                table: Table = table,
                change: TableChange = change,
                image: TableImage | None = image,
                now: float = now,
                compute: float = compute,
            ) -> None:
                table.commit(change)
                if image is not None:
                    self._imaged[table_id] = change.snapshot.version
                self._last_at[table_id] = now
                self.listener.committed(table, change.snapshot, compute)

            try:
                await self._durably(Record(table_id, change.entry, now), image, commit)
            except JournalConflict:  # another replica wrote first: fold it, check again
                await self._catch_up(table_id)
                continue
            return change.snapshot, True
        raise _outrun(table_id)

    async def _check(
        self, table_id: str, seq: int, event: FeedEvent
    ) -> tuple[Table, TableChange | Snapshot, float]:
        """``Table.check`` on the table as the journal has it, with the engine's time. A table
        this store does not hold, or an event its table refuses, is checked against the
        journal's newer records first, if other writers appended any."""
        if table_id not in self.tables:
            await self._catch_up(table_id)
        table = self.tables.get(table_id)  # TableNotFound
        try:
            return self._timed_check(table, seq, event)
        except IllegalMove:
            if not await self._catch_up(table_id):
                raise
            return self._timed_check(self.tables.get(table_id), seq, event)

    @staticmethod
    def _timed_check(
        table: Table, seq: int, event: FeedEvent
    ) -> tuple[Table, TableChange | Snapshot, float]:
        t0 = time.perf_counter()
        change = table.check(seq, event)
        return table, change, time.perf_counter() - t0

    # ---- other writers ---------------------------------------------------------------------

    async def receive(self, record: Record) -> None:
        """A record another replica appended (``Journal.follow``): folded and published if it
        is the table's next version, skipped if this store has it already (its own), caught
        up from the journal if records are missing before it."""
        table_id = record.table_id
        async with self._locked(table_id):
            if table_id in self.tables.held_aside:
                if record.entry.version > 1 or not isinstance(record.entry.event, OpenTable):
                    return  # held aside: its records are the newer build's to fold
                self.tables.release(table_id)  # purged, and opened again by a build of ours
            try:
                self._fold(record)
            except _Behind:
                with contextlib.suppress(TableHeldAside):  # its journal is a newer build's
                    await self._catch_up(table_id)

    def hold_aside(self, table_id: str, why: str) -> None:
        """Hold ``table_id`` aside: a newer build of the service wrote what ``why`` says in its
        journal, which this build cannot read. Logged once; it leaves memory if it was there
        (another replica wrote it past what this one can fold)."""
        held = table_id in self.tables
        if self.tables.hold_aside(table_id, why):
            log.warning(
                "table %r is held aside: a newer build of the service wrote it (%s); it is not "
                "served and its journal is left as it is until this server is upgraded",
                table_id,
                why,
            )
        if held:
            self._imaged.pop(table_id, None)
            self._last_at.pop(table_id, None)
            self.listener.forgotten(table_id)

    async def _catch_up(self, table_id: str) -> int:
        """Fold the records other writers appended to ``table_id`` that this store does not
        have; how many (the caller holds the table's lock). ``TableHeldAside`` if a newer
        build wrote them (or had: found before)."""
        self.tables.refuse_held(table_id)
        after = self.tables.get(table_id).snapshot.version if table_id in self.tables else 0
        try:
            records = await self.journal.catch_up(table_id, after)
        except JournalNewer as exc:
            self.hold_aside(table_id, str(exc))
            self.tables.refuse_held(table_id)
            raise
        folded = 0
        for record in records:
            try:
                folded += self._fold(record)
            except _Behind as exc:
                raise JournalCorrupt(
                    f"table {table_id!r}: the journal skips from version {after} to "
                    f"{record.entry.version}"
                ) from exc
        return folded

    def _fold(self, record: Record) -> bool:
        """Fold one record of another writer: True if it was the table's next version (now
        committed and published), False if the store has that version already."""
        table_id = record.table_id
        event = record.entry.event
        held = table_id in self.tables
        if isinstance(event, OpenTable):
            if held:
                return False
            table = Table(table_id, event.config, keep_journal=False)
            self.tables.put(table)
            self._imaged.pop(table_id, None)  # no image yet
            self._last_at[table_id] = record.accepted_at
            self.listener.committed(table, table.snapshot, None)
            return True
        if not held:
            raise _Behind(table_id)
        table = self.tables.get(table_id)
        if record.entry.version <= table.snapshot.version:
            return False
        if record.entry.version > table.snapshot.version + 1:
            raise _Behind(table_id)
        t0 = time.perf_counter()
        apply_record(table, record)
        compute = time.perf_counter() - t0
        self._last_at[table_id] = record.accepted_at
        self.listener.committed(table, table.snapshot, compute)
        return True

    async def load_history(self, table_id: str) -> Table:
        """``table_id`` with every history a table that never restarted would hold (folding
        its journal once if it was rebuilt from an image)."""
        if self.tables.get(table_id).history_from > 1:
            await self._hydrate(table_id)
        return self.tables.get(table_id)

    async def _hydrate(self, table_id: str) -> None:
        """Fold ``table_id``'s whole journal so it holds every history a table that never
        restarted would. The fold runs in a thread without the table's lock (the feed goes
        on); then, under the lock, the events committed meanwhile are folded on top and the
        rebuilt table replaces the live one."""
        records = await self.journal.events(table_id)
        loop = asyncio.get_running_loop()
        full = await loop.run_in_executor(self._folds, fold_records, table_id, None, records)
        async with self._locked(table_id):
            live = self.tables.get(table_id)
            if live.history_from == 1:
                return  # another call rebuilt it meanwhile
            if live.snapshot.version > full.snapshot.version:
                for record in await self.journal.events(table_id):
                    if record.entry.version > full.snapshot.version:
                        apply_record(full, record)
            if full.snapshot != live.snapshot:
                raise JournalCorrupt(
                    f"table {table_id!r}: its journal folds to version "
                    f"{full.snapshot.version}, not to the live version {live.snapshot.version}"
                )
            self.tables.put(full)
        log.info("table %r: histories rebuilt from %d journaled events", table_id, len(records))

    async def settle(
        self,
        table_id: str,
        round_id: int,
        version: int,
        bet: str,
        stake_cents: int,
        *,
        seat: int = 0,
    ) -> Settlement:
        return await self._settled(
            table_id, lambda table: table.settle(round_id, version, bet, stake_cents, seat)
        )

    async def settle_position(
        self, table_id: str, stake_cents: int, legs: Sequence[PositionLeg]
    ) -> PositionSettlement:
        return await self._settled(table_id, lambda table: table.settle_position(stake_cents, legs))

    async def settle_position_in_steps(
        self,
        table_id: str,
        stake_cents: int,
        legs: Sequence[PositionLeg],
        pause: Callable[[], Awaitable[None]],
    ) -> PositionSettlement:
        """``settle_position`` a few legs at a time (``Table.position_steps``), awaiting
        ``pause()`` between two steps: a long position never holds the event loop for long."""

        async def run(table: Table) -> PositionSettlement:
            steps = table.position_steps(stake_cents, legs)
            while (settled := step(steps)) is None:
                await pause()
            return settled

        try:
            return await run(self.tables.get(table_id))
        except HistoryNotLoaded:
            await self._hydrate(table_id)  # a leg older than the image
        return await run(self.tables.get(table_id))

    async def _settled(self, table_id: str, settle: Callable[[Table], T]) -> T:
        """``settle`` on the table, its whole history folded first if a leg or bet is older
        than the image it was rebuilt from."""
        try:
            return settle(self.tables.get(table_id))
        except HistoryNotLoaded:
            await self._hydrate(table_id)  # a bet older than the image
        return settle(self.tables.get(table_id))

    # ---- shutdown and retention ------------------------------------------------------------

    async def close(self) -> None:
        """Store an image of every table that changed since its last one, then close the
        journal: a clean restart folds nothing."""
        try:
            await self.refresh_images()
        except Exception:  # the events are safe; the next start folds them
            log.warning("could not store the snapshots on shutdown", exc_info=True)
        await self.journal.close()
        self._folds.shutdown(wait=False, cancel_futures=True)

    def expired(self, now: float | None = None) -> list[str]:
        """Closed tables past their retention."""
        now = self._clock() if now is None else now
        return [
            table.table_id
            for table in self.tables
            if table.closed
            and now - self._last_at.get(table.table_id, now) >= self.closed_retention
        ]

    async def sweep(self, now: float | None = None) -> list[str]:
        """Move closed tables past their retention out of memory and the journal."""
        gone = []
        for table_id in self.expired(now):
            async with self._locked(table_id):
                if table_id not in self.tables:
                    continue
                if self.archive_dir is not None:
                    records = await self.journal.events(table_id)
                    loop = asyncio.get_running_loop()
                    await loop.run_in_executor(
                        self._folds, write_archive, self.archive_dir, table_id, records
                    )
                # Out of memory first: stopped before the journal forgets it, the table comes
                # back at the next start and is swept again; never the other way round.
                self.tables.remove(table_id)
                self._imaged.pop(table_id, None)
                self._last_at.pop(table_id, None)
                self._locks.pop(table_id, None)  # waiters retry on a fresh lock (_locked)
                self.listener.forgotten(table_id)
                await self.journal.forget(table_id)
            gone.append(table_id)
            log.info(
                "table %r left the journal (closed %.0f s ago)", table_id, self.closed_retention
            )
        return gone


class _Behind(LookupError):
    """A record of another writer arrived before records it follows."""


def _outrun(table_id: str) -> JournalUnavailable:
    return JournalUnavailable(
        f"table {table_id!r}: other replicas wrote first {CONFLICT_RETRIES} times in a row; "
        "nothing was applied, retry"
    )


def _image_after(table: Table, change: TableChange) -> TableImage:
    event = change.entry.event
    assert not isinstance(event, OpenTable)
    return TableImage(
        table.table_id, table.config, change.state, change.snapshot, event, change.live
    )
