"""Live tables: each one a pure fold of its accepted events over a game engine's state.

A table knows nothing of gRPC. It owns what is common to every game:

- the dealer feed's ``seq`` discipline (docs/rules.md §5): an event carries ``last_seq + 1``;
  a repeat of an applied ``seq`` with the same event returns the state as of that event and
  changes nothing (a retrying card reader never removes a card twice); the same ``seq`` with
  another event is a ``SeqConflict``; a gap is an ``IllegalMove`` naming the expected ``seq``;
- ``version``, +1 with every accepted change (1 once opened);
- the journal: every accepted event as a plain record, so a durable journal, a replay, a test
  model and a second replica agree by construction (``replay``);
- bounded histories for settlement: the prices of each recent version and how each recent round
  ended.

Everything a game decides (which events are legal, what they do to the shoe, the prices) is the
engine's; a ``GameAdapter`` turns an engine's state into the neutral ``GameView`` below. Every
rejected request raises before anything is assigned, so a table is never half-changed.

>>> tables = Tables()
>>> tables.open("t1", TableConfig(Game.HILO)).version
1
>>> from pricing.cards import parse_card
>>> for seq, text in enumerate(["2S", "3S", "4S", "5S", "6S"], start=1):
...     snap = tables.apply("t1", seq, ExposeCard(parse_card(text), CardRole.BURN))
>>> snap.version, snap.last_seq, snap.view.phase.name, snap.view.prices["SEVEN"].open
(6, 5, 'BETTING', True)
>>> tables.apply("t1", 3, ExposeCard(parse_card("4S"), CardRole.BURN)).version  # a retry
4
"""

from __future__ import annotations

from pricing.tables.adapter import GameAdapter, check_seat
from pricing.tables.collection import Tables
from pricing.tables.errors import (
    GameUnavailable,
    HistoryNotLoaded,
    SeqConflict,
    SeqGap,
    SeqTooOld,
    StaleBet,
    TableClosed,
    TableExists,
    TableHeldAside,
    TableNotFound,
    VersionNotReached,
)
from pricing.tables.events import (
    CardRole,
    CloseTable,
    EndRound,
    Event,
    ExposeCard,
    FeedEvent,
    Game,
    JournalEntry,
    NewShoe,
    OpenTable,
    TableConfig,
    TableEvent,
    TablePhase,
    VoidRound,
)
from pricing.tables.fold import FoldError, fold, fold_entry, replay
from pricing.tables.games import adapter_for, describe_config, plugged_in, register_adapter
from pricing.tables.history import MAX_STAKE_CENTS, Settlement, SettleStatus, Snapshot
from pricing.tables.positions import (
    MAX_LEGS,
    STEP_LEGS,
    LegOutcome,
    LegResult,
    PositionLeg,
    PositionSettlement,
    settle_position,
)
from pricing.tables.table import Table, TableChange, TableImage
from pricing.tables.views import (
    DealerOutcomesView,
    EndedRound,
    Figures,
    GameState,
    GameView,
    HandView,
    InsuranceView,
    LiveWork,
    RoundOutcome,
    SeatDecisionsView,
    SeatView,
    SideBetOutcomeView,
    SideBetResult,
    SideBetView,
    fixed_bet_view,
    standard_view,
)

__all__ = [
    "MAX_LEGS",
    "MAX_STAKE_CENTS",
    "STEP_LEGS",
    "CardRole",
    "CloseTable",
    "DealerOutcomesView",
    "EndRound",
    "EndedRound",
    "Event",
    "ExposeCard",
    "FeedEvent",
    "Figures",
    "FoldError",
    "Game",
    "GameAdapter",
    "GameState",
    "GameUnavailable",
    "GameView",
    "HandView",
    "HistoryNotLoaded",
    "InsuranceView",
    "JournalEntry",
    "LegOutcome",
    "LegResult",
    "LiveWork",
    "NewShoe",
    "OpenTable",
    "PositionLeg",
    "PositionSettlement",
    "RoundOutcome",
    "SeatDecisionsView",
    "SeatView",
    "SeqConflict",
    "SeqGap",
    "SeqTooOld",
    "SettleStatus",
    "Settlement",
    "SideBetOutcomeView",
    "SideBetResult",
    "SideBetView",
    "Snapshot",
    "StaleBet",
    "Table",
    "TableChange",
    "TableClosed",
    "TableConfig",
    "TableEvent",
    "TableExists",
    "TableHeldAside",
    "TableImage",
    "TableNotFound",
    "TablePhase",
    "Tables",
    "VersionNotReached",
    "VoidRound",
    "adapter_for",
    "check_seat",
    "describe_config",
    "fixed_bet_view",
    "fold",
    "fold_entry",
    "plugged_in",
    "register_adapter",
    "replay",
    "settle_position",
    "standard_view",
]
