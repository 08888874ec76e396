"""Durable tables through real server processes: ``kill -9`` at random moments, restarts on the
same data directory, full and read-only disks. Nothing acknowledged is ever lost."""

from __future__ import annotations

import random
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from pricing.cards import DECK
from pricing.games import hilo
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.effort import effort
from tests.support.server import ServerProcess, Watcher, start_server
from tests.support.wire import engine_prices, expect_error, metric, wire_prices

CARDS = [str(card) for card in DECK]
KILLS = effort(suite=3, exhaustive=20)  # kill -9s of the random-moments test


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def restart(server: ServerProcess, *args: str) -> ServerProcess:
    """``kill -9`` and start again on the same data directory (and port)."""
    server.stop(signal.SIGKILL)
    return start_server(f"--port={server.grpc_port}", *args, data_dir=server.data_dir)


# ---- the kill test --------------------------------------------------------------------------


@dataclass
class HiLoFeed:
    """What one table's card reader has sent and had acknowledged."""

    table_id: str
    rng: random.Random
    events: list[tuple[str, str]] = field(default_factory=list)  # acknowledged: (kind, card)
    in_flight: tuple[str, str] | None = None
    deck: list[str] = field(default_factory=list)
    phase: int = pb.PHASE_OPENING

    @property
    def last_seq(self) -> int:
        return len(self.events)

    def exposed(self) -> list[str]:
        """The cards of the current shoe, as acknowledged."""
        shown: list[str] = []
        for kind, card in self.events:
            shown = [] if kind == "NewShoe" else [*shown, card]
        return shown

    def next_event(self) -> tuple[str, str]:
        if self.phase == pb.PHASE_SHOE_COMPLETE or not self.deck:
            return ("NewShoe", "")
        return ("BURN" if self.phase == pb.PHASE_OPENING else "RESULT", self.deck[-1])

    def send(self, stub: pb_grpc.DealerServiceStub) -> None:
        kind, card = event = self.next_event()
        self.in_flight = event
        seq = self.last_seq + 1
        if kind == "NewShoe":
            state = stub.NewShoe(pb.NewShoeRequest(table_id=self.table_id, seq=seq), timeout=10)
        else:
            role = pb.CARD_ROLE_BURN if kind == "BURN" else pb.CARD_ROLE_RESULT
            request = pb.ExposeCardRequest(table_id=self.table_id, seq=seq, card=card, role=role)
            state = stub.ExposeCard(request, timeout=10)
        self.acknowledged(event, state.phase)

    def acknowledged(self, event: tuple[str, str], phase: int) -> None:
        self.events.append(event)
        self.in_flight = None
        self.phase = phase
        if event[0] == "NewShoe":
            self.deck = self.rng.sample(CARDS, len(CARDS))
        else:
            self.deck.pop()


def _feed_until_killed(feeds: list[HiLoFeed], target: str, acked: list[int]) -> None:
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.DealerServiceStub(channel)
    try:
        while True:
            for feed in feeds:
                feed.send(stub)
                acked[0] += 1
    except grpc.RpcError:
        return  # the server died under us: this feed's event is in flight (or not sent)
    finally:
        channel.close()


def _check_recovered(server: ServerProcess, feeds: list[HiLoFeed]) -> int:
    """Every acknowledged event is there, at most the one in flight more; prices are the
    engine's. Returns how many in-flight events were found applied."""
    stub = server.pricing()
    adopted = 0
    for feed in feeds:
        state = stub.GetTable(pb.GetTableRequest(table_id=feed.table_id))
        if state.last_seq == feed.last_seq + 1:
            assert feed.in_flight is not None, f"{feed.table_id}: an event nobody sent"
            feed.acknowledged(feed.in_flight, state.phase)
            adopted += 1
        assert state.last_seq == feed.last_seq, (feed.table_id, state.last_seq, feed.last_seq)
        assert state.version == feed.last_seq + 1  # versions continue: one per event
        assert list(state.exposed) == feed.exposed(), feed.table_id
        betting = state.phase == pb.PHASE_BETTING
        assert wire_prices(state) == engine_prices(hilo.quote(feed.exposed()), betting)
        feed.in_flight, feed.phase = None, state.phase
    return adopted


