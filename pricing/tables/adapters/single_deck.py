"""The adapter shape shared by the games dealt from one 52-card deck per shoe whose bets are
all dynamic, priced by the shared payout rule (Hi-Lo, Goa Gae).

Such a game differs from another only in its engine: its paytable type, its deck state, its
``quote`` and how a bet is decided from the cards that decided its round. Everything else a
``pricing.tables.GameAdapter`` does (options, views, stateless quotes, no side bets) is here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from pricing.cards import Card, parse_cards
from pricing.errors import InvalidInput, InvalidOption
from pricing.payout import BetPrice, Paytable
from pricing.tables.events import Game, TableConfig, TablePhase
from pricing.tables.views import EndedRound, GameState, GameView, SideBetResult, standard_view

__all__ = ["SingleDeckAdapter"]

P = TypeVar("P", bound=Paytable)

_DECK_SIZE = 52


class SingleDeckAdapter(Generic[P]):
    """Base of the one-deck, dynamic-bet game adapters; a subclass names its engine's parts."""

    game: ClassVar[Game]
    paytable_type: type[P]
    default_paytable: P
    #: Where a bet's pay rule sits in the game's rules message, by bet name (``describe``).
    rule_field: ClassVar[str]

    @property
    def title(self) -> str:
        return self.paytable_type.GAME

    def configure(self, config: TableConfig) -> TableConfig:
        if config.decks not in (0, 1):
            raise InvalidOption(
                f"decks {config.decks} is not allowed for {self.title}: it is dealt from one "
                "52-card deck per shoe (send 0 or 1)",
                field="decks",
            )
        rules = self.default_paytable if config.rules is None else config.rules
        if not isinstance(rules, self.paytable_type):
            raise InvalidOption(
                f"{self.title} rules must be a {self.paytable_type.__name__}, got {rules!r}"
            )
        return TableConfig(self.game, 1, rules)

    def paytable(self, config: TableConfig) -> P:
        """The configured paytable (``configure`` has checked its type)."""
        rules = config.rules
        assert isinstance(rules, self.paytable_type)
        return rules

    def new_state(self, config: TableConfig) -> GameState:
        return self.new_deck(self.paytable(config))

    def view(self, state: GameState) -> GameView:
        return standard_view(state)

    def quote(
        self,
        config: TableConfig,
        exposed: Sequence[str],
        up_card: str | None = None,
        player_hand: Sequence[str] = (),
        *,
        include_player_edge: bool = False,
        base_card: str | None = None,
        banker_hand: Sequence[str] = (),
    ) -> GameView:
        if banker_hand:
            raise InvalidInput(
                f"banker_hand is a baccarat field: {self.title} has no Banker hand",
                field="banker_hand",
            )
        if base_card:
            raise InvalidInput(
                f"base_card is a Higher/Lower field: {self.title} compares no card with a base",
                field="base_card",
            )
        if include_player_edge:
            raise InvalidInput(
                f"include_player_edge is a blackjack field: {self.title} has no main bet to price",
                field="include_player_edge",
            )
        if up_card:
            raise InvalidInput(
                f"dealer_up_card is a blackjack field: {self.title} has no dealer card",
                field="dealer_up_card",
            )
        if player_hand:
            raise InvalidInput(
                f"player_hand is a blackjack field: {self.title} has no player's hand to decide",
                field="player_hand",
            )
        cards = parse_cards(exposed)
        return GameView(
            phase=TablePhase.BETTING,
            shoe=1,
            round_id=0,
            result_index=0,
            exposed=(),
            cards_remaining=_DECK_SIZE - len(cards),
            prices=self.price(cards, self.paytable(config)),
        )

    def seats(self, config: TableConfig) -> int:
        return 0  # no player boxes: every card and bet leaves the seat out

    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None:
        raise InvalidInput(f"{self.title} has no side bet {bet!r}")

    def position_cap_cents(self, config: TableConfig) -> int:
        return 0  # no cap in the rules: a position is bounded only by the wire

    def check_offer(self, config: TableConfig) -> None:
        """Any configured table may be opened: a pay rule returns at most its RTP (≤ 100 %)."""

    def describe(self, config: TableConfig) -> dict[str, str]:
        """Each bet's pay rule, as its ``PayRule`` message's text."""
        return {
            self.rule_field.format(bet=bet, field=bet.lower()): (
                f"{{rtp_bp: {rule.rtp_bp} min_hundredths: {rule.min_hundredths} "
                f"max_hundredths: {rule.max_hundredths}}}"
            )
            for bet, rule in self.paytable(config).rules().items()
        }

    # -- the engine's parts --

    def new_deck(self, paytable: P) -> GameState:
        """A freshly opened table's deck state."""
        raise NotImplementedError

    def price(self, cards: Sequence[Card], paytable: P) -> dict[str, BetPrice]:
        """The bets' prices with ``cards`` seen."""
        raise NotImplementedError

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        """Whether ``bet`` won, given the cards that decided its round."""
        raise NotImplementedError
