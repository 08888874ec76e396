# cython: language_level=3
"""Blackjack analyzer kernel: the expected value of each decision of one player hand against the
dealer's up card, and the next round's player edge, from what is left of the shoe
(docs/rules.md §3.9). A combinatorial analyzer: exact sums over the shoe's composition, no
simulation.

* Cards are merged into ten values (ace, 2 … 9, ten); the shoe is ten integer counts, and every
  draw, the player's and the dealer's, is without replacement from it.
* **One up card at a time.** With the up card out, the shoe left is the *base*; a player hand
  is a composition ``C`` (the multiset of its cards, 5 bits per value in a 64-bit key) and
  draws from ``base - C``. Its EVs depend on ``C`` alone, so they are memoised per
  composition and shared by every hand that reaches ``C`` (3,072 compositions total at most
  21), across the initial hands of an edge computation too.
* **The dealer.** For every composition the dealer's final result (17–21, BJ, BUST) is
  computed from the up card alone over the shoe without the player's cards: the order in which
  player and dealer draw does not change the probabilities (exchangeability). The dealer's
  hands are enumerated once per up card and rule (``_Table``: every multiset of drawn cards
  ending on 17–21 or BJ, with its number of valid orderings); for a shoe the distribution is a
  sum of falling-factorial products over that table, shared along a trie (about 1.5 µs against
  a 2 on 8 decks), bust the rest. Near the end of a shoe, when the dealer could run short, the
  draws are summed level by level over multisets (``pricing._dealer``, here in doubles).
* **Play.** STAND; HIT, then playing on by the better of stand and hit on the exact cards
  (composition-dependent); DOUBLE (one card, then stand on a doubled stake). SURRENDER is −0.5
  and needs no kernel.
* **Splits** (``_split``), by E. Farmer's method for "CDZ-" play: each split hand is played by
  the decision best for an unsplit hand of the same cards (``_fixed`` looks it up in the
  unsplit memo), but valued on the shoe it really draws from, with the other hands' pair cards
  out. By exchangeability every hand's EV is the EV of one hand from the shoe with ``a``
  more pair cards and ``b`` more cards known not to be pair cards removed; removing an unseen
  card does not change an EV, which gives those with ``b > 0`` from those with ``b = 0``
  (``_x_hand``, ``_n_hand``). Summed over the orders in which pair cards can come
  (``_orders``: how many hands the split ends with, and how many were complete when the last
  resplit came), that is the split's EV; a dealer blackjack takes one unit from the split in
  all, not one per hand.
* **Basic strategy.** The same evaluation with the decisions read from a fixed chart (``chart``
  bytes from ``pricing.games.blackjack.decisions``) instead of from the unsplit EVs.
* The EVs are C doubles, as in every combinatorial analyzer: the sums have thousands of
  terms, each a product of ratios of small integers, so the rounding error stays near 1e-15
  (the tests hold the kernel to exact ``Fraction`` references within 1e-12).

No hole card (docs/rules.md §3.1): when the dealer makes blackjack, every player hand but a
blackjack loses exactly the original wager, busted, doubled or split; a player blackjack
pushes.
"""

cimport cython
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from pricing._dealer cimport (
    LEVEL_FULL, N_OUTCOMES, N_VALUES, OUT_BJ, OUT_BUST, Level, dealer_outcome, level_add,
    level_clear, level_draw, u128, u128_to_int,
)

from pricing.errors import IllegalMove

cdef enum:
    MAX_MULT = 16  # a dealer hand holds at most 9 cards of one value (up card 2, nine 2s)
    MAX_DEPTH = 16  # and draws at most 12 cards
    ERR_RAN_OUT = 1
    ERR_LEVEL_FULL = 2
    ERR_MEMORY = 3
    PLAYER_BITS = 5
    TAG_SHIFT = 51  # memo keys: the composition below, what the entry holds above
    # Where a hand is (the chart's spots): what it may do besides stand and hit.
    SPOT_FIRST_TWO = 0
    SPOT_SPLIT_TWO = 1
    SPOT_MORE_CARDS = 2
    SPOT_UNSPLIT_DOUBLE = 3  # a memo tag only: the unsplit double's EV of a composition
    ACT_STAND = 0
    ACT_HIT = 1
    ACT_DOUBLE = 2
    ACT_SURRENDER = 3
    CHART_CELLS = 3 * 2 * 22 * 10  # spot, soft, total 0-21, up card; then 10 x 10 pair cells
    CHART_SIZE = CHART_CELLS + 100
    MAX_HANDS = 4
    # Dealer distributions cached per base: a full shoe's edge needs under half of the
    # larger, one hand's decisions under half of the smaller.
    EDGE_CACHE = 1 << 16
    HAND_CACHE = 1 << 15

