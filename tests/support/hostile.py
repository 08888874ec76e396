"""Hostile-but-honest readers of a real server, and the dealer's tables they read: shared by
the hostile-reader check (``bench/hostile.py``, ``make hostile``) and its smoke test
(``tests/service/test_hostile_smoke.py``).

Only the public wire API is used (the ``pricing.v1`` stubs over grpc.aio), so whatever the
server does about such readers is what gets measured. A reader here is honest: every call has
a deadline, and after a refusal it waits the ``google.rpc.RetryInfo`` delay the status
carries (a short pause without one) before asking again. It is hostile in what it asks: the
most expensive reads there are, many at once, in a loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import grpc
from google.rpc import error_details_pb2

from pricing.cards import parse_cards
from pricing.client import error_details
from pricing.games import baccarat
from pricing.games.blackjack import library
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc

__all__ = [
    "EVERY_SIDE_BET",
    "NICENESS",
    "BlackjackDealer",
    "HigherLowerDealer",
    "Leg",
    "Readers",
    "Tally",
    "blackjack_report",
    "channel",
    "edge_quotes",
    "higher_lower_report",
    "position_request",
    "read",
    "reader_process",
    "retry_delay",
    "streamed",
]

SUITS: Final = "SHDC"
RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK: Final = tuple(rank + suit for rank in RANKS for suit in SUITS)
#: Higher/Lower's 48-card deck: no tens (docs/rules.md §6).
HIGHER_LOWER_DECK: Final = tuple(card for card in DECK if not card.startswith("10"))
#: Every bet of the blackjack side-bet library (BlackjackRules.side_bets): the busiest table.
EVERY_SIDE_BET: Final = tuple(library.BETS)
#: The readers stand for other machines: on this one they yield the CPU to the server and to
#: the dealer feed, so what is measured is the server's own handling of them.
NICENESS: Final = 10
#: After a refusal that names no delay, an honest client still waits a moment.
PAUSE: Final = 0.05
#: Analyze's largest answer (the 8-deck depleting Higher/Lower report) is about 1.6 MB.
MAX_ANSWER_BYTES: Final = 64 * 1024 * 1024


def channel(target: str) -> grpc.aio.Channel:
    """A connection of its own (gRPC would otherwise share one per target in a process), as a
    client on another machine has."""
    return grpc.aio.insecure_channel(
        target,
        options=[
            ("grpc.use_local_subchannel_pool", 1),
            ("grpc.max_receive_message_length", MAX_ANSWER_BYTES),
        ],
    )


async def streamed(
    stub: pb_grpc.DealerServiceAsyncStub, requests: Sequence[pb.FeedRequest]
) -> list[pb.TableState]:
    """The answers to ``requests`` sent on one Feed stream, written ahead of the answers: the
    set-up's events, dealt fast (the feed measured is unary, one call per event)."""
    call: Any = stub.Feed()  # type: ignore[call-arg]  # grpc.aio: requests are written

    async def write() -> None:
        for request in requests:
            await call.write(request)
        await call.done_writing()

    writer = asyncio.create_task(write())
    answers = [await call.read() for _ in requests]
    await writer
    return answers


# ---- the dealer's tables -------------------------------------------------------------------


@dataclass(frozen=True)
class Leg:
    """A round of the Higher/Lower table as a position rides it: the version it was open for
    betting at, the bet that won it and that bet's price then."""

    round_id: int
    version: int
    bet: str
    payout_hundredths: int


@dataclass
class _Open:
    round_id: int
    version: int
    prices: dict[str, int]


