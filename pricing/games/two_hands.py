"""Games of two hands dealt from a shoe and decided by their cards alone: baccarat (the Player
and Banker hands, drawn by the tableau, docs/rules.md §7) and Dragon Tiger (one card to each
side, §8). One engine, ``TwoHandShoe``, folds the dealer feed over a ``TwoHandGame``: the
game's two hands, which hand its next card may go to, and its bets' exact odds and settlement.

The round, for both games:

- Betting opens with the shoe (a table's first round is open at once) and after every round.
  A burn while betting is open voids nothing: it leaves the shoe.
- The round's first card for a hand closes betting (``DEALING``); every card for a hand must
  be one the game calls for next (``TwoHandGame.refusal``: ``IllegalMove`` naming the rule,
  nothing changed). A burn while dealing is a card exposed by mistake: it leaves the shoe, the
  hands are as they were.
- The round is decided by the card that completes it (no ``EndRound``): ``outcome`` holds
  both hands, and betting opens on the next round; ``VoidRound`` voids the round, betting or
  dealing, its cards staying out of the shoe; ``NewShoe`` voids a round in progress.
- A round starts only with ``TwoHandGame.min_cards`` cards left (baccarat 6, Dragon Tiger 2):
  with fewer (after a round, or a burn while betting) the shoe is complete (``SHOE_COMPLETE``)
  and only ``NewShoe`` follows.
- A continuous shuffler (``ShoeMode.CONTINUOUS``) takes each round's cards back when the
  round is decided or void: every round is dealt from the full shoe.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import Final, Protocol

from pricing.cards import CARDS_PER_DECK, Card, parse_card
from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput, InvalidOption
from pricing.games.blackjack.rules import ShoeMode, check_decks
from pricing.games.events import CardRole, EndRound, ExposeCard, FeedEvent, NewShoe, VoidRound
from pricing.games.fixed_odds import SideBetOdds, protection_closes
from pricing.payout import BetPrice

__all__ = [
    "Hands",
    "Phase",
    "RoundOutcome",
    "TwoHandGame",
    "TwoHandRules",
    "TwoHandShoe",
    "check_side_bets",
    "describe_rules",
]

#: Each hand's cards of a round, in the order the game names its hands.
Hands = tuple[tuple[Card, ...], tuple[Card, ...]]


class Phase(Enum):
    """Where a shoe is between and within rounds (named as ``TablePhase``)."""

    BETTING = "BETTING"
    DEALING = "DEALING"
    SHOE_COMPLETE = "SHOE_COMPLETE"


class Paytable(Protocol):
    """A bet's paytable at a table, as a game's bets module makes it."""

    @property
    def bet(self) -> str: ...

    @property
    def preset(self) -> str: ...

    @property
    def pays(self) -> Mapping[str, int]: ...


def check_side_bets(side_bets: Sequence[Paytable], main_bets: Sequence[str]) -> None:
    """A table's ``side_bets``: side bets only (the main bets are always offered), each once."""
    names = [table.bet for table in side_bets]
    for name in names:
        if name in main_bets:
            raise InvalidOption(
                f"{name} is a main bet, always offered: side_bets names side bets only",
                field="side_bets",
            )
    if len(set(names)) != len(names):
        raise InvalidOption("a side bet is named twice in side_bets", field="side_bets")


class _DescribedRules(Protocol):
    """What both games' rules objects hold alike."""

    @property
    def tie_pays(self) -> int: ...
    @property
    def close_at_rtp_bp(self) -> int: ...
    @property
    def mode(self) -> ShoeMode: ...
    @property
    def side_bets(self) -> Sequence[Paytable]: ...


def describe_rules(field: str, rules: _DescribedRules) -> dict[str, str]:
    """The options both games' rules have, by their paths in the rules message ``field``:
    the tie's pay, game protection, the shuffle, and each side bet's preset and pays."""
    options = {
        f"{field}.tie_pays": str(rules.tie_pays),
        f"{field}.close_at_rtp_bp": str(rules.close_at_rtp_bp),
        f"{field}.shuffle_mode": f"SHUFFLE_MODE_{rules.mode.value}",
    }
    for table in rules.side_bets:
        pays = " ".join(f"{entry}: {hundredths}" for entry, hundredths in table.pays.items())
        options[f"{field}.side_bets[{table.bet}]"] = f"{table.preset} {{{pays}}}"
    return options


class TwoHandRules(Protocol):
    """What the engine reads of a table's rules (a game's own rules object has more)."""

    @property
    def paytables(self) -> tuple[Paytable, ...]:
        """Every bet the table offers: the main bets first, then the side bets."""
        ...

    @property
    def main_bets(self) -> frozenset[str]:
        """The bets game protection never closes."""
        ...

    @property
    def mode(self) -> ShoeMode: ...

    @property
    def close_at_rtp_bp(self) -> int:
        """Game protection: a side bet whose exact RTP for the next round is at least this
        many basis points is not offered for that round (0: off)."""
        ...


