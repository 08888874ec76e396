"""Goa Gae's exact return to player for the category bets (docs/rules.md §4).

Two ways to deal: a fresh deck every round (``rounds=1``: every round is priced on the full
deck), or ``rounds`` rounds dealt from one deck, ``cards_per_round`` cards each (default 6:
the player's and the dealer's three), round ``k`` opening with ``cards_per_round × (k − 1)``
cards gone, a uniformly random set of them.

A round's price depends on how many three-card hands are left (fixed at each round) and how
many of them win the bet. For TRIPLE, STRAIGHT_FLUSH, FLUSH and JQK that count is a sum over
independent groups of cards (ranks, suits, the J/Q/K cards), so its law after ``m`` cards are
gone is a convolution (``pricing._goagae_rtp``), exact at every round. The STRAIGHT and NINE
counts couple neighbouring ranks across suits (and NINE the points of every card), so no such
split exists: over several rounds from one deck they are counted exactly by enumerating every
set of cards gone while that stays within ``ENUMERATION_LIMIT`` sets, and otherwise left out
of the report and named in ``GoaGaeReport.left_out``.

>>> fresh = goagae_rtp()
>>> f"{float(fresh.bets['TRIPLE'].rtp):.6f}", fresh.bets["TRIPLE"].min_payout
('0.960000', 40700)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Final

from pricing import _goagae_rtp
from pricing.analysis.report import BetReport, PositionTally, bet_report
from pricing.cards import DECK, Card, parse_cards
from pricing.errors import InvalidOption
from pricing.games.goagae import BETS, DEFAULT_PAYTABLE, HAND_SIZE, GoaGaePaytable, quote

__all__ = ["ENUMERATION_LIMIT", "GoaGaeReport", "goagae_positions", "goagae_rtp"]

#: The most card sets an exact enumeration visits (STRAIGHT and NINE over several rounds).
ENUMERATION_LIMIT: Final = 250_000
DEFAULT_CARDS_PER_ROUND: Final = 6
_SEQUENCES: Final = (*((r, r + 1, r + 2) for r in range(1, 12)), (12, 13, 1))
_FACES: Final = (11, 12, 13)


@dataclass(frozen=True, slots=True)
class GoaGaeReport:
    """The exact report of each category bet (see ``BetReport``); positions are the rounds
    1 … ``rounds`` of a deck. ``left_out`` names the bets that could not be counted exactly
    for this deal (see the module's docstring)."""

    paytable: GoaGaePaytable
    rounds: int
    cards_per_round: int
    bets: dict[str, BetReport]
    left_out: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": "goagae",
            "rounds": self.rounds,
            "cards_per_round": self.cards_per_round,
            "left_out": list(self.left_out),
            "bets": {bet: report.as_dict() for bet, report in self.bets.items()},
        }


Group = list[tuple[int, int, int]]


def _group(cards: Collection[Card], wins: Callable[[tuple[Card, ...]], int]) -> Group:
    """``(removed, wins, ways)`` over every subset of ``cards`` the deck may keep."""
    tally: dict[tuple[int, int], int] = {}
    cards = tuple(cards)
    for kept_count in range(len(cards) + 1):
        for kept in itertools.combinations(cards, kept_count):
            key = (len(cards) - kept_count, wins(kept))
            tally[key] = tally.get(key, 0) + 1
    return [(removed, w, ways) for (removed, w), ways in sorted(tally.items())]


def _inert(count: int) -> Group:
    """A group of ``count`` cards none of whose hands win."""
    return [(removed, 0, math.comb(count, removed)) for removed in range(count + 1)]


def _straight_flushes(kept: tuple[Card, ...]) -> int:
    ranks = {int(c.rank) for c in kept}
    return sum(1 for seq in _SEQUENCES if ranks.issuperset(seq))


