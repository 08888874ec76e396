"""The dealer-bust side bets of the library, Bust It and Buster (docs/rules.md §3.8): the
kernel's exact odds against the brute-force ``Fraction`` reference
(``tests/support/reference/dealer_bust_ref.py``) on random partial shoes under both dealer
rules, the published house edges, and the settlement of hand-built dealer hands."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from pricing import _dealer_bust
from pricing.cards import DECK, Shoe, parse_cards
from pricing.games.blackjack.library import BETS, Deal, odds, paytable, settle
from pricing.games.blackjack.rules import DealerRule
from pricing.games.fixed_odds import SideBetOdds
from tests.support.reference import dealer_bust_ref as ref

CARDS = [str(card) for card in DECK]


def counts(exposed: list[str], decks: int) -> tuple[int, ...]:
    return Shoe.without(exposed, decks).counts()


def priced(
    exposed: list[str],
    decks: int,
    rule: DealerRule,
    bust_it: dict[str, int] | None = None,
    buster: dict[str, int] | None = None,
) -> dict[str, SideBetOdds]:
    """Both bets' odds for the next round, through the library (``odds``), with ``bust_it``'s
    and ``buster``'s pays in place of their presets'."""
    tables = [paytable("BUST_IT", "", bust_it), paytable("BUSTER", "", buster)]
    return odds(counts(exposed, decks), rule, tables)


@st.composite
def shoes(draw: st.DrawFn) -> tuple[int, list[str]]:
    """``(decks, exposed)``: 1 to 8 decks dealt to a random point — a random prefix of a
    shuffled shoe; a lopsided shoe, each card keeping a random number of copies (rich or poor
    in a rank or in eights of one suit); or the last few cards of a shoe, where some dealer
    hand can run out of cards and the bets close."""
    decks = draw(st.integers(1, 8))
    full = [c for c in CARDS for _ in range(decks)]
    kind = draw(st.sampled_from(["prefix", "lopsided", "tail"]))
    event(kind)
    if kind == "lopsided":
        keep = draw(st.lists(st.integers(0, decks), min_size=52, max_size=52))
        return decks, [c for c, k in zip(CARDS, keep, strict=True) for _ in range(decks - k)]
    order = draw(st.permutations(range(len(full))))
    left = draw(st.integers(0, 20)) if kind == "tail" else draw(st.integers(0, len(full)))
    return decks, [full[i] for i in order[: len(full) - left]]


def pay_overrides(bet: str) -> st.SearchStrategy[dict[str, int]]:
    return st.fixed_dictionaries({o: st.integers(0, 100_000) for o in BETS[bet].outcomes})


# --- The kernel against the reference -------------------------------------------------------


# No shrinking: with a reference taking a quarter of a second per shoe, shrinking a failure
# runs into Hypothesis's five-minute limit; the failing shoe is reported as drawn.
@pytest.mark.slow
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@pytest.mark.parametrize("rule", [DealerRule.S17, DealerRule.H17])
@given(
    shoe=shoes(),
    bust_it_pays=st.none() | pay_overrides("BUST_IT"),
    buster_pays=st.none() | pay_overrides("BUSTER"),
)
def test_both_bets_match_the_reference_exactly(
    shoe: tuple[int, list[str]],
    rule: DealerRule,
    bust_it_pays: dict[str, int] | None,
    buster_pays: dict[str, int] | None,
) -> None:
    decks, exposed = shoe
    got = priced(exposed, decks, rule, bust_it_pays, buster_pays)
    want = ref.dealer_bust(exposed, decks, rule.value)
    event("closed" if want is None else "open")
    if want is None:  # some dealer hand runs out of cards: the shoe cannot deal the bets
        assert not got["BUST_IT"].open and not got["BUSTER"].open
        return
    for bet, distribution in zip(("BUST_IT", "BUSTER"), want, strict=True):
        table = paytable(bet, "", bust_it_pays if bet == "BUST_IT" else buster_pays)
        assert got[bet].open
        assert {o: v.fraction for o, v in got[bet].outcomes.items()} == distribution
        assert got[bet].rtp_fraction == ref.rtp(distribution, dict(table.pays))
        assert got[bet].player_favourable == (ref.rtp(distribution, dict(table.pays)) > 1)


@pytest.mark.parametrize(
    ("decks", "rule", "dealt"),
    [(8, DealerRule.H17, 0), (8, DealerRule.S17, 0), (6, DealerRule.H17, 150), (2, "S17", 60)],
)
def test_big_shoes_match_the_reference(decks: int, rule: DealerRule | str, dealt: int) -> None:
    """The largest common totals (8 decks: 416 × 415 × … × 404, far beyond 64 bits) are exact
    too; ``rule`` may be given as text."""
    cards = [c for c in CARDS for _ in range(decks)]
    random.Random(dealt).shuffle(cards)
    exposed = cards[:dealt]
    got = priced(exposed, decks, DealerRule.parse(rule))
    want = ref.dealer_bust(exposed, decks, DealerRule.parse(rule).value)
    assert want is not None
    assert {o: v.fraction for o, v in got["BUST_IT"].outcomes.items()} == want[0]
    assert {o: v.fraction for o, v in got["BUSTER"].outcomes.items()} == want[1]
    assert got["BUSTER"].outcomes["LOSE"].total.bit_length() > 64


def test_the_last_cards_of_a_shoe_close_the_bets_when_a_hand_can_run_out() -> None:
    """2-2-2-3-3 can draw all five cards and still need one (12 after five cards); two tens
    always stand on 20, so that shoe deals the bets (and Bust It and Buster surely lose)."""
    low = priced(all_but("2C 2D 2H 3C 3D"), 1, DealerRule.S17)
    assert not low["BUST_IT"].open and not low["BUST_IT"].outcomes["LOSE"].total
    assert not low["BUSTER"].open
    tens = priced(all_but("10C KD"), 1, DealerRule.H17)
    for bet in ("BUST_IT", "BUSTER"):
        assert tens[bet].open
        assert tens[bet].outcomes["LOSE"].fraction == 1


def all_but(left: str) -> list[str]:
    """A one-deck shoe's cards exposed, all but ``left``."""
    return [c for c in CARDS if c not in left.split()]