@pytest.mark.slow
def test_kill_9_at_random_moments_loses_nothing_acknowledged() -> None:
    rng = random.Random(20261201)
    server = start_server(f"--port={free_port()}", "--snapshot-every=8")
    feeds = [HiLoFeed(f"kill-{i:03}", random.Random(i)) for i in range(100)]
    dealer = server.dealer()
    for feed in feeds:
        dealer.OpenTable(pb.OpenTableRequest(table_id=feed.table_id, game=pb.GAME_HILO))
        feed.deck = feed.rng.sample(CARDS, len(CARDS))
    sent = acked_total = recovered_in_flight = 0
    try:
        for _ in range(KILLS):
            acked = [0]
            workers = [
                threading.Thread(
                    target=_feed_until_killed, args=(feeds[i::4], server.target, acked)
                )
                for i in range(4)
            ]
            for worker in workers:
                worker.start()
            goal = rng.randint(20, 400)
            while acked[0] < goal and any(w.is_alive() for w in workers):
                workers[0].join(0.005)
            server = restart(server, "--snapshot-every=8")
            for worker in workers:
                worker.join(30)
            in_flight = sum(feed.in_flight is not None for feed in feeds)
            sent += acked[0] + in_flight
            acked_total += acked[0]
            recovered_in_flight += _check_recovered(server, feeds)
        print(
            f"\nkill test: {KILLS} kill -9s, {sent} events sent, {acked_total} acknowledged, "
            f"{acked_total + recovered_in_flight} recovered "
            f"({recovered_in_flight} of them in flight when the server died)"
        )
        assert acked_total > 0
    finally:
        assert server.stop() == 0, server.log()


# ---- one table across a kill ----------------------------------------------------------------


def test_a_bet_a_watcher_and_a_retried_card_across_kill_9() -> None:
    server = start_server(f"--port={free_port()}", "--snapshot-every=4")
    dealer = server.dealer()
    dealer.OpenTable(pb.OpenTableRequest(table_id="H", game=pb.GAME_HILO))
    for seq, card in enumerate(["2S", "3S", "4S", "5S", "6S"], start=1):
        dealer.ExposeCard(
            pb.ExposeCardRequest(table_id="H", seq=seq, card=card, role=pb.CARD_ROLE_BURN)
        )
    bet = pb.SettleRequest(table_id="H", round_id=1, version=6, bet="HIGH", stake_cents=10000)
    assert server.pricing().Settle(bet).status == pb.SettleResponse.STATUS_PENDING
    own_channel = grpc.insecure_channel(server.target)  # outlives the process it points at
    watcher = Watcher(pb_grpc.PricingServiceStub(own_channel), "H")
    assert watcher.until(6).version == 6
    last = dealer.ExposeCard(
        pb.ExposeCardRequest(table_id="H", seq=6, card="KH", role=pb.CARD_ROLE_RESULT)
    )
    assert watcher.until(7).version == 7

    server = restart(server, "--snapshot-every=4")
    assert watcher.end() == grpc.StatusCode.UNAVAILABLE  # the stream tells it to reconnect
    dealer = server.dealer()
    # The card reader never saw its answer: it resends, and gets the same answer.
    again = dealer.ExposeCard(
        pb.ExposeCardRequest(table_id="H", seq=6, card="KH", role=pb.CARD_ROLE_RESULT)
    )
    assert again == last
    assert list(again.exposed).count("KH") == 1 and again.cards_remaining == 46
    resumed = Watcher(server.pricing(), "H", from_version=8)
    versions = []
    for seq, card in enumerate(["QH", "JH", "10H"], start=7):
        dealer.ExposeCard(
            pb.ExposeCardRequest(table_id="H", seq=seq, card=card, role=pb.CARD_ROLE_RESULT)
        )
        # Read before the next card goes: a watcher behind is sent only the newest state.
        versions.append(resumed.next().version)
    assert versions == [8, 9, 10]  # strictly increasing, from where it left off, no gap
    won = server.pricing().Settle(bet)
    assert (won.status, won.returned_cents, won.result_card) == (
        pb.SettleResponse.STATUS_WIN,
        18800,
        "KH",
    )
    resumed.cancel()
    own_channel.close()
    assert server.stop() == 0, server.log()


