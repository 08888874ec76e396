"""The fan-out (pricing.server.fanout): every watcher ends on the newest version, in order, is sent
every round's result (or told it fell too far behind), and waking thousands of watchers
leaves the event loop free between batches."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.server.fanout import FellBehind, Hub, Published, Slot, Waker


def state(version: int, final: bool = False, ends_round: bool = False) -> Published:
    return Published(version, f"v{version}".encode(), final, ends_round)


async def drain(slot: Slot) -> list[int]:
    """The versions a slot still has to send, up to the end of its stream (ended first, so
    that a slot with nothing more returns instead of waiting)."""
    slot.end()
    versions = []
    while (published := await slot.take()) is not None:
        versions.append(published.version)
    return versions


def test_a_stream_that_ends_sends_what_is_in_its_slot_first() -> None:
    async def main() -> None:
        hub = Hub(state(1), Waker())
        slot = hub.subscribe(0)
        assert await slot.take() == state(1)
        hub.publish(state(2, ends_round=True))
        hub.publish(state(3))
        slot.end()
        assert [(await slot.take()) for _ in range(2)] == [state(2, ends_round=True), state(3)]
        assert await slot.take() is None

    asyncio.run(main())


def test_a_slow_watcher_skips_prices_but_is_sent_every_round_result() -> None:
    async def main() -> None:
        hub = Hub(state(1), Waker())
        slot = hub.subscribe(0)
        assert await slot.take() == state(1)
        conflated = [
            hub.publish(state(v, ends_round=v % 3 == 0)) for v in range(2, 11)
        ]  # 3, 6 and 9 end rounds; 10 is the newest
        assert sum(conflated) == 5  # 2, 4, 5, 7, 8: skipped
        assert await drain(slot) == [3, 6, 9, 10]

    asyncio.run(main())


def test_a_refreshed_version_is_sent_again_and_replaces_the_held_round_result() -> None:
    """A blackjack table's figures come after its state: the same version published again.
    A watcher that sent it sends it again; one that had not sends it once, refreshed; a
    watcher arriving later gets the refreshed round result; an older version is refused."""

    async def main() -> None:
        hub = Hub(state(1), Waker())
        ahead, behind = hub.subscribe(0), hub.subscribe(0)
        assert await ahead.take() == state(1)
        hub.publish(state(2, ends_round=True))
        assert await ahead.take() == state(2, ends_round=True)
        refreshed = Published(2, b"v2 with figures", final=False, ends_round=True)
        hub.refresh(refreshed)
        assert await ahead.take() == refreshed
        assert await behind.take() == refreshed  # 1 skipped, 2 once: as refreshed
        assert await drain(behind) == []
        assert (
            hub.latest == refreshed and hub.rounds is not None and list(hub.rounds) == [refreshed]
        )
        late = hub.subscribe(2)
        assert await late.take() == refreshed
        hub.publish(state(3))
        with pytest.raises(ValueError, match="latest is 3"):
            hub.refresh(refreshed)

    asyncio.run(main())


def test_from_version_first_sends_the_round_results_held_since_then() -> None:
    async def main() -> None:
        hub = Hub(state(1), Waker(), round_backlog=2)
        for v in range(2, 9):
            hub.publish(state(v, ends_round=v in (3, 5, 7)))
        assert await drain(hub.subscribe(from_version=4)) == [5, 7, 8]
        # 3 is no longer held (two are): a watcher resuming from before it gets what is held.
        assert await drain(hub.subscribe(from_version=2)) == [5, 7, 8]
        # The state as it is now: no past results.
        assert await drain(hub.subscribe(from_version=0)) == [8]

    asyncio.run(main())


def test_a_watcher_further_behind_than_the_backlog_is_told_where_to_resume() -> None:
    async def main() -> None:
        hub = Hub(state(1), Waker(), round_backlog=2)
        slot = hub.subscribe(0)
        assert await slot.take() == state(1)
        for v in range(2, 6):
            hub.publish(state(v, ends_round=v >= 3))  # 3, 4, 5 end rounds; only 4, 5 held
        with pytest.raises(FellBehind, match="more than 2 round results behind") as behind:
            await slot.take()
        assert behind.value.resume_from == 2
        assert await drain(hub.subscribe(behind.value.resume_from)) == [4, 5]

    asyncio.run(main())


def test_a_hub_started_mid_table_is_backfilled_with_the_round_results_before_it() -> None:
    """A hub recovered at version 10 holds nothing from before; given the states of the
    table's recent events (version 4 on), a watcher resuming from 3 gets those results."""

    async def main() -> None:
        hub = Hub(state(10), Waker(), round_backlog=3, horizon=10)
        hub.publish(state(11, ends_round=True))
        hub.backfill([state(v, ends_round=True) for v in (5, 7, 9)], horizon=4)
        assert hub.horizon == 4
        assert hub.dropped == 5  # four held at most three: the oldest is dropped
        assert await drain(hub.subscribe(from_version=3)) == [7, 9, 11]
        hub.backfill([state(2, ends_round=True)], horizon=2)  # further back: the newest kept
        assert await drain(hub.subscribe(from_version=1)) == [7, 9, 11]
        hub.backfill([state(1, ends_round=True)], horizon=3)  # not further back: nothing
        assert hub.horizon == 2

    asyncio.run(main())


