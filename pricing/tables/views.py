"""The neutral view of a game state: what a table publishes, whatever the game."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Protocol

from pricing.cards import Card
from pricing.games.events import ExposeCard, FeedEvent
from pricing.games.fixed_odds import SideBetOdds
from pricing.payout import BetPrice
from pricing.tables.events import TablePhase

__all__ = [
    "DealerOutcomesView",
    "EndedRound",
    "Figures",
    "GameState",
    "GameView",
    "HandView",
    "InsuranceView",
    "LiveWork",
    "RoundOutcome",
    "SeatDecisionsView",
    "SeatView",
    "SideBetOutcomeView",
    "SideBetResult",
    "SideBetView",
    "fixed_bet_view",
    "standard_view",
]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One player box of a game with seats (blackjack) and its PLAYER cards."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandView:
    """One hand of a round and its cards, in the order dealt (baccarat's PLAYER and BANKER,
    Dragon Tiger's DRAGON and TIGER)."""

    hand: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class SeatDecisionsView:
    """The actions open to a seat's hand in play, each with its EV per unit of the original
    wager (``(name, ev)``, the names as the engine's ``Action``: ``STAND`` …), and the best."""

    seat: int
    decisions: tuple[tuple[str, float], ...]
    best: str


@dataclass(frozen=True, slots=True)
class Figures:
    """The main game's figures of a state (blackjack): the decisions of the seats in play and
    the next round's player edge (None: not known, or the shoe could run out). A table's are
    computed after its event is acknowledged (``pricing.server.analyst``); a Quote's at once."""

    seats: tuple[SeatDecisionsView, ...] = ()
    player_edge: float | None = None


class LiveWork(Protocol):
    """The figures a state calls for, as a game describes them (pure: every server holding the
    table asks for the same). Computing them is slow (milliseconds a seat, about 0.1 s for the
    edge on a full 6–8 deck shoe), so the server does it off the feed's path, a piece at a
    time."""

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats whose hand is in play: each calls for its decisions."""
        ...

    def seat_decisions(self, seat: int) -> SeatDecisionsView | None:
        """``seat``'s decisions (None: the shoe could run out during the hand)."""
        ...

    @property
    def edge_key(self) -> Hashable:
        """What the next round's edge depends on: states with equal keys have the same edge."""
        ...

    def edge(self) -> float | None:
        """The next round's player edge (None: the shoe could run out during a round)."""
        ...


@dataclass(frozen=True, slots=True)
class EndedRound:
    """How a round ended: ``result`` holds the cards that decided it, empty when void;
    ``cards`` every card exposed in the round with its role (and seat), when the game records
    them (blackjack's side bets settle on the PLAYER and DEALER cards among them); ``seats``
    each seat's cards its side bets settle on (blackjack: its first two)."""

    round_id: int
    result_index: int
    result: tuple[Card, ...]
    cards: tuple[ExposeCard, ...] = ()
    seats: tuple[SeatView, ...] = ()
    #: Baccarat and Dragon Tiger: each hand's cards of the round (a void round's so far).
    hands: tuple[HandView, ...] = ()

    @property
    def void(self) -> bool:
        return not self.result


@dataclass(frozen=True, slots=True)
class SideBetOutcomeView:
    """One outcome of a fixed-paytable bet: ``ways`` of ``total``, paying ``payout_hundredths``
    to 1, signed (0: a push, the stake back; -50: half the stake lost)."""

    name: str
    ways: int
    total: int
    payout_hundredths: int


@dataclass(frozen=True, slots=True)
class SideBetView:
    """A fixed-paytable bet: its exact ``odds`` (the engine's, kept as they are: every card
    builds every offered bet's view, so what a reader derives is derived when read). ``open``:
    it can be placed now (a round is open for betting and the shoe can deal it);
    ``protected``: game protection closed it for the next round (its RTP at or over the
    table's ``close_at_rtp_bp``); ``main``: a main bet (baccarat's PLAYER, BANKER, TIE;
    Dragon Tiger's DRAGON, TIGER, TIE), which protection never closes and the
    favourable-rounds counter leaves out."""

    bet: str
    odds: SideBetOdds
    open: bool = True
    protected: bool = False
    main: bool = False

    def __reduce__(self) -> tuple[type[SideBetView], tuple[str, SideBetOdds, bool, bool, bool]]:
        """Pickled by its fields, in C: a journal image holds every bet a table shows (50 at
        a baccarat table), and a slotted class's default pickling runs Python for each."""
        return SideBetView, (self.bet, self.odds, self.open, self.protected, self.main)

    @property
    def outcomes(self) -> tuple[SideBetOutcomeView, ...]:
        """Its winning, pushing and half-losing outcomes (``LOSE``, the rest, left out)."""
        return tuple(
            SideBetOutcomeView(name, o.ways, o.total, o.payout_hundredths)
            for name, o in self.odds.outcomes.items()
            if name != "LOSE"
        )

    @property
    def rtp_exact(self) -> Fraction:
        """The return to player, exactly (0 when the shoe cannot deal the bet)."""
        return self.odds.rtp_fraction

    @property
    def rtp(self) -> float:
        odds = self.odds
        # int / int is correctly rounded: the double of the exact ratio, without a Fraction.
        return odds.rtp_numerator / odds.rtp_denominator if odds.rtp_denominator else 0.0

    @property
    def player_favourable(self) -> bool:
        return self.odds.player_favourable


@dataclass(frozen=True, slots=True)
class InsuranceView:
    offered: bool
    probability: float
    rtp: float
    player_favourable: bool


@dataclass(frozen=True, slots=True)
class DealerOutcomesView:
    up_card: str
    rule: str  # "S17" or "H17"
    outcomes: tuple[tuple[str, float], ...]


@dataclass(frozen=True, slots=True)
class GameView:
    """A game state as every game shows it. Prices are the engine's ``BetPrice`` objects."""

    phase: TablePhase
    shoe: int
    round_id: int
    result_index: int
    exposed: tuple[Card, ...]
    cards_remaining: int
    prices: Mapping[str, BetPrice]
    ended: EndedRound | None = None
    side_bets: tuple[SideBetView, ...] = ()
    insurance: InsuranceView | None = None
    dealer_outcomes: DealerOutcomesView | None = None
    seats: tuple[SeatView, ...] = ()  # every seat's PLAYER cards of the current round
    #: The main game's figures this state calls for (blackjack), computed after the event is
    #: acknowledged; None for a game that has none.
    work: LiveWork | None = None
    #: A Quote's main-game figures, computed with it (a table's state never has them here).
    figures: Figures | None = None
    #: Higher/Lower: the card the next result is compared with (None before the first result).
    base_card: Card | None = None
    #: Baccarat and Dragon Tiger: each hand's cards of the round being dealt.
    hands: tuple[HandView, ...] = ()
    #: Baccarat and Dragon Tiger: every bet of the round being dealt, given its cards so far
    #: (empty while betting is open).
    round_odds: tuple[SideBetView, ...] = ()


class RoundOutcome(Protocol):
    """How the round the last event ended went (``pricing.games.hilo.RoundOutcome`` is the model):
    ``result`` is the card (or cards) that decided it, ``None`` when it was void."""

    @property
    def round_id(self) -> int: ...
    @property
    def result_index(self) -> int: ...
    @property
    def result(self) -> Card | tuple[Card, ...] | None: ...


class GameState(Protocol):
    """The shape every engine state has (``pricing.games.hilo.HiLoDeck`` is the model): immutable;
    ``apply`` returns the next state, or raises one of ``pricing.errors``' types
    (``InvalidInput``, ``IllegalMove``) and changes nothing (anything else is a bug: INTERNAL);
    ``outcome`` is the round the last event ended, if it ended one. A state may also have a
    ``result_index`` (Hi-Lo: which result of the deck the open round decides)."""

    @property
    def shoe(self) -> int: ...
    @property
    def round_id(self) -> int: ...
    @property
    def exposed(self) -> tuple[Card, ...]: ...
    @property
    def cards_remaining(self) -> int: ...
    @property
    def prices(self) -> Mapping[str, BetPrice]: ...
    @property
    def phase(self) -> Enum: ...  # named as a TablePhase: OPENING, BETTING, DEALING, …
    @property
    def outcome(self) -> RoundOutcome | None: ...
    def apply(self, event: FeedEvent) -> GameState: ...


def fixed_bet_view(
    bet: str, odds: SideBetOdds, open: bool, *, protected: bool = False, main: bool = False
) -> SideBetView:
    """The view of a fixed-paytable bet's exact odds; ``open``: whether it can be placed now;
    ``protected``: game protection closes it for the next round (then it is not open,
    whatever ``open`` says).

    >>> odds = SideBetOdds.from_ways("TIE", {"WIN": 1}, 10, {"WIN": 800})
    >>> view = fixed_bet_view("TIE", odds, open=True)
    >>> view.rtp_exact, [o.name for o in view.outcomes], view.open
    (Fraction(9, 10), ['WIN'], True)
    """
    return SideBetView(
        bet, odds, open=open and odds.open and not protected, protected=protected, main=main
    )


def standard_view(
    state: GameState,
    *,
    side_bets: tuple[SideBetView, ...] = (),
    insurance: InsuranceView | None = None,
    dealer_outcomes: DealerOutcomesView | None = None,
    seats: tuple[SeatView, ...] = (),
    ended_seats: tuple[SeatView, ...] = (),
    work: LiveWork | None = None,
) -> GameView:
    """The ``GameView`` of any engine state of the shape above; a game adds its extras (an
    outcome may also have ``cards``, the round's cards with their roles; ``ended_seats``: the
    seats' cards of the round the last event ended, in a game with seats)."""
    outcome = state.outcome
    ended = None
    if outcome is not None:
        result = outcome.result
        cards = () if result is None else (result,) if isinstance(result, Card) else result
        round_cards = tuple(getattr(outcome, "cards", ()))
        ended = EndedRound(
            outcome.round_id, outcome.result_index, tuple(cards), round_cards, ended_seats
        )
    return GameView(
        phase=TablePhase[state.phase.name],
        shoe=state.shoe,
        round_id=state.round_id,
        result_index=int(getattr(state, "result_index", 0)),
        exposed=tuple(state.exposed),
        cards_remaining=state.cards_remaining,
        prices=state.prices,
        ended=ended,
        side_bets=side_bets,
        insurance=insurance,
        dealer_outcomes=dealer_outcomes,
        seats=seats,
        work=work,
    )


@dataclass(frozen=True, slots=True)
class SideBetResult:
    """How one seat's fixed-paytable side bet came out: the outcome's name, what it pays in
    hundredths (negative: lost) and the cards it settled on."""

    outcome: str
    payout_hundredths: int
    cards: tuple[Card, ...]
