"""A slow, obviously-correct reference for the main game's decisions (docs/rules.md §3.9): the
exact ``Fraction`` EV of STAND, HIT, DOUBLE and SURRENDER for one player hand against the
dealer's up card, by playing every line out card by card.

Nothing here shares code with the kernel (``pricing._analyzer``): the shoe is the 52 counts by
deck index ``(rank - 1) * 4 + suit``, each draw picks one actual card (by index) with
probability "copies of it left / cards left", the player's draws come first and the dealer's
after them from what the player left (the European deal: the dealer's second card comes after
the player has played), and each finished round is settled by the rules as written:

* a dealer blackjack (a two-card 21) takes the original wager from every hand but a player
  blackjack, which pushes: a doubled hand loses 1, busted or not;
* otherwise a player blackjack wins 1.5; a busted hand loses its stake (2 if doubled); a
  dealer bust pays the stake; else the higher total wins the stake, equal totals push;
* a hand that busts on a hit loses 1 whatever the dealer draws (the dealer is not played);
* surrender is −1/2, on the first two cards against an up card that is not an Ace.

Hitting plays on by the better of standing and hitting on the exact cards held; a 21 stands.
If some line needs a card from an empty shoe, ``ShoeRanOut``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

Counts = tuple[int, ...]


class ShoeRanOut(Exception):
    """Some line of play needs a card from an empty shoe."""


def points(rank: int) -> int:
    return min(rank, 10)


def total(ranks: tuple[int, ...]) -> int:
    """The best total: one ace counts 11 if that does not bust."""
    hard = sum(points(r) for r in ranks)
    return hard + 10 if 1 in ranks and hard + 10 <= 21 else hard


def is_soft(ranks: tuple[int, ...]) -> bool:
    hard = sum(points(r) for r in ranks)
    return 1 in ranks and hard + 10 <= 21


def draws(counts: Counts) -> list[tuple[Fraction, int, Counts]]:
    """Each card the shoe can give next: (probability, its rank, the shoe after it)."""
    left = sum(counts)
    if left == 0:
        raise ShoeRanOut
    out = []
    for index, copies in enumerate(counts):
        if copies:
            after = (*counts[:index], copies - 1, *counts[index + 1 :])
            out.append((Fraction(copies, left), index // 4 + 1, after))
    return out


@cache
def dealer(hand: tuple[int, ...], counts: Counts, h17: bool) -> dict[object, Fraction]:
    """The dealer's final result from ``hand`` (ranks in the order dealt): ``"BJ"``, ``"BUST"``
    or the total it stands on, with its probability."""
    t = total(hand)
    if len(hand) == 2 and t == 21:
        return {"BJ": Fraction(1)}
    if t > 21:
        return {"BUST": Fraction(1)}
    if len(hand) >= 2 and (t > 17 or (t == 17 and not (h17 and is_soft(hand)))):
        return {t: Fraction(1)}
    result: dict[object, Fraction] = {}
    for p, rank, after in draws(counts):
        for outcome, q in dealer((*hand, rank), after, h17).items():
            result[outcome] = result.get(outcome, Fraction(0)) + p * q
    return result


def settle(player: tuple[int, ...], blackjack: bool, doubled: bool, outcome: object) -> Fraction:
    """What the hand wins (per unit of original wager) against the dealer's ``outcome``."""
    if outcome == "BJ":
        return Fraction(0) if blackjack else Fraction(-1)
    if blackjack:
        return Fraction(3, 2)
    stake = 2 if doubled else 1
    mine = total(player)
    if mine > 21:
        return Fraction(-stake)
    if outcome == "BUST":
        return Fraction(stake)
    assert isinstance(outcome, int)
    return Fraction(stake if mine > outcome else -stake if mine < outcome else 0)


def stand(
    player: tuple[int, ...], up: int, counts: Counts, h17: bool, blackjack: bool = False
) -> Fraction:
    return sum(
        (
            p * settle(player, blackjack, False, outcome)
            for outcome, p in dealer((up,), counts, h17).items()
        ),
        Fraction(0),
    )


@cache
def best(player: tuple[int, ...], up: int, counts: Counts, h17: bool) -> Fraction:
    """Play on from ``player`` (after a hit) by the better of standing and hitting."""
    s = stand(player, up, counts, h17)
    if total(player) >= 21:
        return s
    return max(s, hit(player, up, counts, h17))


def hit(player: tuple[int, ...], up: int, counts: Counts, h17: bool) -> Fraction:
    ev = Fraction(0)
    for p, rank, after in draws(counts):
        hand = tuple(sorted((*player, rank)))  # the order of the cards held does not matter
        ev += p * (Fraction(-1) if total(hand) > 21 else best(hand, up, after, h17))
    return ev


def double(player: tuple[int, ...], up: int, counts: Counts, h17: bool) -> Fraction:
    ev = Fraction(0)
    for p, rank, after in draws(counts):
        hand = (*player, rank)
        for outcome, q in dealer((up,), after, h17).items():
            ev += p * q * settle(hand, False, True, outcome)
    return ev


def decisions(hand: list[int], up: int, counts: Counts, h17: bool) -> dict[str, Fraction | None]:
    """EVs of ``"STAND" "HIT" "DOUBLE" "SURRENDER"`` for the player's cards ``hand`` (ranks
    1–13, the seat's first two first) against the up card of rank ``up``, the shoe ``counts``
    (52 counts by deck index, without the hand and the up card); ``None`` where the action is
    not open: hitting a 21 or a blackjack, doubling or surrendering after the first two cards
    or on a blackjack, surrendering against an Ace."""
    player = tuple(sorted(hand))
    first_two = len(hand) == 2
    blackjack = first_two and total(player) == 21
    if blackjack:
        return {
            "STAND": stand(player, up, counts, h17, blackjack=True),
            "HIT": None,
            "DOUBLE": None,
            "SURRENDER": None,
        }
    return {
        "STAND": stand(player, up, counts, h17),
        "HIT": hit(player, up, counts, h17) if total(player) < 21 else None,
        "DOUBLE": double(player, up, counts, h17) if first_two else None,
        "SURRENDER": Fraction(-1, 2) if first_two and up != 1 else None,
    }
