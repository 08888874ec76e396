"""The reads computed away from the event loop: every Quote and every Analyze, in worker
processes (``pricing.server.workers``), under the read side's budgets
(``pricing.server.budgets``), each by its deadline and within ``--max-answer-bytes``.

What costs what (``bench/read_costs.py``, docs/BENCHMARKS.md "What each read costs"): a quote
of a shoe's bets, insurance and dealer outcomes takes 0.03-1 ms (blackjack with every side bet
on an 8-deck shoe: up to about 2 ms); a player's hand adds milliseconds, a player edge about
0.1 s on a full 8-deck shoe; a report takes milliseconds to seconds. All of them go to the
quote lane or the report lane, so that none holds the serving process's GIL: even a cheap quote
costs the event loop no more than sending its bytes to a worker and back. A cheap quote goes
ahead of the expensive ones waiting in its lane; the expensive ones (a player edge or hand, any
report) also count against the caller's budgets. A report's worker is replaced after each
report, so the memory a report took goes back to the system as soon as it is answered.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

from pricing.errors import LimitExceeded
from pricing.journal import Record
from pricing.server.analyze import answer_analyze, answer_live
from pricing.server.budgets import ExpensiveReads, ReadKind, caller_of
from pricing.server.limits import Limits
from pricing.server.workers import Lane
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import answer_quote

__all__ = ["QUOTE_TASKS_PER_PROCESS", "Offload", "is_expensive"]

#: A quote worker is replaced after this many quotes, giving back what the kernels' caches and
#: the allocator kept of the largest shoes it priced. Rarely: a quote worker's memory stays
#: flat (about 30 MiB after hundreds of edges and hands on random 8-deck shoes), and each
#: replacement costs a process start (about a second of a core).
QUOTE_TASKS_PER_PROCESS: Final = 10_000

#: Queue order in the quote lane: cheap quotes first.
_CHEAP: Final = 0
_EXPENSIVE: Final = 1


def is_expensive(request: pb.QuoteRequest) -> bool:
    """Whether a quote asks for a blackjack player's edge or hand: milliseconds to a tenth of
    a second, where the rest of a quote takes about one (a baccarat or Dragon Tiger round's
    hands, a fraction of a millisecond, are cheap)."""
    blackjack = request.game == pb.GAME_BLACKJACK
    return request.include_player_edge or (blackjack and len(request.player_hand) > 0)


def _bounded(answer: bytes, max_bytes: int, what: str) -> bytes:
    if len(answer) > max_bytes:
        raise LimitExceeded(
            "max-answer-bytes", max_bytes, f"the {what} answer would take {len(answer)} bytes"
        )
    return answer


# ---- what the workers run: bytes in, bytes out ---------------------------------------------


def _quote(request: bytes, max_bytes: int) -> bytes:
    answer = answer_quote(pb.QuoteRequest.FromString(request)).SerializeToString()
    return _bounded(answer, max_bytes, "Quote")


def _report(request: bytes, max_bytes: int) -> bytes:
    answer = answer_analyze(pb.AnalyzeRequest.FromString(request)).SerializeToString()
    return _bounded(answer, max_bytes, "Analyze")


def _live_report(request: bytes, records: list[Record], max_bytes: int) -> bytes:
    answer = answer_live(pb.AnalyzeRequest.FromString(request), records).SerializeToString()
    return _bounded(answer, max_bytes, "Analyze")


def _ready() -> None:
    """Nothing: scheduled once so that a worker's imports are done before the server serves."""


class Offload:
    """The quote lane and the report lane, each of ``limits.read_workers`` processes, and the
    budgets in front of them."""

    def __init__(self, limits: Limits) -> None:
        self.quotes = Lane("quote", limits.read_workers, QUOTE_TASKS_PER_PROCESS)
        self.reports = Lane("report", limits.read_workers, tasks_per_process=1)
        self.budgets = ExpensiveReads(
            limits.max_expensive_reads_per_caller, limits.max_expensive_reads
        )
        self.max_seconds = limits.max_read_seconds
        self.max_answer_bytes = limits.max_answer_bytes

    def start(self) -> None:
        """Start the workers (blocking: the imports take a second or so). The report lane's
        workers start as the pool does; a report's imports are a small part of its time."""
        self.quotes.warm(_ready)
        self.reports.start()

    def close(self) -> None:
        self.quotes.close()
        self.reports.close()

    def deadline(self, context: Any) -> float:
        """When a read must be answered by, on the event loop's clock: the call's own deadline,
        at most ``--max-read-seconds`` away."""
        remaining = context.time_remaining() if hasattr(context, "time_remaining") else None
        seconds = self.max_seconds if remaining is None else min(remaining, self.max_seconds)
        return asyncio.get_running_loop().time() + seconds

    def caller(self, context: Any) -> str:
        peer = context.peer() if hasattr(context, "peer") else ""
        return caller_of(context.invocation_metadata(), peer or "")

    def admit(self, kind: ReadKind, context: Any) -> contextlib.AbstractContextManager[None]:
        """Count an expensive read of ``kind`` against its caller's budget and the server's
        while it runs (``ExpensiveReads.admit``)."""
        return self.budgets.admit(kind, self.caller(context))

    async def quote(self, request: pb.QuoteRequest, context: Any) -> bytes:
        """The serialised ``QuoteResponse``; raises what ``answer_quote`` raises."""
        payload = (request.SerializeToString(), self.max_answer_bytes)
        deadline = self.deadline(context)
        if not is_expensive(request):
            return await self.quotes.run(_quote, *payload, deadline=deadline, priority=_CHEAP)
        with self.admit(ReadKind.QUOTE, context):
            return await self.quotes.run(_quote, *payload, deadline=deadline, priority=_EXPENSIVE)

    async def report(
        self, request: pb.AnalyzeRequest, context: Any, records: list[Record] | None = None
    ) -> bytes:
        """The serialised ``AnalyzeResponse``: the theoretical report, or with ``records`` the
        live statistics of a table's journal. The caller has been admitted
        (``admit(ReadKind.REPORT, …)``) before it read the records."""
        deadline = self.deadline(context)
        body = request.SerializeToString()
        if records is None:
            return await self.reports.run(_report, body, self.max_answer_bytes, deadline=deadline)
        return await self.reports.run(
            _live_report, body, records, self.max_answer_bytes, deadline=deadline
        )
