"""Card notation and shoe composition (docs/rules.md §0)."""

from __future__ import annotations

import pytest

from pricing.cards import DECK, Card, Rank, Shoe, Suit, parse_card
from pricing.errors import CardNotInShoe, InvalidCard, InvalidOption


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("7♣", "7C"),
        ("  as ", "AS"),
        ("q♦", "QD"),
        ("K♥", "KH"),
        ("j♠", "JS"),
        ("\t2c\n", "2C"),
    ],
)
def test_parse_accepts_the_notation(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize("bad", ["1H", "11S", "XX", "", "AHX", "10", None, "   ", "A", "10X", 7])
def test_parse_rejects_bad_text_quoting_it(bad: object) -> None:
    with pytest.raises(ValueError) as info:
        parse_card(bad)
    assert isinstance(info.value, InvalidCard)
    assert repr(bad) in str(info.value)


def test_every_card_round_trips_through_its_canonical_text() -> None:
    assert len(set(DECK)) == 52
    for index, card in enumerate(DECK):
        assert card.index == index
        assert parse_card(str(card)) == card
        assert parse_card(str(card).lower()) is card


def test_cards_are_immutable_and_hashable() -> None:
    card = Card(Rank.ACE, Suit.SPADES)
    assert {card: 1}[parse_card("AS")] == 1
    with pytest.raises(AttributeError):
        card.rank = Rank.TWO  # type: ignore[misc]


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_shoe_counts_each_card_once_per_deck(decks: int) -> None:
    shoe = Shoe(decks)
    assert shoe.remaining == 52 * decks == len(list(shoe))
    assert shoe.rank_counts() == (4 * decks,) * 13


@pytest.mark.parametrize("decks", [0, 9, -1, 1.0, "6", True])
def test_shoe_refuses_a_deck_count_outside_1_to_8(decks: object) -> None:
    with pytest.raises(InvalidOption, match="decks"):
        Shoe(decks)  # type: ignore[arg-type]


def test_a_fifth_ace_is_refused_and_nothing_changes() -> None:
    shoe = Shoe(1)
    for text in ("AS", "AH", "AD", "AC"):
        shoe.remove(parse_card(text))
    before = shoe.copy()
    with pytest.raises(CardNotInShoe, match="AS"):
        shoe.remove(parse_card("AS"))
    assert shoe == before
    assert shoe.remaining == 48
    assert shoe.rank_counts()[0] == 0


def test_remove_all_is_all_or_nothing() -> None:
    shoe = Shoe(1)
    with pytest.raises(CardNotInShoe, match="KD"):
        shoe.remove_all(["2S", "KD", "KD"])
    assert shoe == Shoe(1)
    with pytest.raises(InvalidCard, match="ZZ"):
        shoe.remove_all(["2S", "ZZ"])
    assert shoe == Shoe(1)
    shoe.remove_all(["2S", "KD"])
    assert shoe.remaining == 50


def test_add_returns_a_card_but_never_beyond_the_decks() -> None:
    shoe = Shoe.without(["QH"], decks=2)
    shoe.add(parse_card("QH"))
    assert shoe == Shoe(2)
    with pytest.raises(CardNotInShoe):
        shoe.add(parse_card("QH"))
