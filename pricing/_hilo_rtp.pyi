"""Type stubs for the Cython module ext/pricing/_hilo_rtp.pyx."""

CLASSES: tuple[str, ...]
BETS: tuple[str, ...]

def bet_classes(bet: str) -> tuple[str, ...]: ...
def hilo_win_tallies(
    sizes: tuple[int, ...], burns: int, results: int
) -> tuple[tuple[tuple[int, ...], ...], ...]: ...
