"""The Node.js example (examples/node: @grpc/grpc-js and @grpc/proto-loader, written from the
proto alone) against the real server: a card reader feeds a table on a Feed stream and by
calls, a game server watches it, bets, settles and quotes, and a refused event's ErrorInfo is
read from its trailer. ``make node-test`` installs the example's packages (npm ci) and runs
this; ``make test`` does so when ``node`` is on the PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT
from tests.support.server import ServerProcess

EXAMPLE = ROOT / "examples" / "node"

pytestmark = pytest.mark.node


def _node() -> str:
    node = shutil.which("node")
    if node is None or not (EXAMPLE / "node_modules").is_dir():
        # make node-test sets NODE_TEST_REQUIRED: there, a missing node is a failure, not a skip
        if os.environ.get("NODE_TEST_REQUIRED"):
            pytest.fail("make node-test needs node and the example's packages (npm ci)")
        pytest.skip("node, or the example's packages: run make node-test")
    return node


def _lines(text: str) -> dict[str, dict[str, Any]]:
    """Each JSON line the example printed, by its step."""
    return {line["step"]: line for line in map(json.loads, text.splitlines())}


def test_a_card_reader_and_a_game_server_in_node(server: ServerProcess, table_id: str) -> None:
    node = _node()
    table = table_id
    args = ["--target", server.target, "--table", table]
    with subprocess.Popen(
        [node, "game_server.js", *args],
        cwd=EXAMPLE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as game_server:
        try:
            reader = subprocess.run(
                [node, "card_reader.js", *args, "--watchers", "1"],
                cwd=EXAMPLE,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert reader.returncode == 0, reader.stderr  # the game server waits on its close
            out, err = game_server.communicate(timeout=60)
        finally:
            game_server.kill()  # a no-op once it has exited
    assert game_server.returncode == 0, err
    fed, served = _lines(reader.stdout), _lines(out)

    assert fed["burnt"] == {"step": "burnt", "answers": 5, "version": "6", "phase": "PHASE_BETTING"}
    assert [fed["closed"]["version"], fed["closed"]["phase"]] == ["9", "PHASE_CLOSED"]
    refused = fed["refused"]
    assert refused["code"] == "FAILED_PRECONDITION"
    assert refused["details"] == (
        f"seq 9 on table '{table}' leaves a gap: expected seq 8 (last_seq is 7)"
    )
    assert refused["error_info"]["reason"] == "SEQ_GAP", refused
    assert refused["error_info"]["domain"] == "pricing.v1"
    assert refused["error_info"]["metadata"]["expected_seq"] == "8"

    quote = served["quote"]  # AS and KD out: four sevens in the 50 left
    assert (quote["wins"], quote["remaining"]) == (4, 50)
    bet, settled = served["bet"], served["settled"]
    assert settled["ended"] or settled["status"] == "STATUS_VOID", (
        settled
    )  # its round's result seen
    assert settled["status"] in {"STATUS_WIN", "STATUS_LOSE", "STATUS_VOID"}, settled
    if settled["status"] == "STATUS_WIN":  # 10.00 staked at the bet's price, floored to the cent
        assert int(settled["returned_cents"]) == 1000 + 1000 * bet["payout_hundredths"] // 100
    if bet["round_id"] == "1":  # the bet saw round 1 open: KH decided it
        assert (settled["status"], settled["result_card"]) == ("STATUS_WIN", "KH")


def test_the_example_needs_no_generated_code() -> None:
    sources = "".join(p.read_text() for p in EXAMPLE.glob("*.js"))
    assert "pricing.proto" in sources and "_pb" not in sources
    assert not any(Path(EXAMPLE).glob("*_pb.js"))
