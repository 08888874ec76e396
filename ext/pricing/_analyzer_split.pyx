# cython: language_level=3
"""The analyzer's splits (``pricing._analyzer``), by E. Farmer's method for "CDZ-" play: each
split hand is played by the decision best for an unsplit hand of the same cards
(``pricing._analyzer_play``'s ``_fixed``), but valued on the shoe it really draws from, with
the other hands' pair cards out. By exchangeability every hand's EV is the EV of one hand from
the shoe with ``a`` more pair cards and ``b`` more cards known not to be pair cards removed;
removing an unseen card does not change an EV, which gives those with ``b > 0`` from those with
``b = 0`` (``_x_hand``, ``_n_hand``). Summed over the orders in which pair cards can come
(``_orders``: how many hands the split ends with, and how many were complete when the last
resplit came), that is the split's EV; a dealer blackjack takes one unit from the split in all,
not one per hand.
"""

cimport cython
from libc.string cimport memset

from pricing._analyzer_play cimport _fixed
from pricing._analyzer_state cimport ERR_RAN_OUT, MAX_HANDS, SPOT_SPLIT_TWO, Ctx, _card
from pricing._dealer cimport N_VALUES

cdef struct Split:
    int n  # cards in the shoe at the split: base less both pair cards
    int p  # pair cards among them
    double x[2 * MAX_HANDS]  # x[a]: a hand's EV, its second card any, a more pair cards out
    double pp[2 * MAX_HANDS]  # pp[a]: the same hand given its second card is a pair card


@cython.cdivision(True)
cdef double _x_hand(Split* s, int a, int b) noexcept nogil:
    """The EV of a split hand (its second card any, not resplit) with ``a`` more pair cards
    and ``b`` cards known not to be pair cards out: removing an unseen card leaves an EV as it
    is, so ``x(a, b-1) = v x(a+1, b-1) + (1 - v) x(a, b)``, ``v`` the chance it was a pair
    card."""
    cdef double v
    if b == 0:
        return s.x[a]
    v = (s.p - a) / <double>(s.n - a - b + 1)
    if v >= 1.0:
        return 0.0  # no card but pair cards: this line has no chance
    return (_x_hand(s, a, b - 1) - v * _x_hand(s, a + 1, b - 1)) / (1.0 - v)


@cython.cdivision(True)
cdef double _n_hand(Split* s, int a, int b) noexcept nogil:
    """As ``_x_hand``, for a hand whose second card is known not to be a pair card."""
    cdef double v
    if b == 0:
        v = (s.p - a) / <double>(s.n - a)
        if v >= 1.0:
            return 0.0
        return (s.x[a] - v * s.pp[a]) / (1.0 - v)
    v = (s.p - a) / <double>(s.n - a - b)
    if v >= 1.0:
        return 0.0
    return (_n_hand(s, a, b - 1) - v * _n_hand(s, a + 1, b - 1)) / (1.0 - v)


@cython.cdivision(True)
cdef double _order(int n, int p, int pairs, int others) noexcept nogil:
    """The chance of one given order of ``pairs`` pair cards and ``others`` other cards as the
    next second cards, from ``n`` cards of which ``p`` are pair cards."""
    cdef double chance = 1.0
    cdef int i
    for i in range(pairs):
        chance *= (p - i) / <double>(n - i)
    for i in range(others):
        chance *= (n - p - i) / <double>(n - pairs - i)
    return chance


cdef double _orders(Split* s, int hands, int n, int p, bint expected_hands) noexcept nogil:
    """Sum over the ways the split's second cards can come, up to ``hands`` hands: a pair card
    to a hand makes one more hand while there are fewer than ``hands``. Either the split ends
    with ``h < hands`` hands, every second card a non-pair (``h - 1`` orders of them: 1 or 2),
    or it reaches ``hands`` after ``k`` hands were complete (1 order, 2 for four hands once
    ``k > 0``), the other hands' second cards any. ``expected_hands``: the expected number of
    hands instead of the EV (shoe ``n``, ``p``)."""
    cdef double total = 0.0, chance
    cdef int h, k
    for h in range(2, hands):
        chance = (h - 1) * _order(n, p, h - 2, h)
        if expected_hands:
            total += chance * h
        else:
            total += chance * h * _n_hand(s, h - 2, h - 1)
    for k in range(hands - 1):
        chance = (2 if hands == 4 and k > 0 else 1) * _order(n, p, hands - 2, k)
        if expected_hands:
            total += chance * hands
        else:
            if k > 0:
                total += chance * k * _n_hand(s, hands - 2, k - 1)
            total += chance * (hands - k) * _x_hand(s, hands - 2, k)
    return total


@cython.cdivision(True)
cdef double _split(Ctx* c, int pair, int hands) noexcept nogil:
    """The EV of splitting a pair of value ``pair`` into at most ``hands`` hands, the shoe
    ``c.counts`` being the base less both pair cards. Each hand is played by the strategy."""
    cdef Split s
    cdef int a, v, w, p = pair - 1, hole
    cdef unsigned long long key
    cdef double value, ev, blackjack = 0.0
    memset(&s, 0, sizeof(Split))
    s.n = c.remaining
    s.p = c.counts[p]
    if s.n <= 0:
        c.error = ERR_RAN_OUT
        return 0.0
    c.pair = pair
    c.variants = 2 * (hands - 2) + 1
    for a in range(2 * (hands - 2) + 1):
        if a > s.p or s.n - a <= 0:
            break
        c.counts[p] -= a
        c.remaining -= a
        ev = 0.0
        for v in range(N_VALUES):
            w = c.counts[v]
            if w == 0:
                continue
            c.counts[v] -= 1
            c.remaining -= 1
            c.removed = a + 1
            value = _fixed(c, pair + v + 1, pair == 1 or v == 0, _card(p) + _card(v),
                           SPOT_SPLIT_TWO, a + 1)
            c.counts[v] += 1
            c.remaining += 1
            ev += w * value
            if v == p:
                s.pp[a] = value
        s.x[a] = ev / c.remaining
        c.counts[p] += a
        c.remaining += a
        if c.error:
            break
    c.pair = 0
    c.variants = 0
    c.removed = 0
    if c.error:
        return 0.0
    ev = _orders(&s, hands, s.n, s.p, False)
    # Every hand above lost its wager to a dealer blackjack; the split loses one unit in all.
    if c.up == 1 or c.up == 10:
        hole = 9 if c.up == 1 else 0
        if c.counts[hole] > 0:
            blackjack = c.counts[hole] / <double>s.n
            ev += blackjack * (_orders(&s, hands, s.n - 1, s.p - (hole == p), True) - 1.0)
    return ev
