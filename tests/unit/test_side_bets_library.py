"""The side-bet library's three-card and two-card bets (docs/rules.md §3.8): the kernel against
the brute-force references of ``tests/support/reference/side_bets_ref.py`` on random shoes (exact
equality of every count), the published house edges on full shoes, the settlement of dealt
hands, and the paytables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing import _side_bets
from pricing.cards import DECK, parse_card
from pricing.errors import InvalidOption
from pricing.games.blackjack import library
from pricing.games.blackjack.library import BETS, Deal, odds, paytable, settle
from pricing.games.blackjack.rules import DealerRule
from tests.support.reference import side_bets_ref as ref

S17 = DealerRule.S17
CARDS = [str(card) for card in DECK]
#: The bets of this module, in the order of ``BETS``.
MINE = (
    "TWENTY_ONE_PLUS_THREE",
    "HOT_3",
    "LUCKY_LADIES",
    "LUCKY_LUCKY",
    "TOP_3",
    "MATCH_THE_DEALER",
    "OVER_13",
    "UNDER_13",
)


def examples(n: int) -> settings:
    """Hypothesis settings for ``n`` examples: no deadline (the references are slow)."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def counts_of(cards: Sequence[str]) -> tuple[int, ...]:
    """The shoe's count of each card by ``Card.index``."""
    held = Counter(cards)
    return tuple(held[text] for text in CARDS)


def full_shoe(decks: int) -> tuple[int, ...]:
    return (decks,) * 52


#: What a rich shoe is made of, per bet, where its rare awards are: a few of these ranks in a
#: few suits, and these cards.
RICH = {
    "TWENTY_ONE_PLUS_THREE": ("A 2 3 4 Q K", "AH KH"),
    "TOP_3": ("A 2 3 Q K", "AH 2H"),
    "HOT_3": ("A 5 6 7 8 9 K", "7H 7S"),
    "LUCKY_LUCKY": ("A 5 6 7 8 9 K", "6H 7H 8H"),
    "MATCH_THE_DEALER": ("A 7 9 K", "7H"),
    "LUCKY_LADIES": ("A 9 10 Q K", "QH AS KS"),
    "OVER_13": ("A 3 6 7 9 K", ""),
    "UNDER_13": ("A 3 6 7 9 K", ""),
}


@st.composite
def shoes(draw: st.DrawFn, bet: str, max_cards: int) -> list[str]:
    """The cards left in a shoe of 1–8 decks, at most ``max_cards`` of them:
    either a random handful of the full shoe, or a shoe rich in a few ranks and suits (each
    card up to ``decks`` times), where suited trips, 7-7-7 and two queens of hearts happen."""
    decks = draw(st.integers(1, 8))
    if draw(st.booleans()):
        full = [c for c in CARDS for _ in range(decks)]
        size = draw(st.integers(3, min(max_cards, len(full))))
        picks = draw(
            st.lists(st.integers(0, len(full) - 1), min_size=size, max_size=size, unique=True)
        )
        return [full[i] for i in picks]
    rank_pool, stars = RICH[bet]
    ranks = draw(st.lists(st.sampled_from(rank_pool.split()), min_size=1, max_size=4, unique=True))
    suits = draw(st.lists(st.sampled_from("CDHS"), min_size=1, max_size=3, unique=True))
    kinds = [rank + suit for rank in ranks for suit in suits]
    kinds += [*stars.split(), *draw(st.lists(st.sampled_from(CARDS), max_size=3))]
    left = [c for c in dict.fromkeys(kinds) for _ in range(draw(st.integers(0, decks)))]
    return draw(st.permutations(left))[:max_cards]


