"""The journal and the table store, in process: the codec's round trip, the SQLite file's
guards, and recovery equal to the tables that never restarted (hypothesis)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib.util
import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.cards import DECK
from pricing.errors import IllegalMove, InvalidInput, InvalidOption
from pricing.games import blackjack, goagae, higher_lower, hilo
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.blackjack import library
from pricing.games.blackjack.rounds import DEFAULT_SIDE_BETS, BlackjackOptions
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.journal import Durable, JournalCorrupt, JournalError, JournalUnavailable, Record
from pricing.journal import sqlite as sqlite_journal
from pricing.journal.codec import (
    decode_event,
    encode_event,
    encode_image,
    format_is_current,
    record_from_json,
    record_to_json,
)
from pricing.journal.fold import apply_record
from pricing.journal.integrity import image_crc
from pricing.journal.memory import MemoryJournal
from pricing.journal.sqlite import SqliteJournal, _Write
from pricing.journal.sqlite_schema import (
    APPLICATION_ID,
    FILE_NAME,
    ROWS_PER_STATEMENT,
    SCHEMA_VERSION,
    _Rows,
)
from pricing.payout import PayRule
from pricing.server import eventloop
from pricing.server.eventloop import LOOPS
from pricing.server.store import StoreListener, TableStore
from pricing.tables import (
    CloseTable,
    FeedEvent,
    Game,
    HistoryNotLoaded,
    JournalEntry,
    OpenTable,
    SeqConflict,
    Table,
    TableConfig,
    TableImage,
    adapter_for,
)
from tests.support.effort import effort

pay_rules = st.builds(
    lambda rtp, low, span: PayRule(rtp, low, low + span),
    st.integers(1, 10_000),
    st.integers(0, 5_000),
    st.integers(0, 100_000),
)
pays = st.integers(0, 500_000)


@st.composite
def side_bet_paytables(draw: st.DrawFn) -> tuple[library.Paytable, ...]:
    """Any offer of the library's bets: each with any preset and any of its pays changed."""
    names = draw(st.lists(st.sampled_from(list(library.BETS)), unique=True, min_size=1))
    offered = []
    for name in names:
        engine = library.BETS[name]
        preset = draw(st.sampled_from(list(engine.presets)))
        entries = st.sampled_from(list(engine.presets[preset]))
        offered.append(library.paytable(name, preset, draw(st.dictionaries(entries, pays))))
    return tuple(offered)


configs = st.one_of(
    st.builds(
        TableConfig,
        st.just(Game.HILO),
        st.just(1),
        st.one_of(st.none(), st.builds(hilo.HiLoPaytable, *[pay_rules] * 5)),
    ),
    st.builds(
        TableConfig,
        st.just(Game.GOA_GAE),
        st.just(1),
        st.one_of(st.none(), st.builds(goagae.GoaGaePaytable, *[pay_rules] * 6)),
    ),
    st.builds(
        TableConfig,
        st.just(Game.BLACKJACK),
        st.integers(1, 8),
        st.builds(
            BlackjackOptions,
            st.sampled_from(list(blackjack.DealerRule)),
            st.sampled_from(list(blackjack.ShoeMode)),
            side_bet_paytables(),
            st.integers(1, 7),
            st.booleans(),  # double_after_split
            st.integers(1, 3),  # max_splits
        ),
    ),
    st.builds(
        TableConfig,
        st.just(Game.HIGHER_LOWER),
        st.integers(1, 8),
        st.one_of(
            st.none(),
            st.builds(
                higher_lower.HigherLowerRules,
                st.builds(higher_lower.HigherLowerPaytable, *[pay_rules] * 10),
                st.sampled_from(list(higher_lower.ShuffleMode)),
                st.integers(0, higher_lower.MAX_BURNS),
                st.one_of(st.just(0), st.integers(1, 2**64 - 1)),
            ),
        ),
    ),
)
feed_events = st.one_of(
    st.builds(
        ExposeCard, st.sampled_from(DECK), st.sampled_from(list(CardRole)), st.integers(0, 7)
    ),
    st.sampled_from([VoidRound(), EndRound(), NewShoe(), CloseTable()]),
)


def test_the_codec_knows_every_field_of_what_it_writes() -> None:
    # A field added to an event or to a game's options must be written to the journal too
    # (pricing.wire.config_to_proto, and the fields FEED_KINDS maps), or a restart would lose it.
    assert [f.name for f in dataclasses.fields(ExposeCard)] == ["card", "role", "seat"]
    assert [f.name for f in dataclasses.fields(BlackjackOptions)] == [
        "rule",
        "mode",
        "side_bets",
        "seats",
        "double_after_split",
        "max_splits",
        "close_at_rtp_bp",
    ]
    assert [f.name for f in dataclasses.fields(higher_lower.HigherLowerRules)] == [
        "paytable",
        "shuffle",
        "burns",
        "max_position_payout_cents",
    ]
    # Baccarat's and Dragon Tiger's: tests/unit/test_two_hand_rules.py round-trips them.
    assert [f.name for f in dataclasses.fields(BaccaratRules)] == [
        "commission",
        "tie_pays",
        "side_bets",
        "close_at_rtp_bp",
        "mode",
    ]
    assert [f.name for f in dataclasses.fields(DragonTigerRules)] == [
        "tie_pays",
        "side_bets",
        "close_at_rtp_bp",
        "mode",
    ]
    assert [f.name for f in dataclasses.fields(TableConfig)] == ["game", "decks", "rules"]


