"""Live statistics of tables fed through the real server: 2,000 seeded Hi-Lo rounds over four
honest tables agree with the theory within the interval; a table dealt from decks with the
sevens removed is flagged on SEVEN. Read back three ways: the journal read-only from the data
directory (``pricing analyze --table``), the pure function over it, and the Analyze RPC."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from fractions import Fraction

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from pricing.analysis.live import FLAG_SE, live_stats
from pricing.cards import Rank
from pricing.cli import main
from pricing.games.events import EndRound, ExposeCard, NewShoe, VoidRound
from pricing.journal.tools import export_records
from pricing.tables import FeedEvent
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as rpc
from pricing.v1.enums import enum_number
from pricing.wire import seconds, timestamp
from tests.support.live_feeds import Dealt, assert_matches, hilo_feed
from tests.support.server import ServerProcess, start_server

HONEST = {f"honest-{i}": hilo_feed(50, seed=100 + i) for i in range(4)}  # 500 rounds each
BIASED = hilo_feed(50, seed=7, without=[Rank.SEVEN])  # 500 rounds, never a seven


def send(stub: rpc.DealerServiceStub, table_id: str, seq: int, event: FeedEvent) -> None:
    match event:
        case ExposeCard(card=card, role=role):
            role_ = enum_number(pb.CardRole, role.name)
            stub.ExposeCard(
                pb.ExposeCardRequest(table_id=table_id, seq=seq, card=str(card), role=role_)
            )
        case NewShoe():
            stub.NewShoe(pb.NewShoeRequest(table_id=table_id, seq=seq))
        case VoidRound():
            stub.VoidRound(pb.VoidRoundRequest(table_id=table_id, seq=seq))
        case EndRound():
            stub.EndRound(pb.EndRoundRequest(table_id=table_id, seq=seq))
        case _:
            raise AssertionError(event)


def feed(server: ServerProcess, table_id: str, dealt: Dealt, errors: list[BaseException]) -> None:
    try:
        stub = server.dealer()
        stub.OpenTable(pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO))
        for seq, event in enumerate(dealt.events, start=1):
            send(stub, table_id, seq, event)
    except BaseException as exc:  # reported by the test, not lost in the thread
        errors.append(exc)


@pytest.fixture(scope="module")
def fed() -> Iterator[ServerProcess]:
    """One server, five tables fed at once (their writes share the journal's commits)."""
    server = start_server()
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=feed, args=(server, table_id, dealt, errors))
        for table_id, dealt in [*HONEST.items(), ("biased", BIASED)]
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    yield server
    assert server.stop() == 0, server.log()


def analyze(server: ServerProcess, *args: str) -> dict[str, object]:
    out = io.StringIO()
    assert server.data_dir is not None
    code = main(["analyze", *args, "--data-dir", str(server.data_dir), "--json"], out=out)
    assert code == 0
    data: dict[str, object] = json.loads(out.getvalue())
    return data


def test_the_journal_holds_exactly_the_rounds_fed(fed: ServerProcess) -> None:
    assert fed.data_dir is not None
    for table_id, dealt in [*HONEST.items(), ("biased", BIASED)]:
        report = live_stats([export_records(fed.data_dir, table_id)])
        assert (report.rounds, report.void_rounds) == (500, dealt.voids)
        assert_matches(report, "hilo", dealt)
        if dealt is not BIASED:  # each honest table is inside on its own too
            assert report.flagged == ()


def test_honest_tables_agree_with_theory_within_the_interval(fed: ServerProcess) -> None:
    tables = [arg for table_id in HONEST for arg in ("--table", table_id)]
    data = analyze(fed, *tables)
    assert data["rounds"] == 2000 and data["flagged"] == []
    bets = data["bets"]
    assert isinstance(bets, dict) and list(bets) == ["LOW", "HIGH", "ODD", "EVEN", "SEVEN"]
    for bet in bets.values():
        low, high = bet["interval"]
        assert low < bet["returned"]["value"] < high
        assert abs(bet["z"]) < FLAG_SE - 1  # comfortably inside with these seeds
        assert bet["stakes"] >= 1990  # closed only when no winning card is left


def test_a_deck_without_sevens_is_flagged(fed: ServerProcess) -> None:
    data = analyze(fed, "--table", "biased")
    assert data["flagged"] == ["SEVEN"]
    seven = data["bets"]["SEVEN"]  # type: ignore[index]
    assert seven["wins"] == 0 and seven["returned"]["value"] == 0.0
    assert seven["z"] < -2 * FLAG_SE + 1  # far out, not marginal
    out = io.StringIO()
    assert fed.data_dir is not None
    main(["analyze", "--table", "biased", "--data-dir", str(fed.data_dir)], out=out)
    text = out.getvalue()
    assert "FLAGGED, beyond 4 standard errors: SEVEN" in text
    assert [line.split()[0] for line in text.splitlines() if line.endswith("FLAGGED")] == ["SEVEN"]


