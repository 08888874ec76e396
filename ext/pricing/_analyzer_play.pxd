# cython: language_level=3
"""The analyzer's player, for the analyzer's other modules."""

from pricing._analyzer_state cimport Ctx

cdef void _memo_clear(Ctx* c) noexcept nogil
cdef double _unsplit(Ctx* c, int hard, bint ace, unsigned long long key,
                     double* stand) noexcept nogil
cdef double _hit(Ctx* c, int hard, bint ace, unsigned long long key, bint fixed,
                 int removed) noexcept nogil
cdef double _double(Ctx* c, int hard, bint ace) noexcept nogil
cdef double _unsplit_double(Ctx* c, int hard, bint ace, unsigned long long key) noexcept nogil
cdef double _fixed(Ctx* c, int hard, bint ace, unsigned long long key, int spot,
                   int removed) noexcept nogil
