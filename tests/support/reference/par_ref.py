"""Slow, obviously-correct reference for a PAR sheet's figures: the raw list of a bet's net
results over every deal of a tiny shoe, one entry per equally likely deal, and the
statistics read off that list by their textbook definitions.

Nothing here shares code with the engine (``pricing.analysis.par``): the deals come from the
games' references (``baccarat_ref``, ``dragon_tiger_ref``), which share none either, and the
statistics are computed in two passes (mean first, then the mean squared deviation) where the
engine uses the moments ``E[X²] − E[X]²``.

- Dragon Tiger: every ordered pair of two different physical cards (Dragon, then Tiger).
- Baccarat: every ordered choice of six different physical cards (the most a round takes);
  the round is dealt from its first cards by the drawing rules and the rest are never seen,
  so each round's probability is its share of these equally likely sequences.
- Hi-Lo: every order of a tiny deck (``hilo_rtp_ref.offered_rounds``).
- Goa Gae and Higher/Lower: the rounds of every deal of a reduced deck or shoe, priced by
  ``goagae_ref`` and ``higher_lower_ref`` and settled on the cards the deal brings, as
  ``(weight, net result)`` pairs: the weight counts the orders of the deck that deal it.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import combinations, permutations
from math import factorial

from tests.support.reference import baccarat_ref, dragon_tiger_ref, goagae_ref, higher_lower_ref

#: The cards a baccarat round can take.
ROUND_CARDS = 6


def dragon_tiger_nets(cards: Sequence[str], bet: str, win_hundredths: int) -> list[Fraction]:
    """The net result per unit staked on ``bet`` of every next round from ``cards``."""
    shoe = dragon_tiger_ref.shoe(cards)
    out = []
    for i, dragon in enumerate(shoe):
        for j, tiger in enumerate(shoe):
            if i != j:
                name = dragon_tiger_ref.outcome(bet, dragon, tiger)
                out.append(dragon_tiger_ref.pay(name, win_hundredths))
    return out


def baccarat_net(bet: baccarat_ref.Bet, pays: Mapping[str, int], order: Sequence[str]) -> Fraction:
    """The net result of ``bet`` on the round dealt from the top of ``order``."""
    player: list[str] = []
    banker: list[str] = []
    cards = iter(order)
    while (hand := baccarat_ref.next_hand(_read(player), _read(banker))) is not None:
        (player if hand == "PLAYER" else banker).append(next(cards))
    _, pay = baccarat_ref.settle(bet, pays, player, banker)
    return Fraction(pay, 100)


def _read(hand: Sequence[str]) -> list[baccarat_ref.Card]:
    return [baccarat_ref.card(text) for text in hand]


def baccarat_nets(
    cards: Sequence[str], bet: baccarat_ref.Bet, pays: Mapping[str, int]
) -> list[Fraction]:
    """The net result of ``bet`` over every ordered choice of six physical cards of ``cards``
    (at least six)."""
    return [
        baccarat_net(bet, pays, [cards[i] for i in chosen])
        for chosen in permutations(range(len(cards)), ROUND_CARDS)
    ]


def mean(xs: Sequence[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) / len(xs)


def variance(xs: Sequence[Fraction]) -> Fraction:
    """The population variance, in two passes."""
    m = mean(xs)
    return sum(((x - m) ** 2 for x in xs), Fraction(0)) / len(xs)


def hit_frequency(xs: Sequence[Fraction]) -> Fraction:
    """The share of results that pay more than the stake back."""
    return Fraction(sum(1 for x in xs if x > 0), len(xs))


def weighted_mean(results: Sequence[tuple[int | Fraction, Fraction]]) -> Fraction:
    """The mean of a result drawn with probability proportional to its weight."""
    return Fraction(sum(w * x for w, x in results), sum(w for w, _ in results))


def weighted_hit_frequency(results: Sequence[tuple[int | Fraction, Fraction]]) -> Fraction:
    """The weighted share of results that pay more than the stake back."""
    return Fraction(sum(w for w, x in results if x > 0), sum(w for w, _ in results))


def weighted_variance(results: Sequence[tuple[int | Fraction, Fraction]]) -> Fraction:
    """The variance of a result drawn with probability proportional to its weight, from
    ``(weight, net result)`` pairs, in two passes."""
    total = sum((w for w, _ in results), Fraction(0))
    m = sum((w * x for w, x in results), Fraction(0)) / total
    return sum((w * (x - m) ** 2 for w, x in results), Fraction(0)) / total


def hilo_nets(
    sizes: Sequence[int], burns: int, results: int, rules: Mapping[str, tuple[int, int, int]]
) -> dict[str, list[Fraction]]:
    """Each Hi-Lo bet's net result per unit staked on every offered round of every order of a
    tiny deck (``hilo_rtp_ref.offered_rounds``): a unit staked on every offered round of every
    equally likely deal."""
    from tests.support.reference import hilo_rtp_ref  # noqa: PLC0415

    out: dict[str, list[Fraction]] = {bet: [] for bet in hilo_rtp_ref.BETS}
    for _, bet, payout, won in hilo_rtp_ref.offered_rounds(sizes, burns, results, rules):
        out[bet].append(Fraction(payout, 100) if won else Fraction(-1))
    return out


Weighted = dict[str, list[tuple[int, Fraction]]]


def _weighted(tally: Mapping[str, Counter[Fraction]]) -> Weighted:
    return {bet: sorted((w, x) for x, w in nets.items()) for bet, nets in tally.items()}


@functools.cache
def _goagae_winner(hand: frozenset[str]) -> str:
    """The bet a three-card hand wins: its category, ``NINE`` for a POINTS hand of 9."""
    cards = sorted(hand)
    cat = goagae_ref.category(cards)
    return "NINE" if cat == "POINTS" and goagae_ref.points(cards) == 9 else cat


def goagae_nets(
    deck: Sequence[str],
    rounds: int,
    cards_per_round: int,
    rules: Mapping[str, tuple[int, int, int]],
) -> Weighted:
    """Each Goa Gae bet's net result per unit staked on every offered round of every deal of
    ``deck`` (card texts; the other cards of the 52 are out of play), ``rounds`` rounds of
    ``cards_per_round`` cards from it: round k is priced with the first
    ``m = cards_per_round · (k − 1)`` cards of the order gone and settled on the next three.

    Each round is enumerated as every set of ``m`` cards gone, then every three-card hand of
    the rest: each such pair is the start of ``m! · 3! · (n − m − 3)!`` of the ``n!`` orders of
    the deck, its weight, so every order counts once in every round."""
    missing = [c for c in goagae_ref.FULL_DECK if c not in deck]
    n = len(deck)
    tally: dict[str, Counter[Fraction]] = {bet: Counter() for bet in goagae_ref.BETS}
    for k in range(rounds):
        m = cards_per_round * k
        orders = factorial(m) * factorial(3) * factorial(n - m - 3)
        for gone in combinations(deck, m):
            prices = goagae_ref.quote([*missing, *gone], rules)
            rest = [c for c in deck if c not in gone]
            for hand in combinations(rest, 3):
                won = _goagae_winner(frozenset(hand))
                for bet, p in prices.items():
                    if p.open:
                        net = Fraction(p.payout_hundredths, 100) if won == bet else Fraction(-1)
                        tally[bet][net] += orders
    return _weighted(tally)


def _round_deals(n: int, m: int) -> Iterator[tuple[frozenset[int], int, int, int]]:
    """Every way an order of ``n`` cards (numbered) deals a Higher/Lower round priced with its
    first ``m`` cards out, the ``m``-th the base, and settled on a given later place, whatever
    the burns between: the cards out, the base, the result and the number of orders of the
    ``n`` cards that deal it, ``(m − 1)! · (n − m − 1)!`` (the other ``m − 1`` cards out in
    any order before the base; after it, the result in its place and the other ``n − m − 1``
    cards in any order in the other places)."""
    orders = factorial(m - 1) * factorial(n - m - 1)
    for base in range(n):
        for others in combinations([i for i in range(n) if i != base], m - 1):
            gone = frozenset((*others, base))
            for result in range(n):
                if result not in gone:
                    yield gone, base, result, orders


def higher_lower_nets(
    shoe: Sequence[str],
    burns: int,
    continuous: bool,
    rules: Mapping[str, tuple[int, int, int]],
) -> Weighted:
    """Each Higher/Lower bet's net result per unit staked on every offered round of every deal
    of ``shoe`` (card texts, a copy per deck: copies are told apart), priced by
    ``higher_lower_ref.price`` on the cards the shoe holds then, settled on the result card.

    - Continuous shuffler: every round is dealt from the full shoe (the base, the last
      result, is any of its cards): the base, ``burns`` burns and the result; the bets are
      priced on the full shoe without the base.
    - Depleting shoe: one order of the shoe deals every round. Its first card is the base of
      round 1; each round is priced on the cards not yet out, then ``burns`` burns and the
      result (the next round's base) come out; a round is dealt while at least ``burns + 1``
      cards are left.

    Every order of the shoe counts once in every round (``_round_deals``)."""
    n = len(shoe)
    # The cards out when each round is priced, its base the last of them: 1, then burns + 1
    # more a round (its burns and result), while burns + 1 cards are left to deal a round.
    # A continuous shuffler prices every round with its base out alone.
    starts = [1] if continuous else range(1, n, burns + 1)
    out = [m for m in starts if n - m >= burns + 1]
    # (cards out, base) → result → orders: each state priced once
    seen: dict[tuple[frozenset[int], int], Counter[int]] = {}
    for m in out:
        for gone, base, result, orders in _round_deals(n, m):
            seen.setdefault((gone, base), Counter())[result] += orders
    tally: dict[str, Counter[int]] = {bet: Counter() for bet in higher_lower_ref.BETS}  # pays
    for (gone, base), results in seen.items():
        left = [card for i, card in enumerate(shoe) if i not in gone]
        for bet in higher_lower_ref.BETS:
            p = higher_lower_ref.price(bet, left, shoe[base], rules[bet])
            if not p.open:
                continue
            for result, times in results.items():
                won = higher_lower_ref.wins(bet, shoe[base], shoe[result])
                tally[bet][p.payout_hundredths if won else -100] += times
    return {
        bet: sorted((w, Fraction(pay, 100)) for pay, w in pays.items())
        for bet, pays in tally.items()
    }
