"""Quotes answered in a worker process, so the heaviest Quote never holds up the dealer feed.

A Quote is the one read whose cost grows with its request (up to 416 cards and every side bet,
insurance and dealer outcome of an 8-deck shoe). Its kernels hold the GIL for their whole run,
so a worker thread would still stop the event loop for each; a worker process does not. The
request goes over as bytes and the answer comes back as bytes, sent as they are.
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from pricing.v1 import pricing_pb2 as pb
from pricing.wire import answer_quote

__all__ = ["QUOTE_NICENESS", "QuoteWorker"]

QUOTE_NICENESS: Final = 10


#: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: Linux ends the worker when the server dies, however it
#: dies. A server killed with ``kill -9`` runs no clean-up, and its worker (and with it
#: multiprocessing's resource tracker) would otherwise live on, one more per restart.
_PR_SET_PDEATHSIG: Final = 1


def _start_worker(server_pid: int) -> None:
    """The worker process's set-up: it dies with the server, and runs after the feed."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server_pid:  # the server died before the line above took effect
        os._exit(1)
    # When the machine is busy the kernel runs the event loop (the feed) first, quotes after.
    os.nice(QUOTE_NICENESS)


def _answer(request: bytes) -> bytes:
    return answer_quote(pb.QuoteRequest.FromString(request)).SerializeToString()


class QuoteWorker:
    """One worker process (started on first use, or by ``start``); quotes queue for it."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        if self._pool is None:
            # spawn, not fork: the server process runs gRPC's threads, which fork would copy
            # in whatever state they are in.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
            self._pool.submit(int).result()  # the worker is up (imports done) before serving

    async def answer(self, request: pb.QuoteRequest) -> bytes:
        """The serialised ``QuoteResponse``; raises what ``answer_quote`` raises."""
        self.start()
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, _answer, request.SerializeToString())
        except BrokenProcessPool:
            self._pool = None  # the worker died (killed, out of memory): a new one next time
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
