"""Dragon Tiger (docs/rules.md §8): the exact odds of all twelve bets against the enumerating
reference of ``tests/support/reference/dragon_tiger_ref.py`` on random depleted shoes of 1–8
decks, before a round and once its Dragon card is out; the settlement of every pair of cards;
the published 8-deck figures; the paytables and their refusals; the money of a half loss."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, Card, Rank
from pricing.errors import InvalidOption
from pricing.games.dragon_tiger.bets import (
    BETS,
    MAIN_BETS,
    PRESETS,
    SIDE_BETS,
    DragonTigerPaytable,
    Side,
    main_paytables,
    odds,
    outcome_pays,
    paytable,
    settle,
    winner,
)
from pricing.games.fixed_odds import SideBetOdds
from pricing.payout import returned_cents
from tests.support.effort import effort
from tests.support.reference import dragon_tiger_ref as ref

CARDS = [str(card) for card in DECK]


def examples(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def counts_of(cards: Sequence[str]) -> list[int]:
    """The shoe's count of each card by ``Card.index``."""
    held = Counter(cards)
    return [held[text] for text in CARDS]


def cards_of(counts: Sequence[int]) -> list[str]:
    """The physical cards of a shoe of these counts."""
    return [text for text, n in zip(CARDS, counts, strict=True) for _ in range(n)]


