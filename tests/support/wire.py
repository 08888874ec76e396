"""Helpers of the end-to-end tests: a numbering dealer feed, and the engine's and the wire's
prices in one comparable form."""

from __future__ import annotations

import io
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families

from pricing.payout import BetPrice
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.server import ServerProcess

T = TypeVar("T")


class Feed:
    """A dealer feed: numbers its events itself, as a card reader would."""

    def __init__(self, server: ServerProcess, table_id: str) -> None:
        self.server = server
        self.stub = server.dealer()
        self.table_id = table_id
        self.seq = 0

    def open(self, **kwargs: Any) -> pb.TableState:
        kwargs.setdefault("game", pb.GAME_HILO)
        return self.stub.OpenTable(pb.OpenTableRequest(table_id=self.table_id, **kwargs))

    def expose(self, card: str, role: int = pb.CARD_ROLE_BURN, seat: int = 0) -> pb.TableState:
        self.seq += 1
        return self.stub.ExposeCard(
            pb.ExposeCardRequest(
                table_id=self.table_id, seq=self.seq, card=card, role=role, seat=seat
            )
        )

    def void(self) -> pb.TableState:
        self.seq += 1
        return self.stub.VoidRound(pb.VoidRoundRequest(table_id=self.table_id, seq=self.seq))

    def new_shoe(self) -> pb.TableState:
        self.seq += 1
        return self.stub.NewShoe(pb.NewShoeRequest(table_id=self.table_id, seq=self.seq))

    def end_round(self) -> pb.TableState:
        self.seq += 1
        return self.stub.EndRound(pb.EndRoundRequest(table_id=self.table_id, seq=self.seq))

    def close(self) -> pb.TableState:
        self.seq += 1
        return self.stub.CloseTable(pb.CloseTableRequest(table_id=self.table_id, seq=self.seq))


def engine_prices(prices: Mapping[str, BetPrice], betting: bool) -> list[tuple[Any, ...]]:
    """What the engine says, as the wire should carry it: every bet closed outside betting."""
    rows = []
    for bet, p in prices.items():
        if betting:
            rows.append(
                (bet, p.wins, p.remaining, p.probability, p.payout_hundredths, p.open, p.clamped)
            )
        else:
            rows.append((bet, p.wins, p.remaining, p.probability, 0, False, False))
    return rows


def wire_prices(state: pb.TableState | pb.QuoteResponse) -> list[tuple[Any, ...]]:
    return [
        (p.bet, p.wins, p.remaining, p.probability, p.payout_hundredths, p.open, p.clamped)
        for p in state.prices
    ]


def expect_error(
    call: Callable[[], object], code: grpc.StatusCode, *fragments: str
) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert error.code() == code, error.details()
    for fragment in fragments:
        assert fragment in error.details(), error.details()
    return error


def metric(server: ServerProcess, name: str, labels: dict[str, str] | None = None) -> float:
    for family in text_string_to_metric_families(server.metrics_text()):
        for sample in family.samples:
            if sample.name == name and all(
                sample.labels.get(k) == v for k, v in (labels or {}).items()
            ):
                return float(sample.value)
    return 0.0


def scraped(read: Callable[[], T], until: Callable[[T], bool], timeout: float = 5.0) -> T:
    """``read()`` (a value from the metrics page) once ``until`` holds of it, or the last value
    read after ``timeout`` seconds. A large page, or one slow to render, is reused for up to
    twice its render time (pricing.server.metrics_http), so a scrape right after a change may show
    the state before it, as Prometheus would at worst."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if until(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def wait_for(condition: Callable[[], bool], timeout: float = 15.0, what: str = "") -> float:
    """Poll ``condition`` until it holds (a server's log line, a metric, a replica catching
    up); the seconds it took. Fails naming ``what`` after ``timeout`` seconds."""
    t0 = time.monotonic()
    while not condition():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"not within {timeout} s: {what or 'condition'}")
        time.sleep(0.02)
    return time.monotonic() - t0


class Lines(io.StringIO):
    """Output written by a command running in a thread: read meanwhile (``text``), or waited
    on for a text to appear."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()

    def write(self, text: str) -> int:
        with self.changed:
            written = super().write(text)
            self.changed.notify_all()
        return written

    def text(self) -> str:
        with self.changed:
            return self.getvalue()

    def wait_for(self, text: str, timeout: float = 20.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: text in self.getvalue(), timeout)


class FeedStream:
    """A Feed stream driven from a test: put events on it, read their answers in turn."""

    def __init__(self, stub: pb_grpc.DealerServiceStub, **kwargs: Any) -> None:
        self._requests: queue.SimpleQueue[pb.FeedRequest | None] = queue.SimpleQueue()
        self.call = stub.Feed(iter(self._requests.get, None), timeout=60, **kwargs)

    def send(self, request: pb.FeedRequest) -> None:
        self._requests.put(request)

    def answer(self) -> pb.TableState:
        state: pb.TableState = next(self.call)
        return state

    def done(self) -> None:
        """The feed has no more events: the stream ends with OK."""
        self._requests.put(None)


#: The events a FeedRequest carries (its oneof's fields), each with the call that takes it alone.
FEED_CALLS: Final = {
    "expose_card": "ExposeCard",
    "void_round": "VoidRound",
    "end_round": "EndRound",
    "new_shoe": "NewShoe",
    "close_table": "CloseTable",
}


def event(table_id: str, seq: int, kind: str, card: str = "", role: int = 0) -> pb.FeedRequest:
    """A FeedRequest carrying the ``kind`` event (a field of FEED_CALLS) of ``table_id``."""
    request = pb.FeedRequest()
    inner = getattr(request, kind)
    inner.SetInParent()  # the oneof holds ``kind``, whatever the values
    inner.table_id, inner.seq = table_id, seq
    if kind == "expose_card":
        inner.card, inner.role = card, role
    return request


def without_figures(state: pb.TableState) -> pb.TableState:
    """``state`` without the main game's figures (``player_edge``, each seat's decisions),
    which a blackjack state carries whenever they happen to be ready: two tables fed alike
    answer alike apart from them."""
    state.ClearField("player_edge")
    for seat in state.seats:
        seat.ClearField("decisions")
        seat.ClearField("best_action")
    return state
