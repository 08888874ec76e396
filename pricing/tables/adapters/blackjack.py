"""Blackjack tables (docs/rules.md §2, §3) over ``pricing.games.blackjack.BlackjackShoe``.

The engine's shoe knows the cards and the odds; this module adds what a live table needs
around it, and nothing of the game's rules:

- ``BlackjackOptions``: what a table is opened with (dealer rule, shoe mode, paytables, seats);
- ``BlackjackRound``: the shoe plus the table's betting phase and how the last round ended.
  A round is open for betting until its first card is dealt (then ``DEALING``); ``EndRound``
  (or ``VoidRound``) ends it and opens the next. The side bets are fixed-paytable bets on the
  round's first cards, so "open at a version" means the round was open for betting then;
- ``BlackjackAdapter``: views, quotes and settlement through the engine's own functions
  (``side_bets``, ``insurance``, ``dealer_odds``, ``classify_royal_match``,
  ``classify_pair``). A table's insurance and dealer outcomes are the shoe's own views
  (``BlackjackShoe.insurance``: only while the dealer's one card is an Ace;
  ``BlackjackShoe.dealer_outcomes``: conditioned on the dealer's hand so far); the wire's
  ``up_card`` is the dealer's first card.

Seats: a table has 1 to 7 player boxes (``BlackjackOptions.seats``, default 7), each with
its own cards and its own side bets. Every PLAYER card names its seat (the table checks it:
``pricing.tables.check_seat``); on a one-seat table it may be left out.

Settlement (interpretation, docs/rules.md §3.7: the side bets settle on "the player's first two
cards"; a player is a seat): a seat's side bets settle on that seat's first two PLAYER cards,
and Royal Match's Crown Treasure also on the dealer's first two DEALER cards. A seat dealt
fewer than two cards, a ``VoidRound``, and a ``NewShoe`` with cards of the round dealt refund
the stake. The odds of the next round are the same for every seat: one list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from functools import cached_property
from typing import Final

from pricing.cards import MAX_DECKS, Card, Rank, parse_card
from pricing.errors import InvalidInput, InvalidOption
from pricing.games import blackjack
from pricing.games.blackjack import (
    BlackjackShoe,
    DealerOdds,
    DealerRule,
    PairsPaytable,
    RoyalMatchPaytable,
    ShoeMode,
    SideBetOdds,
)
from pricing.games.events import CardRole, EndRound, Event, ExposeCard, NewShoe, VoidRound
from pricing.payout import BetPrice
from pricing.tables.events import Game, TableConfig, TablePhase
from pricing.tables.views import (
    DealerOutcomesView,
    EndedRound,
    GameState,
    GameView,
    InsuranceView,
    SeatView,
    SideBetOutcomeView,
    SideBetResult,
    SideBetView,
    standard_view,
)

__all__ = [
    "DEFAULT_DECKS",
    "MAX_SEATS",
    "SIDE_BETS",
    "BlackjackAdapter",
    "BlackjackOptions",
    "BlackjackRound",
    "RoundOutcome",
]

#: Decks when OpenTable sends 0: docs/rules.md §2 deals from 6 or 8; the engine's default is 6.
DEFAULT_DECKS: Final = 6
#: The side bets a blackjack table offers, in the order every list uses.
SIDE_BETS: Final[tuple[str, ...]] = ("ROYAL_MATCH", "PAIRS")
#: Player boxes at a table: at most 7 (a full blackjack table), 7 when the rules leave it out.
MAX_SEATS: Final = 7


@dataclass(frozen=True, slots=True)
class BlackjackOptions:
    """A blackjack table's rules, by default those of docs/rules.md (S17, a depleting shoe,
    Royal Match 25 : 1, 2.5 : 1 with Crown Treasure 1000 : 1, Perfect Pairs), and its number of
    seats (1 to 7)."""

    rule: DealerRule = DealerRule.S17
    mode: ShoeMode = ShoeMode.DEPLETING
    royal_match: RoyalMatchPaytable = blackjack.DEFAULT_ROYAL_MATCH
    pairs: PairsPaytable = blackjack.PERFECT_PAIRS
    seats: int = MAX_SEATS


class Phase(Enum):
    BETTING = "BETTING"  # no card of the round dealt yet: the side bets are open
    DEALING = "DEALING"  # the round's cards are coming out: bets are closed


def seat_cards(cards: Sequence[ExposeCard], seats: int) -> tuple[SeatView, ...]:
    """Every seat 1..``seats`` with its PLAYER cards among ``cards``, in the order dealt (a
    PLAYER card without a seat, on a one-seat table, is seat 1's)."""
    dealt: dict[int, list[Card]] = {seat: [] for seat in range(1, seats + 1)}
    for e in cards:
        if e.role is CardRole.PLAYER:
            dealt[e.seat or 1].append(e.card)
    return tuple(SeatView(seat, tuple(hand)) for seat, hand in dealt.items())


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How a round ended: every card of it with its role and seat; ``voided`` for a VoidRound
    (or a NewShoe mid-round). A seat's side bets are refunded when the round was voided or
    the seat was dealt fewer than two cards."""

    round_id: int
    cards: tuple[ExposeCard, ...]
    voided: bool = False
    result_index: int = 0
    seat_count: int = 1

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Every seat with its first two cards (fewer if it was dealt fewer)."""
        return tuple(SeatView(s.seat, s.cards[:2]) for s in seat_cards(self.cards, self.seat_count))

    def player(self, seat: int = 1) -> tuple[Card, ...]:
        """``seat``'s first two cards (fewer if it was dealt fewer)."""
        return self.seats[seat - 1].cards

    @property
    def dealer(self) -> tuple[Card, ...]:
        """The dealer's first two cards (fewer if the round ended sooner)."""
        return tuple(e.card for e in self.cards if e.role is CardRole.DEALER)[:2]

    @property
    def result(self) -> tuple[Card, ...] | None:
        """The cards the side bets settle on: each seat's two (seats dealt fewer left out),
        then the dealer's; ``None`` when no seat's bets can be settled."""
        hands = tuple(c for s in self.seats if len(s.cards) == 2 for c in s.cards)
        if self.voided or not hands:
            return None
        return hands + self.dealer


@dataclass(frozen=True)
class BlackjackRound:
    """The engine's shoe, the betting phase of the current round and how the last event
    ended a round (``outcome``). A pure fold, like the engine's states: every transition
    returns a new state; a rejected event raises and changes nothing."""

    state: BlackjackShoe
    outcome: RoundOutcome | None = None
    seats: int = 1

    @property
    def shoe(self) -> int:
        return self.state.shoe

    @property
    def round_id(self) -> int:
        return self.state.round_id

    @property
    def exposed(self) -> tuple[Card, ...]:
        return self.state.exposed

    @property
    def cards_remaining(self) -> int:
        return self.state.cards_remaining

    @property
    def prices(self) -> Mapping[str, BetPrice]:
        return {}  # blackjack has no dynamic bets: its side bets have fixed paytables

    @property
    def phase(self) -> Phase:
        return Phase.DEALING if self.state.round_exposed else Phase.BETTING

    def apply(self, event: Event) -> BlackjackRound:
        shoe = self.state
        match event:
            case ExposeCard():
                return BlackjackRound(shoe.apply(event), seats=self.seats)
            case EndRound():
                return BlackjackRound(shoe.apply(event), self._outcome(voided=False), self.seats)
            case VoidRound():
                return BlackjackRound(shoe.apply(event), self._outcome(voided=True), self.seats)
            case NewShoe():
                # The engine keeps the round open across a new shoe when none of its cards was
                # dealt (bets on fixed paytables stand); otherwise the round is void.
                outcome = self._outcome(voided=True) if shoe.round_exposed else None
                return BlackjackRound(shoe.apply(event), outcome, self.seats)
        raise InvalidInput(f"unknown event {event!r}")

    def _outcome(self, *, voided: bool) -> RoundOutcome:
        state = self.state
        return RoundOutcome(state.round_id, state.round_exposed, voided, seat_count=self.seats)

    @cached_property
    def view(self) -> GameView:
        return _view(self)


def _side_bet_views(odds: Mapping[str, SideBetOdds], betting: bool) -> tuple[SideBetView, ...]:
    return tuple(
        SideBetView(
            bet=bet,
            outcomes=tuple(
                SideBetOutcomeView(name, o.ways, o.total, o.pays_hundredths)
                for name, o in odds[bet].outcomes.items()
                if name != "LOSE"
            ),
            rtp=odds[bet].rtp,
            player_favourable=odds[bet].player_favourable,
            open=betting and odds[bet].open,
        )
        for bet in SIDE_BETS
    )


def _insurance_view(odds: blackjack.InsuranceOdds | None) -> InsuranceView | None:
    if odds is None:
        return None
    return InsuranceView(True, odds.probability, odds.rtp, odds.player_favourable)


def _dealer_view(up: Card | None, odds: DealerOdds | None) -> DealerOutcomesView | None:
    if up is None or odds is None:
        return None
    return DealerOutcomesView(str(up), odds.rule.value, tuple(odds.probabilities().items()))


def _view(state: BlackjackRound) -> GameView:
    shoe = state.state
    return standard_view(
        state,
        side_bets=_side_bet_views(shoe.side_bets, state.phase is Phase.BETTING),
        insurance=_insurance_view(shoe.insurance),
        dealer_outcomes=_dealer_view(shoe.dealer_up, shoe.dealer_outcomes),
        seats=seat_cards(shoe.round_exposed, state.seats),
    )


#: The options ``BlackjackAdapter.describe`` names by their own rules-message fields.
_DESCRIBED: Final = frozenset({"rule", "mode", "royal_match", "pairs"})


class BlackjackAdapter:
    """Blackjack for ``pricing.tables``: 1–8 decks (default 6), S17 or H17, a depleting shoe
    or a continuous shuffle, Royal Match 21 and a pair side bet, 1–7 seats (default 7)."""

    game = Game.BLACKJACK

    def configure(self, config: TableConfig) -> TableConfig:
        decks = DEFAULT_DECKS if config.decks == 0 else config.decks
        if not 1 <= decks <= MAX_DECKS:
            raise InvalidOption(
                f"decks {config.decks} is not allowed for blackjack: send 1 to {MAX_DECKS} "
                f"(0: {DEFAULT_DECKS})"
            )
        rules = BlackjackOptions() if config.rules is None else config.rules
        if not isinstance(rules, BlackjackOptions):
            raise InvalidOption(f"blackjack rules must be BlackjackOptions, got {rules!r}")
        if not 1 <= rules.seats <= MAX_SEATS:
            raise InvalidOption(
                f"seats {rules.seats} is not allowed for blackjack: send 1 to {MAX_SEATS} "
                f"(0: {MAX_SEATS})"
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
                royal_match=options.royal_match,
                pairs=options.pairs,
            ),
            seats=options.seats,
        )

    def view(self, state: GameState) -> GameView:
        assert isinstance(state, BlackjackRound)
        return state.view

    def quote(
        self, config: TableConfig, exposed: Sequence[str], up_card: str | None = None
    ) -> GameView:
        """The odds for a shoe without ``exposed`` and ``up_card``: the side bets of a round
        dealt from it, and for the dealer's ``up_card`` the dealer outcomes and (an Ace) the
        insurance. The shoe mode plays no part: the quote is of one shoe state."""
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        seen = [parse_card(c) for c in exposed]
        up = parse_card(up_card) if up_card else None
        everything = [*seen, up] if up is not None else seen
        odds = blackjack.side_bets(everything, config.decks, options.royal_match, options.pairs)
        insurance = None
        dealer = None
        if up is not None:
            dealer = blackjack.dealer_odds(up, seen, config.decks, options.rule)
            if up.rank is Rank.ACE:
                insurance = blackjack.insurance(everything, config.decks)
        return GameView(
            phase=TablePhase.BETTING,
            shoe=1,
            round_id=0,
            result_index=0,
            exposed=(),
            cards_remaining=52 * config.decks - len(everything),
            prices={},
            side_bets=_side_bet_views(odds, betting=True),
            insurance=_insurance_view(insurance),
            dealer_outcomes=_dealer_view(up, dealer),
        )

    def describe(self, config: TableConfig) -> dict[str, str]:
        """The options by their ``BlackjackRules`` fields; an option that has no field of its
        own there is named as the option is."""
        options = config.rules
        assert isinstance(options, BlackjackOptions)
        royal = options.royal_match
        described = {
            "blackjack.dealer_rule": options.rule.value,
            "blackjack.shuffle_mode": options.mode.value,
            "blackjack.royal_match.royal_hundredths": str(royal.royal_hundredths),
            "blackjack.royal_match.easy_hundredths": str(royal.easy_hundredths),
            "blackjack.royal_match.crown_enabled": str(royal.crown_treasure).lower(),
        }
        if royal.crown_hundredths is not None:
            described["blackjack.royal_match.crown_hundredths"] = str(royal.crown_hundredths)
        pairs = " ".join(f"{name}: {pays}" for name, pays in options.pairs.pays().items())
        described["blackjack.pairs.pays_hundredths"] = f"{{{pairs}}}"
        for option in fields(options):
            if option.name not in _DESCRIBED:
                described[f"blackjack.{option.name}"] = str(getattr(options, option.name))
        return described

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
        player = outcome.player(seat)
        if len(player) < 2:
            return None
        dealer = outcome.dealer
        if bet == "ROYAL_MATCH":
            name, pays = blackjack.classify_royal_match(player, dealer, options.royal_match)
        elif bet == "PAIRS":
            name, pays = blackjack.classify_pair(player, options.pairs)
        else:
            raise InvalidInput(f"unknown blackjack side bet {bet!r}: expected one of {SIDE_BETS}")
        return SideBetResult(name, pays, player + dealer)
