"""The main game's decisions (docs/rules.md §3.9): the expected value of each action open to a
player hand against the dealer's up card, from what is left of the shoe.

Step 1, no splitting: STAND, HIT (then playing on by the best of stand and hit on the hand's
exact cards: composition-dependent play), DOUBLE (first two cards only: one card, then stand on
a doubled stake) and SURRENDER (first two cards only, against an up card 2–10: −0.5 exactly).
``SPLIT`` is named but not computed yet. EVs are per unit of the original wager and
unconditional: the dealer has no hole card (docs/rules.md §3.1), and the chance that the dealer's
second card makes a blackjack is part of every EV; a dealer blackjack takes only the original
wager (a doubled hand loses 1), a player blackjack pushes against it and otherwise pays 1.5.

The kernel (``pricing._analyzer``) computes in C doubles over integer card counts, as every
combinatorial analyzer does; the tests hold it to an exact ``Fraction`` reference within 1e-12.

>>> from pricing.cards import Shoe
>>> shoe = Shoe.without(["6S", "5H", "2D"], decks=6)  # the hand's and up card's cards out
>>> d = decisions(["6S", "5H"], "2D", shoe.counts())
>>> d.best, round(d.ev(Action.DOUBLE), 6), round(d.ev(Action.HIT), 6)
(<Action.DOUBLE: 'DOUBLE'>, 0.486057, 0.245699)
>>> [a.value for a in d.legal]
['STAND', 'HIT', 'DOUBLE', 'SURRENDER']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from pricing import _analyzer
from pricing.cards import CARDS_PER_DECK, MAX_DECKS, Card, Rank, parse_card
from pricing.errors import InvalidInput
from pricing.games.blackjack.rules import DealerRule

__all__ = ["SURRENDER_EV", "Action", "HandDecisions", "decisions"]

#: Surrendering gives up half the wager before the dealer's second card: a later dealer
#: blackjack costs nothing more.
SURRENDER_EV: Final = -0.5


class Action(StrEnum):
    """A player's decision on a hand, in the order ties are broken (the first wins)."""

    STAND = "STAND"
    HIT = "HIT"
    DOUBLE = "DOUBLE"
    SPLIT = "SPLIT"  # not computed yet: never among a HandDecisions' legal actions
    SURRENDER = "SURRENDER"


@dataclass(frozen=True, slots=True)
class HandDecisions:
    """The EV of every legal action (``legal``, in ``Action`` order) and the ``best`` one.
    ``compositions`` is the number of dealer distributions the kernel computed."""

    evs: dict[Action, float] = field(hash=False)
    legal: tuple[Action, ...]
    best: Action
    compositions: int = 0

    def ev(self, action: Action) -> float:
        """The EV of ``action``; ``InvalidInput`` if it is not open to the hand.

        >>> from pricing.cards import Shoe
        >>> d = decisions(["AS", "KH"], "5D", Shoe.without(["AS", "KH", "5D"]).counts())
        >>> d.ev(Action.STAND), d.legal
        (1.5, (<Action.STAND: 'STAND'>,))
        >>> d.ev(Action.HIT)
        Traceback (most recent call last):
        ...
        pricing.errors.InvalidInput: HIT is not open to this hand (open: STAND)
        """
        if action not in self.evs:
            open_ = " ".join(a.value for a in self.legal)
            raise InvalidInput(f"{action.value} is not open to this hand (open: {open_})")
        return self.evs[action]


def _value(card: Card) -> int:
    return min(int(card.rank), 10)


def decisions(
    hand: Iterable[Card | str],
    up_card: Card | str,
    counts: Sequence[int],
    rule: DealerRule | str = DealerRule.S17,
) -> HandDecisions:
    """The EV of each action open to the player's ``hand`` (its cards from the seat's first two
    on, at least two) against ``up_card``, drawing from a shoe of ``counts[i]`` cards of deck
    index ``i`` (``Card.index``; the hand's and the up card's cards already out of it), the
    dealer playing by ``rule``.

    Open: STAND always; HIT below 21; DOUBLE and SURRENDER on the first two cards only,
    SURRENDER not against an Ace. A blackjack (the first two cards A + ten) only stands: it pays
    1.5 unless the dealer makes one too. ``InvalidInput`` for fewer than two cards, a busted
    hand or bad counts; ``IllegalMove`` if the shoe could run out in some line of play.

    >>> from pricing.cards import Shoe
    >>> shoe = Shoe.without(["10S", "6H", "2D"], decks=6)
    >>> d = decisions(["10S", "6H"], "2D", shoe.counts())
    >>> round(d.ev(Action.STAND), 8), round(d.ev(Action.HIT), 6), d.best
    (-0.29362664, -0.470104, <Action.STAND: 'STAND'>)
    >>> decisions(["10S", "6H"], "AD", Shoe.without(["10S", "6H", "AD"]).counts()).legal
    (<Action.STAND: 'STAND'>, <Action.HIT: 'HIT'>, <Action.DOUBLE: 'DOUBLE'>)
    """
    cards = [parse_card(c) for c in hand]
    up = parse_card(up_card)
    dealer_rule = DealerRule.parse(rule)
    if len(cards) < 2:
        raise InvalidInput(f"a hand has at least two cards, got {len(cards)}")
    if len(counts) != CARDS_PER_DECK:
        raise InvalidInput(f"need {CARDS_PER_DECK} card counts, got {len(counts)}")
    value_counts = [0] * 10
    for index, count in enumerate(counts):
        if not isinstance(count, int) or not 0 <= count <= MAX_DECKS:
            raise InvalidInput(f"card count must be 0-{MAX_DECKS}, got {count!r} at {index}")
        value_counts[min(index // 4, 9)] += count
    values = [_value(c) for c in cards]
    if sum(values) > 21:
        shown = " ".join(str(c) for c in cards)
        raise InvalidInput(f"the hand {shown} is busted ({sum(values)})")
    first_two = len(cards) == 2
    stand, hit, double, compositions = _analyzer.decision_evs(
        values, _value(up), value_counts, dealer_rule is DealerRule.H17, first_two
    )
    evs: dict[Action, float] = {Action.STAND: stand}
    if hit is not None:
        evs[Action.HIT] = hit
    if double is not None:
        evs[Action.DOUBLE] = double
        if up.rank is not Rank.ACE:
            evs[Action.SURRENDER] = SURRENDER_EV
    legal = tuple(a for a in Action if a in evs)
    best = max(legal, key=lambda a: evs[a])  # the first of equal EVs
    return HandDecisions(evs, legal, best, compositions)
