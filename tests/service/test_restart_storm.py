"""A restart storm: a dozen dealer feeds of every kind (blocking and asyncio clients, calls and
Feed streams) keep dealing while the server is stopped with SIGTERM and killed with SIGKILL
at random moments and started again on the same journal. No feed gives up, and every table
is, event for event, what its feed was told.

``STORM_SECONDS`` (default 0: the restarts below, then stop) lengthens it for ``make chaos``.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pricing.cards import DECK
from pricing.client import AsyncPricingClient, PricingClient
from pricing.journal.fold import fold_records
from pricing.journal.tools import export_records
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import snapshot_to_proto
from tests.support.effort import effort
from tests.support.server import start_server

CARDS = [str(card) for card in DECK]
KINDS = ("blocking", "blocking-streamed", "asyncio", "asyncio-streamed")
FEEDS_PER_KIND = 3
TERM_RESTARTS = effort(suite=3, exhaustive=6)
KILL_RESTARTS = effort(suite=2, exhaustive=3)
STORM_SECONDS = float(os.environ.get("STORM_SECONDS", "0"))


@dataclass
class Told:
    """What one table's feed sent and was answered, by seq (index 0: the opening)."""

    table_id: str
    kind: str
    rng: random.Random
    sent: list[tuple[str, str]] = field(default_factory=list)
    answers: list[pb.TableState] = field(default_factory=list)
    error: BaseException | None = None

    def next_event(self) -> tuple[str, str]:
        """The next Hi-Lo event after the last answer: burns, results (a burn now and then,
        which voids the round), a new shoe once the deck is complete."""
        state = self.answers[-1]
        if state.phase == pb.PHASE_SHOE_COMPLETE:
            return ("new_shoe", "")
        unseen = sorted(set(CARDS) - set(state.exposed))
        card = self.rng.choice(unseen)
        role = "BURN" if state.phase == pb.PHASE_OPENING or self.rng.random() < 0.1 else "RESULT"
        return ("expose", f"{card} {role}")


def _feed_blocking(told: Told, target: str, stop: threading.Event, streamed: bool) -> None:
    with (
        PricingClient(target, timeout=5) as client,
        client.feed(told.table_id, streamed=streamed) as feed,
    ):
        told.answers.append(feed.open("HILO"))
        while not stop.is_set():
            kind, args = told.next_event()
            told.sent.append((kind, args))
            answer = feed.new_shoe() if kind == "new_shoe" else feed.expose(*args.split())
            told.answers.append(answer)


async def _feed_async(told: Told, target: str, stop: threading.Event, streamed: bool) -> None:
    async with (
        AsyncPricingClient(target, timeout=5) as client,
        client.feed(told.table_id, streamed=streamed) as feed,
    ):
        told.answers.append(await feed.open("HILO"))
        while not stop.is_set():
            kind, args = told.next_event()
            told.sent.append((kind, args))
            answer = await (feed.new_shoe() if kind == "new_shoe" else feed.expose(*args.split()))
            told.answers.append(answer)


def _feeder(told: Told, target: str, stop: threading.Event) -> Callable[[], None]:
    def run() -> None:
        try:
            if told.kind.startswith("blocking"):
                _feed_blocking(told, target, stop, told.kind.endswith("streamed"))
            else:
                asyncio.run(_feed_async(told, target, stop, told.kind.endswith("streamed")))
        except BaseException as exc:  # the test reports it
            told.error = exc

    return run


def _wait_for_progress(feeds: list[Told], events: int, timeout: float = 30.0) -> None:
    """Until every feed has had ``events`` more events answered (or one has failed)."""
    goal = [len(t.answers) + events for t in feeds]
    deadline = time.monotonic() + timeout
    while any(len(t.answers) < g and t.error is None for t, g in zip(feeds, goal, strict=True)):
        assert time.monotonic() < deadline, "the feeds made no progress after a restart"
        time.sleep(0.01)


def _check_told(data_dir: Path, told: Told) -> None:
    """The journal holds exactly the events the feed sent, and folds, version by version, to
    the very states the feed was answered."""
    records = export_records(data_dir, told.table_id)
    assert len(records) == len(told.answers), (
        f"{told.table_id}: {len(records) - 1} events journaled, {len(told.answers) - 1} answered"
    )
    table = fold_records(told.table_id, None, records[:1])
    assert snapshot_to_proto(table.snapshot) == told.answers[0], "the opening"
    for seq, record in enumerate(records[1:], start=1):
        table.apply(record.entry.seq, record.entry.event)
        assert record.entry.seq == seq
        assert snapshot_to_proto(table.snapshot) == told.answers[seq], (
            f"{told.table_id}: seq {seq} ({told.sent[seq - 1]}) answered "
            f"{told.answers[seq]} but journaled as {snapshot_to_proto(table.snapshot)}"
        )


def storm(seed: int, seconds: float = 0.0) -> None:
    rng = random.Random(seed)
    server = start_server()
    port, data_dir = server.grpc_port, server.data_dir
    assert data_dir is not None
    stop = threading.Event()
    feeds = [
        Told(f"storm-{kind}-{i}", kind, random.Random(rng.random()))
        for kind in KINDS
        for i in range(FEEDS_PER_KIND)
    ]
    threads = [threading.Thread(target=_feeder(t, server.target, stop)) for t in feeds]
    for thread in threads:
        thread.start()
    restarts = [signal.SIGTERM] * TERM_RESTARTS + [signal.SIGKILL] * KILL_RESTARTS
    rng.shuffle(restarts)
    deadline = time.monotonic() + seconds
    try:
        while restarts or time.monotonic() < deadline:
            sig = restarts.pop() if restarts else rng.choice([signal.SIGTERM, signal.SIGKILL])
            _wait_for_progress(feeds, rng.randint(1, 8))
            time.sleep(rng.uniform(0, 0.05))  # anywhere in an event's round trip
            code = server.stop(sig)
            assert code == (0 if sig == signal.SIGTERM else -signal.SIGKILL), server.log()
            server = start_server(f"--port={port}", data_dir=data_dir)
        _wait_for_progress(feeds, 3)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
        final = server
    assert not any(thread.is_alive() for thread in threads), "a feed did not stop"
    failed = {t.table_id: repr(t.error) for t in feeds if t.error is not None}
    assert not failed, f"feeds gave up: {failed}\n{final.log()}"
    assert final.stop() == 0, final.log()
    for told in feeds:
        _check_told(data_dir, told)


@pytest.mark.serial
@pytest.mark.timeout(60 + 2 * STORM_SECONDS)
@pytest.mark.parametrize("seed", [21])
def test_no_feed_gives_up_through_a_restart_storm(seed: int) -> None:
    storm(seed, STORM_SECONDS)
