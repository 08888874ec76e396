"""The side-bet library through the real server (docs/rules.md §3.8): a table offers the bets
its OpenTable names (``BlackjackRules.side_bets``), shows each one's exact odds for the next
round as the engine computes them, quotes them without a table, and settles each seat's bet on
the cards dealt; a bad offer is INVALID_ARGUMENT naming its field and opens nothing."""

from __future__ import annotations

import io
from fractions import Fraction
from typing import Any

import grpc
import pytest

from pricing.cards import parse_card
from pricing.games.blackjack import library
from pricing.games.blackjack.rules import DealerRule
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess
from tests.support.wire import Feed

#: One round for each bet: the seat's two cards, the dealer's cards (up card first, a finished
#: hand), and the outcome the rule book gives that deal.
DEALS: dict[str, tuple[tuple[str, str], tuple[str, ...], str]] = {
    "ROYAL_MATCH": (("KS", "QS"), ("5H", "9C", "4D"), "ROYAL"),
    "PAIRS": (("8H", "8H"), ("5H", "9C", "4D"), "PERFECT"),
    "TWENTY_ONE_PLUS_THREE": (("7H", "7H"), ("7H", "KC"), "SUITED_TRIPS"),
    "HOT_3": (("7S", "7D"), ("7C", "KC"), "SEVENS"),
    "LUCKY_LADIES": (("QH", "QH"), ("AS", "KD"), "QH_PAIR_DEALER_BLACKJACK"),
    "LUCKY_LUCKY": (("6D", "8D"), ("7D", "KC"), "SUITED_678"),
    "TOP_3": (("9D", "9D"), ("9D", "KC"), "SUITED_TRIPS"),
    "MATCH_THE_DEALER": (("5H", "5S"), ("5H", "KC"), "SUITED_AND_UNSUITED"),
    "OVER_13": (("KS", "9D"), ("5H", "KC", "2D"), "OVER"),
    "UNDER_13": (("2S", "3D"), ("5H", "KC", "2D"), "UNDER"),
    "BUST_IT": (("2S", "3D"), ("10S", "6D", "8C"), "BUST_8"),
    "BUSTER": (("2S", "3D"), ("2C", "3H", "4S", "5D", "KC"), "BUST_5"),
}
STAKE = 1000  # 10.00


def offer(*bets: str, **presets: str) -> pb.BlackjackRules:
    rules = pb.BlackjackRules(seats=1)
    for bet in bets:
        rules.side_bets[bet].preset = presets.get(bet, "")
    return rules


def open_table(
    server: ServerProcess, table_id: str, rules: pb.BlackjackRules, decks: int = 8
) -> Feed:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, decks=decks, blackjack=rules)
    return feed


def wire_odds(state: Any) -> dict[str, tuple[Fraction, dict[str, Fraction]]]:
    return {
        sb.bet: (
            Fraction(sb.rtp_exact.exact),
            {o.name: Fraction(o.probability_exact.exact) for o in sb.outcomes},
        )
        for sb in state.side_bets
    }


def engine_odds(
    exposed: list[str], offered: tuple[library.Paytable, ...]
) -> dict[str, tuple[Fraction, dict[str, Fraction]]]:
    counts = [8] * 52
    for card in exposed:
        counts[parse_card(card).index] -= 1
    return {
        bet: (
            odds.rtp_fraction,
            {name: o.fraction for name, o in odds.outcomes.items() if name != "LOSE"},
        )
        for bet, odds in library.odds(counts, DealerRule.S17, offered).items()
    }


def test_every_bet_of_the_library_has_a_deal_here() -> None:
    assert set(DEALS) == set(library.BETS)


def test_a_table_offers_the_bets_it_names_with_the_engines_exact_odds(
    server: ServerProcess, table_id: str
) -> None:
    bets = list(library.BETS)
    feed = open_table(server, table_id, offer(*reversed(bets)))  # any order: the library's
    offered = tuple(library.paytable(bet) for bet in bets)
    state = feed.expose("AS", pb.CARD_ROLE_BURN)
    assert [sb.bet for sb in state.side_bets] == bets
    assert wire_odds(state) == engine_odds(["AS"], offered)
    for sb in state.side_bets:
        assert sb.rtp == pytest.approx(float(Fraction(sb.rtp_exact.exact)))
        assert sb.player_favourable == (Fraction(sb.rtp_exact.exact) > 1)
    quote = server.pricing().Quote(
        pb.QuoteRequest(game=pb.GAME_BLACKJACK, decks=8, exposed=["AS"], blackjack=offer(*bets))
    )
    assert wire_odds(quote) == wire_odds(state)


def test_presets_and_overrides_reach_the_odds(server: ServerProcess, table_id: str) -> None:
    rules = offer("PAIRS", "ROYAL_MATCH", PAIRS="perfect-pairs-30-10-5", ROYAL_MATCH="3-10")
    rules.side_bets["PAIRS"].payout_hundredths["MIXED"] = 700
    # Royal Match 3-10 is a two-deck paytable: with more decks it favours the player (below).
    state = open_table(server, table_id, rules, decks=2).expose("2C", pb.CARD_ROLE_BURN)
    pays = {sb.bet: {o.name: o.payout_hundredths for o in sb.outcomes} for sb in state.side_bets}
    assert pays == {
        "ROYAL_MATCH": {"ROYAL": 1000, "EASY": 300},
        "PAIRS": {"PERFECT": 3000, "COLOURED": 1000, "MIXED": 700},
    }


