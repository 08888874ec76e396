"""Baccarat's bets (docs/rules.md §7): the main bets under the three commission variants, every
side bet, their outcomes, paytables and presets, and how a complete round settles each.

A ``BaccaratPaytable`` holds the entries a table can override, each a pay in hundredths of
odds-to-1 (``95``: 0.95 : 1). ``outcome_pays`` turns it into every outcome but ``LOSE`` with
its signed net pay (``0``: a push, the stake returned; ``LOSE`` is ``-100``). The outcomes,
by bet (presets in brackets):

- ``PLAYER``: ``WIN`` 1 : 1, ``PUSH`` (a tie).
- ``BANKER`` (``standard``): ``WIN`` 0.95 : 1, ``PUSH``; (``no-commission``): ``WIN`` 1 : 1,
  ``WIN_ON_6`` 1 : 2 (a Banker win on a total of 6), ``PUSH``; (``ez``): ``WIN`` 1 : 1,
  ``DRAGON_7_PUSH`` (a Banker win with a three-card 7 pushes), ``PUSH``.
- ``TIE``: ``WIN``, 8 : 1 (``8``) or 9 : 1 (``9``).
- ``PLAYER_PAIR`` / ``BANKER_PAIR``: ``WIN``, that hand's first two cards are of one rank;
  ``EITHER_PAIR``: ``WIN``, either hand's are.
- ``PERFECT_PAIR``: either hand's first two cards are one card twice: ``WIN``
  (``standard``), or ``ONE_HAND`` and ``BOTH_HANDS`` (``evolution``).
- ``DRAGON_7`` / ``PANDA_8``: ``WIN``, the Banker wins with a three-card 7 / the Player with
  a three-card 8.
- ``DRAGON_BONUS_PLAYER`` / ``DRAGON_BONUS_BANKER``: ``NATURAL_WIN``; ``WIN_BY_9`` …
  ``WIN_BY_4``, a non-natural win by that many points; ``NATURAL_TIE``, a push.
- ``BIG`` / ``SMALL``: ``WIN``, the round used 5 or 6 cards / 4.
- ``LUCKY_6``: ``TWO_CARD_6`` / ``THREE_CARD_6``, the Banker wins on 6 with two / three cards
  (``12-20``, ``12-23``); ``SUPER_6``: ``WIN``, the Banker wins on 6 (``15``, ``12``).
- ``EGALITE_0`` … ``EGALITE_9``: ``WIN``, a tie on that total.

Every bet but the pairs is decided by ``RoundResult`` (the two totals and card counts), the
pairs by whether each hand's first two cards pair; ``outcome`` and ``pair_outcome`` are those
rules, which the odds (``pricing.games.baccarat.odds``) and ``settle`` share.

>>> player, banker, tie = main_paytables(Commission.NO_COMMISSION, 8)
>>> outcome_pays(banker)
{'WIN': 100, 'WIN_ON_6': 50, 'PUSH': 0}
>>> from pricing.cards import parse_cards
>>> settle(banker, parse_cards(["KS", "7D"]), parse_cards(["3H", "3C"]))
('LOSE', -100)
>>> settle(paytable("LUCKY_6", "12-23"), parse_cards(["KS", "5D", "QC"]), parse_cards(["3H", "3C"]))
('TWO_CARD_6', 1200)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from pricing.cards import Card
from pricing.errors import InvalidOption
from pricing.games.baccarat.tableau import NATURAL, is_complete, total
from pricing.games.fixed_odds import LOSE_HUNDREDTHS, check_entry_pays, preset_pays
from pricing.payout import is_whole_number
from pricing.text import quoted

__all__ = [
    "IDENTICAL_PAIR_BETS",
    "MAIN_BETS",
    "PAIR_BETS",
    "SIDE_BETS",
    "BaccaratPaytable",
    "Commission",
    "RoundResult",
    "main_paytables",
    "outcome",
    "outcome_pays",
    "pair_outcome",
    "paytable",
    "presets",
    "settle",
]


class Commission(StrEnum):
    """How the Banker bet pays a win (docs/rules.md §7)."""

    STANDARD = "STANDARD"  # 0.95 : 1 (a 5 % commission)
    NO_COMMISSION = "NO_COMMISSION"  # 1 : 1, a win on a total of 6 pays 1 : 2
    EZ = "EZ"  # 1 : 1, a win with a three-card 7 pushes

    @property
    def preset(self) -> str:
        """The main bets' preset of this variant: ``standard``, ``no-commission``, ``ez``."""
        return self.value.lower().replace("_", "-")