@pytest.mark.slow
@settings(max_examples=effort(suite=100, exhaustive=1_000), deadline=None)
@given(config=configs, table_id=st.text(min_size=1, max_size=20))
def test_an_opening_round_trips_to_an_equal_config(config: TableConfig, table_id: str) -> None:
    configured = adapter_for(config.game).configure(config)
    event = OpenTable(table_id, configured)
    assert decode_event(*encode_event(event)) == event
    record = Record(table_id, JournalEntry(0, 1, event), 1_764_000_000.25)
    assert record_from_json(json.loads(json.dumps(record_to_json(record)))) == record


@given(event=feed_events, seq=st.integers(1, 2**63), at=st.floats(0, 4e9))
def test_feed_events_round_trip(event: FeedEvent, seq: int, at: float) -> None:
    assert decode_event(*encode_event(event)) == event
    record = Record("t", JournalEntry(seq, seq + 1, event), round(at, 6))
    again = record_from_json(json.loads(json.dumps(record_to_json(record))))
    assert again.entry == record.entry and abs(again.accepted_at - record.accepted_at) < 1e-5


def test_undecodable_records_are_corrupt_not_empty() -> None:
    with pytest.raises(JournalCorrupt, match="ExposeCard"):
        decode_event("ExposeCard", b"\xff\xff")
    with pytest.raises(JournalCorrupt, match="unknown journaled event kind 'Shuffle'"):
        decode_event("Shuffle", b"")
    with pytest.raises(InvalidInput, match="not a journal line"):
        record_from_json({"seq": 1})


# ---- the SQLite file ----------------------------------------------------------------------


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


def test_a_newer_schema_is_refused_naming_the_file_and_both_versions(tmp_path: Path) -> None:
    run(SqliteJournal(tmp_path).close())
    conn = sqlite3.connect(tmp_path / FILE_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(JournalCorrupt) as caught:
        SqliteJournal(tmp_path)
    message = str(caught.value)
    assert str(tmp_path / FILE_NAME) in message
    assert f"version {SCHEMA_VERSION + 1}" in message and f"version {SCHEMA_VERSION}" in message


def test_a_file_that_is_not_a_journal_is_a_start_up_error(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_bytes(b"not a database, " * 512)
    with pytest.raises(JournalCorrupt, match="is not a readable journal"):
        SqliteJournal(tmp_path)


def test_one_server_per_data_directory(tmp_path: Path) -> None:
    first = SqliteJournal(tmp_path)
    try:
        with pytest.raises(JournalError, match="in use by another server"):
            SqliteJournal(tmp_path)
    finally:
        run(first.close())
    run(SqliteJournal(tmp_path).close())  # released on close


def test_concurrent_writes_share_commits(tmp_path: Path) -> None:
    commits: list[int] = []

    class Counting:
        def journal_committed(self, seconds: float, records: int) -> None:
            commits.append(records)

        def journal_failed(self, reason: str) -> None:
            raise AssertionError(reason)

    async def main() -> None:
        journal = SqliteJournal(tmp_path, metrics=Counting())
        opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))
        await asyncio.gather(
            *(journal.append(Record(f"t{i}", JournalEntry(0, 1, opening), 0.0)) for i in range(200))
        )
        await journal.close()

    run(main())
    assert sum(commits) == 200
    assert len(commits) < 100, commits  # group commit: far fewer fsyncs than writes


# ---- recovery equals no restart -----------------------------------------------------------


async def _feed(store: TableStore, table_id: str, events: list[FeedEvent]) -> None:
    for event in events:
        table = store.tables.get(table_id)
        with contextlib.suppress(ValueError, LookupError):  # the game refuses it: no trace
            await store.apply(table_id, table.snapshot.last_seq + 1, event)


def openable(config: TableConfig) -> TableConfig:
    """``config``, or, if a table may not be opened so (``check_offer``: a side bet that would
    return its stake or more on a full shoe, a Higher/Lower bet it could never offer), the
    same table with the default side bets or paytable."""
    adapter = adapter_for(config.game)
    try:
        adapter.check_offer(adapter.configure(config))
    except InvalidOption:
        if isinstance(config.rules, higher_lower.HigherLowerRules):
            rules: object = dataclasses.replace(
                config.rules, paytable=higher_lower.DEFAULT_PAYTABLE
            )
        else:
            assert isinstance(config.rules, BlackjackOptions)
            rules = dataclasses.replace(config.rules, side_bets=DEFAULT_SIDE_BETS)
        return dataclasses.replace(config, rules=rules)
    return config


