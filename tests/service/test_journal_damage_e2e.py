"""A damaged journal is never served or exported as if whole, with real files and real server
processes: bytes flipped in the file, a table's events cut short of its recorded version, a
deleted ``-wal`` after ``kill -9``; ``pricing journal check`` and ``salvage`` for the day it
happens; and ``pricing journal backup`` taken while a feed writes, restored on a new server."""

from __future__ import annotations

import io
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import grpc
import pytest

from pricing import cli
from pricing.cards import DECK
from pricing.client import PricingClient
from pricing.journal.sqlite_schema import FILE_NAME
from pricing.v1 import pricing_pb2 as pb
from tests.support import ROOT
from tests.support.server import ServerProcess, start_server

pytestmark = pytest.mark.timeout(120)

CARDS = [str(card) for card in DECK]


def run(*argv: str) -> tuple[int, str, str]:
    """``pricing ARGV`` in process: its exit code, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    real = sys.stderr
    sys.stderr = err
    try:
        code = cli.main(list(argv), out=out)
    finally:
        sys.stderr = real
    return code, out.getvalue(), err.getvalue()


def start_fails(data_dir: Path) -> str:
    """A server started on ``data_dir`` exits 1 before it is ready; its standard error."""
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "server.py"), "--port=0", "--metrics-port=0",
             f"--data-dir={data_dir}"],
            capture_output=True, text=True, timeout=20, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the server started on the damaged {data_dir}: {exc.stdout!r}")
    assert done.returncode == 1, done.stderr
    assert '"ready"' not in done.stdout
    return done.stderr


def deal(server: ServerProcess, tables: dict[str, int]) -> dict[str, pb.TableState]:
    """Open each table and burn its count of cards; each one's last state."""
    states = {}
    with PricingClient(server.target) as client:
        for table, cards in tables.items():
            feed = client.feed(table)
            states[table] = feed.open("HILO")
            for card in CARDS[:cards]:
                states[table] = feed.expose(card, "BURN")
    return states


def journal_with(tables: dict[str, int], tmp_path: Path) -> tuple[Path, dict[str, pb.TableState]]:
    """A data directory whose server dealt ``tables`` and stopped cleanly."""
    data = tmp_path / "data"
    server = start_server("--snapshot-every=4", data_dir=data)
    states = deal(server, tables)
    assert server.stop() == 0, server.log()
    return data, states


def damage_root(
    data: Path, name: str, at: int = 3, flipped: bytes = (500).to_bytes(2, "big")
) -> None:
    """Write ``flipped`` over the bytes at offset ``at`` of the root page of SQLite's B-tree
    ``name`` in the journal of ``data`` (by default its count of cells, made 500)."""
    path = data / FILE_NAME
    conn = sqlite3.connect(path)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    raw = bytearray(path.read_bytes())
    start = (root - 1) * page_size + at
    raw[start : start + len(flipped)] = flipped
    path.write_bytes(raw)


def test_bytes_flipped_in_the_file_refuse_start_up_check_and_export(tmp_path: Path) -> None:
    data, _ = journal_with({"a": 30, "b": 30}, tmp_path)
    path = data / FILE_NAME
    damage_root(data, "events")

    err = start_fails(data)
    assert f"{path} fails SQLite's quick_check" in err, err
    assert "pricing journal salvage" in err
    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 1 and "quick_check" in out and "ok" not in out.splitlines()[0], out
    code, out, err = run("journal", "export", "a", "--data-dir", str(data))
    assert code == 1 and out == "", out


def test_a_malformed_list_of_tables_is_said_once_and_the_file_named_damaged(
    tmp_path: Path,
) -> None:
    """The list of tables' B-tree overwritten: SQLite finds the file "malformed" in every
    read of it (its quick_check, the tables' check and the load at start-up alike), which
    start-up says once; check says the file itself is damaged, though it read no table."""
    data, _ = journal_with({"a": 30, "b": 30}, tmp_path)
    path = data / FILE_NAME
    damage_root(data, "tables", at=0, flipped=b"\xff" * 16)

    err = start_fails(data)
    error = next(line for line in err.splitlines() if "cannot start" in line)
    assert f"{path} fails SQLite's quick_check: database disk image is malformed." in error
    assert error.count("disk image is malformed") == 1 and error.count(str(path)) == 1, error
    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 1
    assert out.splitlines() == [
        f"journal {path}: SQLite quick_check fails: database disk image is malformed",
        f"journal {path}: its tables cannot be read: database disk image is malformed",
        "the file itself is DAMAGED; 0 table(s) read before it failed, 0 of them damaged",
    ]
    code, out, err = run("journal", "export", "a", "--data-dir", str(data))
    assert (code, out) == (1, "")
    assert err.startswith(f"pricing: {path} fails SQLite's quick_check: database disk image"), err


