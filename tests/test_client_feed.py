"""The client's dealer feed: it numbers events itself and, when the server cannot be reached,
resends the SAME seq after a growing pause (the server applies a seq once: docs/rules.md §5.1)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from pricing import client as client_module
from pricing.client import AsyncDealerFeed, DealerFeed
from pricing.v1 import pricing_pb2 as pb


class Unavailable(grpc.aio.AioRpcError):
    def __init__(self, code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE) -> None:
        super().__init__(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details="down")


class FlakyServer:
    """Fails the first ``failures`` calls with ``code``, then answers."""

    def __init__(self, failures: int, code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE) -> None:
        self.failures = failures
        self.code = code
        self.seqs: list[int] = []

    def expose_card(
        self, table_id: str, seq: int, card: str, role: object, seat: int = 0
    ) -> pb.TableState:
        self.seqs.append(seq)
        if len(self.seqs) <= self.failures:
            raise Unavailable(self.code)
        return pb.TableState(table_id=table_id, last_seq=seq)


def test_a_retry_resends_the_same_seq_after_a_growing_pause(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pauses: list[float] = []
    monkeypatch.setattr(client_module.time, "sleep", pauses.append)
    server = FlakyServer(failures=2)
    feed = DealerFeed(server, "t", retries=3)  # type: ignore[arg-type]
    assert feed.expose("7H").last_seq == 1
    assert server.seqs == [1, 1, 1]
    assert pauses == [0.05, 0.1]
    said = [r.getMessage() for r in caplog.records if r.name == "pricing.client"]
    assert said == [  # the pause it then takes
        "table 't': UNAVAILABLE, resending seq 1 in 0.05 s",
        "table 't': UNAVAILABLE, resending seq 1 in 0.10 s",
    ]
    feed.expose("8H")
    assert server.seqs[-1] == 2 and feed.last_seq == 2


def test_it_gives_up_after_its_retries_and_keeps_its_seq(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module.time, "sleep", lambda _: None)
    server = FlakyServer(failures=10)
    feed = DealerFeed(server, "t", retries=2)  # type: ignore[arg-type]
    with pytest.raises(grpc.RpcError):
        feed.expose("7H")
    assert server.seqs == [1, 1, 1] and feed.last_seq == 0


def test_a_refusal_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module.time, "sleep", lambda _: pytest.fail("no retry expected"))
    server = FlakyServer(failures=1, code=grpc.StatusCode.FAILED_PRECONDITION)
    feed = DealerFeed(server, "t")  # type: ignore[arg-type]
    with pytest.raises(grpc.RpcError):
        feed.expose("7H")
    assert server.seqs == [1]


def test_the_async_feed_retries_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    pauses: list[float] = []

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    class AsyncFlaky(FlakyServer):
        async def expose_card(  # type: ignore[override]
            self, table_id: str, seq: int, card: str, role: object, seat: int = 0
        ) -> pb.TableState:
            return FlakyServer.expose_card(self, table_id, seq, card, role, seat)

    monkeypatch.setattr(client_module.asyncio, "sleep", record)
    server = AsyncFlaky(failures=1)
    feed = AsyncDealerFeed(server, "t")  # type: ignore[arg-type]
    state = asyncio.run(feed.expose("7H"))
    assert state.last_seq == 1 and server.seqs == [1, 1] and pauses == [0.05]
