"""Blackjack tables (docs/rules.md §2, §3) over ``pricing.games.blackjack.rounds.BlackjackRound``.

The engine (``pricing.games.blackjack``) knows the cards, the odds and the rounds; this module
translates them into the tables' neutral types and holds none of the game's rules:
``BlackjackAdapter`` checks a table's options (``BlackjackOptions``), shows a round's state as a
``GameView`` (side bets, insurance, dealer outcomes, seats), quotes without a table
(``rounds.quote``) and settles a seat's side bet (``RoundOutcome.settle``). A table's insurance
and dealer outcomes are the shoe's own views (``BlackjackShoe.insurance``: only while the
dealer's one card is an Ace; ``BlackjackShoe.dealer_outcomes``: conditioned on the dealer's hand
so far); the wire's ``up_card`` is the dealer's first card.

The main game's figures (docs/rules.md §3.9): each state carries what it calls for
(``GameView.work``: the seats whose hand is in play and the shoe of the next round's edge, from
``pricing.games.blackjack.live``), which the server computes after acknowledging the event; a
Quote computes its own at once (``GameView.figures``).

Seats: every PLAYER card names its seat, 1 to ``BlackjackOptions.seats`` (the table checks it:
``pricing.tables.check_seat``); on a one-seat table it may be left out.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Final

from pricing.cards import MAX_DECKS, Card, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games.blackjack import library
from pricing.games.blackjack.bets import InsuranceOdds
from pricing.games.blackjack.dealer import DealerOdds
from pricing.games.blackjack.decisions import HandDecisions
from pricing.games.blackjack.live import LiveWork, live_work
from pricing.games.blackjack.rounds import (
    MAX_SEATS,
    BlackjackOptions,
    BlackjackRound,
    Phase,
    RoundOutcome,
    quote,
)
from pricing.games.blackjack.shoe import BlackjackShoe
from pricing.games.fixed_odds import SideBetOdds, protection_closes
from pricing.tables.events import Game, TableConfig, TablePhase
from pricing.tables.views import (
    DealerOutcomesView,
    EndedRound,
    Figures,
    GameState,
    GameView,
    InsuranceView,
    SeatDecisionsView,
    SeatView,
    SideBetResult,
    SideBetView,
    fixed_bet_view,
    standard_view,
)

__all__ = ["DEFAULT_DECKS", "BlackjackAdapter"]

#: Decks when OpenTable sends 0: docs/rules.md §2 deals from 6 or 8; the engine's default is 6.
DEFAULT_DECKS: Final = 6


def _side_bet_views(
    odds: Mapping[str, SideBetOdds], betting: bool, close_at_rtp_bp: int
) -> tuple[SideBetView, ...]:
    return tuple(
        fixed_bet_view(
            bet, bet_odds, betting, protected=protection_closes(bet_odds, close_at_rtp_bp)
        )
        for bet, bet_odds in odds.items()
    )


def _insurance_view(odds: InsuranceOdds | None) -> InsuranceView | None:
    if odds is None:
        return None
    return InsuranceView(True, odds.probability, odds.rtp, odds.player_favourable)


def _dealer_view(up: Card | None, odds: DealerOdds | None) -> DealerOutcomesView | None:
    if up is None or odds is None:
        return None
    return DealerOutcomesView(str(up), odds.rule.value, tuple(odds.probabilities().items()))


def _seat_views(hands: tuple[tuple[Card, ...], ...]) -> tuple[SeatView, ...]:
    return tuple(SeatView(seat, hand) for seat, hand in enumerate(hands, start=1))


def _decisions_view(seat: int, decisions: HandDecisions | None) -> SeatDecisionsView | None:
    if decisions is None:
        return None
    evs = tuple((action.value, decisions.evs[action]) for action in decisions.legal)
    return SeatDecisionsView(seat, evs, decisions.best.value)


@dataclass(frozen=True, slots=True)
class MainGameWork:
    """A blackjack state's main-game figures to compute (``pricing.tables.LiveWork``)."""

    work: LiveWork

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(hand.seat for hand in self.work.hands)

    def seat_decisions(self, seat: int) -> SeatDecisionsView | None:
        hand = next(h for h in self.work.hands if h.seat == seat)
        return _decisions_view(seat, self.work.decisions(hand))

    @property
    def edge_key(self) -> Hashable:
        return self.work.edge_shoe  # a table's rules never change: its shoe decides the edge

    def edge(self) -> float | None:
        return self.work.edge()


def _view(state: BlackjackRound) -> GameView:
    shoe = state.state
    return standard_view(
        state,
        side_bets=_side_bet_views(
            shoe.side_bets, state.phase is Phase.BETTING, state.close_at_rtp_bp
        ),
        insurance=_insurance_view(shoe.insurance),
        dealer_outcomes=_dealer_view(shoe.dealer_up, shoe.dealer_outcomes),
        seats=_seat_views(state.hands),
        # The engine's outcome has each seat's hand as cards: the ended round shows them as seats.
        ended_seats=() if state.outcome is None else _seat_views(state.outcome.hands),
        work=MainGameWork(live_work(shoe, state.hands, state.main_game)),
    )


#: The options ``BlackjackAdapter.describe`` names by their own rules-message fields.
_DESCRIBED: Final = frozenset({"rule", "mode", "side_bets"})


