"""The package's layout holds: imports run one way down the layers, no import cycle, no module
too long to read, the old import paths still work, and docs/ARCHITECTURE.md names only files
that exist."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pricing import MOVED

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
#: Old module names (``pricing.MOVED``): nothing inside the package may use them.
SHIMS: tuple[str, ...] = tuple(MOVED)
MAX_LINES = 600
MAX_TOP_LEVEL_MODULES = 10
MAX_SHIM_LINES = 20


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


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    """The pricing modules ``path`` imports (every import, or only those run on import):
    ``import``, ``from … import`` (relative ones resolved) and ``import_module("pricing…")``."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    package = _name(path) if path.name == "__init__.py" else _name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
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
    if name in SHIMS:
        return
    imported = _imports(path, top_level_only=False)
    if _within(name, "pricing.client"):
        wrong = {i for i in imported if not any(_within(i, p) for p in CLIENT_MAY_IMPORT)}
        assert not wrong, f"{name} (the client) imports {sorted(wrong)}"
        return
    own = _layer(name)
    assert own is not None, f"{name} is in no layer of tests/unit/test_layout.py"
    wrong = set()
    for other in imported:
        if other in SHIMS or _within(other, "pricing.client"):
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


def test_no_module_is_too_long_and_few_sit_at_the_top() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"
    top = [p for p in PACKAGE.glob("*.py")]
    for stub in PACKAGE.glob("*.pyi"):  # the kernels' stubs, and the old names' for type checkers
        if _name(stub) in SHIMS:
            assert len(stub.read_text().splitlines()) <= MAX_SHIM_LINES, stub
    modules = sorted(p.name for p in top)
    assert len(modules) <= MAX_TOP_LEVEL_MODULES, modules


#: Old import paths that examples and users may hold, and where each name lives now.
OLD_PATHS: tuple[tuple[str, str, str], ...] = (
    ("pricing.client", "PricingClient", "pricing.client._client"),
    ("pricing.client", "AsyncDealerFeed", "pricing.client._feed"),
    ("pricing.hilo", "quote", "pricing.games.hilo"),
    ("pricing.hilo", "SEVEN_RULE", "pricing.games.hilo"),  # not in its __all__
    ("pricing.goagae", "GoaGaeDeck", "pricing.games.goagae"),
    ("pricing.blackjack", "side_bets", "pricing.games.blackjack.bets"),
    ("pricing.blackjack", "BlackjackShoe", "pricing.games.blackjack.shoe"),
    ("pricing.basic_strategy", "player_draws", "pricing.games.blackjack.strategy"),
    ("pricing.events", "ExposeCard", "pricing.games.events"),
    ("pricing.tables", "ExposeCard", "pricing.games.events"),
    ("pricing.tables", "Table", "pricing.tables.table"),
    ("pricing.tables", "Tables", "pricing.tables.collection"),
    ("pricing.tables", "replay", "pricing.tables.fold"),
    ("pricing.service", "PricingService", "pricing.server.service"),
    ("pricing.store", "TableStore", "pricing.server.store"),
    ("pricing.messages", "snapshot_to_proto", "pricing.wire"),
    ("pricing.adapters.hilo", "HiLoAdapter", "pricing.tables.adapters.hilo"),
    ("pricing.server", "serve", "pricing.server.process"),
    ("pricing.server", "main", "pricing.server.process"),
    ("pricing.server", "parser", "pricing.server.flags"),
)


@pytest.mark.parametrize(("old", "name", "new"), OLD_PATHS)
def test_old_import_paths_still_work(old: str, name: str, new: str) -> None:
    assert getattr(importlib.import_module(old), name) is getattr(
        importlib.import_module(new), name
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        *MOVED.items(),
        ("pricing.hilo", "pricing.games.hilo"),
        ("pricing.blackjack", "pricing.games.blackjack"),
        ("pricing.events", "pricing.games.events"),
    ],
)
def test_an_old_module_is_the_moved_module_itself(old: str, new: str) -> None:
    assert importlib.import_module(old) is importlib.import_module(new)


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
