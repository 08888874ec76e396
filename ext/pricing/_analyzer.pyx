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
  dealer draw does not change the probabilities (exchangeability). The dealer's hands are
  enumerated once per up card and rule (``_Table``: every multiset of drawn cards ending on
  17–21 or BJ, with its number of valid orderings); for a shoe, the distribution is a sum of
  falling-factorial products over that table, shared along a trie (about 1.5 µs against a 2
  on 8 decks, against 12 µs drawing level by level), bust the rest. Near the end of a shoe,
  when the dealer could run short, the draws are summed level by level over multisets as in
  ``pricing._blackjack`` (``_draw_levels``), but in doubles.
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
    MAX_MULT = 16  # a dealer hand holds at most 9 cards of one value (up card 2, nine 2s)
    MAX_DEPTH = 16  # and draws at most 12 cards
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
    # The up card's table of dealer hands (``_Table``), and a buffer of its node products.
    int t_nodes
    int t_terms
    int t_depth
    const int* t_parent
    const int* t_ff
    const int* t_node
    const int* t_slot
    const double* t_coef
    double* prod


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
    if c.prod != NULL and c.remaining >= c.t_depth:
        _dealer_table(c, out)
        return 0
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


cdef class _Table:
    """Every way the dealer's hand can end other than bust, from one up card under one rule, for
    a shoe that never runs short (each card value unlimited): the multisets of drawn cards
    ending on 17–21 or BJ, each with the number of its orderings the dealer can draw (every
    prefix still drawing) and its number of cards. Over a shoe of counts ``n_v`` and ``N``
    cards a multiset ``m`` drawn in one such order has probability
    ``prod_v n_v (n_v - 1) … (n_v - m_v + 1) / (N (N - 1) … (N - |m| + 1))``; the sum over
    the table by outcome is the dealer's distribution, bust the rest, whenever the shoe holds
    at least ``depth`` cards (no dealer hand can then run out). The multisets are a trie over
    (value, multiplicity) steps, tens first, so that each node costs one product per shoe."""

    cdef int n_nodes, n_terms, depth
    cdef int* parent  # node -> parent node (0 = the root, the empty multiset)
    cdef int* ff  # node -> the falling-factorial index of its step: value * MAX_MULT + mult
    cdef int* node  # term -> node
    cdef int* slot  # term -> outcome * MAX_DEPTH + cards
    cdef double* coef  # term -> orderings

    def __cinit__(self, int up, bint h17):
        level = {(0,) * N_VALUES: (1, up, up == 1)}
        terms = {}
        depth = 0
        cards = 0
        while level:
            nxt = {}
            for code, (w, hard, ace) in level.items():
                for v in range(N_VALUES):
                    drawn = list(code)
                    drawn[v] += 1
                    key = tuple(drawn)
                    new_hard = hard + v + 1
                    new_ace = ace or v == 0
                    soft = new_ace and new_hard + 10 <= 21
                    total = new_hard + 10 if soft else new_hard
                    if depth == 0 and total == 21:
                        terms[key, OUT_BJ] = terms.get((key, OUT_BJ), 0) + w
                    elif total > 21:
                        cards = max(cards, depth + 1)
                    elif total > 17 or (total == 17 and not (soft and h17)):
                        terms[key, total - 17] = terms.get((key, total - 17), 0) + w
                    else:
                        prior = nxt.get(key)
                        nxt[key] = (w + (prior[0] if prior else 0), new_hard, new_ace)
            level = nxt
            depth += 1
        cards = max(cards, max(sum(key) for key, _ in terms))
        assert cards < MAX_DEPTH
        nodes = {(): 0}
        parents = [0]
        steps = [0]
        rows = []
        for key, outcome in sorted(terms, key=lambda t: tuple(-x for x in reversed(t[0]))):
            path = ()
            for v in reversed(range(N_VALUES)):
                if key[v]:
                    assert key[v] < MAX_MULT
                    step = path + ((v, key[v]),)
                    if step not in nodes:
                        nodes[step] = len(parents)
                        parents.append(nodes[path])
                        steps.append(v * MAX_MULT + key[v])
                    path = step
            rows.append((nodes[path], outcome * MAX_DEPTH + sum(key), terms[key, outcome]))
        self.n_nodes = len(parents)
        self.n_terms = len(rows)
        self.depth = cards
        self.parent = <int*>malloc(self.n_nodes * sizeof(int))
        self.ff = <int*>malloc(self.n_nodes * sizeof(int))
        self.node = <int*>malloc(self.n_terms * sizeof(int))
        self.slot = <int*>malloc(self.n_terms * sizeof(int))
        self.coef = <double*>malloc(self.n_terms * sizeof(double))
        if not (self.parent and self.ff and self.node and self.slot and self.coef):
            raise MemoryError()
        for i in range(self.n_nodes):
            self.parent[i] = parents[i]
            self.ff[i] = steps[i]
        for i, (n, sl, w) in enumerate(rows):
            self.node[i] = n
            self.slot[i] = sl
            self.coef[i] = w

    def __dealloc__(self):
        free(self.parent)
        free(self.ff)
        free(self.node)
        free(self.slot)
        free(self.coef)


