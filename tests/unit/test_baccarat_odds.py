"""Baccarat's exact odds (docs/rules.md §7): the kernel against the reference
(``tests/support/reference/baccarat_ref.py``) on random depleted shoes of 1–8 decks, for the
next round and after every card of random partial deals; the published full 8-deck figures;
closed shoes, finished rounds and the 64-bit bound."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from math import prod
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pricing import _baccarat
from pricing.cards import DECK, Shoe, parse_cards
from pricing.games.baccarat import (
    SIDE_BETS,
    BaccaratPaytable,
    Commission,
    SideBetOdds,
    main_paytables,
    odds,
    paytable,
    settle,
)
from tests.support.effort import effort
from tests.support.reference import baccarat_ref as ref

CARDS = [str(card) for card in DECK]
#: The paytables priced together, one call each (a call prices each bet once): every bet and
#: preset between them.
SETS = (
    (*main_paytables(Commission.STANDARD, 8), *(paytable(bet) for bet in SIDE_BETS)),
    (
        *main_paytables(Commission.NO_COMMISSION, 9),
        paytable("PERFECT_PAIR", "evolution"),
        paytable("LUCKY_6", "12-23"),
        paytable("SUPER_6", "12"),
    ),
    main_paytables(Commission.EZ, 8),
)
REF_BETS = tuple((t.bet, t.preset) for tables in SETS for t in tables)
T = TypeVar("T")
#: 416 × 415 × … × 411: the six-card deals of a full 8-deck shoe.
FULL_8_DECKS = 4_998_398_275_503_360


def counts_of(cards: list[str]) -> tuple[int, ...]:
    held = Counter(cards)
    return tuple(held[text] for text in CARDS)


def check(left: list[str], player: list[str], banker: list[str]) -> None:
    """Every bet of every set priced by the engine equals the reference, outcome by outcome."""
    want = ref.odds(left, player, banker, REF_BETS)
    counts = counts_of(left)
    for tables in SETS:
        got = odds(counts, parse_cards(player), parse_cards(banker), tables)
        assert list(got) == [t.bet for t in tables]
        for table in tables:
            priced = got[table.bet]
            if want is None:
                assert not priced.open and priced.outcomes["LOSE"].total == 0, table
                continue
            distribution = want[table.bet, table.preset]
            fractions = {o: v.fraction for o, v in priced.outcomes.items() if v.ways}
            assert fractions == {o: p for o, p in distribution.items() if p}, table
            assert priced.rtp_fraction == ref.rtp(distribution, table.pays), table


@st.composite
def shoes(draw: st.DrawFn, max_kinds: int, max_cards: int) -> list[str]:
    """The cards left in a shoe of 1–8 decks: a few kinds of card (up to ``max_kinds``), each
    up to ``decks`` times, 6 to ``max_cards`` cards in all. Half the shoes hold two or three
    ranks only, where pairs, perfect pairs, naturals and ties are common."""
    decks = draw(st.integers(1, 8))
    pool = CARDS
    if draw(st.booleans()):
        ranks = draw(st.lists(st.integers(0, 12), min_size=2, max_size=3, unique=True))
        pool = [c for i, c in enumerate(CARDS) if i // 4 in ranks]
    least = -(-6 // decks)  # kinds enough for 6 cards
    kinds = draw(
        st.lists(st.sampled_from(pool), min_size=least, max_size=max(least, max_kinds), unique=True)
    )
    copies = [draw(st.integers(1, decks)) for _ in kinds]
    while sum(copies) < 6:
        copies[next(i for i, n in enumerate(copies) if n < decks)] += 1
    while sum(copies) > max_cards:
        copies[copies.index(max(copies))] -= 1
    return [kind for kind, n in zip(kinds, copies, strict=True) for _ in range(n)]


Step = tuple[str, str]  # (the hand, "PLAYER" or "BANKER"; the card)


@st.composite
def deals(draw: st.DrawFn, left: list[str]) -> list[Step]:
    """A partial round dealt from ``left``, card by card: 0–2 first cards to each hand in any
    order, then, once both have two, up to two third cards by the reference's rules."""
    order = list(draw(st.permutations(left)))
    first = ["PLAYER"] * draw(st.integers(0, 2)) + ["BANKER"] * draw(st.integers(0, 2))
    steps = [(hand, order.pop()) for hand in draw(st.permutations(first))]
    if len(steps) == 4:
        for _ in range(draw(st.integers(0, 2))):
            hand = ref.next_hand(*hands(steps, ref.card))
            if hand is None:
                break
            steps.append((hand, order.pop()))
    return steps


