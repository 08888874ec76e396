"""Type stubs for the Cython module ext/pricing/_blackjack.pyx."""

from collections.abc import Callable, Iterable, Sequence

DEALER_OUTCOMES: tuple[str, ...]
VALUE_SYMBOLS: tuple[str, ...]

_Ways5 = tuple[int, int, int, int, int]
_Exact = tuple[tuple[int, ...], int]

def shoe_counts(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    decks: int,
) -> tuple[int, ...]: ...
def side_bet_ways(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    decks: int,
) -> tuple[_Ways5, _Ways5]: ...
def side_bet_ways_counts(card_counts: Sequence[int]) -> tuple[_Ways5, _Ways5]: ...
def insurance_ways_counts(card_counts: Sequence[int]) -> tuple[int, int]: ...
def insurance_ways(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    decks: int,
) -> tuple[int, int]: ...
def dealer_exact(
    up: object,
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    decks: int,
    h17: bool,
) -> _Exact: ...
def dealer_exact_counts(up_index: int, card_counts: Sequence[int], h17: bool) -> _Exact: ...
def dealer_exact_hand(
    hand: Iterable[object],
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    decks: int,
    h17: bool,
) -> _Exact: ...
def dealer_exact_hand_counts(
    hand_indices: Iterable[int], card_counts: Sequence[int], h17: bool
) -> _Exact: ...
def dealer_table_counts(card_counts: Sequence[int], h17: bool) -> tuple[_Exact | None, ...]: ...
def dealer_table(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    decks: int,
    h17: bool,
) -> tuple[_Exact | None, ...]: ...
