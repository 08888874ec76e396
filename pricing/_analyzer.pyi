"""Type stubs for the Cython module ext/pricing/_analyzer.pyx."""

from collections.abc import Iterable, Sequence

TIE: float

def hand_evs(
    hand_values: Iterable[int],
    up_value: int,
    value_counts: Sequence[int],
    h17: bool,
    first_two: bool,
    das: bool,
    max_hands: int,
) -> tuple[float, float | None, float | None, float | None, int]: ...
def edge(
    value_counts: Sequence[int],
    h17: bool,
    das: bool,
    max_hands: int,
    surrender: bool,
    chart: bytes | None,
) -> float: ...
def dealer_variants(enabled: bool) -> bool: ...
