"""A blackjack table's rounds over its shoe (docs/rules.md §2, §3): what a table is opened with,
the betting phase of the current round, how a round ended and what each seat's side bets settle
on.

- ``BlackjackOptions``: what a table is opened with (dealer rule, shoe mode, paytables, seats,
  the main game's split rules);
- ``BlackjackRound``: the shoe plus the table's betting phase and how the last round ended.
  A round is open for betting until its first card is dealt (then ``DEALING``); ``EndRound``
  (or ``VoidRound``) ends it and opens the next. The side bets are fixed-paytable bets on the
  round's first cards, so "open at a version" means the round was open for betting then;
- ``RoundOutcome``: the cards of an ended round, each seat's hand among them and what a seat's
  side bet comes to (``RoundOutcome.settle``);
- ``quote``: the odds of a shoe state without a table.

Seats: a table has 1 to ``MAX_SEATS`` player boxes (``BlackjackOptions.seats``, default 7), each
with its own cards and its own side bets. Every PLAYER card names its seat; on a one-seat table
it may be left out (it is then seat 1's).

Settlement (interpretation, docs/rules.md §3.7: the side bets settle on "the player's first two
cards"; a player is a seat): a seat's side bets settle on that seat's first two PLAYER cards,
and Royal Match's Crown Treasure also on the dealer's first two DEALER cards. A seat dealt
fewer than two cards, a ``VoidRound``, and a ``NewShoe`` with cards of the round dealt refund
the stake. The odds of the next round are the same for every seat: one list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from pricing import _blackjack
from pricing.cards import CARD_INDEX, Card, Rank, card_index
from pricing.errors import InvalidInput, InvalidOption
from pricing.games.blackjack import library
from pricing.games.blackjack.bets import InsuranceOdds, insurance
from pricing.games.blackjack.dealer import DealerOdds, dealer_odds
from pricing.games.blackjack.decisions import MAX_SPLITS, HandDecisions, MainGameRules
from pricing.games.blackjack.hands import played_dealer_hand
from pricing.games.blackjack.library import BETS, Deal, Paytable, paytable
from pricing.games.blackjack.live import edge, hand_decisions
from pricing.games.blackjack.rules import DealerRule, ShoeMode
from pricing.games.blackjack.shoe import BlackjackShoe
from pricing.games.events import (
    CardRole,
    EndRound,
    ExposeCard,
    FeedEvent,
    NewShoe,
    VoidRound,
)
from pricing.games.fixed_odds import SideBetOdds, check_close_at_rtp_bp
from pricing.payout import BetPrice

__all__ = [
    "DEFAULT_SIDE_BETS",
    "MAX_SEATS",
    "BlackjackOptions",
    "BlackjackRound",
    "Phase",
    "Quote",
    "RoundOutcome",
    "quote",
    "seat_hands",
]

#: The side bets a blackjack table offers unless it names its own: the seed sheets' two.
DEFAULT_SIDE_BETS: Final[tuple[Paytable, ...]] = (paytable("ROYAL_MATCH"), paytable("PAIRS"))
#: Player boxes at a table: at most 7 (a full blackjack table), 7 when the rules leave it out.
MAX_SEATS: Final = 7
#: The main game's rules when a round is made without a table's (docs/rules.md §3.9).
_MAIN_GAME: Final = MainGameRules()


@dataclass(frozen=True, slots=True)
class BlackjackOptions:
    """A blackjack table's rules, by default those of docs/rules.md (S17, a depleting shoe,
    Royal Match 25 : 1, 2.5 : 1 with Crown Treasure 1000 : 1, Perfect Pairs), its number of
    seats (1 to 7), the side bets it offers (each at most once, in the library's order) and the
    main game's split rules (docs/rules.md §3.9: a split hand may be doubled, a pair split up
    to three times)."""

    rule: DealerRule = DealerRule.S17
    mode: ShoeMode = ShoeMode.DEPLETING
    side_bets: tuple[Paytable, ...] = DEFAULT_SIDE_BETS
    seats: int = MAX_SEATS
    double_after_split: bool = True
    max_splits: int = MAX_SPLITS
    #: Game protection: a side bet at or over this RTP for the next round, in basis points, is
    #: closed for that round (0: off).
    close_at_rtp_bp: int = 0

    def __post_init__(self) -> None:
        check_close_at_rtp_bp(self.close_at_rtp_bp, "blackjack.close_at_rtp_bp")
        # The split rules are checked as the main bet reads them (max_splits 1-3).
        MainGameRules(self.rule, self.double_after_split, self.max_splits)
        names = [table.bet for table in self.side_bets]
        if not names:
            # The wire has no way to say "none" (an empty side_bets map means the defaults).
            raise InvalidOption("a blackjack table offers at least one side bet")
        if len(set(names)) != len(names):
            raise InvalidOption(f"a side bet is offered twice: {', '.join(names)}")
        order = list(BETS)
        object.__setattr__(
            self, "side_bets", tuple(sorted(self.side_bets, key=lambda t: order.index(t.bet)))
        )

    @property
    def main_game(self) -> MainGameRules:
        """The main bet's rules: the table's dealer rule and split rules; surrender against
        2–10 as the rules sheets have it."""
        return MainGameRules(self.rule, self.double_after_split, self.max_splits, surrender=True)

    def paytable(self, bet: str) -> Paytable | None:
        """The table's paytable of ``bet`` (None: not offered)."""
        return next((table for table in self.side_bets if table.bet == bet), None)


