"""Type stubs for the Cython module ext/pricing/_goagae.pyx."""

from collections.abc import Callable, Iterable

from pricing._payout import BetPrice

CATEGORIES: tuple[str, ...]
BETS: tuple[str, ...]
RANK_SYMBOLS: tuple[str, ...]

def n_strengths() -> int: ...
def evaluate_indices(a: int, b: int, c: int) -> tuple[int, int, int]: ...
def hand_counts(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    by_enumeration: bool = False,
) -> tuple[int, tuple[int, ...], tuple[int, ...], int]: ...
def quote_cards(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    rules: tuple[tuple[int, int, int], ...],
) -> dict[str, BetPrice]: ...
def showdown_counts(
    hand: Iterable[object],
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
) -> tuple[int, int, int, int]: ...
def disjoint_tied_pairs() -> int: ...
