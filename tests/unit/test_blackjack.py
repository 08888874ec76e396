"""Blackjack odds (docs/rules.md §2, §3): published figures, the shape of the API, bad input."""

from __future__ import annotations

import re
from fractions import Fraction
from math import gcd

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing import _blackjack
from pricing.cards import CARD_INDEX, DECK, Card, Rank, Suit, card_index, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidCard, InvalidOption
from pricing.games.blackjack import (
    ANY_PAIR,
    DEALER_OUTCOMES,
    DEFAULT_ROYAL_MATCH,
    PERFECT_PAIRS,
    STANDARD_ROYAL_MATCH,
    DealerRule,
    PairsPaytable,
    RoyalMatchPaytable,
    dealer_odds,
    dealer_outcomes,
    dealer_table,
    insurance,
    pairs_paytable,
    royal_match_paytable,
    side_bets,
)

# --- published figures -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decks", "royal", "easy", "house_edge_pct"),
    [
        (6, 2500, 250, "6.6658"),
        (8, 2500, 250, "6.4597"),
        (6, 1000, 300, "-1.1130"),
        (8, 1000, 300, "-1.3531"),
    ],
)
def test_royal_match_published_house_edges(
    decks: int, royal: int, easy: int, house_edge_pct: str
) -> None:
    table = RoyalMatchPaytable(royal_hundredths=royal, easy_hundredths=easy, crown_hundredths=None)
    odds = side_bets([], decks=decks, royal_match=table)["ROYAL_MATCH"]
    assert f"{(1 - odds.rtp) * 100:.4f}" == house_edge_pct
    edge = (1 - odds.rtp_fraction) * 100
    assert abs(edge - Fraction(house_edge_pct)) <= Fraction(1, 20_000)
    assert odds.player_favourable is house_edge_pct.startswith("-")


