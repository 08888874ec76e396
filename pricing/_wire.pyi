"""Type stubs for the Cython module ext/pricing/_wire.pyx."""

from collections.abc import Iterable

from pricing.tables.views import SideBetView

def encode_fixed_bets(field: int, views: Iterable[SideBetView]) -> bytes: ...
