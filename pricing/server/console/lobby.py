"""The lobby: every table as a row (what ListTables answers, with what its latest state says of
the player's chances), as one JSON document for every reader and as one server-sent event
stream for every open lobby.

However many lobbies or requests read it, the rows are made at most once a second, by one
task (``LobbyFeed.rows``), and a table's row only when its state or its watchers changed; the
making gives the event loop back every ``SLICE_SECONDS``, so a floor of thousands of busy
tables never holds up a dealer's card for longer than a slice. A lobby is sent the rows only
when they changed: one event a second at most, never one per card.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import operator
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from aiohttp import web

from pricing.errors import LimitExceeded
from pricing.server.console.sse import HEADERS, RETRY_MS, check_streaming, refusal
from pricing.server.fanout import Published
from pricing.server.service import PricingService
from pricing.v1 import pricing_pb2 as pb

__all__ = [
    "LobbyFeed",
    "LobbyRows",
    "alerts",
    "best_bet",
    "lobby_row",
    "price_favourable",
    "stream_lobby",
]

#: The shortest time between two makings of the rows, and between two lobby events.
PERIOD: Final = 1.0
#: The longest the making holds the event loop before it lets others run.
SLICE_SECONDS: Final = 0.0005


def _price_return(price: pb.BetPrice) -> tuple[int, int]:
    """What one unit on a price returns on average, as (back, staked) in hundredths: its RTP
    is wins × (100 + payout in hundredths) / (100 × cards left)."""
    return price.wins * (100 + price.payout_hundredths), 100 * price.remaining


def price_favourable(price: pb.BetPrice) -> bool:
    """Whether an open price returns more than it takes, decided on its integers
    (``_price_return``).

    >>> price_favourable(pb.BetPrice(wins=1, remaining=49, payout_hundredths=4800, open=True))
    False
    >>> price_favourable(pb.BetPrice(wins=1, remaining=49, payout_hundredths=4801, open=True))
    True
    """
    back, staked = _price_return(price)
    return price.open and back > staked


def alerts(state: pb.TableState) -> list[str]:
    """What an operator should look at: a positive blackjack player edge, each
    player-favourable price, bet or insurance, each bet game protection closed.

    >>> alerts(pb.TableState(player_edge=0.01, side_bets=[
    ...     pb.SideBetOdds(bet="PAIRS", player_favourable=True),
    ...     pb.SideBetOdds(bet="HOT_3", closed_by_protection=True)]))
    ['player edge +1.00%', 'PAIRS favourable', 'HOT_3 closed']
    """
    said: list[str] = []
    if state.HasField("player_edge") and state.player_edge > 0:
        said.append(f"player edge {state.player_edge:+.2%}")
    said.extend(f"{price.bet} favourable" for price in state.prices if price_favourable(price))
    said.extend(f"{bet.bet} favourable" for bet in state.side_bets if bet.player_favourable)
    if state.insurance.offered and state.insurance.player_favourable:
        said.append("insurance favourable")
    said.extend(f"{bet.bet} closed" for bet in state.side_bets if bet.closed_by_protection)
    return said


def best_bet(state: pb.TableState) -> dict[str, Any] | None:
    """The bet of the highest return to player: an open price, or a side bet at the shoe as
    it is (open or not: while a round is dealt it is the next round's), if any; whether it is
    favourable is decided exactly (``price_favourable``, the side bet's own).

    >>> best_bet(pb.TableState(prices=[
    ...     pb.BetPrice(bet="SEVEN", wins=4, remaining=48, payout_hundredths=1100, open=True),
    ...     pb.BetPrice(bet="HIGH", wins=24, remaining=48, payout_hundredths=90, open=True)]))
    {'bet': 'SEVEN', 'rtp': 1.0, 'player_favourable': False}
    """
    offered = [
        (operator.truediv(*_price_return(p)), p.bet, price_favourable(p))
        for p in state.prices
        if p.open and p.remaining
    ]
    offered += [(b.rtp, b.bet, b.player_favourable) for b in state.side_bets]
    if not offered:
        return None
    rtp, bet, favourable = max(offered)
    return {"bet": bet, "rtp": rtp, "player_favourable": favourable}


def lobby_row(state: pb.TableState, watchers: int, changed_at: float) -> dict[str, Any]:
    """A table as the lobby lists it, from its latest state: the fields of ListTables'
    summary, and the blackjack player edge, the best open bet and the alerts."""
    return {
        "table_id": state.table_id,
        "game": pb.Game.Name(state.game),
        "decks": state.decks,
        "phase": pb.Phase.Name(state.phase),
        "version": state.version,
        "cards_remaining": state.cards_remaining,
        "closed": state.phase == pb.PHASE_CLOSED,
        "watchers": watchers,
        "shoe": state.shoe,
        "round_id": state.round_id,
        "last_seq": state.last_seq,
        "player_edge": state.player_edge if state.HasField("player_edge") else None,
        "best_bet": best_bet(state),
        "alerts": alerts(state),
        "changed_at": changed_at,
    }


@dataclass(frozen=True, slots=True)
class _Row:
    published: Published
    watchers: int
    changed_at: float  # when this version was published (seconds since the epoch)
    game: str
    text: bytes


@dataclass(frozen=True, slots=True)
class LobbyRows:
    """The rows of one making: each table's row as JSON, by table id."""

    rows: tuple[_Row, ...] = ()
    made_at: float = -PERIOD
    _made: dict[str, bytes] = field(default_factory=dict, compare=False)

    def once(self, key: str, make: Callable[[], bytes]) -> bytes:
        """What ``make`` makes of these rows, made once for every reader (the lobby's page,
        each game's document)."""
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = make()
        return made

    def document(self, game: str = "") -> bytes:
        """``{"tables": [...]}``: every row, or only ``game``'s (a ``pb.Game`` name)."""

        def join() -> bytes:
            texts = (row.text for row in self.rows if not game or row.game == game)
            return b'{"tables":[' + b",".join(texts) + b"]}"

        return self.once(f"document {game}", join)


class LobbyFeed:
    """The lobby's rows, made at most once per ``PERIOD`` by one task at a time."""

    def __init__(
        self,
        service: PricingService,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.service = service
        self.clock = clock
        self.open = 0  # lobby streams open
        self.closing = asyncio.Event()  # the console is stopping: the streams end
        self._latest = LobbyRows()
        self._rows: dict[str, _Row] = {}
        self._making: asyncio.Task[LobbyRows] | None = None

    def close(self) -> None:
        """End every lobby stream now (the console is stopping)."""
        self.closing.set()

    async def rows(self) -> LobbyRows:
        """The rows as made within the last ``PERIOD``, or made now (once, however many
        callers wait; a caller that leaves does not cancel it for the others)."""
        if self.clock() - self._latest.made_at < PERIOD:
            return self._latest
        if self._making is None:
            self._making = asyncio.create_task(self._make())
        return await asyncio.shield(self._making)

    async def _make(self) -> LobbyRows:
        try:
            publisher = self.service.publisher
            started = self.clock()
            made: dict[str, _Row] = {}
            paused = time.perf_counter()
            # in the order the tables were opened (sorting is the page's: it costs a
            # millisecond a ten thousand tables)
            for table_id in list(publisher.hubs):
                hub = publisher.hubs.get(table_id)  # it may have gone while the loop ran
                if hub is None:
                    continue
                made[table_id] = self._row(table_id, hub.latest, len(hub.slots))
                if time.perf_counter() - paused > SLICE_SECONDS:
                    await asyncio.sleep(0)
                    paused = time.perf_counter()
            self._rows = made
            self._latest = LobbyRows(tuple(made.values()), started)
            return self._latest
        finally:
            self._making = None

    def _row(self, table_id: str, latest: Published, watchers: int) -> _Row:
        row = self._rows.get(table_id)
        if row is not None and row.published is latest and row.watchers == watchers:
            return row
        state = pb.TableState.FromString(latest.payload)
        same = row is not None and row.published.version == latest.version  # refreshed
        changed_at = row.changed_at if row is not None and same else latest.at
        text = json.dumps(lobby_row(state, watchers, changed_at), separators=(",", ":"))
        return _Row(latest, watchers, changed_at, pb.Game.Name(state.game), text.encode())


async def stream_lobby(request: web.Request, feed: LobbyFeed) -> web.StreamResponse:
    """The lobby's rows as ``event: lobby`` whenever they changed, at most once a second,
    until the page closes or the server shuts down (the page then reconnects by itself)."""
    service = feed.service
    gate = service.gate
    check_streaming(service)
    most = service.limits.console_max_lobbies
    if feed.open >= most:
        raise refusal(LimitExceeded("console-max-lobbies", most, "lobby pages open"), service)
    feed.open += 1
    response = web.StreamResponse(headers=HEADERS)
    try:
        await response.prepare(request)
        await response.write(b"retry: %d\n\n" % RETRY_MS)
        sent = b""
        quiet = 0.0
        keepalive = service.limits.console_idle_seconds
        while not (gate.stopping or feed.closing.is_set()):
            data = (await feed.rows()).document()
            if data is not sent and data != sent:
                frame = b"event: lobby\ndata: %s\n\n" % data
                sent, quiet = data, 0.0
            elif quiet >= keepalive:
                frame, quiet = b": keepalive\n\n", 0.0
            else:
                frame = b""
            if frame:
                await response.write(frame)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PERIOD):
                    await feed.closing.wait()
            quiet += PERIOD
        await response.write_eof()
    except ConnectionError:  # the page went away as it was written to
        pass
    finally:
        feed.open -= 1
    return response