MAIN_BETS: Final = ("PLAYER", "BANKER", "TIE")
#: The pays of the Egalité bets, by the tied total.
EGALITE_PAYS: Final = (150, 215, 225, 200, 120, 110, 45, 45, 80, 80)
SIDE_BETS: Final = (
    "PLAYER_PAIR",
    "BANKER_PAIR",
    "EITHER_PAIR",
    "PERFECT_PAIR",
    "DRAGON_7",
    "PANDA_8",
    "DRAGON_BONUS_PLAYER",
    "DRAGON_BONUS_BANKER",
    "BIG",
    "SMALL",
    "LUCKY_6",
    "SUPER_6",
    *(f"EGALITE_{t}" for t in range(10)),
)
#: The bets on the first two cards of each hand (the others read the whole round).
PAIR_BETS: Final = ("PLAYER_PAIR", "BANKER_PAIR", "EITHER_PAIR", "PERFECT_PAIR")
#: The pair bet that needs two identical cards (rank and suit); the others, two of one rank.
IDENTICAL_PAIR_BETS: Final = frozenset({"PERFECT_PAIR"})

#: The narrowest non-natural win the Dragon Bonus pays (by 1–3 points it loses).
DRAGON_BONUS_MARGIN: Final = 4


@dataclass(frozen=True, slots=True)
class _Bet:
    """A bet's presets (name → paytable entries and their pays), the preset a table gets when
    it names none, and its pushes: outcomes that return the stake, not paytable entries."""

    presets: Mapping[str, Mapping[str, int]]
    default: str = "standard"
    pushes: tuple[str, ...] = ()


def _one(pays: int) -> _Bet:
    return _Bet({"standard": {"WIN": pays}})


_DRAGON_BONUS = _Bet(
    {
        "standard": {
            "NATURAL_WIN": 100,
            "WIN_BY_9": 3000,
            "WIN_BY_8": 1000,
            "WIN_BY_7": 600,
            "WIN_BY_6": 400,
            "WIN_BY_5": 200,
            "WIN_BY_4": 100,
        }
    },
    pushes=("NATURAL_TIE",),
)

_SIDE: Final[Mapping[str, _Bet]] = {
    "PLAYER_PAIR": _one(1100),
    "BANKER_PAIR": _one(1100),
    "EITHER_PAIR": _one(500),
    "PERFECT_PAIR": _Bet(
        {"standard": {"WIN": 2500}, "evolution": {"ONE_HAND": 2500, "BOTH_HANDS": 25_000}}
    ),
    "DRAGON_7": _one(4000),
    "PANDA_8": _one(2500),
    "DRAGON_BONUS_PLAYER": _DRAGON_BONUS,
    "DRAGON_BONUS_BANKER": _DRAGON_BONUS,
    "BIG": _one(54),
    "SMALL": _one(150),
    "LUCKY_6": _Bet(
        {
            "12-20": {"TWO_CARD_6": 1200, "THREE_CARD_6": 2000},
            "12-23": {"TWO_CARD_6": 1200, "THREE_CARD_6": 2300},
        },
        default="12-20",
    ),
    "SUPER_6": _Bet({"15": {"WIN": 1500}, "12": {"WIN": 1200}}, default="15"),
    **{f"EGALITE_{t}": _one(100 * pays) for t, pays in enumerate(EGALITE_PAYS)},
}


def presets(bet: str) -> tuple[str, ...]:
    """A side bet's presets, the one a table gets when it names none first.

    >>> presets("LUCKY_6"), presets("DRAGON_7")
    (('12-20', '12-23'), ('standard',))
    """
    spec = _SIDE[bet]
    return (spec.default, *(name for name in spec.presets if name != spec.default))


_MAIN: Final[Mapping[str, _Bet]] = {
    "PLAYER": _Bet({c.preset: {"WIN": 100} for c in Commission}, pushes=("PUSH",)),
    "BANKER": _Bet(
        {
            Commission.STANDARD.preset: {"WIN": 95},
            Commission.NO_COMMISSION.preset: {"WIN": 100, "WIN_ON_6": 50},
            Commission.EZ.preset: {"WIN": 100},
        },
        pushes=("PUSH",),
    ),
    "TIE": _Bet({"8": {"WIN": 800}, "9": {"WIN": 900}}, default="8"),
}
#: The EZ game's Banker pushes one more outcome than the others.
_EZ_PUSHES: Final = ("DRAGON_7_PUSH", "PUSH")


