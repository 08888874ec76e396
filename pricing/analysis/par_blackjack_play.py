"""Blackjack rounds as a table deals them and a basic-strategy player plays them, for the PAR
sheet's simulation (``pricing.analysis.par_blackjack``): the shoes whose rounds the side bets
and insurance are priced at, and the main game's net result and total stake of every round.

A shoe is a seeded shuffle of every card, dealt round after round until the cut card,
``cut_card`` cards from the end, comes out: a round starts only while more than ``cut_card``
cards are left, and the round the cut card comes out in is played to its end (blackjack's
usual procedure; no round after it). One seat. A round is dealt as docs/rules.md §3.1 has it:
a card to the player, the dealer's up card, the player's second card (no hole card); the player
plays by the basic strategy the analyzer prices (``pricing.games.blackjack.basic_strategy``, the
same chart as ``player_edge(…, Strategy.BASIC)``); then the dealer's second card, and, if a
player hand is still standing, the dealer draws by the table's rule (§3.2).

The player's play, as the analyzer's chart play (docs/rules.md §3.9): a blackjack stands; a pair
the chart splits is split, and a split hand is split again whenever a card of the pair comes
and the table's limit allows (Aces once, one card each); every other decision is the chart's
at the hand's spot (first two cards, a split hand's first two, more cards), surrender only on
the first two cards against 2–10. Settlement (§3.1, §3.9): a blackjack pays 3 : 2 and pushes a
dealer blackjack; a surrender loses half the wager before the dealer's second card; a dealer
blackjack takes exactly the original wager from every other round, doubled, split or busted;
otherwise each hand wins or loses its stake (doubled: two) against the dealer's total.

>>> script = iter([10, 6, 1, 9])  # ten, the dealer's 6, an Ace: a blackjack; the dealer 6-9
>>> play_round(lambda: next(script), MainGameRules())
PlayedRound(net_halves=3, staked=1)
>>> script = iter([6, 5, 5, 10, 10, 7])  # 6-5 against a 5: double, 21; the dealer 5-10-7 busts
>>> play_round(lambda: next(script), MainGameRules())
PlayedRound(net_halves=4, staked=2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Final

from pricing.cards import CARDS_PER_DECK, DECK
from pricing.games.blackjack.basic_strategy import Spot, splits
from pricing.games.blackjack.decisions import (
    MainGameRules,
    card_value,
    chart_action,
    value_counts,
)

__all__ = [
    "VALUES",
    "DealtRound",
    "PlayedRound",
    "RanOut",
    "average_total_bet",
    "deal_shoe",
    "play_round",
]

#: The value (1 = Ace … 10) of each card, by ``Card.index``.
VALUES: Final = tuple(card_value(card) for card in DECK)
_ACE: Final = 1
_TEN: Final = 10
#: A dealer or player total over 21.
_BUST: Final = 22

#: Draws the next card of the shoe, as its value 1–10 (``RanOut`` when none is left).
Draw = Callable[[], int]


#: A finished player hand: its hard total, whether it holds an Ace, its stake in units.
Hand = tuple[int, bool, int]


class RanOut(Exception):
    """The shoe ran out in the middle of a round (only a very short cut card allows it)."""


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """A round's main-game result: the net result in halves of the initial wager (a
    blackjack +3, a surrender −1, a doubled win +4) and the units staked (the initial wager,
    each double's and each split hand's: 1 to 8)."""

    net_halves: int
    staked: int


@dataclass(frozen=True, slots=True)
class DealtRound:
    """One round of a simulated shoe: the shoe's 52 card counts (by ``Card.index``) when it
    starts, and its main-game result (``None``: the shoe ran out during it)."""

    counts: tuple[int, ...]
    played: PlayedRound | None


def _total(hard: int, ace: bool) -> tuple[int, bool]:
    """The best total of a hand of hard total ``hard`` holding an Ace if ``ace``, and whether
    it is soft (an Ace counted 11)."""
    if ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def _dealer_total(up: int, second: int, draw: Draw, h17: bool) -> int:
    """The dealer's final total from the up card and second card, drawing to 16 and on soft
    17 when ``h17`` (``_BUST`` for a bust)."""
    hard, ace = up + second, _ACE in (up, second)
    while True:
        total, soft = _total(hard, ace)
        if total > 21:
            return _BUST
        if total > 17 or (total == 17 and not (soft and h17)):
            return total
        card = draw()
        hard += card
        ace = ace or card == _ACE


def _decision(hard: int, ace: bool, spot: Spot, up: int, rules: MainGameRules) -> str:
    """The chart's action for a hand at ``spot`` against ``up`` (``chart_action``); a hand of
    21 or more stands."""
    total, soft = _total(hard, ace)
    if total >= 21:
        return "S"
    return chart_action(spot, soft=soft, total=total, up=up, rules=rules)


def _play(hand: tuple[int, bool], spot: Spot, up: int, draw: Draw, rules: MainGameRules) -> Hand:
    """A hand played by the chart from ``spot`` to its end (no surrender: the caller handles
    it): its final hard total, whether it holds an Ace, and its stake (2 once doubled)."""
    hard, ace = hand
    while (letter := _decision(hard, ace, spot, up, rules)) != "S":
        card = draw()
        hard += card
        ace = ace or card == _ACE
        if letter == "D":
            return hard, ace, 2
        spot = Spot.MORE_CARDS
    return hard, ace, 1


def _split(pair: int, up: int, draw: Draw, rules: MainGameRules) -> list[Hand]:
    """The hands a split of two cards of value ``pair`` ends with: each hand draws its second
    card in turn, a card of the pair starting one more hand while the limit allows (split Aces:
    two hands, one card each), then is played by the chart from a split hand's first two."""
    limit = 2 if pair == _ACE else rules.max_splits + 1
    waiting = 2  # hands holding only their pair card
    hands = 2
    out: list[Hand] = []
    while waiting:
        waiting -= 1
        card = draw()
        while card == pair and hands < limit:
            hands += 1
            waiting += 1
            card = draw()
        hard, ace = pair + card, _ACE in (pair, card)
        if pair == _ACE:
            out.append((hard, ace, 1))
        else:
            out.append(_play((hard, ace), Spot.SPLIT_TWO, up, draw, rules))
    return out