@pytest.mark.parametrize("bet", sorted(DEALS))
def test_each_bet_settles_a_dealt_round_per_seat(
    server: ServerProcess, table_id: str, bet: str
) -> None:
    (first, second), dealer, outcome = DEALS[bet]
    rules = offer(bet)
    rules.seats = 2
    feed = open_table(server, table_id, rules)
    # Seat 1 is dealt the deal's cards; seat 2 two cards that win nothing of the deal's.
    feed.expose(first, pb.CARD_ROLE_PLAYER, 1)
    feed.expose("4C", pb.CARD_ROLE_PLAYER, 2)
    feed.expose(dealer[0], pb.CARD_ROLE_DEALER)
    feed.expose(second, pb.CARD_ROLE_PLAYER, 1)
    feed.expose("2D", pb.CARD_ROLE_PLAYER, 2)
    for card in dealer[1:]:
        feed.expose(card, pb.CARD_ROLE_DEALER)
    feed.end_round()
    paytable = library.paytable(bet)
    deal = library.Deal(
        (parse_card(first), parse_card(second)), tuple(parse_card(c) for c in dealer)
    )
    settled = library.settle(paytable, deal)
    assert settled is not None and settled[0] == outcome
    won = settle(server, table_id, bet, seat=1)
    assert (won.status, won.outcome, won.payout_hundredths) == (
        pb.SettleResponse.STATUS_WIN,
        outcome,
        settled[1],
    )
    assert won.returned_cents == STAKE + STAKE * settled[1] // 100
    assert list(won.result_cards)[:2] == [first, second]
    other = library.settle(
        paytable, library.Deal((parse_card("4C"), parse_card("2D")), deal.dealer)
    )
    lost = settle(server, table_id, bet, seat=2)
    assert other is not None and lost.outcome == other[0]


def test_a_dealer_drawing_bet_is_refunded_when_the_dealers_hand_is_not_finished(
    server: ServerProcess, table_id: str
) -> None:
    feed = open_table(server, table_id, offer("BUSTER", "HOT_3"))
    for card, role in [("9S", pb.CARD_ROLE_PLAYER), ("10D", pb.CARD_ROLE_DEALER)]:
        feed.expose(card, role)
    feed.expose("9H", pb.CARD_ROLE_PLAYER)
    feed.expose("4C", pb.CARD_ROLE_DEALER)  # 14: the dealer must draw; the round ends first
    feed.end_round()
    assert settle(server, table_id, "BUSTER").status == pb.SettleResponse.STATUS_VOID
    assert settle(server, table_id, "HOT_3").outcome == "LOSE"  # 9 + 9 + 10: 28, no award


def settle(server: ServerProcess, table_id: str, bet: str, seat: int = 1) -> pb.SettleResponse:
    return server.pricing().Settle(
        pb.SettleRequest(
            table_id=table_id, round_id=1, version=1, bet=bet, stake_cents=STAKE, seat=seat
        )
    )


@pytest.mark.parametrize(
    ("build", "field", "words"),
    [
        (lambda r: r.side_bets["POKER"], 'blackjack.side_bets["POKER"]', "unknown side bet"),
        (
            lambda r: setattr(r.side_bets["HOT_3"], "preset", "cold"),
            'blackjack.side_bets["HOT_3"]',
            "unknown HOT_3 preset 'cold'",
        ),
        (
            lambda r: r.side_bets["HOT_3"].payout_hundredths.__setitem__("SIXES", 100),
            'blackjack.side_bets["HOT_3"]',
            "HOT_3 entry 'SIXES'",
        ),
        (
            lambda r: (r.side_bets["PAIRS"], r.pairs.SetInParent()),
            'blackjack.side_bets["PAIRS"]',
            "set twice",
        ),
        (  # 6 decks: a suited pair is likely enough that 3 : 1 and 10 : 1 pay more than taken
            lambda r: setattr(r.side_bets["ROYAL_MATCH"], "preset", "3-10"),
            'blackjack.side_bets["ROYAL_MATCH"]',
            "ROYAL_MATCH (3-10) returns 101.1130% of its stakes on a full 6-deck shoe",
        ),
    ],
    ids=["unknown bet", "unknown preset", "unknown entry", "named twice", "favours the player"],
)
def test_a_bad_offer_names_its_field_and_opens_nothing(
    server: ServerProcess, table_id: str, build: Any, field: str, words: str
) -> None:
    rules = pb.BlackjackRules()
    build(rules)
    request = pb.OpenTableRequest(table_id=table_id, game=pb.GAME_BLACKJACK, blackjack=rules)
    with pytest.raises(grpc.RpcError) as caught:
        server.dealer().OpenTable(request)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert words in caught.value.details(), caught.value.details()
    from pricing.client import error_details  # noqa: PLC0415

    assert [v.field for v in error_details(caught.value).field_violations] == [field]
    with pytest.raises(grpc.RpcError) as missing:
        server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