def _settlements(store: TableStore, table_id: str) -> Iterator[object]:
    """Every settle answer of table_id (async, through the store's hydration)."""
    table = store.tables.get(table_id)
    bets = [*table.snapshot.view.prices, *(sb.bet for sb in table.snapshot.view.side_bets)]
    for version in range(1, table.snapshot.version + 1):
        for round_id in range(1, table.snapshot.view.round_id + 2):
            for bet in bets:
                yield (round_id, version, bet)


@pytest.mark.slow
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    config=configs.map(openable),
    events=st.lists(feed_events, max_size=60),
    snapshot_every=st.integers(1, 20),
    clean=st.booleans(),
)
def test_a_recovered_table_answers_as_if_it_never_restarted(
    tmp_path_factory: pytest.TempPathFactory,
    config: TableConfig,
    events: list[FeedEvent],
    snapshot_every: int,
    clean: bool,
) -> None:
    data = tmp_path_factory.mktemp("journal")

    async def main() -> None:
        store = TableStore(SqliteJournal(data), snapshot_every=snapshot_every)
        await store.open("t", config)
        await _feed(store, "t", events)
        if clean:
            await store.close()  # images of every table
        else:
            await store.journal.close()  # a crash: only what each write committed
        again = TableStore(SqliteJournal(data), snapshot_every=snapshot_every)
        again.recover()
        live, back = store.tables.get("t"), again.tables.get("t")
        assert back.snapshot == live.snapshot
        assert back.image() == live.image()
        for seq in range(1, live.snapshot.last_seq + 1):  # every retry, the same answer
            event = live.image().last_event if seq == live.snapshot.last_seq else None
            if event is not None:
                assert (await again.apply("t", seq, event)) == (live.snapshot, False)
        for args in _settlements(store, "t"):
            want: object
            try:
                want = live.settle(*args, 1000)  # type: ignore[arg-type]
            except (InvalidInput, IllegalMove) as exc:
                want = str(exc)
            try:
                got: object = await again.settle("t", *args, 1000)  # type: ignore[arg-type]
            except (InvalidInput, IllegalMove) as exc:
                got = str(exc)
            assert got == want, args
        await again.close()

    run(main())


def test_retries_of_old_seqs_after_a_restart_answer_as_before(tmp_path: Path) -> None:
    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path), snapshot_every=4)
        await store.open("h", TableConfig(Game.HILO))
        answers = []
        for seq, card in enumerate(DECK[:20], start=1):
            answers.append(await store.apply("h", seq, ExposeCard(card, CardRole.BURN)))
        await store.close()
        again = TableStore(SqliteJournal(tmp_path), snapshot_every=4)
        again.recover()
        for seq, (snapshot, _) in enumerate(answers, start=1):
            assert await again.apply("h", seq, ExposeCard(DECK[seq - 1], CardRole.BURN)) == (
                snapshot,
                False,
            )
        with pytest.raises(SeqConflict):
            await again.apply("h", 3, ExposeCard(DECK[40], CardRole.BURN))
        with pytest.raises(IllegalMove, match="expected seq 21"):
            await again.apply("h", 23, ExposeCard(DECK[40], CardRole.BURN))
        await again.close()

    run(main())


def test_a_failed_commit_applies_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path))
        await store.open("h", TableConfig(Game.HILO))
        before = store.tables.get("h").snapshot
        store.journal._conn.execute("PRAGMA query_only = ON")  # type: ignore[attr-defined]
        with pytest.raises(JournalUnavailable, match="nothing was applied"):
            await store.apply("h", 1, ExposeCard(DECK[0], CardRole.BURN))
        assert store.tables.get("h").snapshot is before
        store.journal._conn.execute("PRAGMA query_only = OFF")  # type: ignore[attr-defined]
        snapshot, new = await store.apply("h", 1, ExposeCard(DECK[0], CardRole.BURN))
        assert new and snapshot.version == 2
        await store.close()
        again = TableStore(SqliteJournal(tmp_path))
        again.recover()
        assert again.tables.get("h").snapshot == snapshot
        await again.close()

    run(main())


def test_closed_tables_leave_after_their_retention_into_the_archive(tmp_path: Path) -> None:
    now = [1000.0]

    async def main() -> None:
        gone: list[str] = []

        class Forgets(StoreListener):
            def forgotten(self, table_id: str) -> None:
                gone.append(table_id)

        store = TableStore(
            SqliteJournal(tmp_path),
            listener=Forgets(),
            closed_retention=60,
            archive_dir=tmp_path / "archive",
            clock=lambda: now[0],
        )
        await store.open("a", TableConfig(Game.HILO))
        await store.open("b", TableConfig(Game.HILO))
        await store.apply("a", 1, ExposeCard(DECK[0], CardRole.BURN))
        await store.apply("a", 2, CloseTable())
        now[0] += 59
        assert await store.sweep() == [] and "a" in store.tables
        now[0] += 1
        assert await store.sweep() == ["a"] and gone == ["a"]
        assert "a" not in store.tables and "b" in store.tables
        assert await store.journal.events("a") == []
        await store.close()

    run(main())
    (archived,) = (tmp_path / "archive").glob("a.*.jsonl.gz")
    from pricing.journal.tools import read_lines, replay_lines  # noqa: PLC0415

    final = list(replay_lines(read_lines(archived)))[-1].snapshot
    assert final.closed and final.version == 3


