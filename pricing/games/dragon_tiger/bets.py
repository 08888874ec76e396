"""Dragon Tiger (docs/rules.md §8): its twelve fixed-paytable bets, their paytables, the
settlement of a dealt round and the exact odds of every bet from the cards left in the shoe.

One card to the Dragon, then one to the Tiger; ranks compare ace low … king high, suits do not
rank. ``DRAGON`` / ``TIGER`` win 1:1 on the higher card and lose half the stake on a tie of
ranks (``TIE_HALF_LOSS``, ``-50`` hundredths: an odd stake's half cent goes to the house);
``TIE`` pays 8:1 (preset ``11``: 11:1); ``SUITED_TIE`` (same rank and suit) 50:1; each side's
big (8–K), small (A–6), odd (A 3 5 9 J K) and even (2 4 6 8 10 Q) pay 1:1 and a 7 loses all
four.

The odds are exact integer ways out of one total per bet (``SideBetOdds``): before the round,
over every ordered (Dragon, Tiger) pair of the cards left; once the Dragon's card is out, over
the Tiger's card alone. Closed forms over the 13 rank counts and the 52 card counts, O(52):
priced after every card.

>>> full = [8] * 52  # an 8-deck shoe
>>> priced = odds(full, None, main_paytables(8))
>>> priced["DRAGON"].outcomes["TIE_HALF_LOSS"].fraction  # 13 × 32 × 31 / (416 × 415)
Fraction(31, 415)
>>> f"{priced['DRAGON'].house_edge:.2%}", f"{priced['TIE'].house_edge:.2%}"
('3.73%', '32.77%')
>>> settle(paytable("SUITED_TIE"), Card.parse("QH"), Card.parse("QH"))
('WIN', 5000)
>>> settle(main_paytables(8)[0], Card.parse("7S"), Card.parse("7D"))
('TIE_HALF_LOSS', -50)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from pricing.cards import CARDS_PER_DECK, Card
from pricing.errors import InvalidOption
from pricing.games.fixed_odds import LOSE_HUNDREDTHS, SideBetOdds, preset_pays
from pricing.payout import MAX_HUNDREDTHS, is_whole_number
from pricing.text import quoted

__all__ = [
    "BETS",
    "DEFAULT_PRESET",
    "HALF_LOSS_HUNDREDTHS",
    "MAIN_BETS",
    "PRESETS",
    "SIDE_BETS",
    "TIE_PAYS",
    "DragonTigerPaytable",
    "Side",
    "main_paytables",
    "odds",
    "outcome_pays",
    "paytable",
    "settle",
    "winner",
]


class Side(StrEnum):
    """The two hands, dealt in this order."""

    DRAGON = "DRAGON"
    TIGER = "TIGER"


#: The main bets: the higher card (``DRAGON``, ``TIGER``) and a tie of ranks.
MAIN_BETS: Final = ("DRAGON", "TIGER", "TIE")
#: The side bets: a tie of rank and suit, and each side's card big, small, odd or even.
SIDE_BETS: Final = (
    "SUITED_TIE",
    "DRAGON_BIG",
    "DRAGON_SMALL",
    "DRAGON_ODD",
    "DRAGON_EVEN",
    "TIGER_BIG",
    "TIGER_SMALL",
    "TIGER_ODD",
    "TIGER_EVEN",
)
#: All twelve bets, in the order a table lists them.
BETS: Final = MAIN_BETS + SIDE_BETS

#: What ``DRAGON`` and ``TIGER`` pay on a tie of ranks: half the stake is lost.
HALF_LOSS_HUNDREDTHS: Final = -50

#: The preset a bet gets when none is named.
DEFAULT_PRESET: Final = "standard"

_EVEN_MONEY: Final[Mapping[str, Mapping[str, int]]] = {DEFAULT_PRESET: {"WIN": 100}}

#: Each bet's presets: preset name → the pays (hundredths to 1) of its paytable entries. Every
#: bet has one entry, ``WIN``.
PRESETS: Final[Mapping[str, Mapping[str, Mapping[str, int]]]] = {
    "DRAGON": _EVEN_MONEY,
    "TIGER": _EVEN_MONEY,
    "TIE": {DEFAULT_PRESET: {"WIN": 800}, "11": {"WIN": 1100}},
    "SUITED_TIE": {DEFAULT_PRESET: {"WIN": 5000}},
    **{bet: _EVEN_MONEY for bet in SIDE_BETS[1:]},
}

#: The TIE bet's pays to 1 a table may choose, and the preset each is.
TIE_PAYS: Final[Mapping[int, str]] = {8: DEFAULT_PRESET, 11: "11"}

#: The bets that lose half on a tie of ranks.
_SIDES: Final = frozenset(Side)

# The card categories of the big/small/odd/even bets, by rank (1-13); a 7 is in none.
_BIG: Final = frozenset(range(8, 14))
_SMALL: Final = frozenset(range(1, 7))
_ODD: Final = frozenset((1, 3, 5, 9, 11, 13))
_EVEN: Final = frozenset((2, 4, 6, 8, 10, 12))
#: Each card bet: the side whose card it reads and the ranks it wins on.
_CARD_BETS: Final[Mapping[str, tuple[Side, frozenset[int]]]] = {
    f"{side}_{name}": (side, ranks)
    for side in Side
    for name, ranks in (("BIG", _BIG), ("SMALL", _SMALL), ("ODD", _ODD), ("EVEN", _EVEN))
}
# Ranks numbered from 0 (ace) as in ``Card.index // 4``: the odds sum rank counts by these.
_BIG0: Final = tuple(sorted(r - 1 for r in _BIG))
_SMALL0: Final = tuple(sorted(r - 1 for r in _SMALL))
_ODD0: Final = tuple(sorted(r - 1 for r in _ODD))
_EVEN0: Final = tuple(sorted(r - 1 for r in _EVEN))


@dataclass(frozen=True, slots=True)
class DragonTigerPaytable:
    """A bet as a table offers it: the bet, the preset its pays start from, and the pays
    (hundredths to 1) of its entries, the preset's with any overrides.

    >>> DragonTigerPaytable("TIE", "11", {"WIN": -5})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: TIE WIN must be a whole number of hundredths ..., got -5
    """

    bet: str
    preset: str
    pays: Mapping[str, int] = field(hash=False)

    def __post_init__(self) -> None:
        presets = PRESETS.get(self.bet)
        if presets is None:
            raise InvalidOption(
                f"unknown Dragon Tiger bet {quoted(self.bet)}: expected one of {', '.join(BETS)}"
            )
        entries = next(iter(presets.values())).keys()
        if self.pays.keys() != entries:
            raise InvalidOption(
                f"{self.bet} pays {', '.join(entries)}, got entries "
                f"{', '.join(map(quoted, self.pays)) or 'none'}"
            )
        for entry, value in self.pays.items():
            if not is_whole_number(value) or not 0 <= value <= MAX_HUNDREDTHS:
                raise InvalidOption(
                    f"{self.bet} {entry} must be a whole number of hundredths from 0 to "
                    f"{MAX_HUNDREDTHS} (2.5 : 1 is 250), got {value!r}"
                )


def main_paytables(tie_pays: int = 8) -> tuple[DragonTigerPaytable, ...]:
    """The three main bets' paytables, ``DRAGON``, ``TIGER`` and ``TIE``, the last paying
    ``tie_pays`` to 1: 8 (the default) or 11 (the ``11`` preset).

    >>> [(t.bet, t.preset, t.pays["WIN"]) for t in main_paytables(11)]
    [('DRAGON', 'standard', 100), ('TIGER', 'standard', 100), ('TIE', '11', 1100)]
    >>> main_paytables(9)
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: tie_pays must be 8 or 11 (the TIE bet pays 8:1, or 11:1), got 9
    """
    preset = TIE_PAYS.get(tie_pays) if is_whole_number(tie_pays) else None
    if preset is None:
        raise InvalidOption(
            f"tie_pays must be 8 or 11 (the TIE bet pays 8:1, or 11:1), got {quoted(tie_pays)}",
            field="tie_pays",
        )
    return tuple(
        DragonTigerPaytable(bet, name, dict(PRESETS[bet][name]))
        for bet, name in (("DRAGON", DEFAULT_PRESET), ("TIGER", DEFAULT_PRESET), ("TIE", preset))
    )


def paytable(
    bet: str, preset: str = "", overrides: Mapping[str, int] | None = None
) -> DragonTigerPaytable:
    """A side bet's paytable: ``preset`` (``standard`` when empty) with the pays of
    ``overrides`` (by entry) in place of the preset's. ``InvalidOption`` names an unknown bet,
    preset or entry; the main bets' paytables are ``main_paytables``'.

    >>> paytable("SUITED_TIE", overrides={"WIN": 6000}).pays
    {'WIN': 6000}
    >>> paytable("SUITED_TIE", "evolution")
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: unknown SUITED_TIE preset 'evolution': expected one of standard
    """
    if bet not in SIDE_BETS:
        main = (
            " (a main bet, always offered: its pays are set by tie_pays)"
            if bet in MAIN_BETS
            else ""
        )
        raise InvalidOption(
            f"unknown Dragon Tiger side bet {quoted(bet)}{main}: expected one of "
            f"{', '.join(SIDE_BETS)}"
        )
    name, pays = preset_pays(bet, PRESETS[bet], preset, DEFAULT_PRESET, overrides)
    return DragonTigerPaytable(bet, name, pays)


def outcome_pays(table: DragonTigerPaytable) -> dict[str, int]:
    """Every outcome of ``table``'s bet but ``LOSE``, with its signed net pay in hundredths:
    ``WIN`` at the paytable's pay, and for ``DRAGON`` / ``TIGER`` a tie's half loss.

    >>> outcome_pays(main_paytables()[1])
    {'WIN': 100, 'TIE_HALF_LOSS': -50}
    """
    pays = {"WIN": table.pays["WIN"]}
    if table.bet in _SIDES:
        pays["TIE_HALF_LOSS"] = HALF_LOSS_HUNDREDTHS
    return pays


def winner(dragon: Card, tiger: Card) -> Side | None:
    """The side with the higher rank (ace low), ``None`` on a tie of ranks.

    >>> winner(Card.parse("AS"), Card.parse("KD")), winner(Card.parse("9C"), Card.parse("9H"))
    (<Side.TIGER: 'TIGER'>, None)
    """
    if dragon.rank == tiger.rank:
        return None
    return Side.DRAGON if dragon.rank > tiger.rank else Side.TIGER


def _outcome(bet: str, dragon: Card, tiger: Card) -> str:
    """The outcome of ``bet`` on a dealt round: ``WIN``, ``TIE_HALF_LOSS`` or ``LOSE``."""
    if bet in _SIDES:
        won = winner(dragon, tiger)
        if won is None:
            return "TIE_HALF_LOSS"
        return "WIN" if won == bet else "LOSE"
    if bet == "TIE":
        return "WIN" if dragon.rank == tiger.rank else "LOSE"
    if bet == "SUITED_TIE":
        return "WIN" if dragon == tiger else "LOSE"
    side, ranks = _CARD_BETS[bet]
    card = dragon if side == Side.DRAGON else tiger
    return "WIN" if card.rank in ranks else "LOSE"


def settle(table: DragonTigerPaytable, dragon: Card, tiger: Card) -> tuple[str, int]:
    """The outcome of ``table``'s bet on a round dealt ``dragon`` then ``tiger``, and its
    signed pay in hundredths (``-100``: lost; ``-50``: half lost).

    >>> settle(paytable("TIGER_ODD"), Card.parse("2C"), Card.parse("7C"))
    ('LOSE', -100)
    """
    outcome = _outcome(table.bet, dragon, tiger)
    if outcome == "LOSE":
        return outcome, LOSE_HUNDREDTHS
    return outcome, outcome_pays(table)[outcome]


def _rank_counts(counts: Sequence[int]) -> list[int]:
    return [counts[i] + counts[i + 1] + counts[i + 2] + counts[i + 3] for i in range(0, 52, 4)]


def _next_round_ways(counts: Sequence[int]) -> tuple[dict[str, dict[str, int]], int]:
    """Every bet's winning ways over the ordered (Dragon, Tiger) pairs of distinct cards of
    the shoe, and their total ``n × (n − 1)``."""
    ranks = _rank_counts(counts)
    n = sum(ranks)
    if n < 2:
        return _closed(), 0
    same_rank = sum(r * r for r in ranks)
    tie = same_rank - n  # Σ r × (r − 1): both cards of one rank
    higher = (n * n - same_rank) // 2  # Σ_{a > b} r_a × r_b: half of the unequal pairs
    suited = sum(c * c for c in counts) - n  # Σ c × (c − 1): the same card twice
    others = n - 1  # a card bet reads one card; the other is any card left
    big = sum(ranks[r] for r in _BIG0) * others
    small = sum(ranks[r] for r in _SMALL0) * others
    odd = sum(ranks[r] for r in _ODD0) * others
    even = sum(ranks[r] for r in _EVEN0) * others
    side = {"WIN": higher, "TIE_HALF_LOSS": tie}
    ways = {
        "DRAGON": side,
        "TIGER": side,
        "TIE": {"WIN": tie},
        "SUITED_TIE": {"WIN": suited},
        "DRAGON_BIG": {"WIN": big},
        "DRAGON_SMALL": {"WIN": small},
        "DRAGON_ODD": {"WIN": odd},
        "DRAGON_EVEN": {"WIN": even},
        "TIGER_BIG": {"WIN": big},
        "TIGER_SMALL": {"WIN": small},
        "TIGER_ODD": {"WIN": odd},
        "TIGER_EVEN": {"WIN": even},
    }
    return ways, n * others


def _in_round_ways(counts: Sequence[int], dragon: Card) -> tuple[dict[str, dict[str, int]], int]:
    """Every bet's winning ways over the Tiger's card, the Dragon's ``dragon`` (already out of
    ``counts``), and their total: the cards left."""
    ranks = _rank_counts(counts)
    n = sum(ranks)
    if n < 1:
        return _closed(), 0
    d = dragon.rank - 1
    lower = sum(ranks[:d])
    tie = ranks[d]
    rank = dragon.rank
    ways = {
        "DRAGON": {"WIN": lower, "TIE_HALF_LOSS": tie},
        "TIGER": {"WIN": n - lower - tie, "TIE_HALF_LOSS": tie},
        "TIE": {"WIN": tie},
        "SUITED_TIE": {"WIN": counts[dragon.index]},
        "DRAGON_BIG": {"WIN": n if rank in _BIG else 0},
        "DRAGON_SMALL": {"WIN": n if rank in _SMALL else 0},
        "DRAGON_ODD": {"WIN": n if rank in _ODD else 0},
        "DRAGON_EVEN": {"WIN": n if rank in _EVEN else 0},
        "TIGER_BIG": {"WIN": sum(ranks[r] for r in _BIG0)},
        "TIGER_SMALL": {"WIN": sum(ranks[r] for r in _SMALL0)},
        "TIGER_ODD": {"WIN": sum(ranks[r] for r in _ODD0)},
        "TIGER_EVEN": {"WIN": sum(ranks[r] for r in _EVEN0)},
    }
    return ways, n


def _closed() -> dict[str, dict[str, int]]:
    return {bet: {"WIN": 0, "TIE_HALF_LOSS": 0} if bet in _SIDES else {"WIN": 0} for bet in BETS}


def odds(
    counts: Sequence[int], dragon: Card | None, paytables: Sequence[DragonTigerPaytable]
) -> dict[str, SideBetOdds]:
    """The exact odds of each bet of ``paytables`` (in their order), from a shoe holding
    ``counts[i]`` of the card with ``Card.index`` ``i``. ``dragon``: the round's Dragon card
    once dealt (out of ``counts``): the Tiger's card decides, one way per card left. ``None``:
    the next round, one way per ordered (Dragon, Tiger) pair of cards left. Too few cards left
    to deal (fewer than 2, or none once the Dragon's is out): every bet closed, total 0.

    >>> shoe = [0] * 52
    >>> shoe[Card.parse("KS").index] = 1
    >>> shoe[Card.parse("3H").index] = 2
    >>> priced = odds(shoe, Card.parse("3D"), main_paytables() + (paytable("TIGER_BIG"),))
    >>> [(bet, o.outcomes["WIN"].ways, o.outcomes["LOSE"].ways) for bet, o in priced.items()]
    [('DRAGON', 0, 1), ('TIGER', 1, 0), ('TIE', 2, 1), ('TIGER_BIG', 1, 2)]
    """
    if len(counts) != CARDS_PER_DECK:
        raise ValueError(f"counts must hold the 52 cards' counts, got {len(counts)}")
    ways, total = _next_round_ways(counts) if dragon is None else _in_round_ways(counts, dragon)
    return {
        table.bet: SideBetOdds.from_ways(table.bet, ways[table.bet], total, outcome_pays(table))
        for table in paytables
    }