def hands(steps: list[Step], read: Callable[[str], T]) -> tuple[list[T], list[T]]:
    """The Player's and the Banker's cards after ``steps``, each card read by ``read``."""
    return (
        [read(card) for hand, card in steps if hand == "PLAYER"],
        [read(card) for hand, card in steps if hand == "BANKER"],
    )


def without(cards: list[str], dealt: list[str]) -> list[str]:
    return list((Counter(cards) - Counter(dealt)).elements())


def against_the_reference(suite: int, exhaustive: int) -> settings:
    """A test against the slow reference: ``effort(suite, exhaustive)`` examples, no deadline
    and no shrinking (a failing shoe is reported as drawn: the reference is too slow to
    shrink)."""
    return settings(
        max_examples=effort(suite=suite, exhaustive=exhaustive),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )


@pytest.mark.slow
@against_the_reference(suite=12, exhaustive=300)
@given(data=st.data(), left=shoes(max_kinds=6, max_cards=14))
def test_the_next_round_and_every_card_of_a_deal_match_the_reference(
    data: st.DataObject, left: list[str]
) -> None:
    steps = data.draw(deals(left))
    for k in range(len(steps) + 1):
        player, banker = hands(steps[:k], str)
        check(without(left, player + banker), player, banker)


@pytest.mark.slow
@against_the_reference(suite=3, exhaustive=40)
@given(data=st.data(), left=shoes(max_kinds=9, max_cards=40))
def test_deeper_shoes_match_the_reference(data: st.DataObject, left: list[str]) -> None:
    player, banker = hands(data.draw(deals(left)), str)
    check(without(left, player + banker), player, banker)


@pytest.mark.parametrize(
    ("player", "banker"),
    [
        ("AS 3D", "2S KD"),  # the Player draws, then the Banker on 2
        ("AS 3D 8C", "2S AD"),  # the Banker on 3 stands on an 8: the round is over
        ("AS 3D 6C", "6S KD"),  # the Banker on 6 draws on a 6
        ("7H KC", "4H AC"),  # the Player stands on 7, the Banker draws on 5
        ("QS 2S", "JH 9D"),  # a natural
    ],
)
def test_a_round_in_an_eight_deck_shoe_matches_the_reference(player: str, banker: str) -> None:
    """Deep shoes after the first four cards, where the reference has at most two to deal."""
    dealt = player.split() + banker.split()
    check(without(CARDS * 8, dealt), player.split(), banker.split())


def test_a_shoe_of_fewer_than_six_cards_deals_no_round() -> None:
    five, six = ["AS", "2S", "3S", "4S", "5S"], ["AS", "2S", "3S", "4S", "5S", "6S"]
    check(five, [], [])
    check(six, [], [])
    closed = odds(counts_of(five), [], [], SETS[0])
    assert not any(p.open for p in closed.values())
    assert all(p.open for p in odds(counts_of(six), [], [], SETS[0]).values())
    # In a round, what counts is the cards the round started with.
    check(["4S", "5S"], ["AS", "2S"], ["3S", "KS"])
    check(["5S"], ["AS", "2S"], ["3S", "KS"])