class HigherLowerDealer:
    """The dealer of a continuous Higher/Lower table with no burns: each ExposeCard is a result
    that decides the open round and opens the next, so every event adds a round a position can
    ride. Cards are drawn from the full shoe, as a continuous shuffler deals them."""

    def __init__(self, table_id: str, seed: int = 1) -> None:
        self.table_id = table_id
        self.legs: list[Leg] = []
        self._rng = random.Random(seed)
        self._seq = 0
        self._unanswered: deque[pb.ExposeCardRequest] = deque()
        self._open: _Open | None = None

    def open_request(self) -> pb.OpenTableRequest:
        rules = pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_CONTINUOUS, burns=0)
        return pb.OpenTableRequest(
            table_id=self.table_id, game=pb.GAME_HIGHER_LOWER, decks=8, higher_lower=rules
        )

    def fresh(self) -> pb.ExposeCardRequest:
        """The next card, at the next seq."""
        self._seq += 1
        card = self._rng.choice(HIGHER_LOWER_DECK)
        request = pb.ExposeCardRequest(
            table_id=self.table_id, seq=self._seq, card=card, role=pb.CARD_ROLE_RESULT
        )
        self._unanswered.append(request)
        return request

    def next_event(self) -> pb.ExposeCardRequest:
        """The oldest event not yet answered (sent again: the server answers a repeated seq
        as it did, and a refused event changed nothing), else a fresh one."""
        return self._unanswered[0] if self._unanswered else self.fresh()

    def answered(self, state: pb.TableState) -> None:
        """The oldest unanswered event's answer: the round its card decided becomes a leg (won
        by RED or BLACK, whichever its suit is), and the round it opened is noted."""
        card = self._unanswered.popleft().card
        if self._open is not None:
            bet = "RED" if card[-1] in "HD" else "BLACK"
            payout = self._open.prices.get(bet)
            if payout is not None:  # a bet closed then cannot be a leg
                self.legs.append(Leg(self._open.round_id, self._open.version, bet, payout))
        prices = {p.bet: p.payout_hundredths for p in state.prices if p.open}
        betting = state.phase == pb.PHASE_BETTING
        self._open = _Open(state.round_id, state.version, prices) if betting else None


def position_request(
    table_id: str, legs: Sequence[Leg], stake_cents: int = 100
) -> pb.SettlePositionRequest:
    """A position over ``legs``, each won: after each win its profit is collected, so the stake
    alone rides on and the value stays far below any cap however many legs there are (a
    position that reaches its cap takes no further leg)."""
    return pb.SettlePositionRequest(
        table_id=table_id,
        stake_cents=stake_cents,
        legs=[
            pb.PositionLeg(
                round_id=leg.round_id,
                version=leg.version,
                bet=leg.bet,
                collect_cents=stake_cents * leg.payout_hundredths // 100,
            )
            for leg in legs
        ],
    )


class BlackjackDealer:
    """The dealer of an 8-deck, 7-seat blackjack table offering every side bet: each round a
    card to every seat and the dealer, twice, then EndRound; a new shoe every ROUNDS_PER_SHOE
    rounds. ``late_bet`` is a side bet on its first round: settling it after a restart needs
    the table's whole journal folded."""

    SEATS: Final = 7
    ROUNDS_PER_SHOE: Final = 24  # 384 of the 416 cards: the rest is behind the cut card

    def __init__(self, table_id: str, seed: int = 2) -> None:
        self.table_id = table_id
        self._rng = random.Random(seed)
        self._shoe: list[str] = []
        self._rounds = 0
        self._seq = 0
        self.late_bet: pb.SettleRequest | None = None
        self._shuffle()

    def _shuffle(self) -> None:
        self._shoe = list(DECK) * 8
        self._rng.shuffle(self._shoe)

    def open_request(self) -> pb.OpenTableRequest:
        rules = pb.BlackjackRules(seats=self.SEATS)
        for bet in EVERY_SIDE_BET:
            rules.side_bets[bet].preset = ""  # the bet's default paytable
        return pb.OpenTableRequest(
            table_id=self.table_id, game=pb.GAME_BLACKJACK, decks=8, blackjack=rules
        )

    def opened(self, state: pb.TableState) -> None:
        """OpenTable's answer: the first round is open for betting, PAIRS among its bets."""
        (pairs,) = [odds for odds in state.side_bets if odds.bet == "PAIRS"]
        if not pairs.open:
            raise AssertionError(f"PAIRS is not open on a new table: {state}")
        self.late_bet = pb.SettleRequest(
            table_id=self.table_id,
            round_id=state.round_id,
            version=state.version,
            bet="PAIRS",
            stake_cents=100,
            seat=1,
        )

    def round_events(self) -> list[pb.FeedRequest]:
        events = []
        if self._rounds and self._rounds % self.ROUNDS_PER_SHOE == 0:
            self._seq += 1
            self._shuffle()
            events.append(
                pb.FeedRequest(new_shoe=pb.NewShoeRequest(table_id=self.table_id, seq=self._seq))
            )
        self._rounds += 1
        for _ in range(2):
            for seat in range(1, self.SEATS + 1):
                events.append(self._card(pb.CARD_ROLE_PLAYER, seat))
            events.append(self._card(pb.CARD_ROLE_DEALER, 0))
        self._seq += 1
        events.append(
            pb.FeedRequest(end_round=pb.EndRoundRequest(table_id=self.table_id, seq=self._seq))
        )
        return events

    def _card(self, role: pb.CardRole.ValueType, seat: int) -> pb.FeedRequest:
        self._seq += 1
        card = pb.ExposeCardRequest(
            table_id=self.table_id, seq=self._seq, card=self._shoe.pop(), role=role, seat=seat
        )
        return pb.FeedRequest(expose_card=card)


