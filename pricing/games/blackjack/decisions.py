"""The main game's decisions (docs/rules.md §3.9): the expected value of each action open to a
player hand against the dealer's up card, from what is left of the shoe.

STAND, HIT (then playing on by the best of stand and hit on the hand's exact cards:
composition-dependent play), DOUBLE (first two cards only: one card, then stand on a doubled
stake), SPLIT (a pair of equal values on the first two cards: resplitting up to the table's
limit, each split hand played by the best play for its own cards as if it had not been split,
"CDZ-") and SURRENDER (first two cards only, against an up card 2–10: −0.5 exactly); and
``player_edge``, the next round's expected value over every deal. EVs are per unit of the
original wager and unconditional: the dealer has no hole card (docs/rules.md §3.1), and the
chance that the dealer's second card makes a blackjack is part of every EV; a dealer blackjack
takes only the original wager (a doubled or split hand loses 1 in all), a player blackjack
pushes against it and otherwise pays 1.5.

The kernel (``pricing._analyzer``) computes in C doubles over integer card counts, as every
combinatorial analyzer does; the tests hold it to an exact ``Fraction`` reference within 1e-12.

>>> from pricing.cards import Shoe
>>> shoe = Shoe.without(["6S", "5H", "2D"], decks=6)  # the hand's and up card's cards out
>>> d = decisions(["6S", "5H"], "2D", shoe.counts())
>>> d.best, round(d.ev(Action.DOUBLE), 6), round(d.ev(Action.HIT), 6)
(<Action.DOUBLE: 'DOUBLE'>, 0.486057, 0.245699)
>>> [a.value for a in d.legal]
['STAND', 'HIT', 'DOUBLE', 'SURRENDER']
>>> round(player_edge(Shoe(decks=6).counts(), MainGameRules(surrender=False)), 8)
-0.0040287
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from pricing import _analyzer
from pricing.cards import CARDS_PER_DECK, DECK, MAX_DECKS, Card, Rank, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games.blackjack import basic_strategy
from pricing.games.blackjack.basic_strategy import Spot
from pricing.games.blackjack.rules import DealerRule

__all__ = [
    "MAX_SPLITS",
    "SURRENDER_EV",
    "Action",
    "HandDecisions",
    "MainGameRules",
    "Strategy",
    "card_value",
    "chart_action",
    "decisions",
    "player_edge",
    "value_counts",
]

#: Surrendering gives up half the wager before the dealer's second card: a later dealer
#: blackjack costs nothing more.
SURRENDER_EV: Final = -0.5
#: A pair may be split into at most four hands (docs/rules.md §3.1).
MAX_SPLITS: Final = 3


class Action(StrEnum):
    """A player's decision on a hand, in the order ties are broken (the first wins)."""

    STAND = "STAND"
    HIT = "HIT"
    DOUBLE = "DOUBLE"
    SPLIT = "SPLIT"
    SURRENDER = "SURRENDER"


class Strategy(StrEnum):
    """How the player is assumed to play in ``player_edge``."""

    #: Each decision by the best EV for the hand's exact cards on the shoe as it is; split
    #: hands by the best play for their cards as if unsplit ("CDZ-").
    COMPOSITION = "COMPOSITION"
    #: The fixed total-dependent chart of ``basic_strategy`` (4–8 decks), whatever the shoe.
    BASIC = "BASIC"


