"""Goa Gae / 9K tables (RULES.md §4) over ``pricing.goagae.GoaGaeDeck``.

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

from pricing import goagae
from pricing.cards import Card, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.tables import (
    EndedRound,
    Game,
    GameState,
    GameView,
    TableConfig,
    TablePhase,
    standard_view,
)

__all__ = ["GoaGaeAdapter"]

_DECK_SIZE = 52


class GoaGaeAdapter:
    """Goa Gae for ``pricing.tables``: the engine's deck, quote and ``bet_wins``."""

    game = Game.GOA_GAE

    def configure(self, config: TableConfig) -> TableConfig:
        if config.decks not in (0, 1):
            raise InvalidOption(
                f"decks {config.decks} is not allowed for Goa Gae: it is dealt from one "
                "52-card deck per shoe (send 0 or 1)"
            )
        rules = goagae.DEFAULT_PAYTABLE if config.rules is None else config.rules
        if not isinstance(rules, goagae.GoaGaePaytable):
            raise InvalidOption(f"Goa Gae rules must be a GoaGaePaytable, got {rules!r}")
        return TableConfig(Game.GOA_GAE, 1, rules)

    def new_state(self, config: TableConfig) -> goagae.GoaGaeDeck:
        assert isinstance(config.rules, goagae.GoaGaePaytable)
        return goagae.GoaGaeDeck(paytable=config.rules)

    def view(self, state: GameState) -> GameView:
        return standard_view(state)

    def quote(
        self, config: TableConfig, exposed: Sequence[str], up_card: str | None = None
    ) -> GameView:
        if up_card:
            raise InvalidInput("dealer_up_card is a blackjack field: Goa Gae has no dealer card")
        assert isinstance(config.rules, goagae.GoaGaePaytable)
        cards = tuple(parse_card(c) for c in exposed)
        prices = goagae.quote(cards, config.rules)
        return GameView(
            phase=TablePhase.BETTING,
            shoe=1,
            round_id=0,
            result_index=0,
            exposed=(),
            cards_remaining=_DECK_SIZE - len(cards),
            prices=prices,
        )

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        return goagae.bet_wins(bet, result)

    def side_bet_outcome(self, config: TableConfig, bet: str, ended: EndedRound) -> tuple[str, int]:
        raise InvalidInput(f"Goa Gae has no side bet {bet!r}")
