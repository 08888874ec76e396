"""Roles and tokens against the real server: the auth matrix (every RPC × no token, an unknown
token, a reader token, a dealer token), rotation on SIGHUP, nothing logged."""

from __future__ import annotations

import io
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from pricing import cli
from pricing.server.auth import TokenError, TokenStore, read_tokens
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support.server import ServerProcess, start_server
from tests.support.wire import wait_for

pytestmark = pytest.mark.timeout(120)

DEALER = "dealer-token-0123456789abcdef"
READER = "reader-token-0123456789abcdef"
UNKNOWN = "unknown-token-0123456789abcdef"
TABLE = "guarded-1"
OK = grpc.StatusCode.OK
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
PERMISSION_DENIED = grpc.StatusCode.PERMISSION_DENIED


def write_tokens(path: Path, *tokens: str) -> Path:
    path.write_text("# tokens of one role\n\n" + "".join(f"  {t}  \n" for t in tokens))
    return path


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("tokens")
    server = start_server(
        f"--dealer-tokens-file={write_tokens(directory / 'dealers', DEALER)}",
        f"--reader-tokens-file={write_tokens(directory / 'readers', READER)}",
        "--log-level=DEBUG",
    )
    md = (("authorization", f"Bearer {DEALER}"),)
    dealer = server.dealer()
    dealer.OpenTable(pb.OpenTableRequest(table_id=TABLE, game=pb.GAME_HILO), metadata=md)
    dealer.ExposeCard(
        pb.ExposeCardRequest(table_id=TABLE, seq=1, card="2S", role=pb.CARD_ROLE_BURN), metadata=md
    )
    yield server
    assert server.stop() == 0
    log = server.log()
    for token in (DEALER, READER, UNKNOWN):
        assert token not in log


def code_of(call: Callable[[], Any]) -> grpc.StatusCode:
    try:
        result = call()
        if isinstance(result, Iterator):
            next(result)  # WatchTable: the code comes with the first message
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[no-any-return]
    return OK


def rpcs(channel: grpc.Channel, md: tuple[tuple[str, str], ...]) -> dict[str, Callable[[], Any]]:
    """Every RPC of the two services, each with a request whose answer does not depend on
    the order they run in, and which changes no table."""
    d, p = pb_grpc.DealerServiceStub(channel), pb_grpc.PricingServiceStub(channel)
    t = TABLE
    return {
        "OpenTable": lambda: d.OpenTable(
            pb.OpenTableRequest(table_id=t, game=pb.GAME_HILO), metadata=md
        ),
        "ExposeCard": lambda: d.ExposeCard(  # the same seq 1 again: an idempotent repeat
            pb.ExposeCardRequest(table_id=t, seq=1, card="2S", role=pb.CARD_ROLE_BURN), metadata=md
        ),
        "VoidRound": lambda: d.VoidRound(pb.VoidRoundRequest(table_id=t, seq=1), metadata=md),
        "EndRound": lambda: d.EndRound(pb.EndRoundRequest(table_id=t, seq=1), metadata=md),
        "NewShoe": lambda: d.NewShoe(pb.NewShoeRequest(table_id=t, seq=1), metadata=md),
        "CloseTable": lambda: d.CloseTable(pb.CloseTableRequest(table_id=t, seq=1), metadata=md),
        "Feed": lambda: d.Feed(iter([pb.FeedRequest(  # ExposeCard's repeat, on a stream
            expose_card=pb.ExposeCardRequest(
                table_id=t, seq=1, card="2S", role=pb.CARD_ROLE_BURN))]),
            metadata=md),
        "GetTable": lambda: p.GetTable(pb.GetTableRequest(table_id=t), metadata=md),
        "WatchTable": lambda: p.WatchTable(pb.WatchTableRequest(table_id=t), metadata=md),
        "Quote": lambda: p.Quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=["AS"]), metadata=md),
        "Settle": lambda: p.Settle(
            pb.SettleRequest(table_id=t, round_id=1, version=1, bet="HIGH", stake_cents=1),
            metadata=md,
        ),
        "SettlePosition": lambda: p.SettlePosition(
            pb.SettlePositionRequest(table_id=t, stake_cents=1, legs=[
                pb.PositionLeg(round_id=1, version=1, bet="HIGH")]),
            metadata=md,
        ),
        "ListTables": lambda: p.ListTables(pb.ListTablesRequest(), metadata=md),
        "Analyze": lambda: p.Analyze(pb.AnalyzeRequest(game=pb.GAME_HILO), metadata=md),
    }  # fmt: skip