_TABLES: dict[tuple[int, bool], _Table] = {}


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef void _dealer_table(Ctx* c, double* out) noexcept nogil:
    """``_dealer`` by the up card's ``_Table`` (the shoe holds at least its depth)."""
    cdef double ff[N_VALUES * MAX_MULT]
    cdef double acc[7 * MAX_DEPTH]
    cdef double* prod = c.prod
    cdef double falling, rest
    cdef int v, m, i, k
    for v in range(N_VALUES):
        falling = 1.0
        ff[v * MAX_MULT] = 1.0
        for m in range(1, MAX_MULT):
            falling *= c.counts[v] - m + 1
            ff[v * MAX_MULT + m] = falling
    memset(acc, 0, sizeof(acc))
    prod[0] = 1.0
    for i in range(1, c.t_nodes):
        prod[i] = prod[c.t_parent[i]] * ff[c.t_ff[i]]
    for i in range(c.t_terms):
        acc[c.t_slot[i]] += c.t_coef[i] * prod[c.t_node[i]]
    rest = 1.0
    for m in range(OUT_BUST):
        out[m] = 0.0
    falling = 1.0
    for k in range(1, c.t_depth + 1):
        falling *= c.remaining - k + 1
        for m in range(OUT_BUST):
            out[m] += acc[m * MAX_DEPTH + k] / falling
    for m in range(OUT_BUST):
        rest -= out[m]
    out[OUT_BUST] = rest


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
    cdef double stand = 0.0, hit = 0.0, dbl = 0.0
    cdef DLevel* levels
    cdef _Table table
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
    table = _TABLES.get((up_value, bool(h17)))
    if table is None:
        table = _TABLES[up_value, bool(h17)] = _Table(up_value, h17)
    c.t_nodes = table.n_nodes
    c.t_terms = table.n_terms
    c.t_depth = table.depth
    c.t_parent = table.parent
    c.t_ff = table.ff
    c.t_node = table.node
    c.t_slot = table.slot
    c.t_coef = table.coef
    total = _total(hard, ace)
    blackjack = first_two and len(values) == 2 and total == 21
    first_two = first_two and len(values) == 2
    levels = <DLevel*>malloc(2 * sizeof(DLevel))
    c.cap = 1024
    c.keys = <unsigned long long*>calloc(c.cap, sizeof(unsigned long long))
    c.values = <double*>malloc(c.cap * sizeof(double))
    c.prod = <double*>malloc(c.t_nodes * sizeof(double))
    if levels == NULL or c.keys == NULL or c.values == NULL or c.prod == NULL:
        free(levels)
        free(c.keys)
        free(c.values)
        free(c.prod)
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
    free(c.prod)
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
