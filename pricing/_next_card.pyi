"""Type stubs for the Cython module ext/pricing/_next_card.pyx."""

from collections.abc import Callable, Iterable, Sequence

from pricing._payout import BetPrice

def offer(
    bet: str, wins: int, remaining: int, rule: tuple[int, int, int], close_over_par: bool
) -> BetPrice: ...

class BetSet:
    def __init__(
        self,
        bets: tuple[tuple[str, int, int], ...],
        order: tuple[int, ...],
        rules: tuple[tuple[int, int, int], ...],
        close_over_par: bool,
    ) -> None: ...
    @property
    def names(self) -> tuple[str, ...]: ...
    def price_counts(self, counts: Sequence[int], base: int = -1) -> dict[str, BetPrice]: ...
    def staged_by_rank(
        self,
        exposed: Iterable[object],
        decks: int,
        index: dict[object, int],
        parse_index: Callable[[object], int],
        absent: int = 0,
        base: int = -1,
    ) -> dict[str, dict[str, BetPrice]]: ...
    def quote_cards(
        self,
        exposed: Iterable[object],
        decks: int,
        index: dict[object, int],
        parse_index: Callable[[object], int],
        absent: int = 0,
        base: int = -1,
    ) -> dict[str, BetPrice]: ...
