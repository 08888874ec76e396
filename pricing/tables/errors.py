"""What a table refuses, by what the caller asked for (``pricing.errors`` has the rest)."""

from __future__ import annotations

__all__ = ["GameUnavailable", "HistoryNotLoaded", "SeqConflict", "TableExists", "TableNotFound"]


class TableNotFound(LookupError):
    """No table has that id (NOT_FOUND)."""


class TableExists(ValueError):
    """A table with that id exists with another configuration (ALREADY_EXISTS)."""


class SeqConflict(ValueError):
    """An applied ``seq`` was sent again with a different event (ALREADY_EXISTS)."""


class GameUnavailable(NotImplementedError):
    """The game's engine is not part of this build yet (UNIMPLEMENTED)."""


class HistoryNotLoaded(LookupError):
    """A table rebuilt from an image holds its histories only from the image's version on; a
    retry or a bet older than that needs the whole table folded from its journal first (the
    table store does that, then asks again). Never reaches a client."""
