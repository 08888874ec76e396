"""Slow, obviously-correct reference for Dragon Tiger (docs/rules.md §8): exact counts by
enumerating the deals of the actual cards of a shoe, each settled by a plain reading of the
rule.

Nothing here shares code with the engine (``pricing.games.dragon_tiger.bets``): a card is a
``(rank, suit)`` pair read from its text (rank 1–13, ace low; suit letter), a shoe is the list
of its physical cards (a card of which two decks' copies are left appears twice).

The next round is every ordered (Dragon, Tiger) pair of two different physical cards;
``ordered_pairs`` visits them grouped by what the two cards are (the pair "card x, then card
y" stands for its ``n_x × n_y`` physical pairs, ``n_x × (n_x − 1)`` when x = y), which is what
lets a full 8-deck shoe be enumerated; ``physical_pairs`` visits them one by one, and the tests
check the two agree. In a round whose Dragon card is out, every card left is one Tiger card.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(n): n for n in range(2, 11)}

Card = tuple[int, str]  # (rank 1-13, suit letter)

BETS = (
    "DRAGON",
    "TIGER",
    "TIE",
    "SUITED_TIE",
    "DRAGON_BIG",
    "DRAGON_SMALL",
    "DRAGON_ODD",
    "DRAGON_EVEN",
    "TIGER_BIG",
    "TIGER_SMALL",
    "TIGER_ODD",
    "TIGER_EVEN",
)

#: What an outcome returns per unit staked, beside the stake, for the outcomes that do not
#: read the paytable: a lost bet loses it all, a main bet on a tie loses half.
FIXED_PAYS = {"LOSE": Fraction(-1), "TIE_HALF_LOSS": Fraction(-1, 2)}


def card(text: str) -> Card:
    """``"10H"`` -> ``(10, "H")``; canonical notation only (the tests pass ``str(card)``)."""
    return RANKS[text[:-1]], text[-1]


def shoe(texts: Iterable[str]) -> list[Card]:
    """The physical cards of a shoe, one entry per card (copies repeat)."""
    return [card(t) for t in texts]


# --- The rules --------------------------------------------------------------------------


def card_bet_wins(kind: str, rank: int) -> bool:
    """Big is 8 and up, small is 6 and down, odd and even by the printed number (J 11, Q 12,
    K 13, A 1); the 7 is neither big nor small, and not odd either: every card bet loses it."""
    if rank == 7:
        return False
    if kind == "BIG":
        return rank > 7
    if kind == "SMALL":
        return rank < 7
    if kind == "ODD":
        return rank % 2 == 1
    assert kind == "EVEN", kind
    return rank % 2 == 0


def outcome(bet: str, dragon: Card, tiger: Card) -> str:
    """``WIN``, ``TIE_HALF_LOSS`` or ``LOSE`` for ``bet`` on a round dealt these two cards."""
    d_rank, d_suit = dragon
    t_rank, t_suit = tiger
    if bet in ("DRAGON", "TIGER"):
        if d_rank == t_rank:
            return "TIE_HALF_LOSS"
        dragon_higher = d_rank > t_rank
        won = dragon_higher if bet == "DRAGON" else not dragon_higher
        return "WIN" if won else "LOSE"
    if bet == "TIE":
        return "WIN" if d_rank == t_rank else "LOSE"
    if bet == "SUITED_TIE":
        return "WIN" if (d_rank, d_suit) == (t_rank, t_suit) else "LOSE"
    side, kind = bet.split("_")
    rank = d_rank if side == "DRAGON" else t_rank
    return "WIN" if card_bet_wins(kind, rank) else "LOSE"


def pay(outcome_name: str, win_hundredths: int) -> Fraction:
    """What the outcome adds to the stake, per unit staked (a win: the paytable's pay)."""
    if outcome_name == "WIN":
        return Fraction(win_hundredths, 100)
    return FIXED_PAYS[outcome_name]


def returned(stake_cents: int, outcome_name: str, win_hundredths: int) -> int:
    """The cents a settled bet hands back: the stake plus its pay, rounded down to the cent
    (a fraction of a cent stays with the house)."""
    return math.floor(stake_cents * (1 + pay(outcome_name, win_hundredths)))


# --- Enumerating the deals --------------------------------------------------------------


def physical_pairs(cards: list[Card]) -> Iterator[tuple[Card, Card, int]]:
    """Every ordered pair of two different physical cards of the shoe, one at a time."""
    for i, dragon in enumerate(cards):
        for j, tiger in enumerate(cards):
            if i != j:
                yield dragon, tiger, 1


def ordered_pairs(cards: list[Card]) -> Iterator[tuple[Card, Card, int]]:
    """The same pairs grouped: (Dragon card, Tiger card, how many physical pairs are those
    two cards)."""
    held = Counter(cards)
    for dragon, n_dragon in held.items():
        for tiger, n_tiger in held.items():
            n = n_dragon * (n_tiger - 1) if tiger == dragon else n_dragon * n_tiger
            if n:
                yield dragon, tiger, n


Tally = dict[str, tuple[Counter[str], int]]


def tally(deals: Iterable[tuple[Card, Card, int]]) -> Tally:
    """Each bet's ways of each outcome over ``deals``, and the number of deals."""
    counted: dict[str, Counter[str]] = {bet: Counter() for bet in BETS}
    total = 0
    for dragon, tiger, n in deals:
        total += n
        for bet in BETS:
            counted[bet][outcome(bet, dragon, tiger)] += n
    return {bet: (counted[bet], total) for bet in BETS}


def next_round(cards: list[Card], *, one_by_one: bool = False) -> Tally:
    """Every bet's outcome counts over the next round dealt from ``cards``."""
    return tally(physical_pairs(cards) if one_by_one else ordered_pairs(cards))


def in_round(cards: list[Card], dragon: Card) -> Tally:
    """Every bet's outcome counts once the Dragon was dealt ``dragon`` (no longer in
    ``cards``): one deal per card left."""
    return tally((dragon, tiger, 1) for tiger in cards)


def rtp(ways: Mapping[str, int], total: int, win_hundredths: int) -> Fraction:
    """The return to player, stake included, of a bet with these outcome counts (0 when no
    deal is possible)."""
    if not total:
        return Fraction(0)
    back = sum(n * (1 + pay(name, win_hundredths)) for name, n in ways.items())
    return Fraction(back) / total
