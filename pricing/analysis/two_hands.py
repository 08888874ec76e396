"""The report of baccarat's and Dragon Tiger's bets (docs/rules.md §7, §8): each bet's exact
RTP on a full shoe of each size under every variant and preset, its exact effect of removal
by rank, and the simulated shoes of ``pricing.analysis.two_hands_sim`` (how often each bet
turns player-favourable as the shoe is dealt, and what an exact player and a card counter win
per shoe, with and without game protection).

Keys are ``BET/preset``: baccarat's ``BANKER/standard``, ``BANKER/no-commission``,
``BANKER/ez`` (the commission variants), ``TIE/8`` and ``TIE/9``, each side bet under each
of its presets (``PERFECT_PAIR/evolution``); ``PLAYER/standard`` once, as no variant changes
what it pays. Dragon Tiger's ``TIE/standard`` (8:1) and ``TIE/11``.

The effect of removal is exact (``pricing.analysis.side_bets.removal_effects_by``): removing
a uniformly random card and dealing the next round is dealing it from the full shoe, so on a
full shoe the 13 ranks' changes sum to exactly 0.

>>> report = two_hand_report("dragon-tiger", decks=(8,), shoe_decks=(), shoes=0)
>>> dragon = report.full_shoe[8]["DRAGON/standard"]
>>> dragon, f"{float(1 - dragon):.2%}"
(Fraction(799, 830), '3.73%')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal

from pricing.analysis.report import exact_number
from pricing.analysis.side_bets import price_groups, pricing_groups, removal_effects_by
from pricing.analysis.two_hands_sim import (
    COUNTS,
    DEFAULT_CUT_CARD,
    DEFAULT_SHOES,
    Simulation,
    simulate,
)
from pricing.cards import CARDS_PER_DECK, MAX_DECKS
from pricing.errors import InvalidOption
from pricing.games.baccarat import bets as baccarat
from pricing.games.baccarat.table import BACCARAT
from pricing.games.dragon_tiger import bets as dragon_tiger
from pricing.games.dragon_tiger.table import DRAGON_TIGER
from pricing.games.fixed_odds import SideBetOdds
from pricing.games.two_hands import Paytable, TwoHandGame

__all__ = [
    "DEFAULT_DECKS",
    "DEFAULT_SHOE_DECKS",
    "DEFAULT_SHOWN",
    "TwoHandName",
    "TwoHandReport",
    "check_shown",
    "every_paytable",
    "game_of",
    "main_bet_names",
    "price_shoe",
    "shoe_pricer",
    "simulated_paytables",
    "table_keys",
    "two_hand_report",
]

#: The games, as the command line names them.
TwoHandName = Literal["baccarat", "dragon-tiger"]
#: The shoe sizes of the full-shoe table when none are asked for.
DEFAULT_DECKS: Final = (1, 2, 4, 6, 8)
#: The shoe sizes of the effect of removal and the simulation when none are asked for.
DEFAULT_SHOE_DECKS: Final = (8,)
#: The bets the text's penetration table and the plot show when none are named.
DEFAULT_SHOWN: Final[Mapping[str, tuple[str, ...]]] = {
    "baccarat": ("DRAGON_7", "PANDA_8", "PLAYER_PAIR"),
    "dragon-tiger": ("TIE", "SUITED_TIE"),
}


def game_of(name: TwoHandName) -> TwoHandGame:
    return BACCARAT if name == "baccarat" else DRAGON_TIGER


def main_bet_names(name: TwoHandName) -> frozenset[str]:
    return frozenset(baccarat.MAIN_BETS if name == "baccarat" else dragon_tiger.MAIN_BETS)


def _keyed(tables: Sequence[Paytable]) -> dict[str, Paytable]:
    return {f"{t.bet}/{t.preset}": t for t in tables}


def table_keys(name: TwoHandName, tables: Sequence[Paytable]) -> dict[str, Paytable]:
    """``tables`` (a table's, each bet once) by key: ``BET/preset``, and when a table changed
    the preset's pays, the pays after it (``DRAGON_7/standard WIN 4500``), so that a key
    always names one paytable.

    >>> list(table_keys("baccarat", [baccarat.paytable("SUPER_6", "12", {"WIN": 1300})]))
    ['SUPER_6/12 WIN 1300']
    """
    catalogue = every_paytable(name)
    out = {}
    for table in tables:
        key = f"{table.bet}/{table.preset}"
        known = catalogue.get(key) or catalogue.get(f"{table.bet}/standard")
        if known is None or dict(known.pays) != dict(table.pays):
            key += "".join(f" {entry} {pay}" for entry, pay in table.pays.items())
        out[key] = table
    return out


def every_paytable(name: TwoHandName) -> dict[str, Paytable]:
    """Every bet of the game under each variant and preset, by ``BET/preset`` (see the
    module's notes), main bets first."""
    tables: list[Paytable] = []
    if name == "baccarat":
        for commission in baccarat.Commission:
            player, banker, _ = baccarat.main_paytables(commission, 8)
            tables += [player] if commission is baccarat.Commission.STANDARD else []
            tables.append(banker)
        tables += [baccarat.main_paytables(baccarat.Commission.STANDARD, t)[2] for t in (8, 9)]
        for bet in baccarat.SIDE_BETS:
            tables += [baccarat.paytable(bet, p) for p in baccarat.presets(bet)]
        return _keyed(tables)
    tables += dragon_tiger.main_paytables(8)
    tables.append(dragon_tiger.main_paytables(11)[2])
    for bet in dragon_tiger.SIDE_BETS:
        tables += [dragon_tiger.paytable(bet, p) for p in dragon_tiger.PRESETS[bet]]
    return _keyed(tables)


def simulated_paytables(name: TwoHandName) -> tuple[Paytable, ...]:
    """What the simulation prices when no table's rules are given: the main bets (baccarat's
    standard commission, the tie 8:1) and every side bet at its default preset."""
    if name == "baccarat":
        main: tuple[Paytable, ...] = baccarat.main_paytables(baccarat.Commission.STANDARD, 8)
        return (*main, *(baccarat.paytable(bet) for bet in baccarat.SIDE_BETS))
    sides = tuple(dragon_tiger.paytable(bet) for bet in dragon_tiger.SIDE_BETS)
    return (*dragon_tiger.main_paytables(8), *sides)


def price_shoe(
    name: TwoHandName, counts: Sequence[int], tables: Mapping[str, Paytable] | None = None
) -> dict[str, SideBetOdds]:
    """The next round's odds of every paytable of ``tables`` (default ``every_paytable``), by
    key, dealt from a shoe of the 52 card ``counts``: what every figure of the report is
    priced with.

    >>> float(price_shoe("baccarat", [8] * 52)["BANKER/ez"].rtp_fraction)
    0.9898169924287863
    """
    return shoe_pricer(name, tables)(counts)


def shoe_pricer(
    name: TwoHandName, tables: Mapping[str, Paytable] | None = None
) -> Callable[[Sequence[int]], dict[str, SideBetOdds]]:
    """``price_shoe`` of ``tables`` as a function of the counts, the paytables grouped once
    (``pricing.analysis.side_bets.pricing_groups``): a simulation prices the same bets before
    every round."""
    game = game_of(name)
    groups = pricing_groups(every_paytable(name) if tables is None else tables)

    def odds(shoe: Sequence[int], group: Sequence[Paytable]) -> Mapping[str, SideBetOdds]:
        return game.odds(shoe, ((), ()), group)

    return lambda counts: price_groups(odds, counts, groups)


@dataclass(frozen=True, slots=True)
class TwoHandReport:
    """``full_shoe[decks][BET/preset]``: the exact RTP on a full shoe;
    ``effect_of_removal[decks][BET/preset][rank]``: the exact change in it when one card of
    the rank leaves the shoe (for the shoe sizes of the simulation); ``simulations[decks]``:
    the simulated shoes of that size; ``shown``: the bets the text's penetration table and the
    plot show."""

    game: TwoHandName
    full_shoe: dict[int, dict[str, Fraction]]
    effect_of_removal: dict[int, dict[str, dict[str, Fraction]]]
    simulations: dict[int, Simulation]
    shown: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "full_shoe": {
                str(decks): {key: exact_number(rtp) for key, rtp in rtps.items()}
                for decks, rtps in self.full_shoe.items()
            },
            "effect_of_removal": {
                str(decks): {
                    key: {rank: exact_number(change) for rank, change in effects.items()}
                    for key, effects in by_key.items()
                }
                for decks, by_key in self.effect_of_removal.items()
            },
            "counts": [
                {
                    "name": c.name,
                    "bet": c.bet,
                    "tags": dict(zip(_RANK_NAMES, c.tags, strict=True)),
                    "trigger": c.trigger,
                    "source": c.source,
                }
                for c in COUNTS
            ],
            "simulations": {str(d): sim.as_dict() for d, sim in self.simulations.items()},
        }


_RANK_NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _check_decks(decks: Sequence[int], what: str) -> tuple[int, ...]:
    for d in decks:
        if not isinstance(d, int) or not 1 <= d <= MAX_DECKS:
            raise InvalidOption(f"{what} must be whole numbers from 1 to {MAX_DECKS}, got {d!r}")
    return tuple(dict.fromkeys(decks))


def check_shown(name: TwoHandName, shown: Sequence[str]) -> tuple[str, ...]:
    """Bet names (any case) of the game, checked: ``InvalidOption`` names an unknown one."""
    known = {t.bet for t in every_paytable(name).values()}
    out = tuple(bet.strip().upper() for bet in shown if bet.strip())
    for bet in out:
        if bet not in known:
            raise InvalidOption(
                f"unknown {name} bet {bet!r}: expected one of {', '.join(sorted(known))}",
                field="bet",
            )
    return out


def two_hand_report(
    name: TwoHandName,
    *,
    decks: Sequence[int] = DEFAULT_DECKS,
    shoe_decks: Sequence[int] = DEFAULT_SHOE_DECKS,
    shoes: int = DEFAULT_SHOES,
    seed: int = 2026,
    cut_card: int = DEFAULT_CUT_CARD,
    burn: bool = True,
    close_at_rtp_bp: int = 10_000,
    paytables: Sequence[Paytable] | None = None,
    shown: Sequence[str] = (),
) -> TwoHandReport:
    """The report of game ``name``: full-shoe RTPs for each size of ``decks``; the effect of
    removal and ``shoes`` simulated shoes (0: none) for each size of ``shoe_decks``, dealt to
    ``cut_card`` cards from the end after the opening burn (``burn``), pricing ``paytables``
    (default ``simulated_paytables``) and protecting at ``close_at_rtp_bp``; seeded by
    ``seed``: the same arguments give the same report."""
    sizes = _check_decks(decks, "decks")
    shoe_sizes = _check_decks(shoe_decks, "decks")
    if not isinstance(shoes, int) or shoes < 0:
        raise InvalidOption(f"shoes must be a whole number >= 0, got {shoes!r}", field="shoes")
    if not isinstance(cut_card, int) or cut_card < 0:
        raise InvalidOption(f"cut_card must be a whole number of cards >= 0, got {cut_card!r}")
    game = game_of(name)
    simulated = table_keys(name, simulated_paytables(name) if paytables is None else paytables)
    tables = every_paytable(name) | simulated  # the table's own pays are reported too
    full = {
        d: {
            key: o.rtp_fraction
            for key, o in price_shoe(name, (d,) * CARDS_PER_DECK, tables).items()
        }
        for d in sizes
    }
    effects: dict[int, dict[str, dict[str, Fraction]]] = {}
    for d in shoe_sizes:
        base, effects[d] = removal_effects_by(lambda c: price_shoe(name, c, tables), d)
        full.setdefault(d, base)
    rng = random.Random(seed)
    simulations = {}
    for d in shoe_sizes if shoes else ():
        simulations[d] = simulate(
            game, simulated, main_bet_names(name), decks=d, shoes=shoes, rng=rng, seed=seed,
            cut_card=cut_card, burn=burn, close_at_rtp_bp=close_at_rtp_bp,
        )  # fmt: skip
    return TwoHandReport(
        name, full, effects, simulations, check_shown(name, shown) or DEFAULT_SHOWN[name]
    )
