# cython: language_level=3
"""Reading cards into counts, shared by every kernel (``from pricing._deck cimport ...``)."""

cdef enum:
    N_CARDS = 52
    MAX_DECKS = 8

cdef str card_text(long idx)
cdef int check_decks(int decks) except -1
cdef int card_index_of(object card, dict index, object parse_index) except -1
cdef int take_out(object cards, dict index, object parse_index, int decks,
                  int* counts) except -1
cdef long long read_counts(object card_counts, int* counts) except -1
