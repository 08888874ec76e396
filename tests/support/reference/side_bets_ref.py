"""Slow, obviously-correct references for the side-bet library (docs/rules.md §3.8): exact
counts by enumerating every deal of the actual cards of a shoe.

Nothing here shares code with the kernel (``pricing._side_bets``) or the library: a card is a
``(rank, suit)`` pair read from its text (rank 1–13, suit letter), a shoe is the list of its
physical cards (a card of which two decks' copies are left appears twice), every deal is a
choice of distinct physical cards, and each deal is classified by a plain reading of the
rule. Only small shoes are practical: a three-card bet enumerates ``C(N, 2) × (N − 2)``
deals, Lucky Ladies ``C(N, 2) × C(N − 2, 2)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from itertools import combinations, product

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(n): n for n in range(2, 11)}

Card = tuple[int, str]  # (rank 1-13, suit letter)

THREE_CARD = ("TWENTY_ONE_PLUS_THREE", "HOT_3", "LUCKY_LUCKY", "TOP_3", "MATCH_THE_DEALER")
TWO_CARD = ("LUCKY_LADIES", "OVER_13", "UNDER_13")


def card(text: str) -> Card:
    """``"10H"`` -> ``(10, "H")``; canonical notation only (the tests pass ``str(card)``)."""
    return RANKS[text[:-1]], text[-1]


def shoe(texts: Iterable[str]) -> list[Card]:
    """The physical cards of a shoe, one entry per card (copies repeat)."""
    return [card(t) for t in texts]


# --- Reading the cards --------------------------------------------------------------------


def best_total(cards: Iterable[Card]) -> int | None:
    """The blackjack total: J, Q, K count 10, each ace 1 or 11, the highest total of every
    choice that is at most 21; ``None`` when every choice is over 21 (a bust)."""
    points = [(1, 11) if rank == 1 else (min(rank, 10),) for rank, _suit in cards]
    totals = [sum(choice) for choice in product(*points)]
    return max((t for t in totals if t <= 21), default=None)


#: Three ranks in a row, the ace low or high: A-2-3 … J-Q-K, and Q-K-A.
STRAIGHTS = [{low, low + 1, low + 2} for low in range(1, 12)] + [{12, 13, 1}]


def poker_hand(cards: list[Card]) -> str | None:
    """Three cards as a poker hand, the best of: suited trips (three identical cards), a
    straight flush, trips, a straight, a flush; ``None`` for anything else."""
    ranks = {rank for rank, _suit in cards}
    flush = len({suit for _rank, suit in cards}) == 1
    if len(ranks) == 1:
        return "SUITED_TRIPS" if flush else "TRIPS"
    if ranks in STRAIGHTS:
        return "STRAIGHT_FLUSH" if flush else "STRAIGHT"
    return "FLUSH" if flush else None


def _suited(cards: list[Card]) -> bool:
    return len({suit for _rank, suit in cards}) == 1


def _ranks(cards: list[Card]) -> list[int]:
    return sorted(rank for rank, _suit in cards)


# --- The bets, one deal at a time -----------------------------------------------------------


def twenty_one_plus_three(seat: list[Card], up: Card) -> str | None:
    return poker_hand([*seat, up])


def top_3(seat: list[Card], up: Card) -> str | None:
    hand = poker_hand([*seat, up])
    return hand if hand in ("SUITED_TRIPS", "STRAIGHT_FLUSH", "TRIPS") else None


def hot_3(seat: list[Card], up: Card) -> str | None:
    cards = [*seat, up]
    if _ranks(cards) == [7, 7, 7]:
        return "SEVENS"
    total = best_total(cards)
    if total == 21:
        return "SUITED_21" if _suited(cards) else "TWENTY_ONE"
    return {20: "TWENTY", 19: "NINETEEN"}.get(total or 0)


def lucky_lucky(seat: list[Card], up: Card) -> str | None:
    cards = [*seat, up]
    suited = _suited(cards)
    if _ranks(cards) == [7, 7, 7]:
        return "SUITED_777" if suited else "SEVENS"
    if _ranks(cards) == [6, 7, 8]:
        return "SUITED_678" if suited else "SIX_SEVEN_EIGHT"
    total = best_total(cards)
    if total == 21:
        return "SUITED_21" if suited else "TWENTY_ONE"
    return {20: "TWENTY", 19: "NINETEEN"}.get(total or 0)


#: Match the Dealer's outcomes by the matches they are made of, each paid by its entry.
MATCHES = {
    ("SUITED_MATCH", "SUITED_MATCH"): "TWO_SUITED",
    ("SUITED_MATCH", "UNSUITED_MATCH"): "SUITED_AND_UNSUITED",
    ("UNSUITED_MATCH", "UNSUITED_MATCH"): "TWO_UNSUITED",
    ("SUITED_MATCH",): "SUITED",
    ("UNSUITED_MATCH",): "UNSUITED",
}


def matches(seat: list[Card], up: Card) -> tuple[str, ...]:
    """Each of the seat's cards of the up card's rank: a suited match if it is the same card,
    else an unsuited one (suited matches first)."""
    found = ["SUITED_MATCH" if c == up else "UNSUITED_MATCH" for c in seat if c[0] == up[0]]
    return tuple(sorted(found, key=lambda m: m != "SUITED_MATCH"))


def match_the_dealer(seat: list[Card], up: Card) -> str | None:
    return MATCHES.get(matches(seat, up))


QUEEN_OF_HEARTS: Card = (12, "H")


def lucky_ladies(seat: list[Card], dealer: list[Card]) -> str | None:
    """``dealer``: the dealer's first two cards (fewer: no blackjack)."""
    if best_total(seat) != 20:
        return None
    if seat == [QUEEN_OF_HEARTS, QUEEN_OF_HEARTS]:
        blackjack = len(dealer) >= 2 and best_total(dealer[:2]) == 21
        return "QH_PAIR_DEALER_BLACKJACK" if blackjack else "QH_PAIR"
    if seat[0] == seat[1]:
        return "MATCHED_20"
    return "SUITED_20" if _suited(seat) else "ANY_20"


