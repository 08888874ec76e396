"""Slow, obviously-correct reference for baccarat (docs/rules.md §7): the exact odds of every bet
by enumerating every ordered deal of the cards left, one card at a time, and the settlement of
a dealt round.

Nothing here shares code with the engine (``pricing.games.baccarat``, ``pricing._baccarat``):
a card is a ``(rank, suit)`` pair read from its text (rank 1–13, suit letter), a shoe is a
``Counter`` of the cards left, the drawing rules and every bet's rule are written again below.
A deal is a sequence of cards; its ways are the product of the copies of each card left when
it is drawn, and a finished deal of ``j`` cards has probability ``ways / (N (N - 1) … (N - j +
1))`` over the ``N`` cards left. The first four cards still to come are dealt Player first,
then Banker: the cards still in the shoe are a uniformly random order, so which slot takes
which of them does not change the odds.

Every bet reads only each hand's total, its number of cards, whether it is a natural and
whether its first two cards pair (by rank, and as one card twice); finished deals are tallied
by those facts and each bet is settled on a deal of each tally. When no bet reads suits, cards
are counted by rank alone. Only small shoes are practical: tests keep to a few kinds of card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13} | {str(n): n for n in range(2, 11)}

Card = tuple[int, str]  # (rank 1-13, suit letter; "*" when suits are not counted)
Hand = tuple[Card, ...]
#: A bet and the variant it is played in: the commission for BANKER (``standard``,
#: ``no-commission``, ``ez``), ``standard`` or ``evolution`` for PERFECT_PAIR, else anything.
Bet = tuple[str, str]

#: Outcomes that return the stake.
PUSHES = frozenset({"PUSH", "DRAGON_7_PUSH", "NATURAL_TIE"})


def card(text: str) -> Card:
    """``"10H"`` -> ``(10, "H")``; canonical notation only."""
    return RANKS[text[:-1]], text[-1]


def points(c: Card) -> int:
    """Ace 1, two to nine their number, ten and the faces 0."""
    rank, _suit = c
    return rank if rank <= 9 else 0


def hand_total(hand: Sequence[Card]) -> int:
    return sum(points(c) for c in hand) % 10


def is_natural(hand: Sequence[Card]) -> bool:
    return len(hand) == 2 and hand_total(hand) in (8, 9)


def next_hand(player: Sequence[Card], banker: Sequence[Card]) -> str | None:
    """Who takes the next card: ``"PLAYER"``, ``"BANKER"`` or ``None`` (the round is over)."""
    if len(player) < 2:
        return "PLAYER"
    if len(banker) < 2:
        return "BANKER"
    if is_natural(player[:2]) or is_natural(banker[:2]):
        return None
    p = hand_total(player[:2])
    b = hand_total(banker[:2])
    if len(player) == 2 and p <= 5:
        return "PLAYER"
    if len(banker) == 3:
        return None
    if len(player) == 2:  # the Player stood on 6 or 7
        return "BANKER" if b <= 5 else None
    third = points(player[2])
    if b <= 2:
        draws = True
    elif b == 3:
        draws = third != 8
    elif b == 4:
        draws = third in (2, 3, 4, 5, 6, 7)
    elif b == 5:
        draws = third in (4, 5, 6, 7)
    elif b == 6:
        draws = third in (6, 7)
    else:
        draws = False
    return "BANKER" if draws else None


# --- Every bet's rule -------------------------------------------------------------------------


def _dragon_bonus(own: Sequence[Card], other: Sequence[Card]) -> str:
    mine, theirs = hand_total(own), hand_total(other)
    if mine > theirs:
        if is_natural(own):
            return "NATURAL_WIN"
        return f"WIN_BY_{mine - theirs}" if mine - theirs >= 4 else "LOSE"
    if mine == theirs and is_natural(own) and is_natural(other):
        return "NATURAL_TIE"
    return "LOSE"


def outcome(bet: Bet, player: Sequence[Card], banker: Sequence[Card]) -> str:
    """The outcome of ``bet`` on a finished round."""
    name, variant = bet
    p, b = hand_total(player), hand_total(banker)
    cards = len(player) + len(banker)
    pair = [hand[0][0] == hand[1][0] for hand in (player, banker)]
    same = [hand[0] == hand[1] for hand in (player, banker)]
    if name == "PLAYER":
        return "WIN" if p > b else "PUSH" if p == b else "LOSE"
    if name == "BANKER":
        if b < p:
            return "LOSE"
        if b == p:
            return "PUSH"
        if variant == "no-commission" and b == 6:
            return "WIN_ON_6"
        if variant == "ez" and b == 7 and len(banker) == 3:
            return "DRAGON_7_PUSH"
        return "WIN"
    if name == "PERFECT_PAIR" and variant == "evolution":
        return "BOTH_HANDS" if all(same) else "ONE_HAND" if any(same) else "LOSE"
    if name == "DRAGON_BONUS_PLAYER":
        return _dragon_bonus(player, banker)
    if name == "DRAGON_BONUS_BANKER":
        return _dragon_bonus(banker, player)
    if name == "LUCKY_6":
        if b > p and b == 6:
            return "TWO_CARD_6" if len(banker) == 2 else "THREE_CARD_6"
        return "LOSE"
    wins = {
        "TIE": p == b,
        "PLAYER_PAIR": pair[0],
        "BANKER_PAIR": pair[1],
        "EITHER_PAIR": any(pair),
        "PERFECT_PAIR": any(same),
        "DRAGON_7": b > p and b == 7 and len(banker) == 3,
        "PANDA_8": p > b and p == 8 and len(player) == 3,
        "BIG": cards in (5, 6),
        "SMALL": cards == 4,
        "SUPER_6": b > p and b == 6,
        **{f"EGALITE_{t}": p == b == t for t in range(10)},
    }[name]
    return "WIN" if wins else "LOSE"


def settle(
    bet: Bet, pays: Mapping[str, int], player: Sequence[str], banker: Sequence[str]
) -> tuple[str, int]:
    """A finished round's outcome for ``bet`` and its pay in hundredths: ``pays[outcome]``,
    0 for a push, -100 for a loss."""
    result = outcome(bet, [card(t) for t in player], [card(t) for t in banker])
    if result == "LOSE":
        return result, -100
    return result, 0 if result in PUSHES else pays[result]


# --- The enumeration --------------------------------------------------------------------------


def _finishes(shoe: Counter[Card], player: Hand, banker: Hand) -> Iterator[tuple[Hand, Hand, int]]:
    """Every way the round can end from here: the finished hands and the ways of the cards
    drawn (the product of the copies of each card left as it is drawn)."""
    hand = next_hand(player, banker)
    if hand is None:
        yield player, banker, 1
        return
    for c in sorted(shoe):
        copies = shoe[c]
        if copies == 0:
            continue
        shoe[c] -= 1
        grown = ((*player, c), banker) if hand == "PLAYER" else (player, (*banker, c))
        for end_player, end_banker, ways in _finishes(shoe, *grown):
            yield end_player, end_banker, ways * copies
        shoe[c] += 1


def _facts(player: Hand, banker: Hand) -> tuple[object, ...]:
    """Everything any bet reads of a finished round."""
    return (
        hand_total(player),
        hand_total(banker),
        len(player),
        len(banker),
        is_natural(player),
        is_natural(banker),
        player[0][0] == player[1][0],
        banker[0][0] == banker[1][0],
        player[0] == player[1],
        banker[0] == banker[1],
    )


def falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


def odds(
    cards: Iterable[str], player: Sequence[str], banker: Sequence[str], bets: Sequence[Bet]
) -> dict[Bet, dict[str, Fraction]] | None:
    """The probability of each outcome of each of ``bets`` (those with none left out) for a
    round with ``player`` and ``banker`` dealt so far from a shoe now holding ``cards`` (with
    repeats); ``None`` when fewer than 6 cards were left when the round started."""
    suits = any(name == "PERFECT_PAIR" for name, _ in bets)

    def kind(text: str) -> Card:
        rank, suit = card(text)
        return (rank, suit if suits else "*")

    shoe = Counter(kind(t) for t in cards)
    left = sum(shoe.values())
    if left + len(player) + len(banker) < 6:
        return None
    start_p = tuple(kind(t) for t in player)
    start_b = tuple(kind(t) for t in banker)
    tally: Counter[tuple[tuple[object, ...], int]] = Counter()
    example: dict[tuple[object, ...], tuple[Hand, Hand]] = {}
    for end_p, end_b, ways in _finishes(shoe, start_p, start_b):
        facts = _facts(end_p, end_b)
        drawn = len(end_p) + len(end_b) - len(start_p) - len(start_b)
        tally[facts, drawn] += ways
        example.setdefault(facts, (end_p, end_b))
    result: dict[Bet, dict[str, Fraction]] = {}
    for bet in bets:
        distribution: dict[str, Fraction] = {}
        for (facts, drawn), ways in tally.items():
            end_p, end_b = example[facts]
            name = outcome(bet, end_p, end_b)
            p = Fraction(ways, falling(left, drawn))
            distribution[name] = distribution.get(name, Fraction(0)) + p
        result[bet] = distribution
    return result


def rtp(distribution: Mapping[str, Fraction], pays: Mapping[str, int]) -> Fraction:
    """The return to player (stake included) of a bet with these outcome odds and pays."""
    back = Fraction(0)
    for name, p in distribution.items():
        if name == "LOSE":
            continue
        back += p * (100 + (0 if name in PUSHES else pays[name])) / 100
    return back