# Two CDZ- EVs closer than this are a tie, broken toward standing (then hitting), as the exact
# rule breaks an exact tie: on small shoes exact ties are common (both 0, say), and rounding
# noise of 1e-17 must not pick the side. Rounding errors stay near 1e-15; EVs that truly
# differ by less than 1e-12 would need shoes far beyond eight decks to be that close.
TIE = 1e-12
cdef double _TIE = TIE


cdef struct Ctx:
    int counts[N_VALUES]  # the shoe now: the player's draws so far already taken out
    int base[N_VALUES]  # the shoe with only the up card out (and the cards before the round)
    int remaining
    int up  # 1 = ace … 10 = ten
    bint h17
    int error
    Level* cur  # two levels for the dealer's draws when the shoe could run short
    Level* nxt
    # The memo: key (never 0: a composition holds a card) -> two values. Untagged keys: the
    # unsplit hand's (stand, best of stand and hit) on ``base - C``; tagged keys
    # (``_tag``): a split hand's value under the strategy, or an unsplit double.
    unsigned long long* keys
    double* first
    double* second
    int cap
    int used
    # A split in progress: the pair's value (0: none), whether its hands may double; and the
    # basic-strategy chart (NULL: composition-dependent play).
    int pair
    bint das
    const unsigned char* chart
    # The dealer's distributions by the cards out of the base (``_dealer``): keys, 7 each.
    unsigned long long* dkeys
    double* dists
    int dcap
    int dused
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
    const int* t_mult
    const int* t_vslot
    const int* t_used_place
    const int* t_used_j
    const int* t_used_k
    const int* t_used_start
    double* prod
    int variants  # in a split: the most pair cards out beyond a hand's own
    int removed  # in a split: the pair cards out beyond the hand's own in the shoe now


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


cdef inline unsigned long long _card(int v) noexcept nogil:
    """The key of one card of value index ``v`` (0 = ace … 9 = ten)."""
    return 1ULL << (PLAYER_BITS * v)


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


cdef inline void _memo_clear(Ctx* c) noexcept nogil:
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


# ---------------------------------------------------------------------------------------------
# Splits.

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


# ---------------------------------------------------------------------------------------------
# Set-up, the shoe's run-out bound, and the entry points.

cdef bint _cannot_run_out(const int* counts, int hands) noexcept nogil:
    """Whether no line of play of ``hands`` hands and the dealer can run the shoe out. Every
    card a hand draws but its last leaves it at most 20, every card the dealer draws but its
    last at most 16: so all but ``hands + 1`` drawn cards total at most ``20 hands + 16``,
    and no more of them can be drawn than the shoe's smallest cards fit in that."""
    cdef int budget = 20 * hands + 16, cards = 0, remaining = 0, v, k
    for v in range(N_VALUES):
        remaining += counts[v]
    for v in range(N_VALUES):
        k = counts[v]
        if k * (v + 1) > budget:
            k = budget // (v + 1)
        cards += k
        budget -= k * (v + 1)
    return remaining >= cards + hands + 1


cdef int _open(Ctx* c, object value_counts, int up_value, bint h17, int cache) except -1:
    cdef int v
    memset(c, 0, sizeof(Ctx))
    if len(value_counts) != N_VALUES:
        raise ValueError(f"need {N_VALUES} value counts, got {len(value_counts)}")
    for v in range(N_VALUES):
        c.counts[v] = value_counts[v]
        if c.counts[v] < 0:
            raise ValueError(f"value count must not be negative, got {c.counts[v]}")
        c.remaining += c.counts[v]
    c.h17 = h17
    c.cur = <Level*>malloc(2 * sizeof(Level))
    c.cap = 8192
    c.keys = <unsigned long long*>calloc(c.cap, sizeof(unsigned long long))
    c.first = <double*>malloc(c.cap * sizeof(double))
    c.second = <double*>malloc(c.cap * sizeof(double))
    c.dcap = cache
    c.dkeys = <unsigned long long*>calloc(c.dcap, sizeof(unsigned long long))
    c.dists = <double*>malloc(7 * c.dcap * sizeof(double))
    if (c.cur == NULL or c.keys == NULL or c.first == NULL or c.second == NULL
            or c.dkeys == NULL or c.dists == NULL):
        _close(c)
        raise MemoryError()
    c.nxt = &c.cur[1]
    if up_value:
        _up_card(c, up_value)
    return 0


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