def test_royal_match_full_six_deck_ways_by_hand() -> None:
    # 4 suits × C(78, 2) suited pairs, 4 × 6 × 6 suited K+Q; the dealer's two from C(310, 2).
    rm = side_bets([], decks=6)["ROYAL_MATCH"]
    dealer = 310 * 309 // 2
    assert rm.outcomes["EASY"].ways == (4 * 3003 - 144) * dealer
    assert rm.outcomes["ROYAL"].ways + rm.outcomes["CROWN"].ways == 144 * dealer
    # Crown: the dealer's suited K+Q from what the player left: 3 other suits × 36, or 5 × 5.
    assert rm.outcomes["CROWN"].ways == 4 * 36 * (3 * 36 + 25)
    assert rm.outcomes["CROWN"].payout_hundredths == 100_000
    assert all(o.total == 312 * 311 // 2 * dealer for o in rm.outcomes.values())


def test_dealer_outcomes_published_one_deck_up_six() -> None:
    published = {
        "17": 0.166948,
        "18": 0.106454,
        "19": 0.107192,
        "20": 0.100705,
        "21": 0.097879,
        "BUST": 0.420823,
    }
    got = dealer_outcomes("6S", [], decks=1, rule="S17")
    for outcome, p in published.items():
        assert got[outcome] == pytest.approx(p, abs=1e-6)
    assert got["BJ"] == 0.0


# --- shape of the API --------------------------------------------------------------------------


def test_side_bets_shape_and_defaults() -> None:
    odds = side_bets(["AS", "KH", "QH"])
    assert set(odds) == {"ROYAL_MATCH", "PAIRS"}
    rm, pp = odds["ROYAL_MATCH"], odds["PAIRS"]
    assert list(rm.outcomes) == ["CROWN", "ROYAL", "EASY", "LOSE"]
    assert list(pp.outcomes) == ["PERFECT", "COLOURED", "MIXED", "LOSE"]
    assert [rm.outcomes[o].payout_hundredths for o in rm.outcomes] == [100_000, 2500, 250, -100]
    assert [pp.outcomes[o].payout_hundredths for o in pp.outcomes] == [2500, 1200, 600, -100]
    for bet in (rm, pp):
        assert sum(o.ways for o in bet.outcomes.values()) == bet.outcomes["LOSE"].total
        assert sum(o.fraction for o in bet.outcomes.values()) == 1
        assert isinstance(bet.rtp, float) and isinstance(bet.player_favourable, bool)
        assert bet.rtp == float(bet.rtp_fraction)
        assert bet.rtp_fraction == Fraction(bet.rtp_numerator, bet.rtp_denominator)
        assert bet.rtp_bp == int(bet.rtp_fraction * 10_000)
        assert bet.open
    any_pair = side_bets([], decks=6, pairs="any-pair")["PAIRS"]
    assert list(any_pair.outcomes) == ["PAIR", "LOSE"]
    # 13 ranks × C(24, 2) pairs out of C(312, 2); pays 11 : 1.
    assert any_pair.outcomes["PAIR"].fraction == Fraction(13 * 276, 48516)
    assert any_pair.rtp_fraction == Fraction(13 * 276 * 12, 48516)


def test_perfect_pairs_full_shoe_counts() -> None:
    pp = side_bets([], decks=6)["PAIRS"]
    assert pp.outcomes["PERFECT"].ways == 52 * 15  # C(6, 2) of each card
    assert pp.outcomes["COLOURED"].ways == 13 * 2 * 36  # clubs-spades, diamonds-hearts
    assert pp.outcomes["MIXED"].ways == 13 * 12 * 12  # a black one and a red one
    assert pp.rtp_fraction == Fraction(780 * 26 + 936 * 13 + 1872 * 7, 48516)


def test_crown_off_has_no_crown_outcome_its_deals_count_as_royal() -> None:
    on = side_bets([], decks=8, royal_match=DEFAULT_ROYAL_MATCH)["ROYAL_MATCH"]
    off = side_bets([], decks=8, royal_match="standard")["ROYAL_MATCH"]
    assert list(off.outcomes) == ["ROYAL", "EASY", "LOSE"]
    assert off.outcomes["ROYAL"].ways == on.outcomes["ROYAL"].ways + on.outcomes["CROWN"].ways
    assert off.outcomes["ROYAL"].payout_hundredths == 2500
    assert [off.outcomes[o].ways for o in ("EASY", "LOSE")] == [
        on.outcomes[o].ways for o in ("EASY", "LOSE")
    ]
    crown = on.outcomes["CROWN"].fraction
    assert on.rtp_fraction - off.rtp_fraction == crown * Fraction(100_000 - 2500, 100)


def test_insurance_full_and_depleted() -> None:
    full = insurance(["AH"], decks=6)
    assert (full.ways, full.total) == (96, 311)
    assert full.rtp_fraction == Fraction(3 * 96, 311)
    assert not full.player_favourable and not full.take_even_money
    assert full.even_money_advantage == (full.rtp_fraction - 1) / 2
    # Take out low cards until tens are more than a third of the shoe.
    lows = [str(c) for c in DECK if c.rank < Rank.TEN and c.rank != Rank.ACE]
    rich = insurance(["AH", *lows], decks=1)
    assert rich.fraction == Fraction(16, 19)
    assert rich.player_favourable and rich.take_even_money
    assert rich.rtp == pytest.approx(3 * 16 / 19)


def test_insurance_equals_dealer_blackjack_from_an_ace() -> None:
    exposed = ["2C", "KD", "9S", "10H", "AS", "7D"]
    odds = dealer_odds("AH", exposed, decks=2)
    assert odds.fractions()["BJ"] == insurance([*exposed, "AH"], decks=2).fraction


def test_dealer_outcomes_keys_sum_and_rules() -> None:
    for rule in ("S17", "H17", DealerRule.H17):
        got = dealer_outcomes("AS", ["5C", "5D"], decks=6, rule=rule)
        assert list(got) == list(DEALER_OUTCOMES)
        assert sum(got.values()) == pytest.approx(1, abs=1e-15)
        exact = dealer_odds("AS", ["5C", "5D"], decks=6, rule=rule)
        assert sum(exact.fractions().values()) == 1
    s17 = dealer_odds("AS", [], decks=6, rule="S17").fractions()
    h17 = dealer_odds("AS", [], decks=6, rule="H17").fractions()
    assert s17["BJ"] == h17["BJ"]  # the rule starts after two cards
    assert h17["17"] < s17["17"] and h17["BUST"] > s17["BUST"]
    # 10-value up cards are alike, and so are suits.
    assert dealer_odds("JD", [], decks=2) == dealer_odds("10S", [], decks=2)


def test_dealer_table_matches_dealer_odds_per_up_card() -> None:
    exposed = ["2C", "KD", "9S", "10H", "AS", "7D", "7C"]
    table = dealer_table(exposed, decks=1, rule="H17")
    assert list(table) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
    for up, odds in table.items():
        assert odds is not None
        spare = next(
            str(c)
            for c in DECK
            if min(int(c.rank), 10) == (1 if up == "A" else int(up)) and str(c) not in exposed
        )
        assert odds == dealer_odds(spare, exposed, decks=1, rule="H17")


def test_no_dealer_hand_is_longer_than_the_kernel_bound_on_eight_decks() -> None:
    # A full 8-deck shoe holds enough of every rank for any draw sequence that a smaller or
    # depleted shoe allows, so if no up card overflows the kernel's bounds here (12 draws, 384
    # hands of one length), none can: the kernel would raise RuntimeError.
    for rule in ("S17", "H17"):
        for up, odds in dealer_table([], decks=8, rule=rule).items():
            assert odds is not None, up
            assert sum(odds.numerators) == odds.denominator
            assert gcd(odds.denominator, *odds.numerators) == 1  # lowest common terms
            assert odds.denominator < 2**127


def test_dealer_table_marks_missing_up_values() -> None:
    aces = ["AC", "AD", "AH", "AS"]
    table = dealer_table(aces, decks=1)
    assert table["A"] is None and table["2"] is not None


def test_a_shoe_that_cannot_finish_the_dealer_hand_is_refused() -> None:
    keep = {"2D", "3C", "2S"}
    exposed = [str(c) for c in DECK if str(c) not in keep]
    with pytest.raises(IllegalMove, match="cannot complete"):
        dealer_outcomes("2S", exposed, decks=1)


def test_insurance_needs_a_card_left() -> None:
    with pytest.raises(IllegalMove, match="no card is left"):
        insurance([str(c) for c in DECK], decks=1)


def test_crown_needs_four_cards_and_pairs_two() -> None:
    exposed = [str(c) for c in DECK][3:]  # AC AD AH left
    odds = side_bets(exposed, decks=1)
    assert not odds["ROYAL_MATCH"].open and odds["ROYAL_MATCH"].rtp == 0.0
    assert odds["PAIRS"].open and odds["PAIRS"].outcomes["MIXED"].fraction == Fraction(2, 3)


def test_presets_resolve() -> None:
    assert pairs_paytable("perfect-pairs") is PERFECT_PAIRS
    assert pairs_paytable(" ANY-PAIR ") is ANY_PAIR
    assert royal_match_paytable("standard") is STANDARD_ROYAL_MATCH
    custom = PairsPaytable(perfect_hundredths=3000, coloured_hundredths=1000, mixed_hundredths=500)
    assert pairs_paytable(custom) is custom
    assert side_bets([], pairs=custom)["PAIRS"].outcomes["PERFECT"].payout_hundredths == 3000


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["two-pair", "", "PERFECT", 3])
def test_unknown_pairs_preset(preset: object) -> None:
    with pytest.raises(InvalidOption, match=re.escape(repr(preset))) as info:
        side_bets([], pairs=preset)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert "any-pair" in str(info.value)


