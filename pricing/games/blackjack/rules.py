"""The rules a blackjack shoe is dealt by (docs/rules.md §2, §3): what the dealer does on soft
17 (``DealerRule``), how the cards come back (``ShoeMode``) and how many decks the shoe holds
(``check_decks``)."""

from __future__ import annotations

from enum import StrEnum

from pricing.cards import MAX_DECKS
from pricing.errors import InvalidOption
from pricing.payout import is_whole_number

__all__ = ["DealerRule", "ShoeMode", "check_decks"]


def check_decks(decks: object) -> int:
    """``decks`` if it is a whole number of decks a shoe can hold (1 to 8); ``InvalidOption``
    otherwise."""
    if not is_whole_number(decks) or not 1 <= decks <= MAX_DECKS:  # type: ignore[operator]
        raise InvalidOption(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks!r}")
    return decks  # type: ignore[return-value]


class DealerRule(StrEnum):
    """What the dealer does on soft 17 (docs/rules.md §3)."""

    S17 = "S17"  # "Blackjack": stands on all 17s
    H17 = "H17"  # "Hoiana Blackjack": hits soft 17

    @classmethod
    def parse(cls, value: object) -> DealerRule:
        """``DealerRule.parse("h17")`` -> ``DealerRule.H17``; ``InvalidOption`` otherwise."""
        if isinstance(value, DealerRule):
            return value
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        raise InvalidOption(f"unknown dealer rule {value!r}: expected S17 or H17")


class ShoeMode(StrEnum):
    """How cards come back (docs/rules.md §2): never until a new shoe, or after every round."""

    DEPLETING = "DEPLETING"
    CONTINUOUS = "CONTINUOUS"

    @classmethod
    def parse(cls, value: object) -> ShoeMode:
        if isinstance(value, ShoeMode):
            return value
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        raise InvalidOption(f"unknown shoe mode {value!r}: expected DEPLETING or CONTINUOUS")
