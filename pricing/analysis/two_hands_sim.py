"""Baccarat's and Dragon Tiger's bets through simulated shoes (docs/rules.md §7, §8): how often
each is player-favourable as the shoe is dealt, by how much, and what two players win with
that: one who knows every round's exact odds, and one who counts cards by a published count.

A shoe is dealt as a table deals it: a seeded shuffle of every card, the opening burn (the
first card turned, then as many cards as its baccarat value, a ten or face 10: the Wizard of
Odds' procedure), then round after round until the cut card, ``cut_card`` cards from the end,
comes out: the round it comes out in is finished and one more is dealt (none more when it is
the round's first card), each round needing the game's ``min_cards``. Every card dealt, burns
included, is seen: a live table's card reader reports them all, and the counts and the exact
odds read them.

Before each round every bet is priced with the game's own exact odds (``TwoHandGame.odds``)
on the cards left; each round's hands are dealt by the game's rules (``TwoHandGame.refusal``:
baccarat's tableau) and every bet a player made is settled by the game's ``settle``.

The players, each betting one unit (100 cents: the settlement's floor is exact):

- *exact*: bets a bet in every round its exact RTP is over 1 (``SideBetOdds.player_favourable``);
- *count*: bets when a card count's true count, the running count over the decks left, is at
  least its trigger (compared exactly: ``52 × running ≥ trigger × cards left``). The counts are
  Eliot Jacobson's (``COUNTS``). For the pairs no count is needed: Jacobson's rule for the
  11:1 pairs (Σ n(n − 1) over the ranks > N(N − 1)/12) is the exact odds, the exact player.

Each with and without game protection: with it a side bet is not accepted in a round whose
exact RTP is at or over ``close_at_rtp_bp`` (``pricing.games.fixed_odds.protection_closes``;
the main bets are never closed), so such a bet is refused and neither wins nor loses.

Standard errors: the rounds of one shoe are not independent, so every share and mean over
rounds is a ratio estimate with the shoes as clusters (the standard error of Σy / Σx over the
shoes' sums); units per shoe are a mean over shoes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from pricing.cards import CARDS_PER_DECK, DECK, Card, Rank
from pricing.games.fixed_odds import protection_closes
from pricing.games.two_hands import Hands, Paytable, TwoHandGame

__all__ = [
    "COUNTS",
    "DEFAULT_CUT_CARD",
    "DEFAULT_SHOES",
    "PENETRATION_BINS",
    "CardCount",
    "Cluster",
    "PenetrationRow",
    "Simulation",
    "StrategyResult",
    "burn_count",
    "deal_round",
    "shoe_rounds",
    "simulate",
]

#: Cards behind the cut card: Jacobson's "standard cut-card position of 14 cards" for 8-deck
#: baccarat (the figures ``docs/analysis/baccarat.md`` compares with are his).
DEFAULT_CUT_CARD: Final = 14
#: Simulated shoes of each size when none are asked for.
DEFAULT_SHOES: Final = 200
#: The share of the shoe dealt is looked at in this many equal bins (0–10 %, … 90–100 %).
PENETRATION_BINS: Final = 10
#: One unit staked, in cents.
_UNIT: Final = 100

_JACOBSON_DRAGON: Final = "https://wizardofodds.com/games/baccarat/appendix/7/"
_JACOBSON_BOTH: Final = (
    "https://www.888casino.com/blog/side-bets/"
    "co-card-counting-the-dragon-and-panda-side-bets-in-ez-baccarat"
)


@dataclass(frozen=True, slots=True)
class CardCount:
    """A published card count for one bet: a tag per rank (``A`` … ``K``), bet when the true
    count (running count over decks left) is at least ``trigger``; ``source`` cites it."""

    name: str
    bet: str
    tags: tuple[int, ...]
    trigger: int
    source: str

    def tag(self, card: Card) -> int:
        return self.tags[card.rank - 1]

    def says_bet(self, running: int, cards_left: int) -> bool:
        """True count ≥ trigger, exactly: ``running / (cards_left / 52) ≥ trigger``."""
        return CARDS_PER_DECK * running >= self.trigger * cards_left


#: Eliot Jacobson's counts for the EZ game's side bets, tags A 2 3 4 5 6 7 8 9 and every
#: ten-value card, as his co-counting post lists them (8 decks, 14 cards cut off): Dragon 7
#: {0,0,0,-1,-1,-1,-1,2,2,0}, bet at a true count of +4 or more (his Wizard of Odds article);
#: Panda 8 {1,1,-2,-2,-2,-1,-1,-2,4,1} (the Wizard of Odds' Panda 8 count), bet at +11 or
#: more (the Wizard of Odds' Panda 8 page). Both are balanced: a full shoe counts 0.
COUNTS: Final = (
    CardCount("jacobson-dragon-7", "DRAGON_7", (0, 0, 0, -1, -1, -1, -1, 2, 2, 0, 0, 0, 0), 4,
              f"{_JACOBSON_DRAGON} ; {_JACOBSON_BOTH}"),
    CardCount("jacobson-panda-8", "PANDA_8", (1, 1, -2, -2, -2, -1, -1, -2, 4, 1, 1, 1, 1), 11,
              f"https://wizardofodds.com/games/baccarat/appendix/8/ ; {_JACOBSON_BOTH}"),
)  # fmt: skip


def burn_count(card: Card) -> int:
    """Cards burnt after the opening card ``card``: its baccarat value, a ten or face 10.

    >>> burn_count(Card.parse("7S")), burn_count(Card.parse("QD")), burn_count(Card.parse("AH"))
    (7, 10, 1)
    """
    return int(card.rank) if card.rank < Rank.TEN else 10


def deal_round(game: TwoHandGame, cards: Sequence[Card], position: int) -> tuple[Hands, int]:
    """The round dealt from ``cards`` at ``position`` by the game's rules (each card to the
    hand with fewer cards that may take it: baccarat's Player, Banker, Player, Banker, then
    the tableau's third cards; Dragon, then Tiger), and the position after it."""
    hands: list[tuple[Card, ...]] = [(), ()]
    while not game.is_complete((hands[0], hands[1])):
        dealt = (hands[0], hands[1])
        open_hands = [h for h in (0, 1) if game.refusal(dealt, h) is None]
        hand = min(open_hands, key=lambda h: len(hands[h]))
        hands[hand] = (*hands[hand], cards[position])
        position += 1
    return (hands[0], hands[1]), position


