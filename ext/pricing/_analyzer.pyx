# cython: language_level=3
"""Blackjack analyzer kernel: the expected value of each decision of one player hand against the
dealer's up card, from what is left of the shoe (docs/rules.md §3.9).

Step 1, no splitting: STAND, HIT (then playing on by the best of stand and hit on the hand's
exact cards: composition-dependent play) and DOUBLE (one card, then stand). SURRENDER is −0.5
exactly and needs no kernel.

* Cards are merged into ten values (ace, 2 … 9, ten); the shoe is ten integer counts, and every
  draw, the player's and the dealer's, is without replacement from it.
* The player's draws are a recursion over the cards drawn since the hand as given, memoised
  per composition (the multiset of those cards: 5 bits per value in a 64-bit key) within a
  call: the hand's future depends only on which cards it holds, not on their order.
* For every composition the dealer's final result (17–21, BJ, BUST) is computed from the up
  card alone, drawing from the shoe without the player's cards: the order in which player and
  dealer draw does not change the probabilities (exchangeability). The dealer's draws are summed
  level by level over multisets as in ``pricing._blackjack`` (``_draw_levels``), but in
  doubles.
* The EVs are C doubles, as in every combinatorial analyzer: the sums of a call have a few
  thousand terms, each a product of ratios of small integers, so the rounding error stays
  near 1e-15 (the tests hold the kernel to an exact ``Fraction`` reference within 1e-12).

No hole card (docs/rules.md §3.1): when the dealer makes blackjack, every player hand but a
blackjack loses exactly the original wager, busted or doubled; a player blackjack pushes.
"""

cimport cython
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from pricing.errors import IllegalMove

cdef enum:
    N_VALUES = 10
    OUT_BJ = 5
    OUT_BUST = 6
    LEVEL_SLOTS = 1024
    LEVEL_FULL = 768
    ERR_RAN_OUT = 1
    ERR_LEVEL_FULL = 2
    ERR_MEMORY = 3
    PLAYER_BITS = 5

cdef struct DLevel:
    int n
    int slot_entry[LEVEL_SLOTS]  # 1 + entry index, 0 = empty slot
    unsigned long long code[LEVEL_FULL]
    double weight[LEVEL_FULL]
    int hard[LEVEL_FULL]
    bint ace[LEVEL_FULL]

cdef struct Ctx:
    int counts[N_VALUES]  # the shoe now: the player's draws so far already taken out
    int remaining
    int up  # 1 = ace … 10 = ten
    bint h17
    int error
    DLevel* cur
    DLevel* nxt
    # The memo: composition key (never 0: a memoised hand has drawn a card) -> best EV.
    unsigned long long* keys
    double* values
    int cap
    int used
    long dealer_runs


cdef inline void _level_clear(DLevel* level) noexcept nogil:
    level.n = 0
    memset(level.slot_entry, 0, sizeof(level.slot_entry))


cdef inline int _level_add(DLevel* level, unsigned long long code, int hard, bint ace,
                           double weight) noexcept nogil:
    cdef unsigned long long h = (code * 0x9E3779B97F4A7C15ULL) >> 54  # 10 bits
    cdef int e
    while level.slot_entry[h] != 0:
        e = level.slot_entry[h] - 1
        if level.code[e] == code:
            level.weight[e] += weight
            return 0
        h = (h + 1) & (LEVEL_SLOTS - 1)
    if level.n >= LEVEL_FULL:
        return -1
    e = level.n
    level.n += 1
    level.slot_entry[h] = e + 1
    level.code[e] = code
    level.weight[e] = weight
    level.hard[e] = hard
    level.ace[e] = ace
    return 0


