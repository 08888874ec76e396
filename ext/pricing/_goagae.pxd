# cython: language_level=3
"""Goa Gae (9K) hand strength, cimportable by other kernels.

``hand_strength(a, b, c)`` is the game's total order (docs/rules.md §4) as one small integer per
hand of three distinct deck indices (``(rank - 1) * 4 + suit``), in any order: a higher
strength beats a lower one, and two hands drawn from one deck never share a strength.
"""

cdef enum:
    N_CARDS = 52
    N_CATEGORIES = 6
    # Categories, lowest first (docs/rules.md §4).
    CAT_POINTS = 0
    CAT_FLUSH = 1
    CAT_STRAIGHT = 2
    CAT_JQK = 3
    CAT_STRAIGHT_FLUSH = 4
    CAT_TRIPLE = 5

cdef unsigned short hand_strength(int a, int b, int c) noexcept nogil
cdef unsigned char strength_category(unsigned short strength) noexcept nogil
