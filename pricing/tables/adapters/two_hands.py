"""Baccarat and Dragon Tiger tables (docs/rules.md §7, §8) over
``pricing.games.two_hands.TwoHandShoe``: one adapter for both games, each described by a
``TwoHandTable`` (its ``Game``, its engine game and its rules' type and defaults).

Every bet is a fixed paytable's: the state's ``side_bets`` lists them all for the next round
(main bets first), open while betting is, but a side bet game protection closes; while a
round is dealt, ``round_odds`` gives every bet of that round given its cards. A bet settles
on the round's two hands (``side_bet_outcome``); a void round refunds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol, cast

from pricing.cards import Card, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games.baccarat.table import BACCARAT, BaccaratRules
from pricing.games.blackjack.rules import ShoeMode
from pricing.games.dragon_tiger.table import DRAGON_TIGER, DragonTigerRules
from pricing.games.events import CardRole
from pricing.games.fixed_odds import SideBetOdds
from pricing.games.two_hands import Hands, Paytable, Phase, TwoHandGame, TwoHandShoe
from pricing.tables.events import Game, TableConfig
from pricing.tables.views import (
    EndedRound,
    GameState,
    GameView,
    HandView,
    SideBetResult,
    SideBetView,
    fixed_bet_view,
    standard_view,
)

__all__ = [
    "BACCARAT_TABLE",
    "DRAGON_TIGER_TABLE",
    "TwoHandAdapter",
    "TwoHandTable",
    "TwoHandTableRules",
]

#: Decks when OpenTable sends 0: both games are dealt from 8-deck shoes.
DEFAULT_DECKS = 8
MAX_DECKS = 8


class TwoHandTableRules(Protocol):
    """A table's rules object (``BaccaratRules``, ``DragonTigerRules``) as the adapter uses it."""

    @property
    def paytables(self) -> tuple[Paytable, ...]: ...
    @property
    def main_bets(self) -> frozenset[str]: ...
    @property
    def mode(self) -> ShoeMode: ...
    @property
    def close_at_rtp_bp(self) -> int: ...
    def describe(self, field: str) -> dict[str, str]:
        """Each option's path in the rules message named ``field`` and its value."""
        ...


@dataclass(frozen=True, slots=True)
class TwoHandTable:
    """What makes a two-hand game a table game: its ``Game``, engine, rules type and
    defaults, and its rules message's field in requests (``baccarat``)."""

    game: Game
    engine: TwoHandGame
    rules_type: type
    default_rules: TwoHandTableRules
    rules_field: str


BACCARAT_TABLE: Final = TwoHandTable(
    Game.BACCARAT, BACCARAT, BaccaratRules, BaccaratRules(), "baccarat"
)
DRAGON_TIGER_TABLE: Final = TwoHandTable(
    Game.DRAGON_TIGER, DRAGON_TIGER, DragonTigerRules, DragonTigerRules(), "dragon_tiger"
)


def _rules(config: TableConfig) -> TwoHandTableRules:
    assert config.rules is not None  # ``configure`` filled it in
    return cast(TwoHandTableRules, config.rules)


#: Each table's paytables by bet, made once for its rules object (every table opened alike
#: shares one: ``pricing.tables.table``), not once a bet settled (a baccarat table's 25 are
#: settled every round, and ``paytables`` builds the main bets' anew).
_PAYTABLES: Final[dict[int, tuple[TwoHandTableRules, dict[str, Paytable]]]] = {}


def _paytables(rules: TwoHandTableRules) -> dict[str, Paytable]:
    held = _PAYTABLES.get(id(rules))
    if held is None or held[0] is not rules:  # the id of a rules object gone, reused
        if len(_PAYTABLES) >= 64:
            _PAYTABLES.clear()
        held = _PAYTABLES[id(rules)] = (rules, {t.bet: t for t in rules.paytables})
    return held[1]


