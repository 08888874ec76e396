"""Type stubs for the Cython module ext/pricing/_side_bets.pyx."""

from collections.abc import Mapping, Sequence

THREE_CARD_BETS: tuple[str, ...]
TWO_CARD_BETS: tuple[str, ...]
OUTCOMES: Mapping[str, tuple[str, ...]]

_Ways = tuple[tuple[int, ...], int]

def three_card_ways(card_counts: Sequence[int]) -> dict[str, _Ways]: ...
def three_card_outcome(bet: str, seat_a: int, seat_b: int, up: int) -> str: ...
def two_card_ways(card_counts: Sequence[int]) -> dict[str, _Ways]: ...
def two_card_outcome(bet: str, seat_a: int, seat_b: int, dealer: Sequence[int] = ()) -> str: ...