def check_against_reference(bet: str, cards: list[str], data: st.DataObject) -> None:
    """Every winning outcome's ways and the total equal the reference's counts, and every
    preset's RTP (and one with a random override) equals the reference's exact RTP."""
    counts = counts_of(cards)
    want, total = ref.tally(bet, ref.shoe(cards))
    engine = BETS[bet]
    ways, got_total = engine.ways(counts, S17, paytable(bet))
    assert got_total == total
    assert ways == {o: want[o] for o in engine.outcomes}
    assert sum(want.values()) == total
    tables = [paytable(bet, preset) for preset in engine.presets]
    entry = data.draw(st.sampled_from(sorted(tables[0].pays)))
    tables.append(paytable(bet, "", {entry: data.draw(st.integers(0, 300_000))}))
    for table in tables:
        priced = odds(counts, S17, [table])[bet]
        assert priced.open == (total > 0)
        assert priced.rtp_fraction == ref.rtp(bet, want, total, table.pays)
        if total:
            assert priced.outcomes["LOSE"].ways == want["LOSE"]


# --- (1) The kernel against the reference, on random shoes ----------------------------------


@pytest.mark.parametrize("bet", ref.THREE_CARD)
@examples(40)
@given(data=st.data())
def test_three_card_bets_match_reference(bet: str, data: st.DataObject) -> None:
    check_against_reference(bet, data.draw(shoes(bet, max_cards=30)), data)


@examples(40)
@given(data=st.data())
def test_lucky_ladies_matches_reference(data: st.DataObject) -> None:
    check_against_reference("LUCKY_LADIES", data.draw(shoes("LUCKY_LADIES", max_cards=20)), data)


@pytest.mark.slow
@pytest.mark.parametrize("bet", ["OVER_13", "UNDER_13"])
@examples(40)
@given(data=st.data())
def test_over_and_under_13_match_reference(bet: str, data: st.DataObject) -> None:
    check_against_reference(bet, data.draw(shoes(bet, max_cards=120)), data)


def check_ways(bet: str, cards: list[str]) -> None:
    want, total = ref.tally(bet, ref.shoe(cards))
    ways, got_total = BETS[bet].ways(counts_of(cards), S17, paytable(bet))
    assert (ways, got_total) == ({o: want[o] for o in BETS[bet].outcomes}, total)


@pytest.mark.parametrize("bet", [b for b in MINE if b != "LUCKY_LADIES"])
def test_a_deep_eight_deck_shoe_matches_reference(bet: str) -> None:
    """A shoe dealt deep from 8 decks: one of every card, three 7♥ and two of a few others —
    every class of deal the kernel tells apart."""
    check_ways(bet, [*CARDS, "7H", "7H", "QH", "AS", "KD", "6C", "8C"])


def test_lucky_ladies_on_a_shoe_of_queens_aces_and_tens_matches_reference() -> None:
    """Three queens of hearts among aces, tens and nines: every Lucky Ladies outcome."""
    cards = ["QH", "QH", "QH", "AS", "AD", "AH", "KS", "KS", "10H", "JC", "QD", "9H", "9S", "2C"]
    check_ways("LUCKY_LADIES", cards)


@pytest.mark.parametrize("bet", MINE)
def test_a_shoe_too_small_for_the_bet_is_closed(bet: str) -> None:
    needed = 3 if bet in ref.THREE_CARD else 4 if bet == "LUCKY_LADIES" else 2
    cards = ["QH", "QH", "AS", "KS"][: needed - 1]
    priced = odds(counts_of(cards), S17, [paytable(bet)])[bet]
    assert not priced.open and priced.rtp_fraction == 0
    assert odds(counts_of(["QH", "QH", "AS", "KS"][:needed]), S17, [paytable(bet)])[bet].open


@examples(200)
@given(
    bet=st.sampled_from(MINE),
    seat=st.lists(st.sampled_from(CARDS), min_size=2, max_size=2),
    dealer=st.lists(st.sampled_from(CARDS), min_size=1, max_size=3),
)
def test_settlement_matches_reference(bet: str, seat: list[str], dealer: list[str]) -> None:
    """Any dealt hand settles as the reference reads it, paid by the paytable."""
    table = paytable(bet)
    deal = Deal(tuple(map(parse_card, seat)), tuple(map(parse_card, dealer)))
    want = ref.outcome(bet, ref.shoe(seat), ref.shoe(dealer))
    pays = -100 if want == "LOSE" else ref.pays_of(bet, want, table.pays)
    assert settle(table, deal) == (want, pays)


