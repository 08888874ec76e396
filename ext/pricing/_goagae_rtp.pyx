# cython: language_level=3
"""Goa Gae return to player over rounds dealt from one deck: the law of a category bet's
winning-hand count after ``m`` cards of the deck are gone, by convolution over independent
groups of cards.

For the bets whose winning hands never mix groups — TRIPLE (groups: the ranks), STRAIGHT_FLUSH
and FLUSH (the suits), JQK (the J/Q/K cards, and the rest contributing nothing) — the count is
a sum over groups of what each group keeps. ``pricing.analysis.goagae`` enumerates, per group,
the subsets it can keep as ``(removed, wins, ways)`` tallies; this kernel convolves them into
``table[removed][wins]``, the number of ways to remove ``removed`` cards of the deck leaving
``wins`` winning hands. The first ``m`` cards of a uniform shuffle are a uniform ``m``-subset,
so row ``m`` is the law of the bet's count at a round opening with ``m`` cards gone.
"""

from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset


cdef int convolve_groups(list groups, int max_removed, int max_wins,
                         long long* table) except -1:
    """``table`` ((max_removed + 1) × (max_wins + 1), zeroed by the caller) receives the
    convolution of ``groups``: lists of ``(removed, wins, ways)``."""
    cdef long long width = max_wins + 1
    cdef long long size = (max_removed + 1) * width
    cdef long long* acc = <long long*>calloc(size, sizeof(long long))
    cdef long long ways
    cdef int t, w, dt, dw, i, n
    cdef tuple entry
    if acc == NULL:
        raise MemoryError()
    try:
        table[0] = 1
        for group in groups:
            memset(acc, 0, size * sizeof(long long))
            n = len(group)
            for i in range(n):
                entry = <tuple>group[i]
                dt = entry[0]
                dw = entry[1]
                ways = entry[2]
                if dt > max_removed or dw > max_wins:
                    raise ValueError(f"group entry {entry} is outside the table")
                for t in range(max_removed + 1 - dt):
                    for w in range(max_wins + 1 - dw):
                        if table[t * width + w]:
                            acc[(t + dt) * width + w + dw] += table[t * width + w] * ways
            memcpy(table, acc, size * sizeof(long long))
    finally:
        free(acc)
    return 0


def removal_tallies(list groups, tuple removed):
    """For each ``m`` of ``removed``, the tuple of ways (indexed by wins) to remove ``m`` cards
    of the deck made of ``groups`` (each a list of ``(removed, wins, ways)``).

    >>> removal_tallies([[(0, 1, 1), (1, 0, 3)], [(0, 0, 1), (1, 0, 2)]], (0, 1, 2))
    ((0, 1), (3, 2), (6, 0))
    """
    cdef int max_removed = 0, max_wins = 0, m, w
    for group in groups:
        max_removed += max(entry[0] for entry in group)
        max_wins += max(entry[1] for entry in group)
    if any(m < 0 or m > max_removed for m in removed):
        raise ValueError(f"removed counts must be in 0..{max_removed}, got {removed}")
    cdef long long width = max_wins + 1
    cdef long long* table = <long long*>calloc((max_removed + 1) * width, sizeof(long long))
    if table == NULL:
        raise MemoryError()
    try:
        convolve_groups(groups, max_removed, max_wins, table)
        return tuple([tuple([table[m * width + w] for w in range(max_wins + 1)])
                      for m in removed])
    finally:
        free(table)
