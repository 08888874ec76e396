# cython: language_level=3
"""Dealer-bust side bets kernel (docs/rules.md §3.8): the exact ways of Bust It's and Buster's
outcomes for the next round dealt from what is left of a shoe, in one pass per shoe.

The bets are placed before the deal, so the dealer's hand is the shoe's next cards (the players'
cards are unknown then and, by symmetry, do not change the law of the dealer's cards). The
dealer draws from an empty hand — a one-card hand always draws; a two-card 21 is a blackjack,
not a bust; hard 17–21 stand; soft 17 stands (``S17``) or draws (``H17``) — until the hand
stands or busts.

* Buster pays by the number of cards in a busted hand. Every draw sequence ``c1 … ck`` of a
  finished hand has the weight ``n(c1) × n(c2) × … × n(ck)`` (the count of each card when it
  is drawn) out of ``N × (N − 1) × … × (N − k + 1)``; over the common denominator
  ``N × … × (N − D + 1)`` (``D`` = min(13, ``N``); 13 cards is the longest dealer hand: H17,
  seven aces make soft 17, which draws, a 5 makes hard 12, four aces make 16, then the last
  card) its ways are the weight times ``(N − k) × … × (N − D + 1)``. The sequences are summed by multiset, level by
  level (one level per card drawn): every order of the same cards has the same weight and the
  same future, and the length of the hand is the level. ``416**13 ≈ 1.1e34 < 2**128``: the
  sums are unsigned 128-bit integers, handed to Python as ``int``.
* Bust It pays when the hand busts with exactly three cards, by the third card's rank, and on
  8-8-8 by the three eights' suits. A three-card bust is a two-card hard 12–16 (no ace: an
  ace makes the hand soft, and a soft hand cannot bust on one card) and a third card that
  takes it over 21 (a 6 or more). Its ways are counted directly over the first three cards,
  out of ``N × (N − 1) × (N − 2)`` (they fit 64 bits), then put over Buster's denominator
  (times ``(N − 3) × … × (N − D + 1)``): both bets have one common total.

A shoe that cannot complete every dealer hand (some hand would still draw with no card left:
the last few cards of a shoe) closes both bets: every total is 0. The rule matters to Buster
(soft 17) and to when a small shoe runs out; Bust It's ways are the same under both rules.

Cards are counted by deck index ``(rank - 1) * 4 + suit`` (suits C, D, H, S = 0–3), as in
``pricing.cards``; the dealer's play merges them into ten values: ace, 2–9, ten (10 J Q K).
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memset

from pricing._dealer cimport (
    LEVEL_FULL, N_OUTCOMES, N_VALUES, OUT_BUST, Level, level_add, level_clear, level_draw, u128,
    u128_to_int,
)
from pricing._deck cimport N_CARDS, read_counts

#: Bust It's outcomes, in the order of its ways (then the total).
BUST_IT_OUTCOMES = ("SUITED_888", "SAME_COLOUR_888", "BUST_6", "BUST_7", "BUST_8", "BUST_9",
                    "BUST_TEN")
#: Buster's outcomes, in the order of its ways (then the total).
BUSTER_OUTCOMES = ("BUST_8_PLUS", "BUST_7", "BUST_6", "BUST_5", "BUST_3_OR_4")

cdef enum:
    MAX_CARDS = 13  # the longest dealer hand (see the module docstring)
    EIGHT = 7  # rank 8's first deck index is (8 - 1) * 4 = 28: EIGHT * 4


cdef struct Draws:
    int counts[N_VALUES]  # cards left of each value: ace, 2 … 9, ten
    int remaining
    bint h17
    u128 tail[MAX_CARDS + 1]  # tail[k] = (N - k) × … × (N - D + 1): scales a k-card weight
    u128 busts[MAX_CARDS + 1]  # ways of a bust with k cards
    int ran_out
    int too_deep
    int level_full
    int depth_limit
    int widest  # the most multisets on one level


cdef void _draw_levels(Draws* d, Level* cur, Level* nxt) noexcept nogil:
    """Draw from an empty hand until every hand stands or busts, adding each busted hand's
    ways to ``d.busts`` by its number of cards."""
    cdef int depth = 0  # the cards in the hands of ``cur``
    cdef u128 ended[N_OUTCOMES]
    cdef Level* swap
    level_clear(cur)
    level_add(cur, 0, 0, False, <u128>1)
    while cur.n > 0:
        if cur.n > d.widest:
            d.widest = cur.n
        if d.remaining - depth == 0:
            d.ran_out = 1
            return
        if depth >= d.depth_limit:
            d.too_deep = 1
            return
        memset(ended, 0, sizeof(ended))
        if level_draw(cur, nxt, d.counts, depth, d.h17, ended, NULL) < 0:
            d.level_full = 1
            return
        depth += 1
        d.busts[depth] = ended[OUT_BUST] * d.tail[depth]
        swap = cur
        cur = nxt
        nxt = swap


cdef inline long long _falling3(long long n) noexcept nogil:
    return n * (n - 1) * (n - 2) if n >= 3 else 0


cdef void _bust_it(const int* counts, const int* values, long long* ways) noexcept nogil:
    """Bust It's ways over ordered first three cards: ``ways[0:7]`` in the order of
    ``BUST_IT_OUTCOMES``. ``values`` holds the count of each value (ace, 2 … 9, ten)."""
    cdef int v1, v2, v3, out
    cdef long long w, third, colour
    cdef long long s[4]
    for out in range(7):
        ways[out] = 0
    # Values are 1-based here: value v has values[v - 1] cards (10: every ten-value card).
    for v1 in range(2, 11):
        for v2 in range(2, 11):
            if not 12 <= v1 + v2 <= 16:
                continue
            w = <long long>values[v1 - 1] * (values[v2 - 1] - (v1 == v2))
            if w <= 0:
                continue
            for v3 in range(22 - v1 - v2, 11):  # the third cards that bust: 6 … ten
                third = values[v3 - 1] - (v3 == v1) - (v3 == v2)
                if third > 0:
                    ways[2 + v3 - 6] += w * third
    # 8-8-8 pays its own award only: out of BUST_8's ways into the suited and coloured ones.
    for out in range(4):
        s[out] = counts[EIGHT * 4 + out]
    ways[0] = _falling3(s[0]) + _falling3(s[1]) + _falling3(s[2]) + _falling3(s[3])
    colour = _falling3(s[0] + s[3]) + _falling3(s[1] + s[2])  # clubs-spades, diamonds-hearts
    ways[1] = colour - ways[0]
    ways[4] -= colour


cdef int _run(object card_counts, bint h17, Draws* d, int* counts) except -1:
    """Read the shoe into ``counts`` and ``d`` and draw every dealer hand from it."""
    cdef int r, k
    cdef Level* levels
    read_counts(card_counts, counts)
    memset(d, 0, sizeof(Draws))
    for r in range(13):
        for k in range(4):
            d.counts[r if r < 9 else 9] += counts[r * 4 + k]
            d.remaining += counts[r * 4 + k]
    d.h17 = h17
    d.depth_limit = MAX_CARDS if d.remaining > MAX_CARDS else d.remaining
    d.tail[d.depth_limit] = 1
    for k in range(d.depth_limit - 1, -1, -1):
        d.tail[k] = d.tail[k + 1] * <u128>(d.remaining - k)
    levels = <Level*>malloc(2 * sizeof(Level))
    if levels == NULL:
        raise MemoryError()
    with nogil:
        _draw_levels(d, &levels[0], &levels[1])
    free(levels)
    if d.level_full:
        raise RuntimeError(
            f"more than {LEVEL_FULL} dealer hands of one length: kernel bound broken")
    if d.too_deep and not d.ran_out:
        raise RuntimeError(f"dealer hand longer than {MAX_CARDS} cards: kernel bound broken")
    return 0


def dealer_bust_ways(object card_counts, bint h17):
    """The ways of both bets for the next round dealt from a shoe holding ``card_counts[i]`` of
    deck index ``i``, the dealer hitting soft 17 if ``h17``.

    Returns ``(bust_it, buster, total)``: the ways of ``BUST_IT_OUTCOMES`` and of
    ``BUSTER_OUTCOMES`` over one common total ``N × … × (N − D + 1)`` (``D`` = min(13, ``N``);
    Bust It's three-card ways times ``(N − 3) × … × (N − D + 1)``). Everything is 0 (the bets
    are closed) when the shoe cannot complete every dealer hand.
    """
    cdef int counts[N_CARDS]
    cdef int k
    cdef long long bust_it[7]
    cdef Draws d
    cdef u128 eight_plus = 0, scale
    _run(card_counts, h17, &d, counts)
    if d.ran_out:
        return ((0,) * 7, (0,) * 5, 0)
    _bust_it(counts, d.counts, bust_it)
    # With D < 3 (two cards left) every hand stands on two cards: no three-card bust.
    scale = d.tail[3] if d.depth_limit >= 3 else 0
    for k in range(8, MAX_CARDS + 1):
        eight_plus += d.busts[k]
    return (
        tuple([u128_to_int(<u128>bust_it[k] * scale) for k in range(7)]),
        (u128_to_int(eight_plus), u128_to_int(d.busts[7]), u128_to_int(d.busts[6]),
         u128_to_int(d.busts[5]), u128_to_int(d.busts[3] + d.busts[4])),
        u128_to_int(d.tail[0]),
    )


def widest_level(object card_counts, bint h17):
    """The most dealer hands (multisets of cards) of one length the kernel holds for this
    shoe: the test suite checks it stays well within the kernel's bound."""
    cdef int counts[N_CARDS]
    cdef Draws d
    _run(card_counts, h17, &d, counts)
    return d.widest