def test_the_kernel_counts_the_outcomes_the_bets_name() -> None:
    for bet in (*_side_bets.THREE_CARD_BETS, *_side_bets.TWO_CARD_BETS):
        assert BETS[bet].outcomes == _side_bets.OUTCOMES[bet]
    assert list(BETS)[: 2 + len(MINE)] == ["ROYAL_MATCH", "PAIRS", *MINE]


# --- (2) Published house edges, full shoes --------------------------------------------------


def edge(
    bet: str, decks: int, preset: str = "", overrides: dict[str, int] | None = None
) -> Fraction:
    """The house edge of ``bet`` on a full shoe: 1 − RTP, exact."""
    table = paytable(bet, preset, overrides)
    return 1 - odds(full_shoe(decks), S17, [table])[bet].rtp_fraction


def percent(value: Fraction, digits: int) -> Fraction:
    """``value`` as a percentage rounded to ``digits`` decimals, exactly."""
    return round(100 * value, digits)


def test_twenty_one_plus_three_flat_9_published_house_edge() -> None:
    """Wizard of Odds, 21+3 version 1 (6 decks): 3.2386 %; and 13.30 %, 7.26 %, 4.24 %,
    2.74 % with 1, 2, 4, 8 decks."""
    assert edge("TWENTY_ONE_PLUS_THREE", 6, "flat-9") == Fraction(4059, 125333)
    assert percent(edge("TWENTY_ONE_PLUS_THREE", 6, "flat-9"), 4) == Fraction("3.2386")
    for decks, published in [(1, "13.30"), (2, "7.26"), (4, "4.24"), (8, "2.74")]:
        assert percent(edge("TWENTY_ONE_PLUS_THREE", decks, "flat-9"), 2) == Fraction(published)


def test_twenty_one_plus_three_full_six_deck_ways_by_hand() -> None:
    """Wizard of Odds' six-deck combinations (unordered three cards) are a third of the ways
    here (a seat pair and an up card): suited trips 1,040, straight flushes 10,368, other trips
    25,272, straights 155,520, other flushes 292,896 of 5,013,320. A K-A-2 is no straight: with
    it, straights would be 12 of 11 rank runs more."""
    ways, total = BETS["TWENTY_ONE_PLUS_THREE"].ways(
        full_shoe(6), S17, paytable("TWENTY_ONE_PLUS_THREE")
    )
    assert total == 3 * 5_013_320
    assert ways == {
        "SUITED_TRIPS": 3 * 1_040,
        "STRAIGHT_FLUSH": 3 * 10_368,
        "TRIPS": 3 * 25_272,
        "STRAIGHT": 3 * 155_520,
        "FLUSH": 3 * 292_896,
    }
    top, _ = BETS["TOP_3"].ways(full_shoe(6), S17, paytable("TOP_3"))
    assert top == {o: ways[o] for o in ("SUITED_TRIPS", "STRAIGHT_FLUSH", "TRIPS")}


def test_hot_3_published_house_edge_and_ways() -> None:
    """Wizard of Odds, Hot 3: 5.4894 % with six decks (5.6542 % with four); six-deck
    combinations 2,024 / 27,432 / 419,256 / 377,568 / 364,320 of 5,013,320."""
    assert percent(edge("HOT_3", 6), 4) == Fraction("5.4894")
    assert percent(edge("HOT_3", 4), 4) == Fraction("5.6542")
    ways, total = BETS["HOT_3"].ways(full_shoe(6), S17, paytable("HOT_3"))
    assert total == 3 * 5_013_320
    assert ways == {
        "SEVENS": 3 * 2_024,
        "SUITED_21": 3 * 27_432,
        "TWENTY_ONE": 3 * 419_256,
        "TWENTY": 3 * 377_568,
        "NINETEEN": 3 * 364_320,
    }