@dataclass(frozen=True, slots=True)
class BaccaratPaytable:
    """A main or side bet as a table offers it. ``preset``: the main bets' commission variant
    (``standard``, ``no-commission``, ``ez``) or the tie's pay (``8``, ``9``), a side bet's
    preset; ``pays``: each paytable entry's pay in hundredths of odds-to-1, overrides included.
    ``InvalidOption`` for a pay out of range (``pricing.games.fixed_odds.check_entry_pays``).
    """

    bet: str
    preset: str
    pays: Mapping[str, int] = field(hash=False)

    def __post_init__(self) -> None:
        check_entry_pays(self.bet, self.pays)


def main_paytables(
    commission: Commission | str, tie_pays: int
) -> tuple[BaccaratPaytable, BaccaratPaytable, BaccaratPaytable]:
    """The main bets' paytables, ``PLAYER``, ``BANKER``, ``TIE``, under ``commission`` (or its
    name) with the tie paying ``tie_pays`` : 1 (8 or 9); ``InvalidOption`` naming the option.

    >>> [(t.bet, t.preset, dict(t.pays)) for t in main_paytables(Commission.EZ, 9)]
    [('PLAYER', 'ez', {'WIN': 100}), ('BANKER', 'ez', {'WIN': 100}), ('TIE', '9', {'WIN': 900})]
    """
    try:
        preset = Commission(commission).preset
    except ValueError:
        raise InvalidOption(
            f"unknown commission {quoted(commission)}: expected one of {', '.join(Commission)}",
            field="commission",
        ) from None
    if not is_whole_number(tie_pays) or tie_pays not in (8, 9):
        raise InvalidOption(
            f"tie_pays must be 8 or 9 (the tie pays 8 : 1 or 9 : 1), got {tie_pays!r}",
            field="tie_pays",
        )
    return (
        BaccaratPaytable("PLAYER", preset, _MAIN["PLAYER"].presets[preset]),
        BaccaratPaytable("BANKER", preset, _MAIN["BANKER"].presets[preset]),
        BaccaratPaytable("TIE", str(tie_pays), _MAIN["TIE"].presets[str(tie_pays)]),
    )


def paytable(
    bet: str, preset: str = "", overrides: Mapping[str, int] | None = None
) -> BaccaratPaytable:
    """Side bet ``bet``'s paytable: ``preset`` (its default when empty) with the pays of
    ``overrides`` (by paytable entry) in place of the preset's. ``InvalidOption`` names an
    unknown bet, preset or entry.

    >>> paytable("PERFECT_PAIR", "evolution", {"BOTH_HANDS": 20000}).pays
    {'ONE_HAND': 2500, 'BOTH_HANDS': 20000}
    >>> paytable("PLAYER")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidOption: PLAYER is a main bet, always offered: its pays are set by ...
    """
    if bet in _MAIN:
        raise InvalidOption(
            f"{bet} is a main bet, always offered: its pays are set by the table's commission "
            "and tie_pays, not as a side bet"
        )
    spec = _SIDE.get(bet)
    if spec is None:
        raise InvalidOption(
            f"unknown side bet {quoted(bet)}: expected one of {', '.join(SIDE_BETS)}"
        )
    name, pays = preset_pays(bet, spec.presets, preset, spec.default, overrides)
    return BaccaratPaytable(bet, name, pays)


def _spec(table: BaccaratPaytable) -> _Bet:
    spec = _MAIN.get(table.bet) or _SIDE.get(table.bet)
    if spec is None or table.preset not in spec.presets:
        raise ValueError(f"no baccarat bet {table.bet} with a preset {table.preset!r}")
    return spec


