"""Type stubs for the Cython module ext/pricing/_baccarat.pyx."""

from collections.abc import Sequence

_Pairs = tuple[int, int, int, int]

def cell_ways(
    card_counts: Sequence[int], player: Sequence[int], banker: Sequence[int]
) -> tuple[tuple[int, ...], int]: ...
def round_ways(
    card_counts: Sequence[int],
    player: Sequence[int],
    banker: Sequence[int],
    codes: bytes,
    widths: bytes,
) -> tuple[list[tuple[int, ...]], int, _Pairs, _Pairs]: ...