@dataclass(frozen=True, slots=True)
class MainGameRules:
    """The main bet's rule options (docs/rules.md §3.9). Fixed by the game: a blackjack pays
    3 : 2, doubling on any first two cards, split Aces take one card each and are not split
    again, a dealer blackjack takes only the original wager."""

    dealer_rule: DealerRule = DealerRule.S17
    double_after_split: bool = True
    #: 1–3: a pair may become at most ``max_splits + 1`` hands.
    max_splits: int = MAX_SPLITS
    #: Surrender on the first two cards against an up card 2–10.
    surrender: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "dealer_rule", DealerRule.parse(self.dealer_rule))
        if (
            not isinstance(self.max_splits, int)
            or isinstance(self.max_splits, bool)
            or not 1 <= self.max_splits <= MAX_SPLITS
        ):
            raise InvalidOption(f"max_splits must be 1-{MAX_SPLITS}, got {self.max_splits!r}")

    @classmethod
    def of(cls, rules: MainGameRules | DealerRule | str) -> MainGameRules:
        """``rules`` as is, or the defaults with the dealer rule ``rules``."""
        return rules if isinstance(rules, MainGameRules) else cls(DealerRule.parse(rules))

    @property
    def h17(self) -> bool:
        return self.dealer_rule is DealerRule.H17


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


def card_value(card: Card) -> int:
    """The value the analyzer reads a card by: 1 (an ace) … 9, 10 for 10 J Q K."""
    return min(int(card.rank), 10)


def value_counts(counts: Sequence[int]) -> list[int]:
    """The shoe ``counts`` (52 counts by ``Card.index``) as the analyzer reads it: the cards
    of each value 1 … 10 (index ``value - 1``). ``InvalidInput`` for bad counts."""
    if len(counts) != CARDS_PER_DECK:
        raise InvalidInput(f"need {CARDS_PER_DECK} card counts, got {len(counts)}")
    values = [0] * 10
    for index, count in enumerate(counts):
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_DECKS:
            raise InvalidInput(f"card count must be 0-{MAX_DECKS}, got {count!r} at {index}")
        values[card_value(DECK[index]) - 1] += count
    return values


def chart_action(spot: Spot, *, soft: bool, total: int, up: int, rules: MainGameRules) -> str:
    """The basic-strategy chart's action (``S``, ``H``, ``D`` or ``R``) under ``rules`` for a
    hand of ``total`` (``soft``: an Ace counted 11) at ``spot`` against the up card of value
    ``up`` (1 = Ace … 10): ``basic_strategy.action`` with the table's dealer rule, doubling
    after a split and surrender. Pairs are looked up first with ``basic_strategy.splits``.

    >>> chart_action(Spot.FIRST_TWO, soft=False, total=16, up=10, rules=MainGameRules())
    'R'
    >>> chart_action(Spot.SPLIT_TWO, soft=False, total=16, up=10, rules=MainGameRules())
    'H'
    """
    return basic_strategy.action(
        spot,
        soft=soft,
        total=total,
        up=up,
        rules_h17=rules.h17,
        das=rules.double_after_split,
        surrender=rules.surrender,
    )


def _chart(rules: MainGameRules) -> bytes:
    """The basic-strategy chart as the kernel reads it: for each spot, soft or hard, total
    0–21 and up card value 1–10 (index ``((spot * 2 + soft) * 22 + total) * 10 + up - 1``) an
    action code (0 stand, 1 hit, 2 double, 3 surrender); then for each pair value and up card
    (index ``1320 + (pair - 1) * 10 + up - 1``) 1 where the chart splits."""
    codes = {"S": 0, "H": 1, "D": 2, "R": 3}
    out = bytearray()
    for spot in Spot:
        for soft in (False, True):
            for total in range(22):
                for up in range(1, 11):
                    out.append(
                        codes[chart_action(spot, soft=soft, total=total, up=up, rules=rules)]
                    )
    for pair in range(1, 11):
        for up in range(1, 11):
            out.append(basic_strategy.splits(pair, up=up, das=rules.double_after_split))
    return bytes(out)


