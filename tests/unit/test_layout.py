"""The package's layout holds: imports run one way down the layers, no import cycle (imports
for annotations alone counted), no module too long to read, each public package exports the
names the docs use, and docs/ARCHITECTURE.md names only files that exist."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pricing"

#: The layers, lowest first: a module may import from its own layer and the ones before it.
LAYERS: tuple[tuple[str, ...], ...] = (
    (  # cards, money and text rules, the compiled kernels, process set-up
        "pricing",
        "pricing.cards",
        "pricing.payout",
        "pricing.errors",
        "pricing.text",
        "pricing.ratelog",
        "pricing.tls",
        "pricing.grpc_experiments",
        "pricing._",
    ),
    ("pricing.games",),
    ("pricing.tables",),
    ("pricing.wire", "pricing.v1"),
    ("pricing.journal",),
    ("pricing.analysis",),
    ("pricing.server",),
    ("pricing.cli", "pricing.launch"),
)
#: The client stands apart: game servers import it alone, so it needs only the wire's stubs.
CLIENT_MAY_IMPORT: tuple[str, ...] = ("pricing.client", "pricing.tls", "pricing.v1")
MAX_LINES = 600
MAX_TOP_LEVEL_MODULES = 10


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> Iterator[Path]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if "v1" not in path.relative_to(PACKAGE).parts:
            yield path


def _is_module(dotted: str) -> bool:
    path = ROOT / dotted.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").exists()


def _within(name: str, prefix: str) -> bool:
    if prefix == "pricing._":
        return name.startswith("pricing._")
    return name == prefix or name.startswith(prefix + ".")


def _at_import(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` that run when the module is imported, with those a type
    checker reads under ``if TYPE_CHECKING:``: an annotation-only import ties two modules
    together as much as any other, so a cycle through one is a cycle."""
    for node in body:
        yield node
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from _at_import(node.body)


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """The pricing modules ``path`` imports (every import, or only those at its top level,
    ``if TYPE_CHECKING:`` included): ``import``, ``from … import`` (relative ones resolved) and
    ``import_module("pricing…")``."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = list(_at_import(tree.body)) if top_level_only else list(ast.walk(tree))
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("pricing"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: from the package ``level`` dots up
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            if not module.startswith("pricing"):
                continue
            for alias in node.names:  # ``from pricing.games import hilo`` imports the module
                sub = f"{module}.{alias.name}"
                found.add(sub if _is_module(sub) else module)
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("pricing")
        ):
            found.add(str(node.args[0].value))
    return found


def _layer(name: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if any(_within(name, p) for p in prefixes if p != "pricing"):
            return rank
    return 0 if name == "pricing" else None


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_down_the_layers(path: Path) -> None:
    name = _name(path)
    imported = _imports(path, top_level_only=False)
    if _within(name, "pricing.client"):
        wrong = {i for i in imported if not any(_within(i, p) for p in CLIENT_MAY_IMPORT)}
        assert not wrong, f"{name} (the client) imports {sorted(wrong)}"
        return
    own = _layer(name)
    assert own is not None, f"{name} is in no layer of tests/unit/test_layout.py"
    wrong = set()
    for other in imported:
        if _within(other, "pricing.client"):
            if not _within(name, "pricing.cli"):
                wrong.add(other)
            continue
        rank = _layer(other)
        if rank is None or rank > own:
            wrong.add(other)
    assert not wrong, f"{name} (layer {own}) imports from a layer above it: {sorted(wrong)}"


def test_no_import_cycle() -> None:
    graph = {_name(p): _imports(p, top_level_only=True) for p in _modules()}
    done: set[str] = set()
    stack: list[str] = []

    def visit(node: str) -> None:
        if node in stack:
            cycle = [*stack[stack.index(node) :], node]
            raise AssertionError(f"import cycle: {' -> '.join(cycle)}")
        if node in done or node not in graph:
            return
        stack.append(node)
        for other in sorted(graph[node]):
            visit(other)
        stack.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)


def _kernel_sources() -> Iterator[Path]:
    """The Cython sources under ``ext/`` and ``pricing/``: the kernels and their shared
    declarations (not the C generated from them)."""
    for folder in (ROOT / "ext", PACKAGE):
        for suffix in ("pyx", "pxd", "pxi"):
            yield from sorted(folder.rglob(f"*.{suffix}"))


def test_no_module_is_too_long_and_few_sit_at_the_top() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (*_modules(), *_kernel_sources())
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"
    top = [p for p in PACKAGE.glob("*.py")]
    modules = sorted(p.name for p in top)
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, modules
    # Stubs at the top are the compiled kernels' (``pricing._analyzer``...): a module has one name.
    stubs = sorted(p.name for p in PACKAGE.glob("*.pyi") if not p.name.startswith("_"))
    assert not stubs, f"stubs of modules that are not there: {stubs}"


def _frozen(names: str) -> frozenset[str]:
    return frozenset(names.split())


#: The public packages' names: what README.md, docs/ and examples/ show a game server, a card
#: reader or a test lab importing, and what each package's ``__all__`` holds. A name added or
#: taken away is a change of the API: make it here and in the docs together.
PUBLIC: dict[str, frozenset[str]] = {
    "pricing.client": _frozen(
        "AsyncDealerFeed AsyncPricingClient BlockingFeedStream Connection DEFAULT_TARGET "
        "DealerFeed ErrorDetails FeedStreamError FieldViolation PricingClient default_target "
        "error_details retry_delay"
    ),
    "pricing.cli": _frozen("EXIT_STREAM_ENDED EXIT_USAGE format_state main"),
    "pricing.games.hilo": _frozen(
        "BETS BetPrice DEFAULT_PAYTABLE HILO_GAME HiLoDeck HiLoPaytable OPENING_BURNS Phase "
        "RESULTS_PER_DECK RoundOutcome bet_wins next_card_quotes quote quote_rank_counts "
        "winning_ranks"
    ),
    "pricing.games.goagae": _frozen(
        "BETS BetPrice Category DEFAULT_PAYTABLE GoaGaeDeck GoaGaePaytable HAND_SIZE HandValue "
        "Phase RoundOutcome Showdown bet_wins category_odds evaluate points_odds quote showdown "
        "win_probability"
    ),
    "pricing.games.higher_lower": _frozen(
        "BETS BLACK_SUITS DEFAULT_BURNS DEFAULT_DECKS DEFAULT_PAYTABLE DEFAULT_RULE "
        "HIGHER_LOWER_RANKS HigherLowerPaytable HigherLowerRules HigherLowerShoe MAX_BURNS Phase "
        "RED_SUITS RoundOutcome ShuffleMode game"
    ),
    "pricing.games.blackjack": _frozen(
        "ANY_PAIR BlackjackShoe DEALER_OUTCOMES DEFAULT_ROYAL_MATCH DealerOdds DealerRule "
        "InsuranceOdds OutcomeOdds PAIRS_PRESETS PERFECT_PAIRS PairsPaytable ROYAL_MATCH_PRESETS "
        "RoyalMatchPaytable STANDARD_ROYAL_MATCH ShoeMode SideBetOdds UP_VALUES classify_pair "
        "classify_royal_match dealer_hand_result dealer_odds dealer_odds_from_hand "
        "dealer_outcomes dealer_outcomes_from_hand dealer_table hand_total insurance "
        "pairs_paytable played_dealer_hand royal_match_paytable side_bets"
    ),
    "pricing.games.events": _frozen(
        "CardRole EndRound Event ExposeCard FeedEvent NewShoe VoidRound"
    ),
}


@pytest.mark.parametrize(("module", "names"), sorted(PUBLIC.items()), ids=sorted(PUBLIC))
def test_a_public_package_exports_its_documented_names(module: str, names: frozenset[str]) -> None:
    exported = set(importlib.import_module(module).__all__)
    assert exported == names, (
        f"{module}.__all__: added {sorted(exported - names)}, taken away {sorted(names - exported)}"
    )


_DOCUMENTED_IMPORT = re.compile(r"^(?:>>>|\.\.\.)?\s*from (pricing[\w.]*) import ([\w, ]+)$", re.M)


def _documented_imports() -> Iterator[tuple[str, str, str]]:
    """Where the docs and examples import a name from the package: (file, module, name)."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in docs:
        for module, names in _DOCUMENTED_IMPORT.findall(path.read_text()):
            for name in names.split(","):
                yield path.name, module, name.strip().split(" as ")[0]
    for path in sorted((ROOT / "examples").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pricing"):
                for alias in node.names:
                    yield path.name, str(node.module), alias.name


def test_the_docs_import_only_public_names() -> None:
    """A name the docs or the examples import is a public one: in its module's ``__all__``
    (or a module itself), never from a private module."""
    wrong = []
    for where, module, name in _documented_imports():
        if _is_module(f"{module}.{name}"):
            continue
        found = importlib.import_module(module)
        public = getattr(found, "__all__", ())
        if any(part.startswith("_") for part in module.split(".")) or name not in public:
            wrong.append(f"{where}: from {module} import {name}")
    assert not wrong, f"not public names: {wrong}"


def test_the_architecture_map_names_only_what_exists() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    paths = set(re.findall(r"`((?:pricing|tests|ext|proto|bench|docs|deploy)/[\w./-]*)`", text))
    assert len(paths) >= 20, "the map names the folders and modules it describes"
    missing = sorted(p for p in paths if not (ROOT / p.rstrip("/")).exists())
    assert not missing, f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"
    for dotted in sorted(set(re.findall(r"`(pricing(?:\.\w+)+)`", text))):
        parts = dotted.split(".")
        cut = max(n for n in range(1, len(parts) + 1) if _is_module(".".join(parts[:n])))
        found: object = importlib.import_module(".".join(parts[:cut]))
        for part in parts[cut:]:
            assert hasattr(found, part), f"docs/ARCHITECTURE.md names {dotted}: no {part}"
            found = getattr(found, part)
