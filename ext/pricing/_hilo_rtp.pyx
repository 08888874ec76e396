# cython: language_level=3
"""Hi-Lo return to player, exactly: the law of every bet's winning-card count at every result
position, over a uniformly shuffled deck, by dynamic programming over deck states.

A Hi-Lo price depends only on how many cards are left (``N``, fixed at each position) and how
many of them win the bet. Every bet wins on a union of five card classes — LOW_ODD (A 3 5),
LOW_EVEN (2 4 6), SEVEN, HIGH_ODD (9 J K), HIGH_EVEN (8 10 Q) — so a deck state is the vector
``r`` of cards of each class already exposed, never an order of cards.

``ways[m][r]``, the number of ``m``-card subsets of the deck exposing ``r``, is built layer by
layer: every ``m``-subset grows into an ``(m + 1)``-subset by one of the ``K_c − r_c`` cards of
each class still in the deck, and every ``(m + 1)``-subset is reached that way from exactly
``m + 1`` of its ``m``-subsets, so

    ways[m + 1][r + e_c] = Σ_c ways[m][r] × (K_c − r_c) / (m + 1)      (an exact division).

The first ``m`` cards of a uniform shuffle are a uniform ``m``-subset, so result position
``k`` (``burns + k − 1`` cards exposed) sees ``r`` with probability ``ways[m][r] / C(D, m)``.
All counts are integers (at most ``53 × C(52, 26)`` < 2^63); ``pricing.analysis`` applies the
payout rule to them and turns them into ``Fraction`` values at the end.
"""

cimport cython
from libc.stdlib cimport calloc, free

CLASSES = ("LOW_ODD", "LOW_EVEN", "SEVEN", "HIGH_ODD", "HIGH_EVEN")
BETS = ("LOW", "HIGH", "ODD", "EVEN", "SEVEN")

# Bit c set when class c wins the bet (BETS order).
cdef int[N_RTP_BETS] BET_CLASSES = [
    0b00011,  # LOW: LOW_ODD, LOW_EVEN
    0b11000,  # HIGH: HIGH_ODD, HIGH_EVEN
    0b01001,  # ODD: LOW_ODD, HIGH_ODD
    0b10010,  # EVEN: LOW_EVEN, HIGH_EVEN
    0b00100,  # SEVEN
]


def bet_classes(str bet):
    """The classes on which ``bet`` wins.

    >>> bet_classes("ODD")
    ('LOW_ODD', 'HIGH_ODD')
    """
    cdef int b = BETS.index(bet)
    return tuple(CLASSES[c] for c in range(N_CLASSES) if BET_CLASSES[b] >> c & 1)


@cython.cdivision(True)  # every operand is >= 0: C division is floor division
cdef int win_tallies(const int* sizes, int burns, int results, long long* tallies) except -1:
    """Fill ``tallies[(k * N_RTP_BETS + b) * (D + 1) + n]`` (zeroed by the caller) with the
    number of ``(burns + k)``-card subsets of the deck after which bet ``b`` has ``n`` winning
    cards left, for positions ``k`` in ``0 … results − 1``.

    One array holds every layer: the states of layer ``m`` are the vectors summing to ``m``,
    so pushing into layer ``m + 1`` never touches the layer being read. A layer's entries hold
    ``m × ways`` until the layer is read, when the division by ``m`` is done.
    """
    cdef int stride[N_CLASSES]
    cdef int r[N_CLASSES]
    cdef int c, b, m, n, k, left, deck = 0
    cdef long long states = 1, i, w
    for c in range(N_CLASSES):
        stride[c] = <int>states
        states *= sizes[c] + 1
        deck += sizes[c]
    cdef long long* ways = <long long*>calloc(states, sizeof(long long))
    if ways == NULL:
        raise MemoryError()
    ways[0] = 1  # no card exposed: one (empty) subset
    try:
        for m in range(burns + results):
            k = m - burns
            for r[0] in range(min(sizes[0], m) + 1):
                for r[1] in range(min(sizes[1], m - r[0]) + 1):
                    for r[2] in range(min(sizes[2], m - r[0] - r[1]) + 1):
                        for r[3] in range(min(sizes[3], m - r[0] - r[1] - r[2]) + 1):
                            left = m - r[0] - r[1] - r[2] - r[3]
                            if left > sizes[4]:
                                continue
                            r[4] = left
                            i = 0
                            for c in range(N_CLASSES):
                                i += r[c] * stride[c]
                            if m > 0:
                                ways[i] //= m
                            w = ways[i]
                            if k >= 0:
                                for b in range(N_RTP_BETS):
                                    n = 0
                                    for c in range(N_CLASSES):
                                        if BET_CLASSES[b] >> c & 1:
                                            n += sizes[c] - r[c]
                                    tallies[(k * N_RTP_BETS + b) * (deck + 1) + n] += w
                            if m + 1 < burns + results:
                                for c in range(N_CLASSES):
                                    if r[c] < sizes[c]:
                                        ways[i + stride[c]] += w * (sizes[c] - r[c])
    finally:
        free(ways)
    return 0


def hilo_win_tallies(tuple sizes, int burns, int results):
    """For each result position ``1 … results`` (``burns`` cards exposed before the first), a
    tuple per bet (``BETS`` order) of the number of exposed-card subsets leaving ``n`` winning
    cards, ``n = 0 … D`` (``D`` = the deck's size, ``sizes`` its cards per class).

    >>> hilo_win_tallies((1, 1, 1, 1, 1), 1, 1)[0][4]  # SEVEN: 1 of 5 one-card burns takes it
    (1, 4, 0, 0, 0, 0)
    """
    cdef int csizes[N_CLASSES]
    cdef int c, k, b, deck = 0
    if len(sizes) != N_CLASSES:
        raise ValueError(f"need {N_CLASSES} class sizes, got {len(sizes)}")
    for c in range(N_CLASSES):
        csizes[c] = sizes[c]
        if csizes[c] < 0:
            raise ValueError(f"class size must be >= 0, got {sizes[c]} for {CLASSES[c]}")
        deck += csizes[c]
    if deck > MAX_DECK:
        raise ValueError(f"a Hi-Lo deck holds at most {MAX_DECK} cards, got {deck}")
    if burns < 0 or results < 0 or burns + results > deck:
        raise ValueError(
            f"need 0 <= burns, 0 <= results and burns + results <= {deck} cards, "
            f"got burns={burns} results={results}")
    cdef long long* tallies = <long long*>calloc(
        max(results, 1) * N_RTP_BETS * (deck + 1), sizeof(long long))
    if tallies == NULL:
        raise MemoryError()
    try:
        win_tallies(csizes, burns, results, tallies)
        return tuple([
            tuple([
                tuple([tallies[(k * N_RTP_BETS + b) * (deck + 1) + c] for c in range(deck + 1)])
                for b in range(N_RTP_BETS)
            ])
            for k in range(results)
        ])
    finally:
        free(tallies)
