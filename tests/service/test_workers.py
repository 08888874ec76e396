"""The worker lanes (``pricing.server.workers``): real worker processes, stopped when their
caller leaves or their deadline passes, replaced after their tasks, run at a lower priority;
and the read side's budgets in front of them (``pricing.server.budgets``)."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.rpc import error_details_pb2

from pricing.errors import LimitExceeded
from pricing.server.budgets import RETRY_AFTER_SECONDS, ExpensiveReads, ReadKind
from pricing.server.status import refusal_of, rich_status
from pricing.server.workers import WORKER_NICENESS, DeadlinePassed, Lane, WorkerLost
from tests.support import worker_tasks as tasks

pytestmark = pytest.mark.timeout(120)

T = TypeVar("T")


def run(lane: Lane, body: Callable[[Lane], Coroutine[Any, Any, T]]) -> T:
    """``body(lane)`` on an event loop, the lane's workers stopped afterwards."""

    async def main() -> T:
        try:
            return await body(lane)
        finally:
            lane.close()

    return asyncio.run(main())


def later(seconds: float) -> float:
    return asyncio.get_running_loop().time() + seconds


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().split(")")[-1].split()[0] != "Z"


async def gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def started_pid(path: Path, within: float = 30.0) -> int:
    deadline = time.monotonic() + within
    while not path.exists() or not path.read_text():
        assert time.monotonic() < deadline, "the task never started"
        await asyncio.sleep(0.02)
    return int(path.read_text())


def test_a_task_runs_in_a_worker_at_a_lower_priority() -> None:
    async def body(lane: Lane) -> None:
        pid = int(await lane.run(tasks.pid, deadline=later(30)))
        assert pid != os.getpid()
        nice = int(await lane.run(tasks.niceness, deadline=later(30)))
        assert nice == os.nice(0) + WORKER_NICENESS
        assert await lane.run(tasks.echo, b"bytes", deadline=later(30)) == b"bytes"
        with pytest.raises(ValueError, match="as it was raised"):
            await lane.run(tasks.fail, "as it was raised", deadline=later(30))

    run(Lane("test", 1), body)


def test_a_cancelled_call_kills_its_worker(tmp_path: Path) -> None:
    """The caller goes away (its task cancelled, as gRPC cancels a handler): the worker
    computing its answer is killed, not left running, and the lane goes on with a new one."""

    async def body(lane: Lane) -> None:
        marker = tmp_path / "started"
        call = asyncio.ensure_future(
            lane.run(tasks.sleep_forever, str(marker), deadline=later(300))
        )
        pid = await started_pid(marker)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert await gone(pid), f"worker {pid} still runs after its caller left"
        assert lane.running == 0
        assert await lane.run(tasks.echo, b"next", deadline=later(30)) == b"next"

    run(Lane("test", 1), body)


def test_a_deadline_passed_while_computing_kills_the_worker(tmp_path: Path) -> None:
    async def body(lane: Lane) -> None:
        marker = tmp_path / "started"
        await lane.run(
            tasks.pid, deadline=later(30)
        )  # the worker is up: the deadline is the task's
        t0 = time.monotonic()
        with pytest.raises(DeadlinePassed, match="not ready by the deadline"):
            await lane.run(tasks.sleep_forever, str(marker), deadline=later(1.0))
        assert time.monotonic() - t0 < 5
        assert await gone(int(marker.read_text()))

    run(Lane("test", 1), body)


def test_a_call_waiting_past_its_deadline_never_reaches_a_worker(tmp_path: Path) -> None:
    async def body(lane: Lane) -> None:
        busy = asyncio.ensure_future(
            lane.run(tasks.sleep_forever, str(tmp_path / "busy"), deadline=later(300))
        )
        await started_pid(tmp_path / "busy")
        with pytest.raises(DeadlinePassed, match="waited"):
            await lane.run(tasks.sleep_forever, str(tmp_path / "late"), deadline=later(0.3))
        assert lane.waiting == 0 and not (tmp_path / "late").exists()
        busy.cancel()
        with pytest.raises(asyncio.CancelledError):
            await busy

    run(Lane("test", 1), body)


def test_cheaper_work_waiting_goes_first(tmp_path: Path) -> None:
    async def body(lane: Lane) -> list[bytes]:
        busy = asyncio.ensure_future(
            lane.run(tasks.sleep_forever, str(tmp_path / "busy"), deadline=later(300))
        )
        await started_pid(tmp_path / "busy")
        done: list[bytes] = []

        async def call(text: bytes, priority: int) -> None:
            done.append(await lane.run(tasks.echo, text, deadline=later(60), priority=priority))

        calls = [
            asyncio.ensure_future(call(b"expensive 1", 1)),
            asyncio.ensure_future(call(b"expensive 2", 1)),
            asyncio.ensure_future(call(b"cheap", 0)),
        ]
        await asyncio.sleep(0.05)
        assert lane.waiting == 3
        busy.cancel()  # frees the one worker: the waiting calls go one at a time
        await asyncio.gather(*calls)
        return done

    assert run(Lane("test", 1), body) == [b"cheap", b"expensive 1", b"expensive 2"]


def test_a_waiting_caller_that_leaves_gives_up_its_place(tmp_path: Path) -> None:
    async def body(lane: Lane) -> None:
        busy = asyncio.ensure_future(
            lane.run(tasks.sleep_forever, str(tmp_path / "busy"), deadline=later(300))
        )
        await started_pid(tmp_path / "busy")
        waiting = asyncio.ensure_future(lane.run(tasks.echo, b"gone", deadline=later(60)))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert lane.waiting == 0
        busy.cancel()
        with pytest.raises(asyncio.CancelledError):
            await busy
        assert lane.running == 0
        assert await lane.run(tasks.echo, b"next", deadline=later(30)) == b"next"

    run(Lane("test", 1), body)