# ---- what the review found ------------------------------------------------------------------


def test_a_write_cancelled_mid_commit_keeps_memory_with_the_disk(tmp_path: Path) -> None:
    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path))
        await store.open("h", TableConfig(Game.HILO))
        await store.open("other", TableConfig(Game.HILO))
        for seq in range(1, 30):  # a client deadline at every moment of a write
            event = ExposeCard(DECK[seq], CardRole.BURN)
            task = asyncio.create_task(store.apply("h", seq, event))
            for _ in range(seq % 4):
                await asyncio.sleep(0)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            on_disk = [r.entry.version for r in await store.journal.events("h")]
            assert store.tables.get("h").snapshot.version == on_disk[-1]
            # The card reader resends: the same seq is answered, never refused.
            snapshot, _ = await store.apply("h", seq, event)
            assert snapshot.last_seq == seq
            other = store.tables.get("other").snapshot.last_seq
            await store.apply("other", other + 1, ExposeCard(DECK[seq], CardRole.BURN))
        await store.close()

    run(main())


def _loops() -> list[str]:
    """The event loops the server can run on, here: asyncio's own, and uvloop if installed."""
    return [name for name in LOOPS if importlib.util.find_spec(name) is not None]


@pytest.mark.parametrize("loop", _loops())
def test_a_durable_write_outlives_its_cancelled_awaiter(loop: str) -> None:
    """Cancelling the task that awaits a write does not cancel the write; the task hears of
    its cancellation once the write is over, and can see how it ended (on each event loop
    the server runs on: their tasks cancel on their own terms)."""

    async def main() -> None:
        write = Durable()
        seen: list[str] = []

        async def awaiter() -> None:
            try:
                await write
            except asyncio.CancelledError:
                seen.append(f"cancelled, write done={write.done()}")
                raise

        task = asyncio.create_task(awaiter())
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.sleep(0)
        assert not write.cancelled() and not task.done() and seen == []
        write.set_result(None)
        with pytest.raises(asyncio.CancelledError):
            await task
        assert seen == ["cancelled, write done=True"]

        followed = Durable().follow(asyncio.sleep(0, result=None))
        await followed
        broken = Durable()

        async def refused() -> None:
            raise JournalUnavailable("disk full")

        broken.follow(refused())
        with pytest.raises(JournalUnavailable, match="disk full"):
            await broken
        stopped = Durable().follow(asyncio.sleep(60))
        await asyncio.sleep(0)
        stopped._task.cancel()  # type: ignore[union-attr]  # as the loop's shutdown does
        with pytest.raises(JournalUnavailable, match="cancelled"):
            await stopped

    with asyncio.Runner(loop_factory=eventloop.factory(loop)) as runner:
        runner.run(main())


def test_a_write_whose_event_loop_closed_does_not_stop_the_writer(tmp_path: Path) -> None:
    """Its caller gone with its loop, the commit has no one to tell: the writer carries on
    (a writer thread that died would leave every later write waiting for ever)."""
    journal = SqliteJournal(tmp_path)
    opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))
    gone = asyncio.new_event_loop()
    orphan = _Write(
        [Record("t", JournalEntry(0, 1, opening), 0.0)], [], [], gone, Durable(loop=gone)
    )
    gone.close()
    journal._commit([orphan])  # raised RuntimeError (loop closed) in the writer thread
    assert _one_batch(journal, ([Record("u", JournalEntry(0, 1, opening), 1.0)], [], [])) == [None]
    assert {log.table_id for log in journal.load()} == {"t", "u"}
    run(journal.close())


def test_a_write_to_the_memory_journal_takes_no_turn_of_the_event_loop() -> None:
    """Nothing to wait for, so nothing to wait on: a busy loop makes every turn a write
    waits for a delay of its answer."""

    async def main() -> None:
        store = TableStore(MemoryJournal())
        await store.open("h", TableConfig(Game.HILO))
        turns: list[int] = []
        asyncio.get_running_loop().call_soon(turns.append, 1)
        await store.apply("h", 1, ExposeCard(DECK[1], CardRole.BURN))
        assert turns == [], "the write waited for a turn of the loop"
        await store.close()

    run(main())


def test_writes_to_one_table_take_turns_and_leave_no_lock_behind(tmp_path: Path) -> None:
    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path))
        await store.open("h", TableConfig(Game.HILO))
        assert store._locks == {}  # an idle table keeps no lock
        # Sent at once: each waits for the one before (checked early, seq 2 would be a gap).
        answers = await asyncio.gather(
            *(store.apply("h", seq, ExposeCard(DECK[seq], CardRole.BURN)) for seq in (1, 2, 3))
        )
        assert [snapshot.last_seq for snapshot, _ in answers] == [1, 2, 3]
        assert store._locks == {}
        first = asyncio.create_task(store.apply("h", 4, ExposeCard(DECK[4], CardRole.BURN)))
        gave_up = asyncio.create_task(store.apply("h", 5, ExposeCard(DECK[5], CardRole.BURN)))
        await asyncio.sleep(0)
        gave_up.cancel()  # while it waits for the lock
        assert (await first)[0].last_seq == 4
        with contextlib.suppress(asyncio.CancelledError):
            await gave_up
        assert store._locks == {}
        await store.close()

    run(main())


