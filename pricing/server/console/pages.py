"""The console's pages, rendered from Jinja2 templates (``templates/``, autoescaped) with
their script and style served by the server itself (``static/``: no CDN, so a console works
in a closed studio network).

The lobby's page is a shell rendered once, filled and kept live by ``lobby.js`` from the
lobby's event stream (its first event comes at once); a table's page is rendered once per
state however many open it; a table's page is rendered with its latest state's headline and kept
live by ``table.js`` from the table's event stream. Both reconnect by themselves after a
restart (EventSource, with the ``retry:`` the streams send).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import jinja2
from aiohttp import web

__all__ = ["STATIC", "Pages"]

HERE: Final = Path(__file__).resolve().parent
STATIC: Final = HERE / "static"

#: The games as the lobby's filter names them, in the proto's order.
GAMES: Final = (
    ("GAME_HILO", "Hi-Lo"),
    ("GAME_BLACKJACK", "Blackjack"),
    ("GAME_GOA_GAE", "Goa Gae"),
    ("GAME_HIGHER_LOWER", "Higher/Lower"),
    ("GAME_BACCARAT", "Baccarat"),
    ("GAME_DRAGON_TIGER", "Dragon Tiger"),
)


def _game_name(game: str) -> str:
    return dict(GAMES).get(game, game.removeprefix("GAME_").replace("_", " ").title())


def _phase_name(phase: str) -> str:
    return phase.removeprefix("PHASE_").replace("_", " ").lower()


class Pages:
    """The templates, loaded once."""

    def __init__(self) -> None:
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["game_name"] = _game_name
        self.env.filters["phase_name"] = _phase_name
        self.env.globals["games_json"] = json.dumps(dict(GAMES))
        self._once: dict[str, bytes] = {}

    def once(self, name: str, **values: Any) -> bytes:
        """A page that is the same for every reader (the lobby's shell), rendered once."""
        made = self._once.get(name)
        if made is None:
            made = self._once[name] = self.text(name, **values)
        return made

    def text(self, name: str, **values: Any) -> bytes:
        return self.env.get_template(name).render(games=GAMES, **values).encode()

    def render(self, name: str, *, status: int = 200, **values: Any) -> web.Response:
        return self.html(self.text(name, **values), status=status)

    @staticmethod
    def html(body: bytes, *, status: int = 200) -> web.Response:
        return web.Response(body=body, status=status, content_type="text/html", charset="utf-8")

    def error(self, status: int, message: str) -> web.Response:
        """An error as a page (the message escaped like every value)."""
        return self.render("error.html", status=status, title=f"{status}", message=message)