class Phase(Enum):
    BETTING = "BETTING"  # no card of the round dealt yet: the side bets are open
    DEALING = "DEALING"  # the round's cards are coming out: bets are closed


def seat_hands(cards: Sequence[ExposeCard], seats: int) -> tuple[tuple[Card, ...], ...]:
    """The PLAYER cards among ``cards`` of every seat 1..``seats``, in the order dealt: seat
    ``n``'s at index ``n - 1`` (a PLAYER card without a seat, on a one-seat table, is seat 1's).

    >>> seat_hands([ExposeCard(Card.parse("AS"), CardRole.PLAYER, 2)], 2)
    ((), (Card.parse('AS'),))
    """
    dealt: dict[int, list[Card]] = {seat: [] for seat in range(1, seats + 1)}
    for e in cards:
        if e.role is CardRole.PLAYER:
            dealt[e.seat or 1].append(e.card)
    return tuple(tuple(hand) for hand in dealt.values())


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
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's first two cards (fewer if it was dealt fewer), seat ``n``'s at index
        ``n - 1``."""
        return tuple(hand[:2] for hand in seat_hands(self.cards, self.seat_count))

    def player(self, seat: int = 1) -> tuple[Card, ...]:
        """``seat``'s first two cards (fewer if it was dealt fewer)."""
        return self.hands[seat - 1]

    @property
    def dealer(self) -> tuple[Card, ...]:
        """The dealer's first two cards (fewer if the round ended sooner)."""
        return tuple(e.card for e in self.cards if e.role is CardRole.DEALER)[:2]

    @property
    def result(self) -> tuple[Card, ...] | None:
        """The cards the side bets settle on: each seat's two (seats dealt fewer left out),
        then the dealer's; ``None`` when no seat's bets can be settled."""
        hands = tuple(c for hand in self.hands if len(hand) == 2 for c in hand)
        if self.voided or not hands:
            return None
        return hands + self.dealer

    def dealer_hand(self, rule: DealerRule) -> tuple[Card, ...]:
        """The dealer's hand as played: the round's DEALER cards up to the one that ended it."""
        cards = tuple(e.card for e in self.cards if e.role is CardRole.DEALER)
        return cards if len(cards) <= 2 else played_dealer_hand(cards, rule)

    def settle(
        self, bet: str, seat: int, options: BlackjackOptions
    ) -> tuple[str, int, tuple[Card, ...]] | None:
        """``seat``'s side bet ``bet`` on its own first two cards and the dealer's cards the
        bet reads: the outcome, what it pays in hundredths (``-100``: lost) and the cards it
        settled on (the seat's two, then the dealer's); ``None`` (refunded) when the bet
        cannot be settled (``SideBet.outcome``)."""
        table = options.paytable(bet)
        if table is None:
            offered = ", ".join(t.bet for t in options.side_bets)
            raise InvalidInput(f"unknown blackjack side bet {bet!r}: expected one of {offered}")
        player = self.player(seat)
        dealer = self.dealer_hand(options.rule)
        settled = library.settle(table, Deal(player, dealer, options.rule))
        if settled is None:
            return None
        name, pays = settled
        read = BETS[bet].dealer_cards
        return name, pays, player + (dealer if read is None else self.dealer[:read])


