"""``make proto-breaking`` (CI) holds proto/ to the released image, proto/pricing.v1.binpb: the
proto as it is passes, and each kind of break a client would suffer fails it, naming what
broke. Runs buf from the npm registry (``make proto-lint`` installs it), like the Node example.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT

pytestmark = pytest.mark.node

BUF = ROOT / "proto" / "node_modules" / ".bin" / "buf"
PROTO = Path("proto") / "pricing" / "v1" / "pricing.proto"


def _buf() -> Path:
    if not BUF.exists():
        if os.environ.get("NODE_TEST_REQUIRED"):
            pytest.fail("make node-test needs buf (npm ci --prefix proto)")
        pytest.skip("buf: run make proto-lint once")
    return BUF


def breaking(tmp_path: Path, old: str = "", new: str = "") -> subprocess.CompletedProcess[str]:
    """``buf breaking`` of a copy of proto/ with ``old`` replaced by ``new`` (once)."""
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "proto" / "pricing", tmp_path / "proto" / "pricing")
    text = (ROOT / PROTO).read_text()
    if old:
        assert text.count(old) == 1, old
        (tmp_path / PROTO).write_text(text.replace(old, new))
    image = ROOT / "proto" / "pricing.v1.binpb"
    return subprocess.run(
        [str(_buf()), "breaking", "--against", str(image)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_proto_as_it_is_is_the_released_one_or_compatible(tmp_path: Path) -> None:
    done = breaking(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("uint32 cards_remaining = 10;", "uint32 cards_remaining = 99;",
         '"10" with name "cards_remaining"'),
        ("uint64 last_seq = 8;", "uint32 last_seq = 8;", 'changed type from "uint64" to "uint32"'),
        ("  CARD_ROLE_DEALER = 4;\n", "", 'enum value "4" on enum "CardRole" was deleted'),
        ("string bet = 1;\n  // cards (ways) that win",
         "string bet_name = 1;\n  // cards (ways) that win",
         'changed name from "bet" to "bet_name"'),
    ],
    ids=["renumbered", "retyped", "value removed", "renamed"],
)  # fmt: skip
def test_each_break_fails_it(tmp_path: Path, old: str, new: str, said: str) -> None:
    done = breaking(tmp_path, old, new)
    assert done.returncode != 0 and said in done.stdout, done.stdout + done.stderr
