# cython: language_level=3
"""The payout rule shared by every dynamic bet (Hi-Lo, Goa Gae categories)."""

cdef class BetPrice:
    cdef readonly str bet
    cdef readonly long long wins
    cdef readonly long long remaining
    cdef readonly double probability
    cdef readonly long long payout_hundredths
    cdef readonly bint open
    cdef readonly bint clamped

cdef long long floor_payout(long long rtp_bp, long long wins, long long total) noexcept nogil

cdef BetPrice make_price(str bet, long long wins, long long total,
                         long long rtp_bp, long long min_h, long long max_h)
