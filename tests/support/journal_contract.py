"""The contract every journal engine keeps (``pricing.journal.Journal``), as one abstract test
class: each engine's test class (``tests/cluster/test_journal_contract.py``) subclasses it, says
how to open a journal on its storage, and states with the capability attributes below where it
legitimately differs from the others. Every test runs on every engine and asserts what that
engine promises: a capability changes the expectation, never skips the test.

What is held to it is what the table store (``pricing.server.store``) relies on: records come
back as appended, in version order; a version already stored is never stored twice; another
writer's append is refused or caught up; images load with only the records after them; every
table comes back when the storage is opened again; a forgotten table is gone; a closed journal
stores nothing; a record that does not decode is ``JournalCorrupt``, never an empty table; a
table a newer build of the service wrote is held aside (loaded as such, never as damage unless
it is damaged too), and the store leaves its records as they are.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import ClassVar, Literal

import pytest

from pricing.cards import DECK
from pricing.games.events import CardRole, ExposeCard
from pricing.journal import (
    Durable,
    Journal,
    JournalConflict,
    JournalCorrupt,
    JournalError,
    JournalNewer,
    JournalUnavailable,
    Record,
    TableLog,
)
from pricing.tables import Game, Table, TableChange, TableConfig, TableHeldAside, TableImage
from tests.support.newer_build import NEWER

#: The acceptance time of a table's first record; each next one is a quarter second later
#: (binary fractions, so any engine that stores a float exactly gives it back equal).
T0 = 1_764_000_000.25

#: A table id with the characters a NATS subject or key cannot hold as they are.
ODD_ID = "bac.1:a_B-2"


class History:
    """A real table's records and images, built by the tables themselves (``Table.check``),
    so every record is one the store could append."""

    def __init__(self, table_id: str, events: int, cards_from: int = 0) -> None:
        self.table_id = table_id
        table = Table(table_id, TableConfig(Game.HILO), keep_journal=False)
        self.records = [Record(table_id, table.opening, T0)]
        self.images: dict[int, TableImage] = {}
        for seq in range(1, events + 1):
            change = table.check(
                seq, ExposeCard(DECK[(cards_from + seq) % len(DECK)], CardRole.BURN)
            )
            assert isinstance(change, TableChange), "a new seq is a change, not a repeat"
            table.commit(change)
            self.records.append(Record(table_id, change.entry, T0 + seq / 4))
            self.images[change.entry.version] = table.image()

    def record(self, version: int) -> Record:
        return self.records[version - 1]

    def image(self, version: int) -> tuple[TableImage, float]:
        """The image as of ``version`` and the acceptance time of its last event."""
        return self.images[version], self.record(version).accepted_at

    def after(self, version: int) -> list[Record]:
        return self.records[version:]


async def append_all(journal: Journal, records: Sequence[Record]) -> None:
    for record in records:
        await journal.append(record)


async def load(journal: Journal) -> dict[str, TableLog]:
    """Every table's log, by id: ``load`` blocks (the JetStream journal waits on the event loop
    it started on), so it runs in a thread as the store's start-up runs it."""
    logs = await asyncio.to_thread(lambda: list(journal.load()))
    by_id = {log_.table_id: log_ for log_ in logs}
    assert len(by_id) == len(logs), f"a table loaded twice: {[t.table_id for t in logs]}"
    return by_id


def versions(records: Sequence[Record]) -> list[int]:
    return [record.entry.version for record in records]