def edge_of_bj(server: ServerProcess) -> None:
    """Once table bj's state has its player edge, computed after the state was published."""
    watcher = Watcher(server.pricing(), "bj")
    while not watcher.next().HasField("player_edge"):
        pass
    watcher.cancel()


def test_blackjack_and_goagae_tables_recover_mid_round() -> None:
    server = start_server(f"--port={free_port()}")
    dealer = server.dealer()
    dealer.OpenTable(
        pb.OpenTableRequest(
            table_id="bj", game=pb.GAME_BLACKJACK, decks=6, blackjack=pb.BlackjackRules(seats=1)
        )
    )
    dealer.OpenTable(pb.OpenTableRequest(table_id="gg", game=pb.GAME_GOA_GAE))
    bj = [("AS", pb.CARD_ROLE_PLAYER), ("KD", pb.CARD_ROLE_DEALER), ("QS", pb.CARD_ROLE_PLAYER)]
    for seq, (card, role) in enumerate(bj, start=1):
        dealer.ExposeCard(pb.ExposeCardRequest(table_id="bj", seq=seq, card=card, role=role))
    for seq, card in enumerate(["2H", "3H"], start=1):
        dealer.ExposeCard(
            pb.ExposeCardRequest(table_id="gg", seq=seq, card=card, role=pb.CARD_ROLE_PLAYER)
        )
    read = server.pricing()
    edge_of_bj(server)  # the main game's figures come after the state: the same ones after
    before = {t: read.GetTable(pb.GetTableRequest(table_id=t)) for t in ("bj", "gg")}
    assert before["bj"].phase == before["gg"].phase == pb.PHASE_DEALING

    server = restart(server)
    dealer, read = server.dealer(), server.pricing()
    edge_of_bj(server)
    for table_id, state in before.items():
        assert read.GetTable(pb.GetTableRequest(table_id=table_id)) == state
    dealer.ExposeCard(
        pb.ExposeCardRequest(table_id="bj", seq=4, card="9D", role=pb.CARD_ROLE_DEALER)
    )
    dealer.EndRound(pb.EndRoundRequest(table_id="bj", seq=5))
    royal = read.Settle(
        pb.SettleRequest(table_id="bj", round_id=1, version=1, bet="ROYAL_MATCH", stake_cents=100)
    )
    assert (royal.status, royal.outcome) == (pb.SettleResponse.STATUS_WIN, "EASY")  # AS QS: suited
    dealer.ExposeCard(
        pb.ExposeCardRequest(table_id="gg", seq=3, card="4H", role=pb.CARD_ROLE_PLAYER)
    )
    dealer.EndRound(pb.EndRoundRequest(table_id="gg", seq=4))
    flush = read.Settle(
        pb.SettleRequest(
            table_id="gg", round_id=1, version=1, bet="STRAIGHT_FLUSH", stake_cents=100
        )
    )
    assert flush.status == pb.SettleResponse.STATUS_WIN
    assert server.stop() == 0, server.log()


# ---- faults ---------------------------------------------------------------------------------