@cython.cdivision(True)
cdef int _dealer(Ctx* c, double* out) noexcept nogil:
    """The dealer's final result from the up card over the shoe ``c.counts``: ``out[k]`` the
    probability of 17 + k (k < 5), BJ (5), BUST (6). -1 (``c.error`` set) if the shoe runs out
    before some dealer hand is over."""
    cdef DLevel* cur = c.cur
    cdef DLevel* nxt = c.nxt
    cdef DLevel* swap
    cdef int depth = 0, e, v, avail, new_hard, total, left
    cdef bint ace, soft
    cdef unsigned long long code
    cdef double weight, w, inv
    c.dealer_runs += 1
    for e in range(7):
        out[e] = 0.0
    _level_clear(cur)
    _level_add(cur, 0, c.up, c.up == 1, 1.0)
    while cur.n > 0:
        left = c.remaining - depth
        if left <= 0:
            c.error = ERR_RAN_OUT
            return -1
        inv = 1.0 / left
        _level_clear(nxt)
        for e in range(cur.n):
            code = cur.code[e]
            weight = cur.weight[e] * inv
            for v in range(N_VALUES):
                avail = c.counts[v] - <int>((code >> (4 * v)) & 15)
                if avail <= 0:
                    continue
                w = weight * avail
                new_hard = cur.hard[e] + v + 1
                ace = cur.ace[e] or v == 0
                soft = ace and new_hard + 10 <= 21
                total = new_hard + 10 if soft else new_hard
                if depth == 0 and total == 21:
                    out[OUT_BJ] += w
                elif total > 21:
                    out[OUT_BUST] += w
                elif total > 17 or (total == 17 and not (soft and c.h17)):
                    out[total - 17] += w
                elif _level_add(nxt, code + (1ULL << (4 * v)), new_hard, ace, w) < 0:
                    c.error = ERR_LEVEL_FULL
                    return -1
        swap = cur
        cur = nxt
        nxt = swap
        depth += 1
    return 0


cdef inline double _stand(int total, const double* d) noexcept nogil:
    """The EV of standing on ``total`` (not a blackjack, not busted) against the dealer's
    distribution ``d``: a dealer blackjack takes the wager."""
    cdef double ev = d[OUT_BUST] - d[OUT_BJ]
    cdef int k
    for k in range(5):
        if total > 17 + k:
            ev += d[k]
        elif total < 17 + k:
            ev -= d[k]
    return ev


cdef inline int _total(int hard, bint ace) noexcept nogil:
    return hard + 10 if ace and hard + 10 <= 21 else hard


cdef int _memo_grow(Ctx* c) noexcept nogil:
    cdef int old_cap = c.cap, i
    cdef unsigned long long* old_keys = c.keys
    cdef double* old_values = c.values
    cdef unsigned long long* keys = <unsigned long long*>calloc(2 * old_cap, sizeof(unsigned long long))
    cdef double* values = <double*>malloc(2 * old_cap * sizeof(double))
    if keys == NULL or values == NULL:
        free(keys)
        free(values)
        c.error = ERR_MEMORY
        return -1
    c.keys = keys
    c.values = values
    c.cap = 2 * old_cap
    c.used = 0
    for i in range(old_cap):
        if old_keys[i] != 0:
            _memo_put(c, old_keys[i], old_values[i])
    free(old_keys)
    free(old_values)
    return 0


cdef inline unsigned long long _slot(Ctx* c, unsigned long long key) noexcept nogil:
    return ((key * 0x9E3779B97F4A7C15ULL) >> 20) & <unsigned long long>(c.cap - 1)


cdef inline int _memo_put(Ctx* c, unsigned long long key, double value) noexcept nogil:
    cdef unsigned long long h = _slot(c, key)
    while c.keys[h] != 0:
        h = (h + 1) & <unsigned long long>(c.cap - 1)
    c.keys[h] = key
    c.values[h] = value
    c.used += 1
    if 2 * c.used > c.cap:
        return _memo_grow(c)
    return 0


cdef inline bint _memo_get(Ctx* c, unsigned long long key, double* value) noexcept nogil:
    cdef unsigned long long h = _slot(c, key)
    while c.keys[h] != 0:
        if c.keys[h] == key:
            value[0] = c.values[h]
            return True
        h = (h + 1) & <unsigned long long>(c.cap - 1)
    return False


cdef double _best(Ctx* c, int hard, bint ace, unsigned long long key) noexcept nogil:
    """The EV of a hand (after a hit: no blackjack, no double) played on by the best of stand
    and hit; hitting a 21 is never better (it busts) and is not looked at."""
    cdef double value, hit
    cdef double d[7]
    cdef int total = _total(hard, ace)
    if _memo_get(c, key, &value):
        return value
    if _dealer(c, d) < 0:
        return 0.0
    value = _stand(total, d)
    if total < 21:
        hit = _hit(c, hard, ace, key)
        if hit > value:
            value = hit
    if c.error == 0:
        _memo_put(c, key, value)
    return value