@pytest.mark.slow
@settings(max_examples=effort(suite=60, exhaustive=1000), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), decks=st.integers(1, 8))
def test_a_finished_round_is_certain_and_settles_as_priced(seed: int, decks: int) -> None:
    """Once the round is over, every bet's odds are its settlement with probability 1."""
    shoe = [str(c) for c in DECK for _ in range(decks)]
    random.Random(seed).shuffle(shoe)
    player: list[str] = []
    banker: list[str] = []
    while hand := ref.next_hand([ref.card(t) for t in player], [ref.card(t) for t in banker]):
        (player if hand == "PLAYER" else banker).append(shoe.pop())
    p, b = parse_cards(player), parse_cards(banker)
    for tables in SETS:
        for table in tables:
            priced = odds(counts_of(shoe), p, b, [table])[table.bet]
            result, _ = settle(table, p, b)
            assert priced.outcomes[result].fraction == 1, (table, result)


def test_hands_no_round_reaches_are_refused() -> None:
    with pytest.raises(ValueError, match="a third card"):
        odds(Shoe(1).counts(), parse_cards(["AS", "2S", "3S"]), parse_cards(["4S"]), SETS[2])
    with pytest.raises(ValueError, match="third card"):
        _baccarat.cell_ways(Shoe(1).counts(), [0, 4, 8], [12])


def test_the_kernel_refuses_outcome_codes_it_cannot_hold() -> None:
    counts = Shoe(1).counts()
    with pytest.raises(ValueError, match="400 outcome codes a bet"):
        _baccarat.round_ways(counts, [], [], bytes(399), bytes([1]))
    with pytest.raises(ValueError, match="at most 15 outcome codes"):
        _baccarat.round_ways(counts, [], [], bytes(400), bytes([16]))


# --- The published full-shoe figures (8 decks) ----------------------------------------------


def full_shoe(*tables: BaccaratPaytable) -> dict[str, SideBetOdds]:
    return odds(Shoe(8).counts(), [], [], tables)


def edge_percent(priced: SideBetOdds, digits: int) -> Fraction:
    """The exact house edge in percent, rounded to ``digits`` decimals."""
    return round((1 - priced.rtp_fraction) * 100, digits)


def test_the_common_total_fits_64_bits() -> None:
    _, total = _baccarat.cell_ways(Shoe(8).counts(), [], [])
    assert total == prod(range(411, 417)) == FULL_8_DECKS < 2**63
    cells, _ = _baccarat.cell_ways(Shoe(8).counts(), [], [])
    assert sum(cells) == total


def test_the_main_bets_published_edges_and_combinations() -> None:
    """Rule book figures (Wizard of Odds; Jacobson): Banker 1.0579 %, Player 1.2351 %, Tie
    8:1 14.3596 %; the combinations are the Wizard of Odds' 8-deck baccarat table, reprinted at
    http://www.casinoexploit.com/baccarat.html, over 416 × 415 × … × 411."""
    priced = full_shoe(*main_paytables(Commission.STANDARD, 8))
    banker, player, tie = priced["BANKER"], priced["PLAYER"], priced["TIE"]
    assert banker.outcomes["WIN"].ways == player.outcomes["LOSE"].ways == 2_292_252_566_437_888
    assert player.outcomes["WIN"].ways == 2_230_518_282_592_256
    assert tie.outcomes["WIN"].ways == banker.outcomes["PUSH"].ways == 475_627_426_473_216
    assert banker.outcomes["WIN"].total == FULL_8_DECKS
    assert edge_percent(banker, 4) == Fraction("1.0579")
    assert edge_percent(player, 4) == Fraction("1.2351")
    assert edge_percent(tie, 4) == Fraction("14.3596")


def test_the_ez_game_and_its_side_bets() -> None:
    """EZ Baccarat, Wizard of Odds (https://wizardofodds.com/games/ez-baccarat/, 8 decks): the
    Banker's three-card 7 wins 112,633,011,329,024 deals (house edge 1.02 %: 1.0183 % in its
    return column), the Dragon 7 the same deals at 40:1 (7.61 %; the rule book's 7.611 %), the
    Panda 8 172,660,763,262,976 at 25:1 (10.19 %, 10.1876 % in the return column)."""
    priced = full_shoe(*main_paytables(Commission.EZ, 8), paytable("DRAGON_7"), paytable("PANDA_8"))
    assert priced["BANKER"].outcomes["DRAGON_7_PUSH"].ways == 112_633_011_329_024
    assert priced["DRAGON_7"].outcomes["WIN"].ways == 112_633_011_329_024
    assert priced["PANDA_8"].outcomes["WIN"].ways == 172_660_763_262_976
    assert edge_percent(priced["BANKER"], 4) == Fraction("1.0183")
    assert edge_percent(priced["DRAGON_7"], 3) == Fraction("7.611")
    assert edge_percent(priced["PANDA_8"], 4) == Fraction("10.1876")


