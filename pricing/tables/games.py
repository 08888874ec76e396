"""The games a table can be opened with: each one's adapter, by ``Game``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from pricing.tables.adapter import GameAdapter
from pricing.tables.adapters.blackjack import BlackjackAdapter
from pricing.tables.adapters.goagae import GoaGaeAdapter
from pricing.tables.adapters.higher_lower import HigherLowerAdapter
from pricing.tables.adapters.hilo import HiLoAdapter
from pricing.tables.adapters.two_hands import BACCARAT_TABLE, DRAGON_TIGER_TABLE, TwoHandAdapter
from pricing.tables.errors import GameUnavailable
from pricing.tables.events import Game, TableConfig

__all__ = [
    "adapter_for",
    "config_difference",
    "describe_config",
    "plugged_in",
    "register_adapter",
]

_BUILT_IN: tuple[GameAdapter, ...] = (
    HiLoAdapter(),
    GoaGaeAdapter(),
    BlackjackAdapter(),
    HigherLowerAdapter(),
    TwoHandAdapter(BACCARAT_TABLE),
    TwoHandAdapter(DRAGON_TIGER_TABLE),
)
_ADAPTERS: dict[Game, GameAdapter] = {adapter.game: adapter for adapter in _BUILT_IN}


def register_adapter(adapter: GameAdapter) -> None:
    """Plug a game in (or replace a built-in one's adapter)."""
    _ADAPTERS[adapter.game] = adapter


@contextlib.contextmanager
def plugged_in(adapter: GameAdapter) -> Iterator[GameAdapter]:
    """``adapter`` plugged in for the ``with`` block only (a test, a trial): afterwards the
    games are as they were."""
    saved = dict(_ADAPTERS)
    register_adapter(adapter)
    try:
        yield adapter
    finally:
        _ADAPTERS.clear()
        _ADAPTERS.update(saved)


def adapter_for(game: Game) -> GameAdapter:
    adapter = _ADAPTERS.get(game)
    if adapter is None:
        raise GameUnavailable(
            f"game GAME_{game.name} is not available in this build", game=f"GAME_{game.name}"
        )
    return adapter


def describe_config(config: TableConfig) -> dict[str, str]:
    """A configured table as the fields of an OpenTable request name it.

    >>> describe_config(adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))["hilo.seven"]
    '{rtp_bp: 8350 min_hundredths: 693 max_hundredths: 3824}'
    """
    options = adapter_for(config.game).describe(config)
    return {"game": config.game.name, "decks": str(config.decks), **options}


def config_difference(have: TableConfig, asked: TableConfig) -> str:
    """What differs between two configured tables, field by field (another game: just that).

    >>> adapter = adapter_for(Game.HILO)
    >>> config_difference(adapter.configure(TableConfig(Game.HILO)), TableConfig(Game.GOA_GAE))
    'it has game GAME_HILO; this request asks for game GAME_GOA_GAE'
    """
    if have.game != asked.game:
        return (
            f"it has game GAME_{have.game.name}; this request asks for game GAME_{asked.game.name}"
        )
    old, new = describe_config(have), describe_config(asked)
    fields = [name for name in {**old, **new} if old.get(name) != new.get(name)] or list(new)

    def listed(options: dict[str, str]) -> str:
        return ", ".join(f"{name} {options.get(name, '(not set)')}" for name in fields)

    return f"it has {listed(old)}; this request asks for {listed(new)}"