class Cluster:
    """The ratio Σy / Σx over shoes and its standard error, each shoe one cluster."""

    __slots__ = ("k", "sx", "sxx", "sxy", "sy", "syy")

    def __init__(self) -> None:
        self.k = 0
        self.sx = self.sy = self.sxx = self.syy = self.sxy = 0.0

    def add(self, x: float, y: float) -> None:
        self.k += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.syy += y * y
        self.sxy += x * y

    @property
    def ratio(self) -> float:
        return self.sy / self.sx if self.sx else 0.0

    @property
    def se(self) -> float:
        if self.k < 2 or not self.sx:
            return 0.0
        r = self.ratio
        spread = max(self.syy - 2 * r * self.sxy + r * r * self.sxx, 0.0) / (self.k - 1)
        return math.sqrt(spread / self.k) / (self.sx / self.k)


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = math.fsum(values) / n if n else 0.0
    if n < 2:
        return mean, 0.0
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


@dataclass(frozen=True, slots=True)
class PenetrationRow:
    """One bet over the rounds that started with ``low`` to ``high`` of the shoe dealt (the
    whole shoe: 0 to 1): ``rounds`` priced, their mean RTP and its spread, the share of them
    player-favourable and the mean edge (RTP − 1) of those, each ± its standard error."""

    low: float
    high: float
    rounds: int
    mean_rtp: float
    mean_rtp_se: float
    spread: float
    favourable: float
    favourable_se: float
    favourable_edge: float
    favourable_edge_se: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _BetTally:
    """One bet at one penetration bin (or the whole shoe), over the shoes so far."""

    __slots__ = ("edge", "favourable", "n", "rtp", "shoe", "squares")

    def __init__(self) -> None:
        self.rtp, self.favourable, self.edge = Cluster(), Cluster(), Cluster()
        self.n = 0
        self.squares = 0.0
        self.shoe = [0, 0, 0.0, 0.0]  # this shoe's rounds, favourable, Σ RTP, Σ edge

    def round(self, rtp: float) -> None:
        shoe = self.shoe
        shoe[0] += 1
        shoe[2] += rtp
        self.squares += rtp * rtp
        if rtp > 1:  # decided on the exact ratio by the caller
            shoe[1] += 1
            shoe[3] += rtp - 1

    def end_shoe(self) -> None:
        rounds, favourable, total, edges = self.shoe
        self.n += int(rounds)
        self.rtp.add(rounds, total)
        self.favourable.add(rounds, favourable)
        self.edge.add(favourable, edges)
        self.shoe = [0, 0, 0.0, 0.0]

    def row(self, low: float, high: float) -> PenetrationRow:
        mean = self.rtp.ratio
        spread = math.sqrt(max(self.squares / self.n - mean * mean, 0.0)) if self.n else 0.0
        return PenetrationRow(
            low, high, self.n, mean, self.rtp.se, spread, self.favourable.ratio,
            self.favourable.se, self.edge.ratio, self.edge.se,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class StrategyResult:
    """A player betting one unit on ``bets`` by ``rule`` (``exact``: when the round is
    player-favourable; a count's name; ``counts``: each bet by its own count), over the shoes:
    units won per shoe and their expectation (the bets' exact edges added up: the same mean,
    far less noise), each ± its standard error, and bets made per shoe; with no game protection
    and with it (the bets refused per shoe neither win nor lose)."""

    rule: str
    bets: tuple[str, ...]
    units_per_shoe: float
    units_per_shoe_se: float
    expected_per_shoe: float
    expected_per_shoe_se: float
    bets_per_shoe: float
    protected_units_per_shoe: float
    protected_units_per_shoe_se: float
    protected_expected_per_shoe: float
    protected_expected_per_shoe_se: float
    refused_per_shoe: float

    @property
    def name(self) -> str:
        return f"{self.rule}: {' + '.join(self.bets)}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"bets": list(self.bets)}


class _Player:
    """One rule on one bet: per shoe, the units won (hundredths) and the edge of the bets made
    (their expected units, exact per bet) without and with protection, the bets made and those
    refused."""

    __slots__ = ("columns", "key", "rule")

    #: The per-shoe columns, in ``settle``'s order.
    NAMES: Final = ("units", "expected", "protected", "protected_expected", "bets", "refused")

    def __init__(self, rule: str, key: str) -> None:
        self.rule, self.key = rule, key
        self.columns: dict[str, list[float]] = {name: [] for name in self.NAMES}

    def new_shoe(self) -> None:
        for column in self.columns.values():
            column.append(0)

    def settle(self, pay: int, edge: float, refused: bool) -> None:
        c = self.columns
        c["units"][-1] += pay / _UNIT
        c["expected"][-1] += edge
        c["bets"][-1] += 1
        if refused:
            c["refused"][-1] += 1
        else:
            c["protected"][-1] += pay / _UNIT
            c["protected_expected"][-1] += edge


def _result(rule: str, players: Sequence[_Player]) -> StrategyResult:
    """The players' per-shoe sums (several bets played together) as one strategy."""
    shoes = len(players[0].columns["units"])
    figures = {
        name: _mean_se([sum(p.columns[name][i] for p in players) for i in range(shoes)])
        for name in _Player.NAMES
    }
    return StrategyResult(
        rule, tuple(p.key for p in players), *figures["units"], *figures["expected"],
        figures["bets"][0], *figures["protected"], *figures["protected_expected"],
        figures["refused"][0],
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Simulation:
    """The simulated shoes of one size: their deal (``cut_card``, ``burn``), rounds per shoe ±
    standard error, each bet by penetration bin and over the whole shoe (by ``BET/preset``),
    and each player's result (``StrategyResult``) with protection at ``close_at_rtp_bp``."""

    decks: int
    shoes: int
    seed: int
    cut_card: int
    burn: bool
    close_at_rtp_bp: int
    rounds_per_shoe: float
    rounds_per_shoe_se: float
    by_penetration: dict[str, tuple[PenetrationRow, ...]]
    overall: dict[str, PenetrationRow]
    strategies: tuple[StrategyResult, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            "shoes": self.shoes,
            "seed": self.seed,
            "cut_card": self.cut_card,
            "burn": self.burn,
            "close_at_rtp_bp": self.close_at_rtp_bp,
            "rounds_per_shoe": self.rounds_per_shoe,
            "rounds_per_shoe_se": self.rounds_per_shoe_se,
            "bets": {
                key: {
                    "overall": self.overall[key].as_dict(),
                    "by_penetration": [row.as_dict() for row in rows],
                }
                for key, rows in self.by_penetration.items()
            },
            "strategies": [s.as_dict() for s in self.strategies],
        }


def shoe_rounds(
    game: TwoHandGame, cards: Sequence[Card], cut_card: int, burn: bool
) -> tuple[int, list[tuple[int, Hands, int]]]:
    """The opening burn's end and each round of one shuffled shoe: (its first card's position,
    its hands, the position after it)."""
    position = 1 + burn_count(cards[0]) if burn else 0
    cut_at = max(len(cards) - cut_card, 0)
    rounds: list[tuple[int, Hands, int]] = []
    rounds_left: int | None = None
    start = position
    while len(cards) - position >= game.min_cards:
        if rounds_left is None and position >= cut_at:
            rounds_left = 1  # the cut card comes out before the round's first card: the last
        first = position
        hands, position = deal_round(game, cards, position)
        rounds.append((first, hands, position))
        if rounds_left is None:
            if position > cut_at:
                rounds_left = 1  # out during this round: one more round
        else:
            rounds_left -= 1
            if not rounds_left:
                break
    return start, rounds


class _Tallies:
    """Everything the simulation keeps over the shoes: each bet's tallies by penetration bin
    and over the shoe, and each player's results."""

    def __init__(
        self,
        game: TwoHandGame,
        paytables: Mapping[str, Paytable],
        main_bets: frozenset[str],
        counts: Sequence[CardCount],
        close_at_rtp_bp: int,
    ) -> None:
        self.game, self.close = game, close_at_rtp_bp
        self.tables = dict(paytables)
        self.keys = list(self.tables)
        self.main_bets = main_bets
        self.bins = [_BetTally() for _ in range(len(self.keys) * PENETRATION_BINS)]
        self.whole = [_BetTally() for _ in self.keys]
        self.exact = [_Player("exact", key) for key in self.keys]
        by_bet = {t.bet: key for key, t in self.tables.items()}
        self.playing = [(c, by_bet[c.bet]) for c in counts if c.bet in by_bet]
        self.counters = [_Player(c.name, key) for c, key in self.playing]
        self.rounds: list[float] = []

    def shoe(self, cards: Sequence[Card], cut_card: int, burn: bool) -> None:
        """Deal, price and settle one shuffled shoe (``deal``: the cut card, the burn)."""
        for player in (*self.exact, *self.counters):
            player.new_shoe()
        left = [len(cards) // CARDS_PER_DECK] * CARDS_PER_DECK
        running = [0] * len(self.playing)
        seen = 0
        game = self.game
        start, rounds = shoe_rounds(game, cards, cut_card, burn)
        self.rounds.append(len(rounds))
        for first, hands, after in [(start, None, start), *rounds]:
            for card in cards[seen:first]:  # the cards seen since the last round was priced
                left[card.index] -= 1
                for i, (count, _) in enumerate(self.playing):
                    running[i] += count.tag(card)
            seen = first
            if hands is None:
                continue  # the opening burn
            bin_of_round = min(first * PENETRATION_BINS // len(cards), PENETRATION_BINS - 1)
            bets = self._price(left, bin_of_round, running, len(cards) - first)
            for player, table, edge, refused in bets:
                player.settle(game.settle(table, hands)[1], edge, refused)
            for card in cards[first:after]:
                left[card.index] -= 1
                for i, (count, _) in enumerate(self.playing):
                    running[i] += count.tag(card)
            seen = after
        for tally in (*self.bins, *self.whole):
            tally.end_shoe()

    def _price(
        self, left: Sequence[int], bin_of_round: int, running: Sequence[int], unseen: int
    ) -> list[tuple[_Player, Paytable, float, bool]]:
        """Tally every bet's odds for the next round and say which bets each player makes:
        (the player, the bet, its exact edge, refused by protection)."""
        odds = self.game.odds(left, ((), ()), list(self.tables.values()))
        bets: list[tuple[_Player, Paytable, float, bool]] = []
        for k, (key, table) in enumerate(self.tables.items()):
            priced = odds[table.bet]
            if not priced.rtp_denominator:
                continue
            ratio = priced.rtp_numerator / priced.rtp_denominator
            favourable = priced.player_favourable
            # the float can round to 1 either side: the tallies go by the exact test
            rtp = ratio if favourable == (ratio > 1) else math.nextafter(1.0, 2.0 * favourable)
            self.bins[k * PENETRATION_BINS + bin_of_round].round(rtp)
            self.whole[k].round(rtp)
            refused = table.bet not in self.main_bets and protection_closes(priced, self.close)
            if favourable:
                bets.append((self.exact[k], table, ratio - 1, refused))
            for (count, counted), counter, tally in zip(
                self.playing, self.counters, running, strict=True
            ):
                if counted == key and count.says_bet(tally, unseen):
                    bets.append((counter, table, ratio - 1, refused))
        return bets


def simulate(
    game: TwoHandGame,
    paytables: Mapping[str, Paytable],
    main_bets: frozenset[str],
    *,
    decks: int,
    shoes: int,
    rng: random.Random,
    seed: int,
    cut_card: int = DEFAULT_CUT_CARD,
    burn: bool = True,
    close_at_rtp_bp: int = 10_000,
    counts: Sequence[CardCount] = COUNTS,
) -> Simulation:
    """``shoes`` shoes of ``decks`` decks shuffled by ``rng`` (``seed``: what it was seeded
    with, for the report), every bet of ``paytables`` (by key: ``BET/preset``, each bet once)
    priced before each round (``main_bets``:
    those protection never closes); the counts of ``counts`` whose bet is among them play
    too."""
    tallies = _Tallies(game, paytables, main_bets, counts, close_at_rtp_bp)
    cards = [card for card in DECK for _ in range(decks)]
    for _ in range(shoes):
        rng.shuffle(cards)
        tallies.shoe(cards, cut_card, burn)
    strategies = [_result("exact", [p]) for p in tallies.exact]
    strategies += [_result(p.rule, [p]) for p in tallies.counters]
    strategies += _together(tallies.exact, tallies.counters)
    mean, se = _mean_se(tallies.rounds)
    n = PENETRATION_BINS
    return Simulation(
        decks, shoes, seed, cut_card, burn, close_at_rtp_bp, mean, se,
        {
            key: tuple(tallies.bins[k * n + b].row(b / n, (b + 1) / n) for b in range(n))
            for k, key in enumerate(tallies.keys)
        },
        {key: tallies.whole[k].row(0.0, 1.0) for k, key in enumerate(tallies.keys)},
        tuple(strategies),
    )  # fmt: skip


#: Bets played together, as the published figures add them up.
_TOGETHER: Final = (("PLAYER_PAIR", "BANKER_PAIR"), ("DRAGON_7", "PANDA_8"))


def _together(exact: Sequence[_Player], counters: Sequence[_Player]) -> list[StrategyResult]:
    """Exact play and the counts of the pairs together, and of Dragon 7 and Panda 8."""
    out = []
    for group in _TOGETHER:
        for rule, players in (("exact", exact), ("counts", counters)):
            chosen = [p for bet in group for p in players if p.key.split("/")[0] == bet]
            if len(chosen) == len(group):
                out.append(_result(rule, chosen))
    return out
