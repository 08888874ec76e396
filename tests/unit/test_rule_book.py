"""The rule book, docs/rules.md, and the references to it: every ``docs/rules.md §N`` cited in
the code, the proto and the tests names a section that exists; every test the book cites
exists; every rule test cites a section; no file points outside the repository for a rule."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "docs" / "rules.md"
#: What a clone contains and a reader may open: the product's files.
PRODUCT = ("pricing", "proto", "docs", "examples", "ext", "tests", "bench", "README.md")
SUFFIXES = {".py", ".pyi", ".pyx", ".pxd", ".proto", ".md"}

CITATION = re.compile(r"docs/rules\.md\s+((?:§\s*\d+(?:\.\d+)?(?:,\s*)?)+)")
SECTION = re.compile(r"§\s*(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)[. ]", re.MULTILINE)
# Spelled so that this file does not match what it looks for.
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "shared" + "/", "RULES" + r"\.md"]))
ISSUE = re.compile(r"\bissues?\s+#?\d", re.IGNORECASE)


def product_files() -> Iterator[Path]:
    for name in PRODUCT:
        path = ROOT / name
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*")):
            if file.suffix in SUFFIXES and ".venv" not in file.parts and file.is_file():
                yield file


def sections() -> set[str]:
    return set(HEADING.findall(BOOK.read_text()))


def cited(text: str) -> list[str]:
    return [s for group in CITATION.findall(text) for s in SECTION.findall(group)]


def test_the_book_has_sections_zero_to_five() -> None:
    assert {"0", "1", "2", "3", "4", "5"} <= sections()


def test_every_citation_names_a_section_of_the_book() -> None:
    known = sections()
    dangling = [
        f"{file.relative_to(ROOT)}: §{number}"
        for file in product_files()
        for number in cited(file.read_text())
        if number not in known
    ]
    assert not dangling, f"citations of sections docs/rules.md does not have: {dangling}"


def test_no_product_file_points_outside_the_repository_or_at_an_issue() -> None:
    found = [
        f"{file.relative_to(ROOT)}:{n}: {line.strip()}"
        for file in product_files()
        for n, line in enumerate(file.read_text().splitlines(), start=1)
        if OUTSIDE.search(line) or ISSUE.search(line)
    ]
    assert not found, "say the rule (docs/rules.md §N) instead:\n" + "\n".join(found)


def test_every_test_the_book_cites_exists() -> None:
    """``[tests/a.py::test_x, test_y]``: a bare name is another test of the module before it."""
    missing = []
    for bracket in re.findall(r"\[(tests/[^\]]+)\]", BOOK.read_text()):
        module = ROOT
        for ref in re.split(r",\s*", bracket.replace("\n", " ")):
            path, _, name = ref.strip().rpartition("::") if "::" in ref else (ref.strip(), "", "")
            if path.startswith("tests/"):
                module = ROOT / path
            else:
                name = path
            if not module.is_file():
                missing.append(path)
            elif name and not re.search(rf"def {re.escape(name)}\(", module.read_text()):
                missing.append(f"{module.relative_to(ROOT)}::{name}")
    assert not missing, f"docs/rules.md cites tests that do not exist: {missing}"


#: Test modules of the games' and the tables' rules: each says which section it checks.
RULE_TESTS = sorted(
    path
    for prefix in ("test_hilo", "test_blackjack", "test_goagae", "test_cards", "test_table")
    for path in (ROOT / "tests").rglob(f"{prefix}*.py")
)


@pytest.mark.parametrize("module", RULE_TESTS, ids=lambda p: p.name)
def test_every_rule_test_names_its_section(module: Path) -> None:
    assert cited(module.read_text()), f"{module.name} cites no docs/rules.md §N"
