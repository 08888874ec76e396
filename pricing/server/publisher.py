"""The states the store commits, serialised once and handed to every watcher of their table.

The publisher listens to the store (``StoreListener``): each committed state becomes one
``Published`` (``TableState`` bytes) in its table's ``Hub``, and every WatchTable slot of
that table is handed those same bytes (``pricing.server.fanout``). A slot holds only the
newest state not yet sent (latest wins), so a slow watcher skips versions (counted in
``pricing_conflated_total``) but never reorders them, never holds the feed up and never makes
the server buffer more than one state per watcher; the states that end a round are held once
per table (``--max-round-backlog``) and sent to every watcher before newer ones.

Each table's live return (``pricing_live_return_z``, ``pricing_live_return_rounds``) is set
from the sums the table keeps (``Table.live``) whenever a round's stakes were counted, and in
full when a table is recovered or first followed.

A blackjack table's main-game figures (``pricing.server.analyst``) are not in the committed
state: each state is published with the figures already known for it (its round's edge), and
once the analyst has computed more, the same version is published again with them
(``refresh``): GetTable answers it from then on, and every watcher is sent it.
"""

from __future__ import annotations

import logging
import time

from pricing.server.analyst import Analyst
from pricing.server.fanout import Hub, Published, Slot, Waker
from pricing.server.limits import Limits, TableRates
from pricing.server.metrics import Metrics
from pricing.server.store import StoreListener
from pricing.tables import Figures, Snapshot, Table, TableNotFound, TablePhase
from pricing.wire import snapshot_to_proto

__all__ = ["Publisher", "published_state"]

log = logging.getLogger("pricing.service")


def published_state(snapshot: Snapshot, figures: Figures | None = None) -> Published:
    """``snapshot`` (with its main-game ``figures``, if any) as its watchers are sent it:
    serialised once."""
    payload = snapshot_to_proto(snapshot, figures).SerializeToString()
    return Published(snapshot.version, payload, snapshot.closed, snapshot.view.ended is not None)


