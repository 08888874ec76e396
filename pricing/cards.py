"""Cards, their notation, and the composition of a shoe of 1 to 8 decks.

Notation (docs/rules.md §0): a rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` (``T`` is accepted for 10)
followed by a suit ``S H D C`` (``♠ ♥ ♦ ♣`` accepted), in any case, with surrounding spaces
ignored. The canonical form is ``10H``, ``AS``, ``QD``.

>>> parse_card(" th ")
Card.parse('10H')
>>> str(parse_card("7♣"))
'7C'
>>> shoe = Shoe(decks=1)
>>> shoe.remove(parse_card("AS"))
>>> shoe.remaining, shoe.count(parse_card("AS"))
(51, 0)

Cards know no game: points, categories and bets belong to the game modules.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

from pricing.errors import CardNotInShoe, InvalidCard, InvalidOption
from pricing.text import BLANKS, quoted

__all__ = [
    "CARDS_PER_DECK",
    "CARD_INDEX",
    "DECK",
    "MAX_DECKS",
    "Card",
    "Rank",
    "Shoe",
    "Suit",
    "card_index",
    "parse_card",
    "parse_cards",
]

MAX_DECKS: Final = 8
CARDS_PER_DECK: Final = 52


class Rank(IntEnum):
    """A card's rank, numbered as printed on the card (ace low: 1)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        """The canonical symbol: ``A``, ``2`` … ``10``, ``J``, ``Q``, ``K``.

        >>> Rank.TEN.symbol, Rank.ACE.symbol
        ('10', 'A')
        """
        return _RANK_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse a rank symbol (``T`` for 10 accepted, any case).

        >>> Rank.parse("t")
        <Rank.TEN: 10>
        """
        symbol = text.strip(BLANKS)
        rank = _RANK_BY_SYMBOL.get(symbol.upper()) if symbol.isascii() else None
        if rank is None:
            raise InvalidCard(f"invalid rank {quoted(text)}: expected one of A 2-10 J Q K (or T)")
        return rank


