"""End to end: the real server process, driven only through gRPC and HTTP (docs/rules.md §5).

One server serves the whole module; each test has its own table ids.
"""

from __future__ import annotations

import functools
import itertools
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from pricing.cards import DECK, parse_card
from pricing.games import hilo
from pricing.games.events import CardRole, EndRound, ExposeCard, NewShoe, VoidRound
from pricing.server.service import status_code
from pricing.tables import Game, OpenTable, Table, TableConfig
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from pricing.v1.enums import enum_number
from pricing.wire import snapshot_to_proto
from tests.support.server import ServerProcess, Watcher
from tests.support.wire import Feed, engine_prices, expect_error, metric, wait_for, wire_prices

pytestmark = pytest.mark.timeout(120)

BURNS = ["2S", "3S", "4S", "5S", "6S"]


def expected_prices(exposed: Sequence[str], betting: bool) -> list[tuple[Any, ...]]:
    return engine_prices(hilo.quote(exposed), betting)


def shuffled_deck(seed: int) -> list[str]:
    cards = [str(c) for c in DECK]
    random.Random(seed).shuffle(cards)
    return cards


def deck_events(feed: Feed, cards: list[str]) -> list[Callable[[], pb.TableState]]:
    """The 15 exposures of one Hi-Lo deck: 5 opening burns, then 10 results."""
    roles = [pb.CARD_ROLE_BURN] * 5 + [pb.CARD_ROLE_RESULT] * 10
    return [
        (lambda c=c, r=r: feed.expose(c, r))  # type: ignore[misc]
        for c, r in zip(cards, roles, strict=False)
    ]


# ---------------------------------------------------------------------------------------------
# A full deck, streamed