def test_the_banker_win_on_6_the_lucky_6_and_the_super_6() -> None:
    """Lucky 6, Wizard of Odds (https://wizardofodds.com/games/baccarat/side-bets/lucky-6/, 8
    decks): the Banker wins on a two-card 6 in 186,173,936,904,192 deals and on a three-card
    6 in 83,058,367,551,488; house edges 11.70 % (12 and 23 : 1) and 16.68 % (12 and 20 : 1).
    The no-commission Banker's win on 6 and the Super 6 are the same deals."""
    two, three = 186_173_936_904_192, 83_058_367_551_488
    priced = full_shoe(*main_paytables(Commission.NO_COMMISSION, 8), paytable("LUCKY_6"))
    assert priced["LUCKY_6"].outcomes["TWO_CARD_6"].ways == two
    assert priced["LUCKY_6"].outcomes["THREE_CARD_6"].ways == three
    assert priced["BANKER"].outcomes["WIN_ON_6"].ways == two + three
    assert edge_percent(priced["LUCKY_6"], 2) == Fraction("16.68")
    liberal = full_shoe(paytable("LUCKY_6", "12-23"), paytable("SUPER_6"))
    assert edge_percent(liberal["LUCKY_6"], 2) == Fraction("11.70")
    assert liberal["SUPER_6"].outcomes["WIN"].ways == two + three


def test_the_no_commission_banker_with_eight_and_six_decks() -> None:
    """Nepal Baccarat (no commission, a Banker win on 6 pays 1 : 2), Wizard of Odds
    (https://wizardofodds.com/games/baccarat/appendix/6/): 8 decks, 2,023,020,261,982,210 other
    Banker wins (printed to 15 digits: rounded to tens) and 269,232,304,455,680 on six (house
    edge 1.4581 %); 6 decks, 355,773,521,203,200 and 47,322,230,031,360 of
    878,869,206,895,680 (1.4548 %)."""
    tables = main_paytables(Commission.NO_COMMISSION, 8)
    for decks, win, on_6, edge in (
        (8, 2_023_020_261_982_210, 269_232_304_455_680, "1.4581"),
        (6, 355_773_521_203_200, 47_322_230_031_360, "1.4548"),
    ):
        banker = odds(Shoe(decks).counts(), [], [], tables)["BANKER"]
        assert round(banker.outcomes["WIN"].ways, -1) == win
        assert banker.outcomes["WIN_ON_6"].ways == on_6
        assert banker.outcomes["WIN"].total == prod(range(52 * decks - 5, 52 * decks + 1))
        assert edge_percent(banker, 4) == Fraction(edge)
    assert prod(range(307, 313)) == 878_869_206_895_680


def test_the_dragon_bonus() -> None:
    """Dragon Bonus, Wizard of Odds (https://wizardofodds.com/games/baccarat/appendix/5/, 8
    decks): every winning event's combinations (its loss row and total are printed rounded
    to tens), house edges 2.65 % (Player) and 9.37 % (Banker)."""
    priced = full_shoe(paytable("DRAGON_BONUS_PLAYER"), paytable("DRAGON_BONUS_BANKER"))
    published = {
        "DRAGON_BONUS_PLAYER": (
            18_409_431_764_992,
            34_097_645_543_424,
            89_590_261_473_280,
            141_238_897_317_888,
            166_169_165_987_840,
            186_780_352_174_080,
        ),
        "DRAGON_BONUS_BANKER": (
            15_390_342_909_952,
            28_305_092_784_128,
            79_517_099_278_336,
            119_200_072_366_080,
            157_275_882_332_160,
            201_147_167_287_296,
        ),
    }
    for bet, margins in published.items():
        outcomes = priced[bet].outcomes
        assert [outcomes[f"WIN_BY_{m}"].ways for m in range(9, 3, -1)] == list(margins)
        assert outcomes["NATURAL_WIN"].ways == 812_685_054_124_032
        assert outcomes["NATURAL_TIE"].ways == 89_325_908_267_520
    assert edge_percent(priced["DRAGON_BONUS_PLAYER"], 2) == Fraction("2.65")
    assert edge_percent(priced["DRAGON_BONUS_BANKER"], 2) == Fraction("9.37")


