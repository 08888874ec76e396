# cython: language_level=3
"""Fixed-paytable bets in protobuf's wire format, for ``pricing.wire.state``.

A baccarat table's state carries every bet twice after each card (the next round's odds and
the round's): 50 ``SideBetOdds`` with 3 or 4 outcomes each, every figure with its exact
ratio. Made as Python protobuf messages that is a quarter of a millisecond a card; written
here as the bytes of the repeated field, for the message to merge (upb parses them in C), it
is a tenth of that. The messages (proto/pricing/v1/pricing.proto):

- ``SideBetOdds``: bet 1 (string), outcomes 2 (``SideBetOutcome``), rtp 3 (double),
  player_favourable 4, open 5 (bool), rtp_exact 6 (``Ratio``), closed_by_protection 7 (bool);
- ``SideBetOutcome``: name 1, ways 2, total 3 (uint64, 0 when either passes 64 bits),
  probability 4 (double), payout_hundredths 5 (uint32: the pay when positive),
  probability_exact 6 (``Ratio``), net_payout_hundredths 7 (sint32: the signed pay);
- ``Ratio``: value 1 (double), exact 2 ("numerator/denominator" in lowest terms).

As proto3 writes them: a field at its default (0, false, "") is left out. Doubles are the
exact ratio's correctly rounded value (as Python's ``int / int``). tests/unit/test_wire_bets.py
checks the bytes decode to the messages a plain Python encoder makes, over random odds.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from cpython.bytes cimport PyBytes_FromStringAndSize

from math import gcd

#: Integers up to this are exactly doubles: their quotient is correctly rounded in C too.
cdef uint64_t EXACT_DOUBLE = 1ULL << 53
#: The largest count a ``uint64`` field carries.
cdef object PY_UINT64_MAX = 2**64 - 1

cdef enum:
    VARINT = 0
    FIXED64 = 1
    DELIMITED = 2


cdef struct Buffer:
    unsigned char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int _room(Buffer* b, Py_ssize_t more) except -1:
    cdef Py_ssize_t capacity
    cdef unsigned char* grown
    if b.size + more <= b.capacity:
        return 0
    capacity = max(2 * b.capacity, b.size + more + 256)
    grown = <unsigned char*>realloc(b.data, capacity)
    if grown == NULL:
        raise MemoryError()
    b.data = grown
    b.capacity = capacity
    return 0


cdef int _varint(Buffer* b, uint64_t value) except -1:
    _room(b, 10)
    while value >= 0x80:
        b.data[b.size] = <unsigned char>((value & 0x7F) | 0x80)
        b.size += 1
        value >>= 7
    b.data[b.size] = <unsigned char>value
    b.size += 1
    return 0


cdef int _key(Buffer* b, int field, int wire_type) except -1:
    return _varint(b, (<uint64_t>field << 3) | <uint64_t>wire_type)


cdef int _raw(Buffer* b, const char* data, Py_ssize_t size) except -1:
    _room(b, size)
    memcpy(b.data + b.size, data, size)
    b.size += size
    return 0


cdef int _text(Buffer* b, int field, str text) except -1:
    cdef Py_ssize_t size
    cdef const char* data
    if not text:
        return 0
    data = PyUnicode_AsUTF8AndSize(text, &size)
    _key(b, field, DELIMITED)
    _varint(b, <uint64_t>size)
    return _raw(b, data, size)


cdef int _double(Buffer* b, int field, double value) except -1:
    if value == 0.0:
        return 0
    _key(b, field, FIXED64)
    return _raw(b, <const char*>&value, 8)  # little-endian, as the wire (x86, ARM)


cdef int _flag(Buffer* b, int field, bint value) except -1:
    if value:
        _key(b, field, VARINT)
        _varint(b, 1)
    return 0


cdef int _number(Buffer* b, int field, uint64_t value) except -1:
    if value:
        _key(b, field, VARINT)
        _varint(b, value)
    return 0


cdef int _embedded(Buffer* b, int field, Buffer* inner) except -1:
    """``inner`` as field ``field`` of ``b`` (a message of its own: its length first)."""
    _key(b, field, DELIMITED)
    _varint(b, <uint64_t>inner.size)
    return _raw(b, <const char*>inner.data, inner.size)


cdef uint64_t _gcd(uint64_t a, uint64_t b):
    while b:
        a, b = b, a % b
    return a


cdef int _ratio(Buffer* b, object numerator, object denominator, double* value) except -1:
    """The ``Ratio`` of ``numerator / denominator`` (both whole, at least 0) into ``b`` as a
    message's body, and its double into ``value``: 0 and "0/1" when the denominator is 0."""
    cdef uint64_t n, d, common
    cdef str exact
    if not denominator:
        value[0] = 0.0
        exact = "0/1"
    elif numerator <= PY_UINT64_MAX and denominator <= PY_UINT64_MAX:
        n = numerator
        d = denominator
        common = _gcd(n, d)
        if n < EXACT_DOUBLE and d < EXACT_DOUBLE:
            value[0] = <double>n / <double>d
        else:
            value[0] = numerator / denominator  # Python's int / int: correctly rounded
        exact = f"{n // common}/{d // common}"
    else:
        common_object = gcd(numerator, denominator)
        value[0] = numerator / denominator
        exact = f"{numerator // common_object}/{denominator // common_object}"
    _double(b, 1, value[0])
    return _text(b, 2, exact)