def _groups(bet: str, deck: Collection[Card]) -> list[Group] | None:
    by_rank = [[c for c in deck if int(c.rank) == r] for r in range(1, 14)]
    by_suit = [[c for c in deck if c.suit is s] for s in {c.suit for c in DECK}]
    if bet == "TRIPLE":
        return [_group(cards, lambda kept: math.comb(len(kept), 3)) for cards in by_rank]
    if bet == "STRAIGHT_FLUSH":
        return [_group(cards, _straight_flushes) for cards in by_suit]
    if bet == "FLUSH":
        return [
            _group(cards, lambda kept: math.comb(len(kept), 3) - _straight_flushes(kept))
            for cards in by_suit
        ]
    if bet == "JQK":
        faces = [c for c in deck if int(c.rank) in _FACES]

        def jqk(kept: tuple[Card, ...]) -> int:
            triples = sum(math.comb(sum(1 for c in kept if int(c.rank) == r), 3) for r in _FACES)
            suited = sum(
                1 for s in {c.suit for c in kept} if sum(1 for c in kept if c.suit is s) == 3
            )
            return math.comb(len(kept), 3) - triples - suited

        return [_group(faces, jqk), _inert(len(deck) - len(faces))]
    return None  # STRAIGHT and NINE: no split into independent groups


def _enumerated(
    bet: str, deck: tuple[Card, ...], gone: Iterable[int], paytable: GoaGaePaytable
) -> list[list[int]] | None:
    """Ways by winning-hand count at each round, by visiting every set of cards gone; ``None``
    beyond ``ENUMERATION_LIMIT``."""
    gone = tuple(gone)
    if sum(math.comb(len(deck), m) for m in gone) > ENUMERATION_LIMIT:
        return None
    missing = [c for c in DECK if c not in deck]
    out = []
    for m in gone:
        ways = [0] * (math.comb(len(deck) - m, HAND_SIZE) + 1)
        for removed in itertools.combinations(deck, m):
            ways[quote([*missing, *removed], paytable)[bet].wins] += 1
        out.append(ways)
    return out


def goagae_positions(
    paytable: GoaGaePaytable = DEFAULT_PAYTABLE,
    *,
    rounds: int = 1,
    cards_per_round: int = DEFAULT_CARDS_PER_ROUND,
    deck: Iterable[Card | str] | None = None,
) -> tuple[dict[str, list[PositionTally]], tuple[str, ...]]:
    """The deck states of each category bet at each round (``goagae_rtp``'s arguments), and the
    bets with no exact count for this deal."""
    cards = tuple(DECK) if deck is None else tuple(sorted(set(parse_cards(deck))))
    if not isinstance(rounds, int) or rounds < 1:
        raise InvalidOption(f"rounds must be a whole number >= 1, got {rounds!r}")
    if not isinstance(cards_per_round, int) or cards_per_round < HAND_SIZE:
        raise InvalidOption(f"cards_per_round must be at least 3, got {cards_per_round!r}")
    gone = tuple(cards_per_round * k for k in range(rounds))
    if gone[-1] + HAND_SIZE > len(cards):
        raise InvalidOption(
            f"{rounds} rounds of {cards_per_round} cards need at least "
            f"{gone[-1] + HAND_SIZE} cards for the last hand; the deck has {len(cards)}"
        )
    positions: dict[str, list[PositionTally]] = {}
    left_out = []
    for bet in BETS:
        groups = _groups(bet, cards) if rounds > 1 else None
        tallies: list[list[int]] | tuple[tuple[int, ...], ...] | None
        if rounds == 1:
            wins = quote([c for c in DECK if c not in cards], paytable)[bet].wins
            tallies = [[0] * wins + [1]]
        elif groups is not None:
            tallies = _goagae_rtp.removal_tallies(groups, gone)
        else:
            tallies = _enumerated(bet, cards, gone, paytable)
        if tallies is None:
            left_out.append(bet)
            continue
        positions[bet] = [
            PositionTally(math.comb(len(cards) - m, HAND_SIZE), ways)
            for m, ways in zip(gone, tallies, strict=True)
        ]
    return positions, tuple(left_out)


def goagae_rtp(
    paytable: GoaGaePaytable = DEFAULT_PAYTABLE,
    *,
    rounds: int = 1,
    cards_per_round: int = DEFAULT_CARDS_PER_ROUND,
    deck: Iterable[Card | str] | None = None,
) -> GoaGaeReport:
    """The exact report of the six category bets: a fresh deck every round (``rounds=1``), or
    ``rounds`` rounds of ``cards_per_round`` cards dealt from one deck. ``deck`` (default: the
    52 cards) serves what-if questions and the tests' reduced decks."""
    positions, left_out = goagae_positions(
        paytable, rounds=rounds, cards_per_round=cards_per_round, deck=deck
    )
    rules = paytable.rules()
    bets = {bet: bet_report(bet, rules[bet], tallies) for bet, tallies in positions.items()}
    return GoaGaeReport(paytable, rounds, cards_per_round, bets, left_out)