def test_every_table_of_a_game(fed: ServerProcess) -> None:
    data = analyze(fed, "--game", "hilo")
    assert data["table_ids"] == ["biased", *HONEST] and data["rounds"] == 2500


def test_the_analyze_rpc_gives_the_same_numbers(fed: ServerProcess) -> None:
    assert fed.data_dir is not None
    want = live_stats([export_records(fed.data_dir, "biased")])
    got = fed.pricing().Analyze(pb.AnalyzeRequest(table_id="biased"))
    assert got.game == pb.GAME_HILO and got.HasField("live")
    assert list(got.live.table_ids) == ["biased"] and got.live.rounds == 500
    assert got.live.void_rounds == BIASED.voids
    for wire in got.live.bets:
        stats = want.bets[wire.bet]
        assert Fraction(wire.expected.exact) == stats.expected
        assert Fraction(wire.returned.exact) == stats.returned
        assert (wire.stakes, wire.wins, wire.flagged) == (stats.stakes, stats.wins, stats.flagged)
        assert wire.standard_error == stats.standard_error
        assert wire.HasField("certified")
    assert [b.bet for b in got.live.bets if b.flagged] == ["SEVEN"]
    assert want.first_at is not None and want.last_at is not None
    # The round times are Timestamps on the wire, to the microsecond of the journal's.
    assert seconds(got.live.first_at) == pytest.approx(want.first_at, abs=1e-6)
    assert seconds(got.live.last_at) == pytest.approx(want.last_at, abs=1e-6)
    later = fed.pricing().Analyze(
        pb.AnalyzeRequest(table_id="biased", since=timestamp(want.last_at + 1))
    )
    assert not later.live.HasField("first_at") and not later.live.HasField("last_at")
    assert later.live.rounds == 0 and not any(b.flagged for b in later.live.bets)


@pytest.mark.parametrize(
    ("request_", "code", "words"),
    [
        (pb.AnalyzeRequest(table_id="nope"), grpc.StatusCode.NOT_FOUND, "no table 'nope'"),
        (
            pb.AnalyzeRequest(table_id="biased", game=pb.GAME_GOA_GAE),
            grpc.StatusCode.INVALID_ARGUMENT,
            "is a GAME_HILO table, not GAME_GOA_GAE",
        ),
        (
            pb.AnalyzeRequest(table_id="biased", shoes=10),
            grpc.StatusCode.INVALID_ARGUMENT,
            "shoes are for the theoretical report",
        ),
        (
            pb.AnalyzeRequest(table_id="biased", decks=2),
            grpc.StatusCode.INVALID_ARGUMENT,
            "decks are for the theoretical report",
        ),
        (
            pb.AnalyzeRequest(table_id="biased", side_bet="PAIRS", dealer_rule=pb.DEALER_RULE_H17),
            grpc.StatusCode.INVALID_ARGUMENT,
            "side_bet, dealer_rule are for the theoretical report",
        ),
        (
            pb.AnalyzeRequest(table_id="biased", since=timestamp(20), until=timestamp(10)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "until 1970-01-01T00:00:10Z is not after since 1970-01-01T00:00:20Z",
        ),
        (  # a Timestamp protobuf's own rules refuse: not INTERNAL
            pb.AnalyzeRequest(table_id="biased", since=Timestamp(seconds=1, nanos=-5)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "since is not a valid time",
        ),
        (
            pb.AnalyzeRequest(table_id="biased", until=Timestamp(seconds=2**40)),
            grpc.StatusCode.INVALID_ARGUMENT,
            "until is not a valid time",
        ),
    ],
)
def test_bad_live_requests(
    fed: ServerProcess, request_: pb.AnalyzeRequest, code: grpc.StatusCode, words: str
) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        fed.pricing().Analyze(request_)
    assert caught.value.code() == code and words in caught.value.details()


def test_bad_command_lines(fed: ServerProcess, capsys: pytest.CaptureFixture[str]) -> None:
    assert fed.data_dir is not None
    where = ["--data-dir", str(fed.data_dir)]
    assert main(["analyze", "--table", "nope", *where]) == 1
    assert "no table 'nope'" in capsys.readouterr().err
    assert main(["analyze", "hilo", "--table", "biased", *where]) == 2
    assert "leave out the game argument" in capsys.readouterr().err
    assert main(["analyze", "--table", "biased", "--since", "soon", *where]) == 2
    assert "not a time: 'soon'" in capsys.readouterr().err
    assert main(["analyze", "--game", "hilo", "--since", "20", "--until", "10", *where]) == 2
    assert "--until 10 is not after --since 20" in capsys.readouterr().err
    assert main(["analyze"]) == 2
    assert "analyze needs a game" in capsys.readouterr().err