@dataclass(frozen=True)
class BlackjackRound:
    """The engine's shoe, the betting phase of the current round and how the last event
    ended a round (``outcome``); the table's seats and main-game rules (``main_game``: what
    the main bet's figures are priced under). A pure fold, like the engine's states: every
    transition returns a new state; a rejected event raises and changes nothing."""

    state: BlackjackShoe
    outcome: RoundOutcome | None = None
    seats: int = 1
    main_game: MainGameRules = _MAIN_GAME
    #: Game protection (``BlackjackOptions.close_at_rtp_bp``): read by the table's view.
    close_at_rtp_bp: int = 0

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

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's PLAYER cards of the current round (``seat_hands``)."""
        return seat_hands(self.state.round_exposed, self.seats)

    def apply(self, event: FeedEvent) -> BlackjackRound:
        shoe = self.state
        match event:
            case ExposeCard():
                return self._next(shoe.apply(event), None)
            case EndRound():
                return self._next(shoe.apply(event), self._outcome(voided=False))
            case VoidRound():
                return self._next(shoe.apply(event), self._outcome(voided=True))
            case NewShoe():
                # The engine keeps the round open across a new shoe when none of its cards was
                # dealt (bets on fixed paytables stand); otherwise the round is void.
                outcome = self._outcome(voided=True) if shoe.round_exposed else None
                return self._next(shoe.apply(event), outcome)
        raise InvalidInput(f"unknown event {event!r}")

    def _next(self, shoe: BlackjackShoe, outcome: RoundOutcome | None) -> BlackjackRound:
        return BlackjackRound(shoe, outcome, self.seats, self.main_game)

    def _outcome(self, *, voided: bool) -> RoundOutcome:
        state = self.state
        return RoundOutcome(state.round_id, state.round_exposed, voided, seat_count=self.seats)


@dataclass(frozen=True, slots=True)
class Quote:
    """The odds of one shoe state, without a table: the side bets (and, when asked, the player
    edge) of a round dealt from it and, for a dealer's up card, the dealer's outcomes, (an Ace)
    insurance and (with a player's hand) the hand's decisions. ``player_edge`` is None unless
    asked for, ``player_edge`` and ``decisions`` are None where the shoe could run out."""

    side_bets: Mapping[str, SideBetOdds]
    dealer: DealerOdds | None
    insurance: InsuranceOdds | None
    cards_remaining: int
    player_edge: float | None = None
    decisions: HandDecisions | None = None


def quote(
    options: BlackjackOptions,
    decks: int,
    exposed: Sequence[Card],
    up: Card | None = None,
    hand: Sequence[Card] = (),
    *,
    include_player_edge: bool = False,
) -> Quote:
    """The odds for a shoe of ``decks`` without ``exposed``, ``hand`` and ``up``: the side bets
    of a round dealt from it (and its player edge with ``include_player_edge``: about 0.1 s on
    a full 8-deck shoe, where the rest takes well under a millisecond); for the dealer's ``up``
    card the dealer outcomes and (an Ace) the insurance; and with a player's ``hand`` (two
    cards or more, not busted: ``InvalidInput`` otherwise) its decisions against ``up``, priced
    as dealt (SPLIT on a pair). The shoe mode plays no part: the quote is of one shoe state.

    >>> odds = quote(BlackjackOptions(), 1, [], Card.parse("AS"))
    >>> odds.insurance.fraction, odds.cards_remaining
    (Fraction(16, 51), 51)
    """
    everything = [*exposed, *hand, up] if up is not None else [*exposed, *hand]
    counts = _blackjack.shoe_counts(everything, CARD_INDEX, card_index, decks)
    bets = library.odds(counts, options.rule, options.side_bets)
    dealer = None
    odds = None
    choices = None
    if up is not None:
        dealer = dealer_odds(up, [*exposed, *hand], decks, options.rule)
        if up.rank is Rank.ACE:
            odds = insurance(everything, decks)
        if hand:
            choices = hand_decisions(hand, up, counts, options.main_game)
    elif hand:
        raise InvalidInput("a player's hand is priced against the dealer's up card: send both")
    player_edge = edge(counts, options.main_game) if include_player_edge else None
    return Quote(bets, dealer, odds, 52 * decks - len(everything), player_edge, choices)