def cut_short(data: Path, table: str, keep: int) -> None:
    """Lose every event of ``table`` after version ``keep`` (as damage would: its recorded
    last version stays)."""
    conn = sqlite3.connect(data / FILE_NAME)
    with conn:
        conn.execute("DELETE FROM events WHERE table_id = ? AND version > ?", (table, keep))
        conn.execute("DELETE FROM images WHERE table_id = ?", (table,))
    conn.close()


def test_events_short_of_the_recorded_version_refuse_start_up_and_salvage_starts(
    tmp_path: Path,
) -> None:
    data, states = journal_with({"whole": 20, "short": 30, "gone": 5}, tmp_path)
    cut_short(data, "short", keep=12)
    cut_short(data, "gone", keep=0)

    err = start_fails(data)
    assert "table 'short': its events stop at version 12 (version 13 missing); 31 recorded" in err
    assert "table 'gone': its opening (version 1) is missing" in err
    assert "'whole'" not in err

    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 1, out
    assert "table 'whole': whole, versions 1-21" in out
    assert "table 'short': DAMAGED: its events stop at version 12" in out
    assert out.splitlines()[-1] == "3 table(s), 2 damaged"
    code, _, err = run("journal", "export", "short", "--data-dir", str(data))
    assert code == 1 and "table 'short'" in err and "is damaged" in err, err
    assert run("journal", "export", "whole", "--data-dir", str(data))[0] == 0

    salvaged = tmp_path / "salvaged"
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0, out
    assert "table 'short': CUT SHORT at version 12, its last good version (31 recorded)" in out
    assert "table 'gone': DROPPED, no good version" in out
    assert (
        out.splitlines()[-1]
        == f"salvaged 2 table(s) into {salvaged}: start a server with --data-dir {salvaged}"
    )
    assert run("journal", "check", "--data-dir", str(salvaged))[0] == 0

    server = start_server(data_dir=salvaged)
    try:
        read = server.pricing()
        assert read.GetTable(pb.GetTableRequest(table_id="whole")) == states["whole"]
        short = read.GetTable(pb.GetTableRequest(table_id="short"))
        assert (short.version, list(short.exposed)) == (12, CARDS[:11])
        with pytest.raises(grpc.RpcError) as gone:
            read.GetTable(pb.GetTableRequest(table_id="gone"))
        assert gone.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        assert server.stop() == 0, server.log()


def test_a_journal_missing_a_middle_version_stops_before_the_gap_and_salvages_whole(
    tmp_path: Path,
) -> None:
    """A version lost from the middle of a table's events: the table is good up to the
    version before the gap, whatever its count of events says (one version past its recorded
    last makes up the count of 'moved'), and salvage copies it up to there only, so the
    salvaged journal is whole."""
    data, states = journal_with({"whole": 20, "gap": 30, "moved": 30}, tmp_path)
    conn = sqlite3.connect(data / FILE_NAME)
    with conn:
        conn.execute("DELETE FROM events WHERE table_id = 'gap' AND version = 13")
        conn.execute("UPDATE events SET version = 32 WHERE table_id = 'moved' AND version = 13")
    conn.close()

    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 1, out
    stops = "its events stop at version 12 (version 13 missing, later ones kept); 31 recorded"
    assert f"table 'gap': DAMAGED: {stops}" in out, out
    assert f"table 'moved': DAMAGED: {stops}" in out, out
    assert out.splitlines()[-1] == "3 table(s), 2 damaged", out

    salvaged = tmp_path / "salvaged"
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0, out
    for table in ("gap", "moved"):
        assert f"table {table!r}: CUT SHORT at version 12, its last good version (31" in out
    code, out, _ = run("journal", "check", "--data-dir", str(salvaged))
    assert code == 0, out  # nothing past the gap was copied
    assert "table 'gap': whole, versions 1-12" in out, out
    assert "table 'moved': whole, versions 1-12" in out, out
    server = start_server(data_dir=salvaged)
    try:
        read = server.pricing()
        assert read.GetTable(pb.GetTableRequest(table_id="whole")) == states["whole"]
        for table in ("gap", "moved"):
            state = read.GetTable(pb.GetTableRequest(table_id=table))
            assert (state.version, list(state.exposed)) == (12, CARDS[:11])
    finally:
        assert server.stop() == 0, server.log()


