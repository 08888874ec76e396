"""End to end, Goa Gae and blackjack tables: the real server process, driven only through gRPC
and HTTP, with every price compared with the engines' own functions (docs/rules.md §2, §3,
§4: blackjack and Goa Gae tables through the same API).

One server serves the whole module; each test has its own table ids.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import grpc
import pytest

from pricing.cards import DECK
from pricing.games import blackjack, goagae
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name
from tests.support.server import ServerProcess, Watcher
from tests.support.wire import (
    Feed,
    engine_prices,
    expect_error,
    metric,
    scraped,
    wire_prices,
    without_figures,
)

pytestmark = pytest.mark.timeout(120)

PLAYER, DEALER, BURN, RESULT = (
    pb.CARD_ROLE_PLAYER,
    pb.CARD_ROLE_DEALER,
    pb.CARD_ROLE_BURN,
    pb.CARD_ROLE_RESULT,
)


def goagae_prices(exposed: Sequence[str], betting: bool) -> list[tuple[Any, ...]]:
    return engine_prices(goagae.quote(exposed), betting)


def wire_side_bets(state: pb.TableState | pb.QuoteResponse) -> dict[str, tuple[Any, ...]]:
    return {
        sb.bet: (
            tuple(
                (o.name, o.ways, o.total, o.probability, o.payout_hundredths) for o in sb.outcomes
            ),
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
                (name, o.ways, o.total, o.probability, o.payout_hundredths)
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
    feed = Feed(server, table_id)
    opened = feed.open(game=pb.GAME_GOA_GAE)
    assert (opened.version, opened.phase, opened.decks, opened.round_id) == (
        1,
        pb.PHASE_BETTING,
        1,
        1,
    )
    assert wire_prices(opened) == goagae_prices([], betting=True)
    watcher = Watcher(server.pricing(), table_id)
    assert watcher.next_version() == opened

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
            assert streamed.phase == pb.PHASE_DEALING and list(streamed.exposed) == exposed
            assert wire_prices(streamed) == goagae_prices(exposed, betting=False)
        ended = feed.end_round()
        version += 1
        assert watcher.next_version() == ended and ended.version == version
        assert (ended.phase, ended.round_id, ended.result_index) == (
            pb.PHASE_BETTING,
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
            assert s.status == (
                pb.SettleResponse.STATUS_WIN if wins else pb.SettleResponse.STATUS_LOSE
            )
            assert s.payout_hundredths == price.payout_hundredths
            assert s.returned_cents == (1000 + 10 * price.payout_hundredths if wins else 0)
            assert list(s.result_cards) == hand

    watcher.cancel()


def test_goagae_settles_a_win_a_loss_voids_and_pending(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_GOA_GAE)
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
        pb.SettleResponse.STATUS_WIN,
        price,
        1000 + 10 * price,
    )
    lose = settle(server, table_id, 2, v2, "TRIPLE")
    assert (lose.status, lose.returned_cents) == (pb.SettleResponse.STATUS_LOSE, 0)

    assert list(win.result_cards) == suited
    assert settle(server, table_id, 1, 1, "FLUSH").status == pb.SettleResponse.STATUS_VOID

    # Round 3 is voided mid-deal; round 4 ends with two PLAYER cards: both refunded.
    v3 = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id)).version
    feed.expose("5S", PLAYER)
    voided = feed.void()
    assert voided.ended_round.void and voided.ended_round.round_id == 3
    assert voided.phase == pb.PHASE_BETTING and voided.round_id == 4
    assert wire_prices(voided) == goagae_prices([*exposed, "5S"], betting=True)
    s = settle(server, table_id, 3, v3, "NINE")
    assert (s.status, s.returned_cents) == (pb.SettleResponse.STATUS_VOID, 1000)
    v4 = voided.version
    feed.expose("6S", PLAYER)
    feed.expose("7S", PLAYER)
    short = feed.end_round()
    assert short.ended_round.void and not short.ended_round.result_cards
    assert settle(server, table_id, 4, v4, "NINE").status == pb.SettleResponse.STATUS_VOID
    # Pending while its round is dealt, then the table closes mid-round: refunded.
    v5 = short.version
    assert settle(server, table_id, 5, v5, "JQK").status == pb.SettleResponse.STATUS_PENDING
    feed.expose("8S", BURN)
    assert settle(server, table_id, 5, v5, "JQK").status == pb.SettleResponse.STATUS_PENDING
    closed = feed.close()
    assert closed.ended_round.void and closed.ended_round.round_id == 5
    assert settle(server, table_id, 5, v5, "JQK").status == pb.SettleResponse.STATUS_VOID


# ---------------------------------------------------------------------------------------------
# Blackjack


def wire_insurance(state: pb.TableState | pb.QuoteResponse) -> tuple[Any, ...] | None:
    if not state.HasField("insurance"):
        return None
    i = state.insurance
    return (i.offered, i.probability, i.rtp, i.player_favourable)


def engine_insurance(exposed: Sequence[str], decks: int) -> tuple[Any, ...]:
    odds = blackjack.insurance(exposed, decks)
    return (True, odds.probability, odds.rtp, odds.player_favourable)


def wire_dealer(state: pb.TableState | pb.QuoteResponse) -> tuple[Any, ...] | None:
    if not state.HasField("dealer_outcomes"):
        return None
    d = state.dealer_outcomes
    return (
        d.up_card,
        enum_short_name(pb.DealerRule, d.rule),
        {o.name: o.probability for o in d.outcomes},
    )


def engine_dealer(up: str, others: Sequence[str], decks: int, rule: str) -> tuple[Any, ...]:
    return (up, rule, blackjack.dealer_outcomes(up, others, decks, rule))


def engine_dealer_hand(
    hand: Sequence[str], others: Sequence[str], decks: int, rule: str
) -> tuple[Any, ...]:
    """The wire's dealer outcomes given the dealer's hand so far: the up card is its first."""
    return (hand[0], rule, blackjack.dealer_outcomes_from_hand(hand, others, decks, rule))


def test_blackjack_depleting_shoe_streams_engine_odds_and_settles_side_bets(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    rules = pb.BlackjackRules(
        dealer_rule=pb.DEALER_RULE_H17, shuffle_mode=pb.SHUFFLE_MODE_DEPLETING, seats=1
    )
    opened = feed.open(game=pb.GAME_BLACKJACK, decks=6, blackjack=rules)
    assert (opened.decks, opened.phase, opened.cards_remaining) == (6, pb.PHASE_BETTING, 312)
    assert wire_side_bets(opened) == engine_side_bets([], 6)
    assert [sb.open for sb in opened.side_bets] == [True, True] and not opened.prices
    assert wire_insurance(opened) is None and wire_dealer(opened) is None
    watcher = Watcher(server.pricing(), table_id)
    assert watcher.next_version() == opened

    deal = [("KH", PLAYER), ("AS", DEALER), ("KH", PLAYER)]
    exposed: list[str] = []
    for card, role in deal:
        response = feed.expose(card, role)
        exposed.append(card)
        streamed = watcher.next_version()  # lock-step: every version, in order
        assert streamed == response and streamed.version == len(exposed) + 1
        assert streamed.phase == pb.PHASE_DEALING and streamed.cards_remaining == 312 - len(exposed)
        assert wire_side_bets(streamed) == engine_side_bets(exposed, 6)
        assert [sb.open for sb in streamed.side_bets] == [False, False]
        if "AS" in exposed:
            others = [c for c in exposed if c != "AS"]
            assert wire_insurance(streamed) == engine_insurance(exposed, 6)
            assert wire_dealer(streamed) == engine_dealer("AS", others, 6, "H17")
        else:
            assert wire_insurance(streamed) is None and wire_dealer(streamed) is None
    # The dealer draws (H17): A 5 is soft 16, A 5 K hard 16, A 5 K 9 busts. From the second
    # card on there is no insurance, and the dealer outcomes are conditioned on the hand.
    hand = ["AS"]
    for card in ["5D", "KD", "9C"]:
        response = feed.expose(card, DEALER)
        exposed.append(card)
        hand.append(card)
        assert watcher.next_version() == response
        others = ["KH", "KH"]  # the PLAYER cards
        assert wire_insurance(response) is None
        dealer = wire_dealer(response)
        assert dealer == engine_dealer_hand(hand, others, 6, "H17")
        assert dealer != engine_dealer("AS", [*others, *hand[1:]], 6, "H17")  # not the up card's
    bust = dict.fromkeys(blackjack.DEALER_OUTCOMES, 0.0) | {"BUST": 1.0}
    assert dealer is not None and dealer[2] == bust
    ended = feed.end_round()
    assert watcher.next_version() == ended
    assert (ended.phase, ended.round_id, ended.cards_remaining) == (pb.PHASE_BETTING, 2, 306)
    assert list(ended.ended_round.result_cards) == ["KH", "KH", "AS", "5D"]
    assert wire_side_bets(ended) == engine_side_bets(exposed, 6)
    assert wire_insurance(ended) is None and wire_dealer(ended) is None

    pairs = settle(server, table_id, 1, 1, "pairs")
    assert (pairs.status, pairs.outcome, pairs.payout_hundredths, pairs.returned_cents) == (
        pb.SettleResponse.STATUS_WIN,
        "PERFECT",
        2500,
        1000 + 25_000,
    )
    royal = settle(server, table_id, 1, 1, "ROYAL_MATCH")
    assert (royal.status, royal.outcome, royal.returned_cents) == (
        pb.SettleResponse.STATUS_WIN,
        "EASY",
        3500,
    )
    assert list(royal.result_cards) == ["KH", "KH", "AS", "5D"]
    expect_error(
        lambda: settle(server, table_id, 1, 2, "PAIRS"),
        grpc.StatusCode.FAILED_PRECONDITION,
        "no round was open for betting",
    )
    watcher.cancel()


def test_blackjack_side_bets_lose_and_void(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=1))
    ended = feed.end_round()  # an empty round 1: nothing dealt, its bets refunded
    assert ended.ended_round.void and ended.round_id == 2
    assert settle(server, table_id, 1, 1, "PAIRS").status == pb.SettleResponse.STATUS_VOID
    # Round 2: a losing pair bet, then a voided round 3.
    v2 = ended.version
    for card, role in [("2C", PLAYER), ("5D", DEALER), ("9C", PLAYER)]:
        feed.expose(card, role)
    assert settle(server, table_id, 2, v2, "PAIRS").status == pb.SettleResponse.STATUS_PENDING
    v3 = feed.end_round().version
    lose = settle(server, table_id, 2, v2, "PAIRS")
    assert (lose.status, lose.outcome, lose.returned_cents) == (
        pb.SettleResponse.STATUS_LOSE,
        "LOSE",
        0,
    )
    feed.expose("QS", PLAYER)
    voided = feed.void()
    assert voided.ended_round.void and voided.round_id == 4
    void = settle(server, table_id, 3, v3, "ROYAL_MATCH")
    assert (void.status, void.returned_cents) == (pb.SettleResponse.STATUS_VOID, 1000)


def test_blackjack_continuous_shuffle_returns_the_rounds_cards_at_end_round(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    rules = pb.BlackjackRules(
        seats=1,
        shuffle_mode=pb.SHUFFLE_MODE_CONTINUOUS,
        royal_match=pb.RoyalMatchPaytable(
            royal_hundredths=1000, easy_hundredths=200, crown_enabled=False
        ),
        pairs=pb.PairsPaytable(preset=pb.PAIRS_PRESET_ANY_PAIR),
    )
    kwargs: dict[str, Any] = {
        "royal_match": blackjack.RoyalMatchPaytable(1000, 200, None),
        "pairs": "any-pair",
    }
    opened = feed.open(game=pb.GAME_BLACKJACK, decks=8, blackjack=rules)
    assert opened.cards_remaining == 416
    full = engine_side_bets([], 8, **kwargs)
    assert wire_side_bets(opened) == full
    # 10 : 1 / 2 : 1 (with 3 : 1 for a suited pair the player would have the edge on 8 decks,
    # and OpenTable refuses that: tests/service/test_side_bets_e2e.py)
    assert not opened.side_bets[0].player_favourable
    round_cards: list[str] = []
    for card, role in [("AD", DEALER), ("QC", PLAYER), ("QD", PLAYER)]:
        state = feed.expose(card, role)
        round_cards.append(card)
        assert state.cards_remaining == 416 - len(round_cards)
        assert wire_side_bets(state) == full  # the next round is dealt from a full shoe again
        assert wire_insurance(state) == engine_insurance(round_cards, 8)
        others = [c for c in round_cards if c != "AD"]
        assert wire_dealer(state) == engine_dealer("AD", others, 8, "S17")
    ended = feed.end_round()
    assert (ended.cards_remaining, list(ended.exposed), ended.round_id) == (416, [], 2)
    assert wire_side_bets(ended) == full
    pair = settle(server, table_id, 1, 1, "PAIRS")
    assert (pair.status, pair.outcome, pair.returned_cents) == (
        pb.SettleResponse.STATUS_WIN,
        "PAIR",
        12_000,
    )
    royal = settle(server, table_id, 1, 1, "ROYAL_MATCH")
    assert (royal.status, royal.outcome) == (pb.SettleResponse.STATUS_LOSE, "LOSE")
    # The same card again is fine: it went back into the shoe.
    assert feed.expose("AD", DEALER).cards_remaining == 415


def test_side_bet_rtp_gauge_follows_each_blackjack_table(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, decks=1, blackjack=pb.BlackjackRules(seats=1))

    def gauge(bet: str) -> float | None:
        text = server.metrics_text()
        prefix = f'pricing_side_bet_rtp{{bet="{bet}",table_id="{table_id}"}} '
        for line in text.splitlines():
            if line.startswith(prefix):
                return float(line[len(prefix) :])
        return None

    fresh = blackjack.side_bets([], 1)["ROYAL_MATCH"].rtp
    assert scraped(lambda: gauge("ROYAL_MATCH"), lambda v: v == fresh) == fresh
    exposed = ["QS", "KS", "QH"]
    for card in exposed:
        feed.expose(card, PLAYER)
    odds = blackjack.side_bets(exposed, 1)
    royal = pytest.approx(odds["ROYAL_MATCH"].rtp, rel=1e-15)
    assert scraped(lambda: gauge("ROYAL_MATCH"), lambda v: v == royal) == royal
    assert gauge("PAIRS") == pytest.approx(odds["PAIRS"].rtp, rel=1e-15)
    assert metric(server, "pricing_cards_total", {"game": "BLACKJACK", "role": "PLAYER"}) >= 3
    feed.close()
    assert scraped(lambda: gauge("ROYAL_MATCH"), lambda v: v is None) is None
    assert gauge("PAIRS") is None


# ---------------------------------------------------------------------------------------------
# Quotes and errors


def test_quote_goagae_and_blackjack_match_the_engines(server: ServerProcess) -> None:
    quote = server.pricing().Quote
    for seen in ([], ["2S", "3S"], [str(c) for c in DECK[:40]]):
        response = quote(pb.QuoteRequest(game=pb.GAME_GOA_GAE, exposed=seen))
        assert wire_prices(response) == goagae_prices(seen, betting=True)
        assert response.cards_remaining == 52 - len(seen)
    custom = quote(
        pb.QuoteRequest(
            game=pb.GAME_GOA_GAE,
            exposed=["7H"],
            goa_gae=pb.GoaGaeRules(
                bets={"NINE": pb.PayRule(rtp_bp=9000, min_hundredths=100, max_hundredths=5000)}
            ),
        )
    )
    paytable = goagae.GoaGaePaytable(nine=goagae.PayRule(9000, 100, 5000))
    nine = goagae.quote(["7H"], paytable)["NINE"]
    assert [p.payout_hundredths for p in custom.prices if p.bet == "NINE"] == [
        nine.payout_hundredths
    ]

    seen = ["KH", "QS", "AS", "10D"]
    ace = quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, exposed=seen, dealer_up_card="as"))
    assert ace.cards_remaining == 312 - 5
    assert wire_side_bets(ace) == engine_side_bets([*seen, "AS"], 6)
    assert wire_insurance(ace) == engine_insurance([*seen, "AS"], 6)
    assert wire_dealer(ace) == engine_dealer("AS", seen, 6, "S17")
    h17 = pb.BlackjackRules(
        dealer_rule=pb.DEALER_RULE_H17, pairs=pb.PairsPaytable(preset=pb.PAIRS_PRESET_ANY_PAIR)
    )
    seven = quote(
        pb.QuoteRequest(
            game=pb.GAME_BLACKJACK, decks=2, exposed=seen, dealer_up_card="7D", blackjack=h17
        )
    )
    assert wire_insurance(seven) is None
    assert wire_dealer(seven) == engine_dealer("7D", seen, 2, "H17")
    assert wire_side_bets(seven) == engine_side_bets([*seen, "7D"], 2, pairs="any-pair")
    plain = quote(pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8))
    assert wire_side_bets(plain) == engine_side_bets([], 8) and wire_dealer(plain) is None

    bad = [
        (pb.QuoteRequest(game=pb.GAME_GOA_GAE, decks=2), "decks 2"),
        (pb.QuoteRequest(game=pb.GAME_GOA_GAE, exposed=["2S", "2s"]), "2S"),
        (pb.QuoteRequest(game=pb.GAME_GOA_GAE, dealer_up_card="AS"), "dealer_up_card"),
        (pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=9), "decks 9"),
        (pb.QuoteRequest(game=pb.GAME_BLACKJACK, dealer_up_card="ZZ"), "'ZZ'"),
        (
            pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=1, exposed=["AS"], dealer_up_card="AS"),
            "AS",
        ),
        (pb.QuoteRequest(game=pb.GAME_BLACKJACK, exposed=["1X"]), "'1X'"),
    ]
    for request, fragment in bad:
        expect_error(
            lambda r=request: quote(r),  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT,
            fragment,
        )


@pytest.mark.parametrize(
    ("game", "setup", "card", "role", "code", "fragment"),
    [
        (pb.GAME_GOA_GAE, [], "2S", RESULT, grpc.StatusCode.INVALID_ARGUMENT, "RESULT"),
        (pb.GAME_BLACKJACK, [], "2S", RESULT, grpc.StatusCode.INVALID_ARGUMENT, "RESULT"),
        (pb.GAME_GOA_GAE, ["2S"], "2S", PLAYER, grpc.StatusCode.FAILED_PRECONDITION, "2S"),
        (pb.GAME_BLACKJACK, ["AS"], "AS", DEALER, grpc.StatusCode.FAILED_PRECONDITION, "AS"),
        (pb.GAME_GOA_GAE, [], "2Z", PLAYER, grpc.StatusCode.INVALID_ARGUMENT, "'2Z'"),
    ],
    ids=["goagae-result", "blackjack-result", "goagae-twice", "blackjack-7th-ace", "bad-card"],
)
def test_rejected_cards_have_their_code_and_change_nothing(
    server: ServerProcess,
    table_id: str,
    *,
    game: int,
    setup: list[str],
    card: str,
    role: int,
    code: grpc.StatusCode,
    fragment: str,
) -> None:
    feed = Feed(server, table_id)
    feed.open(game=game, decks=1)
    for seen in setup:
        feed.expose(seen, PLAYER, seat=1 if game == pb.GAME_BLACKJACK else 0)
    get = server.pricing().GetTable
    # A blackjack table's main-game figures arrive at the same version whenever they are
    # computed, maybe between the two reads: the state is compared without them.
    before = without_figures(get(pb.GetTableRequest(table_id=table_id)))
    expect_error(lambda: feed.expose(card, role), code, fragment)
    feed.seq -= 1
    assert without_figures(get(pb.GetTableRequest(table_id=table_id))) == before


def test_goagae_end_round_without_a_card_is_refused(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    before = feed.open(game=pb.GAME_GOA_GAE)
    expect_error(feed.end_round, grpc.StatusCode.FAILED_PRECONDITION, "VoidRound")
    assert server.pricing().GetTable(pb.GetTableRequest(table_id=table_id)) == before
