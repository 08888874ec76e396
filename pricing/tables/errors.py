"""What a table refuses, by what the caller asked for (``pricing.errors`` has the rest).

Each carries, besides its message, the values a program needs to act on it (the seq a card
reader should send, the version a bet was refused at), so that the service can hand them to
clients in a form they need not parse out of the text. Every such value is optional: an error
rebuilt from its message alone (unpickled) is still the same error."""

from __future__ import annotations

from pricing.errors import IllegalMove

__all__ = [
    "GameUnavailable",
    "HistoryNotLoaded",
    "SeqConflict",
    "SeqGap",
    "SeqTooOld",
    "StaleBet",
    "TableClosed",
    "TableExists",
    "TableHeldAside",
    "TableNotFound",
    "VersionNotReached",
]


class TableNotFound(LookupError):
    """No table has that id (NOT_FOUND)."""

    def __init__(self, message: str, *, table_id: str | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id


class TableHeldAside(IllegalMove):
    """The table exists, but a newer build of the service wrote its journal, which this one
    cannot read (``why``): it is held aside, not served and not opened anew, until this
    server is upgraded (FAILED_PRECONDITION)."""

    def __init__(
        self, message: str, *, table_id: str | None = None, why: str | None = None
    ) -> None:
        super().__init__(message, table_id=table_id)
        self.why = why


class TableExists(ValueError):
    """A table with that id exists with another configuration (ALREADY_EXISTS)."""

    def __init__(self, message: str, *, table_id: str | None = None) -> None:
        super().__init__(message)
        self.table_id = table_id


class SeqConflict(ValueError):
    """An applied ``seq`` was sent again with a different event (ALREADY_EXISTS)."""

    def __init__(
        self,
        message: str,
        *,
        table_id: str | None = None,
        seq: int | None = None,
        last_seq: int | None = None,
    ) -> None:
        super().__init__(message)
        self.table_id = table_id
        self.seq = seq
        self.last_seq = last_seq


class SeqGap(IllegalMove):
    """``seq`` is past ``last_seq + 1``: events in between are missing; the table expects
    ``expected_seq`` (FAILED_PRECONDITION)."""

    def __init__(
        self,
        message: str,
        *,
        table_id: str | None = None,
        seq: int | None = None,
        expected_seq: int | None = None,
        last_seq: int | None = None,
    ) -> None:
        super().__init__(message, table_id=table_id)
        self.seq = seq
        self.expected_seq = expected_seq
        self.last_seq = last_seq


class SeqTooOld(IllegalMove):
    """A repeated ``seq`` older than the events the table keeps to check repeats against
    (``held``): it cannot say whether the event is the one applied (FAILED_PRECONDITION)."""

    def __init__(
        self,
        message: str,
        *,
        table_id: str | None = None,
        seq: int | None = None,
        last_seq: int | None = None,
        held: int | None = None,
    ) -> None:
        super().__init__(message, table_id=table_id)
        self.seq = seq
        self.last_seq = last_seq
        self.held = held


class TableClosed(IllegalMove):
    """The table is closed: it takes no more events (FAILED_PRECONDITION)."""


class VersionNotReached(IllegalMove):
    """A bet at a version the table has not reached yet (FAILED_PRECONDITION)."""

    def __init__(
        self,
        message: str,
        *,
        table_id: str | None = None,
        version: int | None = None,
        current_version: int | None = None,
    ) -> None:
        super().__init__(message, table_id=table_id)
        self.version = version
        self.current_version = current_version


class StaleBet(IllegalMove):
    """A bet that cannot be settled as placed (FAILED_PRECONDITION): ``why`` is one of
    ``VERSION_NOT_HELD`` (its version's prices are no longer kept), ``ROUND_NOT_HELD`` (nor its
    round's result), ``BET_NOT_OFFERED``, ``BET_CLOSED`` (the bet was closed at that version)
    or ``BETTING_CLOSED`` (its round was not open for betting at that version)."""

    def __init__(
        self,
        message: str,
        *,
        why: str | None = None,
        table_id: str | None = None,
        round_id: int | None = None,
        version: int | None = None,
        bet: str | None = None,
        current_version: int | None = None,
    ) -> None:
        super().__init__(message, table_id=table_id)
        self.why = why
        self.round_id = round_id
        self.version = version
        self.bet = bet
        self.current_version = current_version


class GameUnavailable(NotImplementedError):
    """The game's engine is not part of this build yet (UNIMPLEMENTED)."""

    def __init__(self, message: str, *, game: str | None = None) -> None:
        super().__init__(message)
        self.game = game


class HistoryNotLoaded(LookupError):
    """A table rebuilt from an image holds its histories only from the image's version on; a
    retry or a bet older than that needs the whole table folded from its journal first (the
    table store does that, then asks again). Never reaches a client."""
