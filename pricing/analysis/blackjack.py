"""Blackjack side bets' return to player (docs/rules.md §2, §3): over a full shoe, exactly,
and by penetration of a depleting shoe.

A side bet has a fixed paytable, so its RTP on a shoe is linear in the chances of its
outcomes. Averaged over every way the first ``d`` cards can have left the shoe, the chance
that the next round deals any given cards is the chance on the full shoe (the next cards of a
uniform shuffle are uniform, however many were dealt before): the mean RTP at every
penetration is exactly the full-shoe RTP. What penetration changes is the spread around it,
and so how often the bet is player-favourable (RTP above 1) — a function of the whole shoe's
composition, 52 card counts, far beyond exact enumeration. Those figures come from simulated
shoes (a seeded shuffle, every count priced exactly by the engine), each with its standard
error; the simulated mean sits beside the exact one as a check.

>>> report = blackjack_rtp(shoes=200, decks=(6,), seed=1)
>>> f"{float(report.full_shoe[6]['ROYAL_MATCH/standard']):.6f}"
'0.933342'
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from pricing import _blackjack
from pricing.cards import MAX_DECKS
from pricing.errors import InvalidOption
from pricing.games.blackjack.bets import side_bets
from pricing.games.blackjack.paytables import (
    PAIRS_PRESETS,
    ROYAL_MATCH_PRESETS,
    PairsPaytable,
    RoyalMatchPaytable,
)

__all__ = ["BlackjackReport", "PenetrationPoint", "blackjack_rtp", "side_bet_presets"]

#: Fractions of the shoe dealt at which the report looks: 0 %, 10 %, … 90 %.
PENETRATIONS: Final = tuple(Fraction(k, 10) for k in range(10))
DEFAULT_DECKS: Final = (6, 8)
#: The bench's run; ``make test`` runs the same code on far fewer shoes.
FULL_RUN_SHOES: Final = 100_000


def side_bet_presets() -> dict[str, tuple[RoyalMatchPaytable | None, PairsPaytable | None]]:
    """Every side bet under every preset paytable, keyed ``BET/preset``."""
    out: dict[str, tuple[RoyalMatchPaytable | None, PairsPaytable | None]] = {}
    for name, rm in ROYAL_MATCH_PRESETS.items():
        out[f"ROYAL_MATCH/{name}"] = (rm, None)
    for name, pairs in PAIRS_PRESETS.items():
        out[f"PAIRS/{name}"] = (None, pairs)
    return out


def _pay_weights() -> dict[str, tuple[int, int, int]]:
    """Per ``BET/preset``, the stake-included pay (hundredths) of each of the kernel's three
    winning counts: Royal Match (CROWN, ROYAL, EASY), pairs (PERFECT, COLOURED, MIXED)."""
    out = {}
    for key, (rm, pairs) in side_bet_presets().items():
        if rm is not None:
            pays = rm.pays()
            # Without Crown Treasure a crown deal is a ROYAL (and pays has no CROWN).
            crown = pays.get("CROWN", pays["ROYAL"])
            out[key] = (crown + 100, pays["ROYAL"] + 100, pays["EASY"] + 100)
        else:
            assert pairs is not None
            pays = pairs.pays()
            if "PAIR" in pays:
                out[key] = (pays["PAIR"] + 100,) * 3
            else:
                out[key] = (pays["PERFECT"] + 100, pays["COLOURED"] + 100, pays["MIXED"] + 100)
    return out


@dataclass(frozen=True, slots=True)
class PenetrationPoint:
    """One side bet at one penetration of a ``decks``-deck shoe, over ``shoes`` simulated
    shoes: the exact mean RTP, the simulated mean and spread of the RTP across shoes, and the
    share of shoes in which the bet was player-favourable, each with its standard error."""

    decks: int
    cards_dealt: int
    penetration: Fraction
    exact_mean: Fraction
    simulated_mean: float
    simulated_se: float
    spread: float
    favourable: float
    favourable_se: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "decks": self.decks,
            "cards_dealt": self.cards_dealt,
            "penetration": float(self.penetration),
            "exact_mean": float(self.exact_mean),
            "simulated_mean": self.simulated_mean,
            "simulated_se": self.simulated_se,
            "spread": self.spread,
            "favourable": self.favourable,
            "favourable_se": self.favourable_se,
        }


@dataclass(frozen=True, slots=True)
class BlackjackReport:
    """``full_shoe[decks][BET/preset]``: the exact RTP on a full shoe; ``by_penetration
    [decks][BET/preset]``: one ``PenetrationPoint`` per entry of ``PENETRATIONS``;
    ``favourable_rounds[decks][BET/preset]``: the share of all the points looked at (every
    penetration alike) where the bet was player-favourable."""

    shoes: int
    seed: int
    full_shoe: dict[int, dict[str, Fraction]]
    by_penetration: dict[int, dict[str, tuple[PenetrationPoint, ...]]]
    favourable_rounds: dict[int, dict[str, float]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": "blackjack",
            "shoes": self.shoes,
            "seed": self.seed,
            "decks": {
                str(decks): {
                    key: {
                        "full_shoe_rtp": {
                            "value": float(rtp),
                            "exact": f"{rtp.numerator}/{rtp.denominator}",
                        },
                        "favourable_rounds": self.favourable_rounds[decks][key],
                        "by_penetration": [p.as_dict() for p in self.by_penetration[decks][key]],
                    }
                    for key, rtp in self.full_shoe[decks].items()
                }
                for decks in self.full_shoe
            },
        }


def full_shoe_rtps(decks: int) -> dict[str, Fraction]:
    """Every side bet's exact RTP on a full ``decks``-deck shoe, from the engine."""
    out = {}
    for key, (rm, pairs) in side_bet_presets().items():
        bet = "ROYAL_MATCH" if rm is not None else "PAIRS"
        kwargs: Mapping[str, Any] = {"royal_match": rm} if rm is not None else {"pairs": pairs}
        out[key] = side_bets([], decks=decks, **kwargs)[bet].rtp_fraction
    return out


