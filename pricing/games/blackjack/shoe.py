"""The shoe of a live blackjack table, ``BlackjackShoe``: a pure state machine folded from
``pricing.games.events`` (a depleting shoe or a continuous shuffle, 1–8 decks), with the odds
of each state (side bets and dealer table for the next round, insurance and the dealer's
outcomes in the current one).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from pricing import _blackjack
from pricing.cards import CARD_INDEX, DECK, Card, Rank, card_index, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput
from pricing.games.blackjack import library
from pricing.games.blackjack.bets import InsuranceOdds
from pricing.games.blackjack.dealer import DealerOdds, dealer_table_from_rows, up_value
from pricing.games.blackjack.hands import dealer_hand_result, played_dealer_hand
from pricing.games.blackjack.library import Paytable, paytable
from pricing.games.blackjack.rules import DealerRule, ShoeMode, check_decks
from pricing.games.events import (
    CardRole,
    EndRound,
    ExposeCard,
    FeedEvent,
    NewShoe,
    VoidRound,
)
from pricing.games.fixed_odds import SideBetOdds

__all__ = ["BlackjackShoe"]


@dataclass(frozen=True)
class BlackjackShoe:
    """The state of a blackjack table's shoe: a pure fold of the events it accepted.

    ``exposed`` holds the cards out of the shoe now, ``round_exposed`` the cards (and roles)
    seen in the current round. In a ``DEPLETING`` shoe cards stay out until ``NewShoe``; in a
    ``CONTINUOUS`` shuffle the round's cards go back at its end (``EndRound``), so the next
    round is always dealt from a full shoe. ``round_id`` counts rounds from 1 and moves on at
    each round boundary. Every transition returns a new state; a rejected event raises and
    changes nothing.

    >>> state = BlackjackShoe(decks=1)
    >>> for text, role in [("AS", CardRole.DEALER), ("KS", CardRole.PLAYER)]:
    ...     state = state.apply(ExposeCard(parse_card(text), role))
    >>> state.dealer_up, state.cards_remaining, state.insurance.fraction
    (Card.parse('AS'), 50, Fraction(3, 10))
    >>> state = state.apply(EndRound())
    >>> state.round_id, state.round_exposed, len(state.exposed)
    (2, (), 2)
    >>> state.apply(ExposeCard(parse_card("AS"), CardRole.PLAYER))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.CardNotInShoe: card AS is not in the shoe: all 1 of the 1-deck shoe are ...
    """

    decks: int = 6
    rule: DealerRule = DealerRule.S17
    mode: ShoeMode = ShoeMode.DEPLETING
    #: The side bets priced for the next round (the library's ``Paytable``s).
    side_bets_offered: tuple[Paytable, ...] = (paytable("ROYAL_MATCH"), paytable("PAIRS"))
    shoe: int = 1
    round_id: int = 1
    exposed: tuple[Card, ...] = ()
    round_exposed: tuple[ExposeCard, ...] = ()
    #: Cards left of each of the 52 cards (by ``Card.index``): derived from ``exposed``.
    counts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_decks(self.decks)
        object.__setattr__(self, "rule", DealerRule.parse(self.rule))
        object.__setattr__(self, "mode", ShoeMode.parse(self.mode))
        counts = _blackjack.shoe_counts(self.exposed, CARD_INDEX, card_index, self.decks)
        object.__setattr__(self, "counts", counts)

    # -- derived views (computed once per state) --

    @property
    def cards_remaining(self) -> int:
        return 52 * self.decks - len(self.exposed)

    @property
    def round_cards(self) -> tuple[Card, ...]:
        return tuple(e.card for e in self.round_exposed)

    @cached_property
    def dealer_cards(self) -> tuple[Card, ...]:
        """Every DEALER card of the round, in the order dealt."""
        return tuple(e.card for e in self.round_exposed if e.role is CardRole.DEALER)

    @cached_property
    def dealer_hand(self) -> tuple[Card, ...]:
        """The dealer's hand: the round's DEALER cards up to the one that ends the hand
        (``played_dealer_hand``: a DEALER card after that is a burn, an interpretation)."""
        cards = self.dealer_cards
        if len(cards) <= 2:  # a one-card hand always draws: both cards are the hand's
            return cards
        return played_dealer_hand(cards, self.rule)

    @cached_property
    def dealer_up(self) -> Card | None:
        """The dealer's up card: the first DEALER card of the round."""
        cards = self.dealer_cards
        return cards[0] if cards else None

    @property
    def dealer_result(self) -> str | None:
        """The dealer's final result once the hand is over (``dealer_hand_result``)."""
        return dealer_hand_result(self.dealer_hand, self.rule)

    @property
    def next_round_exposed(self) -> tuple[Card, ...]:
        """The cards that will still be out of the shoe when the next round is dealt."""
        if self.mode is ShoeMode.CONTINUOUS:
            return self.exposed[: len(self.exposed) - len(self.round_exposed)]
        return self.exposed

    @cached_property
    def next_round_counts(self) -> tuple[int, ...]:
        """The shoe the NEXT round is dealt from: each card's count by ``Card.index``."""
        if self.mode is ShoeMode.DEPLETING:
            return self.counts
        exposed = self.next_round_exposed
        return _blackjack.shoe_counts(exposed, CARD_INDEX, card_index, self.decks)

    @cached_property
    def side_bets(self) -> dict[str, SideBetOdds]:
        """The offered side bets' odds for the NEXT round (``library.odds``)."""
        return library.odds(self.next_round_counts, self.rule, self.side_bets_offered)

    @cached_property
    def insurance(self) -> InsuranceOdds | None:
        """Insurance odds while the dealer's only card is an Ace, else ``None``.

        docs/rules.md §3.4: offered when the dealer's card is an Ace, it pays 2 : 1 if the
        dealer makes blackjack; §3.1: the dealer takes one card at the deal (no hole card).
        Interpretation: the insurance decision is only open until the dealer's second card;
        once it is out, blackjack is made or missed and there is nothing left to insure (a
        table shows no insurance from then on). The odds are those of the dealer's second card
        being a ten-value card, drawn from the shoe as it is now (player cards seen since the
        Ace removed: see the package's notes)."""
        cards = self.dealer_cards
        if len(cards) != 1 or cards[0].rank is not Rank.ACE or self.cards_remaining == 0:
            return None
        return InsuranceOdds(*_blackjack.insurance_ways_counts(self.counts))

    @cached_property
    def dealer_outcomes(self) -> DealerOdds | None:
        """The dealer's outcomes given the dealer's hand so far (``dealer_hand``: the up card
        and every later DEALER card), the rest drawn from the shoe as it is now (every card
        seen removed); a point mass on the result once the hand is over (stands by the
        table's rule, busts, or is a blackjack). ``None`` before the up card, or when the shoe
        could not complete a dealer hand."""
        hand = self.dealer_hand
        if not hand:
            return None
        try:
            exact = _blackjack.dealer_exact_hand_counts(
                [c.index for c in hand], self.counts, self.rule is DealerRule.H17
            )
        except IllegalMove:
            return None
        return DealerOdds.from_exact(up_value(hand[0]), self.rule, exact)

    @cached_property
    def next_dealer_table(self) -> dict[str, DealerOdds | None]:
        """``dealer_table`` for the NEXT round under the shoe's rule: the dealer's outcomes
        for each up-card value."""
        rows = _blackjack.dealer_table_counts(self.next_round_counts, self.rule is DealerRule.H17)
        return dealer_table_from_rows(rows, self.rule)

    @property
    def favourable(self) -> tuple[str, ...]:
        """The bets that are player-favourable now: the alert list."""
        bets = [name for name, odds in self.side_bets.items() if odds.player_favourable]
        if self.insurance is not None and self.insurance.player_favourable:
            bets.append("INSURANCE")
        return tuple(bets)

    # -- transitions --

    def apply(self, event: FeedEvent) -> BlackjackShoe:
        """The state after ``event``: ``ExposeCard`` (PLAYER, DEALER or BURN; RESULT is not a
        blackjack role), ``EndRound``, ``VoidRound`` (a round boundary like ``EndRound``: the
        refund is the table's business, the cards seen stay seen) or ``NewShoe``."""
        match event:
            case ExposeCard(card=card, role=role, seat=seat):
                return self.expose(card, role, seat)
            case EndRound():
                return self.end_round()
            case VoidRound():
                return self.end_round()
            case NewShoe():
                return self.new_shoe()
        raise InvalidInput(f"unknown event {event!r}")

    def expose(self, card: Card | str, role: CardRole, seat: int = 0) -> BlackjackShoe:
        """A card was turned face up: it leaves the shoe, whatever its role. ``seat`` (which
        player box a PLAYER card went to) is kept with it in ``round_exposed``; the odds do not
        depend on it, and the table checks it."""
        if not isinstance(role, CardRole) or role is CardRole.RESULT:
            raise InvalidInput(
                f"card role CARD_ROLE_{getattr(role, 'name', role)} is not used in blackjack: "
                "use CARD_ROLE_PLAYER, CARD_ROLE_DEALER or CARD_ROLE_BURN",
                field="role",
            )
        card = DECK[parse_card(card).index]  # the canonical object: the kernel reads it fastest
        if self.counts[card.index] == 0:
            raise CardNotInShoe(
                f"card {card} is not in the shoe: all {self.decks} of the "
                f"{self.decks}-deck shoe are already exposed"
            )
        return replace(
            self,
            exposed=(*self.exposed, card),
            round_exposed=(*self.round_exposed, ExposeCard(card, role, seat)),
        )

    def end_round(self) -> BlackjackShoe:
        """The round is over (or void: its cards are treated alike). A continuous shuffler
        takes the round's cards back."""
        return replace(
            self,
            round_id=self.round_id + 1,
            exposed=self.next_round_exposed,
            round_exposed=(),
        )

    def new_shoe(self) -> BlackjackShoe:
        """A fresh shoe: every card is back. A round with cards dealt is over (void)."""
        return replace(
            self,
            shoe=self.shoe + 1,
            round_id=self.round_id + 1 if self.round_exposed else self.round_id,
            exposed=(),
            round_exposed=(),
        )
