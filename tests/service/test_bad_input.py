"""Bad input changes nothing: each problem found by trying the service as a new user would is
a test here, against the real server process (and the parsers underneath it)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest

from pricing.cards import parse_card
from pricing.errors import InvalidCard, InvalidInput, InvalidOption
from pricing.ratelog import LogBudget
from pricing.server.service import PricingService
from pricing.text import check_table_id, distinct_names, quoted
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_service_errors import FakeContext, call
from tests.support import ROOT
from tests.support.server import ServerProcess
from tests.support.wire import Feed, expect_error, metric

pytestmark = pytest.mark.timeout(180)

MIB = 1024 * 1024


# ---- the parsers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["AS\x1f", "\x1cAS\x85", "A\u017f", "\u017fA", "A\x00S", "A S", "AS\x0b", "\u0410S", "ＡS",
     "10\u00a0S", "1\u0660S", "A\u2660\ufe0f", "AS" * 10_000],
)  # fmt: skip
def test_cards_with_control_characters_or_look_alikes_are_refused(text: str) -> None:
    with pytest.raises(InvalidCard) as info:
        parse_card(text)
    assert len(str(info.value)) < 200  # a prefix of the value, never all of it


@pytest.mark.parametrize(("text", "card"), [(" as ", "AS"), ("\tT♠\n", "10S"), ("qd", "QD")])
def test_plain_spellings_still_read(text: str, card: str) -> None:
    assert str(parse_card(text)) == card


@pytest.mark.parametrize(
    "table_id", ["", "a\nb", "a b", "t" * 65, "tàble", "t/1", "t\x00", "\u017f", "x" * 10_000]
)
def test_table_ids_outside_the_rule_are_refused(table_id: str) -> None:
    with pytest.raises(InvalidInput) as info:
        check_table_id(table_id)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("table_id", ["a", "T" * 64, "hilo-1.main_2:x", "0"])
def test_table_ids_within_the_rule_are_taken(table_id: str) -> None:
    assert check_table_id(table_id) == table_id


def test_quoting_is_bounded_whatever_the_value() -> None:
    assert len(quoted("x" * MIB)) < 60 and "1048576 characters" in quoted("x" * MIB)
    assert quoted("AS") == "'AS'"


def test_colliding_option_names_are_refused() -> None:
    with pytest.raises(InvalidOption, match="also given"):
        distinct_names("bet", ["triple", "TRIPLE"])
    with pytest.raises(InvalidInput):
        distinct_names("bet", ["tr\u0131ple"])  # dotless i upper-cases to I


def test_log_budget_says_what_it_left_out() -> None:
    now = [0.0]
    budget = LogBudget(lines=3, clock=lambda: now[0])
    assert [budget.take() for _ in range(5)] == [0, 0, 0, None, None]
    now[0] = 1.5
    assert budget.take() == 2


# ---- the real server -----------------------------------------------------------------------


def raw_call(server: ServerProcess, method: str, payload: bytes) -> grpc.RpcError:
    """Send ``payload`` as the body of ``method`` and return the error it gets."""
    call = server.channel().unary_unary(
        method, request_serializer=lambda b: b, response_deserializer=lambda b: b
    )
    with pytest.raises(grpc.RpcError) as info:
        call(payload, timeout=30)
    return info.value


def test_a_table_id_with_a_newline_or_10000_characters_opens_nothing(
    server: ServerProcess,
) -> None:
    dealer, pricing = server.dealer(), server.pricing()
    for table_id in ("a\nb", "x" * 10_000):
        error = expect_error(
            lambda t=table_id: dealer.OpenTable(pb.OpenTableRequest(table_id=t, game=pb.GAME_HILO)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "invalid table_id",
        )
        assert len(error.details()) < 200
        expect_error(
            lambda t=table_id: pricing.GetTable(pb.GetTableRequest(table_id=t)),
            grpc.StatusCode.INVALID_ARGUMENT,
        )


def test_100_opens_with_a_3_9_mb_table_id_cost_no_memory(server: ServerProcess) -> None:
    dealer = server.dealer()
    huge = pb.OpenTableRequest(table_id="x" * 3_900_000, game=pb.GAME_HILO)
    before = server.rss_bytes()
    for _ in range(100):
        expect_error(
            lambda: dealer.OpenTable(huge),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "--max-message-bytes is 65536",
        )
    assert server.rss_bytes() - before < 50 * MIB
    assert metric(server, "pricing_limit_rejections_total", {"limit": "max-message-bytes"}) >= 100


@pytest.mark.parametrize("card", ["AS\x1f", "\x1cAS\x85", "A\u017f"])
def test_control_characters_and_look_alikes_are_not_the_ace_of_spades(
    server: ServerProcess, table_id: str, card: str
) -> None:
    feed = Feed(server, table_id)
    before = feed.open()
    with pytest.raises(grpc.RpcError) as info:
        feed.expose(card)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert server.pricing().GetTable(pb.GetTableRequest(table_id=table_id)) == before


def test_an_error_quotes_a_short_prefix_and_the_log_stays_small(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open()
    log_before = len(server.log())
    for size in (9_000, 60_000):  # 9 KB used to overflow the metadata limit on the way back
        feed.seq = 0
        error = expect_error(
            lambda s=size: feed.expose("Z" * s), grpc.StatusCode.INVALID_ARGUMENT, "invalid card"
        )
        assert len(error.details()) < 300 and f"{size} characters" in error.details()
    for _ in range(100):  # a flood of 60 KB bad cards: a few short lines, not 6 MB of log
        feed.seq = 0
        with pytest.raises(grpc.RpcError):
            feed.expose("Z" * 60_000)
    feed.seq = 0  # one 1 MiB card: refused unread, one short line (it used to write 8.4 MB)
    expect_error(
        lambda: feed.expose("Z" * MIB), grpc.StatusCode.RESOURCE_EXHAUSTED, "max-message-bytes"
    )
    assert len(server.log()) - log_before < 20_000


def test_a_quote_of_900000_cards_is_refused_at_once_and_memory_returns(
    server: ServerProcess,
) -> None:
    pricing = server.pricing()
    huge = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=["AS"] * 900_000)
    before = server.rss_bytes()
    t0 = time.monotonic()
    for _ in range(100):
        expect_error(lambda: pricing.Quote(huge), grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert time.monotonic() - t0 < 30
    largest = pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=["AS"] * 417)
    for _ in range(100):  # the largest that fits the message limit, over the shoe size
        expect_error(
            lambda: pricing.Quote(largest),
            grpc.StatusCode.INVALID_ARGUMENT,
            "at most the 416 cards",
        )
    assert server.rss_bytes() - before < 50 * MIB


def test_an_undecodable_body_is_invalid_argument_without_a_traceback(
    server: ServerProcess,
) -> None:
    for method in ("/pricing.v1.DealerService/ExposeCard", "/pricing.v1.PricingService/Quote"):
        for body in (b"\xff\xff\xff\xff", b"\x0a\xff\x01"):
            error = raw_call(server, method, body)
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
            assert "not a valid" in error.details()
    error = raw_call(server, "/pricing.v1.PricingService/WatchTable", b"\xff\xff")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "Traceback" not in server.log()


def test_colliding_option_keys_are_refused(server: ServerProcess, table_id: str) -> None:
    dealer, pricing = server.dealer(), server.pricing()
    goagae = pb.GoaGaeRules()
    goagae.bets["triple"].CopyFrom(pb.PayRule(rtp_bp=9000))
    goagae.bets["TRIPLE"].CopyFrom(pb.PayRule(rtp_bp=5000))
    expect_error(
        lambda: dealer.OpenTable(
            pb.OpenTableRequest(table_id=table_id, game=pb.GAME_GOA_GAE, goa_gae=goagae)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "also given",
    )
    pairs = pb.BlackjackRules()
    pairs.pairs.payout_hundredths["perfect"] = 2500
    pairs.pairs.payout_hundredths["PERFECT "] = 100
    expect_error(
        lambda: pricing.Quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, blackjack=pairs)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "also given",
    )
    expect_error(
        lambda: pricing.GetTable(pb.GetTableRequest(table_id=table_id)), grpc.StatusCode.NOT_FOUND
    )


@pytest.mark.parametrize("token", ["   ", "short", "tøken-with-non-ascii-0123456789", "a b" * 8])
def test_an_unusable_dealer_token_stops_the_server_at_start(token: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--port=0", "--metrics-port=0"],
        env={"PRICING_DEALER_TOKEN": token, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "PRICING_DEALER_TOKEN" in done.stderr and "16 characters" in done.stderr
    assert token.strip() not in done.stderr or not token.strip()
    assert "ready" not in done.stdout


def test_the_metrics_endpoint_serves_metrics_only(server: ServerProcess) -> None:
    for path in ("/", "/other", "/metrics/x", "/../metrics"):
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}{path}", timeout=10)
        assert info.value.code == 404
    assert "pricing_tables" in server.metrics_text()
    url = f"http://127.0.0.1:{server.metrics_port}/metrics?x=1"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200


def health(server: ServerProcess) -> str:
    from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: PLC0415

    stub = health_pb2_grpc.HealthStub(server.channel())
    status = stub.Check(health_pb2.HealthCheckRequest(), timeout=10).status
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(status))


def threads(server: ServerProcess) -> int:
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line")


def test_half_sent_http_requests_cannot_pile_up_threads(server: ServerProcess) -> None:
    baseline = threads(server)
    sockets = []
    try:
        for _ in range(500):
            s = socket.create_connection(("127.0.0.1", server.metrics_port), timeout=10)
            sockets.append(s)
            with contextlib.suppress(OSError):  # beyond the bound the server hangs up at once
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
        time.sleep(0.5)  # let the server accept them all
        assert threads(server) <= baseline + 40
        assert health(server) == "SERVING"  # gRPC does not care
    finally:
        for s in sockets:
            s.close()
    # The slots come back once the half-sent requests are closed or time out.
    deadline = time.monotonic() + 15
    while True:
        try:
            assert "pricing_tables" in server.metrics_text()
            break
        except (OSError, urllib.error.URLError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    while threads(server) > baseline + 5:  # each thread ends once its client is gone
        assert time.monotonic() < deadline, threads(server)
        time.sleep(0.1)


def test_the_service_logs_rejected_feed_events_at_a_bounded_rate(
    caplog: pytest.LogCaptureFixture,
) -> None:
    service = PricingService()
    request = pb.ExposeCardRequest(table_id="ghost", seq=1, card="AS", role=pb.CARD_ROLE_BURN)
    with caplog.at_level(logging.INFO, logger="pricing.service"):
        for _ in range(500):
            call(service, "ExposeCard", request)
    assert 1 <= len(caplog.records) <= 2 * LogBudget().lines


def test_a_feed_event_with_several_bad_fields_is_told_of_its_role_first() -> None:
    """The role says how the rest is read: with a bad role and a bad card, the role is named,
    on the call and in the journal's decoding alike."""
    service = PricingService()
    opening = pb.OpenTableRequest(table_id="t", game=pb.GAME_HILO)
    asyncio.run(service.rpc("OpenTable")(opening, FakeContext()))
    both = pb.ExposeCardRequest(table_id="t", seq=1, card="ZZ", role=pb.CARD_ROLE_UNSPECIFIED)
    aborted = call(service, "ExposeCard", both)
    assert aborted.code == grpc.StatusCode.INVALID_ARGUMENT
    assert aborted.details.startswith("card role CARD_ROLE_UNSPECIFIED is not valid"), aborted
    card_only = pb.ExposeCardRequest(table_id="t", seq=1, card="ZZ", role=pb.CARD_ROLE_BURN)
    assert "card" in call(service, "ExposeCard", card_only).details