class BaccaratDealer:
    """The dealer of an 8-deck baccarat table offering every bet: rounds dealt as the tableau
    calls for them (Player, Banker, Player, Banker, then the third cards), a new shoe at a cut
    card 14 cards from the end."""

    CUT: Final = 14

    def __init__(self, table_id: str, seed: int = 2) -> None:
        self.table_id = table_id
        self._rng = random.Random(seed)
        self._shoe: list[str] = []
        self._seq = 0
        self._shuffle()

    def _shuffle(self) -> None:
        self._shoe = [str(card) for card in DECK] * 8
        self._rng.shuffle(self._shoe)

    def open_request(self) -> pb.OpenTableRequest:
        rules = pb.BaccaratRules()
        for bet in baccarat.SIDE_BETS:
            rules.side_bets[bet].preset = ""  # the bet's default paytable
        return pb.OpenTableRequest(
            table_id=self.table_id, game=pb.GAME_BACCARAT, decks=8, baccarat=rules
        )

    def round_events(self) -> list[pb.FeedRequest]:
        events = []
        if len(self._shoe) < self.CUT:
            self._seq += 1
            self._shuffle()
            events.append(
                pb.FeedRequest(new_shoe=pb.NewShoeRequest(table_id=self.table_id, seq=self._seq))
            )
        hands: dict[baccarat.Hand, list[str]] = {baccarat.Hand.PLAYER: [], baccarat.Hand.BANKER: []}
        while hand := baccarat.next_hand_dealt(*(parse_cards(h) for h in hands.values())):
            hands[hand].append(self._shoe.pop())
            self._seq += 1
            role = pb.CARD_ROLE_PLAYER if hand is baccarat.Hand.PLAYER else pb.CARD_ROLE_BANKER
            card = pb.ExposeCardRequest(
                table_id=self.table_id, seq=self._seq, card=hands[hand][-1], role=role
            )
            events.append(pb.FeedRequest(expose_card=card))
        return events


# ---- what the readers ask ------------------------------------------------------------------


def edge_quotes(count: int, seed: int = 3) -> list[pb.QuoteRequest]:
    """``count`` Quotes of an 8-deck blackjack shoe with the next round's player edge (about
    0.1 s each on a full shoe), each shoe a little different, so no answer can be reused."""
    rng = random.Random(seed)
    shoe = list(DECK) * 8
    return [
        pb.QuoteRequest(
            game=pb.GAME_BLACKJACK,
            decks=8,
            exposed=rng.sample(shoe, rng.randrange(0, 30)),
            include_player_edge=True,
        )
        for _ in range(count)
    ]


def blackjack_report(seed: int, shoes: int = 0) -> pb.AnalyzeRequest:
    """The blackjack side-bet report (``shoes`` 0: the default 1,000 simulated shoes, seconds)."""
    return pb.AnalyzeRequest(game=pb.GAME_BLACKJACK, seed=seed, shoes=shoes)


def higher_lower_report(decks: int = 8) -> pb.AnalyzeRequest:
    """The depleting Higher/Lower report with no burns: 8 decks is the largest report there is
    (some 15 s of a core, a 1.6 MB answer)."""
    rules = pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING, burns=0)
    return pb.AnalyzeRequest(game=pb.GAME_HIGHER_LOWER, decks=decks, higher_lower=rules)


# ---- the readers ---------------------------------------------------------------------------


def retry_delay(err: grpc.RpcError) -> float | None:
    """The seconds a refusal's ``google.rpc.RetryInfo`` asks a client to wait, if it has one."""
    status = error_details(err).status
    info = error_details_pb2.RetryInfo()
    for detail in status.details if status is not None else ():
        if detail.Unpack(info):
            return info.retry_delay.seconds + info.retry_delay.nanos / 1e9
    return None


@dataclass
class Tally:
    """What one kind of reader's calls got: a count per status code (``OK``, or a code's name;
    ``UNSETTLED``: a position answered OK but not settled to its end; ``LEFT``: in flight when
    the reader left), how many refusals carried a RetryInfo, and the most calls in flight at
    once."""

    method: str
    codes: Counter[str] = field(default_factory=Counter)
    retry_infos: int = 0
    in_flight: int = 0
    peak: int = 0

    def sent(self) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    def answered(self, code: str) -> None:
        self.in_flight -= 1
        self.codes[code] += 1

    def count(self, *codes: str) -> int:
        return sum(self.codes[code] for code in codes)