def _simulate(
    decks: int, shoes: int, rng: random.Random
) -> dict[str, list[tuple[list[float], int]]]:
    """Per ``BET/preset`` and penetration: the RTP of every simulated shoe, and how many of
    them were player-favourable (decided in integers)."""
    cards = [i for i in range(52) for _ in range(decks)]
    dealt_at = [int(p * len(cards)) for p in PENETRATIONS]
    weights = _pay_weights()
    rtps: dict[str, list[list[float]]] = {key: [[] for _ in dealt_at] for key in weights}
    favourable = {key: [0] * len(dealt_at) for key in weights}
    for _ in range(shoes):
        rng.shuffle(cards)
        counts = [decks] * 52
        dealt = 0
        for k, target in enumerate(dealt_at):
            while dealt < target:
                counts[cards[dealt]] -= 1
                dealt += 1
            rm, pairs = _blackjack.side_bet_ways_counts(counts)
            for key, (a, b, c) in weights.items():
                ways = rm if key.startswith("ROYAL_MATCH") else pairs
                numerator = ways[0] * a + ways[1] * b + ways[2] * c
                denominator = 100 * ways[4]
                rtps[key][k].append(numerator / denominator)
                favourable[key][k] += numerator > denominator
    return {key: list(zip(rtps[key], favourable[key], strict=True)) for key in weights}


def blackjack_rtp(
    *, shoes: int = 2_000, decks: Iterable[int] = DEFAULT_DECKS, seed: int = 2026
) -> BlackjackReport:
    """The side bets' report for each shoe size in ``decks``, over ``shoes`` simulated shoes
    (seeded by ``seed``: the same arguments give the same report)."""
    decks = tuple(decks)
    if not isinstance(shoes, int) or shoes < 2:
        raise InvalidOption(f"shoes must be a whole number >= 2, got {shoes!r}")
    for d in decks:
        if not isinstance(d, int) or not 1 <= d <= MAX_DECKS:
            raise InvalidOption(f"decks must be whole numbers from 1 to {MAX_DECKS}, got {d!r}")
    rng = random.Random(seed)
    full: dict[int, dict[str, Fraction]] = {}
    points: dict[int, dict[str, tuple[PenetrationPoint, ...]]] = {}
    favourable: dict[int, dict[str, float]] = {}
    for d in decks:
        full[d] = full_shoe_rtps(d)
        samples = _simulate(d, shoes, rng)
        points[d] = {}
        favourable[d] = {}
        for key, by_point in samples.items():
            row = []
            for p, (values, wins) in zip(PENETRATIONS, by_point, strict=True):
                mean = math.fsum(values) / len(values)
                spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
                share = wins / len(values)
                row.append(
                    PenetrationPoint(
                        decks=d,
                        cards_dealt=int(p * 52 * d),
                        penetration=p,
                        exact_mean=full[d][key],
                        simulated_mean=mean,
                        simulated_se=spread / math.sqrt(len(values)),
                        spread=spread,
                        favourable=share,
                        favourable_se=math.sqrt(share * (1 - share) / len(values)),
                    )
                )
            points[d][key] = tuple(row)
            favourable[d][key] = math.fsum(pt.favourable for pt in row) / len(row)
    return BlackjackReport(shoes, seed, full, points, favourable)
