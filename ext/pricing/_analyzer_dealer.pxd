# cython: language_level=3
"""The analyzer's dealer, for the analyzer's other modules."""

from pricing._analyzer_state cimport Ctx

cdef int _dealer(Ctx* c, double* out) noexcept nogil
cdef int _up_card(Ctx* c, int up_value) except -1
