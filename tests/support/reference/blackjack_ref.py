"""Slow, obviously-correct references for ``pricing.games.blackjack``: exact ``Fraction``s from
brute-force enumeration over the remaining shoe (docs/rules.md §2, §3).

Nothing here shares code with the kernel: cards are ``(rank, suit)`` pairs with rank 1–13 and
suit letters, the shoe is a ``Counter`` of them, hands are classified by plain rules, and every
probability is a sum over explicit deals of products of "cards of this kind left / cards left".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(n): n for n in range(2, 11)}
SUITS = "CDHS"
RED = {"D", "H"}

Kind = tuple[int, str]  # (rank 1-13, suit letter)


def kind(text: str) -> Kind:
    """``"10H"`` -> ``(10, "H")``; canonical notation only (the tests pass ``str(card)``)."""
    return RANKS[text[:-1]], text[-1]


def remaining_shoe(exposed: Iterable[str], decks: int) -> Counter[Kind]:
    """The shoe of ``decks`` full decks minus ``exposed``; ``ValueError`` if a card is missing."""
    shoe: Counter[Kind] = Counter({(r, s): decks for r in range(1, 14) for s in SUITS})
    for text in exposed:
        k = kind(text)
        if shoe[k] == 0:
            raise ValueError(f"{text} is not in the shoe")
        shoe[k] -= 1
    return shoe


def _ordered_pairs(shoe: Counter[Kind]) -> list[tuple[Kind, Kind, int]]:
    """Every ordered pair of card kinds ``(a, b)`` the next two cards can be, with the number
    of ways (physical cards) it can happen; the ways add up to ``N × (N − 1)``."""
    return [
        (a, b, shoe[a] * (shoe[b] - (a == b)))
        for a in shoe
        for b in shoe
        if shoe[a] * (shoe[b] - (a == b)) > 0
    ]


def _cards_left(shoe: Counter[Kind]) -> int:
    return sum(shoe.values())


# --- Royal Match 21 --------------------------------------------------------------------------


def _suited_kq(a: Kind, b: Kind) -> bool:
    return a[1] == b[1] and {a[0], b[0]} == {12, 13}


def royal_match(exposed: Iterable[str], decks: int) -> dict[str, Fraction]:
    """Probabilities of CROWN, ROYAL, EASY, LOSE: the player's two cards are the next two of
    the shoe, the dealer's two the two after (by symmetry, the same as any fixed deal order)."""
    shoe = remaining_shoe(exposed, decks)
    n = _cards_left(shoe)
    ways = dict.fromkeys(("CROWN", "ROYAL", "EASY", "LOSE"), 0)
    for a, b, w in _ordered_pairs(shoe):
        if a[1] != b[1]:
            ways["LOSE"] += w * (n - 2) * (n - 3)
        elif not _suited_kq(a, b):
            ways["EASY"] += w * (n - 2) * (n - 3)
        else:
            shoe[a] -= 1
            shoe[b] -= 1
            dealer = _ordered_pairs(shoe)
            shoe[a] += 1
            shoe[b] += 1
            crown = sum(v for c, d, v in dealer if _suited_kq(c, d))
            ways["CROWN"] += w * crown
            ways["ROYAL"] += w * ((n - 2) * (n - 3) - crown)
    total = n * (n - 1) * (n - 2) * (n - 3)
    return {o: Fraction(v, total) for o, v in ways.items()}


# --- Pair bets -------------------------------------------------------------------------------


def pairs(exposed: Iterable[str], decks: int) -> dict[str, Fraction]:
    """Probabilities of PERFECT, COLOURED, MIXED and LOSE for the player's first two cards."""
    shoe = remaining_shoe(exposed, decks)
    n = _cards_left(shoe)
    ways = dict.fromkeys(("PERFECT", "COLOURED", "MIXED", "LOSE"), 0)
    for a, b, w in _ordered_pairs(shoe):
        if a[0] != b[0]:
            ways["LOSE"] += w
        elif a[1] == b[1]:
            ways["PERFECT"] += w
        elif (a[1] in RED) == (b[1] in RED):
            ways["COLOURED"] += w
        else:
            ways["MIXED"] += w
    return {o: Fraction(v, n * (n - 1)) for o, v in ways.items()}


