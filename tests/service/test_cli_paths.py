"""``pricing journal``'s path arguments that cannot be used: a file or directory missing, of
the wrong kind, or unreadable is one line naming it and what is wrong, exit 2 (a usage error),
never a traceback; a failed backup or salvage leaves no directory behind.

Run as the console script in a process of its own, as a user would. Root reads any file, so
the permission cases run as root without the capabilities that override file modes
(``setpriv``): a real "Permission denied", not a mock.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pricing.journal.sqlite import SqliteJournal
from tests.support import ROOT

pytestmark = pytest.mark.timeout(60)

#: Root without the capabilities that let it read and write whatever the file modes say.
_AS_ROOT_BOUND_BY_MODES = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def pricing(
    *argv: str, cwd: Path, bound_by_modes: bool = False
) -> subprocess.CompletedProcess[str]:
    prefix: list[str] = []
    if bound_by_modes and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: file modes cannot refuse a read")
        prefix = _AS_ROOT_BOUND_BY_MODES
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRICING_")}
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return subprocess.run(
        [*prefix, sys.executable, "-c", "import sys; from pricing.launch import main; "
         "sys.exit(main())", *argv],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    """Exit 2, and standard error is the one line ``pricing: message``."""
    assert "Traceback" not in done.stderr, done.stderr
    assert (done.returncode, done.stderr) == (2, f"pricing: {message}\n")


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """A data directory holding an empty journal."""
    data = tmp_path / "data"
    asyncio.run(SqliteJournal(data).close())
    (data / "journal.lock").unlink(missing_ok=True)
    return data


def test_replay_of_a_missing_file_or_a_directory(tmp_path: Path) -> None:
    refused(
        pricing("journal", "replay", "MISSING.jsonl", cwd=tmp_path),
        "cannot read MISSING.jsonl: No such file or directory",
    )
    (tmp_path / "dir.jsonl").mkdir()
    refused(
        pricing("journal", "replay", "dir.jsonl", cwd=tmp_path),
        "cannot read dir.jsonl: Is a directory",
    )


def test_replay_of_a_file_that_is_not_text_or_not_gzip(tmp_path: Path) -> None:
    (tmp_path / "bytes.jsonl").write_bytes(b"\xff\xfe{}\n")
    refused(
        pricing("journal", "replay", "bytes.jsonl", cwd=tmp_path),
        "cannot read bytes.jsonl: not UTF-8 text (byte 0)",
    )
    (tmp_path / "plain.jsonl.gz").write_text("{}\n")
    done = pricing("journal", "replay", "plain.jsonl.gz", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("pricing: cannot read plain.jsonl.gz: Not a gzipped file")


def test_replay_of_an_unreadable_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.jsonl"
    secret.write_text("{}\n")
    secret.chmod(0)
    refused(
        pricing("journal", "replay", "secret.jsonl", cwd=tmp_path, bound_by_modes=True),
        "cannot read secret.jsonl: Permission denied",
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "T"],
        ["check"],
        ["salvage", "--to", "new"],
        ["backup", "--to", "new"],
    ],
    ids=lambda a: a[0],
)
def test_each_journal_tool_names_a_data_dir_it_cannot_use(
    argv: list[str], tmp_path: Path, journal: Path
) -> None:
    tool = ["journal", *argv, "--data-dir"]
    refused(pricing(*tool, "nowhere", cwd=tmp_path), "--data-dir nowhere: no such directory")
    (tmp_path / "file").write_text("")
    refused(pricing(*tool, "file", cwd=tmp_path), "--data-dir file: not a directory")
    (tmp_path / "odd" / "journal.sqlite3").mkdir(parents=True)
    refused(
        pricing(*tool, "odd", cwd=tmp_path),
        "--data-dir odd: cannot read odd/journal.sqlite3: Is a directory",
    )
    (journal / "journal.sqlite3").chmod(0)
    refused(
        pricing(*tool, "data", cwd=tmp_path, bound_by_modes=True),
        "--data-dir data: cannot read data/journal.sqlite3: Permission denied",
    )
    journal.chmod(0)  # the directory itself: its journal cannot even be looked for
    try:
        refused(
            pricing(*tool, "data", cwd=tmp_path, bound_by_modes=True),
            "--data-dir data: cannot read data/journal.sqlite3: Permission denied",
        )
    finally:
        journal.chmod(0o755)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("tool", ["salvage", "backup"])
def test_salvage_and_backup_name_a_to_they_cannot_use(
    tool: str, tmp_path: Path, journal: Path
) -> None:
    run = ["journal", tool, "--data-dir", "data", "--to"]
    (tmp_path / "file").write_text("")
    refused(pricing(*run, "file", cwd=tmp_path), "--to file: not a directory")
    refused(pricing(*run, "file/new", cwd=tmp_path), "--to file/new: file is not a directory")
    (tmp_path / "locked").mkdir(mode=0o555)
    refused(
        pricing(*run, "locked/new", cwd=tmp_path, bound_by_modes=True),
        "--to locked/new: cannot write in locked: permission denied",
    )


@pytest.mark.parametrize("tool", ["salvage", "backup"])
def test_a_failed_backup_or_salvage_leaves_no_directory(tool: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = pricing("journal", tool, "--data-dir", "empty", "--to", "new", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "pricing: no journal at empty/journal.sqlite3\n")
    assert not (tmp_path / "new").exists()