def test_a_damaged_snapshot_is_refolded_with_a_warning(tmp_path: Path) -> None:
    data, states = journal_with({"s": 10}, tmp_path)
    conn = sqlite3.connect(data / FILE_NAME)
    with conn:
        conn.execute("UPDATE images SET body = zeroblob(length(body))")
    conn.close()
    server = start_server(data_dir=data)
    try:
        assert server.pricing().GetTable(pb.GetTableRequest(table_id="s")) == states["s"]
        log = server.log()
        assert "WARNING" in log and "table 's': its snapshot (version 11) is damaged" in log
        assert "its checksum does not match: folding its events" in log
        assert "classes this build changed" not in log
    finally:
        assert server.stop() == 0


def test_a_backup_taken_while_a_feed_writes_holds_every_acknowledged_event(
    tmp_path: Path,
) -> None:
    server = start_server("--snapshot-every=4", data_dir=tmp_path / "data")
    acknowledged: list[pb.TableState] = []
    stop = threading.Event()

    def feed() -> None:
        with PricingClient(server.target) as client:
            dealer = client.feed("live")
            dealer.open("HILO")
            for _ in range(1000):
                for card in CARDS[:20]:
                    if stop.is_set():
                        return
                    acknowledged.append(dealer.expose(card, "BURN"))
                dealer.new_shoe()

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        while len(acknowledged) < 30:
            feeder.join(0.01)
        before = len(acknowledged)  # acknowledged before the backup began
        backup = tmp_path / "backup"
        code, out, err = run(
            "journal", "backup", "--data-dir", str(tmp_path / "data"), "--to", str(backup)
        )
        assert code == 0, err
        assert "backed up 1 table(s)" in out
    finally:
        stop.set()
        feeder.join(30)
        assert server.stop() == 0, server.log()
    last = acknowledged[before - 1]
    restored = start_server(data_dir=backup)
    try:
        state = restored.pricing().GetTable(pb.GetTableRequest(table_id="live"))
        assert state.last_seq >= last.last_seq
    finally:
        assert restored.stop() == 0, restored.log()


