"""Type stubs for the Cython module ext/pricing/_hilo.pyx."""

from collections.abc import Callable, Iterable, Sequence

from pricing._payout import BetPrice

BETS: tuple[str, ...]
RANK_SYMBOLS: tuple[str, ...]

def winning_ranks(bet: str) -> tuple[int, ...]: ...
def quote_cards(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    rules: tuple[tuple[int, int, int], ...],
) -> dict[str, BetPrice]: ...
def quote_rank_counts(
    counts: Sequence[int], rules: tuple[tuple[int, int, int], ...]
) -> dict[str, BetPrice]: ...
def next_card_quotes(
    exposed: Iterable[object],
    index: dict[object, int],
    parse_index: Callable[[object], int],
    rules: tuple[tuple[int, int, int], ...],
) -> dict[str, dict[str, BetPrice]]: ...
