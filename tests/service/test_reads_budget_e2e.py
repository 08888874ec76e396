"""A real server's read budgets: reads never take a write's place, an expensive read beyond
its caller's budget is refused with a RetryInfo, and a report whose caller leaves or whose
deadline passes has its worker killed, not left computing (``pricing.server.offload``)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from pricing.errors import LimitExceeded
from pricing.server.offload import _report
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.server import ServerProcess, start_server

pytestmark = pytest.mark.timeout(120)

#: A report of seconds: 8-deck Higher/Lower dealt down, round by round, with no burns.
SLOW_REPORT = pb.AnalyzeRequest(
    game=pb.GAME_HIGHER_LOWER,
    decks=8,
    higher_lower=pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING, burns=0),
)


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os_ticks()


def os_ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def workers_quiet(server: ServerProcess, within: float = 15.0) -> bool:
    """Whether the server's worker processes stop using CPU (under 5 % of a core over 0.5 s)
    within ``within`` seconds: a report left running keeps one core busy."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        pids = _children(server.proc.pid)
        before = _cpu_seconds(pids)
        time.sleep(0.5)  # a measuring window, not a wait for the server
        if _cpu_seconds(pids) - before < 0.025:
            return True
    return False


def retry_info(error: grpc.RpcError) -> error_details_pb2.RetryInfo | None:
    for key, value in error.trailing_metadata() or ():  # type: ignore[attr-defined]
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.RetryInfo()
                if detail.Unpack(info):
                    return info
    return None


class Busy:
    """``count`` slow reports kept in progress on a server: ``keep()`` sends again each one
    that found no place (a probe held it for a moment) and has ended."""

    def __init__(self, reads: pb_grpc.PricingServiceStub, count: int) -> None:
        self._send = reads.Analyze.future
        self.calls = [self._send(SLOW_REPORT) for _ in range(count)]

    def keep(self) -> None:
        self.calls = [c if not c.done() else self._send(SLOW_REPORT) for c in self.calls]

    def cancel(self) -> None:
        for call in self.calls:
            call.cancel()


def refused_while(busy: Busy, call: Callable[[], object], within: float = 30.0) -> grpc.RpcError:
    """The error ``call`` ends with once it is refused RESOURCE_EXHAUSTED, the busy reports
    kept in progress meanwhile; any other outcome while they are not all in yet is retried."""
    deadline = time.monotonic() + within
    while True:
        busy.keep()
        error = refused(call)
        if error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED:
            return error
        assert time.monotonic() < deadline, f"never refused: {error}"


def refused(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def test_reads_never_take_a_writes_place_and_a_refused_read_says_when_to_retry() -> None:
    server = start_server("--max-concurrent-reads=2")
    try:
        reads = server.pricing()
        busy = Busy(reads, 2)  # both reports in progress: the next read finds no place
        error = refused_while(
            busy, lambda: reads.GetTable(pb.GetTableRequest(table_id="t"), timeout=10)
        )
        assert "--max-concurrent-reads is 2" in (error.details() or "")
        info = retry_info(error)
        assert info is not None and info.retry_delay.ToNanoseconds() > 0
        dealer = server.dealer()
        dealer.OpenTable(pb.OpenTableRequest(table_id="t", game=pb.GAME_HILO), timeout=10)
        state = dealer.ExposeCard(
            pb.ExposeCardRequest(table_id="t", seq=1, card="7H", role=pb.CARD_ROLE_BURN),
            timeout=10,
        )
        assert state.version == 2
        busy.cancel()
        assert workers_quiet(server), "a report whose caller left is still computing"
    finally:
        server.stop()


def test_an_expensive_read_beyond_its_callers_budget_is_refused_cheap_ones_are_not() -> None:
    server = start_server("--max-expensive-reads-per-caller=1")
    try:
        reads = server.pricing()
        busy = Busy(reads, 1)
        error = refused_while(busy, lambda: reads.Analyze(SLOW_REPORT, timeout=0.5))
        assert "--max-expensive-reads-per-caller is 1" in (error.details() or "")
        assert retry_info(error) is not None
        quote = reads.Quote(
            pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, include_player_edge=True),
            timeout=30,
        )
        assert quote.HasField("player_edge")  # a quote's budget is not a report's
        assert reads.Quote(pb.QuoteRequest(game=pb.GAME_HILO), timeout=30).prices
        busy.cancel()
    finally:
        server.stop()


def test_a_report_past_its_deadline_is_stopped() -> None:
    server = start_server("--max-read-seconds=0.5")
    try:
        t0 = time.monotonic()
        error = refused(lambda: server.pricing().Analyze(SLOW_REPORT, timeout=60))
        assert error.code() is grpc.StatusCode.DEADLINE_EXCEEDED, error
        assert time.monotonic() - t0 < 10
        assert workers_quiet(server), "a report past its deadline is still computing"
        # The call's own deadline, shorter than the flag's, wins the same way.
        early = refused(lambda: server.pricing().Analyze(SLOW_REPORT, timeout=0.3))
        assert early.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert workers_quiet(server)
    finally:
        server.stop()


def test_the_deprecated_flag_sets_both_budgets_and_says_so() -> None:
    server = start_server("--max-concurrent-rpcs=1")
    try:
        reads = server.pricing()
        busy = Busy(reads, 1)
        error = refused_while(
            busy, lambda: reads.GetTable(pb.GetTableRequest(table_id="t"), timeout=10)
        )
        assert "--max-concurrent-reads is 1" in (error.details() or "")
        busy.cancel()
        assert "--max-concurrent-rpcs is deprecated" in server.log()
    finally:
        server.stop()


def test_an_answer_over_the_bound_is_refused_naming_it() -> None:
    request = pb.AnalyzeRequest(game=pb.GAME_HILO).SerializeToString()
    assert len(_report(request, 1 << 22)) > 100
    with pytest.raises(LimitExceeded) as info:
        _report(request, 100)
    assert info.value.limit == "max-answer-bytes" and "--max-answer-bytes is 100" in str(info.value)
