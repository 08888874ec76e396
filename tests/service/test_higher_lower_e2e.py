"""End to end, Higher/Lower tables (docs/rules.md §6): the real server process, driven only
through gRPC. The default table prints the provider's pays on every base card; rounds settle on
their base and result cards; a table's own rules, a Quote, a restart and the refusals."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
import pytest

from pricing.cards import DECK, parse_card
from pricing.games import higher_lower as hl
from pricing.games.events import CardRole, ExposeCard, FeedEvent, VoidRound
from pricing.journal import Record
from pricing.journal.sqlite import SqliteJournal
from pricing.payout import PayRule
from pricing.tables import JournalEntry, OpenTable
from pricing.tables.adapters.higher_lower import HigherLowerAdapter
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto
from tests.service.test_rich_errors import info_of
from tests.support.reference import higher_lower_ref as ref
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Feed, engine_prices, expect_error, wire_prices
from tests.unit.test_higher_lower import printed_pays

pytestmark = pytest.mark.timeout(120)

BURN, RESULT = pb.CARD_ROLE_BURN, pb.CARD_ROLE_RESULT
STAKE = 1000


def wire_for_one(state: pb.TableState | pb.QuoteResponse) -> dict[str, str | None]:
    return {
        p.bet: f"{(100 + p.payout_hundredths) / 100:.2f}" if p.open else None for p in state.prices
    }


def test_every_base_card_prints_the_published_pays_and_rounds_settle_on_it(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    opened = feed.open(game=pb.GAME_HIGHER_LOWER)
    assert (opened.decks, opened.cards_remaining, opened.phase) == (6, 288, pb.PHASE_OPENING)
    # every rank in both colours is a base card once, each round dealt by the rules
    bases = [r + s for r in ref.ORDER for s in "SH"]
    random.Random(7).shuffle(bases)
    state = feed.expose(bases[0], RESULT)
    pricing = server.pricing()
    for base, result in zip(bases, [*bases[1:], "2D"], strict=True):
        assert (state.base_card, state.phase, state.cards_remaining) == (
            base,
            pb.PHASE_BETTING,
            287,
        )
        assert wire_for_one(state) == printed_pays(base)
        betting = state
        for burn in ("4C", "JD", "9S"):
            state = feed.expose(burn, BURN)
        assert state.phase == pb.PHASE_DEALING
        assert not any(p.open for p in state.prices)
        state = feed.expose(result, RESULT)
        ended = state.ended_round
        assert (ended.round_id, list(ended.result_cards)) == (betting.round_id, [base, result])
        for price in betting.prices:
            if not price.open:
                continue
            answer = pricing.Settle(
                pb.SettleRequest(
                    table_id=table_id,
                    round_id=betting.round_id,
                    version=betting.version,
                    bet=price.bet,
                    stake_cents=STAKE,
                )
            )
            if ref.wins(price.bet, base, result):
                assert answer.status == pb.SettleResponse.STATUS_WIN, price.bet
                assert answer.returned_cents == STAKE + STAKE * price.payout_hundredths // 100
            else:
                assert answer.status == pb.SettleResponse.STATUS_LOSE, (price.bet, base, result)
            assert list(answer.result_cards) == [base, result]


def test_a_quote_on_a_base_card_prints_the_same_pays(server: ServerProcess) -> None:
    pricing = server.pricing()
    for rank in ref.ORDER:
        base = rank + "D"
        answer = pricing.Quote(pb.QuoteRequest(game=pb.GAME_HIGHER_LOWER, base_card=base))
        assert (answer.cards_remaining, wire_for_one(answer)) == (287, printed_pays(base))
    # A continuous shuffler prices the full shoe without the base card: cards seen before
    # went back (checked, then not counted); a depleting shoe counts them out.
    seen = ["2S", "3S", "AH", "AD"]
    plain = pricing.Quote(pb.QuoteRequest(game=pb.GAME_HIGHER_LOWER, base_card="9D"))
    continuous = pricing.Quote(
        pb.QuoteRequest(game=pb.GAME_HIGHER_LOWER, base_card="9D", exposed=seen)
    )
    depleting = pricing.Quote(
        pb.QuoteRequest(
            game=pb.GAME_HIGHER_LOWER,
            base_card="9D",
            exposed=seen,
            higher_lower=pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING),
        )
    )
    assert continuous == plain
    assert (depleting.cards_remaining, {p.bet: p.wins for p in depleting.prices}["ACE"]) == (
        283,
        22,
    )
    # no base card: the relative bets are closed, the others priced on the full shoe
    answer = pricing.Quote(pb.QuoteRequest(game=pb.GAME_HIGHER_LOWER))
    closed = {p.bet for p in answer.prices if not p.open}
    assert (closed, answer.cards_remaining) == ({"HIGHER", "LOWER", "SNAP"}, 288)


def test_a_depleting_table_prices_the_cards_left_by_its_own_rules(
    server: ServerProcess, table_id: str
) -> None:
    rules = pb.HigherLowerRules(
        shuffle_mode=pb.SHUFFLE_MODE_DEPLETING,
        burns=1,
        rtp_bp=9500,
        bets={"ACE": pb.PayRule(rtp_bp=9000, min_hundredths=0, max_hundredths=5000)},
    )
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_HIGHER_LOWER, decks=2, higher_lower=rules)
    paytable = hl.HigherLowerPaytable.from_rules(
        {**dict.fromkeys(hl.BETS, PayRule(9500, 5, 10_000)), "ACE": PayRule(9000, 0, 5000)}
    )
    shoe = hl.HigherLowerShoe(
        rules=hl.HigherLowerRules(paytable=paytable, shuffle=hl.ShuffleMode.DEPLETING, burns=1),
        decks=2,
    )
    cards = [r + s for r in ref.ORDER for s in "CDHS"] * 2
    random.Random(3).shuffle(cards)
    for i, card in enumerate(cards[:41]):
        role = RESULT if i % 2 == 0 else BURN
        state = feed.expose(card, role)
        shoe = shoe.expose(parse_card(card), CardRole.RESULT if role == RESULT else CardRole.BURN)
        assert wire_prices(state) == engine_prices(shoe.prices, shoe.betting)
        assert state.cards_remaining == 96 - (i + 1)
        assert state.base_card == str(shoe.base)


def test_refusals_name_the_bad_value(server: ServerProcess, table_id: str) -> None:
    dealer, pricing = server.dealer(), server.pricing()
    bad = pb.HigherLowerRules(bets={"HIGH": pb.PayRule(rtp_bp=9000, max_hundredths=100)})
    expect_error(
        lambda: dealer.OpenTable(
            pb.OpenTableRequest(table_id=table_id, game=pb.GAME_HIGHER_LOWER, higher_lower=bad)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "unknown Higher/Lower bet 'HIGH'",
    )
    expect_error(
        lambda: dealer.OpenTable(
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_HIGHER_LOWER,
                higher_lower=pb.HigherLowerRules(burns=11),
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "burns must be a whole number from 0 to 10, got 11",
    )
    expect_error(
        lambda: pricing.Quote(pb.QuoteRequest(game=pb.GAME_HILO, base_card="2S")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "base_card is a Higher/Lower field",
    )
    expect_error(
        lambda: pricing.Quote(pb.QuoteRequest(game=pb.GAME_HIGHER_LOWER, base_card="10S")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "card 10S is not in this game's deck",
    )
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_HIGHER_LOWER)
    feed.expose("QS", RESULT)
    expect_error(
        lambda: feed.expose("KS", RESULT),
        grpc.StatusCode.FAILED_PRECONDITION,
        "result card KS rejected: 3 burns come before the result of round 1, 0 dealt",
    )


def test_a_table_comes_back_the_same_after_a_restart(table_id: str) -> None:
    server = start_server()
    rules = pb.HigherLowerRules(shuffle_mode=pb.SHUFFLE_MODE_DEPLETING, burns=2)
    try:
        feed = Feed(server, table_id)
        feed.open(game=pb.GAME_HIGHER_LOWER, decks=1, higher_lower=rules)
        for card, role in [("7S", RESULT), ("2C", BURN), ("3C", BURN), ("AH", RESULT)]:
            before = feed.expose(card, role)
    finally:
        assert server.stop() == 0
    again = start_server(data_dir=server.data_dir)
    try:
        after = again.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
        assert after == before
        reopened = again.dealer().OpenTable(
            pb.OpenTableRequest(
                table_id=table_id, game=pb.GAME_HIGHER_LOWER, decks=1, higher_lower=rules
            )
        )
        assert reopened.version == before.version
    finally:
        assert again.stop() == 0


def test_live_statistics_list_every_bet_in_order_against_the_exact_report(
    server: ServerProcess, table_id: str
) -> None:
    """The first base card is a 2, so LOWER is first offered in a later round: it is still
    listed in the game's order, and each bet's certified figure is the exact report's."""
    from pricing.analysis.higher_lower import higher_lower_report  # noqa: PLC0415

    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_HIGHER_LOWER)
    feed.expose("2S", RESULT)
    rng = random.Random(5)
    for _ in range(30):
        for _ in range(3):
            feed.expose(rng.choice(["4C", "JD", "9S", "KH"]), BURN)
        feed.expose(rng.choice([r + s for r in ref.ORDER for s in "CDHS"]), RESULT)
    live = server.pricing().Analyze(pb.AnalyzeRequest(table_id=table_id)).live
    assert [b.bet for b in live.bets] == list(hl.BETS)
    assert live.rounds == 30
    report = higher_lower_report(modes=(hl.ShuffleMode.CONTINUOUS,))
    assert report.continuous is not None
    for bet in live.bets:
        certified = report.continuous[bet.bet].overall.per_offered_round
        assert bet.certified.exact == f"{certified.numerator}/{certified.denominator}"


