"""One live table: the dealer feed's ``seq`` discipline, ``version``, and the bounded
histories settlement and retries need, over a game engine's state (see ``pricing.tables``)."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, replace
from typing import Final

from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput
from pricing.games.events import CardRole, ExposeCard
from pricing.payout import closed
from pricing.tables.adapter import GameAdapter, check_seat
from pricing.tables.errors import SeqConflict, SeqGap, SeqTooOld, TableClosed
from pricing.tables.events import (
    CloseTable,
    FeedEvent,
    JournalEntry,
    OpenTable,
    TableConfig,
    TablePhase,
)
from pricing.tables.games import adapter_for
from pricing.tables.history import (
    PRICE_HISTORY,
    ROUND_HISTORY,
    SEQ_HISTORY,
    Bounded,
    PricePoint,
    Snapshot,
    price_point,
)
from pricing.tables.live_return import NO_RETURN, LiveReturn, Stake
from pricing.tables.settlement import SettlesBets
from pricing.tables.views import EndedRound, GameState, GameView
from pricing.text import check_table_id

__all__ = ["Table", "TableChange", "TableImage"]


@dataclass(frozen=True, slots=True)
class TableChange:
    """An accepted event, checked but not applied yet: ``Table.commit`` assigns it. Between
    the two, a durable journal writes ``entry`` (nothing acknowledged before it is on disk).
    ``live``: the table's live return after it; ``stakes``: those of the round it ended."""

    entry: JournalEntry
    state: GameState
    snapshot: Snapshot
    live: LiveReturn = NO_RETURN
    stakes: tuple[Stake, ...] = ()


@dataclass(frozen=True, slots=True)
class TableImage:
    """What a table is, in the fewest objects: enough to take the next event, answer a retry
    of the last one and serve the current state. The histories older than ``snapshot`` are not
    in it; they come back by folding the journal (``HistoryNotLoaded``). Every part is
    immutable, so an image can be taken on the event loop and encoded in another thread.
    ``live``: the table's live return, its sums over every round since the opening (an image
    without it, of an older build, is ignored and the whole journal folded)."""

    table_id: str
    config: TableConfig
    state: GameState
    snapshot: Snapshot
    last_event: FeedEvent | None
    live: LiveReturn = NO_RETURN