def test_the_egalite_bets() -> None:
    """Egalité, Wizard of Odds (https://wizardofodds.com/games/baccarat/side-bets/egalite/, 8
    decks): the deals tied on each total, out of 4,998,398,275,503,360."""
    published = (
        28_979_901_420_544,
        20_499_217_668_352,
        20_006_606_104_576,
        22_250_510_129_408,
        36_294_133_463_040,
        39_684_046_743_808,
        96_170_001_308_416,
        101_717_538_899_968,
        54_879_416_675_072,
        55_146_054_060_032,
    )
    priced = full_shoe(*(paytable(f"EGALITE_{t}") for t in range(10)))
    assert [priced[f"EGALITE_{t}"].outcomes["WIN"].ways for t in range(10)] == list(published)
    assert sum(published) == 475_627_426_473_216  # every tie


def test_the_pair_bets() -> None:
    """Player Pair 11:1: the rule book's 10.36 %. Perfect Pairs, Wizard of Odds
    (https://wizardofodds.com/games/baccarat/side-bets/perfect-pairs-ver1/ and ``-ver2/``, 8
    decks): 246,848,784 winning deals of 7,379,583,120 (13.03 % at 25:1); with both hands paid
    250:1, 2,101,008 both and 244,747,776 one (6.62 %)."""
    priced = full_shoe(paytable("PLAYER_PAIR"), paytable("BANKER_PAIR"), paytable("PERFECT_PAIR"))
    assert edge_percent(priced["PLAYER_PAIR"], 2) == Fraction("10.36")
    assert priced["BANKER_PAIR"].rtp_fraction == priced["PLAYER_PAIR"].rtp_fraction
    assert priced["PERFECT_PAIR"].outcomes["WIN"].fraction == Fraction(246_848_784, 7_379_583_120)
    assert edge_percent(priced["PERFECT_PAIR"], 2) == Fraction("13.03")
    evolution = full_shoe(paytable("PERFECT_PAIR", "evolution"))["PERFECT_PAIR"].outcomes
    assert evolution["BOTH_HANDS"].fraction == Fraction(2_101_008, 7_379_583_120)
    assert evolution["ONE_HAND"].fraction == Fraction(244_747_776, 7_379_583_120)
    assert edge_percent(full_shoe(paytable("PERFECT_PAIR", "evolution"))["PERFECT_PAIR"], 2) == (
        Fraction("6.62")
    )


def test_the_number_of_cards_big_and_small() -> None:
    """The "4-5-6" bet, Wizard of Odds (https://wizardofodds.com/games/baccarat/appendix/5/, 8
    decks): a round uses 4 cards with probability 0.378868, 5 with 0.303444, 6 with
    0.317687."""
    cells, total = _baccarat.cell_ways(Shoe(8).counts(), [], [])
    by_cards: Counter[int] = Counter()
    for cell, ways in enumerate(cells):
        by_cards[4 + cell // 200 + (cell // 100) % 2] += ways
    assert [round(Fraction(by_cards[n], total), 6) for n in (4, 5, 6)] == [
        Fraction("0.378868"),
        Fraction("0.303444"),
        Fraction("0.317687"),
    ]
    priced = full_shoe(paytable("SMALL"), paytable("BIG"))
    assert priced["SMALL"].outcomes["WIN"].ways == by_cards[4]
    assert priced["BIG"].outcomes["WIN"].ways == by_cards[5] + by_cards[6]
