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

import contextlib
import importlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Final, Generic, Protocol, TypeVar

from pricing.cards import Card
from pricing.errors import IllegalMove, InvalidInput, LimitExceeded
from pricing.games.events import CardRole, EndRound, Event, ExposeCard, NewShoe, VoidRound
from pricing.payout import MAX_HUNDREDTHS, BetPrice, closed
from pricing.text import check_table_id

__all__ = [
    "MAX_STAKE_CENTS",
    "CardRole",
    "CloseTable",
    "DealerOutcomesView",
    "EndRound",
    "EndedRound",
    "Event",
    "ExposeCard",
    "FeedEvent",
    "Game",
    "GameAdapter",
    "GameState",
    "GameUnavailable",
    "GameView",
    "HistoryNotLoaded",
    "InsuranceView",
    "JournalEntry",
    "NewShoe",
    "OpenTable",
    "RoundOutcome",
    "SeatView",
    "SeqConflict",
    "SettleStatus",
    "Settlement",
    "SideBetOutcomeView",
    "SideBetResult",
    "SideBetView",
    "Snapshot",
    "Table",
    "TableChange",
    "TableConfig",
    "TableExists",
    "TableImage",
    "TableNotFound",
    "TablePhase",
    "Tables",
    "VoidRound",
    "adapter_for",
    "check_seat",
    "describe_config",
    "register_adapter",
    "replay",
    "standard_view",
]


# ---------------------------------------------------------------------------------------------
# Errors the table layer adds to pricing.errors (the service maps each to a status code)


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


# ---------------------------------------------------------------------------------------------
# Vocabulary shared with the wire (numbers equal to the proto enums, checked by a test)


class Game(IntEnum):
    HILO = 1
    BLACKJACK = 2
    GOA_GAE = 3


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
class CloseTable:
    """The table takes no more events; a round still open is void."""


FeedEvent = ExposeCard | VoidRound | EndRound | NewShoe | CloseTable
"""What the dealer feed sends, each with a ``seq``."""
TableEvent = OpenTable | FeedEvent


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


# ---------------------------------------------------------------------------------------------
# The neutral view of a game state: what a table publishes, whatever the game


