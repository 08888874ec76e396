# cython: language_level=3
"""The analyzer's player (``pricing._analyzer``): the EVs of a hand's actions on the exact
cards, memoised by composition.

* **Play.** STAND; HIT, then playing on by the better of stand and hit on the exact cards
  (composition-dependent, ``_unsplit``); DOUBLE (one card, then stand on a doubled stake).
* **A strategy fixed in advance** (``_fixed``): a split hand plays the decision best for an
  unsplit hand of the same cards (``_decide`` looks it up in the unsplit memo) or the basic
  strategy's chart, valued on the shoe it really draws from.
* **The memo**: open addressing on 64-bit keys (a composition, 5 bits per value, and a tag
  above for what the entry holds), two doubles per entry.
"""

cimport cython
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from pricing._analyzer_dealer cimport _dealer
from pricing._analyzer_state cimport (
    ACT_DOUBLE, ACT_HIT, ACT_STAND, ERR_MEMORY, ERR_RAN_OUT, SPOT_MORE_CARDS, SPOT_SPLIT_TWO,
    SPOT_UNSPLIT_DOUBLE, TAG_SHIFT, Ctx, _card, _stand, _total,
)
from pricing._dealer cimport N_VALUES, OUT_BJ

# Two CDZ- EVs closer than this are a tie, broken toward standing (then hitting), as the exact
# rule breaks an exact tie: on small shoes exact ties are common (both 0, say), and rounding
# noise of 1e-17 must not pick the side. Rounding errors stay near 1e-15; EVs that truly
# differ by less than 1e-12 would need shoes far beyond eight decks to be that close.
TIE = 1e-12
cdef double _TIE = TIE



cdef inline unsigned long long _tag(int pair, int spot, int removed) noexcept nogil:
    """The memo tag of a hand valued under the strategy: the split's pair value (0 outside a
    split), where the hand is, and the pair cards out beyond its own (the shoe differs by
    each)."""
    return (<unsigned long long>((pair * 4 + spot) * 8 + removed + 1)) << TAG_SHIFT


# ---------------------------------------------------------------------------------------------
# The memo: open addressing on 64-bit keys, two doubles per entry.

cdef inline unsigned long long _slot(Ctx* c, unsigned long long key) noexcept nogil:
    return ((key * 0x9E3779B97F4A7C15ULL) >> 20) & <unsigned long long>(c.cap - 1)


cdef int _memo_grow(Ctx* c) noexcept nogil:
    cdef int old_cap = c.cap, i
    cdef unsigned long long* old_keys = c.keys
    cdef double* old_first = c.first
    cdef double* old_second = c.second
    cdef unsigned long long* keys = <unsigned long long*>calloc(2 * old_cap, sizeof(unsigned long long))
    cdef double* first = <double*>malloc(2 * old_cap * sizeof(double))
    cdef double* second = <double*>malloc(2 * old_cap * sizeof(double))
    if keys == NULL or first == NULL or second == NULL:
        free(keys)
        free(first)
        free(second)
        c.error = ERR_MEMORY
        return -1
    c.keys = keys
    c.first = first
    c.second = second
    c.cap = 2 * old_cap
    c.used = 0
    for i in range(old_cap):
        if old_keys[i] != 0:
            _memo_put(c, old_keys[i], old_first[i], old_second[i])
    free(old_keys)
    free(old_first)
    free(old_second)
    return 0


cdef inline int _memo_put(Ctx* c, unsigned long long key, double first,
                          double second) noexcept nogil:
    cdef unsigned long long h = _slot(c, key)
    while c.keys[h] != 0:
        h = (h + 1) & <unsigned long long>(c.cap - 1)
    c.keys[h] = key
    c.first[h] = first
    c.second[h] = second
    c.used += 1
    if 2 * c.used > c.cap:
        return _memo_grow(c)
    return 0


cdef inline bint _memo_get(Ctx* c, unsigned long long key, double* first,
                           double* second) noexcept nogil:
    cdef unsigned long long h = _slot(c, key)
    while c.keys[h] != 0:
        if c.keys[h] == key:
            first[0] = c.first[h]
            second[0] = c.second[h]
            return True
        h = (h + 1) & <unsigned long long>(c.cap - 1)
    return False


cdef void _memo_clear(Ctx* c) noexcept nogil:
    """Forget every EV and dealer distribution: the base changed."""
    memset(c.keys, 0, c.cap * sizeof(unsigned long long))
    c.used = 0
    memset(c.dkeys, 0, c.dcap * sizeof(unsigned long long))
    c.dused = 0


# ---------------------------------------------------------------------------------------------
# Unsplit play: the composition-dependent EVs, on the shoe ``base - C``.

cdef double _unsplit(Ctx* c, int hard, bint ace, unsigned long long key,
                     double* stand) noexcept nogil:
    """The EV of the hand ``key`` played on by the better of stand and hit (hitting a 21 is
    never better, it busts, and is not looked at); ``stand[0]`` the EV of standing. The shoe
    ``c.counts`` is ``base - C``."""
    cdef double best, hit, other
    cdef double d[7]
    cdef int total = _total(hard, ace)
    if _memo_get(c, key, stand, &best):
        return best
    if _dealer(c, d) < 0:
        stand[0] = 0.0
        return 0.0
    stand[0] = _stand(total, d)
    best = stand[0]
    if total < 21:
        hit = _hit(c, hard, ace, key, False, 0)
        if hit > best:
            best = hit
    if c.error == 0:
        _memo_put(c, key, stand[0], best)
    return best