def test_a_write_the_database_refuses_fails_alone_in_its_batch(tmp_path: Path) -> None:
    async def main() -> None:
        journal = SqliteJournal(tmp_path)
        opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))
        twice = Record("t", JournalEntry(0, 1, opening), 0.0)
        results = await asyncio.gather(
            journal.append(twice),
            journal.append(twice),  # the same version twice: refused
            journal.append(Record("u", JournalEntry(0, 1, opening), 0.0)),
            return_exceptions=True,
        )
        assert [type(r).__name__ for r in results].count("JournalUnavailable") == 1
        assert "refused" in str(next(r for r in results if r is not None))
        assert [r.table_id for r in await journal.events("u")] == ["u"]
        await journal.close()

    run(main())


def _one_batch(
    journal: SqliteJournal, *writes: tuple[list[Record], list[tuple[TableImage, float]], list[str]]
) -> list[BaseException | None]:
    """Commit ``writes`` (records, images, forgets) as one batch, as the writer thread would
    (it is idle meanwhile): each write's outcome."""
    loop = asyncio.new_event_loop()
    try:
        batch = [_Write(r, i, f, loop, loop.create_future()) for r, i, f in writes]
        journal._commit(batch)
        loop.run_until_complete(asyncio.sleep(0))  # the outcomes are settled on the loop
        return [w.future.exception() for w in batch]
    finally:
        loop.close()


def test_a_batch_stores_its_writes_together_and_a_refused_one_fails_alone(
    tmp_path: Path,
) -> None:
    journal = SqliteJournal(tmp_path)
    opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))
    burn = ExposeCard(DECK[0], CardRole.BURN)
    t1, t2 = (
        Record("t", JournalEntry(0, 1, opening), 0.0),
        Record("t", JournalEntry(1, 2, burn), 1.0),
    )
    u1 = Record("u", JournalEntry(0, 1, opening), 2.0)
    assert _one_batch(journal, ([t1], [], []), ([t2], [], []), ([u1], [], [])) == [None] * 3
    assert [r.entry.version for r in run(journal.events("t"))] == [1, 2]  # type: ignore[attr-defined]
    v1 = Record("v", JournalEntry(0, 1, opening), 3.0)
    outcomes = _one_batch(
        journal, ([v1], [], []), ([t2], [], []), ([Record("w", u1.entry, 4.0)], [], [])
    )
    assert outcomes[0] is None and outcomes[2] is None, outcomes
    assert isinstance(outcomes[1], JournalUnavailable) and "refused" in str(outcomes[1])
    assert {log.table_id for log in journal.load()} == {"t", "u", "v", "w"}
    unencodable = Record("x", JournalEntry(0, 1, object()), 5.0)  # type: ignore[arg-type]
    y1 = Record("y", JournalEntry(0, 1, opening), 6.0)
    outcomes = _one_batch(journal, ([unencodable], [], []), ([y1], [], []))
    assert outcomes[0] is not None and outcomes[1] is None, outcomes  # it fails alone
    assert {log.table_id for log in journal.load()} == {"t", "u", "v", "w", "y"}
    run(journal.close())


def test_a_batch_of_events_is_one_statement_and_a_bigger_one_is_one_transaction(
    tmp_path: Path,
) -> None:
    """Each statement gives up the GIL and waits to take it back (up to the switch interval
    while the event loop is busy): the common batch, events of open tables, is one INSERT that
    is its own transaction. One that does not fit in a statement is one transaction of
    several; one the database refuses is stored again write by write, and only the refused
    write fails."""
    journal = SqliteJournal(tmp_path)
    opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))
    assert _one_batch(journal, ([Record("t", JournalEntry(0, 1, opening), 0.0)], [], [])) == [None]

    def burn(version: int) -> Record:
        event = ExposeCard(DECK[version % 52], CardRole.BURN)
        return Record("t", JournalEntry(version - 1, version, event), float(version))

    statements: list[str] = []

    def traced(sql: str) -> None:  # a trigger's run is traced as its statement once more
        if not statements or statements[-1] != sql:
            statements.append(sql)

    journal._conn.set_trace_callback(traced)
    assert _one_batch(journal, *(([burn(v)], [], []) for v in range(2, 12))) == [None] * 10
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO events"), statements

    statements.clear()
    many = range(12, 12 + ROWS_PER_STATEMENT + 1)
    assert _one_batch(journal, *(([burn(v)], [], []) for v in many)) == [None] * len(many)
    inserts = [s for s in statements if s.startswith("INSERT INTO events")]
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT", statements
    assert len(inserts) == 2, statements

    statements.clear()
    last = many[-1]
    outcomes = _one_batch(
        journal, ([burn(last + 1)], [], []), ([burn(5)], [], []), ([burn(last + 2)], [], [])
    )
    assert outcomes[0] is None and outcomes[2] is None, outcomes
    assert isinstance(outcomes[1], JournalUnavailable) and "refused" in str(outcomes[1])
    assert "SAVEPOINT batch" not in statements, statements  # refused together: not retried
    journal._conn.set_trace_callback(None)
    versions = [r.entry.version for r in run(journal.events("t"))]  # type: ignore[attr-defined]
    assert versions == list(range(1, last + 3))
    run(journal.close())


