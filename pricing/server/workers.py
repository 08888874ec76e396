"""Worker processes for the reads that cost more than about a millisecond, so that no reader
holds the event loop or the serving process's GIL while the dealer feed waits.

The compiled kernels hold the GIL for their whole run (a player edge on an 8-deck shoe: about
0.1 s; a report: seconds), so a thread would still stop the event loop for each. A worker
process does not, and a process can be stopped: a call whose caller has gone, or whose
deadline has passed, has its worker killed at once and a fresh one started, rather than left
computing an answer nobody will read. The standard library's ``ProcessPoolExecutor`` cannot
cancel a running task; ``pebble``'s pool can (it terminates the worker), and it restarts a
worker after a set number of tasks, which gives a report's memory back to the system.

Each ``Lane`` is one pool with a queue of its own in front, so that the server, not the pool,
decides what runs next: a cheap quote goes before the expensive ones waiting, and a call still
queued when its deadline passes never reaches a worker. Workers run at a lower scheduling
priority than the serving process (``WORKER_NICENESS``): on a busy machine the kernel runs the
feed first. A request goes over as bytes and the answer comes back as bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import heapq
import itertools
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Final

import pebble

__all__ = [
    "WORKER_NICENESS",
    "DeadlinePassed",
    "Lane",
    "WorkerLost",
]

#: How much lower the workers' scheduling priority is than the serving process's.
WORKER_NICENESS: Final = 10

#: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: Linux ends a worker when the server dies, however it
#: dies. A server killed with ``kill -9`` runs no clean-up, and its workers would otherwise
#: live on, more of them at every restart.
_PR_SET_PDEATHSIG: Final = 1


class DeadlinePassed(Exception):
    """The call's deadline (its own, capped by ``--max-read-seconds``) passed before its answer
    was ready: the computation was stopped (DEADLINE_EXCEEDED)."""

    def __init__(self, message: str, *, limit: str = "max-read-seconds") -> None:
        super().__init__(message)
        self.limit = limit


class WorkerLost(Exception):
    """The worker process computing the answer ended without one (killed from outside, out of
    memory): a new one is started; the call may be sent again (UNAVAILABLE)."""


def _start_worker(server_pid: int) -> None:
    """A worker's set-up: it dies with the server, and yields the CPU to the serving process."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server_pid:  # the server died before the line above took effect
        os._exit(1)
    os.nice(WORKER_NICENESS)


@dataclass(order=True)
class _Waiting:
    """A call waiting for a worker: lower ``priority`` first, then first come."""

    priority: int
    order: int
    ready: asyncio.Future[None] = field(compare=False)


class Lane:
    """``processes`` worker processes, each replaced after ``tasks_per_process`` tasks (0:
    never), and the calls waiting for one of them. ``name`` is for the logs and errors."""

    def __init__(self, name: str, processes: int, tasks_per_process: int = 0) -> None:
        self.name = name
        self.processes = processes
        self.tasks_per_process = tasks_per_process
        self._pool: pebble.ProcessPool | None = None
        self._running = 0
        self._waiting: list[_Waiting] = []
        self._order = itertools.count()

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def start(self) -> None:
        """Start the worker processes (a call starts them too, if this was not called)."""
        if self._pool is None:
            # spawn, not fork: the server process runs gRPC's threads, which fork would copy
            # in whatever state they are in.
            self._pool = pebble.ProcessPool(
                max_workers=self.processes,
                max_tasks=self.tasks_per_process,
                initializer=_start_worker,
                initargs=(os.getpid(),),
                context=multiprocessing.get_context("spawn"),
            )

    def warm(self, function: Callable[[], object]) -> None:
        """Run ``function`` once on a worker and wait for it: the imports a task needs are
        done before the server serves (the first call does not pay them)."""
        self.start()
        assert self._pool is not None
        self._pool.schedule(function).result()

    async def run(
        self,
        function: Callable[..., bytes],
        *args: object,
        deadline: float,
        priority: int = 0,
    ) -> bytes:
        """``function(*args)`` on a worker, once one is free (lower ``priority`` first); by
        ``deadline`` (the event loop's ``time()``) or ``DeadlinePassed``. Cancelled (the caller went
        away): the worker computing it is killed. What ``function`` raises is raised here."""
        await self._turn(priority, deadline)
        try:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise DeadlinePassed(f"the deadline passed while the call waited ({self.name})")
            self.start()  # again: a broken pool was discarded while the call waited
            assert self._pool is not None
            try:
                future = self._pool.schedule(function, args, timeout=remaining)
            except (BrokenProcessPool, RuntimeError) as exc:  # pebble: the pool is not running
                self._discard_pool()
                raise WorkerLost(f"the {self.name} workers could not run ({exc}): retry") from None
            try:
                return await asyncio.wrap_future(future)
            except asyncio.CancelledError:
                future.cancel()  # type: ignore[no-untyped-call]  # pebble ends the worker running it
                raise
            except FutureTimeout:
                raise DeadlinePassed(
                    f"the answer was not ready by the deadline ({self.name}): stopped"
                ) from None
            except pebble.ProcessExpired as exc:
                raise WorkerLost(
                    f"the {self.name} worker ended before it answered ({exc}): retry"
                ) from None
            except BrokenProcessPool as exc:
                # Workers that end as they start (killed, out of memory) break the pool: the
                # next call starts a new one.
                self._discard_pool()
                raise WorkerLost(f"the {self.name} workers could not run ({exc}): retry") from None
        finally:
            self._running -= 1
            self._next()

    async def _turn(self, priority: int, deadline: float) -> None:
        """Wait until a worker is free for this call: it then counts as running."""
        if self._running < self.processes and not self._waiting:
            self._running += 1
            return
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        entry = _Waiting(priority, next(self._order), ready)
        heapq.heappush(self._waiting, entry)

        def late() -> None:
            if not ready.done():
                ready.set_exception(
                    DeadlinePassed(
                        f"the deadline passed while the call waited for a {self.name} worker"
                    )
                )

        # Not asyncio.wait_for: on Python 3.11 it returns the result of a future that is done
        # as the waiting task is cancelled, and so loses the cancellation (a caller that left
        # would have its report computed all the same).
        timer = loop.call_at(deadline, late)
        try:
            await ready
        except BaseException:
            if ready.done() and not ready.cancelled() and ready.exception() is None:
                self._running -= 1  # the turn came as the caller left: pass it on
                self._next()
            else:
                ready.cancel()
                with contextlib.suppress(ValueError):
                    self._waiting.remove(entry)
                    heapq.heapify(self._waiting)
            raise
        finally:
            timer.cancel()

    def _next(self) -> None:
        """A worker is free: hand it to the first call waiting."""
        while self._waiting and self._running < self.processes:
            entry = heapq.heappop(self._waiting)
            if not entry.ready.done():
                self._running += 1
                entry.ready.set_result(None)

    def close(self) -> None:
        """Stop every worker (a task running is ended)."""
        if self._pool is not None:
            self._pool.stop()  # type: ignore[no-untyped-call]
            self._pool.join()
            self._pool = None

    def _discard_pool(self) -> None:
        """Drop a broken pool: the next call starts a new one. Its workers are stopped and
        joined on a thread of their own (joining waits for them: not on the event loop)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]
            threading.Thread(target=pool.join, name=f"{self.name}-pool-join", daemon=True).start()
