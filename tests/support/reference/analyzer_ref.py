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

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from pricing.games.blackjack import basic_strategy
from pricing.games.blackjack.basic_strategy import Spot

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


# Splits and the next round's edge (docs/rules.md §3.9)
# ======================================================
#
# A split is PLAYED OUT card by card in casino order: hand 1 takes its second card (a pair card
# while fewer than ``max_hands`` hands exist makes one more hand, queued, and hand 1 takes
# another), hand 1 is played to the end, then hand 2 takes its second card, and so on; then the
# dealer draws from what the hands left, and every hand is settled against that one dealer
# result. Nothing is done by the kernel's method (exchangeable per-hand EVs combined with
# sequence probabilities): the one shoe is followed through every line of play.
#
# Suits never matter here, so the playout draws by value: a shoe is 10 counts, index ``v - 1``
# for the value ``v`` (1 = Ace … 10 = any ten). Where the unsplit functions above are needed
# (``stand``, ``hit``, ``double``, ``dealer``) a value shoe is handed to them ``embed``-ded in 52
# counts, each value's cards on one deck index of its rank (``(v - 1) * 4``): they read the
# rank from the index, so they see the same cards and branch 10 ways instead of 52.
#
# Every function below is memoised (``functools.cache``) on canonical states: a hand is the
# sorted tuple of its values, finished hands a sorted tuple of (total, stake).

Values = tuple[int, ...]
#: A finished split hand: its total (22 = busted) and its stake (2 if doubled).
Finished = tuple[tuple[int, int], ...]
BUSTED = 22


