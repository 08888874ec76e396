"""Type stubs for the Cython module ext/pricing/_analyzer_dealer.pyx (``pricing._analyzer``
re-exports ``dealer_variants``)."""

def dealer_variants(enabled: bool) -> bool: ...