def _ace_one(seat: list[Card]) -> int:
    return sum(min(rank, 10) for rank, _suit in seat)


def over_13(seat: list[Card]) -> str | None:
    return "OVER" if _ace_one(seat) > 13 else None


def under_13(seat: list[Card]) -> str | None:
    return "UNDER" if _ace_one(seat) < 13 else None


def outcome(bet: str, seat: list[Card], dealer: list[Card]) -> str:
    """The outcome of ``bet`` on the seat's two cards and the dealer's cards (the up card
    first), ``"LOSE"`` for no award."""
    three = {
        "TWENTY_ONE_PLUS_THREE": twenty_one_plus_three,
        "HOT_3": hot_3,
        "LUCKY_LUCKY": lucky_lucky,
        "TOP_3": top_3,
        "MATCH_THE_DEALER": match_the_dealer,
    }
    if bet in three:
        found = three[bet](seat, dealer[0])
    elif bet == "LUCKY_LADIES":
        found = lucky_ladies(seat, dealer[:2])
    else:
        found = over_13(seat) if bet == "OVER_13" else under_13(seat)
    return found or "LOSE"


# --- Every deal of a shoe -------------------------------------------------------------------


def deals(bet: str, cards: list[Card]) -> Iterator[tuple[list[Card], list[Card]]]:
    """Every deal ``bet`` reads, as ``(seat, dealer)``, each once: the seat's two cards are a
    pair of distinct physical cards (unordered); the dealer's up card any other one (three-card
    bets), or the dealer's first two an unordered pair of the others (Lucky Ladies)."""
    n = len(cards)
    for x, y in combinations(range(n), 2):
        seat = [cards[x], cards[y]]
        rest = [cards[z] for z in range(n) if z not in (x, y)]
        if bet in THREE_CARD:
            for up in rest:
                yield seat, [up]
        elif bet == "LUCKY_LADIES":
            for d, e in combinations(range(len(rest)), 2):
                yield seat, [rest[d], rest[e]]
        else:
            yield seat, []


def tally(bet: str, cards: list[Card]) -> tuple[Counter[str], int]:
    """How many deals end in each outcome (``LOSE`` included), and how many deals there are."""
    counts: Counter[str] = Counter()
    total = 0
    for seat, dealer in deals(bet, cards):
        counts[outcome(bet, seat, dealer)] += 1
        total += 1
    return counts, total


def pays_of(bet: str, won: str, pays: Mapping[str, int]) -> int:
    """What ``won`` pays in hundredths under a paytable's entries: its entry, or for Match the
    Dealer the sum of its matches' entries."""
    if bet == "MATCH_THE_DEALER":
        made = next(m for m, name in MATCHES.items() if name == won)
        return sum(pays[entry] for entry in made)
    return pays[won]


def rtp(bet: str, counts: Counter[str], total: int, pays: Mapping[str, int]) -> Fraction:
    """Expected return per unit staked: a winning deal returns the stake and its pay."""
    won = sum(
        (n * (100 + pays_of(bet, o, pays)) for o, n in counts.items() if o != "LOSE"),
        0,
    )
    return Fraction(won, 100 * total) if total else Fraction(0)