#: Ace at 12 : 1 or more: over par even on a base ace (23 aces of 287 cards), the lowest chance
#: a 6-deck continuous shuffler gives it, so never offered.
NEVER_OFFERED = pb.HigherLowerRules(
    bets={"ACE": pb.PayRule(rtp_bp=9670, min_hundredths=1200, max_hundredths=10_000)}
)


def test_a_table_with_a_bet_it_could_never_offer_is_refused_but_quoted(
    server: ServerProcess, table_id: str
) -> None:
    open_ = pb.OpenTableRequest(
        table_id=table_id, game=pb.GAME_HIGHER_LOWER, higher_lower=NEVER_OFFERED
    )
    error = expect_error(
        lambda: server.dealer().OpenTable(open_),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bet ACE could never be offered at this table: at its minimum pay, 12.00 : 1, it "
        "returns more than the stake even at its lowest chance to win (23 of 287 cards)",
    )
    field = 'higher_lower.bets["ACE"].min_hundredths'
    assert info_of(error) == ("INVALID_OPTION", {"field": field})
    quote = server.pricing().Quote(
        pb.QuoteRequest(game=pb.GAME_HIGHER_LOWER, base_card="AS", higher_lower=NEVER_OFFERED)
    )
    assert {p.bet: p.open for p in quote.prices}["ACE"] is False
    depleting = pb.HigherLowerRules()
    depleting.CopyFrom(NEVER_OFFERED)
    depleting.shuffle_mode = pb.SHUFFLE_MODE_DEPLETING  # one ace left among many: offered
    open_.higher_lower.CopyFrom(depleting)
    assert server.dealer().OpenTable(open_).version == 1