@dataclass(frozen=True)
class Readers:
    """One hostile client's load: ``concurrent`` readers, each calling ``method`` (a
    PricingService method) in a loop with its share of ``requests`` (serialised), a
    ``deadline`` on every call, at most ``calls`` calls each, for at most ``seconds``."""

    method: str
    target: str
    requests: tuple[bytes, ...]
    concurrent: int
    deadline: float
    calls: int = 1_000_000
    seconds: float = 600.0
    channels: int = 8


def _asker(
    readers: Readers, stub: pb_grpc.PricingServiceAsyncStub, request: bytes
) -> Callable[[], Awaitable[str]]:
    """One reader's call, its answer checked as far as its method allows."""
    method = getattr(stub, readers.method)
    message = getattr(pb, f"{readers.method}Request").FromString(request)

    async def ask() -> str:
        answer = await method(message, timeout=readers.deadline)
        if readers.method == "SettlePosition":  # every leg won: the position is settled whole
            won = pb.SettleResponse.STATUS_WIN
            return "OK" if answer.status == won else "UNSETTLED"
        return "OK"

    return ask


async def _keep_asking(
    ask: Callable[[], Awaitable[str]], readers: Readers, tally: Tally, stop: asyncio.Event
) -> None:
    """Ask again as soon as answered, or once a refusal's delay has passed, until ``stop``."""
    for _ in range(readers.calls):
        if stop.is_set():
            return
        tally.sent()
        try:
            tally.answered(await ask())
        except asyncio.CancelledError:
            tally.answered("LEFT")
            raise
        except grpc.aio.AioRpcError as err:
            tally.answered(err.code().name)
            delay = retry_delay(err)
            tally.retry_infos += delay is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), PAUSE if delay is None else delay)


async def read(
    readers: Readers, stop: asyncio.Event, started: Callable[[], None] = lambda: None
) -> Tally:
    """Run ``readers`` until ``stop`` is set or their calls or seconds run out; on the way out
    every call still in flight is cancelled, as a client that leaves cancels its calls.
    ``started`` is called once every reader has sent its first call."""
    channels = [channel(readers.target) for _ in range(readers.channels)]
    tally = Tally(readers.method)
    try:
        await asyncio.gather(*(c.channel_ready() for c in channels))
        stubs = [pb_grpc.PricingServiceStub(c) for c in channels]
        tasks = []
        for i in range(readers.concurrent):
            request = readers.requests[i % len(readers.requests)]
            ask = _asker(readers, stubs[i % len(stubs)], request)
            tasks.append(asyncio.create_task(_keep_asking(ask, readers, tally, stop)))
        await asyncio.sleep(0)  # each task has run to its first call
        started()
        stopped: asyncio.Future[Any] = asyncio.create_task(stop.wait())
        every: asyncio.Future[Any] = asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.wait([stopped, every], timeout=readers.seconds, return_when="FIRST_COMPLETED")
        for task in [stopped, *tasks]:
            task.cancel()
        await asyncio.gather(stopped, every, return_exceptions=True)
        for task in tasks:  # a reader's own failure (not a call's status) is the run's
            failure = None if task.cancelled() else task.exception()
            if failure is not None:
                raise failure
    finally:
        await asyncio.gather(*(c.close(None) for c in channels))
    return tally


def reader_process(readers: Readers, stop: Any, report: Any) -> None:
    """A hostile client process (``multiprocessing``): at a lower priority, it reads until the
    ``stop`` event is set, putting ``("started", method)`` then ``("tally", Tally)`` (or
    ``("error", text)``) on the ``report`` queue."""
    os.nice(NICENESS)

    async def run() -> Tally:
        done = asyncio.Event()

        async def watch_stop() -> None:
            while not stop.is_set():
                await asyncio.sleep(0.05)
            done.set()

        watcher = asyncio.create_task(watch_stop())
        try:
            return await read(readers, done, lambda: report.put(("started", readers.method)))
        finally:
            watcher.cancel()

    try:
        report.put(("tally", asyncio.run(run())))
    except BaseException as exc:  # the parent must hear of it, whatever it was
        report.put(("error", f"{readers.method} readers: {exc!r}"))
        raise