cdef int _outcome(Buffer* b, Buffer* ratio, str name, object outcome) except -1:
    """One ``SideBetOutcome`` body into ``b`` (an ``OutcomeOdds``: ways, total, pay)."""
    cdef double probability
    cdef long pay
    ways, total, pay_object = outcome
    pay = pay_object
    fits = total <= PY_UINT64_MAX
    ratio.size = 0
    _ratio(ratio, ways, total, &probability)
    _text(b, 1, name)
    if fits:
        _number(b, 2, <uint64_t>ways)
        _number(b, 3, <uint64_t>total)
    _double(b, 4, probability)
    _number(b, 5, <uint64_t>pay if pay > 0 else 0)
    _embedded(b, 6, ratio)
    # sint32: zigzag, so that -50 is one byte
    _number(b, 7, <uint64_t>((pay << 1) ^ (pay >> 63)) & 0xFFFFFFFFULL)
    return 0


def encode_fixed_bets(int field, object views):
    """The bytes of repeated field ``field`` holding a ``SideBetOdds`` for each of ``views``
    (``pricing.tables.views.SideBetView``: its bet, the engine's odds, ``open`` and
    ``protected``), for a message's ``MergeFromString``."""
    cdef Buffer out, bet, outcome, ratio
    cdef double rtp
    out.data = bet.data = outcome.data = ratio.data = NULL
    out.size = out.capacity = bet.size = bet.capacity = 0
    outcome.size = outcome.capacity = ratio.size = ratio.capacity = 0
    try:
        for view in views:
            odds = view.odds
            numerator = odds.rtp_numerator
            denominator = odds.rtp_denominator
            bet.size = 0
            _text(&bet, 1, view.bet)
            for name, outcome_odds in odds.outcomes.items():
                if name == "LOSE":  # the rest of the total
                    continue
                outcome.size = 0
                _outcome(&outcome, &ratio, name, outcome_odds)
                _embedded(&bet, 2, &outcome)
            ratio.size = 0
            _ratio(&ratio, numerator, denominator, &rtp)
            _double(&bet, 3, rtp)
            _flag(&bet, 4, numerator > denominator)
            _flag(&bet, 5, view.open)
            _embedded(&bet, 6, &ratio)
            _flag(&bet, 7, view.protected)
            _embedded(&out, field, &bet)
        return PyBytes_FromStringAndSize(<const char*>out.data, out.size)
    finally:
        free(out.data)
        free(bet.data)
        free(outcome.data)
        free(ratio.data)