def value_counts(counts: Counts) -> Values:
    """The 10 value counts of a shoe of 52 counts by deck index."""
    values = [0] * 10
    for index, copies in enumerate(counts):
        values[min(index // 4, 9)] += copies
    return tuple(values)


def embed(values: Values) -> Counts:
    """A value shoe as 52 counts the unsplit functions read: value ``v`` on rank ``v``."""
    counts = [0] * 52
    for v, copies in enumerate(values, start=1):
        counts[(v - 1) * 4] = copies
    return tuple(counts)


def minus(values: Values, cards: tuple[int, ...]) -> Values:
    """The value shoe without ``cards`` (values), which must be in it."""
    out = list(values)
    for v in cards:
        out[v - 1] -= 1
        assert out[v - 1] >= 0, "a card that is not in the shoe"
    return tuple(out)


def plus(values: Values, cards: tuple[int, ...]) -> Values:
    out = list(values)
    for v in cards:
        out[v - 1] += 1
    return tuple(out)


def value_draws(values: Values) -> list[tuple[Fraction, int, Values]]:
    """Each value the shoe can give next: (probability, the value, the shoe after it)."""
    left = sum(values)
    if left == 0:
        raise ShoeRanOut
    return [
        (Fraction(copies, left), v, minus(values, (v,)))
        for v, copies in enumerate(values, start=1)
        if copies
    ]


@dataclass(frozen=True)
class Split:
    """One split to play out (hashable: it is part of every memoised state).

    ``base`` is the value shoe without the up card only (both pair cards still in it): the
    CDZ- decisions of a split hand holding ``C`` are the unsplit EVs on ``base - C``.
    ``basic`` plays the split hands by the chart instead. The last two fields are deliberate
    mutations of the rules for the tests' sanity checks, never the rules themselves."""

    pair: int
    up: int
    base: Values
    h17: bool
    das: bool
    max_hands: int
    basic: bool = False
    mutant_dealer_blackjack_per_hand: bool = False
    mutant_resplit_aces: bool = False

    @property
    def hand_limit(self) -> int:
        """Aces are split once only, whatever ``max_hands``."""
        return 2 if self.pair == 1 and not self.mutant_resplit_aces else self.max_hands


@cache
def _decide(cards: tuple[int, ...], g: Split) -> tuple[str, float]:
    """What a split hand holding ``cards`` (sorted values, two or more, not busted) does:
    ``"S"``, ``"H"`` or ``"D"``, and how close the call was (the smallest gap between the
    EVs compared; infinite for the chart or a forced stand), so that a test can tell an exact
    tie, which a kernel in doubles may break either way, from a real disagreement."""
    if total(cards) == 21:
        return "S", math.inf
    if g.basic:
        spot = Spot.SPLIT_TWO if len(cards) == 2 else Spot.MORE_CARDS
        letter = basic_strategy.action(
            spot, soft=is_soft(cards), total=total(cards), up=g.up, rules_h17=g.h17, das=g.das
        )
        assert letter in ("S", "H", "D"), letter  # no surrender after a split
        return letter, math.inf
    shoe = embed(minus(g.base, cards))  # the pre-split shoe without this hand's own cards
    s = stand(cards, g.up, shoe, g.h17)
    h = hit(cards, g.up, shoe, g.h17)
    choice, gap = ("H" if h > s else "S"), abs(h - s)
    if len(cards) == 2 and g.das:
        d = double(cards, g.up, shoe, g.h17)
        gap = min(gap, abs(d - max(s, h)))
        if d > max(s, h):
            choice = "D"
    return choice, float(gap)


def _finish(finished: Finished, hand_total: int, stake: int) -> Finished:
    """``finished`` and one more hand. Totals below 17 are all kept as 16: the dealer never
    stands below 17, so such a hand wins on a dealer bust and loses otherwise, whatever its
    total (fewer distinct states, the same settlement)."""
    kept = BUSTED if hand_total > 21 else max(hand_total, 16)
    return tuple(sorted((*finished, (kept, stake))))


@cache
def _second_card(
    shoe: Values, pending: int, hands: int, finished: Finished, g: Split
) -> tuple[Fraction, float]:
    """The hand in play holds only its pair card: it takes its second card (a pair card makes
    one more hand while there are fewer than the limit, and it takes another), then is played.
    ``pending`` hands wait behind it with their pair card; ``hands`` exist in all. Returns the
    split's EV from here and the closest call on the way."""
    ev, gap = Fraction(0), math.inf
    for p, v, after in value_draws(shoe):
        if v == g.pair and hands < g.hand_limit:
            e, c = _second_card(after, pending + 1, hands + 1, finished, g)
        elif g.pair == 1:  # a split ace takes one card and stands; A + ten is 21, not a blackjack
            e, c = _next_hand(after, pending, hands, _finish(finished, total((1, v)), 1), g)
        else:
            e, c = _play(after, tuple(sorted((g.pair, v))), (pending, hands, finished), g)
        ev += p * e
        gap = min(gap, c)
    return ev, gap


@cache
def _play(
    shoe: Values, cards: tuple[int, ...], seats: tuple[int, int, Finished], g: Split
) -> tuple[Fraction, float]:
    """The hand in play holds ``cards`` (two or more, not busted): play it to the end.
    ``seats`` is (hands waiting for their second card, hands in all, finished hands)."""
    pending, hands, finished = seats
    action, gap = _decide(cards, g)
    if action == "S":
        e, c = _next_hand(shoe, pending, hands, _finish(finished, total(cards), 1), g)
        return e, min(gap, c)
    ev = Fraction(0)
    for p, v, after in value_draws(shoe):
        held = tuple(sorted((*cards, v)))
        if action == "D":
            e, c = _next_hand(after, pending, hands, _finish(finished, total(held), 2), g)
        elif total(held) > 21:
            e, c = _next_hand(after, pending, hands, _finish(finished, BUSTED, 1), g)
        else:
            e, c = _play(after, held, seats, g)
        ev += p * e
        gap = min(gap, c)
    return ev, gap


def _next_hand(
    shoe: Values, pending: int, hands: int, finished: Finished, g: Split
) -> tuple[Fraction, float]:
    """The hand in play is over: the next waiting hand takes its second card, or, none left,
    the dealer draws and every hand is settled."""
    if pending:
        return _second_card(shoe, pending - 1, hands, finished, g)
    return _settle_split(shoe, finished, g), math.inf


@cache
def _settle_split(shoe: Values, finished: Finished, g: Split) -> Fraction:
    """The dealer draws from ``shoe`` (its up card already out): a dealer blackjack takes the
    original wager only, 1 in all; else each hand wins, loses or pushes its own stake."""
    ev = Fraction(0)
    for outcome, q in dealer((g.up,), embed(shoe), g.h17).items():
        if outcome == "BJ":
            won = -len(finished) if g.mutant_dealer_blackjack_per_hand else -1
        else:
            won = 0
            for hand_total, stake in finished:
                if hand_total > 21:
                    won -= stake
                elif outcome == "BUST":
                    won += stake
                else:
                    assert isinstance(outcome, int)
                    won += stake if hand_total > outcome else -stake if hand_total < outcome else 0
        ev += q * won
    return ev


def split_with_margin(g: Split) -> tuple[Fraction, float]:
    """The EV of the split ``g`` and its closest CDZ- call (see ``_decide``)."""
    shoe = minus(g.base, (g.pair, g.pair))
    return _second_card(shoe, 1, 2, (), g)


def split(
    pair: int,
    up: int,
    counts: Counts,
    *,
    h17: bool,
    das: bool,
    max_hands: int,
    basic: bool = False,
) -> Fraction:
    """The EV of splitting a pair of value ``pair`` (1–10) against the up card of value
    ``up``, the shoe ``counts`` (52 counts by deck index, without the pair and the up card),
    into at most ``max_hands`` hands (2 for aces), doubling after the split if ``das``;
    split hands played CDZ- (or by the chart if ``basic``). ``ShoeRanOut`` if some line needs
    a card from an empty shoe."""
    base = plus(value_counts(counts), (pair, pair))
    return split_with_margin(Split(pair, up, base, h17, das, max_hands, basic))[0]


@cache
def basic_hit(player: tuple[int, ...], up: int, counts: Counts, h17: bool) -> Fraction:
    """Hit an unsplit hand and play on by the chart (three or more cards: stand or hit)."""
    ev = Fraction(0)
    for p, rank, after in draws(counts):
        hand = tuple(sorted((*player, rank)))
        if total(hand) > 21:
            ev -= p
            continue
        letter = basic_strategy.action(
            Spot.MORE_CARDS, soft=is_soft(hand), total=total(hand), up=up, rules_h17=h17, das=False
        )
        assert letter in ("S", "H"), letter
        if letter == "S" or total(hand) == 21:
            ev += p * stand(hand, up, after, h17)
        else:
            ev += p * basic_hit(hand, up, after, h17)
    return ev


@dataclass(frozen=True)
class RoundRules:
    """The options of ``player_edge``: the dealer's rule, doubling after a split, at most
    ``max_hands`` hands from a pair (2–4), surrender, and the chart (``basic``) or CDZ-."""

    h17: bool
    das: bool
    max_hands: int
    surrender: bool
    basic: bool


def round_ev(
    first_two: tuple[int, int], up: int, base: Values, r: RoundRules
) -> tuple[Fraction, float]:
    """The EV of the seat's first two cards (values) against ``up`` played by ``r``, ``base``
    the shoe without the up card only (the two cards still in it); with the closest CDZ- call
    of a split."""
    hand = tuple(sorted(first_two))
    shoe = embed(minus(base, hand))
    if total(hand) == 21:  # a blackjack only stands: 1.5, or a push against a dealer blackjack
        return stand(hand, up, shoe, r.h17, blackjack=True), math.inf
    is_pair = hand[0] == hand[1]

    def split_here() -> tuple[Fraction, float]:
        return split_with_margin(Split(hand[0], up, base, r.h17, r.das, r.max_hands, r.basic))

    if r.basic:
        if is_pair and basic_strategy.splits(hand[0], up=up, das=r.das):
            return split_here()
        letter = basic_strategy.action(
            Spot.FIRST_TWO,
            soft=is_soft(hand),
            total=total(hand),
            up=up,
            rules_h17=r.h17,
            das=r.das,
            surrender=r.surrender,
        )
        by_letter = {
            "S": lambda: stand(hand, up, shoe, r.h17),
            "H": lambda: basic_hit(hand, up, shoe, r.h17),
            "D": lambda: double(hand, up, shoe, r.h17),
            "R": lambda: Fraction(-1, 2),
        }
        return by_letter[letter](), math.inf
    options = [
        stand(hand, up, shoe, r.h17),
        hit(hand, up, shoe, r.h17),
        double(hand, up, shoe, r.h17),
    ]
    if r.surrender and up != 1:
        options.append(Fraction(-1, 2))
    gap = math.inf
    if is_pair:
        ev, gap = split_here()
        options.append(ev)
    return max(options), gap


def player_edge_with_margin(counts: Counts, r: RoundRules) -> tuple[Fraction, float]:
    """The next round's EV over every deal of player card, up card, player card from the shoe
    ``counts`` (52 counts by deck index), and the closest CDZ- call of any split on the way."""
    values = value_counts(counts)
    edge, gap = Fraction(0), math.inf
    seen: dict[tuple[tuple[int, int], int], tuple[Fraction, float]] = {}
    for p1, first, after1 in value_draws(values):
        for pu, up, after_up in value_draws(after1):
            for p2, second, _ in value_draws(after_up):
                key = ((min(first, second), max(first, second)), up)
                if key not in seen:
                    seen[key] = round_ev(key[0], up, minus(values, (up,)), r)
                ev, c = seen[key]
                edge += p1 * pu * p2 * ev
                gap = min(gap, c)
    return edge, gap


def player_edge(counts: Counts, r: RoundRules) -> Fraction:
    return player_edge_with_margin(counts, r)[0]


def clear_caches() -> None:
    """Forget every memoised state (the caches grow with each shoe tried)."""
    for f in (dealer, best, basic_hit, _decide, _second_card, _play, _settle_split):
        f.cache_clear()
