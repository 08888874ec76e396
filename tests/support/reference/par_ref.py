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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import permutations

from tests.support.reference import baccarat_ref, dragon_tiger_ref

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


def weighted_variance(results: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
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