#: The dealer-drawing bets' outcomes, each on a finished dealer hand (S17).
BUST_DEALS = [
    ("BUST_IT", "8H 8H 8H", "SUITED_888"),
    ("BUST_IT", "8H 8D 8H", "SAME_COLOUR_888"),
    ("BUST_IT", "10S 6H 6D", "BUST_6"),
    ("BUST_IT", "9S 6H 7D", "BUST_7"),
    ("BUST_IT", "7S 7D 8C", "BUST_8"),
    ("BUST_IT", "7S 6D 9C", "BUST_9"),
    ("BUST_IT", "10S 2H KD", "BUST_TEN"),
    ("BUST_IT", "2S 3H 10D 10C", "LOSE"),
    ("BUST_IT", "AS KH", "LOSE"),
    ("BUSTER", "10S 6H KD", "BUST_3_OR_4"),
    ("BUSTER", "2S 2H 2D 10C KH", "BUST_5"),
    ("BUSTER", "2S 2H 2D 2C 8H KH", "BUST_6"),
    ("BUSTER", "2S 2H 2D 2C 2S 6H KH", "BUST_7"),
    ("BUSTER", "2S 2H 2D 2C 2S 2H 4D KH", "BUST_8_PLUS"),
    ("BUSTER", "KS 6H AD", "LOSE"),
]


def test_every_outcome_of_every_bet_settles_through_the_server(
    server: ServerProcess, table_id: str
) -> None:
    """Each hand-built deal of the library's tests (every outcome of every bet, and losses),
    dealt at one table offering every bet, a fresh shoe per deal: Settle answers the outcome
    and the pay the engine gives that deal, and the stake back with the floored profit."""
    from tests.unit.test_side_bets_library import SETTLED  # noqa: PLC0415

    deals = [(bet, seat, dealer, outcome) for bet, seat, dealer, outcome, _ in SETTLED]
    deals += [(bet, "2C 3C", dealer, outcome) for bet, dealer, outcome in BUST_DEALS]
    assert {(bet, outcome) for bet, _s, _d, outcome in deals} >= {
        (bet, outcome) for bet in DEALS if bet not in ("ROYAL_MATCH", "PAIRS")
        for outcome in library.BETS[bet].outcomes
    }  # fmt: skip
    feed = open_table(server, table_id, offer(*library.BETS))
    for bet, seat, dealer, outcome in deals:
        opened = feed.new_shoe()
        seat_cards, dealer_cards = seat.split(), dealer.split()
        order = [(seat_cards[0], pb.CARD_ROLE_PLAYER)]
        order += [(card, pb.CARD_ROLE_DEALER) for card in dealer_cards[:1]]
        order += [(card, pb.CARD_ROLE_PLAYER) for card in seat_cards[1:]]
        order += [(card, pb.CARD_ROLE_DEALER) for card in dealer_cards[1:]]
        for card, role in order:
            feed.expose(card, role)
        feed.end_round()
        answer = server.pricing().Settle(
            pb.SettleRequest(
                table_id=table_id,
                round_id=opened.round_id,
                version=opened.version,
                bet=bet,
                stake_cents=STAKE,
            )
        )
        deal = library.Deal(
            tuple(map(parse_card, seat_cards[:2])), tuple(map(parse_card, dealer_cards))
        )
        settled = library.settle(library.paytable(bet), deal)
        assert settled is not None and settled[0] == outcome, (bet, seat, dealer)
        won = outcome != "LOSE"
        assert (answer.outcome, answer.payout_hundredths) == (
            (outcome, settled[1]) if won else ("LOSE", 0)
        ), (bet, seat, dealer)
        assert answer.status == (
            pb.SettleResponse.STATUS_WIN if won else pb.SettleResponse.STATUS_LOSE
        )
        assert answer.returned_cents == (STAKE + STAKE * settled[1] // 100 if won else 0)


def test_the_command_line_quotes_the_bets_it_names(
    server: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    from pricing.cli import main  # noqa: PLC0415

    def quote(*more: str) -> tuple[int, str]:
        out = io.StringIO()
        args = ["quote", "blackjack", "7H", "KS", "--up", "5C", "--rule", "h17", *more]
        return main(args, out), out.getvalue()

    code, offline = quote("--side-bet", "hot_3", "--side-bet", "BUSTER:ags")
    assert code == 0
    assert [line.split()[0] for line in offline.splitlines() if "RTP" in line] == [
        "HOT_3",
        "BUSTER",
    ]
    assert "BUST_8_PLUS" in offline and "(0/0)" not in offline  # past 64 bits: the ratio
    served = quote("--side-bet", "hot_3", "--side-bet", "BUSTER", "--server", server.target)
    assert served == (0, offline)  # the server's numbers are the same
    assert quote("--side-bet", "hot_4")[0] == 2  # a bad argument, as any other
    assert "unknown side bet 'HOT_4'" in capsys.readouterr().err