class BlackjackAdapter:
    """Blackjack for ``pricing.tables``: 1–8 decks (default 6), S17 or H17, a depleting shoe
    or a continuous shuffle, Royal Match 21 and a pair side bet, 1–7 seats (default 7)."""

    game = Game.BLACKJACK

    def configure(self, config: TableConfig) -> TableConfig:
        decks = DEFAULT_DECKS if config.decks == 0 else config.decks
        if not 1 <= decks <= MAX_DECKS:
            raise InvalidOption(
                f"decks {config.decks} is not allowed for blackjack: send 1 to {MAX_DECKS} "
                f"(0: {DEFAULT_DECKS})",
                field="decks",
            )
        rules = BlackjackOptions() if config.rules is None else config.rules
        if not isinstance(rules, BlackjackOptions):
            raise InvalidOption(f"blackjack rules must be BlackjackOptions, got {rules!r}")
        if not 1 <= rules.seats <= MAX_SEATS:
            raise InvalidOption(
                f"seats {rules.seats} is not allowed for blackjack: send 1 to {MAX_SEATS} "
                f"(0: {MAX_SEATS})",
                field="blackjack.seats",
            )
        return TableConfig(Game.BLACKJACK, decks, rules)

    def seats(self, config: TableConfig) -> int:
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        return options.seats

    def new_state(self, config: TableConfig) -> BlackjackRound:
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        return BlackjackRound(
            BlackjackShoe(
                decks=config.decks,
                rule=options.rule,
                mode=options.mode,
                side_bets_offered=options.side_bets,
            ),
            seats=options.seats,
            main_game=options.main_game,
            close_at_rtp_bp=options.close_at_rtp_bp,
        )

    def view(self, state: GameState) -> GameView:
        assert isinstance(state, BlackjackRound)
        return _view(state)

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
        """The engine's ``quote`` of a shoe without ``exposed``, ``player_hand`` and
        ``up_card``, as a round open for betting, with the main game's figures: the hand's
        decisions against the up card and, with ``include_player_edge`` (a tenth of a second
        on a full shoe), the player edge of a round dealt from the shoe."""
        if banker_hand:
            raise InvalidInput(
                "banker_hand is a baccarat field: blackjack has no Banker hand",
                field="banker_hand",
            )
        if base_card:
            raise InvalidInput(
                "base_card is a Higher/Lower field: blackjack compares no card with a base",
                field="base_card",
            )
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        seen = [parse_card(c) for c in exposed]
        up = parse_card(up_card) if up_card else None
        hand = [parse_card(c) for c in player_hand]
        if hand and up is None:
            raise InvalidInput(
                "player_hand is priced against the dealer's card: send dealer_up_card too",
                field="player_hand",
            )
        if hand and len(hand) < 2:
            raise InvalidInput(
                f"player_hand needs two cards or more, got {len(hand)}", field="player_hand"
            )
        try:
            odds = quote(
                options, config.decks, seen, up, hand, include_player_edge=include_player_edge
            )
        except InvalidInput as exc:  # a busted hand: the engine names it
            if hand and exc.field is None:
                exc.field = "player_hand"
            raise
        seat_decisions = () if up is None else (_decisions_view(0, odds.decisions),)
        figures = Figures(
            seats=tuple(view for view in seat_decisions if view is not None),
            player_edge=odds.player_edge,
        )
        return GameView(
            phase=TablePhase.BETTING,
            shoe=1,
            round_id=0,
            result_index=0,
            exposed=(),
            cards_remaining=odds.cards_remaining,
            prices={},
            side_bets=_side_bet_views(odds.side_bets, True, options.close_at_rtp_bp),
            insurance=_insurance_view(odds.insurance),
            dealer_outcomes=_dealer_view(up, odds.dealer),
            figures=figures,
        )

    def check_offer(self, config: TableConfig) -> None:
        """A table may not offer a side bet that returns its stake or more on a full shoe of
        its decks (docs/rules.md §3.8: Royal Match 3-10 from four decks on, or a pay raised too
        far): ``InvalidOption`` naming the bet. A Quote may still price one."""
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        full = (config.decks,) * 52
        for bet, odds in library.odds(full, options.rule, options.side_bets).items():
            if odds.rtp_fraction >= 1:
                preset = next(t.preset for t in options.side_bets if t.bet == bet)
                raise InvalidOption(
                    f"side bet {bet} ({preset}) returns {float(odds.rtp_fraction):.4%} of its "
                    f"stakes on a full {config.decks}-deck shoe: a table's side bet must return "
                    "less (change its pays or the decks)",
                    field=f'blackjack.side_bets["{bet}"]',
                )

    def describe(self, config: TableConfig) -> dict[str, str]:
        """The options by their ``BlackjackRules`` fields; an option that has no field of its
        own there is named as the option is."""
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        described = {
            "blackjack.dealer_rule": f"DEALER_RULE_{options.rule.value}",
            "blackjack.shuffle_mode": f"SHUFFLE_MODE_{options.mode.value}",
        }
        for table in options.side_bets:
            pays = " ".join(f"{entry}: {pays}" for entry, pays in table.pays.items())
            described[f"blackjack.side_bets[{table.bet}]"] = f"{table.preset} {{{pays}}}"
        for option in fields(options):
            if option.name not in _DESCRIBED:
                described[f"blackjack.{option.name}"] = str(getattr(options, option.name))
        return described

    def position_cap_cents(self, config: TableConfig) -> int:
        return 0  # no dynamic bet, so no position ever gets a leg

    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool:
        raise InvalidInput(f"blackjack has no dynamic bet {bet!r}: its side bets are fixed")

    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None:
        """``seat``'s side bet on its own first two cards (Crown Treasure: and the dealer's);
        ``None`` (refunded) when the seat was dealt fewer than two."""
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        outcome = RoundOutcome(ended.round_id, ended.cards, seat_count=options.seats)
        settled = outcome.settle(bet, seat, options)
        return None if settled is None else SideBetResult(*settled)