@st.composite
def shoes(draw: st.DrawFn) -> list[int]:
    """The 52 card counts of a shoe of 1–8 decks dealt to some depth: a few cards out of a
    full shoe, each card's count anywhere from none to all of its decks' copies, a shoe of a
    few ranks only (where ties and one-sided card bets are common), or a handful of cards (the
    shoe's last rounds and its end)."""
    decks = draw(st.integers(1, 8))
    kind = draw(st.sampled_from(["shallow", "any", "few ranks", "end"]))
    if kind == "shallow":
        counts = [decks] * 52
        for index in draw(st.lists(st.integers(0, 51), max_size=40)):
            counts[index] = max(0, counts[index] - 1)
        return counts
    if kind == "any":
        return draw(st.lists(st.integers(0, decks), min_size=52, max_size=52))
    if kind == "few ranks":
        ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=3, unique=True))
        return [draw(st.integers(0, decks)) if i // 4 in ranks else 0 for i in range(52)]
    counts = [0] * 52
    for index in draw(st.lists(st.integers(0, 51), max_size=4)):
        counts[index] = min(decks, counts[index] + 1)
    return counts


@st.composite
def all_paytables(draw: st.DrawFn) -> tuple[DragonTigerPaytable, ...]:
    """The twelve bets, the TIE at either pay, each side bet at its preset or a random pay."""
    tables = list(main_paytables(draw(st.sampled_from([8, 11]))))
    for bet in SIDE_BETS:
        win = draw(st.one_of(st.none(), st.integers(0, 100_000)))
        tables.append(paytable(bet, overrides=None if win is None else {"WIN": win}))
    return tuple(tables)


def assert_matches(priced: dict[str, SideBetOdds], want: ref.Tally) -> None:
    """Every bet's ways of each outcome and its total are the reference's, and so is its
    exact RTP under its paytable."""
    assert list(priced) == list(BETS)
    for bet, got in priced.items():
        ways, total = want[bet]
        assert got.bet == bet
        assert got.open == (total > 0)
        assert {o: (w.ways, w.total) for o, w in got.outcomes.items() if w.ways} == {
            o: (n, total) for o, n in ways.items() if n
        }
        assert all(w.total == total for w in got.outcomes.values())
        assert got.rtp_fraction == ref.rtp(ways, total, got.outcomes["WIN"].payout_hundredths)


# --- (1) The odds against the reference -------------------------------------------------


@pytest.mark.slow
@examples(effort(suite=30, exhaustive=400))
@given(counts=shoes(), tables=all_paytables())
def test_next_round_odds_match_reference(
    counts: list[int], tables: tuple[DragonTigerPaytable, ...]
) -> None:
    want = ref.next_round(ref.shoe(cards_of(counts)))
    assert_matches(odds(counts, None, tables), want)


@pytest.mark.slow
@examples(effort(suite=60, exhaustive=600))
@given(counts=shoes(), tables=all_paytables(), data=st.data())
def test_in_round_odds_match_reference(
    counts: list[int], tables: tuple[DragonTigerPaytable, ...], data: st.DataObject
) -> None:
    """The Dragon's card is one the shoe held; it is out of the counts the odds are given."""
    held = [i for i, n in enumerate(counts) if n]
    if held:
        dragon = data.draw(st.sampled_from(held))
        counts = [n - (i == dragon) for i, n in enumerate(counts)]
    else:  # the shoe ran out with the Dragon's card: the Tiger's cannot be dealt
        dragon = data.draw(st.integers(0, 51))
    want = ref.in_round(ref.shoe(cards_of(counts)), ref.card(CARDS[dragon]))
    assert_matches(odds(counts, DECK[dragon], tables), want)


@pytest.mark.slow
@examples(effort(suite=40, exhaustive=400))
@given(cards=st.lists(st.sampled_from(CARDS[:12] + CARDS[24:32]), max_size=14))
def test_the_reference_counts_pairs_as_one_by_one(cards: list[str]) -> None:
    """The reference's grouped enumeration counts what one physical pair at a time does."""
    shoe = ref.shoe(cards)
    assert ref.next_round(shoe) == ref.next_round(shoe, one_by_one=True)


def test_a_full_one_deck_shoe_matches_reference_one_pair_at_a_time() -> None:
    want = ref.next_round(ref.shoe(CARDS), one_by_one=True)
    assert_matches(odds([1] * 52, None, main_paytables() + tuple(map(paytable, SIDE_BETS))), want)


@pytest.mark.parametrize("decks", [1, 8])
def test_every_dragon_card_of_a_full_shoe_matches_reference(decks: int) -> None:
    tables = main_paytables(11) + tuple(map(paytable, SIDE_BETS))
    for dragon in DECK:
        counts = [decks - (i == dragon.index) for i in range(52)]
        want = ref.in_round(ref.shoe(cards_of(counts)), ref.card(str(dragon)))
        assert_matches(odds(counts, dragon, tables), want)


def test_a_shoe_too_small_is_closed() -> None:
    """The next round needs two cards, the Tiger's card one."""
    tables = main_paytables() + tuple(map(paytable, SIDE_BETS))
    one = counts_of(["QH"])
    for counts, dragon, is_open in [
        ([0] * 52, None, False),
        (one, None, False),
        (counts_of(["QH", "QH"]), None, True),
        ([0] * 52, DECK[0], False),
        (one, DECK[0], True),
    ]:
        priced = odds(counts, dragon, tables)
        assert list(priced) == list(BETS)
        for got in priced.values():
            assert got.open == is_open
            assert is_open or got.rtp_fraction == 0
            assert all(o.total == 0 for o in got.outcomes.values()) != is_open
    # A suited tie of the last two cards: the only deal there is.
    last = odds(counts_of(["QH", "QH"]), None, [paytable("SUITED_TIE")])["SUITED_TIE"]
    assert (last.outcomes["WIN"].ways, last.outcomes["LOSE"].ways) == (2, 0)


def test_odds_refuse_a_shoe_that_is_not_52_counts() -> None:
    with pytest.raises(ValueError, match="52"):
        odds([8] * 13, None, main_paytables())


# --- (2) Settlement ---------------------------------------------------------------------


def test_every_pair_of_cards_settles_as_the_reference_reads_it() -> None:
    """All 52 × 52 rounds (a pair of identical cards included: a shoe of two decks or more),
    every bet, at its default pays."""
    tables = main_paytables() + tuple(map(paytable, SIDE_BETS))
    for dragon in DECK:
        for tiger in DECK:
            for table in tables:
                want = ref.outcome(table.bet, ref.card(str(dragon)), ref.card(str(tiger)))
                pay = ref.pay(want, table.pays["WIN"])
                assert settle(table, dragon, tiger) == (want, int(100 * pay))


@pytest.mark.parametrize(
    ("dragon", "tiger", "won"),
    [("KS", "QS", Side.DRAGON), ("AS", "2C", Side.TIGER), ("10H", "10D", None), ("7C", "7C", None)],
)
def test_the_winner_is_the_higher_rank_ace_low(dragon: str, tiger: str, won: Side | None) -> None:
    assert winner(Card.parse(dragon), Card.parse(tiger)) == won


SETTLED = [
    ("DRAGON", "10H", "10S", "TIE_HALF_LOSS", -50),
    ("TIGER", "10H", "10S", "TIE_HALF_LOSS", -50),
    ("TIE", "10H", "10S", "WIN", 800),
    ("SUITED_TIE", "10H", "10S", "LOSE", -100),
    ("SUITED_TIE", "10S", "10S", "WIN", 5000),
    ("DRAGON_BIG", "7H", "KS", "LOSE", -100),
    ("DRAGON_SMALL", "7H", "KS", "LOSE", -100),
    ("DRAGON_ODD", "7H", "KS", "LOSE", -100),
    ("DRAGON_EVEN", "7H", "KS", "LOSE", -100),
    ("TIGER_ODD", "7H", "KS", "WIN", 100),
    ("TIGER_BIG", "7H", "8S", "WIN", 100),
    ("TIGER_SMALL", "7H", "6S", "WIN", 100),
    ("DRAGON_ODD", "JH", "6S", "WIN", 100),
    ("DRAGON_EVEN", "QH", "6S", "WIN", 100),
    ("DRAGON_EVEN", "AH", "6S", "LOSE", -100),
]


@pytest.mark.parametrize(("bet", "dragon", "tiger", "outcome", "pay"), SETTLED)
def test_settled_rounds(bet: str, dragon: str, tiger: str, outcome: str, pay: int) -> None:
    table = paytable(bet) if bet in SIDE_BETS else main_paytables()[MAIN_BETS.index(bet)]
    assert settle(table, Card.parse(dragon), Card.parse(tiger)) == (outcome, pay)


def test_the_card_bets_split_the_ranks_and_leave_out_the_seven() -> None:
    for side in Side:
        won = {
            kind: winning_ranks(f"{side}_{kind}", side) for kind in ("BIG", "SMALL", "ODD", "EVEN")
        }
        assert won["BIG"] | won["SMALL"] == won["ODD"] | won["EVEN"] == set(Rank) - {Rank.SEVEN}
        assert not won["BIG"] & won["SMALL"] and not won["ODD"] & won["EVEN"]
        assert won["ODD"] == {Rank.ACE, Rank.THREE, Rank.FIVE, Rank.NINE, Rank.JACK, Rank.KING}


def winning_ranks(bet: str, side: Side) -> set[Rank]:
    """The ranks of the ``side`` card on which the card bet ``bet`` wins."""
    return {rank for rank in Rank if settle(paytable(bet), *dealt(side, rank))[0] == "WIN"}


def dealt(side: Side, rank: Rank) -> tuple[Card, Card]:
    """A round whose ``side`` card is of ``rank`` (the other a 7)."""
    card, seven = Card.parse(f"{rank.symbol}H"), Card.parse("7C")
    return (card, seven) if side == Side.DRAGON else (seven, card)


# --- (3) Money: a half loss of an odd stake -----------------------------------------------


@pytest.mark.slow
@examples(effort(suite=200, exhaustive=2_000))
@given(
    stake=st.integers(1, 10**9),
    bet=st.sampled_from(BETS),
    dragon=st.sampled_from(DECK),
    tiger=st.sampled_from(DECK),
)
def test_a_settled_bet_returns_what_the_reference_does(
    stake: int, bet: str, dragon: Card, tiger: Card
) -> None:
    table = paytable(bet) if bet in SIDE_BETS else main_paytables(11)[MAIN_BETS.index(bet)]
    outcome, pay = settle(table, dragon, tiger)
    assert returned_cents(stake, pay) == ref.returned(stake, outcome, table.pays["WIN"])


@pytest.mark.parametrize(("stake", "back"), [(1, 0), (3, 1), (101, 50), (100, 50), (2, 1)])
def test_a_half_loss_of_an_odd_stake_leaves_the_odd_cent_to_the_house(
    stake: int, back: int
) -> None:
    outcome, pay = settle(main_paytables()[0], Card.parse("5S"), Card.parse("5D"))
    assert (outcome, returned_cents(stake, pay)) == ("TIE_HALF_LOSS", back)
    assert back == stake - math.ceil(stake / 2)


# --- (4) The published 8-deck figures -----------------------------------------------------
#
# Wizard of Odds, "Dragon Tiger" (wizardofodds.com/games/dragon-tiger/; 8 decks; its
# combinations are unordered pairs of cards, half of the ordered (Dragon, Tiger) pairs counted
# here, 86,320 of them): Dragon / Tiger 3.73 % (win 39,936, tie 6,448, loss 39,936); Tie at 8:1
# 32.77 %, and at 12 / 11 / 10 / 9 to 1 2.89 / 10.36 / 17.83 / 25.30 %; Suited Tie 13.98 %
# (1,456 wins); Big / Small 7.69 % (192 of the 416 cards win).


def full_shoe_edge(table: DragonTigerPaytable) -> Fraction:
    return 1 - odds([8] * 52, None, [table])[table.bet].rtp_fraction


def percent(value: Fraction, digits: int) -> Fraction:
    """``value`` as a percentage rounded to ``digits`` decimals, exactly."""
    return round(100 * value, digits)


def test_dragon_and_tiger_published_house_edge_and_ways() -> None:
    priced = odds([8] * 52, None, main_paytables())
    for bet in ("DRAGON", "TIGER"):
        assert percent(1 - priced[bet].rtp_fraction, 2) == Fraction("3.73")
        ways = {o: w.ways for o, w in priced[bet].outcomes.items()}
        assert ways == {"WIN": 2 * 39_936, "TIE_HALF_LOSS": 2 * 6_448, "LOSE": 2 * 39_936}
        assert priced[bet].outcomes["WIN"].total == 2 * 86_320
    assert 1 - priced["DRAGON"].rtp_fraction == Fraction(31, 830)  # half the chance of a tie


def test_suited_tie_published_house_edge_and_ways() -> None:
    priced = odds([8] * 52, None, [paytable("SUITED_TIE")])["SUITED_TIE"]
    assert percent(1 - priced.rtp_fraction, 2) == Fraction("13.98")
    assert priced.outcomes["WIN"].ways == 2 * 1_456


def test_tie_published_house_edges_by_pay() -> None:
    assert percent(full_shoe_edge(main_paytables(8)[2]), 2) == Fraction("32.77")
    assert percent(full_shoe_edge(main_paytables(11)[2]), 2) == Fraction("10.36")
    for to_one, published in [(12, "2.89"), (10, "17.83"), (9, "25.30")]:
        table = DragonTigerPaytable("TIE", "custom", {"WIN": 100 * to_one})
        assert percent(full_shoe_edge(table), 2) == Fraction(published)


def test_card_bets_published_house_edge() -> None:
    """Big and Small as published; Odd and Even win on as many cards (24 of 52), so the same."""
    for bet in SIDE_BETS[1:]:
        priced = odds([8] * 52, None, [paytable(bet)])[bet]
        assert 1 - priced.rtp_fraction == Fraction(1, 13)
        assert percent(1 - priced.rtp_fraction, 2) == Fraction("7.69")
        assert Fraction(priced.outcomes["WIN"].ways, priced.outcomes["WIN"].total) == Fraction(
            192, 416
        )


# --- (5) Paytables ------------------------------------------------------------------------


def test_twelve_bets_each_with_one_entry() -> None:
    assert len(BETS) == 12 and len(set(BETS)) == 12
    assert BETS == MAIN_BETS + SIDE_BETS
    assert set(PRESETS) == set(BETS)
    assert all(set(pays) == {"WIN"} for presets in PRESETS.values() for pays in presets.values())
    assert [s.value for s in Side] == ["DRAGON", "TIGER"]


def test_main_paytables() -> None:
    assert [(t.bet, t.preset, dict(t.pays)) for t in main_paytables()] == [
        ("DRAGON", "standard", {"WIN": 100}),
        ("TIGER", "standard", {"WIN": 100}),
        ("TIE", "standard", {"WIN": 800}),
    ]
    assert main_paytables(11)[2] == DragonTigerPaytable("TIE", "11", {"WIN": 1100})
    assert outcome_pays(main_paytables()[0]) == {"WIN": 100, "TIE_HALF_LOSS": -50}
    assert outcome_pays(main_paytables()[2]) == {"WIN": 800}


@pytest.mark.parametrize("tie_pays", [9, 0, -8, True, 8.0, "8", None])
def test_main_paytables_refuse_other_tie_pays(tie_pays: object) -> None:
    with pytest.raises(InvalidOption, match="tie_pays") as refused:
        main_paytables(tie_pays)  # type: ignore[arg-type]
    assert refused.value.field == "tie_pays"


def test_side_bet_paytables() -> None:
    assert paytable("SUITED_TIE") == DragonTigerPaytable("SUITED_TIE", "standard", {"WIN": 5000})
    assert paytable("SUITED_TIE", " Standard ", {"WIN": 6000}).pays == {"WIN": 6000}
    for bet in SIDE_BETS[1:]:
        assert outcome_pays(paytable(bet)) == {"WIN": 100}


@pytest.mark.parametrize(
    ("bet", "preset", "overrides", "named"),
    [
        ("RED", "", None, "'RED'"),
        ("DRAGON", "", None, "a main bet, always offered"),
        ("TIE", "11", None, "a main bet, always offered"),
        ("SUITED_TIE", "evolution", None, "'evolution'"),
        ("TIGER_BIG", "", {"LOSE": 100}, "'LOSE'"),
        ("TIGER_BIG", "", {"WIN": -1}, "got -1"),
        ("TIGER_BIG", "", {"WIN": 10**10}, "got 10000000000"),
        ("TIGER_BIG", "", {"WIN": True}, "got True"),
    ],
)
def test_paytable_refusals_name_what_is_wrong(
    bet: str, preset: str, overrides: dict[str, int] | None, named: str
) -> None:
    with pytest.raises(InvalidOption, match=named):
        paytable(bet, preset, overrides)


def test_a_paytable_made_directly_is_checked() -> None:
    with pytest.raises(InvalidOption, match="unknown Dragon Tiger bet 'RED'"):
        DragonTigerPaytable("RED", "standard", {"WIN": 100})
    with pytest.raises(InvalidOption, match="TIE pays WIN"):
        DragonTigerPaytable("TIE", "standard", {})