def test_a_round_backlog_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1, not 0"):
        Hub(state(1), Waker(), round_backlog=0)


def test_waking_is_a_batch_per_loop_turn_and_other_work_runs_between_batches() -> None:
    """100 waiting watchers, batches of 32: a feed event that arrives once the first watcher
    has sent (a callback that send schedules) is handled after the first batch's sends, not
    after all 100."""

    async def main() -> None:
        waker = Waker(batch=32)
        hub = Hub(state(1), waker)
        order: list[str] = []
        slots = [hub.subscribe(0) for _ in range(100)]
        loop = asyncio.get_running_loop()

        async def watch(i: int, slot: Slot) -> None:
            assert (await slot.take()) == state(1)
            assert (await slot.take()) == state(2)
            if not order:  # the first send: the feed's next event arrives
                loop.call_soon(order.append, "feed")
            order.append(f"w{i}")

        tasks = [asyncio.create_task(watch(i, s)) for i, s in enumerate(slots)]
        while not all(s.waiting for s in slots):
            await asyncio.sleep(0)
        hub.publish(state(2))
        assert len(waker) == 100
        await asyncio.gather(*tasks)
        assert len(waker) == 0
        assert order.index("feed") == 32, f"the feed waited for {order.index('feed')} sends"
        assert sorted(order) == sorted(["feed", *(f"w{i}" for i in range(100))])

    asyncio.run(main())


def test_a_batch_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1, not 0"):
        Waker(batch=0)


def test_a_watcher_cancelled_while_it_waits_is_skipped() -> None:
    async def main() -> None:
        hub = Hub(state(1), Waker())
        slot = hub.subscribe(0)
        await slot.take()
        task = asyncio.create_task(slot.take())
        await asyncio.sleep(0)
        task.cancel()
        await asyncio.sleep(0)
        assert hub.publish(state(2)) == 0
        await asyncio.sleep(0)  # the waker's turn: the cancelled waiter is left alone
        assert (await slot.take()) == state(2)

    asyncio.run(main())


def test_the_final_state_reaches_every_watcher_whatever_its_from_version() -> None:
    async def main() -> None:
        hub = Hub(state(3), Waker())
        ahead = hub.subscribe(from_version=10)
        assert ahead.pending is None  # version 3 is older than it asked for
        behind = hub.subscribe(from_version=0)
        assert (await behind.take()) == state(3)
        hub.publish(state(4, final=True))
        assert not hub.slots
        assert (await ahead.take()) == state(4, final=True)
        assert (await behind.take()) == state(4, final=True)
        late = hub.subscribe(0)  # subscribing to a closed table: the final state, then end
        assert late.pending == state(4, final=True) and late not in hub.slots

    asyncio.run(main())


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("publish"), st.integers(1, 3), st.booleans()),
            st.tuples(st.just("turn"), st.integers(1, 5), st.just(False)),
        ),
        max_size=40,
    ),
    pace=st.lists(st.integers(1, 6), min_size=1, max_size=6),
    batch=st.integers(1, 4),
    backlog=st.integers(1, 6),
)
def test_watchers_see_increasing_versions_every_round_result_and_the_latest(
    steps: list[tuple[str, int, bool]], pace: list[int], batch: int, backlog: int
) -> None:
    """Against a model: whatever the interleaving of publishes and loop turns, and however
    slow each watcher (``pace``: loop turns per send), each watcher receives strictly
    increasing versions, each one published, every round-ending one from its first on, and
    last the latest; or, only if a round-ending state it was due is no longer held, it is told
    so, having been sent every one before."""

    async def main() -> None:
        hub = Hub(state(1), Waker(batch=batch), round_backlog=backlog)
        seen: list[list[int]] = [[] for _ in pace]
        behind: list[FellBehind | None] = [None for _ in pace]
        slots = [hub.subscribe(0) for _ in pace]

        async def watch(i: int) -> None:
            try:
                while (got := await slots[i].take()) is not None:
                    seen[i].append(got.version)
                    for _ in range(pace[i]):  # a send takes turns
                        await asyncio.sleep(0)
            except FellBehind as exc:
                behind[i] = exc

        tasks = [asyncio.create_task(watch(i)) for i in range(len(pace))]
        version = 1
        rounds: list[int] = []
        for kind, n, ends_round in steps:
            if kind == "publish":
                for _ in range(n):
                    version += 1
                    hub.publish(state(version, ends_round=ends_round))
                    if ends_round:
                        rounds.append(version)
            else:
                for _ in range(n):
                    await asyncio.sleep(0)
        for _ in range(max(pace) * (version + 3) * len(pace) + 10):  # let everything drain
            await asyncio.sleep(0)
        for slot in slots:
            slot.end()
        await asyncio.gather(*tasks)
        for got, fell in zip(seen, behind, strict=True):
            assert got == sorted(set(got)), got
            assert set(got) <= set(range(1, version + 1))
            last = got[-1] if got else 0
            if fell is None:
                assert got[-1] == version
                assert set(rounds) <= set(got), f"round results {set(rounds) - set(got)} lost"
            else:
                assert fell.resume_from == last + 1
                due = [r for r in rounds if r > last]
                assert due and due[0] <= hub.dropped, "told it fell behind with all still held"
                assert {r for r in rounds if r <= last} <= set(got)
            if len(rounds) <= backlog:
                assert fell is None

    asyncio.run(main())