def test_perfect_pairs_30_10_5_published_house_edge() -> None:
    assert percent(edge("PAIRS", 6, "perfect-pairs-30-10-5"), 4) == Fraction("5.7878")


def test_lucky_ladies_published_house_edge_and_ways() -> None:
    """Wizard of Odds, pay table A (6 decks): 24.7089 %, out of 9,294,695,280 ordered deals of
    the seat's two cards and the dealer's two (four times the unordered ones here)."""
    assert percent(edge("LUCKY_LADIES", 6, "a"), 4) == Fraction("24.7089")
    ways, total = BETS["LUCKY_LADIES"].ways(full_shoe(6), S17, paytable("LUCKY_LADIES"))
    assert 4 * total == 9_294_695_280
    assert {o: 4 * w for o, w in ways.items()} == {
        "QH_PAIR_DEALER_BLACKJACK": 135_360,
        "QH_PAIR": 2_738_340,
        "MATCHED_20": 43_105_500,
        "SUITED_20": 193_112_640,
        "ANY_20": 744_863_040,
    }


def test_lucky_lucky_published_house_edge_and_ways() -> None:
    """Wizard of Odds, pay table 1 (6 decks): 2.66 %, combinations 80 / 864 / 1,944 / 12,960 /
    26,568 / 406,296 / 377,568 / 364,320."""
    assert percent(edge("LUCKY_LUCKY", 6), 2) == Fraction("2.66")
    ways, _ = BETS["LUCKY_LUCKY"].ways(full_shoe(6), S17, paytable("LUCKY_LUCKY"))
    assert list(ways.values()) == [
        3 * n for n in (80, 864, 1_944, 12_960, 26_568, 406_296, 377_568, 364_320)
    ]


def test_match_the_dealer_published_figures() -> None:
    """Wizard of Odds: two decks paying 4 and 19, house edge 3.3124 %; four decks paying 4 and
    12, the permutations 3 / 36 / 66 / 576 / 2,304 of 21,321 (in lowest terms)."""
    assert percent(
        edge("MATCH_THE_DEALER", 2, "", {"SUITED_MATCH": 1900, "UNSUITED_MATCH": 400}), 4
    ) == Fraction("3.3124")
    ways, total = BETS["MATCH_THE_DEALER"].ways(full_shoe(4), S17, paytable("MATCH_THE_DEALER"))
    published = {
        "TWO_SUITED": 3,
        "SUITED_AND_UNSUITED": 36,
        "TWO_UNSUITED": 66,
        "SUITED": 576,
        "UNSUITED": 2_304,
    }
    assert {o: Fraction(w, total) for o, w in ways.items()} == {
        o: Fraction(n, 21_321) for o, n in published.items()
    }


def test_over_and_under_13_published_house_edges() -> None:
    """Six decks: Over 13 6.5545 %, Under 13 10.0668 % (Eliot Jacobson: 6.555 % and 10.067 %);
    Wizard of Odds by decks (1, 2, 4, 8): 6.79 / 6.65 / 6.58 / 6.54 % and 10.11 / 10.08 / 10.07 /
    10.06 %."""
    assert percent(edge("OVER_13", 6), 4) == Fraction("6.5545")
    assert percent(edge("UNDER_13", 6), 4) == Fraction("10.0668")
    for decks, over, under in [
        (1, "6.79", "10.11"),
        (2, "6.65", "10.08"),
        (4, "6.58", "10.07"),
        (8, "6.54", "10.06"),
    ]:
        assert percent(edge("OVER_13", decks), 2) == Fraction(over)
        assert percent(edge("UNDER_13", decks), 2) == Fraction(under)