@dataclass(frozen=True, slots=True)
class SeatView:
    """One player box of a game with seats (blackjack) and its PLAYER cards."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class EndedRound:
    """How a round ended: ``result`` holds the cards that decided it, empty when void;
    ``cards`` every card exposed in the round with its role (and seat), when the game records
    them (blackjack's side bets settle on the PLAYER and DEALER cards among them); ``seats``
    each seat's cards its side bets settle on (blackjack: its first two)."""

    round_id: int
    result_index: int
    result: tuple[Card, ...]
    cards: tuple[ExposeCard, ...] = ()
    seats: tuple[SeatView, ...] = ()

    @property
    def void(self) -> bool:
        return not self.result


@dataclass(frozen=True, slots=True)
class SideBetOutcomeView:
    name: str
    ways: int
    total: int
    pays_hundredths: int


@dataclass(frozen=True, slots=True)
class SideBetView:
    """A fixed-paytable side bet: its winning outcomes (the rest of ``total`` loses). ``open``:
    it can be placed now (a round is open for betting and the shoe can deal it)."""

    bet: str
    outcomes: tuple[SideBetOutcomeView, ...]
    rtp: float
    player_favourable: bool
    open: bool = True


@dataclass(frozen=True, slots=True)
class InsuranceView:
    offered: bool
    probability: float
    rtp: float
    player_favourable: bool


@dataclass(frozen=True, slots=True)
class DealerOutcomesView:
    up_card: str
    rule: str  # "S17" or "H17"
    outcomes: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class GameView:
    """A game state as every game shows it. Prices are the engine's ``BetPrice`` objects."""

    phase: TablePhase
    shoe: int
    round_id: int
    result_index: int
    exposed: tuple[Card, ...]
    cards_remaining: int
    prices: Mapping[str, BetPrice]
    ended: EndedRound | None = None
    side_bets: tuple[SideBetView, ...] = ()
    insurance: InsuranceView | None = None
    dealer_outcomes: DealerOutcomesView | None = None
    seats: tuple[SeatView, ...] = ()  # every seat's PLAYER cards of the current round


# ---------------------------------------------------------------------------------------------
# Game adapters: the one place a game plugs into the tables


class RoundOutcome(Protocol):
    """How the round the last event ended went (``pricing.games.hilo.RoundOutcome`` is the model):
    ``result`` is the card (or cards) that decided it, ``None`` when it was void."""

    @property
    def round_id(self) -> int: ...
    @property
    def result_index(self) -> int: ...
    @property
    def result(self) -> Card | tuple[Card, ...] | None: ...


class GameState(Protocol):
    """The shape every engine state has (``pricing.games.hilo.HiLoDeck`` is the model): immutable;
    ``apply`` returns the next state, or raises one of ``pricing.errors``' types
    (``InvalidInput``, ``IllegalMove``) and changes nothing (anything else is a bug: INTERNAL);
    ``outcome`` is the round the last event ended, if it ended one. A state may also have a
    ``result_index`` (Hi-Lo: which result of the deck the open round decides)."""

    @property
    def shoe(self) -> int: ...
    @property
    def round_id(self) -> int: ...
    @property
    def exposed(self) -> tuple[Card, ...]: ...
    @property
    def cards_remaining(self) -> int: ...
    @property
    def prices(self) -> Mapping[str, BetPrice]: ...
    @property
    def phase(self) -> Enum: ...  # named as a TablePhase: OPENING, BETTING, DEALING, …
    @property
    def outcome(self) -> RoundOutcome | None: ...
    def apply(self, event: Event) -> GameState: ...


def standard_view(
    state: GameState,
    *,
    side_bets: tuple[SideBetView, ...] = (),
    insurance: InsuranceView | None = None,
    dealer_outcomes: DealerOutcomesView | None = None,
    seats: tuple[SeatView, ...] = (),
) -> GameView:
    """The ``GameView`` of any engine state of the shape above; a game adds its extras (an
    outcome may also have ``cards``, the round's cards with their roles, and ``seats``)."""
    outcome = state.outcome
    ended = None
    if outcome is not None:
        result = outcome.result
        cards = () if result is None else (result,) if isinstance(result, Card) else result
        round_cards = tuple(getattr(outcome, "cards", ()))
        round_seats = tuple(getattr(outcome, "seats", ()))
        ended = EndedRound(
            outcome.round_id, outcome.result_index, tuple(cards), round_cards, round_seats
        )
    return GameView(
        phase=TablePhase[state.phase.name],
        shoe=state.shoe,
        round_id=state.round_id,
        result_index=int(getattr(state, "result_index", 0)),
        exposed=tuple(state.exposed),
        cards_remaining=state.cards_remaining,
        prices=state.prices,
        ended=ended,
        side_bets=side_bets,
        insurance=insurance,
        dealer_outcomes=dealer_outcomes,
        seats=seats,
    )


@dataclass(frozen=True, slots=True)
class SideBetResult:
    """How one seat's fixed-paytable side bet came out: the outcome's name, what it pays in
    hundredths (negative: lost) and the cards it settled on."""

    outcome: str
    pays_hundredths: int
    cards: tuple[Card, ...]


class GameAdapter(Protocol):
    """What a game implements to get live tables, quotes and settlement (then
    ``register_adapter`` it, and map its rules message in ``pricing.wire``):

    - ``configure`` fills in defaults and validates (``InvalidOption``: INVALID_ARGUMENT);
    - ``new_state`` is the state of a freshly opened table;
    - ``view`` turns a state into the neutral ``GameView`` (usually ``standard_view`` plus the
      game's side bets, insurance and dealer outcomes);
    - ``quote`` is the view of a state with ``exposed`` seen, with no table;
    - ``bet_wins`` decides a dynamic bet from the cards that decided its round (settlement);
    - ``seats`` is the number of player boxes a table has (0: the game has none); the table
      checks the seat of each PLAYER card and each bet against it (``check_seat``);
    - ``side_bet_outcome`` settles a fixed-paytable side bet (``GameView.side_bets``) on the
      round for one seat (0 in a game without seats): a ``SideBetResult``, or ``None`` when
      that seat was not dealt enough cards to settle it (the stake is returned). A game
      without side bets is never asked;
    - ``describe`` names a configured table's options as a request writes them: each field's
      path in the game's rules message (``blackjack.dealer_rule``) and its value (``H17``),
      so a message about a config speaks the caller's notation.
    """

    game: Game

    def configure(self, config: TableConfig) -> TableConfig: ...
    def new_state(self, config: TableConfig) -> GameState: ...
    def view(self, state: GameState) -> GameView: ...
    def quote(
        self, config: TableConfig, exposed: Sequence[str], up_card: str | None = None
    ) -> GameView: ...
    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool: ...
    def seats(self, config: TableConfig) -> int: ...
    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None: ...
    def describe(self, config: TableConfig) -> dict[str, str]: ...


def check_seat(seats: int, seat: int, what: str) -> int:
    """The seat ``what`` (a PLAYER card, a bet) is for: ``seat`` checked against a table with
    ``seats`` player boxes (0: a game without seats, where it must be 0). Seats count from 1;
    with one seat, 0 means seat 1; with more, the seat is required. ``InvalidInput`` naming
    the value otherwise.

    >>> check_seat(3, 2, "a PLAYER card"), check_seat(1, 0, "a bet"), check_seat(0, 0, "a bet")
    (2, 1, 0)
    >>> check_seat(3, 4, "a PLAYER card")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidInput: seat 4 is out of range for a PLAYER card: the table has 3 ...
    """
    if seats == 0:
        if seat:
            raise InvalidInput(f"seat {seat} was sent for {what}: this game has no seats (send 0)")
        return 0
    if seat == 0 and seats == 1:
        return 1
    if seat == 0:
        raise InvalidInput(
            f"seat is required for {what}: the table has {seats} seats (send 1 to {seats})"
        )
    if seat > seats:
        plural = "seat" if seats == 1 else "seats"
        raise InvalidInput(
            f"seat {seat} is out of range for {what}: the table has {seats} {plural} "
            f"(send 1 to {seats})"
        )
    return seat


#: Where the built-in games' adapters live: imported on first use, since they build on this
#: module's types.
_BUILTIN_ADAPTERS: Final[dict[Game, tuple[str, str]]] = {
    Game.HILO: ("pricing.tables.adapters.hilo", "HiLoAdapter"),
    Game.GOA_GAE: ("pricing.tables.adapters.goagae", "GoaGaeAdapter"),
    Game.BLACKJACK: ("pricing.tables.adapters.blackjack", "BlackjackAdapter"),
}
_ADAPTERS: dict[Game, GameAdapter] = {}


def _builtin_adapter(game: Game) -> GameAdapter | None:
    where = _BUILTIN_ADAPTERS.get(game)
    if where is None:
        return None
    module, name = where
    adapter: GameAdapter = getattr(importlib.import_module(module), name)()
    return adapter


def register_adapter(adapter: GameAdapter) -> None:
    """Plug a game in (the built-in games of ``pricing.tables.adapters`` are found on first use)."""
    _ADAPTERS[adapter.game] = adapter


def adapter_for(game: Game) -> GameAdapter:
    adapter = _ADAPTERS.get(game)
    if adapter is None:
        adapter = _builtin_adapter(game)
        if adapter is None:
            raise GameUnavailable(f"game {game!r} is not available in this build")
        _ADAPTERS[game] = adapter
    return adapter


# ---------------------------------------------------------------------------------------------
# Snapshots and settlement


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A table as of one version: immutable, so it can be shared and cached freely."""

    table_id: str
    game: Game
    decks: int
    version: int
    last_seq: int
    view: GameView
    closed: bool = False

    @property
    def phase(self) -> TablePhase:
        return TablePhase.CLOSED if self.closed else self.view.phase


class SettleStatus(Enum):
    PENDING = "PENDING"
    WIN = "WIN"
    LOSE = "LOSE"
    VOID = "VOID"


@dataclass(frozen=True, slots=True)
class Settlement:
    """``result``: the cards the bet settled on; ``outcome``: a side bet's outcome name;
    ``seat``: the seat the bet was on (0 in a game without seats)."""

    status: SettleStatus
    payout_hundredths: int
    returned_cents: int
    result: tuple[Card, ...] = ()
    outcome: str = ""
    seat: int = 0


@dataclass(frozen=True, slots=True)
class _PricePoint:
    """What settlement needs of one version: its round, each dynamic bet's payout if open,
    and whether each fixed-paytable side bet was open."""

    round_id: int
    betting: bool
    payouts: Mapping[str, int | None]  # None: the bet was closed
    side_bets: Mapping[str, bool]


K = TypeVar("K")
V = TypeVar("V")


class _Bounded(Generic[K, V]):
    """An insertion-ordered map that forgets its oldest entries beyond ``limit``. Most tables
    are idle: until a second entry comes, the one entry is held as a pair, with no
    ``OrderedDict`` (a few hundred bytes a table, three maps each)."""

    __slots__ = ("_held", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._held: OrderedDict[K, V] | tuple[K, V] | None = None

    def __len__(self) -> int:
        held = self._held
        return 0 if held is None else 1 if isinstance(held, tuple) else len(held)

    def values(self) -> list[V]:
        """Every value held, oldest first."""
        held = self._held
        if held is None:
            return []
        return [held[1]] if isinstance(held, tuple) else list(held.values())

    def get(self, key: K) -> V | None:
        held = self._held
        if held is None:
            return None
        if isinstance(held, tuple):
            return held[1] if held[0] == key else None
        return held.get(key)

    def put(self, key: K, value: V) -> None:
        held = self._held
        if held is None or (isinstance(held, tuple) and held[0] == key):
            self._held = (key, value) if self.limit > 0 else None
            return
        if isinstance(held, tuple):
            held = self._held = OrderedDict((held,))
        held[key] = value
        while len(held) > self.limit:
            held.popitem(last=False)


#: The largest stake ``Table.settle`` takes: 10**12 cents (ten billion in the table's currency).
#: Sized so the most a bet can return, stake + floor(stake × MAX_HUNDREDTHS / 100), stays below
#: 2**64: ``returned_cents`` is a uint64 on the wire.
MAX_STAKE_CENTS: Final = 10**12
assert MAX_STAKE_CENTS + MAX_STAKE_CENTS * MAX_HUNDREDTHS // 100 < 2**64

#: Defaults of the bounded histories: enough for any retry, and for settling any bet of the last
#: ~250 Hi-Lo decks (16 versions each); a few MB per table at most.
SEQ_HISTORY: Final = 256
PRICE_HISTORY: Final = 4096
ROUND_HISTORY: Final = 4096


# ---------------------------------------------------------------------------------------------
# One table


@dataclass(frozen=True, slots=True)
class TableChange:
    """An accepted event, checked but not applied yet: ``Table.commit`` assigns it. Between
    the two, a durable journal writes ``entry`` (nothing acknowledged before it is on disk)."""

    entry: JournalEntry
    state: GameState
    snapshot: Snapshot


@dataclass(frozen=True, slots=True)
class TableImage:
    """What a table is, in the fewest objects: enough to take the next event, answer a retry
    of the last one and serve the current state. The histories older than ``snapshot`` are not
    in it; they come back by folding the journal (``HistoryNotLoaded``). Every part is
    immutable, so an image can be taken on the event loop and encoded in another thread."""

    table_id: str
    config: TableConfig
    state: GameState
    snapshot: Snapshot
    last_event: FeedEvent | None


class Table:
    """One live table. Not thread-safe: the service drives it from one event loop.

    ``journal`` holds every entry applied to this object when ``keep_journal`` (the default:
    tests, replays); a table store keeps them in its durable journal instead, so a long-lived
    table's memory stays bounded."""

    __slots__ = (
        "_by_seq",
        "_prices",
        "_rounds",
        "_state",
        "adapter",
        "config",
        "history_from",
        "journal",
        "seats",
        "snapshot",
        "table_id",
    )

    journal: list[JournalEntry] | None

    def __init__(
        self,
        table_id: str,
        config: TableConfig,
        *,
        seq_history: int = SEQ_HISTORY,
        price_history: int = PRICE_HISTORY,
        round_history: int = ROUND_HISTORY,
        keep_journal: bool = True,
    ) -> None:
        check_table_id(table_id)
        fresh = _fresh(adapter_for(config.game).configure(config))
        self._setup(
            table_id,
            fresh.config,
            seq_history=seq_history,
            price_history=price_history,
            round_history=round_history,
        )
        if keep_journal:
            self.journal = [self.opening]
        self._state = fresh.state
        self.snapshot = Snapshot(
            table_id,
            fresh.config.game,
            fresh.config.decks,
            version=1,
            last_seq=0,
            view=fresh.view,
        )
        self._remember(self.snapshot, fresh.point)

    def _setup(
        self,
        table_id: str,
        config: TableConfig,
        *,
        seq_history: int,
        price_history: int,
        round_history: int,
    ) -> None:
        """What every table has, however it was built; ``config`` has its defaults in."""
        self.adapter = adapter_for(config.game)
        self.config = config
        self.table_id = table_id
        self.seats = self.adapter.seats(config)
        self.journal = None
        self._by_seq: _Bounded[int, tuple[FeedEvent, Snapshot]] = _Bounded(seq_history)
        self._prices: _Bounded[int, _PricePoint] = _Bounded(price_history)
        self._rounds: _Bounded[int, EndedRound] = _Bounded(round_history)
        #: The first version whose retry answers and prices this object holds: 1 unless the
        #: table was rebuilt from an image (``from_image``).
        self.history_from = 1

    @property
    def opening(self) -> JournalEntry:
        """The first entry of the table's journal."""
        return JournalEntry(0, 1, OpenTable(self.table_id, self.config))

    @classmethod
    def from_image(
        cls,
        image: TableImage,
        *,
        seq_history: int = SEQ_HISTORY,
        price_history: int = PRICE_HISTORY,
        round_history: int = ROUND_HISTORY,
    ) -> Table:
        """The table an image was taken of, its histories starting at the image's version."""
        table = cls.__new__(cls)
        table._setup(
            image.table_id,
            image.config,
            seq_history=seq_history,
            price_history=price_history,
            round_history=round_history,
        )
        table._state = image.state
        table.snapshot = image.snapshot
        table.history_from = image.snapshot.version
        table._remember(image.snapshot)
        if image.last_event is not None:
            table._by_seq.put(image.snapshot.last_seq, (image.last_event, image.snapshot))
        return table

    def image(self) -> TableImage:
        last = self._by_seq.get(self.snapshot.last_seq)
        return TableImage(
            self.table_id,
            self.config,
            self._state,
            self.snapshot,
            None if last is None else last[0],
        )

    @property
    def closed(self) -> bool:
        return self.snapshot.closed

    def apply(self, seq: int, event: FeedEvent) -> tuple[Snapshot, bool]:
        """Apply the feed's event number ``seq``; return the snapshot and whether it is new
        (``False`` for an idempotent repeat)."""
        change = self.check(seq, event)
        if isinstance(change, Snapshot):
            return change, False
        self.commit(change)
        return change.snapshot, True

    def check(self, seq: int, event: FeedEvent) -> TableChange | Snapshot:
        """What event number ``seq`` would do, changing nothing: the ``TableChange`` to commit,
        or for an idempotent repeat the snapshot as of that event. Raises for a rejected
        event (a gap, a conflict, a move the game refuses)."""
        last = self.snapshot.last_seq
        if seq <= last:
            return self._repeat(seq, event)
        if seq != last + 1:
            raise IllegalMove(
                f"seq {seq} on table {self.table_id!r} leaves a gap: expected seq {last + 1} "
                f"(last_seq is {last})"
            )
        if self.closed:
            raise IllegalMove(f"table {self.table_id!r} is closed: it accepts no more events")
        if isinstance(event, CloseTable):
            view = self.snapshot.view
            if view.phase in (TablePhase.BETTING, TablePhase.DEALING):
                # A table closed with a round open: that round can never have a result, so its
                # bets are refunded as for a void (the same as a new shoe mid-round).
                view = _replace_view(view, ended=EndedRound(view.round_id, view.result_index, ()))
            else:
                view = _replace_view(view, ended=None)
            state = self._state
            closed = True
        else:
            if isinstance(event, ExposeCard):
                self._check_card_seat(event)
            state = self._state.apply(event)  # raises, changing nothing, if the game refuses
            view = self.adapter.view(state)
            closed = False
        snapshot = Snapshot(
            self.table_id,
            self.config.game,
            self.config.decks,
            version=self.snapshot.version + 1,
            last_seq=seq,
            view=view,
            closed=closed,
        )
        return TableChange(JournalEntry(seq, snapshot.version, event), state, snapshot)

    def commit(self, change: TableChange) -> None:
        """Apply a change ``check`` returned; nothing else may have been committed since."""
        if change.snapshot.version != self.snapshot.version + 1:
            raise AssertionError(
                f"table {self.table_id!r}: change to version {change.snapshot.version} "
                f"committed at version {self.snapshot.version}"
            )
        event = change.entry.event
        assert not isinstance(event, OpenTable)
        self._state = change.state
        self.snapshot = change.snapshot
        if self.journal is not None:
            self.journal.append(change.entry)
        self._by_seq.put(change.entry.seq, (event, change.snapshot))
        self._remember(change.snapshot)

    def _check_card_seat(self, event: ExposeCard) -> None:
        if event.role is CardRole.PLAYER:
            check_seat(self.seats, event.seat, f"a PLAYER card at table {self.table_id!r}")
        elif event.seat:
            raise InvalidInput(
                f"seat {event.seat} was sent with a {event.role.name} card at table "
                f"{self.table_id!r}: only PLAYER cards go to a seat (send 0)"
            )

    def _repeat(self, seq: int, event: object) -> Snapshot:
        if seq == 0:
            raise InvalidInput(f"seq must be 1 or more, got 0 (table {self.table_id!r})")
        seen = self._by_seq.get(seq)
        if seen is None:
            self._need_history(f"seq {seq}", seq > self.snapshot.last_seq - self._by_seq.limit)
            raise IllegalMove(
                f"seq {seq} on table {self.table_id!r} is too old to check against the "
                f"{self._by_seq.limit} most recent events (last_seq is {self.snapshot.last_seq})"
            )
        applied, snapshot = seen
        if applied != event:
            raise SeqConflict(
                f"seq {seq} on table {self.table_id!r} was already applied to "
                f"{_describe(applied)}, not {_describe(event)}"
            )
        return snapshot

    def round_endings(self) -> tuple[list[Snapshot], int]:
        """The states of the most recent events that ended a round (oldest first), and the
        version from which every such state is among them (those of the ``seq_history``
        most recent events are held; a table rebuilt from an image holds none before it)."""
        held = [snapshot for _, snapshot in self._by_seq.values()]
        endings = [s for s in held if s.view.ended is not None]
        since = held[0].version if held else self.snapshot.version
        if self.history_from == 1 and len(held) < self._by_seq.limit:
            since = 1  # every event since the opening is held
        return endings, since

    def _need_history(self, what: str, held: bool) -> None:
        """Before saying something is too old: a table rebuilt from an image may just not hold
        it yet, if a table that never restarted would (``held``)."""
        if held and self.history_from > 1:
            raise HistoryNotLoaded(
                f"{what} of table {self.table_id!r} is older than its image "
                f"(version {self.history_from})"
            )

    def _remember(self, snapshot: Snapshot, point: _PricePoint | None = None) -> None:
        """Keep what settlement needs of ``snapshot`` (``point``: its price point, if made)."""
        view = snapshot.view
        self._prices.put(snapshot.version, point or _price_point(snapshot))
        if view.ended is not None:
            self._rounds.put(view.ended.round_id, view.ended)

    def settle(
        self, round_id: int, version: int, bet: str, stake_cents: int, seat: int = 0
    ) -> Settlement:
        """Settle ``stake_cents`` on ``bet`` accepted at ``version`` for round ``round_id``, on
        ``seat`` (a game with seats: the box the bet is on, ``check_seat``).

        The bet is valid only if that round was open for betting at that version and the bet
        was open then; it is paid at that version's price: profit = floor(stake × payout /
        100), in integers. A void round returns the stake; before the result: PENDING.

        Malformed whatever the table's state (``InvalidInput``): a stake outside
        1..``MAX_STAKE_CENTS``, a round or version of 0 (both count from 1), a seat the table
        does not have, a bet the game does not have. Well-formed but not possible now
        (``IllegalMove``): a version the table has not reached yet, one no longer held, a bet
        that was not open at that version.
        """
        if not 1 <= stake_cents <= MAX_STAKE_CENTS:
            raise InvalidInput(
                f"stake_cents must be from 1 to {MAX_STAKE_CENTS}, got {stake_cents}"
            )
        if round_id < 1:
            raise InvalidInput(f"round_id must be 1 or more (rounds count from 1), got {round_id}")
        if version < 1:
            raise InvalidInput(
                f"version must be 1 or more (a table opens at version 1), got {version}"
            )
        seat = check_seat(self.seats, seat, f"a bet at table {self.table_id!r}")
        point = self._prices.get(version)
        view = self.snapshot.view
        known = dict.fromkeys([*view.prices, *(sb.bet for sb in view.side_bets)])
        if point is not None:  # a game's bets are fixed for a table's life; in case one is not
            known.update(dict.fromkeys([*point.payouts, *point.side_bets]))
        if bet not in known:
            raise InvalidInput(
                f"unknown bet {bet!r} for {self.config.game.name}: expected one of "
                f"{', '.join(known)}"
            )
        current = self.snapshot.version
        if version > current:
            raise IllegalMove(
                f"version {version} of table {self.table_id!r} does not exist yet "
                f"(current version {current})"
            )
        if point is None:
            self._need_history(
                f"version {version}", version > self.snapshot.version - self._prices.limit
            )
            raise IllegalMove(
                f"version {version} of table {self.table_id!r} is no longer held: prices of "
                f"the last {self._prices.limit} versions are kept (current version {current})"
            )
        if bet in point.side_bets:
            return self._settle_side_bet(round_id, version, bet, stake_cents, point, seat=seat)
        if bet not in point.payouts:
            raise IllegalMove(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: the bet was not offered at that version"
            )
        self._check_open_round(round_id, version, bet, point)
        payout = point.payouts[bet]
        if payout is None:
            raise IllegalMove(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: the bet was closed at that version"
            )
        ended = self._ended(round_id)
        if ended is None:
            return Settlement(SettleStatus.PENDING, payout, 0)
        if ended.void:
            return Settlement(SettleStatus.VOID, payout, stake_cents)
        if self.adapter.bet_wins(self.config, bet, ended.result):
            profit = stake_cents * payout // 100
            return Settlement(SettleStatus.WIN, payout, stake_cents + profit, ended.result)
        return Settlement(SettleStatus.LOSE, payout, 0, ended.result)

    def _settle_side_bet(
        self,
        round_id: int,
        version: int,
        bet: str,
        stake_cents: int,
        point: _PricePoint,
        *,
        seat: int,
    ) -> Settlement:
        """A fixed-paytable side bet: valid if its round was open for betting at ``version``
        (no card of it dealt) and the bet could be placed then; it pays what the engine says
        its outcome pays on ``seat``'s cards (the paytable is fixed for the table's life). A
        seat dealt too few cards to settle it gets the stake back."""
        self._check_open_round(round_id, version, bet, point)
        if not point.side_bets[bet]:
            raise IllegalMove(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: the bet was closed at that version"
            )
        ended = self._ended(round_id)
        if ended is None:
            return Settlement(SettleStatus.PENDING, 0, 0, seat=seat)
        result = (
            None if ended.void else self.adapter.side_bet_outcome(self.config, bet, ended, seat)
        )
        if result is None:
            return Settlement(SettleStatus.VOID, 0, stake_cents, seat=seat)
        if result.pays_hundredths < 0:
            return Settlement(SettleStatus.LOSE, 0, 0, result.cards, result.outcome, seat)
        profit = stake_cents * result.pays_hundredths // 100
        return Settlement(
            SettleStatus.WIN,
            result.pays_hundredths,
            stake_cents + profit,
            result.cards,
            result.outcome,
            seat,
        )

    def _check_open_round(self, round_id: int, version: int, bet: str, point: _PricePoint) -> None:
        if not point.betting or point.round_id != round_id:
            open_round = f"round {point.round_id} was" if point.betting else "no round was"
            raise IllegalMove(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: {open_round} open for betting at that version"
            )

    def _ended(self, round_id: int) -> EndedRound | None:
        """How ``round_id`` ended; ``None`` while it is still in play."""
        ended = self._rounds.get(round_id)
        if ended is None and not (round_id == self.snapshot.view.round_id and not self.closed):
            self._need_history(
                f"round {round_id}", round_id > self.snapshot.view.round_id - self._rounds.limit
            )
            raise IllegalMove(
                f"round {round_id} of table {self.table_id!r} is no longer held: the last "
                f"{self._rounds.limit} rounds are kept"
            )
        return ended


def _price_point(snapshot: Snapshot) -> _PricePoint:
    view = snapshot.view
    return _PricePoint(
        view.round_id,
        snapshot.phase is TablePhase.BETTING,
        {b: p.payout_hundredths if p.open else None for b, p in view.prices.items()},
        {sb.bet: sb.open for sb in view.side_bets},
    )


@dataclass(frozen=True, slots=True)
class _Fresh:
    """A freshly opened table of one configuration: its config (defaults filled in), the
    engine's state, its view and its price point, as the game's ``adapter`` made them."""

    adapter: GameAdapter
    config: TableConfig
    state: GameState
    view: GameView
    point: _PricePoint


#: The fresh tables of the newest configurations, by configuration. Every part is immutable
#: (engine states, views and price points are), so the tables opened with one configuration
#: share a single set of them, and an idle table holds no engine objects of its own.
_FRESH: Final[_Bounded[TableConfig, _Fresh]] = _Bounded(64)
_FRESH_LOCK: Final = threading.Lock()  # tables are also folded in threads (``replay``)


def _fresh(config: TableConfig) -> _Fresh:
    """The fresh table of ``config`` (configured), shared with the others opened with it (by
    the same adapter: a game plugged in again makes its own)."""
    adapter = adapter_for(config.game)
    try:
        with _FRESH_LOCK:
            fresh = _FRESH.get(config)
    except TypeError:  # rules that cannot be hashed: a table of its own
        fresh = None
    if fresh is None or fresh.adapter is not adapter:
        state = adapter.new_state(config)
        view = adapter.view(state)
        point = _price_point(Snapshot("", config.game, config.decks, 1, 0, view))
        fresh = _Fresh(adapter, config, state, view, point)
        with contextlib.suppress(TypeError), _FRESH_LOCK:
            _FRESH.put(config, fresh)
    return fresh


def _replace_view(view: GameView, *, ended: EndedRound | None) -> GameView:
    return GameView(
        phase=view.phase,
        shoe=view.shoe,
        round_id=view.round_id,
        result_index=view.result_index,
        exposed=view.exposed,
        cards_remaining=view.cards_remaining,
        prices=closed(view.prices),
        ended=ended,
        side_bets=tuple(
            SideBetView(sb.bet, sb.outcomes, sb.rtp, sb.player_favourable, open=False)
            for sb in view.side_bets
        ),
        insurance=view.insurance,
        dealer_outcomes=view.dealer_outcomes,
        seats=view.seats,
    )


def _describe(event: object) -> str:
    match event:
        case ExposeCard(card=card, role=role, seat=seat):
            return f"ExposeCard {card} {role.name}" + (f" seat {seat}" if seat else "")
    return type(event).__name__


# ---------------------------------------------------------------------------------------------
# All the tables of one server


class Tables:
    """The live tables by id, at most ``max_tables`` of them (None: no limit)."""

    def __init__(
        self, *, keep_journal: bool = True, max_tables: int | None = None, **limits: int
    ) -> None:
        self._tables: dict[str, Table] = {}
        self._keep_journal = keep_journal
        self.max_tables = max_tables
        self._limits = limits

    def __len__(self) -> int:
        return len(self._tables)

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._tables

    def put(self, table: Table) -> None:
        """Add (or replace) a table built elsewhere: recovered from a journal."""
        self._tables[table.table_id] = table

    def remove(self, table_id: str) -> None:
        del self._tables[table_id]

    def __iter__(self) -> Iterator[Table]:
        return iter(list(self._tables.values()))

    def get(self, table_id: str) -> Table:
        table = self._tables.get(check_table_id(table_id))
        if table is None:
            raise TableNotFound(f"no table {table_id!r}")
        return table

    def open(self, table_id: str, config: TableConfig) -> Snapshot:
        """Open a table; the same id and config again returns it as it is now."""
        return self.open_table(table_id, config)[0]

    def check_room(self) -> None:
        """``LimitExceeded`` if another table would be more than ``max_tables``."""
        if self.max_tables is not None and len(self._tables) >= self.max_tables:
            raise LimitExceeded("max-tables", self.max_tables, "no room for another table")

    def open_table(self, table_id: str, config: TableConfig) -> tuple[Snapshot, bool]:
        existing = self._tables.get(check_table_id(table_id))
        if existing is not None:
            wanted = adapter_for(config.game).configure(config)
            if wanted != existing.config:
                raise TableExists(
                    f"table {table_id!r} already exists with another configuration: "
                    f"{_config_difference(existing.config, wanted)}"
                )
            return existing.snapshot, False
        self.check_room()
        table = Table(table_id, config, keep_journal=self._keep_journal, **self._limits)
        self._tables[table_id] = table
        return table.snapshot, True

    def apply(self, table_id: str, seq: int, event: FeedEvent) -> Snapshot:
        return self.get(table_id).apply(seq, event)[0]


def describe_config(config: TableConfig) -> dict[str, str]:
    """A configured table as the fields of an OpenTable request name it.

    >>> describe_config(adapter_for(Game.HILO).configure(TableConfig(Game.HILO)))["hilo.seven"]
    '{rtp_bp: 8350 min_hundredths: 693 max_hundredths: 3824}'
    """
    options = adapter_for(config.game).describe(config)
    return {"game": config.game.name, "decks": str(config.decks), **options}


def _config_difference(have: TableConfig, asked: TableConfig) -> str:
    """What differs between two configured tables, field by field (another game: just that).

    >>> adapter = adapter_for(Game.HILO)
    >>> _config_difference(adapter.configure(TableConfig(Game.HILO)), TableConfig(Game.GOA_GAE))
    'it has game HILO; this request asks for game GOA_GAE'
    """
    if have.game != asked.game:
        return f"it has game {have.game.name}; this request asks for game {asked.game.name}"
    old, new = describe_config(have), describe_config(asked)
    fields = [name for name in {**old, **new} if old.get(name) != new.get(name)] or list(new)

    def listed(options: dict[str, str]) -> str:
        return ", ".join(f"{name} {options.get(name, '(not set)')}" for name in fields)

    return f"it has {listed(old)}; this request asks for {listed(new)}"


def replay(journal: Sequence[JournalEntry], *, keep_journal: bool = True, **limits: int) -> Table:
    """Rebuild a table from its journal: the same events give the same table."""
    first = journal[0].event
    if not isinstance(first, OpenTable):
        raise InvalidInput("a journal starts with OpenTable")
    table = Table(first.table_id, first.config, keep_journal=keep_journal, **limits)
    for entry in journal[1:]:
        assert not isinstance(entry.event, OpenTable)
        table.apply(entry.seq, entry.event)
    return table
