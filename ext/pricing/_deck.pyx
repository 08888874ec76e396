# cython: language_level=3
"""Reading cards into counts, shared by every kernel.

A card is counted by its deck index ``(rank - 1) * 4 + suit`` (suits C, D, H, S = 0–3), as in
``pricing.cards``. The kernels are handed cards as given by callers — canonical ``Card``
objects or text in any accepted spelling — and read them here without the cost of Python
hashing or parsing in the common cases: a ``Card`` by its address, plain ASCII text by its two
or three characters; anything else through the full parser, which raises on bad input.
"""

from cpython.dict cimport PyDict_GetItem
from cpython.long cimport PyLong_AsLong
from cpython.object cimport PyObject
from cpython.unicode cimport (
    PyUnicode_1BYTE_DATA,
    PyUnicode_1BYTE_KIND,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
)
from libc.string cimport memset

from pricing.cards import DECK
from pricing.errors import CardNotInShoe, InvalidOption

RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_SYMBOLS = "CDHS"


cdef str card_text(long idx):
    """The canonical text of the card at deck index ``idx``."""
    return RANK_SYMBOLS[idx >> 2] + SUIT_SYMBOLS[idx & 3]


cdef int check_decks(int decks) except -1:
    if not 1 <= decks <= MAX_DECKS:
        raise InvalidOption(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks}")
    return 0


# Identity fast path for the 52 canonical ``Card`` objects: hashing a frozen dataclass runs
# Python code, a look-up of its address in this small open-addressing table does not. The
# tuple is kept here, so the addresses stay those of live cards and are never reused.
cdef enum:
    DECK_SLOTS = 128  # a power of two, well above 52

cdef tuple _DECK = ()
cdef PyObject* _deck_ptr[DECK_SLOTS]
cdef int _deck_idx[DECK_SLOTS]


cdef inline size_t _deck_slot(PyObject* p) noexcept nogil:
    return (<size_t>p >> 4) & (DECK_SLOTS - 1)


cdef inline int _deck_lookup(PyObject* p) noexcept nogil:
    cdef size_t slot = _deck_slot(p)
    while _deck_ptr[slot] != NULL:
        if _deck_ptr[slot] == p:
            return _deck_idx[slot]
        slot = (slot + 1) & (DECK_SLOTS - 1)
    return -1


cdef void _register_deck(tuple deck):
    global _DECK
    cdef size_t slot
    cdef int i
    _DECK = deck
    memset(_deck_ptr, 0, sizeof(_deck_ptr))
    for i in range(N_CARDS):
        slot = _deck_slot(<PyObject*>deck[i])
        while _deck_ptr[slot] != NULL:
            slot = (slot + 1) & (DECK_SLOTS - 1)
        _deck_ptr[slot] = <PyObject*>deck[i]
        _deck_idx[slot] = i


if len(DECK) != N_CARDS:
    raise ImportError(f"pricing.cards.DECK must hold the 52 cards, got {len(DECK)}")
_register_deck(tuple(DECK))


cdef inline int _ascii_index(str text) noexcept:
    """Deck index of a plain ASCII spelling (``AS``, ``10h``, ``Td``), or -1 for anything
    else, which then goes through the full parser (``pricing.cards.parse_card``)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef const unsigned char* data
    cdef int rank, suit
    cdef unsigned char c
    if n < 2 or n > 3 or PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND:
        return -1
    data = <const unsigned char*>PyUnicode_1BYTE_DATA(text)
    c = data[n - 1] | 0x20  # ASCII lower case
    if c == c'c':
        suit = 0
    elif c == c'd':
        suit = 1
    elif c == c'h':
        suit = 2
    elif c == c's':
        suit = 3
    else:
        return -1
    if n == 3:
        if data[0] != c'1' or data[1] != c'0':
            return -1
        return 9 * 4 + suit
    c = data[0]
    if c'2' <= c <= c'9':
        rank = c - c'0'
    else:
        c = c | 0x20
        if c == c'a':
            rank = 1
        elif c == c't':
            rank = 10
        elif c == c'j':
            rank = 11
        elif c == c'q':
            rank = 12
        elif c == c'k':
            rank = 13
        else:
            return -1
    return (rank - 1) * 4 + suit


cdef int card_index_of(object card, dict index, object parse_index) except -1:
    """Deck index of a card: canonical ``Card`` objects by identity, plain ASCII text by a
    direct read of its two or three characters, other text through ``index`` (a borrowed
    look-up), anything else through ``parse_index`` (which raises on bad input)."""
    cdef PyObject* found
    cdef int idx
    if type(card) is str:
        idx = _ascii_index(<str>card)
        if idx >= 0:
            return idx
    else:
        idx = _deck_lookup(<PyObject*>card)
        if idx >= 0:
            return idx
    found = PyDict_GetItem(index, card)
    idx = PyLong_AsLong(<object>found) if found != NULL else parse_index(card)
    if not 0 <= idx < N_CARDS:
        raise ValueError(f"card index must be 0-51, got {idx} for {card!r}")
    return idx


cdef int take_out(object cards, dict index, object parse_index, int decks,
                  int* counts) except -1:
    """Start from a full shoe of ``decks`` decks and take out every card of ``cards``; return
    the number of cards left. Raises ``CardNotInShoe`` naming a card seen more often than the
    shoe holds it (with one deck: seen twice)."""
    cdef int i, idx
    cdef int remaining = N_CARDS * decks
    check_decks(decks)
    for i in range(N_CARDS):
        counts[i] = decks
    for card in cards:
        idx = card_index_of(card, index, parse_index)
        if counts[idx] == 0:
            if decks == 1:
                raise CardNotInShoe(
                    f"card {card_text(idx)} is exposed twice: a deck holds one of each")
            raise CardNotInShoe(
                f"card {card_text(idx)} is not in the shoe: all {decks} of the "
                f"{decks}-deck shoe are already exposed")
        counts[idx] -= 1
        remaining -= 1
    return remaining


def read_indices(object cards, dict index, object parse_index):
    """The deck index of each card (for tests of the fast paths against ``parse_card``)."""
    return [card_index_of(card, index, parse_index) for card in cards]


cdef long long read_counts(object card_counts, int* counts) except -1:
    """Copy a shoe's 52 card counts (0 to MAX_DECKS each, by deck index) into ``counts``; the
    number of cards. ``ValueError`` naming a bad count."""
    cdef long long remaining = 0
    cdef int i
    if len(card_counts) != N_CARDS:
        raise ValueError(f"need 52 card counts, got {len(card_counts)}")
    for i in range(N_CARDS):
        counts[i] = card_counts[i]
        if not 0 <= counts[i] <= MAX_DECKS:
            raise ValueError(f"card count must be 0-{MAX_DECKS}, got {card_counts[i]} for "
                             f"{card_text(i)}")
        remaining += counts[i]
    return remaining
