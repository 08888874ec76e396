"""Type stubs for the Cython module ext/pricing/_analyzer_play.pyx (``pricing._analyzer``
re-exports ``TIE``)."""

TIE: float
