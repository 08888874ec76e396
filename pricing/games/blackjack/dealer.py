"""The dealer's final result as an exact distribution (docs/rules.md §3): from an up card
(``dealer_odds``), from the dealer's hand so far (``dealer_odds_from_hand``), and for every
up-card value of the next round (``dealer_table``).

Exactness: the kernel (``pricing._blackjack``) enumerates every order in which the dealer can
draw and sums the exact weights in unsigned 128-bit integers over the common denominator
``N × (N − 1) × … × (N − 11)`` (a dealer hand draws at most 12 cards), which for 8 decks is
below 416**12 ≈ 2.8e31 < 2**128: no floating point anywhere, and ``DealerOdds`` keeps the
integer numerators over one denominator.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from pricing import _blackjack
from pricing.cards import CARD_INDEX, Card, card_index, parse_card
from pricing.errors import InvalidInput
from pricing.games.blackjack.rules import DealerRule, check_decks

__all__ = [
    "DEALER_OUTCOMES",
    "UP_VALUES",
    "DealerOdds",
    "dealer_odds",
    "dealer_odds_from_hand",
    "dealer_outcomes",
    "dealer_outcomes_from_hand",
    "dealer_table",
    "dealer_table_from_rows",
    "up_value",
]

#: The dealer's final results, in the order every dealer distribution uses.
DEALER_OUTCOMES: Final[tuple[str, ...]] = _blackjack.DEALER_OUTCOMES
#: The up-card values the dealer's play depends on (10 stands for 10, J, Q and K).
UP_VALUES: Final[tuple[str, ...]] = _blackjack.VALUE_SYMBOLS


@dataclass(frozen=True, slots=True)
class DealerOdds:
    """The exact distribution of the dealer's final result: ``numerators[i] / denominator``
    for ``DEALER_OUTCOMES[i]`` (17, 18, 19, 20, 21, BJ, BUST), in lowest common terms.
    ``up`` is the value of the dealer's up card (the hand's first card)."""

    up: str
    rule: DealerRule
    numerators: tuple[int, ...]
    denominator: int

    @classmethod
    def from_exact(
        cls, up: str, rule: DealerRule, exact: tuple[tuple[int, ...], int]
    ) -> DealerOdds:
        """From the kernel's ``(numerators, denominator)``, already in lowest common terms."""
        numerators, denominator = exact
        return cls(up, rule, numerators, denominator)

    def fractions(self) -> dict[str, Fraction]:
        return {
            o: Fraction(n, self.denominator)
            for o, n in zip(DEALER_OUTCOMES, self.numerators, strict=True)
        }

    def probabilities(self) -> dict[str, float]:
        return {o: float(f) for o, f in self.fractions().items()}


def up_value(card: Card) -> str:
    """The ``UP_VALUES`` entry of ``card``: its rank, a ten-value card ``10``."""
    return UP_VALUES[min(int(card.rank), 10) - 1]


def dealer_odds(
    up: Card | str,
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
) -> DealerOdds:
    """The exact distribution of the dealer's final result from the up card ``up``, drawing
    without replacement from the shoe without ``exposed`` (every other card seen) and ``up``.

    Pre-peek: BJ (a two-card 21) is one of the outcomes. The kernel computes in exact 128-bit
    integers (see ``pricing._blackjack``). ``IllegalMove`` if so few cards are left that some
    dealer hand could not be completed.

    >>> odds = dealer_odds("AS", [], decks=1)
    >>> odds.fractions()["BJ"]
    Fraction(16, 51)
    """
    decks = check_decks(decks)
    dealer_rule = DealerRule.parse(rule)
    card = parse_card(up)
    exact = _blackjack.dealer_exact(
        card, exposed, CARD_INDEX, card_index, decks, dealer_rule is DealerRule.H17
    )
    return DealerOdds.from_exact(up_value(card), dealer_rule, exact)


def dealer_odds_from_hand(
    hand: Iterable[Card | str],
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
) -> DealerOdds:
    """The exact distribution of the dealer's final result given the dealer's hand so far:
    ``hand`` is the dealer's cards in the order dealt (the up card first), the rest is drawn
    without replacement from the shoe without ``exposed`` (every other card seen) and
    ``hand``. A hand that is over (``dealer_hand_result``) is a point mass on its result; BJ
    is only possible as the hand's second card. ``InvalidInput`` for an empty hand or a card
    after the hand is over (``played_dealer_hand`` drops those); ``IllegalMove`` if the shoe
    could not complete some dealer hand. With one card this is ``dealer_odds``.

    >>> dealer_odds_from_hand(["AS", "KH"], [], decks=1).fractions()["BJ"]
    Fraction(1, 1)
    >>> dealer_odds_from_hand(["6S", "KH"], [], decks=1).fractions()["BUST"]
    Fraction(3, 5)
    """
    decks = check_decks(decks)
    dealer_rule = DealerRule.parse(rule)
    cards = tuple(parse_card(c) for c in hand)
    if not cards:
        raise InvalidInput("the dealer's hand needs at least one card")
    exact = _blackjack.dealer_exact_hand(
        cards, exposed, CARD_INDEX, card_index, decks, dealer_rule is DealerRule.H17
    )
    return DealerOdds.from_exact(up_value(cards[0]), dealer_rule, exact)


def dealer_outcomes_from_hand(
    hand: Iterable[Card | str],
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = "S17",
) -> dict[str, float]:
    """``dealer_odds_from_hand`` as floats, keyed as ``dealer_outcomes``.

    >>> dealer_outcomes_from_hand(["6S", "KH", "9D"], [], decks=1)["BUST"]
    1.0
    """
    return dealer_odds_from_hand(hand, exposed, decks, rule).probabilities()


def dealer_outcomes(
    up: Card | str,
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = "S17",
) -> dict[str, float]:
    """``dealer_odds`` as floats, keyed ``"17" "18" "19" "20" "21" "BJ" "BUST"``.

    >>> outcomes = dealer_outcomes("6S", [], decks=1)
    >>> [round(outcomes[k], 6) for k in ("17", "18", "19", "20", "21", "BJ", "BUST")]
    [0.166948, 0.106454, 0.107192, 0.100705, 0.097878, 0.0, 0.420823]
    """
    return dealer_odds(up, exposed, decks, rule).probabilities()


def dealer_table(
    exposed: Iterable[Card | str],
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
) -> dict[str, DealerOdds | None]:
    """For each up-card value of the NEXT round (``A``, ``2`` … ``9``, ``10``), the dealer's
    outcomes if the up card has that value; ``None`` where no such card is left (or the shoe
    could not complete a hand).

    >>> table = dealer_table([], decks=8)
    >>> list(table)[:3], table["10"].fractions()["BJ"] == Fraction(32, 415)
    (['A', '2', '3'], True)
    """
    decks = check_decks(decks)
    dealer_rule = DealerRule.parse(rule)
    rows = _blackjack.dealer_table(
        exposed, CARD_INDEX, card_index, decks, dealer_rule is DealerRule.H17
    )
    return dealer_table_from_rows(rows, dealer_rule)


def dealer_table_from_rows(
    rows: tuple[tuple[tuple[int, ...], int] | None, ...], rule: DealerRule
) -> dict[str, DealerOdds | None]:
    """``dealer_table`` from the kernel's rows, one for each of ``UP_VALUES`` (the shoe's
    ``BlackjackShoe.next_dealer_table`` computes them from its own card counts)."""
    return {
        up: None if exact is None else DealerOdds.from_exact(up, rule, exact)
        for up, exact in zip(UP_VALUES, rows, strict=True)
    }