def test_unknown_royal_match_preset() -> None:
    with pytest.raises(InvalidOption, match="'royal'"):
        side_bets([], royal_match="royal")


@pytest.mark.parametrize(
    "make",
    [
        lambda: RoyalMatchPaytable(royal_hundredths=-2500),
        lambda: RoyalMatchPaytable(easy_hundredths=-1),
        lambda: RoyalMatchPaytable(crown_hundredths=-100_000),
        lambda: PairsPaytable(pair_hundredths=-1100),
        lambda: PairsPaytable(perfect_hundredths=2500, coloured_hundredths=-1, mixed_hundredths=6),
    ],
)
def test_negative_pays_are_refused_naming_the_value(make: object) -> None:
    with pytest.raises(InvalidOption, match=r"got -\d+"):
        make()  # type: ignore[operator]


@pytest.mark.parametrize("pays", [2.5, "250", True, None])
def test_pays_must_be_whole_hundredths(pays: object) -> None:
    with pytest.raises(InvalidOption, match="whole number of hundredths"):
        RoyalMatchPaytable(easy_hundredths=pays)  # type: ignore[arg-type]


def test_pairs_paytable_is_one_shape_or_the_other() -> None:
    with pytest.raises(InvalidOption, match="either"):
        PairsPaytable()
    with pytest.raises(InvalidOption, match="either"):
        PairsPaytable(perfect_hundredths=2500, coloured_hundredths=1200)