class JournalContract(ABC):
    """The journal contract. A subclass per engine implements ``make`` (and, for an engine
    that stores anything, ``store_undecodable``) and sets the capabilities."""

    # ---- capabilities: where engines legitimately differ -------------------------------------

    #: The journal keeps its records: ``events`` returns them and a journal opened again on the
    #: same storage loads them. False: it keeps nothing (``MemoryJournal``), every read is empty.
    keeps_records: ClassVar[bool] = True
    #: What appending a version the journal already stored for the table raises: the
    #: embedded journal refuses it (``JournalUnavailable``: the database's key), a shared one
    #: takes it for another writer's (``JournalConflict``); None: it takes it (storing nothing).
    repeat_raises: ClassVar[type[Exception] | None] = JournalUnavailable
    #: A second journal opened on the same storage while the first is open: ``"refused"``
    #: (``JournalError``: one server per storage), ``"shared"`` (both write; the later append
    #: of a version is ``JournalConflict`` and ``catch_up``/``follow`` hand over the other's
    #: records), or ``"apart"`` (nothing is shared: each journal is its own).
    second_writer: ClassVar[Literal["refused", "shared", "apart"]] = "refused"
    #: ``save_images`` on a journal that cannot store them raises ``JournalUnavailable``;
    #: False: images are a cache it may fail to keep, logged and not raised (the events are
    #: the record, and the next image replaces a lost one).
    images_raise: ClassVar[bool] = True
    #: A closed journal refuses every write (``JournalUnavailable``); False: it stores nothing
    #: either way, and says nothing.
    closed_refuses_writes: ClassVar[bool] = True

    # ---- the engine under test ---------------------------------------------------------------

    @abstractmethod
    def make(self) -> Journal:
        """A new journal object on this test's storage (the same storage on every call)."""

    async def store_undecodable(self, journal: Journal, table_id: str, version: int) -> None:
        """Put into the storage, behind ``journal``'s back, ``table_id``'s record of
        ``version`` with an event that does not decode (damage)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no records to damage")

    async def store_damaged_image(self, journal: Journal, table_id: str, fmt: str | None) -> None:
        """Damage ``table_id``'s stored image behind ``journal``'s back: its body no longer
        decodes, and its format is ``fmt`` if that is given (damage to its metadata)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no images to damage")

    async def store_raw(
        self, journal: Journal, table_id: str, version: int, kind: str, body: bytes
    ) -> None:
        """Put into the storage, behind ``journal``'s back, ``table_id``'s record of
        ``version``: an event of ``kind`` whose body is ``body``, as they are (what a newer
        build of the service journals)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no records")

    async def stored(self, journal: Journal, table_id: str) -> object:
        """All the storage holds of ``table_id`` (records, image), as it holds it: equal
        before and after, it was left untouched."""
        raise NotImplementedError(f"{type(self).__name__} keeps no records")

    async def store_newer(self, journal: Journal, *table_ids: str) -> None:
        """Journal each of ``NEWER``'s tables (``table_ids``: those only) as a newer build."""
        for table_id in table_ids or NEWER:
            rows, _ = NEWER[table_id]
            for version, (kind, body) in enumerate(rows, start=1):
                await self.store_raw(journal, table_id, version, kind, body)

    # ---- plumbing ----------------------------------------------------------------------------

    @pytest.fixture(autouse=True)
    def _journals(self) -> Iterator[None]:
        self.opened: list[Journal] = []
        self.closed: set[int] = set()
        yield

    def run(self, scenario: Callable[[], Awaitable[None]]) -> None:
        """Run ``scenario`` on a new event loop, then close every journal it left open."""

        async def main() -> None:
            try:
                await scenario()
            finally:
                for journal in self.opened:
                    await self.close(journal)

        asyncio.run(main())

    async def open(self) -> Journal:
        journal = self.make()
        self.opened.append(journal)
        await journal.start()
        return journal

    async def close(self, journal: Journal) -> None:
        if id(journal) not in self.closed:
            self.closed.add(id(journal))
            await journal.close()

    async def reopen(self, journal: Journal) -> Journal:
        """Close ``journal`` and open the same storage again: what a restart reads."""
        await self.close(journal)
        return await self.open()

    async def reloaded(self, journal: Journal) -> dict[str, TableLog] | None:
        """What ``load`` reads once ``journal``'s storage is opened again; None (having
        checked that it loads no table) for a journal that keeps nothing."""
        logs = await load(await self.reopen(journal))
        if self.keeps_records:
            return logs
        assert logs == {}, "a journal that keeps nothing loads no table"
        return None

    # ---- append ------------------------------------------------------------------------------

    def test_appended_records_come_back_in_version_order(self) -> None:
        one, two = History("one", 5), History(ODD_ID, 3)

        async def scenario() -> None:
            journal = await self.open()
            for a, b in zip(one.records, two.records, strict=False):  # interleaved tables
                await journal.append(a)
                await journal.append(b)
            await append_all(journal, one.records[len(two.records) :])
            for history in (one, two):
                got = await journal.events(history.table_id)
                want = history.records if self.keeps_records else []
                assert got == want, f"events({history.table_id!r}) after appending"
            assert await journal.events("never-opened") == []

        self.run(scenario)

    def test_a_submitted_write_is_durable_once_done(self) -> None:
        history = History("t", 2)

        async def scenario() -> None:
            journal = await self.open()
            # Many tables' writes under way together (the store writes one table's versions
            # one at a time, each once the one before is done).
            openings = [History(f"t{n}", 0).record(1) for n in range(8)]
            writes = [journal.submit(record) for record in openings]
            assert all(isinstance(write, Durable) for write in writes)
            await asyncio.gather(*writes)
            for opening in openings:
                got = await journal.events(opening.table_id)
                assert got == ([opening] if self.keeps_records else [])
            for record in history.records:
                await journal.submit(record)
            assert await journal.events("t") == (history.records if self.keeps_records else [])

        self.run(scenario)

    def test_a_cancelled_caller_does_not_cancel_its_write(self) -> None:
        history = History("t", 1)

        async def scenario() -> None:
            journal = await self.open()
            await journal.append(history.record(1))
            write = journal.submit(history.record(2))

            async def caller() -> None:
                await write

            task = asyncio.ensure_future(caller())
            await asyncio.sleep(0)  # one turn: the caller is awaiting the write
            if task.cancel():  # not when the write was done at once (nothing to wait for)
                with pytest.raises(asyncio.CancelledError):
                    await task
            else:
                await task
            # The caller's cancellation comes only once the write is over, and did not undo it.
            assert write.done() and write.exception() is None
            got = await journal.events("t")
            assert got == (history.records if self.keeps_records else [])

        self.run(scenario)

    # ---- repeat ------------------------------------------------------------------------------

    def test_a_version_already_stored_is_never_stored_again(self) -> None:
        history = History("t", 3)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records)
            for version in (1, 3):  # the table's opening, and its newest event
                again = history.record(version)
                if self.repeat_raises is None:
                    await journal.append(again)
                else:
                    with pytest.raises(self.repeat_raises):
                        await journal.append(again)
                got = await journal.events("t")
                assert got == (history.records if self.keeps_records else []), (
                    f"version {version} appended again changed the table's records"
                )
            # A refused write leaves the journal writing: another table opens.
            other = History("u", 0).record(1)
            await journal.append(other)
            assert await journal.events("u") == ([other] if self.keeps_records else [])
            loaded = await load(await self.reopen(journal))
            if self.keeps_records:
                assert versions(loaded["t"].records) == [1, 2, 3, 4]

        self.run(scenario)

    # ---- conflict ----------------------------------------------------------------------------

    def test_a_second_writer_is_refused_or_conflicts_and_catches_up(self) -> None:
        history = History("t", 4)

        async def scenario() -> None:
            first = await self.open()
            await append_all(first, history.records[:2])
            if self.second_writer == "refused":
                with pytest.raises(JournalError):
                    await self.open()
                await append_all(first, history.after(2))  # the first is unharmed
                assert await first.events("t") == history.records
                return
            second = await self.open()
            if self.second_writer == "apart":
                await append_all(second, history.records)  # nothing of the first's is there
                assert await second.catch_up("t", 0) == []
                return
            # Shared: the second writer has not seen the table, so version 1 is taken.
            with pytest.raises(JournalConflict):
                await second.append(history.record(1))
            assert await second.catch_up("t", 0) == history.records[:2]
            await second.append(history.record(3))  # caught up: the next version is its own
            with pytest.raises(JournalConflict):
                await first.append(history.record(3))  # the same version, written second
            assert await first.catch_up("t", 2) == [history.record(3)]
            await first.append(history.record(4))
            assert await second.events("t") == history.records[:4]
            assert await second.catch_up("t", 4) == []
            # A writer that never read the table is handed only the versions after the one
            # it names.
            third = await self.open()
            assert await third.catch_up("t", 2) == history.records[2:4]

        self.run(scenario)

    def test_a_table_opened_again_on_another_store_is_answered_as_of_the_journal(self) -> None:
        """A feed whose replica died opens the table on another and carries on from the
        last_seq it is answered, so that store answers from the journal, not from what it has
        folded so far (here: nothing it was not handed at start-up)."""
        if self.second_writer != "shared":
            return
        from pricing.cards import DECK  # noqa: PLC0415
        from pricing.server.store import TableStore  # noqa: PLC0415
        from pricing.tables import CardRole, ExposeCard, Game, TableConfig  # noqa: PLC0415

        async def scenario() -> None:
            config = TableConfig(Game.HILO)
            first = TableStore(await self.open())
            await first.open("t", config)
            await first.apply("t", 1, ExposeCard(DECK[0], CardRole.BURN))
            second = TableStore(await self.open())
            await asyncio.to_thread(second.recover)  # it has seen seq 1, and follows nothing
            for seq in (2, 3):
                await first.apply("t", seq, ExposeCard(DECK[seq], CardRole.BURN))
            snapshot, _ = await second.open("t", config)
            assert (snapshot.last_seq, snapshot.version) == (3, 4)

        self.run(scenario)

    def test_follow_hands_over_exactly_the_other_writers_records(self) -> None:
        history = History("t", 3)

        async def scenario() -> None:
            first = await self.open()
            await first.append(history.record(1))
            await load(first)  # the store follows from where its start-up read ended
            delivered: asyncio.Queue[Record] = asyncio.Queue()
            await first.follow(delivered.put)
            assert first.unavailable_reason() is None, "a following journal takes writes"
            if self.second_writer != "shared":
                await append_all(first, history.after(1))
                assert delivered.empty(), "a journal with no other writer delivers nothing"
                return
            second = await self.open()
            await load(second)  # what a replica's start-up reads: then it has seen version 1
            await append_all(second, history.after(1))
            got = [await asyncio.wait_for(delivered.get(), 10) for _ in history.after(1)]
            assert got == history.after(1)

        self.run(scenario)

    # ---- images ------------------------------------------------------------------------------

    def test_a_saved_image_loads_with_only_the_records_after_it(self) -> None:
        history = History("t", 6)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records)
            await journal.save_images([history.image(5)])
            await journal.save_images([])  # nothing to store is not an error
            logs = await self.reloaded(journal)
            if logs is None:
                return
            log_ = logs["t"]
            assert log_.image == history.images[5]
            assert log_.records == history.after(5)
            assert log_.last_at == history.record(7).accepted_at
            assert not log_.image_ignored

        self.run(scenario)

    def test_an_image_appended_with_its_record_loads(self) -> None:
        history = History("t", 3)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records[:-1])
            await journal.append(history.record(4), history.images[4])
            logs = await self.reloaded(journal)
            if logs is None:
                return
            assert logs["t"].image == history.images[4]
            assert logs["t"].records == []
            assert logs["t"].last_at == history.record(4).accepted_at

        self.run(scenario)

    def test_every_image_saved_loads_to_the_newest_version(self) -> None:
        history = History("t", 6)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records)
            # A newer image, then an older one (a replica behind the other): whichever the
            # journal keeps, the image and the records after it reach the newest version.
            await journal.save_images([history.image(6)])
            await journal.save_images([history.image(3)])
            logs = await self.reloaded(journal)
            if logs is None:
                return
            log_ = logs["t"]
            assert log_.image is not None
            base = log_.image.snapshot.version
            assert log_.image == history.images[base]
            assert log_.records == history.after(base)

        self.run(scenario)

    # ---- load --------------------------------------------------------------------------------

    def test_every_table_comes_back_when_the_storage_is_opened_again(self) -> None:
        opened_only, short, imaged = History("a", 0), History(ODD_ID, 2), History("c", 9)

        async def scenario() -> None:
            journal = await self.open()
            assert await load(journal) == {}, "a new journal loads no table"
            await append_all(journal, opened_only.records)
            await append_all(journal, short.records)
            await append_all(journal, imaged.records[:9])  # its version 10 comes after
            await journal.save_images([imaged.image(7)])
            again = await self.reopen(journal)
            logs = await load(again)
            if not self.keeps_records:
                assert logs == {}
                return
            assert sorted(logs) == sorted(["a", ODD_ID, "c"])
            for history in (opened_only, short):
                log_ = logs[history.table_id]
                assert log_.image is None
                assert log_.records == history.records
                assert log_.last_at == history.records[-1].accepted_at
            assert logs["c"].image == imaged.images[7]
            assert logs["c"].records == imaged.records[7:9]
            # Opened again, the journal takes each table's next version where it left off.
            await again.append(imaged.record(10))
            assert await again.events("c") == imaged.records

        self.run(scenario)

    # ---- forget ------------------------------------------------------------------------------

    def test_a_forgotten_table_is_gone_and_the_others_stay(self) -> None:
        gone, kept = History(ODD_ID, 4), History("kept", 2)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, gone.records)
            await append_all(journal, kept.records)
            await journal.save_images([gone.image(4), kept.image(3)])
            await journal.forget(ODD_ID)
            await journal.forget("never-opened")  # nothing to forget is not an error
            assert await journal.events(ODD_ID) == []
            logs = await self.reloaded(journal)
            if logs is None:
                return
            assert sorted(logs) == ["kept"], "only the forgotten table left"
            assert logs["kept"].image == kept.images[3]

        self.run(scenario)

    def test_a_forgotten_table_opens_again_from_version_1(self) -> None:
        # The table opened again goes further than the image of the one forgotten, and
        # differently: an image kept of the old one would pass for the new one's.
        before, after = History("t", 3), History("t", 6, cards_from=20)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, before.records)
            await journal.save_images([before.image(4)])
            await journal.forget("t")
            reopened = [Record("t", r.entry, r.accepted_at + 100) for r in after.records]
            await append_all(journal, reopened)
            assert await journal.events("t") == (reopened if self.keeps_records else [])
            logs = await self.reloaded(journal)
            if logs is None:
                return
            assert logs["t"].image is None, "the old table's image is not the new one's"
            assert logs["t"].records == reopened

        self.run(scenario)

    # ---- errors ------------------------------------------------------------------------------

    def test_a_closed_journal_stores_nothing(self) -> None:
        history = History("t", 2)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records[:2])
            await self.close(journal)
            writes: list[tuple[str, Callable[[], Awaitable[None]], bool]] = [
                ("append", lambda: journal.append(history.record(3)), True),
                ("submit", lambda: journal.submit(history.record(3)), True),
                ("forget", lambda: journal.forget("t"), True),
                ("save_images", lambda: journal.save_images([history.image(3)]), False),
            ]
            for name, write, is_record in writes:
                raises = self.closed_refuses_writes and (is_record or self.images_raise)
                if raises:
                    with pytest.raises(JournalUnavailable):
                        await write()
                else:
                    await write()
                    # Only a journal that keeps nothing may take a record write once closed.
                    assert not (self.keeps_records and is_record), f"{name} after close"
            logs = await load(await self.open())
            if self.keeps_records:
                assert logs["t"].records == history.records[:2]
                assert logs["t"].image is None

        self.run(scenario)

    def test_a_record_that_does_not_decode_is_corrupt_not_empty(self) -> None:
        history = History("t", 2)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records)
            if not self.keeps_records:
                # Nothing is stored, so nothing can be damaged: it loads as it started.
                assert await load(await self.reopen(journal)) == {}
                return
            await self.store_undecodable(journal, "t", 4)
            with pytest.raises(JournalCorrupt):
                await journal.events("t")
            again = await self.reopen(journal)
            with pytest.raises(JournalCorrupt):
                await load(again)

        self.run(scenario)

    def image_damage_folds_the_records(self, fmt: str | None) -> None:
        history = History("t", 4)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, history.records)
            await journal.save_images([history.image(4)])
            if not self.keeps_records:
                assert await load(await self.reopen(journal)) == {}
                return
            await self.store_damaged_image(journal, "t", fmt)
            logs = await load(await self.reopen(journal))
            # An image is a cache of the records: damaged, it is passed over, never fatal.
            assert logs["t"].image is None
            assert logs["t"].records == history.records

        self.run(scenario)

    def test_an_image_that_does_not_decode_is_folded_from_the_records(self) -> None:
        self.image_damage_folds_the_records(None)

    def test_an_image_whose_format_is_damaged_is_folded_from_the_records(self) -> None:
        self.image_damage_folds_the_records("damaged")

    def test_a_healthy_journal_takes_writes(self) -> None:
        async def scenario() -> None:
            journal = await self.open()
            await journal.follow(_ignore)
            assert journal.unavailable_reason() is None
            assert journal.location, "a journal says where it keeps its data"

        self.run(scenario)

    # ---- a newer build's tables --------------------------------------------------------------

    def test_a_table_a_newer_build_wrote_is_held_aside_and_left_as_it_is(self) -> None:
        kept = History("kept", 3)

        async def scenario() -> None:
            journal = await self.open()
            await append_all(journal, kept.records)
            if not self.keeps_records:
                assert await load(await self.reopen(journal)) == {}
                return
            await self.store_newer(journal)
            before = {table_id: await self.stored(journal, table_id) for table_id in NEWER}
            again = await self.reopen(journal)
            logs = await load(again)
            assert logs["kept"].records == kept.records and not logs["kept"].held_aside
            for table_id, (_, why) in NEWER.items():
                log_ = logs[table_id]
                assert why in log_.held_aside, log_.held_aside
                assert (log_.image, list(log_.records)) == (None, [])
            with pytest.raises(JournalNewer):
                await again.events("new-game")
            # The store holds them aside, serves the others, and writes nothing of them.
            from pricing.server.store import TableStore  # noqa: PLC0415

            store = TableStore(await self.reopen(again))
            recovery = await asyncio.to_thread(store.recover)
            assert (recovery.tables, recovery.held_aside) == (1, len(NEWER))
            assert sorted(store.tables.held_aside) == sorted(NEWER)
            for table_id in NEWER:
                with pytest.raises(TableHeldAside, match="written by a newer build"):
                    await store.open(table_id, TableConfig(Game.HILO))
                with pytest.raises(TableHeldAside):
                    await store.apply(table_id, 9, ExposeCard(DECK[9], CardRole.BURN))
            await store.apply("kept", 4, ExposeCard(DECK[40], CardRole.BURN))
            await store.close()  # snapshots every table that changed: none held aside
            self.closed.add(id(store.journal))
            last = await self.open()
            for table_id in NEWER:
                assert await self.stored(last, table_id) == before[table_id], table_id

        self.run(scenario)

    def test_damage_in_a_table_a_newer_build_wrote_is_still_damage(self) -> None:
        async def scenario() -> None:
            journal = await self.open()
            if not self.keeps_records:
                return
            await self.store_newer(journal, "new-game")
            rows, _ = NEWER["new-game"]
            await self.store_undecodable(journal, "new-game", len(rows) + 1)
            with pytest.raises(JournalCorrupt) as caught:
                await load(await self.reopen(journal))
            assert not isinstance(caught.value, JournalNewer), caught.value

        self.run(scenario)

    def test_follow_holds_aside_what_a_newer_build_appends(self) -> None:
        if self.second_writer != "shared":
            return
        history = History("t", 2)

        async def scenario() -> None:
            first = await self.open()
            await load(first)
            delivered: asyncio.Queue[Record] = asyncio.Queue()
            held: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
            await first.follow(delivered.put, lambda t, why: held.put_nowait((t, why)))
            second = await self.open()
            await append_all(second, history.records)
            await self.store_newer(second, "new-rules")
            table_id, why = await asyncio.wait_for(held.get(), 10)
            assert table_id == "new-rules" and NEWER["new-rules"][1] in why, why
            rows, _ = NEWER["new-rules"]
            got = [await asyncio.wait_for(delivered.get(), 10) for _ in range(3 + len(rows) - 1)]
            assert [r for r in got if r.table_id == "t"] == history.records
            # Its records that decode are handed over too: the store skips a table held aside.
            assert [r.entry.version for r in got if r.table_id == "new-rules"] == [2, 3]
            assert held.empty()

        self.run(scenario)


async def _ignore(record: Record) -> None:
    return None