def test_royal_match_3_10_by_decks() -> None:
    """A one- and two-deck paytable: from four decks on it favours the player."""
    edges = {decks: percent(edge("ROYAL_MATCH", decks, "3-10"), 4) for decks in (1, 2, 4, 6, 8)}
    assert edges == {
        1: Fraction("3.7707"),
        2: Fraction("0.8215"),
        4: Fraction("-0.6317"),
        6: Fraction("-1.1130"),
        8: Fraction("-1.3531"),
    }


# --- (3) Settling dealt hands ---------------------------------------------------------------


def deal(seat: str, dealer: str) -> Deal:
    return Deal(tuple(map(parse_card, seat.split())), tuple(map(parse_card, dealer.split())))


SETTLED = [
    # 21+3: the ace low and high, never around the corner
    ("TWENTY_ONE_PLUS_THREE", "7H 7H", "7H", "SUITED_TRIPS", 10_000),
    ("TWENTY_ONE_PLUS_THREE", "AH 2H", "3H", "STRAIGHT_FLUSH", 4000),
    ("TWENTY_ONE_PLUS_THREE", "KS AS", "QS", "STRAIGHT_FLUSH", 4000),
    ("TWENTY_ONE_PLUS_THREE", "7H 7D", "7S 9C", "TRIPS", 3000),
    ("TWENTY_ONE_PLUS_THREE", "4C 6H", "5D", "STRAIGHT", 1000),
    ("TWENTY_ONE_PLUS_THREE", "QD AC", "KH", "STRAIGHT", 1000),
    ("TWENTY_ONE_PLUS_THREE", "KS AS", "2S", "FLUSH", 500),
    ("TWENTY_ONE_PLUS_THREE", "KS AD", "2S", "LOSE", -100),
    ("TWENTY_ONE_PLUS_THREE", "7H 7D", "9C", "LOSE", -100),
    # Hot 3: an ace is 1 or 11, whichever makes the best total up to 21
    ("HOT_3", "7H 7H", "7H", "SEVENS", 10_000),
    ("HOT_3", "7C 7D", "7S", "SEVENS", 10_000),
    ("HOT_3", "AS KS", "10S", "SUITED_21", 2000),
    ("HOT_3", "AS AD", "9C", "TWENTY_ONE", 400),
    ("HOT_3", "6S 7S", "8D", "TWENTY_ONE", 400),
    ("HOT_3", "AS AD", "8C", "TWENTY", 200),
    ("HOT_3", "4S 5D", "KC", "NINETEEN", 100),
    ("HOT_3", "9S KD", "QC", "LOSE", -100),
    ("HOT_3", "4S 4D", "KC", "LOSE", -100),
    # Lucky Ladies
    ("LUCKY_LADIES", "QH QH", "AS KD", "QH_PAIR_DEALER_BLACKJACK", 100_000),
    ("LUCKY_LADIES", "QH QH", "KD AS 9C", "QH_PAIR_DEALER_BLACKJACK", 100_000),
    ("LUCKY_LADIES", "QH QH", "AS 9D", "QH_PAIR", 12_500),
    ("LUCKY_LADIES", "KS KS", "AS KD", "MATCHED_20", 1900),
    ("LUCKY_LADIES", "QD QD", "2C", "MATCHED_20", 1900),
    ("LUCKY_LADIES", "AH 9H", "2C", "SUITED_20", 900),
    ("LUCKY_LADIES", "10C JC", "2C", "SUITED_20", 900),
    ("LUCKY_LADIES", "QH QD", "AS KD", "ANY_20", 400),
    ("LUCKY_LADIES", "9D AS", "2C", "ANY_20", 400),
    ("LUCKY_LADIES", "AS AD", "2C", "LOSE", -100),
    ("LUCKY_LADIES", "QH JH 5C", "AS KD", "SUITED_20", 900),  # the first two cards only
    # Lucky Lucky
    ("LUCKY_LUCKY", "7H 7H", "7H", "SUITED_777", 20_000),
    ("LUCKY_LUCKY", "8S 6S", "7S", "SUITED_678", 10_000),
    ("LUCKY_LUCKY", "7H 7D", "7H", "SEVENS", 5000),
    ("LUCKY_LUCKY", "6S 7D", "8S", "SIX_SEVEN_EIGHT", 3000),
    ("LUCKY_LUCKY", "AS 5S", "5S", "SUITED_21", 1500),
    ("LUCKY_LUCKY", "9C QD", "2H", "TWENTY_ONE", 300),
    ("LUCKY_LUCKY", "AC AD", "8H", "TWENTY", 200),
    ("LUCKY_LUCKY", "9C 5D", "5H", "NINETEEN", 200),
    ("LUCKY_LUCKY", "10C 4D", "4H", "LOSE", -100),
    ("LUCKY_LUCKY", "KC QD", "5H", "LOSE", -100),
    # Top 3: only the top three hands
    ("TOP_3", "AS AS", "AS", "SUITED_TRIPS", 27_000),
    ("TOP_3", "QH AH", "KH", "STRAIGHT_FLUSH", 18_000),
    ("TOP_3", "2C 2D", "2H", "TRIPS", 9000),
    ("TOP_3", "QH AD", "KH", "LOSE", -100),
    ("TOP_3", "2H 9H", "KH", "LOSE", -100),
    ("TOP_3", "KH AH", "2H", "LOSE", -100),
    # Match the Dealer: both matches paid
    ("MATCH_THE_DEALER", "7H 7H", "7H", "TWO_SUITED", 2200),
    ("MATCH_THE_DEALER", "7D 7H", "7H", "SUITED_AND_UNSUITED", 1500),
    ("MATCH_THE_DEALER", "7D 7C", "7H", "TWO_UNSUITED", 800),
    ("MATCH_THE_DEALER", "9H 7H", "7H 7C", "SUITED", 1100),
    ("MATCH_THE_DEALER", "7S 9C", "7H", "UNSUITED", 400),
    ("MATCH_THE_DEALER", "9H 8H", "7H 7H", "LOSE", -100),
    # Over / Under 13: an ace is 1
    ("OVER_13", "KS 4D", "", "OVER", 100),
    ("OVER_13", "KS QD", "2C", "OVER", 100),
    ("OVER_13", "AS KD", "", "LOSE", -100),
    ("OVER_13", "6S 7D", "", "LOSE", -100),
    ("UNDER_13", "AS KD", "", "UNDER", 100),
    ("UNDER_13", "AS AD", "", "UNDER", 100),
    ("UNDER_13", "6S 7D", "", "LOSE", -100),
    ("UNDER_13", "KS 4D", "", "LOSE", -100),
]


