# cython: language_level=3
"""The Hi-Lo return-to-player DP, cimportable by other kernels."""

cdef enum:
    N_CLASSES = 5  # LOW_ODD, LOW_EVEN, SEVEN, HIGH_ODD, HIGH_EVEN
    N_RTP_BETS = 5  # LOW, HIGH, ODD, EVEN, SEVEN
    MAX_DECK = 52

cdef int win_tallies(const int* sizes, int burns, int results, long long* tallies) except -1