def test_a_write_is_committed_even_after_a_rollback_left_a_transaction_open(
    tmp_path: Path,
) -> None:
    """A one-statement batch is its own transaction only outside one: inside a transaction a
    failed rollback left open it would be acknowledged without being committed."""
    journal = SqliteJournal(tmp_path)
    opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))
    assert _one_batch(journal, ([Record("t", JournalEntry(0, 1, opening), 0.0)], [], [])) == [None]
    journal._conn.execute("BEGIN")  # as a ROLLBACK that failed would leave it
    burn = Record("t", JournalEntry(1, 2, ExposeCard(DECK[0], CardRole.BURN)), 1.0)
    assert _one_batch(journal, ([burn], [], [])) == [None]
    assert not journal._conn.in_transaction
    with contextlib.closing(sqlite3.connect(tmp_path / FILE_NAME)) as other:
        assert other.execute("SELECT max(version) FROM events").fetchone() == (2,)
    run(journal.close())


def test_a_batch_the_database_cannot_store_whole_stores_nothing(tmp_path: Path) -> None:
    """An error that is not a refused row (here SQLite's authorizer, standing in for a disk
    that fails) on the last of a batch's statements: the earlier ones are undone too."""
    journal = SqliteJournal(tmp_path)
    table = Table("t", TableConfig(Game.HILO), keep_journal=True)
    writes = ([Record("t", table.opening, 0.0)], [], []), ([], [(table.image(), 0.0)], [])

    def no_images(action: int, what: str | None, *_: object) -> int:
        denied = action == sqlite3.SQLITE_INSERT and what == "images"
        return sqlite3.SQLITE_DENY if denied else sqlite3.SQLITE_OK

    journal._conn.set_authorizer(no_images)
    outcomes = _one_batch(journal, *writes)
    assert all(isinstance(o, JournalUnavailable) for o in outcomes), outcomes
    journal._conn.set_authorizer(None)
    with contextlib.closing(sqlite3.connect(tmp_path / FILE_NAME)) as other:
        for kind in ("tables", "events", "images"):
            assert other.execute(f"SELECT count(*) FROM {kind}").fetchone() == (0,), kind
    assert _one_batch(journal, *writes) == [None, None]  # and the same batch, later, is stored
    run(journal.close())


def test_of_two_images_of_a_table_in_one_statement_the_newer_is_kept(tmp_path: Path) -> None:
    journal = SqliteJournal(tmp_path)
    table = Table("t", TableConfig(Game.HILO), keep_journal=True)
    old = table.image()
    table.apply(1, ExposeCard(DECK[0], CardRole.BURN))
    new = table.image()
    assert new.snapshot.version > old.snapshot.version
    for first, second in ((old, new), (new, old)):
        assert _one_batch(journal, ([], [(first, 1.0)], []), ([], [(second, 2.0)], [])) == [
            None,
            None,
        ]
        with contextlib.closing(sqlite3.connect(tmp_path / FILE_NAME)) as other:
            stored = other.execute("SELECT version FROM images WHERE table_id = 't'").fetchall()
        assert stored == [(new.snapshot.version,)], (first.snapshot.version, stored)
    run(journal.close())