@pytest.mark.parametrize(("bet", "seat", "dealer", "outcome", "pays"), SETTLED)
def test_a_dealt_hand_settles(bet: str, seat: str, dealer: str, outcome: str, pays: int) -> None:
    assert settle(paytable(bet), deal(seat, dealer)) == (outcome, pays)


def test_lucky_ladies_without_the_dealers_second_card() -> None:
    """A Q♥ pair's award waits on the dealer's second card: without it, a refund; the other
    awards need only the seat's cards."""
    table = paytable("LUCKY_LADIES")
    assert settle(table, deal("QH QH", "AS")) is None
    assert settle(table, deal("QH QH", "")) is None
    assert settle(table, deal("QD QD", "AS")) == ("MATCHED_20", 1900)
    assert settle(table, deal("QH QD", "")) == ("ANY_20", 400)


def test_every_outcome_of_every_bet_is_settled_above() -> None:
    for bet in MINE:
        assert {o for b, _s, _d, o, _p in SETTLED if b == bet} == {*BETS[bet].outcomes, "LOSE"}


@pytest.mark.parametrize("bet", MINE)
def test_a_seat_with_fewer_than_two_cards_is_refunded(bet: str) -> None:
    assert settle(paytable(bet), deal("QH", "AS KD")) is None
    assert settle(paytable(bet), deal("", "AS KD")) is None


