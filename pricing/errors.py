"""The errors the engines raise, by what the caller did wrong.

Both kinds are ``ValueError``s. The service maps ``InvalidInput`` to ``INVALID_ARGUMENT`` (the
request itself is malformed) and ``IllegalMove`` to ``FAILED_PRECONDITION`` (well-formed, but
not possible in the current state of the table or shoe). A plain ``ValueError`` is not a client
error: engines and kernels raise it only when their own callers broke a contract (a bug), and the
service answers it with ``INTERNAL``. Every check of a client's input raises one of these types.
"""

from __future__ import annotations

__all__ = [
    "CardNotInShoe",
    "IllegalMove",
    "InvalidCard",
    "InvalidInput",
    "InvalidOption",
]


class InvalidInput(ValueError):
    """The request is malformed: unparseable text, an option out of range."""


class InvalidCard(InvalidInput):
    """Text that is not a card in the notation of docs/rules.md §0."""


class InvalidOption(InvalidInput):
    """A configuration value (decks, paytable, rule, preset) out of range or unknown."""


class IllegalMove(ValueError):
    """Well-formed, but not possible now (a result outside betting, a card after the shoe)."""


class CardNotInShoe(IllegalMove):
    """A card was reported that the shoe no longer holds."""
