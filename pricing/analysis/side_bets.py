"""The side-bet library's bets as the blackjack analyses price them, and each bet's effect of
removal (docs/rules.md §3.8).

Every analysis runs over ``library.BETS`` and each bet's presets, keyed ``BET/preset``: a bet
added to the library is in every report with no change here. ``price`` prices all of them on
one shoe state through ``library.odds``, which answers by bet: one call prices one paytable of
every bet, so a state takes as many calls as the most presets any bet has (a bet's ways are
counted once per shoe and cached for its other presets).

The effect of removal of a rank is the exact change in a bet's RTP on a full shoe when one
card of that rank leaves it, its suit uniform among the four (some bets read suits). Removing
a uniformly random card and dealing the next round is dealing the next round from the full
shoe, so the changes weighted by each card's count sum to exactly 0: on a full shoe, where
every card has the same count, the 13 ranks' effects sum to 0.

>>> eor = effect_of_removal(6, DealerRule.S17, library.paytable("ROYAL_MATCH", "standard"))
>>> eor["K"], eor["A"], sum(eor.values())
(Fraction(-297, 125333), Fraction(54, 125333), Fraction(0, 1))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Final, Protocol, TypeVar

from pricing.cards import DECK, Rank, Suit
from pricing.errors import InvalidOption
from pricing.games.blackjack import library
from pricing.games.blackjack.library import Paytable
from pricing.games.blackjack.rules import DealerRule, check_decks
from pricing.games.fixed_odds import SideBetOdds

__all__ = [
    "RANKS",
    "Groups",
    "effect_of_removal",
    "full_shoe",
    "price",
    "price_groups",
    "pricing_groups",
    "removal_effects",
    "removal_effects_by",
    "side_bet_presets",
]

#: The ranks an effect of removal is given for, in order: ``A``, ``2`` … ``10``, ``J``, ``Q``,
#: ``K``.
RANKS: Final = tuple(rank.symbol for rank in Rank)


class _Named(Protocol):
    """A paytable of any game: what grouping needs of it is the bet it prices."""

    @property
    def bet(self) -> str: ...


Table = TypeVar("Table", bound=_Named)

#: ``BET/preset`` keys and their paytables in groups holding each bet at most once.
Groups = tuple[tuple[tuple[str, Table], ...], ...]


def side_bet_presets(bet: str = "", preset: str = "") -> dict[str, Paytable]:
    """Every bet of the library under each of its presets, keyed ``BET/preset``, in the
    library's order; ``bet`` (its wire name, any case): that bet's presets only; with
    ``preset`` too, that one. ``InvalidOption`` names an unknown bet or preset.

    >>> list(side_bet_presets("pairs", "Any-Pair"))
    ['PAIRS/any-pair']
    """
    if preset.strip() and not bet.strip():
        raise InvalidOption(f"preset {preset!r} needs the side bet it belongs to")
    names = [bet.strip().upper()] if bet.strip() else list(library.BETS)
    out = {}
    for name in names:
        default = library.paytable(name, preset)  # an unknown bet or preset raises here
        chosen = [default.preset] if preset.strip() else list(library.BETS[name].presets)
        for name_of_preset in chosen:
            table = library.paytable(name, name_of_preset)
            out[f"{name}/{table.preset}"] = table
    return out


def pricing_groups(paytables: Mapping[str, Table]) -> Groups[Table]:
    """``paytables`` (by key) split into the fewest groups holding each bet at most once, each
    group one call of the game's odds (which answer by bet), keys in their order."""
    groups: list[list[tuple[str, Table]]] = []
    for key, table in paytables.items():
        for group in groups:
            if all(other.bet != table.bet for _, other in group):
                group.append((key, table))
                break
        else:
            groups.append([(key, table)])
    return tuple(tuple(group) for group in groups)


def price_groups(
    odds: Callable[[Sequence[int], Sequence[Table]], Mapping[str, SideBetOdds]],
    counts: Sequence[int],
    groups: Groups[Table],
) -> dict[str, SideBetOdds]:
    """The odds of every paytable of ``groups``, by key, for the next round dealt from
    ``counts`` (the shoe's count of each card by ``Card.index``): ``odds(counts, tables)`` is
    the game's, answering by bet."""
    out: dict[str, SideBetOdds] = {}
    for group in groups:
        priced = odds(counts, [table for _, table in group])
        for key, table in group:
            out[key] = priced[table.bet]
    return out


def price(
    counts: Sequence[int], rule: DealerRule, groups: Groups[Paytable]
) -> dict[str, SideBetOdds]:
    """The odds of every paytable of ``groups``, by key, for the next round dealt from
    ``counts`` under ``rule``."""

    def odds(shoe: Sequence[int], tables: Sequence[Paytable]) -> Mapping[str, SideBetOdds]:
        return library.odds(shoe, rule, tables)

    return price_groups(odds, counts, groups)


def full_shoe(decks: int) -> tuple[int, ...]:
    """The counts of a full ``decks``-deck shoe."""
    return (decks,) * len(DECK)


def removal_effects(
    decks: int, rule: DealerRule | str, paytables: Mapping[str, Paytable]
) -> tuple[dict[str, Fraction], dict[str, dict[str, Fraction]]]:
    """Each paytable's exact RTP on a full ``decks``-deck shoe, and its effect of removal by
    rank (``RANKS``), by key; the 52 one-card-short shoes are each priced once for them all."""
    checked = DealerRule.parse(rule)
    groups = pricing_groups(paytables)
    return removal_effects_by(lambda counts: price(counts, checked, groups), decks)


def removal_effects_by(
    price_shoe: Callable[[Sequence[int]], Mapping[str, SideBetOdds]], decks: int
) -> tuple[dict[str, Fraction], dict[str, dict[str, Fraction]]]:
    """Each bet's exact RTP on a full ``decks``-deck shoe and its effect of removal by rank
    (``RANKS``), by key, for any game: ``price_shoe(counts)`` prices every bet, by key, on a
    shoe of 52 card counts; it is called once for the full shoe and once per card short."""
    decks = check_decks(decks)
    full = full_shoe(decks)
    base = {key: odds.rtp_fraction for key, odds in price_shoe(full).items()}
    changes = {key: dict.fromkeys(RANKS, Fraction(0)) for key in base}
    for card in DECK:
        counts = list(full)
        counts[card.index] -= 1
        for key, odds in price_shoe(counts).items():
            changes[key][card.rank.symbol] += odds.rtp_fraction - base[key]
    suits = len(Suit)
    effects = {
        key: {rank: total / suits for rank, total in by_rank.items()}
        for key, by_rank in changes.items()
    }
    return base, effects


def effect_of_removal(
    decks: int, rule: DealerRule | str, paytable: Paytable
) -> dict[str, Fraction]:
    """The exact change in ``paytable``'s RTP on a full ``decks``-deck shoe dealt by ``rule``
    when one card of each rank (``A`` … ``K``, its suit uniform among the four) is removed."""
    _, effects = removal_effects(decks, rule, {paytable.bet: paytable})
    return effects[paytable.bet]