def test_a_deleted_wal_after_kill_9_refuses_start_up_as_the_readme_says(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = start_server(data_dir=data)
    deal(server, {"k": 10})
    assert server.stop(signal.SIGKILL) == -signal.SIGKILL
    wal = data / (FILE_NAME + "-wal")
    assert wal.exists()
    wal.unlink()

    err = start_fails(data)
    assert f"{wal} is missing" in err and "not stopped cleanly" in err, err
    salvaged = tmp_path / "salvaged"
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0, out
    again = start_server(data_dir=salvaged)  # what the file held at its last checkpoint
    assert again.stop() == 0, again.log()


def test_a_clean_stop_leaves_nothing_to_refuse(tmp_path: Path) -> None:
    data, states = journal_with({"c": 5}, tmp_path)
    assert not (data / (FILE_NAME + "-wal")).exists()  # SQLite took it in at the close
    server = start_server(data_dir=data)
    try:
        assert server.pricing().GetTable(pb.GetTableRequest(table_id="c")) == states["c"]
    finally:
        assert server.stop() == 0


def test_check_and_export_read_one_moment_while_a_server_writes(tmp_path: Path) -> None:
    """Counted apart, a commit between reading a table's events and its recorded version looked
    like damage: every check and export while four feeds write must find the journal whole."""
    data = tmp_path / "data"
    server = start_server(data_dir=data)
    stop = threading.Event()

    def feed(table: str) -> None:
        with PricingClient(server.target) as client:
            dealer = client.feed(table)
            dealer.open("HILO")
            while not stop.is_set():
                for card in CARDS[:40]:
                    dealer.expose(card, "BURN")
                dealer.new_shoe()

    deal(server, {f"w{i}": 0 for i in range(4)})  # opened before the checks begin
    feeders = [threading.Thread(target=feed, args=(f"w{i}",)) for i in range(4)]
    for feeder in feeders:
        feeder.start()
    try:
        for _ in range(25):
            code, out, _ = run("journal", "check", "--data-dir", str(data))
            assert code == 0, out
            code, _, err = run("journal", "export", "w0", "--data-dir", str(data))
            assert code == 0, err
    finally:
        stop.set()
        for feeder in feeders:
            feeder.join(30)
        assert server.stop() == 0, server.log()


def test_a_damaged_snapshot_table_leaves_every_tables_events_to_salvage(tmp_path: Path) -> None:
    """The snapshots' B-tree damaged: every table's events read whole, but from a file that
    fails SQLite's quick_check, so nothing exports them as if whole; salvage copies them."""
    data, states = journal_with({"p": 12, "q": 12, "r": 12}, tmp_path)
    damage_root(data, "images")
    path = data / FILE_NAME

    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 1 and out.startswith(f"journal {path}: SQLite quick_check fails: "), out
    assert "table 'p': whole, versions 1-13" in out  # its events are there ...
    # ... in a file that is not.
    assert out.splitlines()[-1] == (
        "the file itself is DAMAGED; 3 table(s) read from it, 0 of them damaged"
    ), out
    for argv in (
        ("journal", "export", "p", "--data-dir", str(data)),
        ("analyze", "--table", "p", "--data-dir", str(data)),
        ("analyze", "--game", "hilo", "--data-dir", str(data)),
    ):
        code, out, err = run(*argv)
        assert (code, out) == (1, ""), (argv, out)
        assert err.startswith(f"pricing: {path} fails SQLite's quick_check: "), (argv, err)
        assert "pricing journal salvage" in err, err
    salvaged = tmp_path / "salvaged"
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0 and "salvaged 3 table(s)" in out, out
    server = start_server(data_dir=salvaged)
    try:
        for table, state in states.items():
            assert server.pricing().GetTable(pb.GetTableRequest(table_id=table)) == state
    finally:
        assert server.stop() == 0, server.log()


def test_an_event_that_does_not_decode_or_an_unlisted_table_is_named_at_start_up(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = start_server("--snapshot-every=4", data_dir=data)
    deal(server, {"x": 10, "y": 10, "z": 10})
    server.stop(signal.SIGKILL)  # no snapshot at the stop: version 11 is folded at start-up
    conn = sqlite3.connect(data / FILE_NAME)
    with conn:
        conn.execute("UPDATE events SET body = x'ffffffff' WHERE table_id = 'x' AND version = 11")
        conn.execute("DELETE FROM tables WHERE table_id = 'y'")
    conn.close()  # which took the -wal into the file: as journal-tools.md says, the mark goes too
    (data / "journal.running").unlink()
    err = start_fails(data)
    assert str(data / FILE_NAME) in err
    assert "table 'x': " in err and "does not decode" in err, err
    assert "table 'y': it has events (to version 11) but no row in the list of tables" in err, err
    assert "'z'" not in err
    salvaged = tmp_path / "salvaged"
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0 and "table 'x': CUT SHORT at version 10" in out, out
    assert "table 'y': DROPPED" not in out and "table 'y': CUT SHORT at version 11" in out, out


def test_check_and_salvage_read_a_journal_of_the_previous_schema(tmp_path: Path) -> None:
    """A journal of schema 1 (no recorded versions, no checksums), as a server of the previous
    build left it, in WAL mode: check and salvage read it without upgrading it."""
    data, states = journal_with({"v": 8}, tmp_path)
    conn = sqlite3.connect(data / FILE_NAME, isolation_level=None)
    conn.executescript(
        "BEGIN; DROP TRIGGER events_last_version;"
        "ALTER TABLE tables DROP COLUMN last_version; ALTER TABLE images DROP COLUMN crc;"
        "PRAGMA user_version = 1; COMMIT;"
    )
    conn.close()
    code, out, _ = run("journal", "check", "--data-dir", str(data))
    assert code == 0 and "table 'v': whole, versions 1-9" in out, out
    salvaged = tmp_path / "salvaged"
    code, out, _ = run("journal", "salvage", "--data-dir", str(data), "--to", str(salvaged))
    assert code == 0 and "salvaged 1 table(s)" in out, out
    server = start_server(data_dir=salvaged)
    try:
        assert server.pricing().GetTable(pb.GetTableRequest(table_id="v")) == states["v"]
    finally:
        assert server.stop() == 0
