"""End to end, Goa Gae and blackjack tables: the real server process, driven only through gRPC
and HTTP, with every price compared with the engines' own functions (issue 5: "Blackjack and
Goa Gae tables through the same API").

One server serves the whole module; each test has its own table ids.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from pricing import blackjack, goagae
from pricing.cards import DECK
from pricing.v1 import pricing_pb2 as pb
from tests.conftest import ServerProcess, Watcher
from tests.test_service_e2e import Feed, wire_prices

pytestmark = pytest.mark.timeout(120)

PLAYER, DEALER, BURN, RESULT = pb.PLAYER, pb.DEALER, pb.BURN, pb.RESULT


class GameFeed(Feed):
    def end_round(self) -> pb.TableState:
        self.seq += 1
        return self.stub.EndRound(pb.EndRoundRequest(table_id=self.table_id, seq=self.seq))


def goagae_prices(exposed: Sequence[str], betting: bool) -> list[tuple[Any, ...]]:
    """The engine's prices as the wire should carry them: every bet closed outside betting."""
    rows = []
    for bet, p in goagae.quote(exposed).items():
        if betting:
            rows.append(
                (bet, p.wins, p.remaining, p.probability, p.payout_hundredths, p.open, p.clamped)
            )
        else:
            rows.append((bet, p.wins, p.remaining, p.probability, 0, False, False))
    return rows


def wire_side_bets(state: pb.TableState | pb.QuoteResponse) -> dict[str, tuple[Any, ...]]:
    return {
        sb.bet: (
            tuple((o.name, o.ways, o.total, o.probability, o.pays_hundredths) for o in sb.outcomes),
            sb.rtp,
            sb.player_favourable,
        )
        for sb in state.side_bets
    }


def engine_side_bets(exposed: Sequence[str], decks: int, **kwargs: Any) -> dict[str, Any]:
    odds = blackjack.side_bets(exposed, decks, **kwargs)
    return {
        bet: (
            tuple(
                (name, o.ways, o.total, o.probability, o.pays_hundredths)
                for name, o in odds[bet].outcomes.items()
                if name != "LOSE"
            ),
            odds[bet].rtp,
            odds[bet].player_favourable,
        )
        for bet in ("ROYAL_MATCH", "PAIRS")
    }


def settle(server: ServerProcess, table_id: str, round_id: int, version: int, bet: str) -> Any:
    return server.pricing().Settle(
        pb.SettleRequest(
            table_id=table_id, round_id=round_id, version=version, bet=bet, stake_cents=1000
        )
    )


# ---------------------------------------------------------------------------------------------
# Goa Gae


def test_goagae_rounds_stream_every_version_at_engine_prices_and_settle(
    server: ServerProcess, table_id: str
) -> None:
    feed = GameFeed(server, table_id)
    opened = feed.open(game=pb.GOA_GAE)
    assert (opened.version, opened.phase, opened.decks, opened.round_id) == (1, pb.BETTING, 1, 1)
    assert wire_prices(opened) == goagae_prices([], betting=True)
    watcher = Watcher(server.pricing(), table_id)
    assert watcher.next() == opened

    cards = [str(c) for c in DECK]
    random.Random(77).shuffle(cards)
    hand_rounds = [cards[0:3], cards[3:6], cards[6:9]]
    exposed: list[str] = []
    bet_versions: dict[int, int] = {}
    version = 1
    for round_id, hand in enumerate(hand_rounds, start=1):
        bet_versions[round_id] = version
        roles = [PLAYER, DEALER, PLAYER, PLAYER]  # a DEALER card among the players' is no part
        dealt = [hand[0], cards[20 + round_id], hand[1], hand[2]]
        for card, role in zip(dealt, roles, strict=True):
            response = feed.expose(card, role)
            exposed.append(card)
            version += 1
            streamed = watcher.next()  # lock-step: every version, in order
            assert streamed == response and streamed.version == version
            assert streamed.phase == pb.DEALING and list(streamed.exposed) == exposed
            assert wire_prices(streamed) == goagae_prices(exposed, betting=False)
        ended = feed.end_round()
        version += 1
        assert watcher.next() == ended and ended.version == version
        assert (ended.phase, ended.round_id, ended.result_index) == (
            pb.BETTING,
            round_id + 1,
            round_id + 1,
        )
        assert wire_prices(ended) == goagae_prices(exposed, betting=True)
        assert list(ended.ended_round.result_cards) == hand and not ended.ended_round.void
        assert ended.ended_round.result_card == " ".join(hand)
        assert ended.cards_remaining == 52 - len(exposed)

    for round_id, hand in enumerate(hand_rounds, start=1):
        prices_at = goagae.quote(exposed[: 4 * (round_id - 1)])
        for bet, price in prices_at.items():
            s = settle(server, table_id, round_id, bet_versions[round_id], bet)
            wins = goagae.bet_wins(bet, hand)
            assert s.status == (pb.Settlement.WIN if wins else pb.Settlement.LOSE)
            assert s.payout_hundredths == price.payout_hundredths
            assert s.returned_cents == (1000 + 10 * price.payout_hundredths if wins else 0)
            assert list(s.result_cards) == hand

    watcher.cancel()