def rtp(probabilities: dict[str, Fraction], payout_hundredths: dict[str, int]) -> Fraction:
    """Expected return per unit staked: a winning outcome returns the stake plus its pay."""
    return sum(
        (
            p * (1 + Fraction(payout_hundredths[o], 100))
            for o, p in probabilities.items()
            if o in payout_hundredths
        ),
        Fraction(0),
    )


# --- Insurance -------------------------------------------------------------------------------


def insurance(exposed: Iterable[str], decks: int) -> Fraction:
    """Probability that a dealer Ace (among ``exposed``) makes blackjack: its next card, each
    remaining card equally likely, gives a two-card 21."""
    shoe = remaining_shoe(exposed, decks)
    n = _cards_left(shoe)
    return Fraction(
        sum(count for (rank, _s), count in shoe.items() if hand_total([1, rank]) == 21), n
    )


# --- Dealer outcomes -------------------------------------------------------------------------


def hand_total(ranks: list[int]) -> int:
    """Best blackjack total: J/Q/K count 10, one ace counts 11 if that does not bust."""
    hard = sum(min(r, 10) for r in ranks)
    if 1 in ranks and hard + 10 <= 21:
        return hard + 10
    return hard


def is_soft(ranks: list[int]) -> bool:
    return 1 in ranks and sum(min(r, 10) for r in ranks) + 10 <= 21


def dealer_must_hit(ranks: list[int], rule: str) -> bool:
    total = hand_total(ranks)
    if total < 17:
        return True
    return total == 17 and rule == "H17" and is_soft(ranks)


def dealer(up: str, exposed: Iterable[str], decks: int, rule: str) -> dict[str, Fraction]:
    """Distribution of the dealer's final result from ``up``: draw card by card (13 ranks,
    suits ignored) from the shoe without ``exposed`` and ``up`` until the rule says stand."""
    return dealer_from_hand([up], exposed, decks, rule)


def dealer_from_hand(
    hand: list[str], exposed: Iterable[str], decks: int, rule: str
) -> dict[str, Fraction]:
    """Distribution of the dealer's final result from the dealer's cards so far ``hand`` (in
    the order dealt): if the rule says stand (or the hand is bust), that result for sure;
    otherwise draw card by card (13 ranks, suits ignored) from the shoe without ``exposed``
    and ``hand`` until it does. BJ is a 21 in exactly two cards.

    The future of a hand depends only on which cards it holds (not their order), so results
    are remembered per sorted hand: the same recursion, fast enough for the tests."""
    if not hand:
        raise ValueError("the dealer's hand needs a card")
    ranks = [kind(c)[0] for c in hand]
    for n in range(1, len(ranks)):
        if n >= 2 and not dealer_must_hit(ranks[:n], rule):
            raise ValueError(f"the dealer's hand is over after {n} cards")
    shoe = remaining_shoe([*exposed, *hand], decks)
    by_rank: Counter[int] = Counter()
    for (r, _s), n in shoe.items():
        by_rank[r] += n
    outcomes = ("17", "18", "19", "20", "21", "BJ", "BUST")
    memo: dict[tuple[int, ...], dict[str, Fraction]] = {}

    def play(hand: list[int]) -> dict[str, Fraction]:
        key = tuple(sorted(hand))
        if key in memo:
            return memo[key]
        out = dict.fromkeys(outcomes, Fraction(0))
        if not dealer_must_hit(hand, rule):
            total = hand_total(hand)
            if total > 21:
                out["BUST"] = Fraction(1)
            elif total == 21 and len(hand) == 2:
                out["BJ"] = Fraction(1)
            else:
                out[str(total)] = Fraction(1)
        else:
            left = sum(by_rank.values())
            if left == 0:
                raise ValueError("the shoe ran out")
            for rank in range(1, 14):
                count = by_rank[rank]
                if count:
                    by_rank[rank] -= 1
                    sub = play([*hand, rank])
                    by_rank[rank] += 1
                    for o in outcomes:
                        out[o] += Fraction(count, left) * sub[o]
        memo[key] = out
        return out

    return play(ranks)