class TwoHandAdapter:
    """A two-hand game for ``pricing.tables``: 1–8 decks (default 8), a depleting shoe or a
    continuous shuffler, its main bets and the side bets a table offers, game protection."""

    def __init__(self, table: TwoHandTable) -> None:
        self.table = table
        self.game = table.game
        self.title = table.engine.title

    def configure(self, config: TableConfig) -> TableConfig:
        decks = DEFAULT_DECKS if config.decks == 0 else config.decks
        if not 1 <= decks <= MAX_DECKS:
            raise InvalidOption(
                f"decks {config.decks} is not allowed for {self.title}: send 1 to {MAX_DECKS} "
                f"(0: {DEFAULT_DECKS})",
                field="decks",
            )
        rules = self.table.default_rules if config.rules is None else config.rules
        if not isinstance(rules, self.table.rules_type):
            raise InvalidOption(
                f"{self.title} rules must be a {self.table.rules_type.__name__}, got {rules!r}"
            )
        return TableConfig(self.game, decks, rules)

    def check_offer(self, config: TableConfig) -> None:
        """A table may not offer a bet that returns its stake or more on a full shoe of its
        decks (a pay raised too far): ``InvalidOption`` naming the bet. One that turns
        beatable as the shoe is dealt is what game protection is for."""
        rules = _rules(config)
        full = (config.decks,) * 52
        for bet, odds in self.table.engine.odds(full, ((), ()), rules.paytables).items():
            if odds.rtp_fraction >= 1:
                raise InvalidOption(
                    f"{bet} returns {float(odds.rtp_fraction):.4%} of its stakes on a full "
                    f"{config.decks}-deck shoe: a table's bet must return less (change its "
                    "pays or the decks)",
                    field=f'{self.table.rules_field}.side_bets["{bet}"]',
                )

    def new_state(self, config: TableConfig) -> TwoHandShoe:
        return TwoHandShoe(self.table.engine, _rules(config), decks=config.decks)

    def view(self, state: GameState) -> GameView:
        assert isinstance(state, TwoHandShoe)
        betting = state.phase is Phase.BETTING
        main = state.rules.main_bets
        side_bets = tuple(
            fixed_bet_view(
                bet, odds, betting, protected=state.is_protected(bet, odds), main=bet in main
            )
            for bet, odds in state.next_round_odds.items()
        )
        view = standard_view(state, side_bets=side_bets)
        ended = view.ended
        if ended is not None and state.outcome is not None:
            ended = replace(ended, hands=self._hands(state.outcome.hands))
        return replace(
            view,
            ended=ended,
            hands=self._hands(state.hands) if state.round_cards and not betting else (),
            round_odds=_closed_views(state.round_odds),
        )

    def _hands(self, hands: Hands) -> tuple[HandView, ...]:
        first, second = self.table.engine.hands
        return (HandView(first, hands[0]), HandView(second, hands[1]))

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
        """The next round's odds of a shoe without ``exposed`` (and the round's cards); with a
        round in progress (``player_hand``: the first hand's cards, ``banker_hand`` the
        second's), its odds given them, as ``round_odds``."""
        for name, sent in (
            ("dealer_up_card", up_card),
            ("include_player_edge", include_player_edge),
            ("base_card", base_card),
        ):
            if sent:
                raise InvalidInput(
                    f"{name} is not a field of {self.title}: it has no dealer or base card",
                    field=name,
                )
        engine = self.table.engine
        if banker_hand and engine.roles[1] is not CardRole.BANKER:
            raise InvalidInput(
                f"banker_hand is a baccarat field: {self.title} has no Banker hand "
                f"(send the {engine.hands[0]}'s card as player_hand)",
                field="banker_hand",
            )
        state = self.new_state(config)
        for i, text in enumerate(exposed):
            state = _quoted(state, f"exposed[{i}]", text, CardRole.BURN)
        state = _dealt(state, (("player_hand", player_hand), ("banker_hand", banker_hand)))
        view = self.view(state)
        if state.outcome is not None and not state.outcome.voided and (player_hand or banker_hand):
            raise InvalidInput(
                f"player_hand and banker_hand make a whole round of {self.title}: a quote "
                "prices a round before or while it is dealt",
                field="player_hand",
            )
        return replace(view, ended=None)

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        raise InvalidInput(f"{self.title} has no dynamic bet {bet!r}")

    def seats(self, config: TableConfig) -> int:
        return 0

    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None:
        """A bet on a decided round: its outcome and signed pay, on the round's two hands."""
        if ended.void:
            return None
        first, second = ended.hands  # as the view that ended the round showed them
        paytable = _paytables(_rules(config))[bet]
        outcome, pay = self.table.engine.settle(paytable, (first.cards, second.cards))
        return SideBetResult(outcome, pay, ended.result)

    def position_cap_cents(self, config: TableConfig) -> int:
        return 0

    def describe(self, config: TableConfig) -> dict[str, str]:
        return _rules(config).describe(self.table.rules_field)


def _quoted(state: TwoHandShoe, place: str, text: str, role: CardRole) -> TwoHandShoe:
    """``state`` with the quote's card at ``place`` dealt as ``role``; a card the shoe no
    longer holds, or one the tableau does not call for, is refused naming its place."""
    try:
        return state.expose(parse_card(text), role)
    except InvalidInput as exc:
        exc.field = place
        raise
    except Exception as exc:  # IllegalMove, CardNotInShoe: the request contradicts itself
        raise InvalidInput(f"{place}: {exc}", field=place) from None


def _dealt(state: TwoHandShoe, hands: tuple[tuple[str, Sequence[str]], ...]) -> TwoHandShoe:
    """``state`` with a quote's round dealt as a dealer deals it, whatever the order of the
    cards within each hand's list: the next card goes to the hand with fewer cards out (the
    first on a tie) that the game takes one for now, so that a Player's third card comes after
    the Banker's second. A card that fits no turn is refused naming its place (the game's
    rule in the message)."""
    roles = state.game.roles
    dealt = [0, 0]
    round_id = state.round_id
    while any(dealt[i] < len(cards) for i, (_, cards) in enumerate(hands)):
        waiting = [i for i, (_, cards) in enumerate(hands) if dealt[i] < len(cards)]
        if state.round_id != round_id:  # the cards so far completed the round
            field, _ = hands[waiting[0]]
            raise InvalidInput(
                f"{field}[{dealt[waiting[0]]}]: the round is complete without it (the "
                f"{state.game.title} tableau deals no more cards)",
                field=f"{field}[{dealt[waiting[0]]}]",
            )
        turn = next(
            (i for i in sorted(waiting, key=lambda i: (dealt[i], i))
             if state.game.refusal(state.hands, i) is None),
            waiting[0],  # no turn for any of them: dealing it raises, naming the rule
        )  # fmt: skip
        field, cards = hands[turn]
        state = _quoted(state, f"{field}[{dealt[turn]}]", cards[dealt[turn]], roles[turn])
        dealt[turn] += 1
    return state


def _closed_views(odds: Mapping[str, SideBetOdds]) -> tuple[SideBetView, ...]:
    return tuple(fixed_bet_view(bet, bet_odds, open=False) for bet, bet_odds in odds.items())