class TwoHandGame(Protocol):
    """A game of two hands: its names, roles and rules of the deal, and its bets' math."""

    @property
    def title(self) -> str: ...

    @property
    def hands(self) -> tuple[str, str]:
        """The hands' names (``PLAYER``, ``BANKER``)."""
        ...

    @property
    def roles(self) -> tuple[CardRole, CardRole]:
        """The card role that deals to each hand."""
        ...

    @property
    def min_cards(self) -> int:
        """Cards a round needs left in the shoe when it starts."""
        ...

    def refusal(self, hands: Hands, hand: int) -> str | None:
        """``None`` when the next card may go to hand ``hand`` (0 or 1); else the rule it breaks."""
        ...

    def is_complete(self, hands: Hands) -> bool: ...

    def odds(
        self, counts: Sequence[int], hands: Hands, paytables: Sequence[Paytable]
    ) -> dict[str, SideBetOdds]:
        """Every bet's exact odds for the round given ``hands`` dealt so far, from the shoe of
        52 card ``counts`` (the dealt cards already out)."""
        ...

    def settle(self, paytable: Paytable, hands: Hands) -> tuple[str, int]:
        """A decided round's outcome for the bet and its signed pay in hundredths."""
        ...


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """How a round ended: ``hands`` as dealt (a void round's so far), ``voided`` when it was
    void; ``cards`` every card of the round with its role (burns included)."""

    round_id: int
    result_index: int
    hands: Hands
    cards: tuple[ExposeCard, ...] = ()
    voided: bool = False

    @property
    def result(self) -> tuple[Card, ...] | None:
        """The cards that decided the round (the first hand's, then the second's); ``None``
        when it was void."""
        return None if self.voided else (*self.hands[0], *self.hands[1])


def _count_out(counts: tuple[int, ...], card: Card) -> tuple[int, ...]:
    out = list(counts)
    out[card.index] -= 1
    return tuple(out)