class Suit(IntEnum):
    """A card's suit, numbered in Goa Gae's ranking order: Club < Diamond < Heart < Spade."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        """The canonical letter: ``C``, ``D``, ``H``, ``S``."""
        return "CDHS"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


_RANK_SYMBOLS: Final[dict[Rank, str]] = {
    rank: {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank.value, str(rank.value)) for rank in Rank
}
_RANK_BY_SYMBOL: Final[dict[str, Rank]] = {sym: rank for rank, sym in _RANK_SYMBOLS.items()} | {
    "T": Rank.TEN
}
_SUIT_BY_SYMBOL: Final[dict[str, Suit]] = {
    "C": Suit.CLUBS,
    "D": Suit.DIAMONDS,
    "H": Suit.HEARTS,
    "S": Suit.SPADES,
    "♣": Suit.CLUBS,
    "♦": Suit.DIAMONDS,
    "♥": Suit.HEARTS,
    "♠": Suit.SPADES,
}


@dataclass(frozen=True, slots=True, repr=False)
class Card:
    """One card. Immutable and hashable; ``str()`` gives the canonical notation.

    Cards are ordered by ``index`` (rank-major), which is only a storage order, not any game's.

    >>> Card(Rank.QUEEN, Suit.DIAMONDS).index
    45
    >>> Card.parse("QD") == Card(Rank.QUEEN, Suit.DIAMONDS)
    True
    """

    rank: Rank
    suit: Suit
    # The notation, made once: states list every card seen in the shoe at every version.
    _name: str = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_name", self.rank.symbol + self.suit.symbol)

    @property
    def index(self) -> int:
        """Position 0–51 in a deck ordered by rank, then suit: ``(rank - 1) * 4 + suit``."""
        return (self.rank - 1) * 4 + self.suit

    @classmethod
    def parse(cls, text: str) -> Card:
        return parse_card(text)

    @classmethod
    def from_index(cls, index: int) -> Card:
        return DECK[index]

    def __str__(self) -> str:
        return self._name

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # Unpickled (a table image) as the one shared instance of its card: the kernels read
        # cards by identity (pricing._deck).
        return (Card.from_index, (self.index,))

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


#: The 52 distinct cards, ``DECK[card.index] == card``.
DECK: Final[tuple[Card, ...]] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)

# Exact-text fast path for parsing: the canonical and common spellings of every card. Anything
# else goes through the full parser below.
_FAST: Final[dict[str, Card]] = {}
for _card in DECK:
    for _r in {_card.rank.symbol, "T" if _card.rank == Rank.TEN else _card.rank.symbol}:
        for _s in (_card.suit.symbol, "♣♦♥♠"[_card.suit]):
            _FAST[_r + _s] = _card
            _FAST[(_r + _s).lower()] = _card
del _card, _r, _s

#: Every ``Card`` and every fast-path spelling, mapped to its deck index: the kernels' card
#: reader (``pricing._deck``) falls back to it for what it cannot read directly.
CARD_INDEX: Final[dict[object, int]] = {card: card.index for card in DECK} | {
    text: card.index for text, card in _FAST.items()
}


#: What card text may hold once the blanks around it are dropped; the longest spelling ("10♠").
_CARD_CHARS: Final = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz♣♦♥♠")
_MAX_CARD_TEXT: Final = 3


def parse_card(text: object) -> Card:
    """Parse one card in the notation of docs/rules.md §0; raise ``InvalidCard`` (a ``ValueError``)
    quoting the bad text.

    >>> str(parse_card("10h")), str(parse_card("TS")), str(parse_card("a♠"))
    ('10H', '10S', 'AS')
    >>> parse_card("1H")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidCard: invalid card '1H': rank '1' is not one of A 2-10 J Q K (or T)
    """
    if isinstance(text, Card):
        return text
    if isinstance(text, str):
        card = _FAST.get(text)
        if card is not None:
            return card
        # Only blanks around the card are dropped, and only plain ASCII (or a suit symbol) is
        # upper-cased: str.strip() would also drop "\x1f" or "\x85", and "A\u017f" (long s)
        # upper-cases to "AS".
        cleaned = text.strip(BLANKS)
        if len(cleaned) > _MAX_CARD_TEXT or not _CARD_CHARS.issuperset(cleaned):
            raise InvalidCard(
                f"invalid card {quoted(text)}: expected a rank then a suit in ASCII letters or "
                "digits (or ♠♥♦♣), e.g. '10H'"
            )
        cleaned = cleaned.upper()
        card = _FAST.get(cleaned)
        if card is not None:
            return card
        if len(cleaned) < 2:
            raise InvalidCard(
                f"invalid card {quoted(text)}: expected a rank then a suit, e.g. '10H'"
            )
        rank = _RANK_BY_SYMBOL.get(cleaned[:-1])
        suit = _SUIT_BY_SYMBOL.get(cleaned[-1])
        if rank is None:
            raise InvalidCard(
                f"invalid card {quoted(text)}: rank {cleaned[:-1]!r} is not one of "
                "A 2-10 J Q K (or T)"
            )
        if suit is None:
            raise InvalidCard(
                f"invalid card {quoted(text)}: suit {cleaned[-1]!r} is not one of S H D C (or ♠♥♦♣)"
            )
        raise AssertionError("unreachable: every valid spelling is in the fast table")
    raise InvalidCard(f"invalid card {quoted(text)}: expected text such as '10H'")


def parse_cards(texts: Iterable[object]) -> list[Card]:
    """Parse several cards.

    >>> [str(c) for c in parse_cards(["as", "Td"])]
    ['AS', '10D']
    """
    return [parse_card(t) for t in texts]


def card_index(card: object) -> int:
    """The deck index (0–51) of a ``Card`` or card text."""
    return parse_card(card).index


class Shoe:
    """How many of each of the 52 cards remain in a shoe of ``decks`` decks (1–8).

    ``remove`` refuses a card that is not there and then changes nothing.

    >>> shoe = Shoe(decks=1)
    >>> shoe.remove(parse_card("AS"))
    >>> shoe.remove(parse_card("AS"))
    Traceback (most recent call last):
    ...
    pricing.errors.CardNotInShoe: card AS is not in the shoe: all 1 of the 1-deck shoe are gone
    >>> shoe.remaining
    51
    """

    __slots__ = ("_counts", "_remaining", "decks")

    def __init__(self, decks: int = 1) -> None:
        if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
            raise InvalidOption(
                f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks!r}"
            )
        self.decks: Final = decks
        self._counts = [decks] * 52
        self._remaining = 52 * decks

    @classmethod
    def without(cls, cards: Iterable[object], decks: int = 1) -> Shoe:
        """A fresh shoe with ``cards`` removed (all or nothing)."""
        shoe = cls(decks)
        shoe.remove_all(cards)
        return shoe

    @property
    def remaining(self) -> int:
        return self._remaining

    def count(self, card: Card) -> int:
        return self._counts[card.index]

    def counts(self) -> tuple[int, ...]:
        """Remaining count of each card, by ``Card.index``."""
        return tuple(self._counts)

    def rank_counts(self) -> tuple[int, ...]:
        """Remaining count of each rank, ace first (13 entries)."""
        c = self._counts
        return tuple(c[i] + c[i + 1] + c[i + 2] + c[i + 3] for i in range(0, 52, 4))

    def remove(self, card: Card) -> None:
        """Take one ``card`` out; ``CardNotInShoe`` (a ``ValueError``) if none is left."""
        if self._counts[card.index] == 0:
            raise CardNotInShoe(
                f"card {card} is not in the shoe: all {self.decks} of the "
                f"{self.decks}-deck shoe are gone"
            )
        self._counts[card.index] -= 1
        self._remaining -= 1

    def remove_all(self, cards: Iterable[object]) -> None:
        """Remove every card, or none of them if any is invalid or missing."""
        parsed = parse_cards(cards)
        trial = list(self._counts)
        for card in parsed:
            if trial[card.index] == 0:
                raise CardNotInShoe(
                    f"card {card} is not in the shoe: all {self.decks} of the "
                    f"{self.decks}-deck shoe are gone"
                )
            trial[card.index] -= 1
        self._counts = trial
        self._remaining -= len(parsed)

    def add(self, card: Card) -> None:
        """Put one ``card`` back (a continuous shuffler returning a round's cards)."""
        if self._counts[card.index] >= self.decks:
            raise CardNotInShoe(f"card {card} cannot go back: the shoe already holds all of them")
        self._counts[card.index] += 1
        self._remaining += 1

    def copy(self) -> Shoe:
        other = Shoe(self.decks)
        other._counts = list(self._counts)
        other._remaining = self._remaining
        return other

    def __iter__(self) -> Iterator[Card]:
        """Every remaining card, with repeats, in deck order."""
        for card, n in zip(DECK, self._counts, strict=True):
            for _ in range(n):
                yield card

    def __len__(self) -> int:
        return self._remaining

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shoe):
            return NotImplemented
        return self.decks == other.decks and self._counts == other._counts

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Shoe(decks={self.decks}, remaining={self._remaining})"
