"""The examples in examples/ run, as a user would run them, against the real server process: a
dealer feed that numbers its events, rejoins, and retries a lost answer (docs/rules.md §5.1),
and a game server that bets at a version, settles, and resumes after the network fails or the
server restarts (docs/rules.md §5.2, §5.3)."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pricing.v1 import pricing_pb2 as pb
from tests.support import ROOT
from tests.support.proxy import CuttableProxy
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Feed, metric

EXAMPLES = ROOT / "examples"


class Example:
    """An example script running in its own process; its output read line by line."""

    def __init__(self, script: str, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PRICING_")}
        self.proc = subprocess.Popen(
            [sys.executable, str(EXAMPLES / script), *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def expect(self, pattern: str, timeout: float = 20.0) -> re.Match[str]:
        """Read until a line matches ``pattern``; fail with everything read if none does."""
        while True:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}:\n" + self.output) from None
            if line is None:
                raise AssertionError(f"ended without {pattern!r}:\n" + self.output)
            self.lines.append(line)
            match = re.search(pattern, line)
            if match:
                return match

    def wait(self, timeout: float = 30.0) -> int:
        code = self.proc.wait(timeout)
        while (line := self._queue.get(timeout=timeout)) is not None:
            self.lines.append(line)
        return code

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def proxy(server: ServerProcess) -> Iterator[CuttableProxy]:
    cuttable = CuttableProxy(server.grpc_port)
    yield cuttable
    cuttable.close()


def run(script: str, *args: str) -> Example:
    example = Example(script, *args)
    try:
        code = example.wait()
    finally:
        example.kill()
    assert code == 0, example.output
    return example


# ------------------------------------------------------------------------------ dealer_feed.py


def test_dealer_feed_numbers_events_and_a_lost_answer_is_answered_idempotently(
    server: ServerProcess, table_id: str
) -> None:
    args = ("--server", server.target, "--table", table_id, "--seed", "5")
    example = run("dealer_feed.py", *args, "--lose-answer", "8", "--close")
    sent = [re.match(r"seq +(\d+) +(\w+) +(\S*) *-> v(\d+)", line) for line in example.lines]
    numbered = [m for m in sent if m]
    # 5 burns, 10 results, the close: seq 1 … 16, each answered with version seq + 1.
    assert [int(m[1]) for m in numbered] == list(range(1, 17)), example.output
    assert all(int(m[4]) == int(m[1]) + 1 for m in numbered)
    assert "answered v9: the same state (applied once)" in example.output
    state = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    cards = [m[3] for m in numbered if m[2] in ("BURN", "RESULT")]
    # The card of the lost answer left the deck once: the table saw every card once, in order.
    assert list(state.exposed) == cards and len(set(cards)) == 15
    assert (state.last_seq, state.version, state.phase) == (16, 17, pb.PHASE_CLOSED)


def test_dealer_feed_rejoins_where_the_table_is(server: ServerProcess, table_id: str) -> None:
    args = ("--server", server.target, "--table", table_id, "--seed", "9")
    first = run("dealer_feed.py", *args, "--stop-after", "7")
    assert first.lines[-1].startswith("seq   7"), first.output
    second = run("dealer_feed.py", *args)
    assert second.lines[0] == f"rejoined {table_id}: last_seq 7, next seq 8", second.output
    assert second.lines[1].startswith("seq   8") and second.lines[-1].startswith("seq  15")
    state = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert (state.last_seq, state.phase, len(state.exposed)) == (15, pb.PHASE_SHOE_COMPLETE, 15)


def test_dealer_feed_on_a_stream_deals_what_it_deals_by_calls(
    server: ServerProcess, table_id: str
) -> None:
    fed = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}
    before = metric(server, "grpc_server_msg_received_total", fed)
    outputs = []
    for table, streamed in ((f"{table_id}-calls", ()), (f"{table_id}-stream", ("--stream",))):
        args = ("--server", server.target, "--table", table, "--seed", "3", "--close")
        outputs.append(run("dealer_feed.py", *args, *streamed).output.replace(table, "<table>"))
    assert outputs[0] == outputs[1] and outputs[1].count("\nseq ") == 16
    assert metric(server, "grpc_server_msg_received_total", fed) - before == 16  # on a stream
    refused = Example("dealer_feed.py", "--stream", "--lose-answer", "3")
    assert refused.proc.wait(30) == 2  # a call's lost answer: not on a stream


# ------------------------------------------------------------------------------ game_server.py


def watchers_become(server: ServerProcess, count: int, timeout: float = 20.0) -> None:
    """Poll the server's own gauge until ``count`` WatchTable streams are open."""
    deadline = time.monotonic() + timeout
    while metric(server, "pricing_watchers") != count:
        assert time.monotonic() < deadline, f"never {count} watchers:\n{server.metrics_text()}"
        time.sleep(0.02)