@dataclass(frozen=True)
class TwoHandShoe:
    """A two-hand game's shoe: a pure fold of the events it accepted (see the module's notes).
    Every transition returns a new state; a rejected event raises and changes nothing."""

    game: TwoHandGame
    rules: TwoHandRules
    decks: int = 8
    shoe: int = 1
    round_id: int = 1
    result_index: int = 1
    exposed: tuple[Card, ...] = ()
    #: Every card since the last round ended with its role, burns included (a burn while
    #: betting, too: a continuous shuffler takes it back with the round's cards).
    round_cards: tuple[ExposeCard, ...] = ()
    phase: Phase = Phase.BETTING
    outcome: RoundOutcome | None = None
    #: Cards left of each of the 52 cards (by ``Card.index``), kept as cards leave.
    counts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __getstate__(self) -> dict[str, object]:
        """What a journal image pickles: the fields, not the odds cached from them (a state's
        odds are computed again when read; its view holds those that were shown)."""
        return {name: value for name, value in self.__dict__.items() if name not in _CACHED}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    def __post_init__(self) -> None:
        check_decks(self.decks)
        if not self.counts:
            counts = [self.decks] * CARDS_PER_DECK
            for card in self.exposed:
                counts[card.index] -= 1
            object.__setattr__(self, "counts", tuple(counts))

    @property
    def cards_remaining(self) -> int:
        return CARDS_PER_DECK * self.decks - len(self.exposed)

    @cached_property
    def hands(self) -> Hands:
        """Each hand's cards of the round in progress."""
        first, second = self.game.roles
        return (
            tuple(e.card for e in self.round_cards if e.role is first),
            tuple(e.card for e in self.round_cards if e.role is second),
        )

    @property
    def prices(self) -> Mapping[str, BetPrice]:
        """No dynamic bet: every bet is a fixed paytable's (``next_round_odds``)."""
        return {}

    @cached_property
    def next_round_counts(self) -> tuple[int, ...]:
        """The shoe the next round is dealt from: the shoe as it is, but while a continuous
        shuffler's round is dealt (its cards go back before the next: the full shoe). While
        betting, a continuous shoe's burns are out of it for the coming round too."""
        if self.rules.mode is ShoeMode.CONTINUOUS and self.phase is Phase.DEALING:
            return (self.decks,) * CARDS_PER_DECK
        return self.counts

    @cached_property
    def next_round_odds(self) -> dict[str, SideBetOdds]:
        """Every offered bet's exact odds for the next round (the shoe as it is now)."""
        counts = self.next_round_counts
        if sum(counts) < self.game.min_cards:
            counts = (0,) * CARDS_PER_DECK  # no round can be dealt: every bet closed
        return self.game.odds(counts, ((), ()), self.rules.paytables)

    @cached_property
    def round_odds(self) -> dict[str, SideBetOdds]:
        """Every bet of the round being dealt, given its cards so far; empty while betting."""
        if self.phase is not Phase.DEALING:
            return {}
        return self.game.odds(self.counts, self.hands, self.rules.paytables)

    def is_protected(self, bet: str, odds: SideBetOdds) -> bool:
        """Game protection: ``bet`` is closed for the next round because its exact RTP is at
        or over ``close_at_rtp_bp`` (main bets never are)."""
        bound = self.rules.close_at_rtp_bp
        return bool(bound) and bet not in self.rules.main_bets and protection_closes(odds, bound)

    # -- transitions --

    def apply(self, event: FeedEvent) -> TwoHandShoe:
        """The state after ``event``."""
        match event:
            case ExposeCard(card=card, role=role, seat=seat):
                if seat:
                    raise InvalidInput(
                        f"seat {seat} was sent for a card: {self.game.title} has no seats (send 0)",
                        field="seat",
                    )
                return self.expose(card, role)
            case EndRound():
                raise IllegalMove(
                    f"{self.game.title} has no EndRound: the card that completes a round "
                    "decides it (VoidRound cancels one)"
                )
            case VoidRound():
                return self.void_round()
            case NewShoe():
                return self.new_shoe()
        raise InvalidInput(f"unknown event {event!r}")

    def expose(self, card: Card | str, role: CardRole) -> TwoHandShoe:
        """A card was turned face up: a burn, or a card for one of the hands."""
        card = parse_card(card)
        roles = self.game.roles
        if role is not CardRole.BURN and role not in roles:
            name = role.name if isinstance(role, CardRole) else repr(role)
            raise InvalidInput(
                f"card role CARD_ROLE_{name} is not used in {self.game.title}: use "
                f"CARD_ROLE_{roles[0].name}, CARD_ROLE_{roles[1].name} or CARD_ROLE_BURN",
                field="role",
            )
        if self.phase is Phase.SHOE_COMPLETE:
            raise IllegalMove(
                f"card {card} rejected: only {self.cards_remaining} cards are left, fewer than "
                f"a round needs ({self.game.min_cards}); start a new shoe"
            )
        if self.counts[card.index] == 0:
            held = "it was already exposed" if self.decks == 1 else f"all {self.decks} are out"
            raise CardNotInShoe(f"card {card} is not in the shoe: {held}")
        if role is CardRole.BURN:
            burnt = replace(
                self,
                exposed=(*self.exposed, card),
                counts=_count_out(self.counts, card),
                round_cards=(*self.round_cards, ExposeCard(card, role)),
                outcome=None,
            )
            if self.phase is Phase.BETTING and burnt.cards_remaining < self.game.min_cards:
                return replace(burnt, phase=Phase.SHOE_COMPLETE)  # no round can be dealt now
            return burnt
        if self.phase is Phase.BETTING and self.cards_remaining < self.game.min_cards:
            raise IllegalMove(
                f"card {card} rejected: only {self.cards_remaining} cards are left, fewer than "
                f"a round needs ({self.game.min_cards}); start a new shoe"
            )
        hand = roles.index(role)
        why = self.game.refusal(self.hands, hand)
        if why is not None:
            raise IllegalMove(f"card {card} for the {self.game.hands[hand]} rejected: {why}")
        dealt = replace(
            self,
            exposed=(*self.exposed, card),
            counts=_count_out(self.counts, card),
            round_cards=(*self.round_cards, ExposeCard(card, role)),
            phase=Phase.DEALING,
            outcome=None,
        )
        if not self.game.is_complete(dealt.hands):
            return dealt
        return dealt._next_round(dealt._outcome(voided=False))

    def void_round(self) -> TwoHandShoe:
        """The current round is void: its bets are refunded; its cards stay out of the shoe
        (a continuous shuffler takes them back)."""
        if self.phase is Phase.SHOE_COMPLETE:
            raise IllegalMove("no round to void: the shoe is complete")
        return self._next_round(self._outcome(voided=True))

    def new_shoe(self) -> TwoHandShoe:
        """A fresh shoe; a round in progress is void."""
        outcome = None if self.phase is Phase.SHOE_COMPLETE else self._outcome(voided=True)
        return TwoHandShoe(
            game=self.game,
            rules=self.rules,
            decks=self.decks,
            shoe=self.shoe + 1,
            round_id=self.round_id + 1,
            outcome=outcome,
        )

    def _outcome(self, *, voided: bool) -> RoundOutcome:
        return RoundOutcome(self.round_id, self.result_index, self.hands, self.round_cards, voided)

    def _next_round(self, outcome: RoundOutcome) -> TwoHandShoe:
        exposed, counts = self.exposed, self.counts
        if self.rules.mode is ShoeMode.CONTINUOUS and self.round_cards:
            # The shuffler takes the round's cards back (its burns too).
            exposed = exposed[: len(exposed) - len(self.round_cards)]
            counts = ()  # recounted from ``exposed``
        state = replace(
            self,
            exposed=exposed,
            counts=counts,
            round_cards=(),
            outcome=outcome,
            round_id=self.round_id + 1,
            result_index=self.result_index + 1,
            phase=Phase.BETTING,
        )
        if state.cards_remaining < self.game.min_cards:
            return replace(state, phase=Phase.SHOE_COMPLETE)
        return state


#: ``TwoHandShoe``'s cached properties: left out of its pickle.
_CACHED: Final = frozenset(
    name for name, member in vars(TwoHandShoe).items() if isinstance(member, cached_property)
)