def play_round(draw: Draw, rules: MainGameRules) -> PlayedRound:
    """One round dealt from ``draw`` and played by the basic strategy under ``rules`` (see the
    module's docstring); ``RanOut`` if the shoe runs out in it."""
    first, up, second = draw(), draw(), draw()
    if {first, second} == {_ACE, _TEN}:
        dealer_second = draw()
        return PlayedRound(0 if {up, dealer_second} == {_ACE, _TEN} else 3, 1)
    hard, ace = first + second, _ACE in (first, second)
    if first == second and splits(first, up=up, das=rules.double_after_split):
        hands = _split(first, up, draw, rules)
    else:
        if _decision(hard, ace, Spot.FIRST_TWO, up, rules) == "R":
            return PlayedRound(-1, 1)
        hands = [_play((hard, ace), Spot.FIRST_TWO, up, draw, rules)]
    staked = sum(stake for _, _, stake in hands)
    dealer_second = draw()
    if {up, dealer_second} == {_ACE, _TEN}:
        return PlayedRound(-2, staked)
    finals = [(_total(h, a)[0], stake) for h, a, stake in hands]
    dealer = _BUST
    if any(total <= 21 for total, _ in finals):
        dealer = _dealer_total(up, dealer_second, draw, rules.h17)
    net = 0
    for total, stake in finals:
        if total > 21 or (dealer <= 21 and total < dealer):
            net -= stake
        elif dealer > 21 or total > dealer:
            net += stake
    return PlayedRound(2 * net, staked)


