# cython: language_level=3
"""The dealer's hand, shared by every kernel that deals one (``from pricing._dealer cimport ...``):
the stand rule, and the draws summed level by level over multisets of cards.

Inline functions and types only, so nothing is imported at run time: each kernel compiles its
own copy and the C compiler inlines the draw into its loop, as when each kernel wrote it out.

**The stand rule** (docs/rules.md §3.2, ``dealer_outcome``): a one-card hand draws; a two-card 21
is a blackjack; over 21 busts; hard 17–21 and soft 18–21 stand; soft 17 stands (``S17``) or
draws (``H17``). ``pricing.games.blackjack.hands`` states the same rule for the Python engines,
and the tests' references state it again on purpose, each on its own.

**Levels.** Every order in which the dealer can draw a given multiset of cards has the same
weight (the product of the counts at each draw, without replacement), and the hand's future
depends only on that multiset; so the weights of all the orders that reach a multiset are added
up once, level by level (one level per card drawn), and each multiset's next draws are expanded
once: about 350 multisets instead of 20,000 sequences for an up ace or 2 on 8 decks. A multiset
is a 40-bit code, 4 bits per value counting the cards of that value drawn (a dealer hand holds
at most 9 of one value).

A level of hands still drawing holds at most 124 multisets, whatever the shoe and wherever the
hand starts: the hands drawn after an up card or a hand so far are, with those cards added,
hands drawn from an empty hand, and a full 8-deck shoe (32 cards of every value, more than any
hand holds) reaches every hand any shoe does; the test suite checks 120 (``S17``) and 124
(``H17``) on it. ``LEVEL_FULL`` leaves three times that, and the hash table stays under three
quarters full. The hands one draw ends, bust aside, which the analyzer keeps by multiset, are
at most 222 after an up card (the analyzer's tests build every up card's).

**Weights** are a fused type: exact 128-bit integers (``u128``: the blackjack and dealer-bust
kernels, whose results are ratios of integers) or doubles (the analyzer, whose EVs are doubles).
Cython does not allow a fused type inside a struct, so a level stores either in a union.
"""

cdef extern from *:
    """
    /* Cython is told this is a 64-bit integer; C uses the 128-bit type. The only operations
       used on it are +, *, /, % (GCC and Clang) and the two accessors below, so the lie is never
       observable. */
    typedef unsigned __int128 dealer_u128;
    static inline unsigned long long dealer_u128_hi(dealer_u128 x) {
        return (unsigned long long)(x >> 64);
    }
    static inline unsigned long long dealer_u128_lo(dealer_u128 x) {
        return (unsigned long long)x;
    }
    """
    ctypedef unsigned long long u128 "dealer_u128"
    unsigned long long u128_hi "dealer_u128_hi"(u128 x) nogil
    unsigned long long u128_lo "dealer_u128_lo"(u128 x) nogil

from libc.string cimport memset

cdef enum:
    N_VALUES = 10  # the values the dealer's play depends on: ace, 2 … 9, ten (10 J Q K)
    # A hand's end, the index of its outcome: 17 + k for k < 5, then BJ and BUST.
    N_OUTCOMES = 7
    OUT_BJ = 5
    OUT_BUST = 6
    DRAWS = -1  # not over: the dealer draws
    LEVEL_SLOTS = 512  # hash slots per level (a power of two)
    LEVEL_FULL = 384  # multisets per level
    LEVEL_HASH_SHIFT = 55  # 64 - log2(LEVEL_SLOTS)

ctypedef fused weight_t:
    u128
    double

cdef union Weight:
    u128 ways
    double chance

cdef struct Level:
    int n
    int slot_entry[LEVEL_SLOTS]  # 1 + entry index, 0 = empty slot
    unsigned long long code[LEVEL_FULL]
    Weight weight[LEVEL_FULL]
    int hard[LEVEL_FULL]  # the hand's total counting aces as 1
    bint ace[LEVEL_FULL]  # whether the hand holds an ace


cdef inline object u128_to_int(u128 x):
    return (<object>u128_hi(x) << 64) | <object>u128_lo(x)


cdef inline int dealer_outcome(int hard, bint ace, int cards, bint h17) noexcept nogil:
    """How a dealer's hand of ``cards`` cards (hard total ``hard``, ``ace`` if it holds one)
    ends: ``OUT_BJ``, ``OUT_BUST``, ``total - 17`` where the dealer stands, else ``DRAWS``."""
    cdef bint soft = ace and hard + 10 <= 21
    cdef int total = hard + 10 if soft else hard
    if cards < 2:
        return DRAWS
    if cards == 2 and total == 21:
        return OUT_BJ
    if total > 21:
        return OUT_BUST
    if total > 17 or (total == 17 and not (soft and h17)):
        return total - 17
    return DRAWS


cdef inline void level_clear(Level* level) noexcept nogil:
    level.n = 0
    memset(level.slot_entry, 0, sizeof(level.slot_entry))


cdef inline int level_add(Level* level, unsigned long long code, int hard, bint ace,
                          weight_t weight) noexcept nogil:
    """Add ``weight`` to the multiset ``code``; -1 if the level is full."""
    cdef unsigned long long h = (code * 0x9E3779B97F4A7C15ULL) >> LEVEL_HASH_SHIFT
    cdef int e
    while level.slot_entry[h] != 0:
        e = level.slot_entry[h] - 1
        if level.code[e] == code:
            if weight_t is double:
                level.weight[e].chance += weight
            else:
                level.weight[e].ways += weight
            return 0
        h = (h + 1) & (LEVEL_SLOTS - 1)
    if level.n >= LEVEL_FULL:
        return -1
    e = level.n
    level.n += 1
    level.slot_entry[h] = e + 1
    level.code[e] = code
    if weight_t is double:
        level.weight[e].chance = weight
    else:
        level.weight[e].ways = weight
    level.hard[e] = hard
    level.ace[e] = ace
    return 0


cdef inline int level_draw(const Level* cur, Level* nxt, const int* counts, int cards, bint h17,
                           weight_t* ended, Level* kept) noexcept nogil:
    """Draw one card to every hand of ``cur`` (hands of ``cards`` cards that must draw) from a
    shoe that held ``counts[v]`` cards of each value before the level's first draw: a hand that
    must still draw goes into ``nxt`` (cleared here) with its weight times the count drawn, the
    weight of a hand that is over is added to ``ended[outcome]``. ``kept`` (NULL but for the
    analyzer's table of dealer hands) also keeps each hand that is over and not bust, by
    multiset. -1 if ``nxt`` or ``kept`` is full."""
    cdef int e, v, avail, new_hard, outcome
    cdef bint ace
    cdef unsigned long long code
    cdef weight_t weight, w
    level_clear(nxt)
    if kept != NULL:
        level_clear(kept)
    for e in range(cur.n):
        code = cur.code[e]
        if weight_t is double:
            weight = cur.weight[e].chance
        else:
            weight = cur.weight[e].ways
        for v in range(N_VALUES):
            avail = counts[v] - <int>((code >> (4 * v)) & 15)
            if avail <= 0:
                continue
            w = weight * <weight_t>avail
            new_hard = cur.hard[e] + v + 1
            ace = cur.ace[e] or v == 0
            outcome = dealer_outcome(new_hard, ace, cards + 1, h17)
            if outcome == DRAWS:
                if level_add(nxt, code + (1ULL << (4 * v)), new_hard, ace, w) < 0:
                    return -1
                continue
            ended[outcome] += w
            if kept != NULL and outcome != OUT_BUST:
                if level_add(kept, code + (1ULL << (4 * v)), new_hard, ace, w) < 0:
                    return -1
    return 0
