"""The next-card game both Hi-Los are configurations of: a deck, and bets that are predicates on
the next card, each priced exactly by its ``PayRule`` from the cards that can come next.

A deck is some decks of 52 cards with ranks left out (Higher/Lower has no tens) and an order of
its ranks (ace low in Hi-Lo, high in Higher/Lower). A bet wins on an ABSOLUTE set of cards
(ranks and suits) or RELATIVE to the base card: HIGHER, LOWER or the SAME rank in that order.
The pricing itself is the kernel ``pricing._next_card``; this module names its parts.

>>> deck = NextCardDeck(ranks=(Rank.TWO, Rank.THREE, Rank.ACE))
>>> higher = NextCardBet("HIGHER", Relation.HIGHER)
>>> higher.wins(Card.parse("AS"), base=Card.parse("3D"), deck=deck)
True
>>> NextCardBet("RED", suits=frozenset({Suit.HEARTS, Suit.DIAMONDS})).wins(
...     Card.parse("2H"), None, deck)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property
from typing import Final

from pricing import _next_card
from pricing.cards import CARD_INDEX, DECK, MAX_DECKS, Card, Rank, Suit, card_index
from pricing.errors import CardNotInShoe, InvalidCard, InvalidOption
from pricing.payout import BetPrice, Paytable

__all__ = [
    "ALL_RANKS",
    "ALL_SUITS",
    "NextCardBet",
    "NextCardDeck",
    "NextCardGame",
    "Relation",
]

ALL_RANKS: Final = frozenset(Rank)
ALL_SUITS: Final = frozenset(Suit)


class Relation(IntEnum):
    """How a bet reads the next card (the kernel's numbers)."""

    ABSOLUTE = 0  # the card is in the bet's set of ranks and suits
    HIGHER = 1  # its rank is above the base card's, in the deck's order
    LOWER = 2  # below it
    SAME = 3  # the base card's rank


@dataclass(frozen=True, slots=True)
class NextCardDeck:
    """``decks`` decks of the cards of ``ranks``, lowest first: the game's order of ranks.

    >>> NextCardDeck(decks=6, ranks=tuple(r for r in Rank if r != Rank.TEN)).size
    288
    """

    decks: int = 1
    ranks: tuple[Rank, ...] = tuple(Rank)

    def __post_init__(self) -> None:
        if not 1 <= self.decks <= MAX_DECKS:
            raise InvalidOption(
                f"decks must be a whole number from 1 to {MAX_DECKS}, got {self.decks}",
                field="decks",
            )
        if not self.ranks or len(set(self.ranks)) != len(self.ranks):
            raise InvalidOption(f"a deck's ranks must be distinct and not empty: {self.ranks}")

    @property
    def size(self) -> int:
        """Cards in the full shoe."""
        return 4 * len(self.ranks) * self.decks

    @property
    def order(self) -> tuple[int, ...]:
        """Each rank's place (A … K by number) in the deck's order; -1 when left out."""
        return tuple(self.ranks.index(r) if r in self.ranks else -1 for r in Rank)

    @property
    def absent_mask(self) -> int:
        """The cards no deck of this game holds, one bit per deck index."""
        return sum(1 << c.index for c in DECK if c.rank not in self.ranks)

    def holds(self, card: Card) -> bool:
        return card.rank in self.ranks

    def check_holds(self, card: Card, field: str | None = None) -> None:
        """``InvalidCard`` (naming the request's ``field``, if given) unless the game's deck has
        ``card``."""
        if not self.holds(card):
            raise InvalidCard(
                f"card {card} is not in this game's deck: it has no {card.rank.symbol}s",
                field=field,
            )

    def counts(self, out: Iterable[Card] = ()) -> list[int]:
        """The 52 card counts of the full shoe without ``out``: ``check_in``'s refusals for a
        card the deck does not have or that is out more often than the shoe holds it."""
        counts = [self.decks if self.holds(c) else 0 for c in DECK]
        for card in out:
            self.check_in(card, counts[card.index])
            counts[card.index] -= 1
        return counts

    def check_in(self, card: Card, left: int) -> None:
        """Whether ``card`` can come out of a shoe holding ``left`` of it: ``InvalidCard`` for
        a card the game's deck does not have (a malformed argument for this game, whatever
        the shoe's state: INVALID_ARGUMENT), ``CardNotInShoe`` for one all out."""
        self.check_holds(card)
        if left <= 0:
            held = "one of each" if self.decks == 1 else f"{self.decks} of each"
            raise CardNotInShoe(f"card {card} is not in the shoe: it holds {held}, all out")


@dataclass(frozen=True, slots=True)
class NextCardBet:
    """A bet on the next card. ABSOLUTE: it wins on a card of one of ``ranks`` AND one of
    ``suits``; the others compare the card's rank with the base card's in the deck's order."""

    name: str
    relation: Relation = Relation.ABSOLUTE
    ranks: frozenset[Rank] = ALL_RANKS
    suits: frozenset[Suit] = ALL_SUITS

    def wins(self, card: Card, base: Card | None, deck: NextCardDeck) -> bool:
        """Whether the bet wins when ``card`` comes after ``base`` (a relative bet without a
        base never does: it is not offered)."""
        if self.relation is Relation.ABSOLUTE:
            return card.rank in self.ranks and card.suit in self.suits
        if base is None:
            return False
        place, base_place = deck.ranks.index(card.rank), deck.ranks.index(base.rank)
        if self.relation is Relation.HIGHER:
            return place > base_place
        if self.relation is Relation.LOWER:
            return place < base_place
        return place == base_place

    @property
    def mask(self) -> int:
        """The cards an ABSOLUTE bet wins on, one bit per deck index (0 for a relative bet)."""
        if self.relation is not Relation.ABSOLUTE:
            return 0
        return sum(1 << c.index for c in DECK if c.rank in self.ranks and c.suit in self.suits)


@dataclass(frozen=True)
class NextCardGame:
    """A deck and its bets, priced through one compiled kernel per paytable.

    ``close_over_par``: a bet whose payout, once clamped up to its minimum, would return more
    than the stake on average is closed instead (a depleting shoe can make a bet all but
    certain; Hi-Lo's published clamp never reaches that within its 14 cards, so it keeps it
    off, as published).
    """

    deck: NextCardDeck
    bets: tuple[NextCardBet, ...]
    close_over_par: bool = False
    _last: tuple[Paytable, _next_card.BetSet] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _kernels: dict[tuple[type[Paytable], tuple[tuple[int, int, int], ...]], _next_card.BetSet] = (
        field(default_factory=dict, init=False, repr=False, compare=False)
    )

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(bet.name for bet in self.bets)

    @cached_property
    def by_name(self) -> dict[str, NextCardBet]:
        return {bet.name: bet for bet in self.bets}

    @cached_property
    def absent_mask(self) -> int:
        """``deck.absent_mask``, computed once: every quote hands it to the kernel."""
        return self.deck.absent_mask

    def kernel(self, paytable: Paytable) -> _next_card.BetSet:
        """The bets compiled with ``paytable``'s rules (one per paytable, kept: a quote is on
        every card's path, so this look-up is all it costs: the last paytable asked is checked
        by identity first, as a table asks with the same object every time)."""
        last = self._last
        if last is not None and last[0] is paytable:
            return last[1]
        key = (type(paytable), paytable.kernel_rules)
        kernel = self._kernels.get(key)
        if kernel is None:
            if self.names != paytable.BETS:
                raise InvalidOption(f"paytable bets {paytable.BETS} are not {self.names}")
            spec = tuple((b.name, int(b.relation), b.mask) for b in self.bets)
            kernel = _next_card.BetSet(spec, self.deck.order, key[1], self.close_over_par)
            self._kernels[key] = kernel
        object.__setattr__(self, "_last", (paytable, kernel))  # a cache, not a field
        return kernel

    def price_counts(
        self, counts: Sequence[int], base: Card | None, paytable: Paytable
    ) -> dict[str, BetPrice]:
        """Every bet's price with ``counts`` (52 card counts) able to come next after
        ``base``."""
        return self.kernel(paytable).price_counts(counts, -1 if base is None else base.index)

    def quote(
        self, exposed: Iterable[Card | str], base: Card | None, paytable: Paytable
    ) -> dict[str, BetPrice]:
        """Every bet's price after ``exposed`` left the shoe, the base card among them (cards
        or their text, each in the deck: ``deck.counts`` checks cards from outside)."""
        return self.kernel(paytable).quote_cards(
            exposed,
            self.deck.decks,
            CARD_INDEX,
            card_index,
            self.absent_mask,
            -1 if base is None else base.index,
        )

    def offer(self, bet: str, wins: int, remaining: int, paytable: Paytable) -> BetPrice:
        """``bet``'s price when it wins on ``wins`` of ``remaining`` cards, exactly as a quote
        prices it (for reports that count cards without a shoe)."""
        rule = paytable.rules()[bet].as_tuple()
        return _next_card.offer(bet, wins, remaining, rule, self.close_over_par)

    def wins(self, bet: str, card: Card, base: Card | None) -> bool:
        return self.by_name[bet].wins(card, base, self.deck)