#: What each RPC answers once past the guard (seq 1 was an ExposeCard: another event with it is
#: a conflict; no round is open yet, so no bet settles).
PAST_THE_GUARD = {
    "OpenTable": OK,
    "ExposeCard": OK,
    "VoidRound": grpc.StatusCode.ALREADY_EXISTS,
    "EndRound": grpc.StatusCode.ALREADY_EXISTS,
    "NewShoe": grpc.StatusCode.ALREADY_EXISTS,
    "CloseTable": grpc.StatusCode.ALREADY_EXISTS,
    "Feed": OK,
    "GetTable": OK,
    "WatchTable": OK,
    "Quote": OK,
    "Settle": grpc.StatusCode.FAILED_PRECONDITION,
    "SettlePosition": grpc.StatusCode.FAILED_PRECONDITION,
    "ListTables": OK,
    "Analyze": OK,
}
DEALER_RPCS = {"OpenTable", "ExposeCard", "VoidRound", "EndRound", "NewShoe", "CloseTable", "Feed"}


def expected(rpc: str, who: str) -> grpc.StatusCode:
    if who in ("none", "unknown"):
        return UNAUTHENTICATED
    if who == "reader" and rpc in DEALER_RPCS:
        return PERMISSION_DENIED
    return PAST_THE_GUARD[rpc]


TOKENS = {"none": None, "unknown": UNKNOWN, "reader": READER, "dealer": DEALER}


@pytest.mark.parametrize("who", list(TOKENS))
def test_the_auth_matrix(guarded: ServerProcess, who: str) -> None:
    token = TOKENS[who]
    md = (("authorization", f"Bearer {token}"),) if token else ()
    channel = guarded.channel()
    before = pb_grpc.PricingServiceStub(channel).GetTable(
        pb.GetTableRequest(table_id=TABLE), metadata=(("authorization", f"Bearer {READER}"),)
    )
    got = {rpc: code_of(call) for rpc, call in rpcs(channel, md).items()}
    assert got == {rpc: expected(rpc, who) for rpc in got}
    # Health and reflection stay open to everyone.
    health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), metadata=md)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
    answers = reflect.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), metadata=md
    )
    assert "pricing.v1.DealerService" in str(next(answers))
    after = pb_grpc.PricingServiceStub(channel).GetTable(
        pb.GetTableRequest(table_id=TABLE), metadata=(("authorization", f"Bearer {READER}"),)
    )
    assert after == before  # no call of the matrix changed the table


@pytest.mark.parametrize(("token", "code"), [(None, UNAUTHENTICATED), (READER, PERMISSION_DENIED)])
def test_a_refused_feed_stream_ends_before_its_first_event(
    guarded: ServerProcess, token: str | None, code: grpc.StatusCode
) -> None:
    md = (("authorization", f"Bearer {token}"),) if token else ()
    held = threading.Event()  # the stream's first event is held back until the test ends

    def events() -> Iterator[pb.FeedRequest]:
        held.wait(30)
        yield from ()

    answers = pb_grpc.DealerServiceStub(guarded.channel()).Feed(events(), metadata=md, timeout=5)
    try:
        assert code_of(lambda: answers) == code
    finally:
        held.set()


def test_errors_never_repeat_a_token(guarded: ServerProcess) -> None:
    channel = guarded.channel()
    for token in (UNKNOWN, READER):
        md = (("authorization", f"Bearer {token}"),)
        with pytest.raises(grpc.RpcError) as info:
            pb_grpc.DealerServiceStub(channel).OpenTable(
                pb.OpenTableRequest(table_id="x", game=pb.GAME_HILO), metadata=md
            )
        assert token not in (info.value.details() or "")