@pytest.mark.parametrize("bet", ref.THREE_CARD)
def test_a_three_card_bet_without_an_up_card_is_refunded(bet: str) -> None:
    assert settle(paytable(bet), deal("7H 7H", "")) is None


def test_settling_uses_the_tables_pays() -> None:
    assert settle(paytable("MATCH_THE_DEALER", "eight-deck"), deal("7D 7H", "7H")) == (
        "SUITED_AND_UNSUITED",
        1700,
    )
    assert settle(paytable("LUCKY_LADIES", "b"), deal("QH QH", "AS 9D")) == ("QH_PAIR", 20_000)
    assert settle(paytable("TWENTY_ONE_PLUS_THREE", "flat-9"), deal("7H 7H", "7H")) == (
        "SUITED_TRIPS",
        900,
    )


# --- (4) Paytables ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bet", "default", "pays"),
    [
        ("TWENTY_ONE_PLUS_THREE", "five-tier", [10_000, 4000, 3000, 1000, 500]),
        ("HOT_3", "evolution", [10_000, 2000, 400, 200, 100]),
        ("LUCKY_LADIES", "a", [100_000, 12_500, 1900, 900, 400]),
        ("LUCKY_LUCKY", "table-1", [20_000, 10_000, 5000, 3000, 1500, 300, 200, 200]),
        ("TOP_3", "galaxy", [27_000, 18_000, 9000]),
        ("MATCH_THE_DEALER", "six-deck", [2200, 1500, 800, 1100, 400]),
        ("OVER_13", "even-money", [100]),
        ("UNDER_13", "even-money", [100]),
    ],
)
def test_default_presets(bet: str, default: str, pays: list[int]) -> None:
    table = paytable(bet)
    assert table.preset == default
    assert BETS[bet].outcome_pays(table) == dict(zip(BETS[bet].outcomes, pays, strict=True))


def test_other_presets() -> None:
    assert paytable("TWENTY_ONE_PLUS_THREE", "flat-9").pays == dict.fromkeys(
        BETS["TWENTY_ONE_PLUS_THREE"].outcomes, 900
    )
    assert list(paytable("LUCKY_LADIES", "B").pays.values()) == [100_000, 20_000, 2500, 1000, 400]
    assert paytable("MATCH_THE_DEALER", "eight-deck").pays == {
        "SUITED_MATCH": 1400,
        "UNSUITED_MATCH": 300,
    }


def test_match_the_dealer_overrides_a_match_and_its_outcomes_follow() -> None:
    table = paytable("MATCH_THE_DEALER", "eight-deck", {"SUITED_MATCH": 1000})
    assert library.BETS["MATCH_THE_DEALER"].outcome_pays(table) == {
        "TWO_SUITED": 2000,
        "SUITED_AND_UNSUITED": 1300,
        "TWO_UNSUITED": 600,
        "SUITED": 1000,
        "UNSUITED": 300,
    }


@pytest.mark.parametrize("bet", MINE)
def test_an_unknown_preset_is_named(bet: str) -> None:
    with pytest.raises(InvalidOption, match="'no-such-table'"):
        paytable(bet, "no-such-table")


@pytest.mark.parametrize(
    ("bet", "entry"),
    [
        ("TWENTY_ONE_PLUS_THREE", "PAIR"),
        ("HOT_3", "SUITED_777"),
        ("LUCKY_LADIES", "QUEEN"),
        ("LUCKY_LUCKY", "SEVENS_SUITED"),
        ("TOP_3", "STRAIGHT"),
        ("MATCH_THE_DEALER", "TWO_SUITED"),  # an outcome, but the entries are the matches
        ("OVER_13", "UNDER"),
        ("UNDER_13", "OVER"),
    ],
)
def test_an_unknown_entry_is_named(bet: str, entry: str) -> None:
    with pytest.raises(InvalidOption, match=f"'{entry}'"):
        paytable(bet, "", {entry: 100})