def test_goagae_settles_a_win_a_loss_voids_and_pending(
    server: ServerProcess, table_id: str
) -> None:
    feed = GameFeed(server, table_id)
    feed.open(game=pb.GOA_GAE)
    feed.expose("9S", BURN)
    feed.expose("KD", DEALER)
    feed.expose("4C", PLAYER)
    v2 = feed.end_round().version  # round 1 had one PLAYER card: refunded; round 2 opens
    exposed = ["9S", "KD", "4C"]
    suited = ["2H", "7H", "JH"]  # a flush
    price = goagae.quote(exposed)["FLUSH"].payout_hundredths
    for card in suited:
        feed.expose(card, PLAYER)
        exposed.append(card)
    feed.end_round()
    win = settle(server, table_id, 2, v2, "FLUSH")
    assert (win.status, win.payout_hundredths, win.returned_cents) == (
        pb.Settlement.WIN,
        price,
        1000 + 10 * price,
    )
    lose = settle(server, table_id, 2, v2, "TRIPLE")
    assert (lose.status, lose.returned_cents) == (pb.Settlement.LOSE, 0)

    assert list(win.result_cards) == suited
    assert settle(server, table_id, 1, 1, "FLUSH").status == pb.Settlement.VOID

    # Round 3 is voided mid-deal; round 4 ends with two PLAYER cards: both refunded.
    v3 = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id)).version
    feed.expose("5S", PLAYER)
    voided = feed.void()
    assert voided.ended_round.void and voided.ended_round.round_id == 3
    assert voided.phase == pb.BETTING and voided.round_id == 4
    assert wire_prices(voided) == goagae_prices([*exposed, "5S"], betting=True)
    s = settle(server, table_id, 3, v3, "NINE")
    assert (s.status, s.returned_cents) == (pb.Settlement.VOID, 1000)
    v4 = voided.version
    feed.expose("6S", PLAYER)
    feed.expose("7S", PLAYER)
    short = feed.end_round()
    assert short.ended_round.void and not short.ended_round.result_cards
    assert settle(server, table_id, 4, v4, "NINE").status == pb.Settlement.VOID
    # Pending while its round is dealt, then the table closes mid-round: refunded.
    v5 = short.version
    assert settle(server, table_id, 5, v5, "JQK").status == pb.Settlement.PENDING
    feed.expose("8S", BURN)
    assert settle(server, table_id, 5, v5, "JQK").status == pb.Settlement.PENDING
    closed = feed.close()
    assert closed.ended_round.void and closed.ended_round.round_id == 5
    assert settle(server, table_id, 5, v5, "JQK").status == pb.Settlement.VOID