def test_full_deck_streams_every_version_in_order_at_engine_prices(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    opened = feed.open()
    assert (opened.version, opened.last_seq, opened.phase) == (1, 0, pb.PHASE_OPENING)
    watcher = Watcher(server.pricing(), table_id)
    first = watcher.next()
    assert first == opened  # the current state comes first

    cards = shuffled_deck(2026)
    exposed: list[str] = []
    for step, event in enumerate(deck_events(feed, cards), start=1):
        response = event()
        exposed.append(cards[step - 1])
        streamed = watcher.next()  # lock-step: this version must arrive before the next card
        assert streamed == response
        assert streamed.version == step + 1 and streamed.last_seq == step
        assert list(streamed.exposed) == exposed
        assert streamed.cards_remaining == 52 - step
        betting = streamed.phase == pb.PHASE_BETTING
        assert betting == (5 <= step < 15)
        assert wire_prices(streamed) == expected_prices(exposed, betting)
        if step > 5:  # a result ended the round before it
            assert streamed.ended_round.round_id == step - 5
            assert streamed.ended_round.result_card == cards[step - 1]
            assert not streamed.ended_round.void

    last = watcher.received[-1]
    assert (last.phase, last.result_index, last.version) == (pb.PHASE_SHOE_COMPLETE, 10, 16)
    expect_error(lambda: feed.expose(cards[15]), grpc.StatusCode.FAILED_PRECONDITION, "new shoe")
    feed.seq -= 1

    fresh = feed.new_shoe()
    assert (fresh.shoe, fresh.phase, list(fresh.exposed)) == (2, pb.PHASE_OPENING, [])
    assert watcher.next() == fresh
    closed = feed.close()
    assert closed.phase == pb.PHASE_CLOSED
    assert watcher.next() == closed
    assert watcher.end() == grpc.StatusCode.OK  # the stream ends with OK when the table closes


def test_watch_from_version_skips_older_states(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open()
    watcher = Watcher(server.pricing(), table_id, from_version=3)
    state = feed.expose("2S")  # version 2: below from_version, not sent
    assert state.version == 2
    feed.expose("3S")
    assert watcher.next().version == 3


def test_watch_from_a_version_past_the_close_ends_with_the_final_state(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open()
    watchers_before = metric(server, "pricing_watchers")
    watcher = Watcher(server.pricing(), table_id, from_version=10)
    wait_for(lambda: metric(server, "pricing_watchers") == watchers_before + 1)  # subscribed
    closed = feed.close()  # version 2, below from_version: still the last state there will be
    assert (closed.version, closed.phase) == (2, pb.PHASE_CLOSED)
    assert watcher.next(timeout=5) == closed
    assert watcher.end(timeout=5) == grpc.StatusCode.OK
    wait_for(lambda: metric(server, "pricing_watchers") == watchers_before)


def test_watch_of_a_closed_table_sends_its_final_state_then_ends(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open()
    feed.expose("2S")
    closed = feed.close()
    for from_version in (0, closed.version, closed.version + 7):
        watcher = Watcher(server.pricing(), table_id, from_version=from_version)
        assert watcher.next(timeout=5) == closed, from_version
        assert watcher.end(timeout=5) == grpc.StatusCode.OK, from_version


# ---------------------------------------------------------------------------------------------
# Voids


def test_voided_round_refunds_and_reopens_on_new_prices(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open()
    watcher = Watcher(server.pricing(), table_id)
    watcher.next()
    for card in BURNS:
        feed.expose(card)
    before = watcher.until(6)
    assert (before.phase, before.round_id, before.result_index) == (pb.PHASE_BETTING, 1, 1)

    voided = feed.void()
    assert watcher.next() == voided
    assert (voided.round_id, voided.result_index, voided.phase) == (2, 1, pb.PHASE_BETTING)
    assert voided.ended_round == pb.RoundResult(round_id=1, result_index=1, void=True)
    assert list(voided.exposed) == BURNS and wire_prices(voided) == wire_prices(before)

    # docs/rules.md §1: a card exposed during betting voids the round; the deck continues.
    burnt = feed.expose("KD", pb.CARD_ROLE_BURN)
    assert watcher.next() == burnt
    assert (burnt.round_id, burnt.result_index) == (3, 1)
    assert burnt.ended_round.void and burnt.ended_round.round_id == 2
    assert wire_prices(burnt) == expected_prices([*BURNS, "KD"], betting=True)

    settle = server.pricing().Settle
    for round_id, version in ((1, 6), (2, 7)):
        result = settle(
            pb.SettleRequest(
                table_id=table_id, round_id=round_id, version=version, bet="HIGH", stake_cents=500
            )
        )
        assert (result.status, result.returned_cents) == (pb.SettleResponse.STATUS_VOID, 500)


# ---------------------------------------------------------------------------------------------
# Settlement


def test_settlement_win_lose_void_pending_and_stale(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open()
    for card in BURNS:
        state = feed.expose(card)
    version, round_id = state.version, state.round_id
    payout = {p.bet: p.payout_hundredths for p in state.prices}
    settle = server.pricing().Settle

    def bet(bet: str, stake: int, *, r: int = round_id, v: int = version) -> pb.SettleResponse:
        return settle(
            pb.SettleRequest(table_id=table_id, round_id=r, version=v, bet=bet, stake_cents=stake)
        )

    pending = bet("HIGH", 333)
    assert (pending.status, pending.returned_cents) == (pb.SettleResponse.STATUS_PENDING, 0)
    assert pending.payout_hundredths == payout["HIGH"]

    feed.expose("KH", pb.CARD_ROLE_RESULT)  # K: HIGH and ODD win, LOW, EVEN and SEVEN lose
    win = bet("HIGH", 333)
    assert win.status == pb.SettleResponse.STATUS_WIN and win.result_card == "KH"
    assert win.returned_cents == 333 + 333 * payout["HIGH"] // 100  # integer floor of profit
    assert bet("odd", 1000).returned_cents == 1000 + 10 * payout["ODD"]
    for losing in ("LOW", "EVEN", "SEVEN"):
        lost = bet(losing, 1000)
        assert (lost.status, lost.returned_cents, lost.result_card) == (
            pb.SettleResponse.STATUS_LOSE,
            0,
            "KH",
        )

    # Round 2 opened at version 7 on new prices; it is voided.
    feed.void()
    void = bet("LOW", 250, r=2, v=7)
    assert (void.status, void.returned_cents) == (pb.SettleResponse.STATUS_VOID, 250)

    # Stale or impossible bets: FAILED_PRECONDITION naming round, version and bet.
    expect_error(
        lambda: bet("HIGH", 100, r=1, v=7),
        grpc.StatusCode.FAILED_PRECONDITION,
        "round 1",
        "version 7",
        "HIGH",
    )
    expect_error(
        lambda: bet("HIGH", 100, r=1, v=3), grpc.StatusCode.FAILED_PRECONDITION, "version 3"
    )
    expect_error(lambda: bet("HIGH", 100, r=9, v=999), grpc.StatusCode.FAILED_PRECONDITION, "999")
    expect_error(lambda: bet("PURPLE", 100), grpc.StatusCode.INVALID_ARGUMENT, "PURPLE")
    expect_error(lambda: bet("HIGH", 0), grpc.StatusCode.INVALID_ARGUMENT, "stake")
    expect_error(
        lambda: settle(
            pb.SettleRequest(table_id="nope", round_id=1, version=1, bet="HIGH", stake_cents=1)
        ),
        grpc.StatusCode.NOT_FOUND,
        "nope",
    )


def test_settling_a_bet_that_was_closed_is_refused(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open()
    for card in ["7S", "7H", "7D", "7C", "2S"]:
        state = feed.expose(card)
    seven = {p.bet: p for p in state.prices}["SEVEN"]
    assert (seven.wins, seven.open) == (0, False)
    expect_error(
        lambda: server.pricing().Settle(
            pb.SettleRequest(
                table_id=table_id, round_id=1, version=state.version, bet="SEVEN", stake_cents=100
            )
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "SEVEN",
        "closed",
    )


# ---------------------------------------------------------------------------------------------
# Slow and fast watchers


def play_decks(feed: Feed, decks: int, seed: int) -> list[Callable[[], pb.TableState]]:
    events: list[Callable[[], pb.TableState]] = []
    for d in range(decks):
        events += deck_events(feed, shuffled_deck(seed + d))
        events.append(feed.new_shoe)
    return events


@pytest.mark.serial
def test_slow_watcher_is_conflated_and_never_holds_up_a_fast_one(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open()
    watchers_before = metric(server, "pricing_watchers")
    # The slow game server never reads: its own connection, without BDP window growth, so the
    # HTTP/2 flow-control window fills after a few dozen states.
    slow_channel = server.channel(options=[("grpc.http2.bdp_probe", 0)])
    slow = pb_grpc.PricingServiceStub(slow_channel).WatchTable(
        pb.WatchTableRequest(table_id=table_id)
    )
    fast = Watcher(server.pricing(), table_id)
    assert fast.next().version == 1
    wait_for(lambda: metric(server, "pricing_watchers") == watchers_before + 2)
    conflated_before = metric(server, "pricing_conflated_total")

    # Phase 1, lock-step: the fast watcher must get every version, promptly.
    delays = []
    for event in play_decks(feed, 20, seed=100):
        response = event()
        t0 = time.perf_counter()
        assert fast.next(timeout=5) == response
        delays.append(time.perf_counter() - t0)
    delays.sort()
    assert len(delays) == 20 * 16
    assert delays[len(delays) * 99 // 100] < 0.25, delays[-10:]

    # Phase 2, flat out: thousands of versions while the slow watcher still reads nothing.
    rss_before = server.rss_bytes()
    for event in play_decks(feed, 150, seed=1000):
        last = event()
    rss_growth = server.rss_bytes() - rss_before
    newest = last.version
    assert fast.until(newest, timeout=20).version == newest
    versions = [s.version for s in fast.received]
    assert versions == sorted(set(versions))  # never reordered, never repeated

    conflated = metric(server, "pricing_conflated_total") - conflated_before
    # The slow watcher's slot was overwritten, not queued: of the 2,400 states, the 900 or so
    # that end no round were skipped (the 1,500 round results are held by the table, not by it).
    assert conflated > 600
    # The journal grows by a few hundred bytes an event; a queue per slow watcher would not be
    # bounded at all. Here: 2,400 events, a few MB at most.
    assert rss_growth < 16 * 2**20, rss_growth

    # When the slow watcher finally reads, it gets what its connection buffered: increasing
    # versions, far fewer than were published. It fell more round results behind than the
    # table holds (1,500 rounds, 64 held), so its stream then ends, saying where to resume;
    # from there it is sent the round results still held, then the newest state.
    seen = []
    with pytest.raises(grpc.RpcError) as ended:
        for state in slow:
            seen.append(state.version)
    assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = ended.value.details()
    assert "the limit --max-round-backlog is 64" in details, details
    assert f"resume with from_version {seen[-1] + 1}," in details, details
    assert seen == sorted(set(seen)) and len(seen) < (newest - 1) / 2, len(seen)
    resumed = Watcher(server.pricing(), table_id, from_version=seen[-1] + 1)
    assert resumed.until(newest).version == newest
    assert [s.HasField("ended_round") for s in resumed.received] == [True] * 64 + [False]
    assert resumed.received[0].version > seen[-1]
    resumed.cancel()
    fast.cancel()
    wait_for(lambda: metric(server, "pricing_watchers") == watchers_before)  # both let go


# ---------------------------------------------------------------------------------------------
# The idempotent feed


def test_seq_duplicate_conflict_and_gap(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open()
    after_first = feed.expose("AS")
    feed.expose("KS")
    get = server.pricing().GetTable
    now = get(pb.GetTableRequest(table_id=table_id))

    # A retry of seq 1 with the same card: the state as of that event, nothing removed twice.
    retry = feed.stub.ExposeCard(
        pb.ExposeCardRequest(table_id=table_id, seq=1, card="as", role=pb.CARD_ROLE_BURN)
    )
    assert retry == after_first
    assert get(pb.GetTableRequest(table_id=table_id)) == now

    expect_error(
        lambda: feed.stub.ExposeCard(
            pb.ExposeCardRequest(table_id=table_id, seq=1, card="QH", role=pb.CARD_ROLE_BURN)
        ),
        grpc.StatusCode.ALREADY_EXISTS,
        "seq 1",
        "AS",
        "QH",
    )
    expect_error(
        lambda: feed.stub.VoidRound(pb.VoidRoundRequest(table_id=table_id, seq=2)),
        grpc.StatusCode.ALREADY_EXISTS,
        "seq 2",
    )
    expect_error(
        lambda: feed.stub.ExposeCard(
            pb.ExposeCardRequest(table_id=table_id, seq=5, card="QH", role=pb.CARD_ROLE_BURN)
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "expected seq 3",
    )
    assert get(pb.GetTableRequest(table_id=table_id)) == now
    assert feed.expose("QH").version == now.version + 1  # seq 3 is still next


# ---------------------------------------------------------------------------------------------
# Every error row: its status code, and the state unchanged


def _opened_hilo(feed: Feed, burns: int) -> None:
    feed.open()
    for card in BURNS[:burns]:
        feed.expose(card)


def _closed(feed: Feed) -> None:
    _opened_hilo(feed, 1)
    feed.close()


def _complete_deck(feed: Feed) -> None:
    feed.open()
    for event in deck_events(feed, shuffled_deck(7)):
        event()


ERROR_ROWS: list[tuple[str, Callable[[Feed], None], str, grpc.StatusCode, tuple[str, ...]]] = [
    (
        "unparseable card",
        lambda f: _opened_hilo(f, 2),
        "expose:1H:BURN",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("'1H'",),
    ),
    (
        "no role",
        lambda f: _opened_hilo(f, 2),
        "expose:9H:UNSPECIFIED",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("role",),
    ),
    (
        "blackjack role in Hi-Lo",
        lambda f: _opened_hilo(f, 2),
        "expose:9H:PLAYER",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("PLAYER",),
    ),
    (
        "card no longer in the deck",
        lambda f: _opened_hilo(f, 5),
        "expose:3S:RESULT",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("3S",),
    ),
    (
        "result outside betting",
        lambda f: _opened_hilo(f, 2),
        "expose:9H:RESULT",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("9H", "OPENING"),
    ),
    (
        "anything after shoe complete",
        _complete_deck,
        "void",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("SHOE_COMPLETE",),
    ),
    (
        "card after shoe complete",
        _complete_deck,
        "expose:AH:BURN",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("new shoe",),
    ),
    (
        "void outside betting",
        lambda f: _opened_hilo(f, 1),
        "void",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("OPENING",),
    ),
    (
        "end round in Hi-Lo",
        lambda f: _opened_hilo(f, 5),
        "end",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("EndRound",),
    ),
    ("seq zero", lambda f: _opened_hilo(f, 0), "seq0", grpc.StatusCode.INVALID_ARGUMENT, ("seq",)),
    (
        "after close",
        _closed,
        "expose:9H:BURN",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("closed",),
    ),
    (
        "other config",
        lambda f: _opened_hilo(f, 1),
        "reopen:seven",
        grpc.StatusCode.ALREADY_EXISTS,
        ("already exists",),
    ),
    (
        "other decks",
        lambda f: _opened_hilo(f, 1),
        "reopen:decks",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("decks 2",),
    ),
    # Settle (the table stands at version 6, round 1 open for betting)
    (
        "settle stake beyond uint64's reach",
        lambda f: _opened_hilo(f, 5),
        f"settle:1:6:HIGH:{2**64 - 1}",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("stake_cents", str(2**64 - 1)),
    ),
    (
        "settle stake above the maximum",
        lambda f: _opened_hilo(f, 5),
        f"settle:1:6:HIGH:{10**12 + 1}",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("stake_cents", str(10**12 + 1)),
    ),
    (
        "settle stake zero",
        lambda f: _opened_hilo(f, 5),
        "settle:1:6:HIGH:0",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("stake_cents", "got 0"),
    ),
    (
        "settle version zero",
        lambda f: _opened_hilo(f, 5),
        "settle:1:0:HIGH:100",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("version", "got 0"),
    ),
    (
        "settle future version",
        lambda f: _opened_hilo(f, 5),
        "settle:1:99:HIGH:100",
        grpc.StatusCode.FAILED_PRECONDITION,
        ("version 99", "does not exist yet"),
    ),
    (
        "settle round zero",
        lambda f: _opened_hilo(f, 5),
        "settle:0:6:HIGH:100",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("round_id", "got 0"),
    ),
    (
        "settle unknown bet",
        lambda f: _opened_hilo(f, 5),
        "settle:1:6:PURPLE:100",
        grpc.StatusCode.INVALID_ARGUMENT,
        ("'PURPLE'",),
    ),
]


def _send(feed: Feed, action: str) -> object:
    stub, tid = feed.stub, feed.table_id
    seq = feed.seq + 1
    kind, _, arg = action.partition(":")
    if kind == "expose":
        card, role = arg.split(":")
        return stub.ExposeCard(
            pb.ExposeCardRequest(
                table_id=tid, seq=seq, card=card, role=enum_number(pb.CardRole, role)
            )
        )
    if kind == "void":
        return stub.VoidRound(pb.VoidRoundRequest(table_id=tid, seq=seq))
    if kind == "end":
        return stub.EndRound(pb.EndRoundRequest(table_id=tid, seq=seq))
    if kind == "settle":
        round_id, version, bet, stake = arg.split(":")
        return feed.server.pricing().Settle(
            pb.SettleRequest(
                table_id=tid,
                round_id=int(round_id),
                version=int(version),
                bet=bet,
                stake_cents=int(stake),
            )
        )
    if kind == "seq0":
        return stub.VoidRound(pb.VoidRoundRequest(table_id=tid, seq=0))
    if arg == "seven":
        rules = pb.HiLoRules(seven=pb.PayRule(rtp_bp=9000, min_hundredths=100, max_hundredths=5000))
        return stub.OpenTable(pb.OpenTableRequest(table_id=tid, game=pb.GAME_HILO, hilo=rules))
    return stub.OpenTable(pb.OpenTableRequest(table_id=tid, game=pb.GAME_HILO, decks=2))


@pytest.mark.parametrize(
    ("setup", "action", "code", "fragments"),
    [row[1:] for row in ERROR_ROWS],
    ids=[row[0] for row in ERROR_ROWS],
)
def test_rejected_request_has_its_code_and_changes_nothing(
    server: ServerProcess,
    table_id: str,
    *,
    setup: Callable[[Feed], None],
    action: str,
    code: grpc.StatusCode,
    fragments: tuple[str, ...],
) -> None:
    feed = Feed(server, table_id)
    setup(feed)
    get = server.pricing().GetTable
    before = get(pb.GetTableRequest(table_id=table_id))
    expect_error(lambda: _send(feed, action), code, *fragments)
    after = get(pb.GetTableRequest(table_id=table_id))
    assert after.SerializeToString() == before.SerializeToString()


def test_open_table_errors_create_nothing(server: ServerProcess, table_id: str) -> None:
    dealer = server.dealer()
    get = server.pricing().GetTable
    bad_rule = pb.HiLoRules(low=pb.PayRule(rtp_bp=0, min_hundredths=1, max_hundredths=2))
    rows = [
        (
            pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO, decks=3),
            grpc.StatusCode.INVALID_ARGUMENT,
            "decks 3",
        ),
        (
            pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HILO, hilo=bad_rule),
            grpc.StatusCode.INVALID_ARGUMENT,
            "rtp_bp",
        ),
        (pb.OpenTableRequest(table_id=table_id), grpc.StatusCode.INVALID_ARGUMENT, "game"),
        (
            pb.OpenTableRequest(table_id="", game=pb.GAME_HILO),
            grpc.StatusCode.INVALID_ARGUMENT,
            "table_id",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id, game=pb.GAME_HILO, blackjack=pb.BlackjackRules()
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "blackjack",
        ),
        (
            pb.OpenTableRequest(table_id=table_id, game=pb.GAME_BLACKJACK, decks=9),
            grpc.StatusCode.INVALID_ARGUMENT,
            "decks 9",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_BLACKJACK,
                blackjack=pb.BlackjackRules(dealer_rule=7),  # type: ignore[arg-type]
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "dealer_rule 7",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_BLACKJACK,
                blackjack=pb.BlackjackRules(shuffle_mode=9),  # type: ignore[arg-type]
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "shuffle_mode 9",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_BLACKJACK,
                blackjack=pb.BlackjackRules(
                    pairs=pb.PairsPaytable(
                        preset=pb.PAIRS_PRESET_ANY_PAIR, payout_hundredths={"PERFECT": 3000}
                    )
                ),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "'PERFECT'",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_BLACKJACK,
                blackjack=pb.BlackjackRules(
                    royal_match=pb.RoyalMatchPaytable(crown_hundredths=50000, crown_enabled=False)
                ),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "crown_enabled",
        ),
        (
            pb.OpenTableRequest(table_id=table_id, game=pb.GAME_GOA_GAE, decks=2),
            grpc.StatusCode.INVALID_ARGUMENT,
            "decks 2",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_GOA_GAE,
                goa_gae=pb.GoaGaeRules(bets={"PAIR": pb.PayRule(rtp_bp=9000)}),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "PAIR",
        ),
        (
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_GOA_GAE,
                goa_gae=pb.GoaGaeRules(bets={"NINE": pb.PayRule(rtp_bp=20000)}),
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "rtp_bp",
        ),
    ]
    for request, code, fragment in rows:
        expect_error(lambda r=request: dealer.OpenTable(r), code, fragment)  # type: ignore[misc]
        expect_error(lambda: get(pb.GetTableRequest(table_id=table_id)), grpc.StatusCode.NOT_FOUND)


def test_same_open_twice_returns_the_table_as_it_is(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    rules = pb.HiLoRules(seven=pb.PayRule(rtp_bp=9000, min_hundredths=100, max_hundredths=5000))
    feed.open(hilo=rules)
    state = feed.expose("2S")
    assert feed.open(hilo=rules) == state
    # Defaults spelt out are the same config as defaults left out.
    other = Feed(server, table_id + "-b")
    other.open()
    assert other.open(decks=1).version == 1


def test_unknown_table_is_not_found_everywhere(server: ServerProcess) -> None:
    dealer, pricing = server.dealer(), server.pricing()
    calls: list[Callable[[], object]] = [
        lambda: pricing.GetTable(pb.GetTableRequest(table_id="ghost")),
        lambda: next(pricing.WatchTable(pb.WatchTableRequest(table_id="ghost"))),
        lambda: dealer.ExposeCard(
            pb.ExposeCardRequest(table_id="ghost", seq=1, card="AS", role=pb.CARD_ROLE_BURN)
        ),
        lambda: dealer.NewShoe(pb.NewShoeRequest(table_id="ghost", seq=1)),
        lambda: dealer.CloseTable(pb.CloseTableRequest(table_id="ghost", seq=1)),
    ]
    for call in calls:
        expect_error(call, grpc.StatusCode.NOT_FOUND, "ghost")


def test_an_empty_table_id_is_an_invalid_argument_everywhere(server: ServerProcess) -> None:
    dealer, pricing = server.dealer(), server.pricing()
    calls: list[Callable[[], object]] = [
        lambda: pricing.GetTable(pb.GetTableRequest(table_id="")),
        lambda: next(pricing.WatchTable(pb.WatchTableRequest(table_id=""))),
        lambda: pricing.Settle(
            pb.SettleRequest(table_id="", round_id=1, version=1, bet="LOW", stake_cents=1)
        ),
        lambda: dealer.OpenTable(pb.OpenTableRequest(table_id="", game=pb.GAME_HILO)),
        lambda: dealer.ExposeCard(pb.ExposeCardRequest(table_id="", seq=1, card="AS", role=1)),
        lambda: dealer.CloseTable(pb.CloseTableRequest(table_id="", seq=1)),
    ]
    for call in calls:
        expect_error(call, grpc.StatusCode.INVALID_ARGUMENT, "table_id must not be empty")


# ---------------------------------------------------------------------------------------------
# Quotes


def test_quote_matches_the_engine_and_rejects_bad_input(server: ServerProcess) -> None:
    quote = server.pricing().Quote
    for seen in ([], ["7H", "KS", "2D"], shuffled_deck(3)[:14]):
        response = quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=seen))
        assert wire_prices(response) == expected_prices(seen, betting=True)
        assert response.cards_remaining == 52 - len(seen)
    rules = pb.HiLoRules(seven=pb.PayRule(rtp_bp=9000, min_hundredths=100, max_hundredths=5000))
    custom = quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=["7H"], hilo=rules))
    paytable = hilo.HiLoPaytable(seven=hilo.PayRule(9000, 100, 5000))
    assert (
        custom.prices[4].payout_hundredths
        == hilo.quote(["7H"], paytable)["SEVEN"].payout_hundredths
    )

    expect_error(
        lambda: quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=["ZZ"])),
        grpc.StatusCode.INVALID_ARGUMENT,
        "'ZZ'",
    )
    expect_error(
        lambda: quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=["AS", "as"])),
        grpc.StatusCode.INVALID_ARGUMENT,
        "AS",
    )
    expect_error(
        lambda: quote(pb.QuoteRequest(game=pb.GAME_HILO, decks=4)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "decks 4",
    )


# ---------------------------------------------------------------------------------------------
# Metrics and reflection


SUB_MS_BUCKETS = ("1e-05", "5e-05", "0.0001", "0.0003", "0.0006", "0.0008", "0.001")


def test_metrics_show_sub_ms_histograms_and_counts_matching_the_calls(
    server: ServerProcess, table_id: str
) -> None:
    pricing = server.pricing()
    q = {"grpc_service": "pricing.v1.PricingService", "grpc_method": "Quote", "grpc_type": "unary"}
    g = {
        "grpc_service": "pricing.v1.PricingService",
        "grpc_method": "GetTable",
        "grpc_type": "unary",
    }
    quotes_ok = metric(server, "grpc_server_handled_total", {**q, "grpc_code": "OK"})
    quotes_started = metric(server, "grpc_server_started_total", q)
    quotes_timed = metric(server, "grpc_server_handling_seconds_count", q)
    missing = metric(server, "grpc_server_handled_total", {**g, "grpc_code": "NotFound"})
    cards = metric(server, "pricing_cards_total", {"game": "HILO", "role": "BURN"})
    computed = metric(server, "pricing_compute_seconds_count", {"game": "HILO"})
    published = metric(server, "pricing_publish_seconds_count")

    for _ in range(7):
        pricing.Quote(pb.QuoteRequest(game=pb.GAME_HILO, exposed=["AS"]))
    for _ in range(3):
        with pytest.raises(grpc.RpcError):
            pricing.GetTable(pb.GetTableRequest(table_id="absent"))
    feed = Feed(server, table_id)
    feed.open()
    for card in BURNS:
        feed.expose(card)

    assert metric(server, "grpc_server_handled_total", {**q, "grpc_code": "OK"}) == quotes_ok + 7
    assert metric(server, "grpc_server_started_total", q) == quotes_started + 7
    assert metric(server, "grpc_server_handling_seconds_count", q) == quotes_timed + 7
    assert (
        metric(server, "grpc_server_handled_total", {**g, "grpc_code": "NotFound"}) == missing + 3
    )
    assert metric(server, "pricing_cards_total", {"game": "HILO", "role": "BURN"}) == cards + 5
    # Per accepted event only: the 7 quotes are not in it (Quote's own time is in
    # grpc_server_handling_seconds{grpc_method="Quote"}).
    assert metric(server, "pricing_compute_seconds_count", {"game": "HILO"}) == computed + 5
    assert metric(server, "pricing_publish_seconds_count") == published + 5
    assert metric(server, "pricing_tables") >= 1

    text = server.metrics_text()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in (
        "grpc_server_handling_seconds",
        "pricing_compute_seconds",
        "pricing_publish_seconds",
    ):
        assert families[name].type == "histogram", name
        # Each series of the histogram (one per label set) has every sub-ms bucket of its own.
        series: dict[tuple[tuple[str, str], ...], set[str]] = {}
        for sample in families[name].samples:
            if sample.name == f"{name}_bucket":
                key = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
                series.setdefault(key, set()).add(sample.labels["le"])
        assert series, name
        for key, les in series.items():
            assert set(SUB_MS_BUCKETS) | {"100.0", "+Inf"} <= les, (name, key, sorted(les))
    buckets = {
        s.labels["le"]: s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == "grpc_server_handling_seconds_bucket"
        and s.labels.get("grpc_method") == "Quote"
    }
    assert set(SUB_MS_BUCKETS) <= set(buckets) and "100.0" in buckets
    assert buckets["+Inf"] == metric(server, "grpc_server_handling_seconds_count", q)


def test_reflection_lists_both_services(server: ServerProcess) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(server.channel())
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (response,) = list(stub.ServerReflectionInfo(iter([request])))
    names = {s.name for s in response.list_services_response.service}
    assert {
        "pricing.v1.DealerService",
        "pricing.v1.PricingService",
        "grpc.health.v1.Health",
    } <= names
    by_symbol = reflection_pb2.ServerReflectionRequest(
        file_containing_symbol="pricing.v1.TableState"
    )
    (described,) = list(stub.ServerReflectionInfo(iter([by_symbol])))
    assert described.file_descriptor_response.file_descriptor_proto


# ---------------------------------------------------------------------------------------------
# The service is the pure fold: whatever the feed sends, it agrees with a local Table


_CARDS = st.sampled_from([str(c) for c in DECK] + ["1H", "ZZ"])
_ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("expose"), _CARDS, st.sampled_from(["BURN", "RESULT", "DEALER"])),
        st.tuples(st.just("void"), st.none(), st.none()),
        st.tuples(st.just("new_shoe"), st.none(), st.none()),
        st.tuples(st.just("end"), st.none(), st.none()),
        st.tuples(st.just("retry"), st.none(), st.none()),
    ),
    max_size=40,
)
_model_ids = itertools.count(1)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(actions=_ACTIONS)
def test_the_service_agrees_with_the_local_fold_of_its_events(
    server: ServerProcess, actions: list[tuple[str, str | None, str | None]]
) -> None:
    table_id = f"model-{next(_model_ids)}"
    feed = Feed(server, table_id)
    feed.open()
    model = Table(table_id, TableConfig(Game.HILO), keep_journal=True)
    for kind, card, role in actions:
        seq = model.snapshot.last_seq + 1
        if kind == "retry":
            if seq == 1:
                continue
            seq -= 1
            event = model.journal[-1].event
            assert not isinstance(event, OpenTable)
            send = _resend(feed, seq, event)
        elif kind == "expose":
            assert card is not None and role is not None
            request = pb.ExposeCardRequest(
                table_id=table_id, seq=seq, card=card, role=enum_number(pb.CardRole, role)
            )
            send = functools.partial(feed.stub.ExposeCard, request)
        else:
            method, message = {
                "void": (feed.stub.VoidRound, pb.VoidRoundRequest),
                "new_shoe": (feed.stub.NewShoe, pb.NewShoeRequest),
                "end": (feed.stub.EndRound, pb.EndRoundRequest),
            }[kind]
            send = functools.partial(method, message(table_id=table_id, seq=seq))
        try:
            local: Any = _model_apply(model, seq, kind, card, role)
        except ValueError as exc:
            local = status_code(exc)
        try:
            remote: Any = send()
        except grpc.RpcError as exc:
            remote = exc.code()
        if isinstance(local, grpc.StatusCode):
            assert remote == local
        else:
            assert remote.SerializeToString() == snapshot_to_proto(local).SerializeToString()
    got = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert got.SerializeToString() == snapshot_to_proto(model.snapshot).SerializeToString()


def _model_apply(model: Table, seq: int, kind: str, card: str | None, role: str | None) -> Any:
    if kind == "retry":
        return model.apply(seq, model.journal[-1].event)[0]  # type: ignore[arg-type]
    if kind == "expose":
        assert card is not None and role is not None
        return model.apply(seq, ExposeCard(parse_card(card), CardRole[role]))[0]
    event = {"void": VoidRound(), "new_shoe": NewShoe(), "end": EndRound()}[kind]
    return model.apply(seq, event)[0]


def _resend(feed: Feed, seq: int, event: object) -> Callable[[], pb.TableState]:
    tid = feed.table_id
    if isinstance(event, ExposeCard):
        request = pb.ExposeCardRequest(
            table_id=tid,
            seq=seq,
            card=str(event.card),
            role=enum_number(pb.CardRole, event.role.name),
        )
        return functools.partial(feed.stub.ExposeCard, request)
    if isinstance(event, VoidRound):
        return functools.partial(feed.stub.VoidRound, pb.VoidRoundRequest(table_id=tid, seq=seq))
    if isinstance(event, NewShoe):
        return functools.partial(feed.stub.NewShoe, pb.NewShoeRequest(table_id=tid, seq=seq))
    raise AssertionError(event)
