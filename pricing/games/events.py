"""The plain records a table is folded from: what the dealer feed reports.

A table's state is a pure function of its list of events (DESIGN.md), so these are immutable
values with no behaviour; the games decide what each one means.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pricing.cards import Card

__all__ = ["CardRole", "EndRound", "Event", "ExposeCard", "NewShoe", "VoidRound"]


class CardRole(Enum):
    """Why a card was exposed. Every exposed card leaves the shoe, whatever its role."""

    BURN = "BURN"
    RESULT = "RESULT"
    PLAYER = "PLAYER"
    DEALER = "DEALER"


@dataclass(frozen=True, slots=True)
class ExposeCard:
    """A card turned face up. ``seat``: the player box a blackjack PLAYER card was dealt to
    (1 up to the table's seats; 0 on every other card, and on a one-seat table's PLAYER cards,
    where it means seat 1). It is part of the event, so a replayed journal deals it again to
    the same seat."""

    card: Card
    role: CardRole
    seat: int = 0


@dataclass(frozen=True, slots=True)
class VoidRound:
    """The current betting round is void: its bets are refunded."""


@dataclass(frozen=True, slots=True)
class EndRound:
    """A round boundary (blackjack, Goa Gae): a continuous shuffler takes the cards back."""


@dataclass(frozen=True, slots=True)
class NewShoe:
    """A fresh shoe (or deck): every card is back."""


Event = ExposeCard | VoidRound | EndRound | NewShoe