def test_tokens_rotate_on_sighup_and_a_bad_file_keeps_the_old_ones(tmp_path: Path) -> None:
    dealers = write_tokens(tmp_path / "dealers", DEALER)
    server = start_server(f"--dealer-tokens-file={dealers}")
    try:
        channel = server.channel()

        def open_with(token: str) -> grpc.StatusCode:
            md = (("authorization", f"Bearer {token}"),)
            request = pb.OpenTableRequest(table_id="rotating", game=pb.GAME_HILO)
            return code_of(
                lambda: pb_grpc.DealerServiceStub(channel).OpenTable(request, metadata=md)
            )

        assert open_with(DEALER) == OK
        fresh = "rotated-dealer-token-0123456789"
        write_tokens(dealers, fresh)
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: open_with(DEALER) == UNAUTHENTICATED)
        assert open_with(fresh) == OK
        dealers.write_text("too-short\n")  # unusable: the tokens in force stay
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "tokens not reloaded" in server.log())
        assert open_with(fresh) == OK
        assert (
            pb_grpc.PricingServiceStub(channel)
            .GetTable(  # reads stay open: no reader file
                pb.GetTableRequest(table_id="rotating")
            )
            .version
            == 1
        )
    finally:
        assert server.stop() == 0
    assert fresh not in server.log() and DEALER not in server.log()


def test_a_token_taken_back_stops_its_open_feed_stream_at_the_next_event(tmp_path: Path) -> None:
    dealers = write_tokens(tmp_path / "dealers", DEALER)
    server = start_server(f"--dealer-tokens-file={dealers}")
    try:
        md = (("authorization", f"Bearer {DEALER}"),)
        dealer = pb_grpc.DealerServiceStub(server.channel())
        dealer.OpenTable(pb.OpenTableRequest(table_id="revoked", game=pb.GAME_HILO), metadata=md)
        requests: queue.SimpleQueue[pb.FeedRequest | None] = queue.SimpleQueue()
        answers = dealer.Feed(iter(requests.get, None), metadata=md, timeout=30)

        def card(seq: int, card: str) -> pb.FeedRequest:
            expose = pb.ExposeCardRequest(
                table_id="revoked", seq=seq, card=card, role=pb.CARD_ROLE_BURN
            )
            return pb.FeedRequest(expose_card=expose)

        requests.put(card(1, "2S"))
        assert next(answers).last_seq == 1
        write_tokens(dealers, "another-dealer-token-0123456789")
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "reloaded tokens" in server.log())
        requests.put(card(2, "3S"))
        with pytest.raises(grpc.RpcError) as info:
            next(answers)
        assert info.value.code() == UNAUTHENTICATED, info.value.details()
        table = server.pricing().GetTable(pb.GetTableRequest(table_id="revoked"))
        assert table.last_seq == 1  # the event after the token was taken back: not applied
    finally:
        assert server.stop() == 0


def test_no_reflection_switches_reflection_off() -> None:
    server = start_server("--no-reflection")
    try:
        reflect = reflection_pb2_grpc.ServerReflectionStub(server.channel())
        answers = reflect.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        with pytest.raises(grpc.RpcError) as info:
            next(answers)
        assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        server.stop()


def test_the_cli_sends_its_token(guarded: ServerProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PRICING_TOKEN", "PRICING_DEALER_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    out = io.StringIO()
    assert cli.main(["table", TABLE, "--server", guarded.target], out) == 1  # no token
    assert cli.main(["table", TABLE, "--server", guarded.target, "--token", READER], out) == 0
    assert TABLE in out.getvalue()
    monkeypatch.setenv("PRICING_TOKEN", READER)
    assert cli.main(["table", TABLE, "--server", guarded.target], out) == 0


def test_tokens_files_are_checked_when_read(tmp_path: Path) -> None:
    good = write_tokens(tmp_path / "good", DEALER, READER)
    assert read_tokens(good) == [DEALER, READER]
    for text in ("# only a comment\n", "short\n", "has space inside-0123456789\n", "tøken" * 5):
        bad = tmp_path / "bad"
        bad.write_text(text)
        with pytest.raises(TokenError) as info:
            read_tokens(bad)
        assert text.strip() not in str(info.value) or text.startswith("#")
    store = TokenStore(reader_file=good)
    assert store.role_of(READER) is not None and store.role_of(UNKNOWN) is None
    assert not store.dealer_required and store.reader_required
