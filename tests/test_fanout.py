"""The fan-out (pricing.fanout): every watcher ends on the newest version, in order, and
waking thousands of watchers leaves the event loop free between batches."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.fanout import Hub, Published, Slot, Waker


def state(version: int, final: bool = False) -> Published:
    return Published(version, f"v{version}".encode(), final)


def test_a_stream_that_ends_sends_what_is_in_its_slot_first() -> None:
    async def main() -> None:
        slot = Slot(0)
        slot.put(state(5))
        slot.end()
        assert (await slot.take()) == state(5)
        assert await slot.take() is None

    asyncio.run(main())


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


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.just("publish"), st.integers(1, 3)),
            st.tuples(st.just("turn"), st.integers(1, 5)),
        ),
        max_size=40,
    ),
    watchers=st.integers(1, 6),
    batch=st.integers(1, 4),
)
def test_watchers_see_increasing_versions_ending_at_the_latest(
    steps: list[tuple[str, int]], watchers: int, batch: int
) -> None:
    """Against a model: whatever the interleaving of publishes and loop turns, each watcher
    receives strictly increasing versions, each one published, the last the latest; and the
    conflated count is what each watcher skipped while it had an unread state."""

    async def main() -> None:
        hub = Hub(state(0), Waker(batch=batch))
        seen: list[list[int]] = [[] for _ in range(watchers)]
        slots = [hub.subscribe(0) for _ in range(watchers)]

        async def watch(i: int) -> None:
            while (got := await slots[i].take()) is not None:
                seen[i].append(got.version)
                await asyncio.sleep(0)  # a send takes a turn

        tasks = [asyncio.create_task(watch(i)) for i in range(watchers)]
        version = 0
        for kind, n in steps:
            if kind == "publish":
                for _ in range(n):
                    version += 1
                    hub.publish(state(version))
            else:
                for _ in range(n):
                    await asyncio.sleep(0)
        for _ in range(watchers * (version + 3) + 10):  # let everything drain
            await asyncio.sleep(0)
        for slot in slots:
            slot.end()
        await asyncio.gather(*tasks)
        for got in seen:
            assert got == sorted(set(got)), got
            assert set(got) <= set(range(version + 1))
            assert got[-1] == version

    asyncio.run(main())
