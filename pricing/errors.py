"""The errors the engines raise, by what the caller did wrong.

Both kinds are ``ValueError``s. The service maps ``InvalidInput`` to ``INVALID_ARGUMENT`` (the
request itself is malformed) and ``IllegalMove`` to ``FAILED_PRECONDITION`` (well-formed, but
not possible in the current state of the table or shoe). A plain ``ValueError`` is not a client
error: engines and kernels raise it only when their own callers broke a contract (a bug), and the
service answers it with ``INTERNAL``. Every check of a client's input raises one of these types.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CardNotInShoe",
    "IllegalMove",
    "InvalidCard",
    "InvalidInput",
    "InvalidOption",
    "LimitExceeded",
]


class InvalidInput(ValueError):
    """The request is malformed: unparseable text, an option out of range. ``field``: the
    request field at fault as a path in the request (``card``, ``stake_cents``), when the code
    that refuses it knows (a client program is told it without reading the message)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class InvalidCard(InvalidInput):
    """Text that is not a card in the notation of docs/rules.md §0."""


class InvalidOption(InvalidInput):
    """A configuration value (decks, paytable, rule, preset) out of range or unknown."""


class IllegalMove(ValueError):
    """Well-formed, but not possible now (a result outside betting, a card after the shoe).
    ``table_id``: the table that refused it, once a table has seen it (an engine knows none)."""

    def __init__(self, message: str, *, table_id: str | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id


class CardNotInShoe(IllegalMove):
    """A card was reported that the shoe no longer holds; ``card`` in its normal notation
    (``AS``), once a table has seen it (the kernels raise it with the message alone)."""

    def __init__(
        self, message: str, *, table_id: str | None = None, card: str | None = None
    ) -> None:
        super().__init__(message, table_id=table_id)
        self.card = card


class LimitExceeded(Exception):
    """A configured limit refuses the request (RESOURCE_EXHAUSTED): ``limit`` is the flag that
    sets it (the label of ``pricing_limit_rejections_total``), ``value`` its setting;
    ``table_id`` the table it was counted on, if one; ``from_version`` where a watcher that fell
    behind resumes; ``retry_after`` the seconds after which the same call may find room (a
    ``google.rpc.RetryInfo`` on the wire), when the limit is one that frees up."""

    def __init__(
        self,
        limit: str,
        value: object,
        what: str,
        *,
        table_id: str | None = None,
        from_version: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{what}: the limit --{limit} is {value}")
        self.limit = limit
        self.value = value
        self.what = what
        self.table_id = table_id
        self.from_version = from_version
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt from its own arguments, not its message, when it crosses to or from a
        # worker process (pickle would otherwise call it with the message alone).
        keywords = {
            "table_id": self.table_id,
            "from_version": self.from_version,
            "retry_after": self.retry_after,
        }
        return (_limit_exceeded, ((self.limit, self.value, self.what), keywords))


def _limit_exceeded(args: tuple[str, object, str], keywords: dict[str, Any]) -> LimitExceeded:
    return LimitExceeded(*args, **keywords)
