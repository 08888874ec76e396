"""Baccarat as a table deals it: the rules a table is opened with (``BaccaratRules``) and the
game ``pricing.games.two_hands.TwoHandShoe`` folds the feed over (``BACCARAT``), binding the
tableau, the bets and their exact odds of this package.

>>> from pricing.cards import parse_cards
>>> rules = BaccaratRules(side_bets=(paytable("PLAYER_PAIR"),))
>>> [table.bet for table in rules.paytables]
['PLAYER', 'BANKER', 'TIE', 'PLAYER_PAIR']
>>> natural_9 = (tuple(parse_cards(["9S", "KD"])), tuple(parse_cards(["2C", "3D"])))
>>> BACCARAT.settle(rules.paytables[0], natural_9)
('WIN', 100)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pricing.games.baccarat.bets import (
    MAIN_BETS,
    BaccaratPaytable,
    Commission,
    main_paytables,
    paytable,
    settle,
)
from pricing.games.baccarat.odds import odds
from pricing.games.baccarat.tableau import Hand, is_complete, refusal
from pricing.games.blackjack.rules import ShoeMode
from pricing.games.events import CardRole
from pricing.games.fixed_odds import SideBetOdds, check_close_at_rtp_bp
from pricing.games.two_hands import Hands, Paytable, check_side_bets, describe_rules

__all__ = ["BACCARAT", "BaccaratGame", "BaccaratRules", "paytable"]

#: Each commission variant as a request names it (``BaccaratRules.commission``).
_COMMISSION_NAMES: Final = {
    Commission.STANDARD: "COMMISSION_STANDARD",
    Commission.NO_COMMISSION: "COMMISSION_NONE",
    Commission.EZ: "COMMISSION_EZ",
}


#: The bets game protection never closes.
_MAIN_BETS: Final = frozenset(MAIN_BETS)


@dataclass(frozen=True, slots=True)
class BaccaratRules:
    """A baccarat table's rules (docs/rules.md §7): the commission variant, what TIE pays,
    the side bets offered (their paytables, in the order listed), game protection and the
    shuffle."""

    commission: Commission = Commission.STANDARD
    tie_pays: int = 8
    side_bets: tuple[BaccaratPaytable, ...] = ()
    close_at_rtp_bp: int = 0
    mode: ShoeMode = ShoeMode.DEPLETING

    def __post_init__(self) -> None:
        main_paytables(self.commission, self.tie_pays)  # checks tie_pays
        check_close_at_rtp_bp(self.close_at_rtp_bp, "close_at_rtp_bp")
        check_side_bets(self.side_bets, MAIN_BETS)

    @property
    def paytables(self) -> tuple[BaccaratPaytable, ...]:
        """Every bet the table offers: PLAYER, BANKER, TIE, then the side bets."""
        return (*main_paytables(self.commission, self.tie_pays), *self.side_bets)

    @property
    def main_bets(self) -> frozenset[str]:
        return _MAIN_BETS

    def describe(self, field: str) -> dict[str, str]:
        commission = {f"{field}.commission": _COMMISSION_NAMES[self.commission]}
        return commission | describe_rules(field, self)


@dataclass(frozen=True, slots=True)
class BaccaratGame:
    """Baccarat for ``TwoHandShoe``: the Player and Banker hands, dealt by the tableau."""

    title: str = "baccarat"
    hands: tuple[str, str] = (Hand.PLAYER.value, Hand.BANKER.value)
    roles: tuple[CardRole, CardRole] = (CardRole.PLAYER, CardRole.BANKER)
    #: A round is dealt only while at least 6 cards are left (docs/rules.md §7.1).
    min_cards: int = 6

    def refusal(self, hands: Hands, hand: int) -> str | None:
        return refusal(hands[0], hands[1], Hand.PLAYER if hand == 0 else Hand.BANKER)

    def is_complete(self, hands: Hands) -> bool:
        return is_complete(hands[0], hands[1])

    def odds(
        self, counts: Sequence[int], hands: Hands, paytables: Sequence[Paytable]
    ) -> dict[str, SideBetOdds]:
        return odds(counts, hands[0], hands[1], paytables)  # type: ignore[arg-type]

    def settle(self, paytable: Paytable, hands: Hands) -> tuple[str, int]:
        assert isinstance(paytable, BaccaratPaytable)
        return settle(paytable, hands[0], hands[1])


BACCARAT: Final = BaccaratGame()
