"""Goa Gae / 9K tables (docs/rules.md §4) over ``pricing.games.goagae.GoaGaeDeck``.

One 52-card deck per shoe. Betting is open between rounds on the six category bets
(``TRIPLE``, ``STRAIGHT_FLUSH``, ``JQK``, ``STRAIGHT``, ``FLUSH``, ``NINE``); the round's first
card closes it (phase DEALING); ``EndRound`` settles the bets on the round's hand, the engine's
first three PLAYER cards (``RoundOutcome.hand``). A round without such a hand, a ``VoidRound``
and a ``NewShoe`` mid-round refund the stake.

>>> from pricing.tables import TableConfig, Game
>>> adapter = GoaGaeAdapter()
>>> config = adapter.configure(TableConfig(Game.GOA_GAE))
>>> config.decks, adapter.quote(config, ["2S", "3S"]).prices["TRIPLE"].wins
(1, 46)
"""

from __future__ import annotations

from collections.abc import Sequence

from pricing.cards import Card
from pricing.games import goagae
from pricing.payout import BetPrice
from pricing.tables.adapters.single_deck import SingleDeckAdapter
from pricing.tables.events import Game, TableConfig

__all__ = ["GoaGaeAdapter"]


class GoaGaeAdapter(SingleDeckAdapter[goagae.GoaGaePaytable]):
    game = Game.GOA_GAE
    paytable_type = goagae.GoaGaePaytable
    default_paytable = goagae.DEFAULT_PAYTABLE
    rule_field = "goa_gae.bets[{bet}]"

    def new_deck(self, paytable: goagae.GoaGaePaytable) -> goagae.GoaGaeDeck:
        return goagae.GoaGaeDeck(paytable=paytable)

    def price(self, cards: Sequence[Card], paytable: goagae.GoaGaePaytable) -> dict[str, BetPrice]:
        return goagae.quote(cards, paytable)

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        return goagae.bet_wins(bet, result)
