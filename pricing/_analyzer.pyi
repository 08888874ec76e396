"""Type stubs for the Cython module ext/pricing/_analyzer.pyx."""

from collections.abc import Iterable, Sequence

def decision_evs(
    hand_values: Iterable[int],
    up_value: int,
    value_counts: Sequence[int],
    h17: bool,
    first_two: bool,
) -> tuple[float, float | None, float | None, int]: ...