def test_the_kernel_levels_stay_within_its_bound() -> None:
    """A depleted shoe reaches a subset of the dealer hands the full 8-deck shoe reaches: its
    widest level bounds them all (the kernel holds 384)."""
    full = [8] * 52
    assert _dealer_bust.widest_level(full, False) == 120
    assert _dealer_bust.widest_level(full, True) == 124


# --- Published figures ----------------------------------------------------------------------


def test_bust_it_published_house_edge_six_decks_under_either_rule() -> None:
    """Wizard of Odds: 6.912 % with six decks. A soft 17 cannot bust on its third card, so the
    bet is the same under S17 and H17: both reproduce it."""
    s17 = priced([], 6, DealerRule.S17)["BUST_IT"]
    h17 = priced([], 6, DealerRule.H17)["BUST_IT"]
    assert s17.outcomes == h17.outcomes
    assert round(100 * s17.house_edge, 3) == 6.912
    n = 312 * 311 * 310
    # 8-8-8: 4 suits × 6 × 5 × 4 suited; 2 colours × 12 × 11 × 10 of one colour, less suited.
    assert s17.outcomes["SUITED_888"].fraction == Fraction(4 * 6 * 5 * 4, n)
    assert s17.outcomes["SAME_COLOUR_888"].fraction == Fraction(2 * 12 * 11 * 10 - 480, n)


def test_buster_published_house_edge_six_decks_h17() -> None:
    """Wizard of Odds: 6.2143 % with six decks, the dealer hitting soft 17, 6 cards paying 12;
    its table's probabilities of a bust by cards to six places (its "doesn't bust", 0.714241,
    is 1e-6 off its own column, whose busts add up to 0.285761: exact 0.2857602); 8.25 % with
    the dealer standing on soft 17."""
    h17 = priced([], 6, DealerRule.H17)["BUSTER"]
    assert round(100 * h17.house_edge, 4) == 6.2143
    published = {
        "BUST_8_PLUS": 0.000012,
        "BUST_7": 0.000214,
        "BUST_6": 0.002638,
        "BUST_5": 0.020473,
        "BUST_3_OR_4": round(0.173032 + 0.089392, 6),  # its 3 and 4 cards
    }
    assert {o: round(h17.outcomes[o].probability, 6) for o in published} == published
    assert round(1 - h17.outcomes["LOSE"].probability, 6) == 0.285760
    s17 = priced([], 6, DealerRule.S17)["BUSTER"]
    assert round(100 * s17.house_edge, 2) == 8.25
    fifteen = priced([], 6, DealerRule.H17, buster={"BUST_6": 1500})["BUSTER"]
    assert round(100 * fifteen.house_edge, 2) == 5.42  # the printed 15 : 1 is not the 6.2143 %


@pytest.mark.parametrize(
    ("decks", "s17", "h17"),
    [
        (1, 8.77, 6.89),
        (2, 8.48, 6.51),
        (4, 8.31, 6.29),
        (5, 8.27, 6.25),
        (6, 8.25, 6.21),
        (8, 8.22, 6.17),
    ],
)
def test_buster_published_house_edges_by_decks_and_rule(decks: int, s17: float, h17: float) -> None:
    """Wizard of Odds' table of Buster's house edge (6 cards paying 12) by decks and rule."""
    for rule, edge in ((DealerRule.S17, s17), (DealerRule.H17, h17)):
        assert round(100 * priced([], decks, rule)["BUSTER"].house_edge, 2) == edge


# --- Settlement -----------------------------------------------------------------------------


def deal(dealer: str, rule: DealerRule, player: str = "") -> Deal:
    return Deal(tuple(parse_cards(player.split())), tuple(parse_cards(dealer.split())), rule)


BOTH = [DealerRule.S17, DealerRule.H17]