@cython.cdivision(True)
cdef double _hit(Ctx* c, int hard, bint ace, unsigned long long key) noexcept nogil:
    """The EV of taking one card and playing on by the best of stand and hit."""
    cdef int v, n = c.remaining
    cdef double ev = 0.0
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
        ev += (c.counts[v] + 1) * _best(c, hard + v + 1, ace or v == 0,
                                        key + (1ULL << (PLAYER_BITS * v)))
        c.counts[v] += 1
        c.remaining += 1
        if c.error:
            return 0.0
    return ev / n


@cython.cdivision(True)
cdef double _double(Ctx* c, int hard, bint ace) noexcept nogil:
    """The EV of doubling: one card, then stand on a doubled stake; a dealer blackjack takes only
    the original wager, whether the hand busted or not."""
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


def decision_evs(object hand_values, int up_value, object value_counts, bint h17,
                 bint first_two):
    """``(stand, hit, double, compositions)`` for a player hand of card values
    ``hand_values`` (1 = ace … 10 = ten) against an up card of ``up_value``, drawing from a
    shoe of ``value_counts[v - 1]`` cards of value ``v`` (the hand and the up card already out
    of it). ``first_two``: the hand is the seat's first two cards (a blackjack if A + ten,
    doubling allowed). ``hit`` is ``None`` on 21 or a blackjack, ``double`` unless
    ``first_two`` (and not a blackjack); a blackjack's ``stand`` pays 1.5 unless the dealer
    makes one too. ``compositions`` is the number of dealer distributions computed.
    ``IllegalMove`` if the shoe could run out in some line of play; ``ValueError`` for a
    busted hand or bad values."""
    cdef Ctx c
    cdef int hard = 0, v, total
    cdef bint ace = False, blackjack
    cdef double d[7]
    cdef double stand, hit = 0.0, dbl = 0.0
    cdef DLevel* levels
    values = [int(x) for x in hand_values]
    if not values:
        raise ValueError("the hand needs at least one card")
    for x in values:
        if not 1 <= x <= 10:
            raise ValueError(f"card value must be 1-10, got {x}")
        hard += x
        ace = ace or x == 1
    if not 1 <= up_value <= 10:
        raise ValueError(f"up card value must be 1-10, got {up_value}")
    if len(value_counts) != N_VALUES:
        raise ValueError(f"need {N_VALUES} value counts, got {len(value_counts)}")
    if hard > 21:
        raise ValueError(f"the hand is busted (hard {hard})")
    memset(&c, 0, sizeof(Ctx))
    for v in range(N_VALUES):
        c.counts[v] = value_counts[v]
        if c.counts[v] < 0:
            raise ValueError(f"value count must not be negative, got {c.counts[v]}")
        c.remaining += c.counts[v]
    c.up = up_value
    c.h17 = h17
    total = _total(hard, ace)
    blackjack = first_two and len(values) == 2 and total == 21
    first_two = first_two and len(values) == 2
    levels = <DLevel*>malloc(2 * sizeof(DLevel))
    c.cap = 1024
    c.keys = <unsigned long long*>calloc(c.cap, sizeof(unsigned long long))
    c.values = <double*>malloc(c.cap * sizeof(double))
    if levels == NULL or c.keys == NULL or c.values == NULL:
        free(levels)
        free(c.keys)
        free(c.values)
        raise MemoryError()
    c.cur = &levels[0]
    c.nxt = &levels[1]
    with nogil:
        if _dealer(&c, d) == 0:
            if blackjack:
                stand = 1.5 * (1.0 - d[OUT_BJ])
            else:
                stand = _stand(total, d)
                if total < 21:
                    hit = _hit(&c, hard, ace, 0)
                    if first_two:
                        dbl = _double(&c, hard, ace)
    free(levels)
    free(c.keys)
    free(c.values)
    if c.error == ERR_RAN_OUT:
        raise IllegalMove(
            f"the {c.remaining} cards left could run out before the hand and the dealer's "
            "hand are over: the shoe must be reshuffled")
    if c.error == ERR_LEVEL_FULL:
        raise RuntimeError(f"more than {LEVEL_FULL} dealer hands of one length: kernel bound broken")
    if c.error == ERR_MEMORY:
        raise MemoryError()
    return (stand,
            None if blackjack or total >= 21 else hit,
            dbl if first_two and not blackjack and total < 21 else None,
            c.dealer_runs)