def outcome_pays(table: BaccaratPaytable) -> dict[str, int]:
    """Every outcome of ``table``'s bet but ``LOSE``, with its signed net pay in hundredths
    (``0``: a push), in the order of the module's table."""
    spec = _spec(table)
    pushes = _EZ_PUSHES if (table.bet, table.preset) == ("BANKER", "ez") else spec.pushes
    return {**table.pays, **dict.fromkeys(pushes, 0)}


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a complete round shows every bet but the pairs: each hand's total and number of
    cards. A round with two cards a hand and an 8 or 9 on either was decided by a natural."""

    player_total: int
    banker_total: int
    player_cards: int
    banker_cards: int

    @classmethod
    def of(cls, player: Sequence[Card], banker: Sequence[Card]) -> RoundResult:
        return cls(total(player), total(banker), len(player), len(banker))

    @property
    def natural(self) -> bool:
        # Two cards a hand with an 8 or 9 is a natural; no other round ends on two cards a
        # hand with a total of 8 or more (a hand on 0–5 draws).
        two_cards = self.player_cards == self.banker_cards == 2
        return two_cards and max(self.player_total, self.banker_total) >= NATURAL


def _dragon_bonus(own: int, other: int, natural: bool) -> str:
    if natural:
        # In a round decided by a natural the winner holds one; a tie is of two naturals.
        return "NATURAL_WIN" if own > other else "NATURAL_TIE" if own == other else "LOSE"
    margin = own - other
    return f"WIN_BY_{margin}" if margin >= DRAGON_BONUS_MARGIN else "LOSE"


def outcome(table: BaccaratPaytable, result: RoundResult) -> str:
    """The outcome of ``table``'s bet (any but a pair bet) on a round that ended in
    ``result``: one of ``outcome_pays(table)`` or ``LOSE``."""
    bet = table.bet
    player, banker = result.player_total, result.banker_total
    banker_wins, player_wins = banker > player, player > banker
    if bet == "PLAYER":
        return "WIN" if player_wins else "PUSH" if player == banker else "LOSE"
    if bet == "BANKER":
        if not banker_wins:
            return "PUSH" if player == banker else "LOSE"
        if table.preset == "no-commission" and banker == 6:
            return "WIN_ON_6"
        if table.preset == "ez" and banker == 7 and result.banker_cards == 3:
            return "DRAGON_7_PUSH"
        return "WIN"
    if bet == "DRAGON_BONUS_PLAYER":
        return _dragon_bonus(player, banker, result.natural)
    if bet == "DRAGON_BONUS_BANKER":
        return _dragon_bonus(banker, player, result.natural)
    if bet == "LUCKY_6":
        if not (banker_wins and banker == 6):
            return "LOSE"
        return "TWO_CARD_6" if result.banker_cards == 2 else "THREE_CARD_6"
    wins = {
        "TIE": player == banker,
        "DRAGON_7": banker_wins and banker == 7 and result.banker_cards == 3,
        "PANDA_8": player_wins and player == 8 and result.player_cards == 3,
        "BIG": result.player_cards + result.banker_cards >= 5,
        "SMALL": result.player_cards + result.banker_cards == 4,
        "SUPER_6": banker_wins and banker == 6,
    }.get(bet)
    if wins is None:
        if not bet.startswith("EGALITE_") or bet not in _SIDE:
            raise ValueError(f"{bet} is not a baccarat bet decided by the round's totals")
        wins = player == banker == int(bet.removeprefix("EGALITE_"))
    return "WIN" if wins else "LOSE"


def pair_outcome(table: BaccaratPaytable, player_pair: bool, banker_pair: bool) -> str:
    """The outcome of a pair bet (``PAIR_BETS``) when the Player's and the Banker's first two
    cards pair or not (of one rank; for ``IDENTICAL_PAIR_BETS``, one card twice)."""
    bet = table.bet
    if bet == "PLAYER_PAIR":
        return "WIN" if player_pair else "LOSE"
    if bet == "BANKER_PAIR":
        return "WIN" if banker_pair else "LOSE"
    if bet not in ("EITHER_PAIR", "PERFECT_PAIR"):
        raise ValueError(f"{bet} is not a pair bet")
    if not (player_pair or banker_pair):
        return "LOSE"
    if "BOTH_HANDS" not in table.pays:
        return "WIN"
    return "BOTH_HANDS" if player_pair and banker_pair else "ONE_HAND"


def _pairs(bet: str, cards: Sequence[Card]) -> bool:
    first, second = cards[0], cards[1]
    return first == second if bet in IDENTICAL_PAIR_BETS else first.rank == second.rank


def settle(
    table: BaccaratPaytable, player: Sequence[Card], banker: Sequence[Card]
) -> tuple[str, int]:
    """A complete round's outcome for ``table``'s bet and its signed pay in hundredths
    (``LOSE``: ``-100``). ``ValueError`` if the round is not complete."""
    if not is_complete(player, banker):
        raise ValueError("the round is not complete: its bets settle once it is")
    if table.bet in PAIR_BETS:
        result = pair_outcome(table, _pairs(table.bet, player), _pairs(table.bet, banker))
    else:
        result = outcome(table, RoundResult.of(player, banker))
    return result, LOSE_HUNDREDTHS if result == "LOSE" else outcome_pays(table)[result]
