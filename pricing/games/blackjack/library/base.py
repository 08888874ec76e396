"""One side bet of the library: its outcomes, its paytables, how it is counted over a shoe and
how a dealt round settles it (docs/rules.md §3.8).

A bet is a ``SideBet`` (one module per bet in this package, each registered in ``BETS`` by its
name on the wire). Its ``Paytable`` pays each winning outcome a whole number of hundredths of
odds-to-1; the odds of a shoe are the exact ways of each winning outcome out of a common total
(``SideBetOdds``, whose RTP is ``sum(ways × (pays + 100)) / (100 × total)``). Ways and totals
are Python integers: a dealer-drawing bet's common total does not fit 64 bits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from pricing.cards import Card
from pricing.games.blackjack.rules import DealerRule
from pricing.games.fixed_odds import check_entry_pays

__all__ = ["Deal", "Paytable", "SideBet"]


@dataclass(frozen=True, slots=True)
class Paytable:
    """A side bet as a table offers it: the bet, the preset its pays start from, and the pays
    (hundredths of odds-to-1) of each paytable entry, the preset's with any overrides."""

    bet: str
    preset: str
    pays: Mapping[str, int] = field(hash=False)

    def __post_init__(self) -> None:
        check_entry_pays(self.bet, self.pays)


@dataclass(frozen=True, slots=True)
class Deal:
    """What a seat's side bets settle on once its round has ended: the seat's first two cards
    (fewer if it was dealt fewer), the dealer's hand as played (up card first, up to the card
    that ended it: ``played_dealer_hand``), and the table's dealer rule."""

    player: tuple[Card, ...]
    dealer: tuple[Card, ...]
    rule: DealerRule = DealerRule.S17


class SideBet(ABC):
    """One side bet. Subclasses set the class attributes and implement ``ways`` and
    ``outcome``; ``BETS`` holds one instance of each."""

    #: The bet's name on the wire (``HOT_3``).
    name: ClassVar[str]
    #: Every winning outcome, highest award first (only the highest award pays).
    outcomes: ClassVar[tuple[str, ...]]
    #: Preset name → the pays of its paytable entries, in hundredths.
    presets: ClassVar[Mapping[str, Mapping[str, int]]]
    #: The preset a table offering the bet without naming one gets.
    default_preset: ClassVar[str]
    #: Settled on the dealer's finished hand (a round ended before it is finished voids it).
    dealer_drawing: ClassVar[bool] = False
    #: The dealer's cards the bet reads, from the up card on (None: the hand as played): what
    #: a settlement shows beside the seat's two.
    dealer_cards: ClassVar[int | None] = 2

    def outcome_pays(self, paytable: Paytable) -> dict[str, int]:
        """What each winning outcome pays under ``paytable``, in hundredths. By default the
        paytable's entries are the outcomes; a bet whose entries are not (Match the Dealer
        pays per matching card) derives them."""
        return {o: paytable.pays[o] for o in self.outcomes if o in paytable.pays}

    @abstractmethod
    def ways(
        self, counts: Sequence[int], rule: DealerRule, paytable: Paytable
    ) -> tuple[dict[str, int], int]:
        """The exact ways of each winning outcome that ``paytable`` pays (``outcome_pays``'s
        keys) and their common total, for the next round dealt from a shoe holding
        ``counts[i]`` of the card with ``Card.index`` ``i``; total 0 when the shoe cannot deal
        the bet. Fast: it runs after every card, for every bet a table offers."""

    @abstractmethod
    def outcome(self, deal: Deal, paytable: Paytable) -> str | None:
        """The outcome of a finished round under ``paytable`` (one of ``outcome_pays``'s keys,
        or ``"LOSE"``), or ``None`` when the bet is refunded (the seat was dealt fewer than two
        cards; a dealer-drawing bet whose dealer hand is not finished)."""