cdef void _close(Ctx* c) noexcept:
    free(c.cur)
    free(c.keys)
    free(c.first)
    free(c.second)
    free(c.prod)
    free(c.dkeys)
    free(c.dists)
    c.dkeys = NULL
    c.dists = NULL
    c.cur = NULL
    c.keys = NULL
    c.first = NULL
    c.second = NULL
    c.prod = NULL


cdef int _raise(Ctx* c, str what) except -1:
    if c.error == ERR_RAN_OUT:
        raise IllegalMove(
            f"the {c.remaining} cards left could run out before {what} and the dealer's hand "
            "are over: the shoe must be reshuffled")
    if c.error == ERR_LEVEL_FULL:
        raise RuntimeError(f"more than {LEVEL_FULL} dealer hands of one length: kernel bound broken")
    if c.error == ERR_MEMORY:
        raise MemoryError()
    return 0


def hand_evs(object hand_values, int up_value, object value_counts, bint h17, bint first_two,
             bint das, int max_hands):
    """``(stand, hit, double, split, compositions)`` for a player hand of card values
    ``hand_values`` (1 = ace … 10 = ten) against an up card of ``up_value``, drawing from a
    shoe of ``value_counts[v - 1]`` cards of value ``v`` (the hand and the up card already out
    of it). ``first_two``: the hand is the seat's first two cards (a blackjack if A + ten,
    doubling allowed, a pair split into at most ``max_hands`` hands, aces into two, split hands
    doubling if ``das``). ``hit`` is ``None`` on 21 or a blackjack, ``double`` unless
    ``first_two`` (and not a blackjack), ``split`` unless a first-two pair; a blackjack's
    ``stand`` pays 1.5 unless the dealer makes one too. ``compositions`` is the number of
    dealer distributions computed. ``IllegalMove`` if the shoe could run out in some line of
    play; ``ValueError`` for a busted hand or bad values."""
    cdef Ctx c
    cdef int hard = 0, total, hands = 0, pair = 0
    cdef bint ace = False, blackjack
    cdef unsigned long long key = 0
    cdef double d[7]
    cdef double stand = 0.0, hit = 0.0, dbl = 0.0, split = 0.0
    values = [int(x) for x in hand_values]
    if not values:
        raise ValueError("the hand needs at least one card")
    for x in values:
        if not 1 <= x <= 10:
            raise ValueError(f"card value must be 1-10, got {x}")
        hard += x
        ace = ace or x == 1
        key += _card(x - 1)
    if not 1 <= up_value <= 10:
        raise ValueError(f"up card value must be 1-10, got {up_value}")
    if hard > 21:
        raise ValueError(f"the hand is busted (hard {hard})")
    if not 2 <= max_hands <= MAX_HANDS:
        raise ValueError(f"max_hands must be 2-{MAX_HANDS}, got {max_hands}")
    first_two = first_two and len(values) == 2
    total = _total(hard, ace)
    blackjack = first_two and total == 21
    if first_two and values[0] == values[1]:
        pair = values[0]
        hands = 2 if pair == 1 else max_hands
    _open(&c, value_counts, up_value, h17, HAND_CACHE)
    c.das = das
    for x in range(N_VALUES):
        c.base[x] = c.counts[x]
    for x in values:
        c.base[x - 1] += 1
    if pair and not _cannot_run_out(c.counts, hands):
        c.error = ERR_RAN_OUT
    else:
        with nogil:
            if _dealer(&c, d) == 0:
                if blackjack:
                    stand = 1.5 * (1.0 - d[OUT_BJ])
                else:
                    stand = _stand(total, d)
                    # The split first: the compositions it shares with hitting then carry
                    # the dealer's distributions for the split's shoes too (_dealer).
                    if pair:
                        split = _split(&c, pair, hands)
                    if total < 21:
                        hit = _hit(&c, hard, ace, key, False, 0)
                        if first_two:
                            dbl = _double(&c, hard, ace)
    _close(&c)
    _raise(&c, "the hands")
    return (stand,
            None if blackjack or total >= 21 else hit,
            dbl if first_two and not blackjack and total < 21 else None,
            split if pair else None,
            c.dealer_runs)


