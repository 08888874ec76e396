"""Slow, obviously-correct reference for the simulated shoes of baccarat and Dragon Tiger
(``pricing.analysis.two_hands_sim``): deal a shuffled shoe card by card, as written in
docs/analysis/baccarat.md, and tally what the players betting by rules that need no odds
engine win: the 11:1 pairs by Jacobson's rule (Σ n(n − 1) over the ranks > N(N − 1) / 12)
and the Dragon 7 and Panda 8 counts; for Dragon Tiger, every bet by the exact odds of the
reference enumeration.

Nothing here shares code with the engine: cards are text (``str(card)`` of the shuffled shoe
the test hands over), baccarat's drawing rules and settlement are ``baccarat_ref``'s, Dragon
Tiger's ``dragon_tiger_ref``'s, and the deal, the burn, the cut card and the counts are
written again below.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from tests.support.reference import baccarat_ref, dragon_tiger_ref

#: Jacobson's tags by rank 1-9; every ten-value card (10 J Q K) counts as a ten.
DRAGON_TAGS = dict(enumerate((0, 0, 0, -1, -1, -1, -1, 2, 2), start=1)) | dict.fromkeys(
    range(10, 14), 0
)
PANDA_TAGS = dict(enumerate((1, 1, -2, -2, -2, -1, -1, -2, 4), start=1)) | dict.fromkeys(
    range(10, 14), 1
)
#: Each count's bet's pay, in hundredths.
WINS = {"DRAGON_7": 4000, "PANDA_8": 2500}
TRIGGERS = {"DRAGON_7": (DRAGON_TAGS, 4), "PANDA_8": (PANDA_TAGS, 11)}


def rank(text: str) -> int:
    return baccarat_ref.card(text)[0]


def burnt(shoe: Sequence[str]) -> int:
    """Cards the opening burn takes: the first, then as many as its value (ten-value: 10)."""
    first = rank(shoe[0])
    return 1 + (first if first < 10 else 10)


def baccarat_round(shoe: Sequence[str], at: int) -> tuple[list[str], list[str], int]:
    """Player, Banker and the position after a round dealt at ``at``: Player, Banker, Player,
    Banker (docs/rules.md §7), then the tableau's third cards."""
    player = [shoe[at], shoe[at + 2]]
    banker = [shoe[at + 1], shoe[at + 3]]
    at += 4
    while True:
        hand = baccarat_ref.next_hand(
            [baccarat_ref.card(c) for c in player], [baccarat_ref.card(c) for c in banker]
        )
        if hand is None:
            return player, banker, at
        (player if hand == "PLAYER" else banker).append(shoe[at])
        at += 1


def rounds(shoe: Sequence[str], cut_card: int, need: int, deal: object) -> list[tuple[int, int]]:
    """Each round's first position and the position after it, by the cut card's rule: the
    round the cut card comes out in is finished and one more is dealt; none more if it comes
    out as a round's first card."""
    out = []
    at = burnt(shoe)
    cut = len(shoe) - cut_card
    more = None
    while len(shoe) - at >= need:
        if more is None and at >= cut:
            more = 1
        after = deal(shoe, at)[-1]  # type: ignore[operator]
        out.append((at, after))
        if more is None and after > cut:
            more = 1
        elif more is not None:
            more -= 1
            if more == 0:
                break
        at = after
    return out


def _pair_favourable(left: Counter[int]) -> bool:
    n = sum(left.values())
    return 12 * sum(k * (k - 1) for k in left.values()) > n * (n - 1)


def baccarat_units(shoes: Sequence[Sequence[str]], cut_card: int) -> dict[str, list[Fraction]]:
    """Units won per shoe: both pairs together, betting whenever Jacobson's rule says so;
    each count on its bet."""
    out: dict[str, list[Fraction]] = {"pairs": [], "DRAGON_7": [], "PANDA_8": [], "rounds": []}
    for shoe in shoes:
        won = dict.fromkeys(("pairs", "DRAGON_7", "PANDA_8"), Fraction(0))
        played = rounds(shoe, cut_card, 6, baccarat_round)
        for first, _ in played:
            seen = shoe[:first]
            left = Counter(rank(c) for c in shoe[first:])
            player, banker, _ = baccarat_round(shoe, first)
            if _pair_favourable(left):
                for bet in ("PLAYER_PAIR", "BANKER_PAIR"):
                    won["pairs"] += _pay(bet, {"WIN": 1100}, player, banker)
            for bet, (tags, trigger) in TRIGGERS.items():
                running = sum(tags[rank(c)] for c in seen)
                if Fraction(running * 52, len(shoe) - first) >= trigger:
                    won[bet] += _pay(bet, {"WIN": WINS[bet]}, player, banker)
        for name, value in won.items():
            out[name].append(value)
        out["rounds"].append(Fraction(len(played)))
    return out


def _pay(bet: str, pays: dict[str, int], player: list[str], banker: list[str]) -> Fraction:
    _, hundredths = baccarat_ref.settle((bet, "standard"), pays, player, banker)
    return Fraction(hundredths, 100)


def dragon_tiger_units(
    shoes: Sequence[Sequence[str]], cut_card: int, bets: Sequence[str]
) -> dict[str, list[Fraction]]:
    """Units won per shoe by a player betting each bet whenever its exact RTP (the reference's
    enumeration of the next round over the cards left) is over 1; all the main and card bets
    pay 1:1, the tie 8:1 and the suited tie 50:1."""
    pays = {"TIE": 800, "SUITED_TIE": 5000}
    out: dict[str, list[Fraction]] = {bet: [] for bet in bets}

    def deal(shoe: Sequence[str], at: int) -> tuple[int]:
        return (at + 2,)

    for shoe in shoes:
        won = dict.fromkeys(bets, Fraction(0))
        for first, _ in rounds(shoe, cut_card, 2, deal):
            tally = dragon_tiger_ref.next_round(dragon_tiger_ref.shoe(shoe[first:]))
            dragon, tiger = (dragon_tiger_ref.card(c) for c in shoe[first : first + 2])
            for bet in bets:
                ways, total = tally[bet]
                if dragon_tiger_ref.rtp(ways, total, pays.get(bet, 100)) > 1:
                    outcome = dragon_tiger_ref.outcome(bet, dragon, tiger)
                    won[bet] += dragon_tiger_ref.pay(outcome, pays.get(bet, 100))
        for bet in bets:
            out[bet].append(won[bet])
    return out
