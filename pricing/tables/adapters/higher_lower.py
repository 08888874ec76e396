"""Higher/Lower tables (docs/rules.md §6) over ``pricing.games.higher_lower.HigherLowerShoe``:
1 to 8 decks of 48 cards (6 by default), ten dynamic bets on the next result against the base
card, each round decided by one card after its burns.

A round's result, for settlement, is the pair (base card, result card): ``RoundResult``'s
``result_cards`` lists both, the base first.

>>> from pricing.tables import TableConfig, Game
>>> adapter = HigherLowerAdapter()
>>> config = adapter.configure(TableConfig(Game.HIGHER_LOWER))
>>> view = adapter.quote(config, [], base_card="KD")
>>> config.decks, view.cards_remaining, view.prices["HIGHER"].payout_hundredths  # 11.56 for one
(6, 287, 1056)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pricing.cards import DECK, Card, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games import higher_lower as hl
from pricing.tables.events import Game, TableConfig, TablePhase
from pricing.tables.views import EndedRound, GameState, GameView, SideBetResult, standard_view

__all__ = ["HigherLowerAdapter"]


class HigherLowerAdapter:
    game = Game.HIGHER_LOWER
    title = "Higher/Lower"

    def configure(self, config: TableConfig) -> TableConfig:
        decks = config.decks or hl.DEFAULT_DECKS
        if not 1 <= decks <= 8:
            raise InvalidOption(
                f"decks {config.decks} is not allowed for Higher/Lower: send 1 to 8 (0: "
                f"{hl.DEFAULT_DECKS})",
                field="decks",
            )
        rules = hl.DEFAULT_RULES if config.rules is None else config.rules
        if not isinstance(rules, hl.HigherLowerRules):
            raise InvalidOption(f"Higher/Lower rules must be a HigherLowerRules, got {rules!r}")
        return TableConfig(self.game, decks, rules)

    def rules(self, config: TableConfig) -> hl.HigherLowerRules:
        rules = config.rules
        assert isinstance(rules, hl.HigherLowerRules)  # ``configure`` checked it
        return rules

    def check_offer(self, config: TableConfig) -> None:
        """A table may not have a bet it could never offer: one whose pay, lifted to its
        minimum, returns more than the stake even at the lowest chance to win a round can
        give it, so that it is always closed as over par (docs/rules.md §6.2).
        ``InvalidOption`` naming the bet's ``min_hundredths``; a Quote may still price one.
        Checked when a table is opened, never when a journal is folded: a table opened before
        this check reads back as it was."""
        rules = self.rules(config)
        game = hl.game(config.decks)
        depleting = rules.shuffle is hl.ShuffleMode.DEPLETING
        # Whether a bet is offered depends only on its chance to win (its pay is clamped up
        # to the minimum the less likely it is): each bet's lowest chance over every base
        # card, as (winning cards, cards left).
        lowest: dict[str, tuple[int, int]] = {}
        for base in (card for card in DECK if game.deck.holds(card)):
            counts = game.deck.counts([base])
            for bet, price in game.price_counts(counts, base, rules.paytable).items():
                wins, left = price.wins, price.remaining
                if wins and depleting:  # the other winning cards out, then this base
                    wins, left = 1, left - wins + 1
                low = lowest.get(bet)
                if wins and (low is None or wins * low[1] < low[0] * left):
                    lowest[bet] = (wins, left)
        for bet in hl.BETS:
            wins, left = lowest.get(bet, (0, 0))
            if not wins or not game.offer(bet, wins, left, rules.paytable).open:
                pay = rules.paytable.rules()[bet].min_hundredths / 100
                raise InvalidOption(
                    f"bet {bet} could never be offered at this table: at its minimum pay, "
                    f"{pay:.2f} : 1, it returns more than the stake even at its lowest chance "
                    f"to win ({wins} of {left} cards), so it would always be closed; lower "
                    "its min_hundredths",
                    field=f'higher_lower.bets["{bet}"].min_hundredths',
                )

    def new_state(self, config: TableConfig) -> GameState:
        return hl.HigherLowerShoe(rules=self.rules(config), decks=config.decks)

    def view(self, state: GameState) -> GameView:
        assert isinstance(state, hl.HigherLowerShoe)
        return replace(standard_view(state), base_card=state.base)

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
        """The prices of a round open for betting on ``base_card`` with ``exposed`` out of the
        shoe (a continuous shuffler's prices read only the base card)."""
        if banker_hand:
            raise InvalidInput(
                f"banker_hand is a baccarat field: {self.title} has no Banker hand",
                field="banker_hand",
            )
        for name, sent in (
            ("dealer_up_card", up_card),
            ("player_hand", player_hand),
            ("include_player_edge", include_player_edge),
        ):
            if sent:
                raise InvalidInput(
                    f"{name} is a blackjack field: Higher/Lower has no dealer or player hand",
                    field=name,
                )
        rules = self.rules(config)
        game = hl.game(config.decks)
        cards = [(f"exposed[{i}]", parse_card(text)) for i, text in enumerate(exposed)]
        base = parse_card(base_card) if base_card else None
        if base is not None:
            cards.append(("base_card", base))
        for place, card in cards:
            game.deck.check_holds(card, place)  # a ten is named where it was sent
        out = [card for _, card in cards]
        counts = game.deck.counts(out)  # every card checked against the shoe
        if rules.shuffle is hl.ShuffleMode.CONTINUOUS:  # the seen cards went back but the base
            out = out[-1:] if base else []
            counts = game.deck.counts(out)
        prices = game.price_counts(counts, base, rules.paytable)
        return GameView(
            phase=TablePhase.BETTING,
            shoe=1,
            round_id=0,
            result_index=0,
            exposed=(),
            cards_remaining=game.deck.size - len(out),
            prices=prices,
        )

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        base, card = result  # a round is decided by its base card and its result
        return hl.game(config.decks).wins(bet, card, base)

    def seats(self, config: TableConfig) -> int:
        return 0

    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None:
        raise InvalidInput(f"Higher/Lower has no side bet {bet!r}")

    def position_cap_cents(self, config: TableConfig) -> int:
        return self.rules(config).max_position_payout_cents

    def describe(self, config: TableConfig) -> dict[str, str]:
        rules = self.rules(config)
        options = {
            "higher_lower.shuffle_mode": rules.shuffle.value,
            "higher_lower.burns": str(rules.burns),
            "higher_lower.max_position_payout_cents": str(rules.max_position_payout_cents),
        }
        for bet, rule in rules.paytable.rules().items():
            options[f"higher_lower.bets[{bet}]"] = (
                f"{{rtp_bp: {rule.rtp_bp} min_hundredths: {rule.min_hundredths} "
                f"max_hundredths: {rule.max_hundredths}}}"
            )
        return options