@pytest.mark.parametrize("rule", BOTH)
@pytest.mark.parametrize(
    ("dealer", "outcome", "pays"),
    [
        ("8H 8H 8H", "SUITED_888", 20_000),  # its own award only, not BUST_8's too
        ("8H 8D 8H", "SAME_COLOUR_888", 5000),
        ("8C 8S 8S", "SAME_COLOUR_888", 5000),
        ("8C 8H 8S", "BUST_8", 700),  # 8-8-8 of both colours: an 8 third
        ("10S 6H 6D", "BUST_6", 1500),
        ("9S 6H 7D", "BUST_7", 900),
        ("7S 7D 8C", "BUST_8", 700),
        ("7S 6D 9C", "BUST_9", 500),
        ("10S 2H KD", "BUST_TEN", 300),
        ("5S 8H QC", "BUST_TEN", 300),
        ("AS KH", "LOSE", -100),  # a blackjack is no bust
        ("10S 7H", "LOSE", -100),  # stands on two cards
        ("10S 6H 5D", "LOSE", -100),  # 21 on three cards
        ("KS 6H AD", "LOSE", -100),  # hard 17 on three cards
        ("2S 3H 10D 10C", "LOSE", -100),  # a four-card bust
    ],
)
def test_bust_it_settles_the_finished_dealer_hand(
    dealer: str, outcome: str, pays: int, rule: DealerRule
) -> None:
    assert settle(paytable("BUST_IT"), deal(dealer, rule)) == (outcome, pays)


@pytest.mark.parametrize("rule", BOTH)
@pytest.mark.parametrize(
    ("dealer", "outcome", "pays"),
    [
        ("10S 6H KD", "BUST_3_OR_4", 200),
        ("2S 3H 10D 10C", "BUST_3_OR_4", 200),
        ("2S 2H 2D 10C KH", "BUST_5", 400),
        ("2S 2H 2D 2C 8H KH", "BUST_6", 1200),
        ("2S 2H 2D 2C 2S 6H KH", "BUST_7", 5000),
        ("2S 2H 2D 2C 2S 2H 4D KH", "BUST_8_PLUS", 25_000),
        ("2S 2H 2D 2C 2S 2H 3D AH KC", "BUST_8_PLUS", 25_000),  # nine cards
        ("AS KH", "LOSE", -100),  # a blackjack is no bust
        ("10S 7H", "LOSE", -100),
        ("10S 6H 5D", "LOSE", -100),
        ("KS 6H AD", "LOSE", -100),
    ],
)
def test_buster_settles_the_finished_dealer_hand(
    dealer: str, outcome: str, pays: int, rule: DealerRule
) -> None:
    assert settle(paytable("BUSTER"), deal(dealer, rule)) == (outcome, pays)


def test_soft_17_follows_the_tables_rule() -> None:
    """S17 stands on A-6: both bets lose, and a card after it is a burn (docs/rules.md §3.2).
    H17 draws to it: the hand is not over yet, and A-6-5-K busts with four cards."""
    for bet in ("BUST_IT", "BUSTER"):
        table = paytable(bet)
        assert settle(table, deal("AS 6H", DealerRule.S17)) == ("LOSE", -100)
        assert settle(table, deal("AS 6H 5D KC", DealerRule.S17)) == ("LOSE", -100)
        assert settle(table, deal("AS 6H", DealerRule.H17)) is None
        assert settle(table, deal("AS 6H KD", DealerRule.H17)) == ("LOSE", -100)
    assert settle(paytable("BUSTER"), deal("AS 6H 5D KC", DealerRule.H17)) == ("BUST_3_OR_4", 200)
    assert settle(paytable("BUST_IT"), deal("AS 6H 5D KC", DealerRule.H17)) == ("LOSE", -100)


@pytest.mark.parametrize("rule", BOTH)
@pytest.mark.parametrize("dealer", ["", "10S", "10S 6H", "2S 3H 4D", "AS AH AD"])
def test_a_round_ended_before_the_dealer_hand_is_over_refunds(
    dealer: str, rule: DealerRule
) -> None:
    for bet in ("BUST_IT", "BUSTER"):
        assert settle(paytable(bet), deal(dealer, rule, player="10C 9D")) is None


def test_the_dealer_completes_the_hand_when_every_player_has_busted() -> None:
    """The bets settle on the dealer's hand alone: the seat's cards (busted, or none) do not
    refund them."""
    for player in ("10C 10H 5D", ""):
        busted = deal("10C 6D 8S", DealerRule.S17, player=player)
        assert settle(paytable("BUST_IT"), busted) == ("BUST_8", 700)
        assert settle(paytable("BUSTER"), busted) == ("BUST_3_OR_4", 200)


def test_the_bets_are_in_the_library_after_the_others() -> None:
    assert list(BETS)[-2:] == ["BUST_IT", "BUSTER"]
    for bet, kernel in (
        ("BUST_IT", _dealer_bust.BUST_IT_OUTCOMES),
        ("BUSTER", _dealer_bust.BUSTER_OUTCOMES),
    ):
        engine = BETS[bet]
        assert engine.dealer_drawing
        assert engine.outcomes == kernel
        assert list(paytable(bet).pays) == list(engine.outcomes)
    assert paytable("BUST_IT").preset == "galaxy"
    assert paytable("BUSTER").preset == "ags"
