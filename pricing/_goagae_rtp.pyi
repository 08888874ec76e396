"""Type stubs for the Cython module ext/pricing/_goagae_rtp.pyx."""

def removal_tallies(
    groups: list[list[tuple[int, int, int]]], removed: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]: ...
