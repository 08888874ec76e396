"""End to end, baccarat and Dragon Tiger tables (docs/rules.md §7, §8): the real server, driven
through gRPC only. Hand-built rounds settle every bet — wins, pushes, half losses — and each
settlement is the reference's (``tests/support/reference``, which shares no code with the
engine); the odds on the wire, for the next round and in round, are the engine's exactly; the
tableau's refusals change nothing; game protection closes a side bet exactly while it is
favourable, Settle refuses it there, and the metric counts it.

One server serves the whole module; each test has its own table ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import grpc
import pytest

from pricing.cards import DECK, Shoe, parse_card, parse_cards
from pricing.games import baccarat
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.dragon_tiger import bets as dragon_tiger
from pricing.v1 import pricing_pb2 as pb
from tests.support.reference import baccarat_ref, dragon_tiger_ref
from tests.support.server import ServerProcess
from tests.support.wire import Feed, expect_error, metric, scraped

pytestmark = pytest.mark.timeout(120)

P, B, D, T, BURN = (
    pb.CARD_ROLE_PLAYER,
    pb.CARD_ROLE_BANKER,
    pb.CARD_ROLE_DRAGON,
    pb.CARD_ROLE_TIGER,
    pb.CARD_ROLE_BURN,
)

#: Hand-built baccarat rounds (cards in the order dealt, P or B), chosen so that every bet
#: meets a win and a loss, and the pushes come: naturals, a natural tie, three-card 7 and 8
#: wins, a Banker 6 of two and of three cards, pairs of rank and of one card, ties on several
#: totals, a non-natural win by 4.
BACCARAT_ROUNDS: tuple[tuple[tuple[str, int], ...], ...] = (
    (("9S", P), ("9C", B), ("KD", P), ("KH", B)),  # natural tie of 9s: TIE, pushes
    (("2S", P), ("KC", B), ("3H", P), ("6D", B), ("7C", P), ("9H", B)),  # Banker 5 wins
    (("KS", P), ("2C", B), ("6D", P), ("3H", B), ("2D", B)),  # Banker 3-card 7: Dragon 7
    (("4S", P), ("KC", B), ("AH", P), ("7D", B), ("3C", P)),  # Player 3-card 8: Panda 8
    (("2S", P), ("6C", B), ("3D", P), ("KH", B), ("KS", P)),  # Banker 6 wins: Super 6
    (("8H", P), ("2C", B), ("8H", P), ("AD", B), ("5S", B)),  # a pair of one card: 6 vs 8
    (("5C", P), ("5D", B), ("5C", P), ("5D", B), ("KC", P), ("KD", B)),  # both pairs, a tie
    (("9D", P), ("KS", B), ("QC", P), ("10S", B)),  # a natural 9 against 0
    (("AS", P), ("3C", B), ("2S", P), ("4C", B), ("3D", P)),  # 6 vs 7: Banker by 1
    (("7S", P), ("7C", B), ("KS", P), ("KC", B)),  # a tie of 7s, both stand
    (("KS", P), ("AC", B), ("7H", P), ("2D", B), ("KD", B)),  # 7 vs 3: Player by 4, no natural
    (("KS", P), ("2D", B), ("AS", P), ("3D", B), ("4C", P), ("AH", B)),  # Banker 3-card 6
)

#: Each commission variant and the reference's name for it.
VARIANTS = {
    pb.COMMISSION_STANDARD: "standard",
    pb.COMMISSION_NONE: "no-commission",
    pb.COMMISSION_EZ: "ez",
}

COMMISSIONS = {
    pb.COMMISSION_STANDARD: baccarat.Commission.STANDARD,
    pb.COMMISSION_NONE: baccarat.Commission.NO_COMMISSION,
    pb.COMMISSION_EZ: baccarat.Commission.EZ,
}


def exact(ratio: pb.Ratio) -> Fraction:
    return Fraction(ratio.exact)


def every_side_bet(rules: pb.BaccaratRules | pb.DragonTigerRules, names: Sequence[str]) -> None:
    for name in names:
        rules.side_bets[name].preset = ""


def rtps(bets: Sequence[pb.SideBetOdds]) -> dict[str, Fraction]:
    return {sb.bet: exact(sb.rtp_exact) for sb in bets}


def settle(
    server: ServerProcess, table: str, round_id: int, version: int, bet: str
) -> pb.SettleResponse:
    return server.pricing().Settle(
        pb.SettleRequest(
            table_id=table, round_id=round_id, version=version, bet=bet, stake_cents=1001
        )
    )


@pytest.mark.parametrize(
    ("commission", "perfect_pair"),
    [(commission, "") for commission in VARIANTS] + [(pb.COMMISSION_STANDARD, "evolution")],
)
def test_every_baccarat_bet_settles_as_the_reference_says(
    server: ServerProcess, commission: pb.Commission.ValueType, perfect_pair: str
) -> None:
    table = f"bac-{commission}-{perfect_pair}"
    feed = Feed(server, table)
    rules = pb.BaccaratRules(commission=commission)
    every_side_bet(rules, baccarat.SIDE_BETS)
    rules.side_bets["PERFECT_PAIR"].preset = perfect_pair
    state = feed.open(game=pb.GAME_BACCARAT, decks=8, baccarat=rules)
    engine_rules = BaccaratRules(
        commission=COMMISSIONS[commission],
        side_bets=tuple(
            baccarat.paytable(name, perfect_pair if name == "PERFECT_PAIR" else "")
            for name in baccarat.SIDE_BETS
        ),
    )
    paytables = {t.bet: t for t in engine_rules.paytables}
    assert [sb.bet for sb in state.side_bets] == list(paytables)
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for round_id, deal in enumerate(BACCARAT_ROUNDS, start=1):
        version = state.version
        assert state.phase == pb.PHASE_BETTING and all(sb.open for sb in state.side_bets)
        want = baccarat.odds(_counts(8, out), [], [], engine_rules.paytables)
        assert rtps(state.side_bets) == {bet: o.rtp_fraction for bet, o in want.items()}
        hands: dict[int, list[str]] = {P: [], B: []}
        for text, role in deal:
            state = feed.expose(text, role)
            hands[role].append(text)
            out.append(text)
            if state.round_id == round_id:  # still dealing: the round's odds given its cards
                dealt = baccarat.odds(
                    _counts(8, out),
                    parse_cards(hands[P]),
                    parse_cards(hands[B]),
                    engine_rules.paytables,
                )
                assert rtps(state.round_odds) == {bet: o.rtp_fraction for bet, o in dealt.items()}
                assert [list(h.cards) for h in state.hands] == [hands[P], hands[B]]
        assert state.round_id == round_id + 1 and not state.round_odds, "the round is decided"
        assert [list(h.cards) for h in state.ended_round.hands] == [hands[P], hands[B]]
        for bet, paytable in paytables.items():
            variant = VARIANTS[commission] if bet == "BANKER" else paytable.preset or "standard"
            name, pay = baccarat_ref.settle(
                (bet, variant), baccarat.outcome_pays(paytable), hands[P], hands[B]
            )
            got = settle(server, table, round_id, version, bet)
            assert (got.outcome, got.net_payout_hundredths) == (name, pay), (bet, hands)
            assert got.returned_cents == 1001 + 1001 * pay // 100
            status = {1: pb.SettleResponse.STATUS_WIN, 0: pb.SettleResponse.STATUS_PUSH}
            assert got.status == status.get((pay > 0) - (pay < 0), pb.SettleResponse.STATUS_LOSE)
            seen.add((bet, got.outcome))
    # The rounds reach the outcomes the paytables have beyond a plain win (checked, so that a
    # change to the rounds cannot quietly drop one).
    wanted = {
        ("PLAYER", "PUSH"), ("TIE", "WIN"), ("DRAGON_7", "WIN"), ("PANDA_8", "WIN"),
        ("DRAGON_BONUS_PLAYER", "NATURAL_WIN"), ("DRAGON_BONUS_PLAYER", "WIN_BY_4"),
        ("DRAGON_BONUS_BANKER", "NATURAL_TIE"), ("LUCKY_6", "TWO_CARD_6"),
        ("LUCKY_6", "THREE_CARD_6"), ("EGALITE_0", "WIN"), ("EGALITE_7", "WIN"),
        ("BIG", "WIN"), ("SMALL", "WIN"), ("PLAYER_PAIR", "WIN"), ("BANKER_PAIR", "WIN"),
    }  # fmt: skip
    wanted |= {
        pb.COMMISSION_NONE: {("BANKER", "WIN_ON_6")},
        pb.COMMISSION_EZ: {("BANKER", "DRAGON_7_PUSH")},
        pb.COMMISSION_STANDARD: {("BANKER", "WIN")},
    }[commission]
    wanted.add(("PERFECT_PAIR", "BOTH_HANDS" if perfect_pair == "evolution" else "WIN"))
    assert wanted <= seen, wanted - seen


def _counts(decks: int, out: Sequence[str]) -> list[int]:
    counts = list(Shoe(decks).counts())
    for c in parse_cards(list(out)):
        counts[c.index] -= 1
    return counts


DRAGON_TIGER_ROUNDS = (
    ("KS", "2H"),  # Dragon wins
    ("3C", "QD"),  # Tiger wins
    ("7S", "7D"),  # a tie of 7s: half losses, big/small/odd/even all lose
    ("JH", "JH"),  # a suited tie
    ("AS", "8C"),
)


def test_every_dragon_tiger_bet_settles_as_the_reference_says(server: ServerProcess) -> None:
    feed = Feed(server, "dt-1")
    rules = pb.DragonTigerRules()
    every_side_bet(rules, dragon_tiger.SIDE_BETS)
    state = feed.open(game=pb.GAME_DRAGON_TIGER, decks=8, dragon_tiger=rules)
    paytables = {
        t.bet: t
        for t in (
            *dragon_tiger.main_paytables(8),
            *(dragon_tiger.paytable(name) for name in dragon_tiger.SIDE_BETS),
        )
    }
    assert [sb.bet for sb in state.side_bets] == list(paytables)
    out: list[str] = []
    for round_id, (dragon, tiger) in enumerate(DRAGON_TIGER_ROUNDS, start=1):
        version = state.version
        want = dragon_tiger.odds(_counts(8, out), None, list(paytables.values()))
        assert rtps(state.side_bets) == {bet: o.rtp_fraction for bet, o in want.items()}
        state = feed.expose(dragon, D)
        out.append(dragon)
        in_round = dragon_tiger.odds(_counts(8, out), parse_card(dragon), list(paytables.values()))
        assert rtps(state.round_odds) == {bet: o.rtp_fraction for bet, o in in_round.items()}
        state = feed.expose(tiger, T)
        out.append(tiger)
        assert [list(h.cards) for h in state.ended_round.hands] == [[dragon], [tiger]]
        for bet, paytable in paytables.items():
            name = dragon_tiger_ref.outcome(
                bet, dragon_tiger_ref.card(dragon), dragon_tiger_ref.card(tiger)
            )
            got = settle(server, "dt-1", round_id, version, bet)
            assert got.outcome == name, (bet, dragon, tiger)
            win = dragon_tiger.outcome_pays(paytable).get("WIN", 0)
            assert got.returned_cents == dragon_tiger_ref.returned(1001, name, win), bet


def test_the_tableau_refuses_a_card_and_nothing_changes(server: ServerProcess) -> None:
    feed = Feed(server, "bac-tableau")
    feed.open(game=pb.GAME_BACCARAT)
    feed.expose("2S", P)
    feed.expose("3S", B)
    state = feed.expose("4S", B)
    before = server.pricing().GetTable(pb.GetTableRequest(table_id="bac-tableau"))
    assert before.version == state.version
    # The Banker has two cards and the Player one: a third Banker card is not called for.
    expect_error(lambda: feed.expose("5S", B), grpc.StatusCode.FAILED_PRECONDITION, "two cards")
    feed.seq -= 1  # not applied: the next event takes the same seq
    expect_error(
        lambda: feed.expose("5S", pb.CARD_ROLE_DEALER),
        grpc.StatusCode.INVALID_ARGUMENT,
        "CARD_ROLE_DEALER",
    )
    feed.seq -= 1
    after = server.pricing().GetTable(pb.GetTableRequest(table_id="bac-tableau"))
    assert after == before


def test_protection_closes_a_favourable_side_bet_and_settle_refuses_it(
    server: ServerProcess,
) -> None:
    """A two-deck Dragon Tiger shoe burnt down to its kings and queens: a suited tie is 1 in
    15 at 50:1; the bet is closed from the burn that makes it favourable on, TIE is not."""
    feed = Feed(server, "dt-protect")
    rules = pb.DragonTigerRules(close_at_rtp_bp=10_000)
    rules.side_bets["SUITED_TIE"].preset = ""
    state = feed.open(game=pb.GAME_DRAGON_TIGER, decks=2, dragon_tiger=rules)
    closed = {"bet": "SUITED_TIE"}
    before = metric(server, "pricing_side_bet_closed_rounds_total", closed)
    for c in [c for c in DECK for _ in range(2) if c.rank.name not in ("KING", "QUEEN")]:
        state = feed.expose(str(c), BURN)
        for sb in state.side_bets:
            favourable = exact(sb.rtp_exact) >= 1 and sb.bet == "SUITED_TIE"
            assert (sb.open, sb.closed_by_protection) == (not favourable, favourable), sb
    version = state.version
    feed.expose("KS", D)
    feed.expose("KH", T)
    expect_error(
        lambda: settle(server, "dt-protect", 1, version, "SUITED_TIE"),
        grpc.StatusCode.FAILED_PRECONDITION,
        "closed by game protection",
    )
    assert settle(server, "dt-protect", 1, version, "TIE").status == pb.SettleResponse.STATUS_WIN
    after = scraped(
        lambda: metric(server, "pricing_side_bet_closed_rounds_total", closed),
        lambda value: value > before,
    )
    assert after == before + 1


def test_quotes_price_a_round_in_progress(server: ServerProcess) -> None:
    pricing = server.pricing()
    answer = pricing.Quote(
        pb.QuoteRequest(
            game=pb.GAME_BACCARAT, exposed=["AS"], player_hand=["9S"], banker_hand=["KD", "2C"]
        )
    )
    want = baccarat.odds(
        _counts(8, ["AS", "9S", "KD", "2C"]),
        parse_cards(["9S"]),
        parse_cards(["KD", "2C"]),
        BaccaratRules().paytables,
    )
    assert rtps(answer.round_odds) == {bet: o.rtp_fraction for bet, o in want.items()}
    expect_error(
        lambda: pricing.Quote(
            pb.QuoteRequest(game=pb.GAME_DRAGON_TIGER, player_hand=["KS"], banker_hand=["2S"])
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "banker_hand",
    )
    # The Player's third card after the Banker's second, whatever the lists' order: 2 3 (5)
    # draws a 4; the Banker's 5 draws on a Player's 4, so the round goes on.
    third = pricing.Quote(
        pb.QuoteRequest(
            game=pb.GAME_BACCARAT, player_hand=["2C", "3D", "4H"], banker_hand=["5H", "KS"]
        )
    )
    want = baccarat.odds(
        _counts(8, ["2C", "3D", "4H", "5H", "KS"]),
        parse_cards(["2C", "3D", "4H"]),
        parse_cards(["5H", "KS"]),
        BaccaratRules().paytables,
    )
    assert rtps(third.round_odds) == {bet: o.rtp_fraction for bet, o in want.items()}
    expect_error(  # a card past the round's end is not the next round's
        lambda: pricing.Quote(
            pb.QuoteRequest(
                game=pb.GAME_BACCARAT, player_hand=["9S", "KD"], banker_hand=["2C", "3C", "4C"]
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "banker_hand[2]: the round is complete without it",
    )
    expect_error(  # a whole round: nothing left to price
        lambda: pricing.Quote(
            pb.QuoteRequest(
                game=pb.GAME_BACCARAT, player_hand=["9S", "KD"], banker_hand=["2C", "3C"]
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "player_hand",
    )
