"""Type stubs for the Cython module ext/pricing/_dealer_bust.pyx."""

from collections.abc import Sequence

BUST_IT_OUTCOMES: tuple[str, ...]
BUSTER_OUTCOMES: tuple[str, ...]

_BustIt = tuple[int, int, int, int, int, int, int]
_Buster = tuple[int, int, int, int, int]

def dealer_bust_ways(card_counts: Sequence[int], h17: bool) -> tuple[_BustIt, _Buster, int]: ...
def widest_level(card_counts: Sequence[int], h17: bool) -> int: ...