def _split_extra(pair: int, up: int, shoe: Sequence[int], rules: MainGameRules) -> Fraction:
    """The expected stake a split of two cards of value ``pair`` against ``up`` adds to the
    initial wager: one per hand beyond the first and one per split hand doubled, the split
    hands' second cards drawn from ``shoe`` (ten counts, Ace first).

    Those second cards decide it all (a resplit, a double). Chosen by a rule that looks only at
    cards already dealt, they are distributed as the shoe's next cards, whatever the hands draw
    between them (the predictable sampling theorem for exchangeable sequences), so the hits need
    no enumeration; and whatever the order of pair cards and others among them, each other card
    is distributed as the shoe's other cards: what is left to count is how many of each."""
    limit = 2 if pair == _ACE else rules.max_splits + 1
    pairs = shoe[pair - 1]
    others = sum(shoe) - pairs

    def doubles(second: int) -> bool:
        hand = (pair + second, _ACE in (pair, second))
        return pair != _ACE and _decision(*hand, Spot.SPLIT_TWO, up, rules) == "D"

    # The chance a hand completed by another card, or by a card of the pair once no more
    # splits are allowed, is doubled.
    other_doubles = Fraction(
        sum(shoe[v - 1] for v in range(1, 11) if v != pair and doubles(v)), others or 1
    )
    pair_doubles = int(doubles(pair))

    def more(pairs: int, others: int, waiting: int, hands: int) -> Fraction:
        """The stake still to come with ``waiting`` hands short of their second card."""
        if not waiting:
            return Fraction(0)
        out = Fraction(0)
        if pairs:
            if hands < limit:
                out += pairs * (1 + more(pairs - 1, others, waiting + 1, hands + 1))
            else:
                out += pairs * (pair_doubles + more(pairs - 1, others, waiting - 1, hands))
        if others:
            out += others * (other_doubles + more(pairs, others - 1, waiting - 1, hands))
        return out / (pairs + others)

    return 1 + more(pairs, others, 2, 2)


def average_total_bet(counts: Sequence[int], rules: MainGameRules) -> Fraction:
    """The exact expected total stake of a round dealt from ``counts`` (52 counts by
    ``Card.index``) and played by the basic strategy (``play_round``), in initial wagers: the
    wager, one more for a double on the first two cards, and for a split one per extra hand
    and per split hand doubled. Every one of them is decided by the first two cards of a hand
    and the up card, before the dealer's second card: a dealer blackjack hands a double or a
    split back, but it was staked.

    >>> round(float(average_total_bet([6] * 52, MainGameRules())), 6)
    1.133354
    """
    shoe = value_counts(counts)
    n = sum(shoe)
    extra = Fraction(0)
    for up, first, second in product(range(1, 11), repeat=3):
        ways = 1
        for value in (up, first, second):  # drawn without replacement, in this order
            ways *= shoe[value - 1]
            shoe[value - 1] -= 1
        if ways and {first, second} != {_ACE, _TEN}:
            if first == second and splits(first, up=up, das=rules.double_after_split):
                extra += ways * _split_extra(first, up, shoe, rules)
            else:
                hand = (first + second, _ACE in (first, second))
                extra += ways * (_decision(*hand, Spot.FIRST_TWO, up, rules) == "D")
        for value in (up, first, second):
            shoe[value - 1] += 1
    return 1 + extra / (n * (n - 1) * (n - 2))


def deal_shoe(
    cards: Sequence[int], decks: int, cut_card: int, rules: MainGameRules
) -> list[DealtRound]:
    """The rounds of one shuffled shoe of ``decks`` decks (``cards``: its cards' indexes in the
    order dealt) dealt to ``cut_card`` cards from the end (see the module's docstring); a round
    the shoe runs out in ends the shoe, its result ``None``."""
    counts = [decks] * CARDS_PER_DECK
    position = 0

    def draw() -> int:
        nonlocal position
        if position >= len(cards):
            raise RanOut
        index = cards[position]
        position += 1
        counts[index] -= 1
        return VALUES[index]

    out: list[DealtRound] = []
    while position < len(cards) - cut_card:
        start = tuple(counts)
        try:
            out.append(DealtRound(start, play_round(draw, rules)))
        except RanOut:
            out.append(DealtRound(start, None))
            break
    return out
