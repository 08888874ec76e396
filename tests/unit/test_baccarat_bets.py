"""Baccarat's bets (docs/rules.md §7): the paytables, their presets and overrides, the refusals
(worded as the blackjack side-bet library's), every outcome's signed pay, and the settlement of
random dealt rounds against the reference (``tests/support/reference/baccarat_ref.py``)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, parse_cards
from pricing.errors import InvalidOption
from pricing.games.baccarat import (
    MAIN_BETS,
    SIDE_BETS,
    BaccaratPaytable,
    Commission,
    main_paytables,
    outcome_pays,
    paytable,
    settle,
)
from tests.support.effort import effort
from tests.support.reference import baccarat_ref as ref

#: Every paytable a table can offer: each commission's main bets (the tie at 8 and 9) and
#: every preset of every side bet.
EVERY_TABLE = [
    *(t for c in Commission for t in main_paytables(c, 8)),
    main_paytables(Commission.STANDARD, 9)[2],
    *(paytable(bet) for bet in SIDE_BETS),
    paytable("PERFECT_PAIR", "evolution"),
    paytable("LUCKY_6", "12-23"),
    paytable("SUPER_6", "12"),
]


def test_the_bets_and_their_default_pays() -> None:
    assert MAIN_BETS == ("PLAYER", "BANKER", "TIE")
    assert len(SIDE_BETS) == 22 and SIDE_BETS[-1] == "EGALITE_9"
    pays = {t.bet: dict(t.pays) for t in (paytable(bet) for bet in SIDE_BETS)}
    assert pays["PLAYER_PAIR"] == pays["BANKER_PAIR"] == {"WIN": 1100}
    assert pays["EITHER_PAIR"] == {"WIN": 500}
    assert pays["PERFECT_PAIR"] == {"WIN": 2500}
    assert pays["DRAGON_7"] == {"WIN": 4000} and pays["PANDA_8"] == {"WIN": 2500}
    assert pays["DRAGON_BONUS_PLAYER"] == {
        "NATURAL_WIN": 100,
        "WIN_BY_9": 3000,
        "WIN_BY_8": 1000,
        "WIN_BY_7": 600,
        "WIN_BY_6": 400,
        "WIN_BY_5": 200,
        "WIN_BY_4": 100,
    }
    assert pays["BIG"] == {"WIN": 54} and pays["SMALL"] == {"WIN": 150}
    assert pays["LUCKY_6"] == {"TWO_CARD_6": 1200, "THREE_CARD_6": 2000}
    assert pays["SUPER_6"] == {"WIN": 1500}
    egalite = [pays[f"EGALITE_{t}"]["WIN"] // 100 for t in range(10)]
    assert egalite == [150, 215, 225, 200, 120, 110, 45, 45, 80, 80]


def test_each_outcome_pays_its_signed_hundredths() -> None:
    player, standard, tie = main_paytables(Commission.STANDARD, 8)
    assert outcome_pays(player) == {"WIN": 100, "PUSH": 0}
    assert outcome_pays(standard) == {"WIN": 95, "PUSH": 0}
    assert outcome_pays(tie) == {"WIN": 800}
    assert outcome_pays(main_paytables("EZ", 9)[1]) == {"WIN": 100, "DRAGON_7_PUSH": 0, "PUSH": 0}
    assert outcome_pays(main_paytables(Commission.NO_COMMISSION, 9)[2]) == {"WIN": 900}
    assert outcome_pays(paytable("DRAGON_BONUS_BANKER"))["NATURAL_TIE"] == 0
    assert outcome_pays(paytable("PERFECT_PAIR", " Evolution ")) == {
        "ONE_HAND": 2500,
        "BOTH_HANDS": 25_000,
    }
    assert outcome_pays(paytable("LUCKY_6", "12-23")) == {"TWO_CARD_6": 1200, "THREE_CARD_6": 2300}


def test_overrides_replace_a_presets_entries() -> None:
    table = paytable("DRAGON_BONUS_PLAYER", "", {"WIN_BY_9": 5000, "NATURAL_WIN": 0})
    assert table.preset == "standard"
    assert outcome_pays(table)["WIN_BY_9"] == 5000 and outcome_pays(table)["NATURAL_WIN"] == 0
    assert paytable("SUPER_6", "12", {"WIN": 1300}) == BaccaratPaytable(
        "SUPER_6", "12", {"WIN": 1300}
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: paytable("DRAGON_8"),
            "unknown side bet 'DRAGON_8': expected one of PLAYER_PAIR, BANKER_PAIR, ",
        ),
        (lambda: paytable("BANKER"), "BANKER is a main bet, always offered: its pays are set by"),
        (
            lambda: paytable("LUCKY_6", "12-25"),
            "unknown LUCKY_6 preset '12-25': expected one of 12-20, 12-23",
        ),
        (
            lambda: paytable("PERFECT_PAIR", "", {"BOTH_HANDS": 10}),
            "PERFECT_PAIR entry 'BOTH_HANDS' is not in the standard paytable: expected one of WIN",
        ),
        (
            lambda: paytable("BIG", "", {"WIN": -1}),
            "BIG WIN must be a whole number of hundredths from 0 to 1000000000",
        ),
        (lambda: paytable("BIG", "", {"WIN": True}), "BIG WIN must be a whole number"),
        (lambda: main_paytables(Commission.EZ, 10), "tie_pays must be 8 or 9"),
        (lambda: main_paytables(Commission.EZ, True), "tie_pays must be 8 or 9"),
        (lambda: main_paytables("ZERO", 8), "unknown commission 'ZERO': expected one of STANDARD"),
    ],
)
def test_unknown_bets_presets_entries_and_options_are_refused(call: object, message: str) -> None:
    with pytest.raises(InvalidOption) as refused:
        call()  # type: ignore[operator]
    assert str(refused.value).startswith(message)


def test_the_refusals_name_the_option_at_fault() -> None:
    with pytest.raises(InvalidOption) as tie:
        main_paytables(Commission.STANDARD, 7)
    assert tie.value.field == "tie_pays"
    with pytest.raises(InvalidOption) as commission:
        main_paytables("FIVE_PERCENT", 8)
    assert commission.value.field == "commission"


@pytest.mark.parametrize(
    ("player", "banker", "bet", "preset", "want"),
    [
        ("KS 7D", "3H 3C", "BANKER", "standard", ("LOSE", -100)),
        ("KS 6D", "3H 4C", "BANKER", "standard", ("WIN", 95)),
        ("KS 6D", "3H 3C", "BANKER", "standard", ("PUSH", 0)),
        ("AS 4D KC", "3H 3C", "BANKER", "no-commission", ("WIN_ON_6", 50)),
        ("AS 4D KC", "2H KC 5D", "BANKER", "ez", ("DRAGON_7_PUSH", 0)),
        ("AS 4D KC", "2H KC 5D", "DRAGON_7", "standard", ("WIN", 4000)),
        ("3S KD 5C", "2H KC 4D", "PANDA_8", "standard", ("WIN", 2500)),
        ("3S KD 5C", "2H KC 4D", "BIG", "standard", ("WIN", 54)),
        ("9S KD", "9H QC", "DRAGON_BONUS_PLAYER", "standard", ("NATURAL_TIE", 0)),
        ("9S KD", "4H 4C", "DRAGON_BONUS_BANKER", "standard", ("LOSE", -100)),
        ("9S KD", "4H 3C", "DRAGON_BONUS_PLAYER", "standard", ("NATURAL_WIN", 100)),
        ("AS 2D 6C", "KH QC 10D", "DRAGON_BONUS_PLAYER", "standard", ("WIN_BY_9", 3000)),
        ("AS 2D 2C", "KH QC 2D", "DRAGON_BONUS_PLAYER", "standard", ("LOSE", -100)),
        ("4S 4D", "4H 4C", "PERFECT_PAIR", "evolution", ("LOSE", -100)),
        ("4S 4S", "4H 4C", "PERFECT_PAIR", "evolution", ("ONE_HAND", 2500)),
        ("4S 4S", "4H 4H", "PERFECT_PAIR", "evolution", ("BOTH_HANDS", 25_000)),
        ("4S 4D", "4H 4C", "EITHER_PAIR", "standard", ("WIN", 500)),
        ("KS 5D QC", "3H 3C", "LUCKY_6", "12-23", ("TWO_CARD_6", 1200)),
        ("4S 4D", "4H 4C", "EGALITE_8", "standard", ("WIN", 8000)),
    ],
)
def test_hand_picked_rounds_settle(
    player: str, banker: str, bet: str, preset: str, want: tuple[str, int]
) -> None:
    if bet in MAIN_BETS:
        table = main_paytables(Commission(preset.upper().replace("-", "_")), 8)[
            MAIN_BETS.index(bet)
        ]
    else:
        table = paytable(bet, preset)
    p, b = parse_cards(player.split()), parse_cards(banker.split())
    assert settle(table, p, b) == want
    assert ref.settle((bet, preset), table.pays, player.split(), banker.split()) == want


def test_an_unfinished_round_does_not_settle() -> None:
    with pytest.raises(ValueError, match="not complete"):
        settle(paytable("BIG"), parse_cards(["AS", "2D"]), parse_cards(["3H", "3C"]))


@pytest.mark.slow
@settings(max_examples=effort(suite=100, exhaustive=2000))
@given(seed=st.integers(0, 2**32 - 1), decks=st.integers(1, 8))
def test_random_rounds_settle_as_the_reference(seed: int, decks: int) -> None:
    """A round dealt from a shuffled shoe by the reference's rules settles every bet of every
    preset as the reference does."""
    shoe = [str(c) for c in DECK for _ in range(decks)]
    rng = random.Random(seed)
    rng.shuffle(shoe)
    player: list[str] = []
    banker: list[str] = []
    while hand := ref.next_hand([ref.card(t) for t in player], [ref.card(t) for t in banker]):
        (player if hand == "PLAYER" else banker).append(shoe.pop())
    for table in EVERY_TABLE:
        want = ref.settle((table.bet, table.preset), table.pays, player, banker)
        assert settle(table, parse_cards(player), parse_cards(banker)) == want, table
