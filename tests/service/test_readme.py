"""The samples of README.md and of every page under docs/ are what the code prints now: every
shell session (``$ pricing …`` and the lines after it) is run in a directory holding what the
samples need, every Python example (``>>>``) is run as a doctest, every other Python block is
compiled and every YAML block parsed.

What the sessions need, made here: a real server (``PRICING_SERVER`` points at it) on
``./data``, Hi-Lo table ``H`` dealt ``H_CARDS`` (the export and replay samples), and table
``demo`` dealt by ``pricing simulate --pace 0 --shoes 50 --seed 1`` (the live statistics
sample). A new sample that needs something else fails here until it is added.

What cannot be checked is normalised, in the sample and the output alike: timestamps
(``accepted_at``, the rounds' times) become ``<time>``. In a sample, ``…`` stands for any text
within a line, and a line of its own ``…`` for any number of lines (output left out).
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from pricing.v1 import pricing_pb2 as pb
from tests.support import ROOT
from tests.support.server import start_server
from tests.support.wire import Feed

pytestmark = pytest.mark.timeout(180)

README = ROOT / "README.md"
#: Every page a reader is sent to: the README, then docs/ (the site's pages).
PAGES = (README, *sorted((ROOT / "docs").rglob("*.md")))

#: Table H's cards: five opening burns, then six results (rounds 1 to 6).
H_CARDS = ("2S", "9D", "4C", "3H", "6S", "KH", "5D", "9S", "7C", "QD", "2C")

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


@dataclass(frozen=True)
class Session:
    """One ``$ command`` of a page's shell block and the output shown after it."""

    page: str
    line: int
    command: str
    output: str


@dataclass(frozen=True)
class Block:
    """One fenced block of a page, in a given language."""

    page: str
    line: int
    body: str


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def sessions(page: Path) -> Iterator[Session]:
    text = page.read_text()
    for block in _FENCE.finditer(text):
        if block.group(1) not in ("", "sh", "console"):
            continue
        start = text.count("\n", 0, block.start(2)) + 1
        current: Session | None = None
        for offset, line in enumerate(block.group(2).splitlines()):
            if line.startswith("$ "):
                if current is not None:
                    yield current
                current = Session(_name(page), start + offset, line[2:], "")
            elif current is not None:
                current = Session(
                    current.page, current.line, current.command, current.output + line + "\n"
                )
        if current is not None:
            yield current


def blocks(page: Path, language: str) -> Iterator[Block]:
    text = page.read_text()
    for block in _FENCE.finditer(text):
        if block.group(1) == language:
            line = text.count("\n", 0, block.start(2)) + 1
            yield Block(_name(page), line, block.group(2))


def python_examples(page: Path) -> Iterator[Block]:
    return (b for b in blocks(page, "python") if ">>>" in b.body)


def normalised(text: str) -> str:
    return _TIME.sub("<time>", text)


def pattern(sample: str) -> re.Pattern[str]:
    """The sample as a pattern: ``…`` any text in a line, a line ``…`` any lines."""
    lines = []
    for line in normalised(sample).splitlines():
        if line.strip() == "…":
            lines.append(r"(?:[^\n]*\n)*?")
        else:
            lines.append(".*?".join(re.escape(part) for part in line.split("…")) + r"\n")
    return re.compile("".join(lines))


def test_the_readme_has_samples_of_each_kind() -> None:
    """Guards the parsing above: the samples are found where the pages have them, the
    README's Python example and the docs pages' sessions included."""
    commands = [s.command for page in PAGES for s in sessions(page)]
    assert any("journal replay" in c for c in commands), commands
    assert any(c.startswith("pricing analyze --table") for c in commands), commands
    assert list(python_examples(README))
    assert {s.page for page in PAGES for s in sessions(page)} - {"README.md"}
    assert list(b for page in PAGES for b in blocks(page, "yaml"))


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """A directory with ``data`` a running server's, tables H and demo dealt; the
    environment the sessions run in."""
    where = tmp_path_factory.mktemp("readme")
    server = start_server(data_dir=where / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRICING_")}
    env |= {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": f"{ROOT}{os.pathsep}{env.get('PYTHONPATH', '')}",
        "PRICING_SERVER": server.target,
    }
    try:
        feed = Feed(server, "H")
        feed.open()
        for index, card in enumerate(H_CARDS):
            feed.expose(card, pb.CARD_ROLE_BURN if index < 5 else pb.CARD_ROLE_RESULT)
        simulate = "pricing simulate --pace 0 --shoes 50 --seed 1 > /dev/null"
        subprocess.run(["bash", "-c", simulate], cwd=where, env=env, check=True, timeout=150)
        yield where, env
    finally:
        assert server.stop() == 0, server.log()


@pytest.mark.parametrize(
    "session",
    [s for page in PAGES for s in sessions(page)],
    ids=lambda s: f"{s.page}:{s.line}",
)
def test_each_shell_sample_is_what_the_command_prints(
    session: Session, sandbox: tuple[Path, dict[str, str]]
) -> None:
    where, env = sandbox
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", session.command],
        cwd=where,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # ``| head`` may cut the writer off (141 when pipefail is on): still the lines shown.
    assert done.returncode in (0, 141), done.stderr
    actual = normalised(done.stdout)
    assert pattern(session.output).fullmatch(actual), (
        f"{session.page} line {session.line}: `{session.command}` now prints:\n{actual}"
    )


@pytest.mark.parametrize(
    "example",
    [b for page in PAGES for b in python_examples(page)],
    ids=lambda b: f"{b.page}:{b.line}",
)
def test_each_python_example_runs_as_shown(example: Block) -> None:
    test = doctest.DocTestParser().get_doctest(
        example.body, {}, example.page, str(ROOT / example.page), example.line
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


@pytest.mark.parametrize(
    "block",
    [b for page in PAGES for b in blocks(page, "python") if ">>>" not in b.body],
    ids=lambda b: f"{b.page}:{b.line}",
)
def test_each_other_python_block_compiles(block: Block) -> None:
    """A fragment (names from its context, no output shown) cannot run, but it must parse."""
    compile(block.body, f"{block.page}:{block.line}", "exec", dont_inherit=True)


@pytest.mark.parametrize(
    "block",
    [b for page in PAGES for b in blocks(page, "yaml")],
    ids=lambda b: f"{b.page}:{b.line}",
)
def test_each_yaml_block_parses(block: Block) -> None:
    assert yaml.safe_load(block.body) is not None, f"{block.page}:{block.line}"
