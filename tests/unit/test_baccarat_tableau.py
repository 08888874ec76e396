"""Baccarat's drawing rules (docs/rules.md §7): the tableau against the published drawing table,
row by row, the first four cards in any order, naturals, the dealer's refusals, hands no round
reaches, and every step of random deals against the reference's own rules
(``tests/support/reference/baccarat_ref.py``)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import DECK, Card, parse_cards
from pricing.games.baccarat import Hand, is_complete, is_natural, next_hands, refusal, total, value
from tests.support.effort import effort
from tests.support.reference import baccarat_ref as ref

PLAYER, BANKER = Hand.PLAYER, Hand.BANKER

#: The Banker's drawing table after a Player's third card (the form casinos print): by the
#: Banker's two-card total (rows) and the value of the Player's third card (columns), H draws
#: and S stands.
DRAWING_TABLE = """
    0 1 2 3 4 5 6 7 8 9
7   S S S S S S S S S S
6   S S S S S S H H S S
5   S S S S H H H H S S
4   S S H H H H H H S S
3   H H H H H H H H S H
2   H H H H H H H H H H
1   H H H H H H H H H H
0   H H H H H H H H H H
"""


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def of_value(v: int, suit: str = "H") -> str:
    return ("K" if v == 0 else "A" if v == 1 else str(v)) + suit


def banker_on(t: int) -> list[Card]:
    """Two Banker cards totalling ``t`` (0–7: no natural)."""
    return cards(f"10C {of_value(t, 'D')}")


def table_rows() -> list[tuple[int, int, bool]]:
    lines = DRAWING_TABLE.strip().splitlines()[1:]
    return [
        (int(line.split()[0]), third, mark == "H")
        for line in lines
        for third, mark in enumerate(line.split()[1:])
    ]


@pytest.mark.parametrize(("banker_total", "third", "draws"), table_rows())
def test_every_cell_of_the_banker_drawing_table(banker_total: int, third: int, draws: bool) -> None:
    player = cards(f"AH 2S {of_value(third, 'C')}")  # 3 draws, then the third card
    banker = banker_on(banker_total)
    assert total(banker) == banker_total and value(player[2]) == third
    assert next_hands(player, banker) == ({BANKER} if draws else frozenset())
    assert is_complete(player, banker) is not draws
    assert refusal(player, banker, PLAYER) == (
        "the player already has three cards" if draws else "the round is complete"
    )
    if draws:
        assert refusal(player, banker, BANKER) is None
        assert is_complete(player, [*banker, DECK[0]])
    elif banker_total == 7:
        assert refusal(player, banker, BANKER) == "the banker stands on 7"
    else:
        assert refusal(player, banker, BANKER) == (
            f"the banker stands on {banker_total} when the player's third card is worth {third}"
        )


@pytest.mark.parametrize("player_total", range(8))
@pytest.mark.parametrize("banker_total", range(8))
def test_the_player_draws_on_0_to_5_and_a_banker_after_a_player_who_stood_on_0_to_5(
    player_total: int, banker_total: int
) -> None:
    player, banker = cards(f"QS {of_value(player_total, 'S')}"), banker_on(banker_total)
    if player_total <= 5:
        assert next_hands(player, banker) == {PLAYER}
        assert refusal(player, banker, BANKER) == f"the player draws first, on {player_total}"
        return
    assert refusal(player, banker, PLAYER) == f"the player stands on {player_total}"
    if banker_total <= 5:
        assert next_hands(player, banker) == {BANKER}
        assert is_complete(player, [*banker, DECK[0]])
    else:
        assert next_hands(player, banker) == frozenset()
        assert refusal(player, banker, BANKER) == f"the banker stands on {banker_total}"


@pytest.mark.parametrize(
    ("player", "banker", "natural"),
    [("4S 4D", "2C 3C", 8), ("2C 3C", "KS 9H", 9), ("9S QD", "5H 3H", 9), ("AS 7S", "6D 2D", 8)],
)
def test_a_natural_stands_both_hands(player: str, banker: str, natural: int) -> None:
    p, b = cards(player), cards(banker)
    assert is_natural(p) or is_natural(b)
    assert is_complete(p, b)
    for hand in Hand:
        assert refusal(p, b, hand) == f"a natural {natural}: both hands stand"


def test_the_first_four_come_in_any_order() -> None:
    assert next_hands([], []) == {PLAYER, BANKER}
    assert next_hands([], cards("2S")) == {PLAYER, BANKER}
    assert next_hands([], cards("2S 3S")) == {PLAYER}
    assert next_hands(cards("2S 3S"), cards("4D")) == {BANKER}
    assert refusal(cards("2S 3S"), [], PLAYER) == (
        "the player already has two cards and the banker does not"
    )
    assert refusal([], cards("9S KS"), BANKER) == (
        "the banker already has two cards and the player does not"
    )
    # A natural on the first two stops nothing before the other hand has its two.
    assert next_hands(cards("9S KS"), cards("4D")) == {BANKER}


@pytest.mark.parametrize(
    ("player", "banker"),
    [
        ("AS 2S 3S 4S", "2D 3D"),  # four cards
        ("AS 2S 3S", "2D"),  # a third card before the first four
        ("9S KS 3S", "2D 3D"),  # a third card after a natural
        ("AS 2S 3S", "8D KD"),  # the Banker's natural
        ("6S KS 3S", "2D 3D"),  # the Player stands on 6
        ("AS 2S", "2D 3D 4D"),  # the Banker's card before the Player's third
        ("7S KS", "7D KD 4D"),  # the Banker stands on 7
        ("AS 2S 8S", "AD 2D 4D"),  # 3 stands on an 8
    ],
)
def test_hands_no_round_reaches_are_refused(player: str, banker: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        next_hands(cards(player), cards(banker))


@pytest.mark.slow
@settings(max_examples=effort(suite=150, exhaustive=3000))
@given(seed=st.integers(0, 2**32 - 1))
def test_every_step_of_a_random_deal_agrees_with_the_reference(seed: int) -> None:
    """A shuffled deck dealt by the reference's rules: at each card, the tableau offers the
    reference's hand (the first four in any order: then either hand short of two), and the
    round ends where the reference's does."""
    deck = [str(c) for c in DECK]
    random.Random(seed).shuffle(deck)
    player: list[str] = []
    banker: list[str] = []
    for text in deck:
        engine = next_hands(parse_cards(player), parse_cards(banker))
        wanted = ref.next_hand([ref.card(t) for t in player], [ref.card(t) for t in banker])
        if wanted is None:
            assert engine == frozenset()
            return
        assert Hand(wanted) in engine
        assert refusal(parse_cards(player), parse_cards(banker), Hand(wanted)) is None
        if len(player) >= 2 and len(banker) >= 2:
            assert engine == {Hand(wanted)}
        (player if wanted == "PLAYER" else banker).append(text)
    raise AssertionError("a round ends within six cards")
