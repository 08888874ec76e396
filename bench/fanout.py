"""The fan-out's own cost per watcher and version: ``Hub.publish`` plus each watcher's
``Slot.take``, against a bare latest-wins mailbox in the same run: the same publish loop and
awaited take, keeping only the newest state (what the fan-out did before it held round
results, and the least any fan-out does).

Run with ``make bench`` (or ``.venv/bin/python bench/fanout.py``). Three shapes, 5,000 watchers
that keep up: no round ends, a round ending every 3rd version (Hi-Lo deals 16 versions a deck,
10 of them results), and every version ending a round. Goal: at most 2.5x the bare mailbox.
Either is a small part of a watcher's message: hundreds of nanoseconds here, against tens of
microseconds of server CPU per message gRPC delivers (docs/BENCHMARKS.md, "Service at scale").
"""

from __future__ import annotations

import asyncio
import time

import _harness  # noqa: F401  (puts the repository on sys.path)

from pricing.server.fanout import Hub, Published, Waker

WATCHERS = 5_000
VERSIONS = 40
GOAL = 2.5


class BareSlot:
    """The baseline: the newest state not taken yet, nothing else."""

    __slots__ = ("pending",)

    def __init__(self, first: Published) -> None:
        self.pending: Published | None = first

    def put(self, published: Published) -> bool:
        conflated = self.pending is not None
        self.pending = published
        return conflated

    async def take(self) -> Published | None:
        published, self.pending = self.pending, None
        return published


async def bare(every: int) -> float:
    slots = [BareSlot(Published(1, b"s", False)) for _ in range(WATCHERS)]
    for slot in slots:
        await slot.take()
    t0 = time.perf_counter()
    for version in range(2, VERSIONS + 2):
        published = Published(version, b"s", False, version % every == 0)
        conflated = 0
        for slot in slots:
            conflated += slot.put(published)
        for slot in slots:
            await slot.take()
    return time.perf_counter() - t0


async def hub(every: int) -> float:
    table = Hub(Published(1, b"s", False), Waker())
    slots = [table.subscribe(0) for _ in range(WATCHERS)]
    for slot in slots:
        await slot.take()
    t0 = time.perf_counter()
    for version in range(2, VERSIONS + 2):
        table.publish(Published(version, b"s", False, version % every == 0))
        for slot in slots:
            await slot.take()
    return time.perf_counter() - t0


def main() -> None:
    ok = True
    per = WATCHERS * VERSIONS
    for name, every in (("no round ends", VERSIONS + 10), ("a round every 3rd", 3), ("every", 1)):
        ours = min(asyncio.run(hub(every)) for _ in range(5))
        base = min(asyncio.run(bare(every)) for _ in range(5))
        ratio = ours / base
        verdict = "ok" if ratio <= GOAL else f"ABOVE GOAL {GOAL}x"
        ok &= ratio <= GOAL
        print(
            f"fan-out, {name:<18} {ours / per * 1e9:6.0f} ns per watcher and version; "
            f"bare mailbox {base / per * 1e9:4.0f} ns = {ratio:4.2f}x  {verdict}"
        )
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
