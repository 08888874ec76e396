"""SettlePosition end to end (docs/rules.md §6.3): a Higher/Lower table fed through a real
server, positions ridden over its rounds, checked leg by leg against the reference
(``tests/support/reference/position_ref.py``) on the prices the table published; the refusals name
the leg and field at fault; the Python clients and ``pricing settle-position`` answer alike."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import grpc
import pytest
from google.rpc import error_details_pb2

from pricing.client import AsyncPricingClient, PricingClient
from pricing.v1 import pricing_pb2 as pb
from tests.service.test_cli_e2e import run
from tests.service.test_rich_errors import detail, raw_status
from tests.support.reference.position_ref import RefLeg, RefPosition, ride
from tests.support.server import ServerProcess
from tests.support.wire import Feed, expect_error

pytestmark = pytest.mark.timeout(120)

S = pb.SettleResponse
STATUS = {"WIN": S.STATUS_WIN, "LOSE": S.STATUS_LOSE, "VOID": S.STATUS_VOID}
STATUS["PENDING"] = S.STATUS_PENDING
BURNS = ("2C", "3C", "4C")


@dataclass(frozen=True)
class Played:
    """A fed table: the version each round was open for betting at, and its prices then."""

    table_id: str
    opened: dict[int, int]  # round → version
    prices: dict[int, dict[str, int]]  # round → bet → payout_hundredths


def play(server: ServerProcess, table_id: str, cap: int) -> Played:
    """Base 7S; round 1 → 9H (HIGHER won, LOWER lost); round 2 → 4D (LOWER won); round 3
    voided; round 4 → KC (HIGHER won); round 5 open (pending). Three burns before each result."""
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_HIGHER_LOWER, higher_lower=pb.HigherLowerRules(
        max_position_payout_cents=cap))  # fmt: skip
    opened, prices = {}, {}

    def betting(state: pb.TableState) -> None:
        assert state.phase == pb.PHASE_BETTING
        opened[state.round_id] = state.version
        prices[state.round_id] = {p.bet: p.payout_hundredths for p in state.prices if p.open}

    betting(feed.expose("7S", pb.CARD_ROLE_RESULT))
    for result in ("9H", "4D", None, "KC"):
        if result is None:
            betting(feed.void())
            continue
        for burn in BURNS:
            feed.expose(burn, pb.CARD_ROLE_BURN)
        betting(feed.expose(result, pb.CARD_ROLE_RESULT))
    assert sorted(opened) == [1, 2, 3, 4, 5]
    return Played(table_id, opened, prices)


def leg(played: Played, round_id: int, bet: str, collect: int = 0) -> pb.PositionLeg:
    return pb.PositionLeg(
        round_id=round_id, version=played.opened[round_id], bet=bet, collect_cents=collect
    )


def position(server: ServerProcess, played: Played, stake: int, *legs: pb.PositionLeg) -> S:
    request = pb.SettlePositionRequest(table_id=played.table_id, stake_cents=stake, legs=legs)
    return server.pricing().SettlePosition(request)  # type: ignore[no-any-return]


def expected(
    played: Played, stake: int, cap: int, legs: list[tuple[int, str, str, int]]
) -> RefPosition:
    """The reference's position: each (round, bet, outcome, collect) at its round's price."""
    ref = [RefLeg(status, played.prices[r][bet], collect) for r, bet, status, collect in legs]
    answer = ride(stake, cap, ref)
    assert isinstance(answer, RefPosition), answer
    return answer


def assert_same(answer: pb.SettlePositionResponse, ref: RefPosition) -> None:
    rows = [
        (leg.status, leg.stake_cents, leg.value_cents, leg.capped, leg.collected_cents,
         leg.riding_cents)
        for leg in answer.legs
    ]  # fmt: skip
    assert rows == [
        (STATUS[r.status], r.stake, r.value, r.capped, r.collected, r.riding) for r in ref.rows
    ]
    assert (answer.status, answer.collected_cents, answer.riding_cents) == (
        STATUS[ref.status],
        ref.collected,
        ref.riding,
    )


@pytest.fixture(scope="module")
def uncapped(server: ServerProcess) -> Played:
    return play(server, "positions-uncapped", 0)


def test_a_position_rides_leg_by_leg_with_a_collect_a_void_and_a_pending_leg(
    server: ServerProcess, uncapped: Played
) -> None:
    legs = [(1, "HIGHER", "WIN", 300), (2, "LOWER", "WIN", 0), (3, "RED", "VOID", 50)]
    legs.append((4, "HIGHER", "WIN", 0))
    legs.append((5, "HIGHER", "PENDING", 0))
    wire = [leg(uncapped, r, bet, collect) for r, bet, _, collect in legs]
    answer = position(server, uncapped, 1001, *wire)
    ref = expected(uncapped, 1001, 0, legs)
    assert_same(answer, ref)
    assert answer.status == S.STATUS_PENDING and answer.stake_cents == 1001
    assert [leg.payout_hundredths for leg in answer.legs] == [
        uncapped.prices[r][bet] for r, bet, _, _ in legs
    ]
    assert [list(leg.result_cards) for leg in answer.legs] == [
        ["7S", "9H"], ["9H", "4D"], [], ["4D", "KC"], []
    ]  # fmt: skip
    # The first leg is the bet Settle settles: the same value, at the same price.
    alone = server.pricing().Settle(
        pb.SettleRequest(
            table_id=uncapped.table_id, round_id=1, version=wire[0].version, bet="higher",
            stake_cents=1001,
        )
    )  # fmt: skip
    assert answer.legs[0].value_cents == alone.returned_cents > 1001
    # Legs after a pending one are not read: one more on a later round changes nothing.
    later = position(server, uncapped, 1001, *wire, pb.PositionLeg(round_id=9, version=1, bet="X"))
    assert later == answer


def test_a_lost_leg_ends_the_position(server: ServerProcess, uncapped: Played) -> None:
    answer = position(
        server, uncapped, 1000, leg(uncapped, 1, "HIGHER", 500), leg(uncapped, 2, "HIGHER")
    )
    assert_same(
        answer, expected(uncapped, 1000, 0, [(1, "HIGHER", "WIN", 500), (2, "HIGHER", "LOSE", 0)])
    )
    assert (answer.status, answer.riding_cents, answer.legs[1].value_cents) == (S.STATUS_LOSE, 0, 0)
    assert answer.collected_cents == 500  # taken out before the loss: kept
    expect_error(
        lambda: position(
            server, uncapped, 1000, leg(uncapped, 1, "LOWER"), leg(uncapped, 2, "LOWER")
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "legs[1] (round 2) follows a lost leg",
        "legs[0] lost on round 1",
    )


def test_an_all_void_position_is_void(server: ServerProcess, uncapped: Played) -> None:
    answer = position(server, uncapped, 777, leg(uncapped, 3, "SNAP", 77))
    assert (answer.status, answer.collected_cents, answer.riding_cents) == (S.STATUS_VOID, 77, 700)
    assert (answer.legs[0].value_cents, answer.legs[0].capped) == (777, False)


def test_the_cap_cuts_the_value_and_collects_the_position(
    server: ServerProcess, uncapped: Played
) -> None:
    legs = [(1, "HIGHER", "WIN", 0), (2, "LOWER", "WIN", 0)]
    free = expected(uncapped, 1000, 0, legs)
    cap = free.rows[1].value - 1  # the second win would pass it
    capped = play(server, "positions-capped", cap)
    assert capped.prices == uncapped.prices  # the same feed: the same prices
    answer = position(server, capped, 1000, *[leg(capped, r, b, c) for r, b, _, c in legs])
    ref = expected(capped, 1000, cap, legs)
    assert_same(answer, ref)
    assert [leg.capped for leg in answer.legs] == [False, True]
    assert answer.legs[1].value_cents == cap
    assert (answer.collected_cents, answer.riding_cents) == (cap, 0)
    # a capped position rides no further
    expect_error(
        lambda: position(
            server,
            capped,
            1000,
            *[leg(capped, r, b, c) for r, b, _, c in legs],
            leg(capped, 4, "HIGHER", 100),
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "legs[2] (round 4) follows a capped leg",
        f"cap of {cap} cents",
    )
    expect_error(
        lambda: position(server, capped, cap + 1, leg(capped, 1, "HIGHER")),
        grpc.StatusCode.INVALID_ARGUMENT,
        f"stake_cents {cap + 1}",
        f"max_position_payout_cents {cap}",
    )


def field_of(err: grpc.RpcError) -> str:
    request = detail(raw_status(err), error_details_pb2.BadRequest)
    (violation,) = request.field_violations
    return str(violation.field)


@pytest.mark.parametrize(
    ("legs", "stake", "field", "fragments"),
    [
        ([(1, "HIGHER", 100_000)], 1000, "legs[0].collect_cents", ["100000", "value after leg 0"]),
        ([(1, "LOWER", 1)], 1000, "legs[0].collect_cents", ["must be 0", "leg 0 lost"]),
        ([(5, "HIGHER", 1)], 1000, "legs[0].collect_cents", ["must be 0", "leg 0 is pending"]),
        ([(2, "LOWER", 0), (1, "HIGHER", 0)], 1000, "legs[1].round_id", ["legs[1].round_id 1"]),
        ([], 1000, "legs", ["legs must be 1 to 1000, got 0"]),
        ([(1, "PURPLE", 0)], 1000, "legs[0].bet", ["legs[0]", "PURPLE"]),
        ([(1, "h\u0131gher", 0)], 1000, "legs[0].bet", ["legs[0].bet"]),
        ([(1, "HIGHER", 0)], 0, "stake_cents", ["stake_cents", "got 0"]),
    ],
)
def test_a_malformed_position_is_invalid_naming_the_field(
    server: ServerProcess,
    uncapped: Played,
    *,
    legs: list[tuple[int, str, int]],
    stake: int,
    field: str,
    fragments: list[str],
) -> None:
    wire = [leg(uncapped, r, bet, collect) for r, bet, collect in legs]
    err = expect_error(
        lambda: position(server, uncapped, stake, *wire),
        grpc.StatusCode.INVALID_ARGUMENT,
        *fragments,
    )
    assert field_of(err) == field


def test_too_many_legs_and_stale_legs(server: ServerProcess, uncapped: Played) -> None:
    void = [pb.PositionLeg(round_id=r, version=1, bet="HIGHER") for r in range(1, 1002)]
    err = expect_error(
        lambda: position(server, uncapped, 10, *void), grpc.StatusCode.INVALID_ARGUMENT, "got 1001"
    )
    assert field_of(err) == "legs"
    closed = pb.PositionLeg(round_id=2, version=uncapped.opened[2] + 1, bet="HIGHER")
    expect_error(
        lambda: position(server, uncapped, 10, leg(uncapped, 1, "HIGHER"), closed),
        grpc.StatusCode.FAILED_PRECONDITION,
        "legs[1]: ",
        "no round was open for betting",
    )
    ahead = pb.PositionLeg(round_id=5, version=10**6, bet="HIGHER")
    expect_error(
        lambda: position(server, uncapped, 10, ahead),
        grpc.StatusCode.FAILED_PRECONDITION,
        "legs[0]: version 1000000",
    )
    expect_error(
        lambda: server.pricing().SettlePosition(
            pb.SettlePositionRequest(table_id="ghost", stake_cents=1, legs=[ahead])
        ),
        grpc.StatusCode.NOT_FOUND,
        "ghost",
    )


def test_the_clients_and_the_command_line_settle_positions(
    server: ServerProcess, uncapped: Played
) -> None:
    wire = [leg(uncapped, 1, "HIGHER", 300), leg(uncapped, 2, "LOWER")]
    direct = position(server, uncapped, 1000, *wire)
    with PricingClient(server.target) as client:
        assert client.settle_position(uncapped.table_id, 1000, wire) == direct

    async def asynchronously() -> S:
        async with AsyncPricingClient(server.target) as client:
            return await client.settle_position(uncapped.table_id, 1000, wire)

    assert asyncio.run(asynchronously()) == direct
    legs = [f"{w.round_id}:{w.version}:{w.bet.lower()}:{w.collect_cents}" for w in wire]
    argv = [
        "settle-position",
        uncapped.table_id,
        "--stake-cents",
        "1000",
        "--server",
        server.target,
    ]
    code, text = run(*argv, "--leg", legs[0], "--leg", legs[1])
    assert code == 0, text
    assert text.startswith(
        f"WIN: stake 1000 cents -> collected 300 cents, riding {direct.riding_cents}"
    )
    assert "  leg 1: WIN at " in text and "(result 9H 4D)" in text
    code, text = run(*argv, "--leg", legs[0], "--leg", legs[1], "--json")
    assert code == 0 and json.loads(text)["riding_cents"] == str(direct.riding_cents)


def test_a_long_position_is_settled_in_steps_as_a_short_one_would_be(
    server: ServerProcess,
) -> None:
    """Over 50 legs the server settles a position a step at a time (the feed let in between):
    the answer is leg for leg what the same legs give one by one, and a refusal deep in the
    legs still names its leg."""
    feed = Feed(server, "long-position")
    feed.open(game=pb.GAME_HIGHER_LOWER)
    opened = [feed.expose("7S", pb.CARD_ROLE_RESULT).version]
    for _ in range(130):
        opened.append(feed.void().version)
    legs = [pb.PositionLeg(round_id=r + 1, version=v, bet="HIGHER") for r, v in enumerate(opened)]
    request = pb.SettlePositionRequest(table_id="long-position", stake_cents=700, legs=legs)
    answer = server.pricing().SettlePosition(request, timeout=30)
    assert answer.status == S.STATUS_PENDING and len(answer.legs) == 131
    assert [leg.status for leg in answer.legs] == [S.STATUS_VOID] * 130 + [S.STATUS_PENDING]
    assert all(leg.value_cents == 700 == leg.riding_cents for leg in answer.legs)
    for start in range(0, 131, 50):  # the same legs, 50 at a time: the path without steps
        short = pb.SettlePositionRequest(
            table_id="long-position", stake_cents=700, legs=legs[start : start + 50]
        )
        assert list(server.pricing().SettlePosition(short).legs) == list(
            answer.legs[start : start + 50]
        )
    legs[97].bet = "PURPLE"
    bad = pb.SettlePositionRequest(table_id="long-position", stake_cents=700, legs=legs)
    error = expect_error(
        lambda: server.pricing().SettlePosition(bad), grpc.StatusCode.INVALID_ARGUMENT
    )
    assert "legs[97]" in (error.details() or "")
