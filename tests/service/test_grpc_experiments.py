"""The server's gRPC experiments reach gRPC: both entry points set them before grpc is imported
(gRPC reads GRPC_EXPERIMENTS once, at import), the client commands leave gRPC as it comes, and
an operator's own choice wins."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pricing import grpc_experiments
from tests.support import ROOT

# What gRPC is told, read in a fresh interpreter once an entry point has run up to its main.
PROBE = """
import os, sys
sys.argv = ["pricing", *{argv!r}]
{entry}
import grpc  # an entry point that imported it before setting the experiments failed already
print(os.environ.get("GRPC_EXPERIMENTS", ""))
"""

SERVER_PY = "import runpy; runpy.run_path({path!r}, run_name='not_main')"
# The command itself is not run (a stand-in for pricing.cli, which imports grpc): only what
# precedes it.
LAUNCH = (
    "import types, pricing.launch\n"
    "cli = sys.modules['pricing.cli'] = types.ModuleType('pricing.cli')\n"
    "cli.main = lambda argv: 0\n"
    "pricing.launch.main()"
)


def told(entry: str, argv: list[str], experiments: str | None = None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    if experiments is not None:
        env["GRPC_EXPERIMENTS"] = experiments
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, entry=entry)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.strip().split(",") if out.strip() else []


@pytest.mark.parametrize("entry", ["server.py", "pricing serve"])
def test_each_server_entry_point_sets_the_experiments_before_grpc_is_imported(entry: str) -> None:
    if entry == "server.py":
        got = told(SERVER_PY.format(path=str(ROOT / "server.py")), [])
    else:
        got = told(LAUNCH, ["serve"])
    assert got == list(grpc_experiments.SERVER_EXPERIMENTS)


def test_client_commands_leave_grpc_as_it_comes() -> None:
    assert told(LAUNCH, ["watch", "t1"]) == []


def test_an_operators_experiments_are_kept_and_their_opt_out_wins() -> None:
    assert told(LAUNCH, ["serve"], "tcp_rcv_lowat") == ["tcp_rcv_lowat", "fuse_filters"]
    assert told(LAUNCH, ["serve"], "-fuse_filters") == ["-fuse_filters"]
    assert told(LAUNCH, ["serve"], " fuse_filters ,") == ["fuse_filters"]


def test_setting_them_once_grpc_is_imported_is_refused() -> None:
    import grpc  # noqa: F401, PLC0415 - imported by this test process already; stated here

    with pytest.raises(RuntimeError, match="before grpc is imported"):
        grpc_experiments.enable()