def test_a_batch_that_breaks_the_writer_fails_and_the_writer_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not an SQLite error (a bug, a value SQLite cannot bind): the batch fails with
    JournalUnavailable, nothing of it is stored, and the next write is stored as usual. A
    writer thread that died of it would leave every later write waiting for ever."""
    journal = SqliteJournal(tmp_path)
    opening = OpenTable("t", adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))

    def broken(self: object) -> list[tuple[str, tuple[object, ...]]]:
        raise TypeError("not a value SQLite can bind")

    async def main() -> None:
        with monkeypatch.context() as patch:
            patch.setattr(_Rows, "statements", broken)  # both ways of storing use them
            with pytest.raises(JournalUnavailable, match="not a value SQLite can bind"):
                await asyncio.wait_for(
                    journal.append(Record("t", JournalEntry(0, 1, opening), 0.0)), 5
                )
        await asyncio.wait_for(journal.append(Record("u", JournalEntry(0, 1, opening), 1.0)), 5)
        assert [log.table_id for log in journal.load()] == ["u"]
        await journal.close()

    run(main())


def test_a_batch_that_forgets_a_table_keeps_the_order_of_its_writes(tmp_path: Path) -> None:
    journal = SqliteJournal(tmp_path)
    old = Table("t", TableConfig(Game.HILO), keep_journal=True)
    burn = Record("t", JournalEntry(1, 2, ExposeCard(DECK[0], CardRole.BURN)), 1.0)
    assert _one_batch(journal, ([Record("t", old.opening, 0.0), burn], [], [])) == [None]
    new = Table(
        "t", TableConfig(Game.BLACKJACK), keep_journal=True
    )  # the id used again after retention
    forget, image = ([], [], ["t"]), ([], [(new.image(), 5.0)], [])
    assert _one_batch(journal, forget, image) == [None, None]
    with sqlite3.connect(tmp_path / FILE_NAME) as conn:  # stored after the forget: kept
        assert conn.execute("SELECT table_id, version FROM images").fetchall() == [("t", 1)]
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (0,)
    run(journal.close())


# "a/b" or "../../x" are not table ids at all (pricing.text.check_table_id); these are, and
# mean something to a file system.
@pytest.mark.parametrize("table_id", ["..", ".", "a:b", "-rf", "H"])
def test_archive_files_stay_in_the_archive_and_export_finds_exactly_one_table(
    tmp_path: Path, table_id: str
) -> None:
    from pricing.journal.tools import export_records  # noqa: PLC0415

    async def main() -> None:
        store = TableStore(
            SqliteJournal(tmp_path), closed_retention=0, archive_dir=tmp_path / "archive"
        )
        for name in (table_id, f"{table_id}.x"):
            await store.open(name, TableConfig(Game.HILO))
            await store.apply(name, 1, ExposeCard(DECK[len(name)], CardRole.BURN))
            await store.apply(name, 2, CloseTable())
        assert sorted(await store.sweep()) == sorted([table_id, f"{table_id}.x"])
        await store.close()

    run(main())
    assert {p.parent for p in tmp_path.rglob("*.jsonl.gz")} == {tmp_path / "archive"}
    records = export_records(tmp_path, table_id)
    assert {r.table_id for r in records} == {table_id} and len(records) == 3


def test_a_retry_or_bet_no_table_would_hold_is_not_worth_a_fold() -> None:
    table = Table("t", TableConfig(Game.HILO), keep_journal=False)
    for seq, card in enumerate(DECK[:12], start=1):
        table.apply(seq, ExposeCard(card, CardRole.BURN if seq <= 5 else CardRole.RESULT))
    small = Table.from_image(table.image(), seq_history=4, price_history=4, round_history=4)
    with pytest.raises(HistoryNotLoaded):
        small.settle(7, 12, "HIGH", 100)  # would be held by a table that never restarted
    with pytest.raises(IllegalMove, match="no longer held"):
        small.settle(1, 6, "HIGH", 100)  # would not: answered at once
    with pytest.raises(IllegalMove, match="too old"):
        small.apply(2, ExposeCard(DECK[1], CardRole.BURN))


def test_snapshots_of_changed_classes_are_ignored_then_replaced(tmp_path: Path) -> None:
    table = Table("t", TableConfig(Game.HILO), keep_journal=True)
    fmt, _ = encode_image(table.image())
    assert format_is_current(fmt)
    kind, digest, *names = fmt.split(" ")
    assert not format_is_current(" ".join([kind, "0" * 16, *names]))
    assert not format_is_current(" ".join([kind, digest, *names, "pricing.tables:Gone"]))

    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path), snapshot_every=2)
        await store.open("h", TableConfig(Game.HILO))
        for seq, card in enumerate(DECK[:5], start=1):
            await store.apply("h", seq, ExposeCard(card, CardRole.BURN))
        await store.close()
        conn = sqlite3.connect(tmp_path / FILE_NAME)
        ((body,),) = conn.execute("SELECT body FROM images").fetchall()
        changed = "pickle-5 0000000000000000"
        with conn:  # as if an upgrade changed a pickled class (the row itself is intact)
            conn.execute(
                "UPDATE images SET format = ?, crc = ?", (changed, image_crc(changed, body))
            )
        conn.close()
        again = TableStore(SqliteJournal(tmp_path))
        recovery = again.recover()
        assert (recovery.images, recovery.images_ignored, recovery.events_folded) == (0, 1, 6)
        assert again.tables.get("h").snapshot == store.tables.get("h").snapshot
        assert await again.refresh_images() == 1
        await again.close()
        third = TableStore(SqliteJournal(tmp_path))
        assert third.recover().events_folded == 0  # the new snapshot is current
        await third.close()

    run(main())


def test_a_clean_restart_answers_the_last_retry_without_folding(tmp_path: Path) -> None:
    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path), snapshot_every=1000)
        await store.open("h", TableConfig(Game.HILO))
        for seq, card in enumerate(DECK[:7], start=1):
            await store.apply("h", seq, ExposeCard(card, CardRole.BURN))
        await store.close()
        again = TableStore(SqliteJournal(tmp_path))
        assert again.recover().events_folded == 0
        answer = await again.apply("h", 7, ExposeCard(DECK[6], CardRole.BURN))
        assert answer == (store.tables.get("h").snapshot, False)
        assert again.tables.get("h").history_from > 1  # answered from the image itself
        await again.close()

    run(main())


def test_idle_tables_share_their_fresh_state_and_keep_no_image_across_a_restart(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path))
        for table_id in ("a", "b", "c"):
            await store.open(table_id, TableConfig(Game.BLACKJACK))
        await store.apply("c", 1, ExposeCard(DECK[0], CardRole.BURN))
        a, b = store.tables.get("a"), store.tables.get("b")
        assert a.image().state is b.image().state  # one fresh state for one configuration
        await store.close()
        again = TableStore(SqliteJournal(tmp_path))
        recovery = again.recover()
        assert (recovery.tables, recovery.images) == (3, 1)  # only "c" had an event
        a, b = again.tables.get("a"), again.tables.get("b")
        assert a.image().state is b.image().state and a.snapshot == store.tables.get("a").snapshot
        await again.close()

    run(main())


def test_a_gap_in_journaled_versions_is_corrupt() -> None:
    table = Table("t", TableConfig(Game.HILO), keep_journal=False)
    gap = Record("t", JournalEntry(1, 3, ExposeCard(DECK[0], CardRole.BURN)), 0.0)
    with pytest.raises(JournalCorrupt, match="does not follow version 1"):
        apply_record(table, gap)
    other = Record("u", JournalEntry(1, 2, ExposeCard(DECK[0], CardRole.BURN)), 0.0)
    with pytest.raises(JournalCorrupt, match="of table 'u'"):
        apply_record(table, other)


def test_a_journaled_repeat_of_a_seq_is_corrupt() -> None:
    # A repeat is answered, never journaled: a record that repeats a seq under a new version
    # would leave the table a version behind the journal.
    table = Table("t", TableConfig(Game.HILO), keep_journal=False)
    card = ExposeCard(DECK[0], CardRole.BURN)
    apply_record(table, Record("t", JournalEntry(1, 2, card), 0.0))
    with pytest.raises(JournalCorrupt, match="version 3 repeats seq 1"):
        apply_record(table, Record("t", JournalEntry(1, 3, card), 0.0))
    assert table.snapshot.version == 2


def test_another_programs_database_is_not_taken_for_a_journal(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / FILE_NAME)
    conn.execute("CREATE TABLE orders (id INTEGER)")
    conn.close()
    with pytest.raises(JournalCorrupt, match="another program"):
        SqliteJournal(tmp_path)


def test_a_flapping_disk_logs_its_failures_and_recoveries_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A nearly full disk fails a commit and takes the next, over and over: two lines a
    minute (the first failure, the first recovery), then counts, not two lines per commit."""
    now = [0.0]
    errors = sqlite_journal._Errors(clock=lambda: now[0])
    caplog.set_level(logging.WARNING, logger="pricing.journal")
    for step in range(100):  # a failure and a success every 0.2 s: 20 s
        now[0] = step * 0.2
        errors.failed("disk full")
        errors.succeeded("the journal")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "journal writes are failing: disk full",
        "journal writes succeed again (the journal)",
    ]
    now[0] = 61.0
    errors.failed("disk full")
    errors.succeeded("the journal")
    assert [r.getMessage() for r in caplog.records][2:] == [
        "journal writes are failing: disk full (99 more failed commits since last logged)",
        "journal writes succeed again (the journal) (99 more recoveries since last logged)",
    ]


