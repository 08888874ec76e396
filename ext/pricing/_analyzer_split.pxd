# cython: language_level=3
"""The analyzer's splits, for the analyzer's entry points."""

from pricing._analyzer_state cimport Ctx

cdef double _split(Ctx* c, int pair, int hands) noexcept nogil
