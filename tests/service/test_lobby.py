"""The lobby: ``PricingService.ListTables`` and ``pricing tables``, against a real server that
holds only this module's tables (the ``server`` fixture is one process per module)."""

from __future__ import annotations

import io
import json
import time

import grpc

from pricing import cli
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name
from tests.support.server import ServerProcess, Watcher
from tests.support.wire import Feed, expect_error


def lobby(server: ServerProcess, game: int = pb.GAME_UNSPECIFIED) -> list[tuple[object, ...]]:
    response = server.pricing().ListTables(pb.ListTablesRequest(game=game))
    return [
        (
            t.table_id,
            enum_short_name(pb.Game, t.game),
            t.decks,
            enum_short_name(pb.Phase, t.phase),
            t.version,
            t.cards_remaining,
            t.closed,
            t.watchers,
            t.seats,
        )
        for t in response.tables
    ]


def until_watchers(server: ServerProcess, table_id: str, count: int) -> None:
    """Wait (at most 10 s) until the lobby counts ``count`` watchers on ``table_id``: a
    cancelled stream is noticed by the server a moment later."""
    deadline = time.monotonic() + 10
    while True:
        row = next(r for r in lobby(server) if r[0] == table_id)
        if row[7] == count or time.monotonic() > deadline:
            assert row[7] == count, row
            return
        time.sleep(0.01)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def test_list_tables_shows_every_open_and_closed_table_with_its_counts(
    server: ServerProcess,
) -> None:
    assert lobby(server) == []
    assert run("tables", "--server", server.target) == (0, "no tables\n")
    hilo = Feed(server, "lobby-hilo")
    hilo.open(game=pb.GAME_HILO)
    for card in ["2S", "3S", "4S"]:
        hilo.expose(card)
    bj = Feed(server, "lobby-bj")
    bj.open(game=pb.GAME_BLACKJACK, decks=2, blackjack=pb.BlackjackRules(seats=3))
    bj.expose("KH", pb.CARD_ROLE_PLAYER, 2)
    done = Feed(server, "lobby-goagae")
    done.open(game=pb.GAME_GOA_GAE)
    done.expose("9C", pb.CARD_ROLE_PLAYER)
    done.close()
    watchers = [Watcher(server.pricing(), "lobby-hilo") for _ in range(2)]
    watchers.append(Watcher(server.pricing(), "lobby-bj"))
    for watcher in watchers:
        watcher.next()  # the first state is out: the stream is subscribed

    assert lobby(server) == [
        ("lobby-bj", "BLACKJACK", 2, "DEALING", 2, 103, False, 1, 3),
        ("lobby-goagae", "GOA_GAE", 1, "CLOSED", 3, 51, True, 0, 0),
        ("lobby-hilo", "HILO", 1, "OPENING", 4, 49, False, 2, 0),
    ]
    assert [row[0] for row in lobby(server, pb.GAME_BLACKJACK)] == ["lobby-bj"]
    assert [row[0] for row in lobby(server, pb.GAME_GOA_GAE)] == ["lobby-goagae"]
    expect_error(
        lambda: lobby(server, 9),
        grpc.StatusCode.INVALID_ARGUMENT,
        "unknown game 9",
    )

    watchers[0].cancel()
    until_watchers(server, "lobby-hilo", 1)
    hilo.close()
    until_watchers(server, "lobby-hilo", 0)
    assert lobby(server)[2][3:] == ("CLOSED", 5, 49, True, 0, 0)

    code, text = run("tables", "--server", server.target)
    assert code == 0
    assert text.splitlines() == [
        "TABLE         GAME       DECKS  SEATS  PHASE          VERSION   LEFT  WATCHERS",
        "lobby-bj      BLACKJACK      2      3  DEALING              2    103         1",
        "lobby-goagae  GOA_GAE        1      -  CLOSED               3     51         0",
        "lobby-hilo    HILO           1      -  CLOSED               5     49         0",
    ]
    code, text = run("tables", "--server", server.target, "--game", "blackjack", "--json")
    assert code == 0
    assert json.loads(text) == [
        {
            "table_id": "lobby-bj",
            "game": "GAME_BLACKJACK",
            "decks": 2,
            "phase": "PHASE_DEALING",
            "version": "2",
            "cards_remaining": 103,
            "closed": False,
            "watchers": 1,
            "seats": 3,
        }
    ]
    for watcher in watchers[1:]:
        watcher.cancel()
