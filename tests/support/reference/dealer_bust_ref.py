"""Slow, obviously-correct references for the dealer-bust side bets (docs/rules.md §3.8): exact
``Fraction``s from enumerating the dealer's draws card by card from the remaining shoe.

Nothing here shares code with the engine: cards are ``(rank, suit)`` pairs (``blackjack_ref``'s
notation), the shoe is a ``Counter`` of them, the dealer's rule is applied to each hand as the
rule book says it (draw to 16, soft 17 by the rule, a two-card 21 is a blackjack), and every
probability is a sum over explicit draws of "cards of this kind left / cards left". The bet is
placed before the deal, so the dealer's cards are the shoe's next cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

from tests.support.reference.blackjack_ref import RED, Kind, remaining_shoe

BUST_IT = ("SUITED_888", "SAME_COLOUR_888", "BUST_6", "BUST_7", "BUST_8", "BUST_9", "BUST_TEN")
BUSTER = ("BUST_8_PLUS", "BUST_7", "BUST_6", "BUST_5", "BUST_3_OR_4")


class ShoeRanOut(Exception):
    """Some dealer hand must draw with no card left: the shoe cannot deal the bet."""


def points(rank: int) -> int:
    return min(rank, 10)


def total_and_soft(ranks: list[int]) -> tuple[int, bool]:
    """The best total (an ace counts 11 if that does not bust) and whether an ace counts 11."""
    hard = sum(points(r) for r in ranks)
    if 1 in ranks and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def dealer_result(ranks: list[int], rule: str) -> str | None:
    """``"BJ"``, ``"BUST"`` or ``"STAND"`` if the dealer's hand ``ranks`` is over, else
    ``None`` (the dealer draws)."""
    if len(ranks) < 2:
        return None
    total, soft = total_and_soft(ranks)
    if len(ranks) == 2 and total == 21:
        return "BJ"
    if total > 21:
        return "BUST"
    if total >= 18 or (total == 17 and not (soft and rule == "H17")):
        return "STAND"
    return None


def bust_it_outcome(hand: list[Kind], rule: str) -> str:
    """Bust It on the dealer's first three cards (``hand``: the cards dealt so far, at most
    three): a bust with exactly the third card, named by the third card or by 8-8-8."""
    ranks = [r for r, _ in hand]
    if len(hand) < 3 or dealer_result(ranks[:2], rule) is not None:
        return "LOSE"
    if dealer_result(ranks, rule) != "BUST":
        return "LOSE"
    if ranks == [8, 8, 8]:
        suits = {s for _, s in hand}
        if len(suits) == 1:
            return "SUITED_888"
        if len({s in RED for s in suits}) == 1:
            return "SAME_COLOUR_888"
    return {6: "BUST_6", 7: "BUST_7", 8: "BUST_8", 9: "BUST_9"}.get(ranks[2], "BUST_TEN")


def buster_outcome(ranks: list[int]) -> str:
    """Buster on the dealer's finished hand ``ranks``."""
    if dealer_result(ranks, "S17") != "BUST":  # a bust is a bust whatever the rule
        return "LOSE"
    if len(ranks) >= 8:
        return "BUST_8_PLUS"
    return "BUST_3_OR_4" if len(ranks) <= 4 else f"BUST_{len(ranks)}"


def buster(shoe: Counter[Kind], rule: str) -> dict[str, Fraction]:
    """Buster's distribution (``LOSE`` included): draw rank by rank (the suits do not matter)
    from ``shoe`` until the dealer's hand is over; ``ShoeRanOut`` if some hand cannot be.

    The future of a hand depends only on which ranks it holds (not their order): results are
    remembered per sorted hand, the same recursion, fast enough for the tests."""
    by_rank: Counter[int] = Counter()
    for (rank, _suit), n in shoe.items():
        by_rank[rank] += n
    memo: dict[tuple[int, ...], dict[str, Fraction]] = {}

    def play(hand: list[int]) -> dict[str, Fraction]:
        key = tuple(sorted(hand))
        if key in memo:
            return memo[key]
        if dealer_result(hand, rule) is not None:
            out = {buster_outcome(hand): Fraction(1)}
        else:
            left = sum(by_rank.values())
            if left == 0:
                raise ShoeRanOut
            out = {}
            for rank in range(1, 14):
                count = by_rank[rank]
                if count:
                    by_rank[rank] -= 1
                    for outcome, p in play([*hand, rank]).items():
                        out[outcome] = out.get(outcome, Fraction(0)) + Fraction(count, left) * p
                    by_rank[rank] += 1
        memo[key] = out
        return out

    result = play([])
    return {o: result.get(o, Fraction(0)) for o in (*BUSTER, "LOSE")}


def bust_it(shoe: Counter[Kind], rule: str) -> dict[str, Fraction]:
    """Bust It's distribution (``LOSE`` included): the dealer's first card, then the second,
    then (if the hand is not over) the third, each of every kind left, weighted by the cards
    of that kind left out of the cards left: ``ways2`` counts the two-card hands out of
    ``n × (n − 1)``, ``ways3`` the three-card starts out of ``n × (n − 1) × (n − 2)``."""
    n = sum(shoe.values())
    ways2 = Counter[str]()
    ways3 = Counter[str]()
    kinds = [k for k, c in shoe.items() if c]
    for a in kinds:
        wa = shoe[a]
        shoe[a] -= 1
        for b in kinds:
            wb = shoe[b]
            if not wb:
                continue
            shoe[b] -= 1
            if dealer_result([a[0], b[0]], rule) is not None:  # over on two cards
                ways2["LOSE"] += wa * wb
            else:
                for c in kinds:
                    if shoe[c]:
                        ways3[bust_it_outcome([a, b, c], rule)] += wa * wb * shoe[c]
            shoe[b] += 1
        shoe[a] += 1
    two, three = n * (n - 1), n * (n - 1) * (n - 2)
    return {
        o: (Fraction(ways2[o], two) if ways2[o] else Fraction(0))
        + (Fraction(ways3[o], three) if ways3[o] else Fraction(0))
        for o in (*BUST_IT, "LOSE")
    }


def dealer_bust(
    exposed: Iterable[str], decks: int, rule: str
) -> tuple[dict[str, Fraction], dict[str, Fraction]] | None:
    """Bust It's and Buster's distributions for the next round dealt from the shoe of
    ``decks`` decks without ``exposed``, or ``None`` when some dealer hand would run out of
    cards (the bets cannot be dealt: closed)."""
    shoe = remaining_shoe(exposed, decks)
    try:
        buster_odds = buster(shoe, rule)
    except ShoeRanOut:
        return None
    return bust_it(shoe, rule), buster_odds


def rtp(probabilities: dict[str, Fraction], payout_hundredths: dict[str, int]) -> Fraction:
    """Expected return per unit staked: a winning outcome returns the stake plus its pay."""
    return sum(
        (
            p * (1 + Fraction(payout_hundredths[o], 100))
            for o, p in probabilities.items()
            if o != "LOSE"
        ),
        Fraction(0),
    )
