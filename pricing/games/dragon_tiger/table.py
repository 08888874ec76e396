"""Dragon Tiger as a table deals it: the rules a table is opened with (``DragonTigerRules``)
and the game ``pricing.games.two_hands.TwoHandShoe`` folds the feed over (``DRAGON_TIGER``):
the Dragon's card, then the Tiger's, which decides the round.

>>> from pricing.cards import parse_card
>>> rules = DragonTigerRules()
>>> [table.bet for table in rules.paytables]
['DRAGON', 'TIGER', 'TIE']
>>> DRAGON_TIGER.refusal(((), ()), 1)
"the Dragon's card comes first"
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pricing.games.blackjack.rules import ShoeMode
from pricing.games.dragon_tiger.bets import (
    MAIN_BETS,
    DragonTigerPaytable,
    main_paytables,
    odds,
    settle,
)
from pricing.games.events import CardRole
from pricing.games.fixed_odds import SideBetOdds, check_close_at_rtp_bp
from pricing.games.two_hands import Hands, Paytable, check_side_bets, describe_rules

__all__ = ["DRAGON_TIGER", "DragonTigerGame", "DragonTigerRules"]


#: The bets game protection never closes.
_MAIN_BETS: Final = frozenset(MAIN_BETS)


@dataclass(frozen=True, slots=True)
class DragonTigerRules:
    """A Dragon Tiger table's rules (docs/rules.md §8): what TIE pays, the side bets offered,
    game protection and the shuffle."""

    tie_pays: int = 8
    side_bets: tuple[DragonTigerPaytable, ...] = ()
    close_at_rtp_bp: int = 0
    mode: ShoeMode = ShoeMode.DEPLETING

    def __post_init__(self) -> None:
        main_paytables(self.tie_pays)  # checks tie_pays
        check_close_at_rtp_bp(self.close_at_rtp_bp, "close_at_rtp_bp")
        check_side_bets(self.side_bets, MAIN_BETS)

    @property
    def paytables(self) -> tuple[DragonTigerPaytable, ...]:
        """Every bet the table offers: DRAGON, TIGER, TIE, then the side bets."""
        return (*main_paytables(self.tie_pays), *self.side_bets)

    @property
    def main_bets(self) -> frozenset[str]:
        return _MAIN_BETS

    def describe(self, field: str) -> dict[str, str]:
        return describe_rules(field, self)


@dataclass(frozen=True, slots=True)
class DragonTigerGame:
    """Dragon Tiger for ``TwoHandShoe``: one card to the Dragon, then one to the Tiger."""

    title: str = "Dragon Tiger"
    hands: tuple[str, str] = ("DRAGON", "TIGER")
    roles: tuple[CardRole, CardRole] = (CardRole.DRAGON, CardRole.TIGER)
    #: A round is dealt only while at least 2 cards are left (docs/rules.md §8).
    min_cards: int = 2

    def refusal(self, hands: Hands, hand: int) -> str | None:
        dragon, _tiger = hands
        if hand == 0:
            return "the Dragon already has its card: the Tiger's comes next" if dragon else None
        return "the Dragon's card comes first" if not dragon else None

    def is_complete(self, hands: Hands) -> bool:
        return bool(hands[1])

    def odds(
        self, counts: Sequence[int], hands: Hands, paytables: Sequence[Paytable]
    ) -> dict[str, SideBetOdds]:
        dragon = hands[0][0] if hands[0] else None
        return odds(counts, dragon, paytables)  # type: ignore[arg-type]

    def settle(self, paytable: Paytable, hands: Hands) -> tuple[str, int]:
        assert isinstance(paytable, DragonTigerPaytable)
        return settle(paytable, hands[0][0], hands[1][0])


DRAGON_TIGER: Final = DragonTigerGame()
