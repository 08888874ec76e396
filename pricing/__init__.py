"""Exact remaining-deck odds and dynamic payouts for live-dealer card games.

The games (``pricing.games``) are pure functions of the cards seen; ``pricing.tables`` folds a
dealer's feed over them; ``pricing.server`` keeps live tables behind gRPC. docs/ARCHITECTURE.md
is the map.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Final

__version__ = "0.1.0"

#: Modules that moved when the package was laid out by its layers, by their old names: the old
#: name imports the same module object at its new place, for code written against the old
#: layout. (The engines' old names also have stubs, ``pricing/hilo.pyi`` and the like, so that
#: type checkers follow them too.)
MOVED: Final[dict[str, str]] = {
    "pricing.basic_strategy": "pricing.games.blackjack.strategy",
    "pricing.blackjack": "pricing.games.blackjack",
    "pricing.events": "pricing.games.events",
    "pricing.goagae": "pricing.games.goagae",
    "pricing.hilo": "pricing.games.hilo",
    "pricing.adapters": "pricing.tables.adapters",
    "pricing.adapters.blackjack": "pricing.tables.adapters.blackjack",
    "pricing.adapters.goagae": "pricing.tables.adapters.goagae",
    "pricing.adapters.hilo": "pricing.tables.adapters.hilo",
    "pricing.adapters.single_deck": "pricing.tables.adapters.single_deck",
    "pricing.analysis.wire": "pricing.server.analyze",
    "pricing.auth": "pricing.server.auth",
    "pricing.cli_args": "pricing.cli.args",
    "pricing.cli_format": "pricing.cli.format",
    "pricing.eventloop": "pricing.server.eventloop",
    "pricing.fanout": "pricing.server.fanout",
    "pricing.limits": "pricing.server.limits",
    "pricing.messages": "pricing.wire",
    "pricing.metrics": "pricing.server.metrics",
    "pricing.metrics_http": "pricing.server.metrics_http",
    "pricing.metrics_tables": "pricing.server.metrics_tables",
    "pricing.quoting": "pricing.server.offload",
    "pricing.security": "pricing.server.security",
    "pricing.service": "pricing.server.service",
    "pricing.store": "pricing.server.store",
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old name of ``MOVED`` before the file system does (a moved package's old name
    must not load its submodules a second time under new names)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if fullname in MOVED else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at its new place already ran."""


sys.meta_path.insert(0, _MovedModules())