@pytest.mark.parametrize("decks", [0, 9, -1, True, 6.0, "6", None])
def test_decks_out_of_range(decks: object) -> None:
    calls = [
        lambda: side_bets([], decks=decks),  # type: ignore[arg-type]
        lambda: insurance(["AS"], decks=decks),  # type: ignore[arg-type]
        lambda: dealer_outcomes("6S", [], decks=decks),  # type: ignore[arg-type]
        lambda: dealer_table([], decks=decks),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(InvalidOption, match=f"got {decks!r}"):
            call()


def test_a_seventh_ace_of_spades_in_a_six_deck_shoe() -> None:
    seven = ["AS"] * 7
    for call in (
        lambda: side_bets(seven, decks=6),
        lambda: insurance(seven, decks=6),
        lambda: dealer_outcomes("6S", seven, decks=6),
        lambda: dealer_table(seven, decks=6),
    ):
        with pytest.raises(CardNotInShoe, match="card AS is not in the shoe") as info:
            call()
        assert isinstance(info.value, ValueError)
    with pytest.raises(CardNotInShoe, match="up card AS"):
        dealer_outcomes("AS", ["AS"] * 6, decks=6)


def test_bad_card_text_and_rule() -> None:
    with pytest.raises(InvalidCard, match="'1S'"):
        side_bets(["1S"])
    with pytest.raises(InvalidCard, match="'ZZ'"):
        dealer_outcomes("ZZ", [])
    with pytest.raises(InvalidOption, match="'S18'"):
        dealer_outcomes("6S", [], rule="S18")


def test_rejected_calls_change_nothing() -> None:
    exposed = ["AS", "KD", "QD"]
    before = side_bets(exposed, decks=1)
    with pytest.raises(CardNotInShoe):
        side_bets([*exposed, "AS"], decks=1)
    with pytest.raises(InvalidOption):
        side_bets(exposed, decks=1, pairs="nope")
    assert exposed == ["AS", "KD", "QD"]
    assert side_bets(exposed, decks=1) == before
    assert DEFAULT_ROYAL_MATCH.pays() == {"CROWN": 100_000, "ROYAL": 2500, "EASY": 250}


def test_cards_and_texts_are_interchangeable() -> None:
    cards = [Card.parse("AS"), Card.parse("10h")]
    assert side_bets(cards, decks=2) == side_bets(["AS", "TH"], decks=2)
    assert insurance(cards, decks=2) == insurance(["as", "10H"], decks=2)


# --- the kernel's card reading agrees with pricing.cards ---------------------------------------


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="AaTtJjQqKk0123456789SsHhDdCcXx ♠♥\t", max_size=4))
def test_kernel_reads_card_text_exactly_as_parse_card(text: str) -> None:
    try:
        want: int | None = parse_card(text).index
    except InvalidCard:
        want = None
    if want is None:
        with pytest.raises(InvalidCard):
            side_bets([text], decks=1)
    else:
        counts = _blackjack.shoe_counts([text], {}, card_index, 1)
        assert counts[want] == 0 and sum(counts) == 51


def test_every_known_spelling_and_card_object_is_read() -> None:
    for key, index in CARD_INDEX.items():
        assert _blackjack.shoe_counts([key], {}, card_index, 1)[index] == 0, key
    fresh = Card(Rank.QUEEN, Suit.HEARTS)  # equal to, not the same object as, the deck's
    assert insurance([fresh, "AS"], decks=1) == insurance(["QH", "AS"], decks=1)
