"""How the service answers a failed call: our own error types get their status codes, anything
else (a bug) gets INTERNAL with a generic message and its traceback in the log. The service
runs in this process; a Quote starts its quote workers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any, NoReturn

import grpc
import pytest

from pricing.errors import CardNotInShoe, IllegalMove, InvalidCard, InvalidInput, InvalidOption
from pricing.server.service import INTERNAL_DETAILS, PricingService, status_code
from pricing.tables import GameUnavailable, SeqConflict, TableExists, TableNotFound
from pricing.v1 import pricing_pb2 as pb


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(code, details)
        self.code = code
        self.details = details


class FakeContext:
    """The part of ``grpc.aio.ServicerContext`` the unary handlers use."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> NoReturn:
        raise Aborted(code, details)


@pytest.fixture
def service() -> Iterator[PricingService]:
    """A service in this process. Its worker processes end with the test: their pool's threads
    would otherwise live on in this process, beside later tests that patch ``time.sleep``."""
    made = PricingService()
    yield made
    made.offload.close()


def call(service: PricingService, method: str, request: Any) -> Aborted:
    with pytest.raises(Aborted) as info:
        asyncio.run(service.rpc(method)(request, FakeContext()))
    return info.value


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidInput("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (InvalidCard("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (InvalidOption("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (IllegalMove("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (CardNotInShoe("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (TableNotFound("x"), grpc.StatusCode.NOT_FOUND),
        (TableExists("x"), grpc.StatusCode.ALREADY_EXISTS),
        (SeqConflict("x"), grpc.StatusCode.ALREADY_EXISTS),
        (GameUnavailable("x"), grpc.StatusCode.UNIMPLEMENTED),
        (ValueError("x"), None),  # not ours: a bug, not the caller's fault
        (KeyError("x"), None),
        (OverflowError("x"), None),
    ],
)
def test_only_our_error_types_have_a_client_status(
    error: Exception, code: grpc.StatusCode | None
) -> None:
    assert status_code(error) == code


def test_a_plain_value_error_is_internal_with_a_generic_message_and_a_logged_traceback(
    service: PricingService, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(table_id: str) -> NoReturn:
        raise ValueError("need 0 <= wins <= total, got wins=9 total=3")  # a kernel's contract

    service.tables.get = broken  # type: ignore[method-assign]
    request = pb.SettleRequest(table_id="t", round_id=1, version=1, bet="HIGH", stake_cents=1)
    with caplog.at_level(logging.ERROR, logger="pricing.service"):
        aborted = call(service, "Settle", request)
    assert aborted.code == grpc.StatusCode.INTERNAL
    assert aborted.details == INTERNAL_DETAILS
    assert "wins" not in aborted.details  # no internals to the client
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert "Settle" in record.getMessage()
    assert record.exc_info is not None and "got wins=9" in str(record.exc_info[1])


def test_our_errors_keep_their_code_and_message(service: PricingService) -> None:
    aborted = call(service, "GetTable", pb.GetTableRequest(table_id="ghost"))
    assert (aborted.code, aborted.details) == (grpc.StatusCode.NOT_FOUND, "no table 'ghost'")
    twice = pb.QuoteRequest(game=pb.GAME_HILO, exposed=["AS", "as"])
    aborted = call(service, "Quote", twice)  # CardNotInShoe in a stateless quote: bad argument
    assert aborted.code == grpc.StatusCode.INVALID_ARGUMENT and "AS" in aborted.details
