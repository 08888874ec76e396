# cython: language_level=3
"""The analyzer's dealer (``pricing._analyzer``): the dealer's final result from the up card
over the shoe a player hand leaves, as doubles, for every composition the analysis meets.

* The dealer's hands are enumerated once per up card and rule (``_Table``, drawn level by level
  with ``pricing._dealer``): every multiset of drawn cards ending on 17–21 or BJ, with its
  number of valid orderings. For a shoe the distribution is a sum of falling-factorial products
  over that table, shared along a trie (about 1.5 µs against a 2 on 8 decks), bust the rest.
* A split's shoes with more pair cards out come in one pass over the table
  (``_dealer_variants``), and every distribution is cached by the cards out of the base.
* Near the end of a shoe, when the dealer could run short, the draws are summed level by level
  over multisets (``pricing._dealer``), in probabilities.
"""

cimport cython
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from pricing._analyzer_state cimport (
    ERR_LEVEL_FULL, ERR_RAN_OUT, MAX_DEPTH, MAX_MULT, PLAYER_BITS, Ctx,
)
from pricing._dealer cimport (
    LEVEL_FULL, N_OUTCOMES, N_VALUES, OUT_BJ, OUT_BUST, Level, dealer_outcome, level_add,
    level_clear, level_draw, u128, u128_to_int,
)


cdef bint _VARIANTS = True


def dealer_variants(bint enabled):
    """Whether a split's dealer distributions are computed together (the default) or one by
    one; the previous setting. Both give the same EVs: the tests compare them."""
    global _VARIANTS
    previous = _VARIANTS
    _VARIANTS = enabled
    return previous


cdef inline unsigned long long _removal_key(Ctx* c) noexcept nogil:
    """The cards out of the base, as a key (5 bits per value, and a bit that is never 0)."""
    cdef unsigned long long key = 1ULL << 63
    cdef int v
    for v in range(N_VALUES):
        key |= (<unsigned long long>(c.base[v] - c.counts[v])) << (PLAYER_BITS * v)
    return key


cdef inline double* _cached(Ctx* c, unsigned long long key,
                            unsigned long long* slot) noexcept nogil:
    """The cached distribution of ``key``, or NULL with ``slot`` where it would go."""
    cdef unsigned long long h = ((key * 0x9E3779B97F4A7C15ULL) >> 20) & <unsigned long long>(c.dcap - 1)
    while c.dkeys[h] != 0:
        if c.dkeys[h] == key:
            return &c.dists[7 * h]
        h = (h + 1) & <unsigned long long>(c.dcap - 1)
    slot[0] = h
    return NULL


cdef inline void _cache(Ctx* c, unsigned long long key, unsigned long long slot,
                        const double* out) noexcept nogil:
    if 2 * (c.dused + 1) > c.dcap:
        return  # full: compute from here on (the cache is sized for a whole up card)
    c.dkeys[slot] = key
    memcpy(&c.dists[7 * slot], out, 7 * sizeof(double))
    c.dused += 1


cdef int _dealer(Ctx* c, double* out) noexcept nogil:
    """The dealer's final result from the up card over the shoe ``c.counts``: ``out[k]`` the
    probability of 17 + k (k < 5), BJ (5), BUST (6). -1 (``c.error`` set) if the shoe runs out
    before some dealer hand is over. Cached by the cards out of the base: an unsplit hand, a
    split hand with other pair cards out and a doubled hand's card often leave the same shoe.
    For a split hand (``c.removed`` pair cards out beyond its own), the shoes with more pair
    cards out, up to ``c.variants``, come in the same pass over the table: the split's other
    shoes need them. (Not for the unsplit hands a split's decisions look up: most of those
    are never a split hand's, as the hand stood before reaching them.)"""
    cdef unsigned long long key = _removal_key(c), slot
    cdef double* hit = _cached(c, key, &slot)
    if hit != NULL:
        memcpy(out, hit, 7 * sizeof(double))
        return 0
    if (c.removed and c.variants > c.removed and _VARIANTS and c.prod != NULL
            and c.remaining - (c.variants - c.removed) >= c.t_depth):
        _dealer_variants(c, key, out)
    elif _dealer_compute(c, out) < 0:
        return -1
    _cache(c, key, slot, out)
    return 0