@cython.cdivision(True)
cdef double _hit(Ctx* c, int hard, bint ace, unsigned long long key, bint fixed,
                 int removed) noexcept nogil:
    """The EV of taking one card, then playing on by the better of stand and hit on the exact
    cards (``_unsplit``), or by the strategy (``fixed``: ``_fixed``, ``removed`` pair cards
    out beyond the hand's)."""
    cdef int v, n = c.remaining
    cdef double ev = 0.0, stand, value
    if n <= 0:
        c.error = ERR_RAN_OUT
        return 0.0
    for v in range(N_VALUES):
        if c.counts[v] == 0:
            continue
        if hard + v + 1 > 21:
            ev -= <double>c.counts[v]
            continue
        c.counts[v] -= 1
        c.remaining -= 1
        if fixed:
            value = _fixed(c, hard + v + 1, ace or v == 0, key + _card(v), SPOT_MORE_CARDS,
                           removed)
        else:
            value = _unsplit(c, hard + v + 1, ace or v == 0, key + _card(v), &stand)
        ev += (c.counts[v] + 1) * value
        c.counts[v] += 1
        c.remaining += 1
        if c.error:
            return 0.0
    return ev / n


@cython.cdivision(True)
cdef double _double(Ctx* c, int hard, bint ace) noexcept nogil:
    """The EV of doubling on the shoe ``c.counts``: one card, then stand on a doubled stake; a
    dealer blackjack takes only the original wager, whether the hand busted or not."""
    cdef int v, n = c.remaining
    cdef double ev = 0.0, one
    cdef double d[7]
    if n <= 0:
        c.error = ERR_RAN_OUT
        return 0.0
    for v in range(N_VALUES):
        if c.counts[v] == 0:
            continue
        c.counts[v] -= 1
        c.remaining -= 1
        if _dealer(c, d) == 0:
            if hard + v + 1 > 21:
                one = -2.0 * (1.0 - d[OUT_BJ]) - d[OUT_BJ]
            else:
                one = 2.0 * (_stand(_total(hard + v + 1, ace or v == 0), d) + d[OUT_BJ]) \
                    - d[OUT_BJ]
            ev += (c.counts[v] + 1) * one
        c.counts[v] += 1
        c.remaining += 1
        if c.error:
            return 0.0
    return ev / n


cdef double _unsplit_double(Ctx* c, int hard, bint ace, unsigned long long key) noexcept nogil:
    """``_double`` of the unsplit hand ``key`` (shoe ``base - C``), memoised."""
    cdef double value, unused
    cdef unsigned long long tagged = key | _tag(0, SPOT_UNSPLIT_DOUBLE, 0)
    if _memo_get(c, tagged, &value, &unused):
        return value
    value = _double(c, hard, ace)
    if c.error == 0:
        _memo_put(c, tagged, value, 0.0)
    return value


# ---------------------------------------------------------------------------------------------
# Play by a strategy fixed in advance: split hands (CDZ- or the chart), basic strategy.

cdef int _decide(Ctx* c, int hard, bint ace, unsigned long long key, int spot,
                 int removed) noexcept nogil:
    """The action (``ACT_*``) the strategy takes on the hand ``key`` at ``spot``, the shoe
    being ``base - C`` less ``removed`` more pair cards. Composition-dependent (no chart): the
    best for an unsplit hand of these cards (stand unless hitting is better; at a split
    hand's two cards double if allowed and better than both), whatever else is out."""
    cdef int total = _total(hard, ace), action, p
    cdef double stand, best, dbl
    if total >= 21 or (spot == SPOT_SPLIT_TWO and c.pair == 1):
        return ACT_STAND  # a 21 stands; split aces take one card
    if c.chart != NULL:
        return c.chart[((spot * 2 + (total != hard)) * 22 + total) * 10 + c.up - 1]
    p = c.pair - 1
    if removed:
        c.counts[p] += removed
        c.remaining += removed
        c.removed = 0
    best = _unsplit(c, hard, ace, key, &stand)
    action = ACT_HIT if best > stand + _TIE else ACT_STAND
    if spot == SPOT_SPLIT_TWO and c.das:
        dbl = _unsplit_double(c, hard, ace, key)
        if dbl > best + _TIE:
            action = ACT_DOUBLE
    if removed:
        c.counts[p] -= removed
        c.remaining -= removed
        c.removed = removed
    return action


@cython.cdivision(True)
cdef double _fixed(Ctx* c, int hard, bint ace, unsigned long long key, int spot,
                   int removed) noexcept nogil:
    """The EV of the hand ``key`` at ``spot`` played by the strategy (``_decide``) on the shoe
    ``c.counts``: ``base - C`` less ``removed`` pair cards (the other split hands')."""
    cdef unsigned long long tagged = key | _tag(c.pair, spot, removed)
    cdef double value, unused
    cdef double d[7]
    cdef int action
    if _memo_get(c, tagged, &value, &unused):
        return value
    action = _decide(c, hard, ace, key, spot, removed)
    if c.error:
        return 0.0
    if action == ACT_STAND:
        if _dealer(c, d) < 0:
            return 0.0
        value = _stand(_total(hard, ace), d)
    elif action == ACT_DOUBLE:
        value = _double(c, hard, ace)
    else:  # ACT_HIT (the chart never surrenders here)
        value = _hit(c, hard, ace, key, True, removed)
    if c.error == 0:
        _memo_put(c, tagged, value, 0.0)
    return value