def decisions(
    hand: Iterable[Card | str],
    up_card: Card | str,
    counts: Sequence[int],
    rules: MainGameRules | DealerRule | str = MainGameRules(),
) -> HandDecisions:
    """The EV of each action open to the player's ``hand`` (its cards from the seat's first two
    on, at least two) against ``up_card``, drawing from a shoe of ``counts[i]`` cards of deck
    index ``i`` (``Card.index``; the hand's and the up card's cards already out of it), under
    ``rules`` (or the default rules with the dealer rule ``rules``).

    Open: STAND always; HIT below 21; DOUBLE on the first two cards; SPLIT on a first two
    cards of equal value (10 J Q K are all tens); SURRENDER on the first two cards against an
    up card 2–10 when the rules allow it. A blackjack (the first two cards A + ten) only
    stands: it pays 1.5 unless the dealer makes one too. ``InvalidInput`` for fewer than two
    cards, a busted hand or bad counts; ``IllegalMove`` if the shoe could run out in some line
    of play (for a pair: in some line of its split, by a bound on the cards a split's hands and
    the dealer can draw).

    >>> from pricing.cards import Shoe
    >>> shoe = Shoe.without(["10S", "6H", "2D"], decks=6)
    >>> d = decisions(["10S", "6H"], "2D", shoe.counts())
    >>> round(d.ev(Action.STAND), 8), round(d.ev(Action.HIT), 6), d.best
    (-0.29362664, -0.470104, <Action.STAND: 'STAND'>)
    >>> decisions(["10S", "6H"], "AD", Shoe.without(["10S", "6H", "AD"]).counts()).legal
    (<Action.STAND: 'STAND'>, <Action.HIT: 'HIT'>, <Action.DOUBLE: 'DOUBLE'>)
    >>> eights = decisions(["8S", "8H"], "9D", Shoe.without(["8S", "8H", "9D"], decks=6).counts())
    >>> eights.best, round(eights.ev(Action.SPLIT), 6)
    (<Action.SPLIT: 'SPLIT'>, -0.389371)
    """
    cards = [parse_card(c) for c in hand]
    up = parse_card(up_card)
    game = MainGameRules.of(rules)
    if len(cards) < 2:
        raise InvalidInput(f"a hand has at least two cards, got {len(cards)}")
    shoe = value_counts(counts)
    values = [card_value(c) for c in cards]
    if sum(values) > 21:
        shown = " ".join(str(c) for c in cards)
        raise InvalidInput(f"the hand {shown} is busted ({sum(values)})")
    first_two = len(cards) == 2
    stand, hit, double, split, compositions = _analyzer.hand_evs(
        values,
        card_value(up),
        shoe,
        game.h17,
        first_two,
        game.double_after_split,
        game.max_splits + 1,
    )
    evs: dict[Action, float] = {Action.STAND: stand}
    if hit is not None:
        evs[Action.HIT] = hit
    if double is not None:
        evs[Action.DOUBLE] = double
    if split is not None:
        evs[Action.SPLIT] = split
    if double is not None and game.surrender and up.rank is not Rank.ACE:
        evs[Action.SURRENDER] = SURRENDER_EV
    legal = tuple(a for a in Action if a in evs)
    # The first of equal EVs, equal as the kernel's split play takes them (within its TIE):
    # rounding must not pick the side of an exact tie.
    top = max(evs.values())
    best = next(a for a in legal if evs[a] >= top - _analyzer.TIE)
    return HandDecisions(evs, legal, best, compositions)


def player_edge(
    counts: Sequence[int],
    rules: MainGameRules = MainGameRules(),
    strategy: Strategy = Strategy.COMPOSITION,
) -> float:
    """The next round's expected value per unit of the original wager on the main bet, over
    every deal of the player's two cards and the up card from the shoe ``counts`` (52 counts by
    ``Card.index``), the player playing by ``strategy`` (no insurance, no even money).
    ``IllegalMove`` if the shoe could run out in some line of play.

    >>> from pricing.cards import Shoe
    >>> full = Shoe(decks=6).counts()
    >>> basic = player_edge(full, MainGameRules(surrender=False), Strategy.BASIC)
    >>> -0.0045 < basic < player_edge(full, MainGameRules(surrender=False)) < 0
    True
    """
    shoe = value_counts(counts)
    chart = _chart(rules) if strategy is Strategy.BASIC else None
    return _analyzer.edge(
        shoe,
        rules.h17,
        rules.double_after_split,
        rules.max_splits + 1,
        rules.surrender,
        chart,
    )