_SCHEMA_1 = """
CREATE TABLE tables (table_id TEXT NOT NULL PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE events (
    table_id TEXT NOT NULL, version INTEGER NOT NULL, seq INTEGER NOT NULL,
    accepted_at REAL NOT NULL, kind TEXT NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (table_id, version)) WITHOUT ROWID;
CREATE TABLE images (
    table_id TEXT NOT NULL PRIMARY KEY, version INTEGER NOT NULL, accepted_at REAL NOT NULL,
    format TEXT NOT NULL, body BLOB NOT NULL) WITHOUT ROWID;
"""


def test_a_journal_of_schema_1_is_upgraded_and_held_to_its_events(tmp_path: Path) -> None:
    """A journal the previous build wrote: opened, it gains each table's last version (from
    its events) and the trigger that keeps it; it recovers as before and goes on."""
    table = Table("old", TableConfig(Game.HILO), keep_journal=True)
    records = [Record("old", table.opening, 1.0)]
    for seq, card in enumerate(DECK[:6], start=1):
        table.apply(seq, ExposeCard(card, CardRole.BURN))
        records.append(Record("old", table.journal[-1], float(seq)))  # type: ignore[index]
    conn = sqlite3.connect(tmp_path / FILE_NAME)
    conn.executescript(
        _SCHEMA_1 + f"PRAGMA user_version = 1; PRAGMA application_id = {APPLICATION_ID};"
    )
    with conn:
        conn.execute("INSERT INTO tables VALUES ('old')")
        for r in records:
            kind, body = encode_event(r.entry.event)
            conn.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
                ("old", r.entry.version, r.entry.seq, r.accepted_at, kind, body),
            )
    conn.close()

    async def main() -> None:
        store = TableStore(SqliteJournal(tmp_path))
        assert store.recover().tables == 1
        assert store.tables.get("old").snapshot == table.snapshot
        await store.apply("old", 7, ExposeCard(DECK[6], CardRole.BURN))
        await store.close()

    run(main())
    conn = sqlite3.connect(tmp_path / FILE_NAME)
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (2,)
    assert conn.execute("SELECT last_version FROM tables").fetchall() == [(8,)]  # the trigger
    conn.close()