class Table(SettlesBets):
    """One live table. Not thread-safe: the service drives it from one event loop.

    ``journal`` holds every entry applied to this object when ``keep_journal`` (tests, models,
    replays that compare); a live server keeps them in its durable journal instead, so a
    long-lived table's memory stays bounded."""

    __slots__ = (
        "_by_seq",
        "_prices",
        "_rounds",
        "_state",
        "adapter",
        "config",
        "history_from",
        "journal",
        "live",
        "seats",
        "snapshot",
        "stakes",
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
        keep_journal: bool = False,
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
        #: The live return (``pricing.tables.live_return``), and the stakes the last event
        #: counted (those of the round it ended; none most of the time).
        self.live = NO_RETURN
        self.stakes: tuple[Stake, ...] = ()
        self._by_seq: Bounded[int, tuple[FeedEvent, Snapshot]] = Bounded(seq_history)
        self._prices: Bounded[int, PricePoint] = Bounded(price_history)
        self._rounds: Bounded[int, EndedRound] = Bounded(round_history)
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
        table.live = image.live
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
            self.live,
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
            raise SeqGap(
                f"seq {seq} on table {self.table_id!r} leaves a gap: expected seq {last + 1} "
                f"(last_seq is {last})",
                table_id=self.table_id,
                seq=seq,
                expected_seq=last + 1,
                last_seq=last,
            )
        if self.closed:
            raise TableClosed(
                f"table {self.table_id!r} is closed: it accepts no more events",
                table_id=self.table_id,
            )
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
            try:
                state = self._state.apply(event)  # raises, changing nothing, if the game refuses
            except CardNotInShoe as exc:
                # The engines (compiled kernels among them) know no table, nor the card as
                # the request wrote it: said once here, the same refusal with both.
                card = str(event.card) if isinstance(event, ExposeCard) else None
                raise CardNotInShoe(str(exc), table_id=self.table_id, card=card) from exc
            except IllegalMove as exc:
                if exc.table_id is None:
                    exc.table_id = self.table_id  # the engine's refusal, at this table
                raise
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
        live, stakes = self.live.step(
            self.snapshot.view, view, self.adapter, self.config, self.seats
        )
        return TableChange(
            JournalEntry(seq, snapshot.version, event), state, snapshot, live, stakes
        )

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
        self.live, self.stakes = change.live, change.stakes
        if self.journal is not None:
            self.journal.append(change.entry)
        self._by_seq.put(change.entry.seq, (event, change.snapshot))
        self._remember(change.snapshot)

    def _check_card_seat(self, event: ExposeCard) -> None:
        if event.role is CardRole.PLAYER:
            check_seat(
                self.seats, event.seat, f"a CARD_ROLE_PLAYER card at table {self.table_id!r}"
            )
        elif event.seat:
            raise InvalidInput(
                f"seat {event.seat} was sent with a CARD_ROLE_{event.role.name} card at table "
                f"{self.table_id!r}: only CARD_ROLE_PLAYER cards go to a seat (send 0)",
                field="seat",
            )

    def _repeat(self, seq: int, event: object) -> Snapshot:
        if seq == 0:
            raise InvalidInput(
                f"seq must be 1 or more, got 0 (table {self.table_id!r})", field="seq"
            )
        seen = self._by_seq.get(seq)
        if seen is None:
            self._need_history(f"seq {seq}", seq > self.snapshot.last_seq - self._by_seq.limit)
            raise SeqTooOld(
                f"seq {seq} on table {self.table_id!r} is too old to check against the "
                f"{self._by_seq.limit} most recent events (last_seq is {self.snapshot.last_seq})",
                table_id=self.table_id,
                seq=seq,
                last_seq=self.snapshot.last_seq,
                held=self._by_seq.limit,
            )
        applied, snapshot = seen
        if applied != event:
            raise SeqConflict(
                f"seq {seq} on table {self.table_id!r} was already applied to "
                f"{_describe(applied)}, not {_describe(event)}",
                table_id=self.table_id,
                seq=seq,
                last_seq=self.snapshot.last_seq,
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

    def _remember(self, snapshot: Snapshot, point: PricePoint | None = None) -> None:
        """Keep what settlement needs of ``snapshot`` (``point``: its price point, if made)."""
        view = snapshot.view
        self._prices.put(snapshot.version, point or price_point(snapshot))
        if view.ended is not None:
            self._rounds.put(view.ended.round_id, view.ended)


@dataclass(frozen=True, slots=True)
class _Fresh:
    """A freshly opened table of one configuration: its config (defaults filled in), the
    engine's state, its view and its price point, as the game's ``adapter`` made them."""

    adapter: GameAdapter
    config: TableConfig
    state: GameState
    view: GameView
    point: PricePoint


#: The fresh tables of the newest configurations, by configuration. Every part is immutable
#: (engine states, views and price points are), so the tables opened with one configuration
#: share a single set of them, and an idle table holds no engine objects of its own.
_FRESH: Final[Bounded[TableConfig, _Fresh]] = Bounded(64)
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
        point = price_point(Snapshot("", config.game, config.decks, 1, 0, view))
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
        side_bets=tuple(replace(sb, open=False) for sb in view.side_bets),
        insurance=view.insurance,
        dealer_outcomes=view.dealer_outcomes,
        seats=view.seats,
    )


def _describe(event: object) -> str:
    match event:
        case ExposeCard(card=card, role=role, seat=seat):
            return f"ExposeCard {card} CARD_ROLE_{role.name}" + (f" seat {seat}" if seat else "")
    return type(event).__name__
