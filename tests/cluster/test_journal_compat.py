"""Journals written before the wire's enum values took their prefixes load in today's build
with no migration: the SQLite journal and JetStream hold enum numbers, which did not change,
and an export's old JSON names (``"role": "BURN"``, ``pays_hundredths``) still replay.

The fixtures (``tests/cluster/fixtures/journal_before_enum_prefixes``, its README says how they were
made) are real journals of four tables written by that release's servers, with each table's
state as GetTable answered it then: today's server must answer the same bytes.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from pricing.journal.codec import decode_event, encode_event
from pricing.journal.tools import replay_lines
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import snapshot_to_proto
from tests.service.test_cli_paths import pricing
from tests.support.natsserver import NatsServer
from tests.support.server import start_server
from tests.support.wire import without_figures

FIXTURE = Path(__file__).parent / "fixtures" / "journal_before_enum_prefixes"
TABLES = ("hilo-1", "bj-1", "bj-2", "goa-1")
#: The fixture's closed table must not be archived away however old the fixture is.
KEEP_CLOSED = "--closed-retention=36500d"


def state_then(table_id: str) -> bytes:
    return (FIXTURE / "states" / f"{table_id}.state.bin").read_bytes()


def export_lines(table_id: str) -> list[str]:
    lines = (FIXTURE / "export.jsonl").read_text().splitlines()
    return [line for line in lines if json.loads(line)["table_id"] == table_id]


def test_the_fixture_is_in_the_old_names() -> None:
    """What the rest of this file shows would be empty if the fixture held today's names."""
    text = (FIXTURE / "export.jsonl").read_text()
    assert '"role":"BURN"' in text and '"game":"HILO"' in text
    assert '"pays_hundredths"' in text and "CARD_ROLE_" not in text


def as_then(state: pb.TableState) -> bytes:
    """``state`` without what later releases added to it (the side bets' exact ratios and
    signed pays; the main game's figures, which come after the state whenever they are
    ready)."""
    for odds in state.side_bets:
        odds.ClearField("rtp_exact")
        for outcome in odds.outcomes:
            outcome.ClearField("probability_exact")
            outcome.ClearField("net_payout_hundredths")
    return without_figures(state).SerializeToString()


def _states(dealer_args: tuple[str, ...], data_dir: Path | None) -> dict[str, bytes]:
    server = start_server(*dealer_args, KEEP_CLOSED, data_dir=data_dir)
    try:
        stub = server.pricing()
        return {t: as_then(stub.GetTable(pb.GetTableRequest(table_id=t))) for t in TABLES}
    finally:
        assert server.stop() == 0


def test_an_sqlite_journal_of_the_old_names_recovers_to_the_same_states(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE / "sqlite", tmp_path / "data")
    states = _states((), tmp_path / "data")
    assert states == {t: state_then(t) for t in TABLES}


def test_a_jetstream_journal_of_the_old_names_recovers_to_the_same_states(
    tmp_path: Path,
) -> None:
    shutil.copytree(FIXTURE / "jetstream", tmp_path / "store")
    nats = NatsServer(store_dir=tmp_path / "store").start()
    try:
        states = _states((f"--journal={nats.url}",), None)
    finally:
        nats.stop()
    assert states == {t: state_then(t) for t in TABLES}


@pytest.mark.parametrize("table_id", TABLES)
def test_an_export_in_the_old_json_names_replays_to_the_same_state(table_id: str) -> None:
    steps = list(replay_lines(export_lines(table_id)))
    assert len(steps) == len(export_lines(table_id))
    assert as_then(snapshot_to_proto(steps[-1].snapshot)) == state_then(table_id)


def test_pricing_journal_replay_reads_the_old_export(tmp_path: Path) -> None:
    export = tmp_path / "bj-1.jsonl"
    export.write_text("\n".join(export_lines("bj-1")) + "\n")
    done = pricing("journal", "replay", str(export), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "# the final state, version 12" in done.stdout


def test_todays_build_writes_every_record_of_the_old_journal_as_it_was_written() -> None:
    """Each journaled event of the old release, decoded and encoded again by today's build,
    is the same bytes: a table of today opened as then (Royal Match and the pairs, by the old
    fields) journals as then, so the release before can still read it back."""
    with sqlite3.connect(f"file:{FIXTURE / 'sqlite' / 'journal.sqlite3'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT kind, body FROM events ORDER BY table_id, version").fetchall()
    assert {kind for kind, _ in rows} >= {"OpenTable", "ExposeCard", "EndRound", "CloseTable"}
    for kind, body in rows:
        assert encode_event(decode_event(kind, body)) == (kind, body), kind