def write_journal(
    data_dir: Path,
    table_id: str,
    rules: pb.HigherLowerRules,
    events: Sequence[FeedEvent] = (),
    decks: int = 0,
) -> None:
    """A journal as a server wrote it: ``table_id`` opened with ``rules``, then ``events``
    (seq 1, 2, …), appended without the checks a server makes of new requests."""
    request = pb.OpenTableRequest(decks=decks, higher_lower=rules)
    config = HigherLowerAdapter().configure(config_from_proto(pb.GAME_HIGHER_LOWER, decks, request))
    entries = [OpenTable(table_id, config), *events]

    async def write() -> None:
        journal = SqliteJournal(data_dir)
        for version, event in enumerate(entries, start=1):
            entry = JournalEntry(version - 1, version, event)
            await journal.append(Record(table_id, entry, time.time()))
        await journal.close()

    asyncio.run(write())


def test_a_journal_holding_such_a_table_from_before_the_check_still_reads_back(
    tmp_path: Path, table_id: str
) -> None:
    """The check is made when a table is opened, not when its journal is folded: a table an
    older server opened (written here as that server wrote it) starts, serves and takes
    events, and opening it again with its own rules answers it."""
    write_journal(tmp_path, table_id, NEVER_OFFERED)
    server = start_server(data_dir=tmp_path)
    try:
        feed = Feed(server, table_id)
        reopened = feed.open(game=pb.GAME_HIGHER_LOWER, higher_lower=NEVER_OFFERED)
        assert (reopened.version, reopened.last_seq) == (1, 0)
        state = feed.expose("AS", RESULT)
        assert state.version == 2 and {p.bet: p.open for p in state.prices}["ACE"] is False
        expect_error(
            lambda: Feed(server, f"{table_id}-new").open(
                game=pb.GAME_HIGHER_LOWER, higher_lower=NEVER_OFFERED
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "could never be offered",
        )
    finally:
        assert server.stop() == 0


def test_a_continuous_shoe_burnt_out_is_complete_and_an_old_void_after_it_still_folds(
    server: ServerProcess, table_id: str, tmp_path: Path
) -> None:
    """Burnt down to its last card mid-round, a continuous shuffler's shoe is complete and its
    round void (ended_round), as a Hi-Lo deck's is. A journal from before, which followed a
    burn-out with VoidRound and dealt on, still folds: the void is taken as it was then."""
    others = [c for c in DECK if c.rank.symbol != "10" and str(c) != "2S"]
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_HIGHER_LOWER, decks=1)
    feed.expose("2S", RESULT)
    for card in others:
        state = feed.expose(str(card), BURN)
    assert (state.phase, state.cards_remaining) == (pb.PHASE_SHOE_COMPLETE, 0)
    assert (state.ended_round.round_id, state.ended_round.void) == (1, True)
    expect_error(lambda: feed.expose("2S", RESULT), grpc.StatusCode.FAILED_PRECONDITION)

    burnt = [ExposeCard(parse_card("2S"), CardRole.RESULT)]
    burnt += [ExposeCard(card, CardRole.BURN) for card in others]
    after = [VoidRound(), *(ExposeCard(parse_card(c), CardRole.BURN) for c in ("3C", "4C", "5C"))]
    write_journal(tmp_path, "old", pb.HigherLowerRules(), [*burnt, *after], decks=1)
    old = start_server(data_dir=tmp_path)
    try:
        feed = Feed(old, "old")
        feed.seq = len(burnt) + len(after)
        state = feed.expose("KD", RESULT)  # round 2, opened by the void, decided
        assert (state.phase, state.base_card) == (pb.PHASE_BETTING, "KD")
        assert list(state.ended_round.result_cards) == ["2S", "KD"]
        assert state.ended_round.round_id == 2
    finally:
        assert old.stop() == 0