class Publisher(StoreListener):
    """Every table's hub of published states, and every WatchTable stream in progress."""

    def __init__(
        self,
        metrics: Metrics,
        limits: Limits,
        rates: TableRates,
        *,
        main_game_analysis: bool = True,
    ) -> None:
        self.metrics = metrics
        self.limits = limits
        self.hubs: dict[str, Hub] = {}
        # Every WatchTable stream in progress, whatever its table's state: what end_streams
        # must reach (a hub forgets its slots once its table has closed).
        self.watchers: set[Slot] = set()
        self.waker = Waker()
        # Per table, the side bets above 100 % in its latest state open for betting: counted
        # once the round's first card is dealt (``_count_favourable``).
        self._favourable: dict[str, tuple[str, ...]] = {}
        # The side bets game protection closed for the round about to be dealt, counted in
        # pricing_side_bet_closed_rounds_total the same way.
        self._protected: dict[str, tuple[str, ...]] = {}
        self.rates = rates  # a table's rate bucket goes with its hub
        #: Blackjack's main-game figures, computed after each commit (``refresh``).
        self.analyst = Analyst(self.refresh, metrics.player_edge, enabled=main_game_analysis)

    def hub(self, table_id: str) -> Hub:
        hub = self.hubs.get(table_id)
        if hub is None:
            raise TableNotFound(f"no table {table_id!r}", table_id=table_id)
        return hub

    def answer(self, table_id: str, snapshot: Snapshot) -> bytes:
        """``snapshot`` as bytes: those published for it when they are still the latest."""
        hub = self.hubs.get(table_id)
        if hub is not None and hub.latest.version == snapshot.version:
            return hub.latest.payload
        return snapshot_to_proto(snapshot).SerializeToString()

    def watching(self, table_id: str) -> int:
        """WatchTable streams following ``table_id`` now (none once it closed)."""
        hub = self.hubs.get(table_id)
        return 0 if hub is None else len(hub.slots)

    def committed(self, table: Table, snapshot: Snapshot, compute_seconds: float | None) -> None:
        """A new state is committed (or recovered): serialise it once, hand it to every
        watcher. ``compute_seconds``: the engine's time to fold the event."""
        if compute_seconds is not None:
            self.metrics.compute.labels(snapshot.game.name).observe(compute_seconds)
        t0 = time.perf_counter()
        published = published_state(snapshot, self.analyst.known(table.table_id, snapshot))
        hub = self.hubs.get(table.table_id)
        if hub is None:
            # From its first version on, every state of the table passes through the hub: a
            # table it sees open, or one recovered (or followed) from that version.
            self.hubs[table.table_id] = Hub(
                published, self.waker, self.limits.max_round_backlog, horizon=snapshot.version
            )
            if not snapshot.closed:
                self.metrics.tables.inc()
                # Opened, or recovered at start-up: the idle clock starts now.
                self.metrics.last_card.labels(table.table_id).set_to_current_time()
                self._record_side_bets(table.table_id, snapshot)
                self._record_live_return(table)  # recovered: its rounds so far
            self.analyst.changed(table.table_id, snapshot)
            return
        conflated = hub.publish(published)
        if conflated:
            self.metrics.conflated.inc(conflated)
        if snapshot.closed:
            self.metrics.tables.dec()
            for side_bet in snapshot.view.side_bets:  # a closed table's series end with it
                self.metrics.side_bet_rtp.remove(table.table_id, side_bet.bet)
            self.metrics.last_card.remove(table.table_id)
            for bet in table.live.bets:
                self.metrics.live_return_z.remove(table.table_id, bet)
                self.metrics.live_return_rounds.remove(table.table_id, bet)
            log.info("closed table %r at version %d", table.table_id, snapshot.version)
        else:
            self._record_side_bets(table.table_id, snapshot)
            if table.stakes:  # a round ended: its bets' live return moved
                self._record_live_return(table)
        self._count_favourable(table.table_id, snapshot)
        self.analyst.changed(table.table_id, snapshot)  # closed: its figures are dropped
        self.metrics.publish.observe(time.perf_counter() - t0)

    def refresh(self, table_id: str, snapshot: Snapshot, figures: Figures) -> bool:
        """``snapshot`` published again with the main-game ``figures`` computed for it, if it
        is still the table's latest state (False, nothing sent, otherwise)."""
        hub = self.hubs.get(table_id)
        if hub is None or hub.latest.version != snapshot.version or hub.latest.final:
            return False
        hub.refresh(published_state(snapshot, figures))
        return True

    def forgotten(self, table_id: str) -> None:
        self.analyst.forget(table_id)
        hub = self.hubs.pop(table_id, None)
        if hub is not None and not hub.latest.final:  # held aside while open (a newer build's)
            self.metrics.tables.dec()
            self.metrics.last_card.remove(table_id)
            self.metrics.live_return_z.remove_table(table_id)
            self.metrics.live_return_rounds.remove_table(table_id)
            for slot in hub.slots:  # its watchers end; back, they are told why
                slot.end()
        self._favourable.pop(table_id, None)
        self._protected.pop(table_id, None)
        self.rates.forget(table_id)

    def end_streams(self) -> None:
        """Shutting down: every WatchTable stream ends once it has sent what is due in its
        slot, with UNAVAILABLE (a table closing is the only OK end)."""
        for slot in self.watchers:
            slot.end()
        for hub in self.hubs.values():
            hub.slots.clear()

    def _count_favourable(self, table_id: str, snapshot: Snapshot) -> None:
        """Each round dealt with a side bet above 100 %, once, by the odds its bets closed at:
        those of the last state open for betting before the round's first card (a NewShoe
        between rounds changes them; a card starts the deal). Every server holding the table
        counts it, the one that took the write or not."""
        view = snapshot.view
        if view.phase is TablePhase.BETTING and not snapshot.closed:
            self._favourable[table_id] = tuple(
                sb.bet for sb in view.side_bets if sb.player_favourable and sb.open and not sb.main
            )
            self._protected[table_id] = tuple(sb.bet for sb in view.side_bets if sb.protected)
            return
        bets = self._favourable.pop(table_id, ())
        protected = self._protected.pop(table_id, ())
        if view.phase is TablePhase.DEALING:
            for bet in bets:
                self.metrics.favourable_rounds.labels(bet).inc()
            for bet in protected:
                self.metrics.closed_rounds.labels(bet).inc()

    def _record_side_bets(self, table_id: str, snapshot: Snapshot) -> None:
        for side_bet in snapshot.view.side_bets:
            self.metrics.side_bet_rtp.labels(table_id, side_bet.bet).set(side_bet.rtp)

    def _record_live_return(self, table: Table) -> None:
        """Each bet's live return at ``table`` (``pricing.tables.live_return``): the table
        sums it as its rounds end, so every server folding the table shows the same."""
        z, rounds = self.metrics.live_return_z, self.metrics.live_return_rounds
        if not z.enabled:
            return
        table_id = table.table_id
        for bet, totals in table.live.totals():
            rounds.labels(table_id, bet).set(totals.stakes)
            value = totals.z
            if value is not None:  # no variance yet: nothing to measure the gap against
                z.labels(table_id, bet).set(value)