def test_a_worker_that_dies_is_replaced_and_the_call_told() -> None:
    async def body(lane: Lane) -> None:
        with pytest.raises(WorkerLost, match="ended before it answered"):
            await lane.run(tasks.die, deadline=later(30))
        assert await lane.run(tasks.echo, b"next", deadline=later(30)) == b"next"

    run(Lane("test", 1), body)


def test_a_worker_is_replaced_after_its_tasks_so_its_memory_goes_back() -> None:
    async def body(lane: Lane) -> list[int]:
        return [int(await lane.run(tasks.pid, deadline=later(30))) for _ in range(3)]

    pids = run(Lane("test", 1, tasks_per_process=1), body)
    assert len(set(pids)) == 3
    kept = run(Lane("test", 1), body)
    assert len(set(kept)) == 1


# ---- the budgets ---------------------------------------------------------------------------


def test_each_caller_and_each_kind_has_its_own_budget() -> None:
    reads = ExpensiveReads(per_caller=2, total=3)
    with reads.admit(ReadKind.QUOTE, "a"), reads.admit(ReadKind.QUOTE, "a"):
        with pytest.raises(LimitExceeded) as mine, reads.admit(ReadKind.QUOTE, "a"):
            pass
        assert mine.value.limit == "max-expensive-reads-per-caller"
        assert mine.value.retry_after == RETRY_AFTER_SECONDS
        with reads.admit(ReadKind.REPORT, "a"), reads.admit(ReadKind.QUOTE, "b"):
            with pytest.raises(LimitExceeded) as everyone, reads.admit(ReadKind.QUOTE, "c"):
                pass
            assert everyone.value.limit == "max-expensive-reads"
            assert reads.under_way(ReadKind.QUOTE) == 3
    assert reads.under_way(ReadKind.QUOTE) == 0
    with pytest.raises(RuntimeError), reads.admit(ReadKind.POSITION, "a"):
        raise RuntimeError("a read that fails gives its place back")
    assert reads.under_way(ReadKind.POSITION) == 0
    assert not reads._callers  # a caller gone leaves nothing behind


def test_a_budget_refusal_says_when_to_retry() -> None:
    exc = LimitExceeded("max-expensive-reads", 64, "too many", retry_after=1.5)
    refusal = refusal_of(exc)
    assert refusal is not None and refusal.code is grpc.StatusCode.RESOURCE_EXHAUSTED
    status = rich_status(refusal, str(exc))
    retry = error_details_pb2.RetryInfo()
    assert any(detail.Unpack(retry) for detail in status.details)
    assert retry.retry_delay.ToNanoseconds() == 1_500_000_000
    assert refusal.metadata == {"limit": "max-expensive-reads", "value": "64"}
    plain = rich_status(refusal_of(LimitExceeded("max-tables", 1, "full")), "full")  # type: ignore[arg-type]
    assert not any(d.Is(error_details_pb2.RetryInfo.DESCRIPTOR) for d in plain.details)


def test_a_limit_crosses_a_process_boundary_whole() -> None:
    exc = LimitExceeded("max-answer-bytes", 10, "too big", table_id="t", retry_after=2.0)
    back = pickle.loads(pickle.dumps(exc))
    assert (str(back), back.limit, back.value, back.table_id, back.retry_after) == (
        str(exc), "max-answer-bytes", 10, "t", 2.0,
    )  # fmt: skip


def test_callers_leaving_together_leave_no_work_behind(tmp_path: Path) -> None:
    """The running call and those waiting behind it are cancelled at once (a client process
    gone): the turn the first one frees is handed to a waiting call in the same moment, whose
    cancellation must not be lost (it would compute an answer nobody reads)."""

    async def body(lane: Lane) -> None:
        markers = [tmp_path / f"started-{i}" for i in range(4)]
        calls = [
            asyncio.ensure_future(lane.run(tasks.sleep_forever, str(m), deadline=later(300)))
            for m in markers
        ]
        await started_pid(markers[0])
        for call in calls:
            call.cancel()
        _, still = await asyncio.wait(calls, timeout=20)
        assert not still, f"{len(still)} cancelled call(s) went on to run"
        assert all(call.cancelled() for call in calls)
        assert (lane.running, lane.waiting) == (0, 0)
        assert await lane.run(tasks.echo, b"next", deadline=later(30)) == b"next"
        assert [m.name for m in markers[1:] if m.exists()] == []

    run(Lane("test", 1), body)


def test_a_worker_killed_while_idle_breaks_no_later_call() -> None:
    """A worker killed between tasks (the kernel's out-of-memory killer, an operator's kill -9)
    breaks pebble's pool for good: the call that finds it so is told WorkerLost at worst, and
    the lane starts a new pool for the next."""

    async def body(lane: Lane) -> list[bytes | str]:
        pid = int(await lane.run(tasks.pid, deadline=later(30)))
        os.kill(pid, signal.SIGKILL)
        assert await gone(pid)
        await asyncio.sleep(0.5)  # pebble's manager notices the death (it polls)
        said: list[bytes | str] = []
        for _ in range(3):
            try:
                said.append(await lane.run(tasks.echo, b"ok", deadline=later(30)))
            except WorkerLost as exc:
                said.append(str(exc))
        return said

    said = run(Lane("test", 1), body)
    assert said[-1] == b"ok" and said[-2] == b"ok", said
