"""The plain records a table is folded from: what the dealer feed reports.

A table's state is a pure function of its list of events (docs/ARCHITECTURE.md), so these are
immutable values with no behaviour; the games decide what each one means. Every kind the feed
sends is a ``FeedEvent``: declaring its class is what makes it a kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from pricing.cards import Card

__all__ = ["CardRole", "EndRound", "Event", "ExposeCard", "FeedEvent", "NewShoe", "VoidRound"]


class CardRole(Enum):
    """Why a card was exposed. Every exposed card leaves the shoe, whatever its role."""

    BURN = "BURN"
    RESULT = "RESULT"
    PLAYER = "PLAYER"
    DEALER = "DEALER"
    BANKER = "BANKER"  # baccarat's Banker hand (its Player hand's cards are PLAYER)
    DRAGON = "DRAGON"  # Dragon Tiger
    TIGER = "TIGER"


class FeedEvent:
    """The base of every event the dealer feed sends with a ``seq``: a frozen dataclass whose
    fields are those of its proto request (``<Name>Request``, minus ``table_id`` and ``seq``).

    Subclassing registers the kind in ``KINDS``, by class name; the wire mapping
    (``pricing.wire``), the servicer's handlers, the journal's codec and the client derive their
    handling of every kind from it and the proto's ``FeedRequest``, so a new kind is its
    class here, its fold (the game's ``apply``, or ``Table``), and its proto message."""

    __slots__ = ()

    KINDS: ClassVar[dict[str, type[FeedEvent]]] = {}

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        # ``dataclass(slots=True)`` makes a second class of the same name: the last one wins.
        FeedEvent.KINDS[cls.__name__] = cls


@dataclass(frozen=True, slots=True)
class ExposeCard(FeedEvent):
    """A card turned face up. ``seat``: the player box a blackjack PLAYER card was dealt to
    (1 up to the table's seats; 0 on every other card, and on a one-seat table's PLAYER cards,
    where it means seat 1). It is part of the event, so a replayed journal deals it again to
    the same seat."""

    card: Card
    role: CardRole
    seat: int = 0


@dataclass(frozen=True, slots=True)
class VoidRound(FeedEvent):
    """The current betting round is void: its bets are refunded."""


@dataclass(frozen=True, slots=True)
class EndRound(FeedEvent):
    """A round boundary (blackjack, Goa Gae): a continuous shuffler takes the cards back."""


@dataclass(frozen=True, slots=True)
class NewShoe(FeedEvent):
    """A fresh shoe (or deck): every card is back."""


Event = ExposeCard | VoidRound | EndRound | NewShoe