@cython.cdivision(True)
cdef double _initial(Ctx* c, int x, int y, int hands, bint surrender) noexcept nogil:
    """The EV of the two-card hand ``x``, ``y`` (values) played by the strategy: the best of
    its actions (composition-dependent) or the chart's."""
    cdef int hard = x + y, total, action
    cdef bint ace = x == 1 or y == 1
    cdef unsigned long long key = _card(x - 1) + _card(y - 1)
    cdef double d[7]
    cdef double best, stand, other
    total = _total(hard, ace)
    if total == 21:
        if _dealer(c, d) < 0:
            return 0.0
        return 1.5 * (1.0 - d[OUT_BJ])
    if c.chart == NULL:
        best = _unsplit(c, hard, ace, key, &stand)
        other = _unsplit_double(c, hard, ace, key)
        if other > best:
            best = other
        if surrender and c.up != 1 and -0.5 > best:
            best = -0.5
        if x == y:
            other = _split(c, x, 2 if x == 1 else hands)
            if other > best:
                best = other
        return best
    if x == y and c.chart[CHART_CELLS + (x - 1) * 10 + c.up - 1]:
        return _split(c, x, 2 if x == 1 else hands)
    action = c.chart[((SPOT_FIRST_TWO * 2 + (total != hard)) * 22 + total) * 10 + c.up - 1]
    if action == ACT_SURRENDER:
        return -0.5
    if action == ACT_DOUBLE:
        return _double(c, hard, ace)
    if action == ACT_STAND:
        if _dealer(c, d) < 0:
            return 0.0
        return _stand(total, d)
    return _hit(c, hard, ace, key, True, 0)


def edge(object value_counts, bint h17, bint das, int max_hands, bint surrender,
         object chart=None):
    """The next round's expected value per unit of the original wager over every deal of two
    player cards and the up card from the shoe ``value_counts`` (ten counts, ace … ten), each
    hand played composition-dependently (``chart`` None: the best action on the exact cards,
    split hands "CDZ-") or by ``chart`` (bytes, as ``pricing.games.blackjack.decisions``
    builds it). Pairs split into at most ``max_hands`` hands (aces two), split hands double if
    ``das``; ``surrender``: against 2–10. ``IllegalMove`` if the shoe could run out in some
    line of play."""
    cdef Ctx c
    cdef int u, x, y, n, m, i
    cdef double total = 0.0, by_up, weight
    cdef const unsigned char[:] cells
    if not 2 <= max_hands <= MAX_HANDS:
        raise ValueError(f"max_hands must be 2-{MAX_HANDS}, got {max_hands}")
    _open(&c, value_counts, 0, h17, EDGE_CACHE)
    c.das = das
    if chart is not None:
        cells = chart
        if cells.shape[0] != CHART_SIZE:
            _close(&c)
            raise ValueError(f"a chart has {CHART_SIZE} cells, got {cells.shape[0]}")
        c.chart = &cells[0]
    n = c.remaining
    if not _cannot_run_out(c.counts, max_hands):
        _close(&c)
        raise IllegalMove(
            f"the {n} cards left could run out before a round's hands and the dealer's hand "
            "are over: the shoe must be reshuffled")
    try:
        for u in range(1, N_VALUES + 1):
            if c.counts[u - 1] == 0:
                continue
            _up_card(&c, u)
            _memo_clear(&c)
            c.counts[u - 1] -= 1
            c.remaining -= 1
            memcpy(c.base, c.counts, sizeof(c.base))
            m = c.remaining
            by_up = 0.0
            with nogil:
                # The ten pairs first (as in hand_evs), then the other hands x < y.
                for i in range(N_VALUES + N_VALUES * N_VALUES):
                    if i < N_VALUES:
                        x = y = i + 1
                    else:
                        x = (i - N_VALUES) // N_VALUES + 1
                        y = (i - N_VALUES) % N_VALUES + 1
                        if y <= x:
                            continue
                    weight = c.counts[x - 1] * (c.counts[y - 1] - (x == y))
                    if weight <= 0:
                        continue
                    if x != y:
                        weight *= 2
                    c.counts[x - 1] -= 1
                    c.counts[y - 1] -= 1
                    c.remaining -= 2
                    by_up += weight * _initial(&c, x, y, max_hands, surrender)
                    c.counts[x - 1] += 1
                    c.counts[y - 1] += 1
                    c.remaining += 2
                    if c.error:
                        break
            c.counts[u - 1] += 1
            c.remaining += 1
            if c.error:
                break
            total += (c.counts[u - 1] / <double>n) * by_up / (<double>m * (m - 1))
    finally:
        _close(&c)
    _raise(&c, "a round's hands")
    return total
