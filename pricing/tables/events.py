"""Every event a table is folded from, declared once.

A table's state is a pure function of its list of events. The events a game folds
(``ExposeCard``, ``VoidRound``, ``EndRound``, ``NewShoe``: ``pricing.games.events``) and
``CloseTable``, which the table folds itself, are the dealer feed's events: each a
``FeedEvent``, whose ``KINDS`` the wire (``pricing.wire``), the servicer, the journal's codec
and the client derive their handling from. ``OpenTable`` is the first record of every journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from pricing.games.events import (
    CardRole,
    EndRound,
    Event,
    ExposeCard,
    FeedEvent,
    NewShoe,
    VoidRound,
)

__all__ = [
    "CardRole",
    "CloseTable",
    "EndRound",
    "Event",
    "ExposeCard",
    "FeedEvent",
    "Game",
    "JournalEntry",
    "NewShoe",
    "OpenTable",
    "TableConfig",
    "TableEvent",
    "TablePhase",
    "VoidRound",
]

# Vocabulary shared with the wire (numbers equal to the proto enums, checked by a test)


class Game(IntEnum):
    HILO = 1
    BLACKJACK = 2
    GOA_GAE = 3
    HIGHER_LOWER = 4
    BACCARAT = 5
    DRAGON_TIGER = 6


class TablePhase(IntEnum):
    OPENING = 1
    BETTING = 2
    SHOE_COMPLETE = 3
    CLOSED = 4
    DEALING = 5  # blackjack, Goa Gae: a round's cards are coming out; its bets are closed


@dataclass(frozen=True, slots=True)
class OpenTable:
    """The first record of every journal."""

    table_id: str
    config: TableConfig


@dataclass(frozen=True, slots=True)
class CloseTable(FeedEvent):
    """The table takes no more events; a round still open is void."""


TableEvent = OpenTable | FeedEvent
"""What a journal holds: its opening, then what the feed sent."""


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One accepted event: ``seq`` 0 for the opening, then the feed's own numbers."""

    seq: int
    version: int
    event: TableEvent


@dataclass(frozen=True, slots=True)
class TableConfig:
    """What a table is opened with. ``decks`` 0 means the game's default; ``rules`` is the
    engine's own rules/paytable object (``None``: the published defaults). Two opens of one id
    are the same table only if their configs are equal once defaults are filled in."""

    game: Game
    decks: int = 0
    rules: object = None
