"""Hi-Lo tables (docs/rules.md §1) over ``pricing.games.hilo.HiLoDeck``: one 52-card deck per
shoe, five dynamic bets on the next result card, each round decided by one card.

>>> from pricing.tables import TableConfig, Game
>>> adapter = HiLoAdapter()
>>> config = adapter.configure(TableConfig(Game.HILO))
>>> config.decks, adapter.quote(config, ["7S", "7H"]).prices["SEVEN"].wins
(1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

from pricing.cards import Card
from pricing.games import hilo
from pricing.payout import BetPrice
from pricing.tables.adapters.single_deck import SingleDeckAdapter
from pricing.tables.events import Game, TableConfig

__all__ = ["HiLoAdapter"]


class HiLoAdapter(SingleDeckAdapter[hilo.HiLoPaytable]):
    game = Game.HILO
    paytable_type = hilo.HiLoPaytable
    default_paytable = hilo.DEFAULT_PAYTABLE
    rule_field = "hilo.{field}"

    def new_deck(self, paytable: hilo.HiLoPaytable) -> hilo.HiLoDeck:
        return hilo.HiLoDeck(paytable=paytable)

    def price(self, cards: Sequence[Card], paytable: hilo.HiLoPaytable) -> dict[str, BetPrice]:
        return hilo.quote(cards, paytable)

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        (card,) = result  # a Hi-Lo round is decided by one card
        return hilo.bet_wins(bet, card)