def _can_mount() -> bool:
    probe = Path("/proc/self/status").read_text()
    return any(
        line.startswith("CapEff:") and int(line.split()[1], 16) & (1 << 21)  # CAP_SYS_ADMIN
        for line in probe.splitlines()
    )


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs: a disk that can be filled, and remounted read-only."""
    import subprocess  # noqa: PLC0415

    if not _can_mount():
        pytest.skip("mounting a tmpfs needs CAP_SYS_ADMIN (CI runs as root)")
    where = tmp_path / "disk"
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _write_fails_then_recovers(server: ServerProcess, break_disk: object, mend: object) -> None:
    dealer, read = server.dealer(), server.pricing()
    dealer.OpenTable(pb.OpenTableRequest(table_id="f", game=pb.GAME_HILO))
    dealer.ExposeCard(pb.ExposeCardRequest(table_id="f", seq=1, card="2S", role=pb.CARD_ROLE_BURN))
    watcher = Watcher(read, "f")
    assert watcher.next().version == 2
    before = read.GetTable(pb.GetTableRequest(table_id="f"))
    assert metric(server, "pricing_journal_records_total") == 2  # the opening and the card
    assert metric(server, "pricing_journal_commit_seconds_count") >= 2
    assert metric(server, "pricing_recovery_seconds") > 0
    assert callable(break_disk) and callable(mend)
    break_disk()
    for _ in range(30):  # many failures: logged once, not thirty times
        expect_error(
            lambda: dealer.ExposeCard(
                pb.ExposeCardRequest(table_id="f", seq=2, card="3S", role=pb.CARD_ROLE_BURN)
            ),
            grpc.StatusCode.UNAVAILABLE,
            "the journal cannot be written",
            "nothing was applied",
        )
    assert read.GetTable(pb.GetTableRequest(table_id="f")) == before  # reads go on, unchanged
    assert metric(server, "pricing_journal_errors_total") >= 30
    mend()
    state = dealer.ExposeCard(
        pb.ExposeCardRequest(table_id="f", seq=2, card="3S", role=pb.CARD_ROLE_BURN)
    )
    assert state.version == 3 and list(state.exposed) == ["2S", "3S"]
    assert watcher.next().version == 3  # the stream went on through it
    watcher.cancel()
    assert server.stop() == 0, server.log()
    log = server.log()
    assert log.count("journal writes are failing") == 1, log
    assert "journal writes succeed again" in log


def test_a_full_disk_answers_unavailable_and_recovers_by_itself(tmpfs: Path) -> None:
    server = start_server(data_dir=tmpfs / "data")
    filler = tmpfs / "filler"

    def fill() -> None:
        # Unbuffered: the write that fills the disk is partial, the next fails, and closing
        # has nothing left to flush (a buffered file raised again on close whenever the free
        # space was not a whole number of writes).
        with filler.open("wb", buffering=0) as f, pytest.raises(OSError):
            while True:
                f.write(b"\0" * 65536)

    _write_fails_then_recovers(server, fill, filler.unlink)
    assert "disk full" in server.log()


def test_a_journal_that_cannot_be_written_answers_unavailable_and_recovers(
    tmp_path: Path,
) -> None:
    """The journal's files turned immutable (``chattr +i``: even root cannot write them, as on
    a volume the kernel turned read-only), then writable again."""
    import subprocess  # noqa: PLC0415

    server = start_server(data_dir=tmp_path)
    files = [str(tmp_path / "journal.sqlite3"), str(tmp_path / "journal.sqlite3-wal")]

    def chattr(flag: str) -> None:
        done = subprocess.run(["chattr", flag, *files], capture_output=True, text=True, check=False)
        if done.returncode:
            server.stop()
            pytest.skip(f"chattr {flag} is not possible here: {done.stderr.strip()}")

    _write_fails_then_recovers(server, lambda: chattr("+i"), lambda: chattr("-i"))


def test_a_file_size_limit_answers_unavailable_and_recovers(tmp_path: Path) -> None:
    import resource  # noqa: PLC0415

    server = start_server(data_dir=tmp_path)
    pid = server.proc.pid
    wal = tmp_path / "journal.sqlite3-wal"

    def limit() -> None:
        size = max(wal.stat().st_size, (tmp_path / "journal.sqlite3").stat().st_size)
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    def unlimit() -> None:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)

    _write_fails_then_recovers(server, limit, unlimit)
