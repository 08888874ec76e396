# cython: language_level=3
"""Goa Gae return-to-player counting, cimportable by other kernels."""

cdef int convolve_groups(list groups, int max_removed, int max_wins,
                         long long* table) except -1