def test_game_server_bets_settles_and_resumes_after_the_network_fails(
    server: ServerProcess, proxy: CuttableProxy, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_HILO)
    for card in ("2S", "3S", "4S", "5S", "6S"):
        state = feed.expose(card, pb.CARD_ROLE_BURN)
    assert (state.version, state.phase) == (6, pb.PHASE_BETTING)
    high = next(p for p in state.prices if p.bet == "HIGH")
    args = ("--server", proxy.target, "--table", table_id, "--bet", "HIGH", "--rounds", "3")
    example = Example("game_server.py", *args, "--stake-cents", "1000")
    try:
        # Round 1: accepted at the current version, on the price shown there; HIGH wins on KS.
        accepted = example.expect(r"accepted HIGH 1000 cents on round (\d+) at v(\d+): pays (\S+)")
        assert accepted.groups() == ("1", "6", f"{high.payout_hundredths / 100:.2f}")
        feed.expose("KS", pb.CARD_ROLE_RESULT)
        profit = 1000 * high.payout_hundredths // 100
        example.expect(rf"settled HIGH on round 1 at v6: WIN on KS, returned {1000 + profit} cents")
        example.expect(r"accepted HIGH 1000 cents on round 2 at v7")

        # The network fails and round 2 ends (HIGH loses on 3H) while the game server is away:
        # it resumes from v8 and settles the round from the server's history.
        proxy.cut()
        example.expect(r"UNAVAILABLE \(.*\), reconnecting and resuming from version 8")
        watchers_become(server, 0)
        feed.expose("3H", pb.CARD_ROLE_RESULT)
        proxy.restore()
        example.expect(r"resumed at v8 \(asked for v8\)")
        example.expect(r"settled HIGH on round 2 at v7: LOSE on 3H, returned 0 cents")
        example.expect(r"accepted HIGH 1000 cents on round 3 at v8")

        # It fails again, but nothing happens meanwhile: back, the game server waits for v9
        # instead of taking v8 again. A card exposed during betting then voids round 3.
        proxy.cut()
        example.expect(r"UNAVAILABLE \(.*\), reconnecting and resuming from version 9")
        watchers_become(server, 0)
        proxy.restore()
        watchers_become(server, 1)
        feed.expose("9D", pb.CARD_ROLE_BURN)
        example.expect(r"resumed at v9 \(asked for v9\)")
        example.expect(r"settled HIGH on round 3 at v8: VOID on -, returned 1000 cents")
        assert example.wait() == 0, example.output
    finally:
        example.kill()
    resumed = [line for line in example.lines if line.startswith("resumed")]
    assert resumed == ["resumed at v8 (asked for v8)", "resumed at v9 (asked for v9)"]
    # What the example reported is what the server says.
    pricing = server.pricing()
    for round_id, version, status in (
        (1, 6, pb.SettleResponse.STATUS_WIN),
        (2, 7, pb.SettleResponse.STATUS_LOSE),
        (3, 8, pb.SettleResponse.STATUS_VOID),
    ):
        settlement = pricing.Settle(
            pb.SettleRequest(
                table_id=table_id, round_id=round_id, version=version, bet="HIGH", stake_cents=1000
            )
        )
        assert settlement.status == status


def test_game_server_waits_for_a_table_that_is_not_open_yet(
    server: ServerProcess, table_id: str
) -> None:
    args = ("--server", server.target, "--table", table_id, "--rounds", "1", "--bet", "SEVEN")
    example = Example("game_server.py", *args)
    try:
        example.expect(r"is not open yet \(NOT_FOUND\); waiting")
        feed = Feed(server, table_id)
        feed.open(game=pb.GAME_HILO)
        for card in ("2S", "3S", "4S", "5S", "6S"):
            feed.expose(card, pb.CARD_ROLE_BURN)
        example.expect(r"accepted SEVEN 1000 cents on round 1 at v6")
        feed.void()  # the round is void: the stake comes back
        example.expect(r"settled SEVEN on round 1 at v6: VOID on -, returned 1000 cents")
        assert example.wait() == 0, example.output
    finally:
        example.kill()


def test_game_server_rides_out_a_server_restart(tmp_path: Path, table_id: str) -> None:
    """The server stops and comes back on the same port and data directory: the game server
    resumes after the last version it saw and settles its bet on the journalled table."""
    first = start_server(data_dir=tmp_path)
    feed = Feed(first, table_id)
    feed.open(game=pb.GAME_HILO)
    for card in ("2S", "3S", "4S", "5S", "6S"):
        feed.expose(card, pb.CARD_ROLE_BURN)
    args = ("--server", first.target, "--table", table_id, "--rounds", "1", "--bet", "LOW")
    example = Example("game_server.py", *args)
    second = None
    try:
        example.expect(r"accepted LOW 1000 cents on round 1 at v6")
        assert first.stop() == 0, first.log()
        example.expect(r"UNAVAILABLE \(.*\), reconnecting and resuming from version 7")
        second = start_server(f"--port={first.grpc_port}", data_dir=tmp_path)
        again = Feed(second, table_id)
        again.seq = feed.seq
        again.expose("AH", pb.CARD_ROLE_RESULT)
        example.expect(r"resumed at v7 \(asked for v7\)")
        example.expect(r"settled LOW on round 1 at v6: WIN on AH")
        assert example.wait() == 0, example.output
    finally:
        example.kill()
        if second is not None:
            assert second.stop() == 0, second.log()