@cython.cdivision(True)
cdef int _dealer_compute(Ctx* c, double* out) noexcept nogil:
    cdef Level* cur = c.cur
    cdef Level* nxt = c.nxt
    cdef Level* swap
    cdef int depth = 0, e, left
    cdef double inv
    c.dealer_runs += 1
    if c.prod != NULL and c.remaining >= c.t_depth:
        _dealer_table(c, out)
        return 0
    # The shoe could run short: draw level by level (``pricing._dealer``), in probabilities.
    for e in range(N_OUTCOMES):
        out[e] = 0.0
    level_clear(cur)
    level_add(cur, 0, c.up, c.up == 1, 1.0)
    while cur.n > 0:
        left = c.remaining - depth
        if left <= 0:
            c.error = ERR_RAN_OUT
            return -1
        inv = 1.0 / left
        for e in range(cur.n):
            cur.weight[e].chance *= inv  # this draw's chance, but for the count drawn
        if level_draw(cur, nxt, c.counts, 1 + depth, c.h17, out, NULL) < 0:
            c.error = ERR_LEVEL_FULL
            return -1
        swap = cur
        cur = nxt
        nxt = swap
        depth += 1
    return 0


cdef tuple _dealer_hands(int up, bint h17):
    """``(terms, depth)``: the dealer's hands from the up card ``up`` that end on 17–21 or BJ,
    ``terms[drawn, outcome]`` the orderings of each multiset of drawn cards (``drawn``: the
    count of each value), and the most cards a hand draws, bust or not. Drawn level by level
    (``pricing._dealer``) from a shoe of ``MAX_MULT`` cards of each value, more than any
    dealer hand holds of one, so it allows every hand a shoe that never runs short does; each
    order of a multiset ``m`` then weighs ``prod_v MAX_MULT (MAX_MULT - 1) … (MAX_MULT - m_v +
    1)``, and the sum of its orders' weights over that is its number of orderings."""
    cdef int shoe[N_VALUES]
    cdef u128 ended[N_OUTCOMES]
    cdef int v, e, depth = 0
    cdef Level* swap
    cdef Level* levels = <Level*>malloc(3 * sizeof(Level))
    cdef Level* cur = &levels[0]
    cdef Level* nxt = &levels[1]
    cdef Level* kept = &levels[2]
    if levels == NULL:
        raise MemoryError()
    falling = [1]  # falling[m]: MAX_MULT (MAX_MULT - 1) … (MAX_MULT - m + 1)
    for e in range(1, MAX_MULT):
        falling.append(falling[e - 1] * (MAX_MULT - e + 1))
    for v in range(N_VALUES):
        shoe[v] = MAX_MULT
    memset(ended, 0, sizeof(ended))  # a sink: the table keeps the hands themselves
    terms = {}
    try:
        level_clear(cur)
        level_add(cur, 0, up, up == 1, <u128>1)
        while cur.n > 0:
            if level_draw(cur, nxt, shoe, 1 + depth, h17, ended, kept) < 0:
                raise RuntimeError(
                    f"more than {LEVEL_FULL} dealer hands of one length: kernel bound broken")
            depth += 1
            for e in range(kept.n):
                drawn = tuple([(kept.code[e] >> (4 * v)) & 15 for v in range(N_VALUES)])
                weight = 1
                for v in range(N_VALUES):
                    weight *= falling[drawn[v]]
                orderings, rest = divmod(u128_to_int(kept.weight[e].ways), weight)
                assert rest == 0
                terms[drawn, dealer_outcome(kept.hard[e], kept.ace[e], 1 + depth, h17)] = orderings
            swap = cur
            cur = nxt
            nxt = swap
    finally:
        free(levels)
    return terms, depth


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
    cdef int mult[N_VALUES]  # value -> the most cards of it in one dealer hand
    # For a split's pass (``_dealer_variants``) over pair value p: term -> its place in an
    # accumulator by (cards of value p, slot), ``vslot[p * n_terms + term]``; and the places
    # used by outcome m, ``used_start[7p + m]`` to ``used_start[7p + m + 1]`` in
    # ``used_place``, with the cards of value p and the cards in all of each (``used_j``,
    # ``used_k``).
    cdef int* vslot
    cdef int used_start[N_VALUES * 7 + 1]
    cdef int* used_place
    cdef int* used_j
    cdef int* used_k

    def __cinit__(self, int up, bint h17):
        terms, cards = _dealer_hands(up, h17)
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
        places = []
        for v in range(N_VALUES):
            used = {
                key[v] * 7 * MAX_DEPTH + outcome * MAX_DEPTH + sum(key)
                for key, outcome in terms
            }
            places.append(sorted(used, key=lambda x: ((x % (7 * MAX_DEPTH)) // MAX_DEPTH, x)))
        n_used = sum(len(u) for u in places)
        self.vslot = <int*>malloc(N_VALUES * self.n_terms * sizeof(int))
        self.used_place = <int*>malloc(n_used * sizeof(int))
        self.used_j = <int*>malloc(n_used * sizeof(int))
        self.used_k = <int*>malloc(n_used * sizeof(int))
        if not (self.parent and self.ff and self.node and self.slot and self.coef and self.vslot
                and self.used_place and self.used_j and self.used_k):
            raise MemoryError()
        for i in range(self.n_nodes):
            self.parent[i] = parents[i]
            self.ff[i] = steps[i]
        for v in range(N_VALUES):
            self.mult[v] = max((key[v] for key, _ in terms), default=0)
        for i, (key, outcome) in enumerate(
            sorted(terms, key=lambda t: tuple(-x for x in reversed(t[0])))
        ):
            for v in range(N_VALUES):
                self.vslot[v * self.n_terms + i] = (
                    key[v] * 7 * MAX_DEPTH + outcome * MAX_DEPTH + sum(key))
        e = 0
        for v in range(N_VALUES):
            for m in range(7):
                self.used_start[v * 7 + m] = e
                for place in places[v]:
                    if (place % (7 * MAX_DEPTH)) // MAX_DEPTH != m:
                        continue
                    self.used_place[e] = place
                    self.used_j[e] = place // (7 * MAX_DEPTH)
                    self.used_k[e] = place % MAX_DEPTH
                    e += 1
        self.used_start[N_VALUES * 7] = e
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
        free(self.vslot)
        free(self.used_place)
        free(self.used_j)
        free(self.used_k)


_TABLES: dict[tuple[int, bool], _Table] = {}


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef void _dealer_table(Ctx* c, double* out) noexcept nogil:
    """``_dealer`` by the up card's ``_Table`` (the shoe holds at least its depth)."""
    cdef double ff[N_VALUES * MAX_MULT]
    cdef double acc[7 * MAX_DEPTH]
    cdef double* prod = c.prod
    cdef double falling, rest, inverse
    cdef int v, m, i, k
    for v in range(N_VALUES):
        falling = 1.0
        ff[v * MAX_MULT] = 1.0
        for m in range(1, c.t_mult[v] + 1):
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
        inverse = 1.0 / falling
        for m in range(OUT_BUST):
            out[m] += acc[m * MAX_DEPTH + k] * inverse
    for m in range(OUT_BUST):
        rest -= out[m]
    out[OUT_BUST] = rest


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef void _dealer_variants(Ctx* c, unsigned long long key, double* out) noexcept nogil:
    """``_dealer_table`` for the shoe and, cached, the shoes with 1 … ``c.variants`` more
    pair cards out. The products leave the pair value out and are summed by how many pair
    cards each dealer hand holds (into the places the table lists as used); each shoe then
    weighs those sums by its own falling factorials of pair cards and of cards."""
    cdef double ff[N_VALUES * MAX_MULT]
    cdef double acc[MAX_MULT * 7 * MAX_DEPTH]
    cdef double pair_ff[MAX_MULT]
    cdef double inverse[MAX_DEPTH]
    cdef double res[7]
    cdef double* prod = c.prod
    cdef double falling
    cdef int v, m, i, k, e, shift, pairs, left, p = c.pair - 1, top = c.t_mult[c.pair - 1]
    cdef int first = c.t_used_start[7 * p], last = c.t_used_start[7 * p + 7]
    cdef double total
    cdef const int* vslot = &c.t_vslot[p * c.t_terms]
    cdef unsigned long long slot, variant
    c.dealer_runs += 1
    for v in range(N_VALUES):
        falling = 1.0
        ff[v * MAX_MULT] = 1.0
        for m in range(1, c.t_mult[v] + 1):
            if v != p:
                falling *= c.counts[v] - m + 1
            ff[v * MAX_MULT + m] = falling
    for e in range(first, last):
        acc[c.t_used_place[e]] = 0.0
    prod[0] = 1.0
    for i in range(1, c.t_nodes):
        prod[i] = prod[c.t_parent[i]] * ff[c.t_ff[i]]
    for i in range(c.t_terms):
        acc[vslot[i]] += c.t_coef[i] * prod[c.t_node[i]]
    for shift in range(c.variants - c.removed + 1):
        pairs = c.counts[p] - shift
        if pairs < 0:
            break
        left = c.remaining - shift
        falling = 1.0
        pair_ff[0] = 1.0
        for k in range(1, top + 1):
            falling *= pairs - k + 1
            pair_ff[k] = falling
        falling = 1.0
        for k in range(1, c.t_depth + 1):
            falling *= left - k + 1
            inverse[k] = 1.0 / falling
        for m in range(OUT_BUST):
            total = 0.0
            for e in range(c.t_used_start[7 * p + m], c.t_used_start[7 * p + m + 1]):
                total += (acc[c.t_used_place[e]] * pair_ff[c.t_used_j[e]]
                          * inverse[c.t_used_k[e]])
            res[m] = total
        res[OUT_BUST] = 1.0
        for m in range(OUT_BUST):
            res[OUT_BUST] -= res[m]
        if shift == 0:
            memcpy(out, res, 7 * sizeof(double))
        else:
            variant = key + ((<unsigned long long>shift) << (PLAYER_BITS * p))
            slot = 0
            if _cached(c, variant, &slot) == NULL:
                _cache(c, variant, slot, res)


cdef int _up_card(Ctx* c, int up_value) except -1:
    """Point ``c`` at the up card's table of dealer hands."""
    cdef _Table table = _TABLES.get((up_value, bool(c.h17)))
    if table is None:
        # setdefault: of two threads building the same table, both use the one kept (the
        # other is freed; a table once kept never is, so the pointers below stay valid).
        table = _TABLES.setdefault((up_value, bool(c.h17)), _Table(up_value, c.h17))
    c.up = up_value
    c.t_nodes = table.n_nodes
    c.t_terms = table.n_terms
    c.t_depth = table.depth
    c.t_parent = table.parent
    c.t_ff = table.ff
    c.t_node = table.node
    c.t_slot = table.slot
    c.t_coef = table.coef
    c.t_mult = table.mult
    c.t_vslot = table.vslot
    c.t_used_place = table.used_place
    c.t_used_j = table.used_j
    c.t_used_k = table.used_k
    c.t_used_start = table.used_start
    free(c.prod)
    c.prod = <double*>malloc(c.t_nodes * sizeof(double))
    if c.prod == NULL:
        raise MemoryError()
    return 0
