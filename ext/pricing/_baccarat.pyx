# cython: language_level=3
"""Baccarat kernel: the exact ways of every way a round can end (docs/rules.md §7), over what is
left of a shoe of 1–8 decks, from any point of the round; and the pair bets' ways in closed form.

The deal is enumerated over the ten VALUE classes (ace, 2 … 9, and the tens and faces, which
count 0): a path's ways are the product of the counts it draws as they fall (``n_v`` for a
first card of value ``v``, ``n_v - 1`` for a second, …). The first four cards are drawn as
two unordered pairs, the Player's and the Banker's, each counted once with its multiplicity
(``2 n_a n_b`` for ``a < b``): 55 × 55 draws instead of 10⁴. Paths end after 4, 5 or 6 cards;
each is brought to one common denominator, the falling factorial ``N (N - 1) … (N - J + 1)``
of the ``N`` cards left over the ``J`` cards still to come at most, by the ways the cards it
does not draw could fall: a path of ``j`` cards is multiplied by ``(N - j) … (N - J + 1)``.
With 8 decks that total is at most 416⁶ < 5.3 × 10¹⁵, well inside a signed 64-bit integer
(9.2 × 10¹⁸); every partial sum is below it.

The ways land in a table indexed by (Player cards, Banker cards, Player total, Banker total):
2 × 2 × 10 × 10 cells. Every bet but the pairs is a function of the cell, so the caller hands
a map from cell to outcome code per bet (``pricing.games.baccarat.odds`` builds it from the
bets' rules) and the ways of each code are summed here.

Pairs are closed forms over the counts of each rank (a pair) or of each card (a perfect pair):
the unknown first cards of the hands are a uniform draw from what is left.

The drawing rules are written here once (``_banker_draws``, ``_next_hand``) and once in
``pricing/games/baccarat/tableau.py``.
"""

from libc.string cimport memset

from pricing._deck cimport N_CARDS, read_counts

cdef enum:
    N_VALUES = 10
    N_RANKS = 13
    N_CELLS = 400  # (player cards - 2, banker cards - 2, player total, banker total)
    N_PAIRS = 55  # unordered pairs of values
    MAX_CODES = 16
    ROUND_CARDS = 6  # a round deals 6 cards at the most: it needs that many to start
    NO_CARD = -1
    NOBODY = 0
    PLAYER = 1
    BANKER = 2

cdef int PAIR_LO[N_PAIRS]
cdef int PAIR_HI[N_PAIRS]


cdef void _init_pairs():
    cdef int lo, hi, k = 0
    for lo in range(N_VALUES):
        for hi in range(lo, N_VALUES):
            PAIR_LO[k] = lo
            PAIR_HI[k] = hi
            k += 1


_init_pairs()


# --- The drawing rules (docs/rules.md §7) ---------------------------------------------------

cdef inline bint _banker_draws(int banker_total, int player_third) noexcept nogil:
    """A Banker on two cards and no natural: does it draw? ``player_third`` is the value of
    the Player's third card, ``NO_CARD`` when the Player stood."""
    if player_third == NO_CARD:
        return banker_total <= 5
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return player_third != 8
    if banker_total == 4:
        return 2 <= player_third <= 7
    if banker_total == 5:
        return 4 <= player_third <= 7
    if banker_total == 6:
        return 6 <= player_third <= 7
    return False


cdef inline int _next_hand(int pt, int pc, int p3, int bt, int bc) noexcept nogil:
    """Once the first four are out: the hand the next card goes to (``NOBODY``: the round is
    complete). ``pt``, ``pc``: the Player's total and cards; ``p3`` its third card's value
    (``NO_CARD`` without one); ``bt``, ``bc`` the Banker's."""
    if pc == 2 and bc == 2:
        if pt >= 8 or bt >= 8:
            return NOBODY  # a natural: both hands stand
        if pt <= 5:
            return PLAYER
    if bc == 2 and _banker_draws(bt, p3):
        return BANKER
    return NOBODY


# --- The enumeration ------------------------------------------------------------------------

cdef inline int _cell(int pt, int bt, int pc, int bc) noexcept nogil:
    return ((pc - 2) * 2 + bc - 2) * 100 + pt * 10 + bt


cdef inline int _add(int total, int v) noexcept nogil:
    total += v
    return total - 10 if total >= 10 else total


cdef void _banker_third(int* n, int pt, int pc, int bt, long long w,
                        long long* table) noexcept nogil:
    """The Banker's third card, the last of any round: every value into its cell."""
    cdef long long* row = table + _cell(pt, 0, pc, 3)
    cdef int v
    # Two straight runs (totals bt … 9, then 0 … bt - 1) rather than a modulo per value: the
    # innermost loop of the enumeration, which the compiler can unroll.
    for v in range(N_VALUES - bt):
        row[bt + v] += w * n[v]
    for v in range(N_VALUES - bt, N_VALUES):
        row[bt + v - N_VALUES] += w * n[v]


cdef void _draws(int* n, int pt, int pc, int p3, int bt, int bc, long long w,
                 long long* table) noexcept nogil:
    """From a state past the first four, ``w`` ways to reach it: every way to finish."""
    cdef int hand = _next_hand(pt, pc, p3, bt, bc)
    cdef int v, c
    if hand == NOBODY:
        table[_cell(pt, bt, pc, bc)] += w
    elif hand == BANKER:
        _banker_third(n, pt, pc, bt, w, table)
    else:
        for v in range(N_VALUES):
            c = n[v]
            if c:
                n[v] = c - 1
                _draws(n, _add(pt, v), 3, v, bt, bc, w * c, table)
                n[v] = c


cdef inline int _options(int missing) noexcept nogil:
    """How many draws of a hand's ``missing`` first cards are tried: none, a value, a pair."""
    return 1 if missing == 0 else N_VALUES if missing == 1 else N_PAIRS


cdef inline long long _take(int* n, int missing, int k, int* drawn) noexcept nogil:
    """Draw option ``k`` of a hand's ``missing`` first cards out of ``n``: its ways (0: not
    possible, ``n`` unchanged), the values taken in ``drawn`` (``NO_CARD`` for none)."""
    cdef int lo, hi
    cdef long long w
    drawn[0] = NO_CARD
    drawn[1] = NO_CARD
    if missing == 0:
        return 1
    if missing == 1:
        if n[k] == 0:
            return 0
        drawn[0] = k
        n[k] -= 1
        return n[k] + 1
    lo = PAIR_LO[k]
    hi = PAIR_HI[k]
    w = n[lo]
    if w == 0:
        return 0
    n[lo] -= 1
    w *= n[hi]
    if w == 0:
        n[lo] += 1
        return 0
    n[hi] -= 1
    drawn[0] = lo
    drawn[1] = hi
    return w if lo == hi else 2 * w  # (lo, hi) and (hi, lo)


cdef inline void _put_back(int* n, int* drawn) noexcept nogil:
    """Return the values ``_take`` drew."""
    cdef int i
    for i in range(2):
        if drawn[i] != NO_CARD:
            n[drawn[i]] += 1


cdef inline int _drawn(int* drawn) noexcept nogil:
    """The sum of the values ``_take`` drew."""
    cdef int i, added = 0
    for i in range(2):
        if drawn[i] != NO_CARD:
            added += drawn[i]
    return added


cdef void _first_four(int* n, int pt, int missing_p, int bt, int missing_b,
                      long long* table) noexcept nogil:
    """Deal the first four cards still missing (any order deals them alike: the cards to come
    are exchangeable), then every way to finish."""
    cdef int kp, kb
    cdef int dp[2]
    cdef int db[2]
    cdef long long wp, wb
    for kp in range(_options(missing_p)):
        wp = _take(n, missing_p, kp, dp)
        if wp == 0:
            continue
        for kb in range(_options(missing_b)):
            wb = _take(n, missing_b, kb, db)
            if wb == 0:
                continue
            _draws(n, (pt + _drawn(dp)) % 10, 2, NO_CARD, (bt + _drawn(db)) % 10, 2,
                   wp * wb, table)
            _put_back(n, db)
        _put_back(n, dp)


cdef inline long long _falling(long long n, int k) noexcept nogil:
    """n (n - 1) … (n - k + 1); 1 for k = 0."""
    cdef long long out = 1
    cdef int i
    for i in range(k):
        out *= n - i
    return out


cdef inline int _value(int idx) noexcept nogil:
    cdef int rank = (idx >> 2) + 1
    return rank if rank < 10 else 0


cdef list _indices(object cards, str name):
    out = [int(c) for c in cards]
    if len(out) > 3:
        raise ValueError(f"the {name} holds at most three cards, got {len(out)}")
    for idx in out:
        if not 0 <= idx < N_CARDS:
            raise ValueError(f"card index must be 0-51, got {idx} in the {name}'s cards")
    return out


cdef long long _cells(int* counts, long long n_cards, list player, list banker,
                      long long* table) except -2:
    """Fill ``table`` with the ways of each cell over the common total, returned (0 when the
    round cannot be dealt: every cell 0)."""
    cdef int n[N_VALUES]
    cdef int i, pc = len(player), bc = len(banker), pt = 0, bt = 0, p3 = NO_CARD
    cdef int dealt = pc + bc, cell, drawn, most = -1
    memset(table, 0, N_CELLS * sizeof(long long))
    if (pc > 2 or bc > 2) and (pc < 2 or bc < 2):
        raise ValueError("a third card comes after the first four")
    if n_cards + dealt < ROUND_CARDS:
        return 0
    memset(n, 0, sizeof(n))
    for i in range(N_CARDS):
        n[_value(i)] += counts[i]
    for idx in player:
        pt = (pt + _value(idx)) % 10
    for idx in banker:
        bt = (bt + _value(idx)) % 10
    if pc == 3:
        p3 = _value(player[2])
    with nogil:
        if pc >= 2 and bc >= 2:
            _draws(n, pt, pc, p3, bt, bc, 1, table)
        else:
            _first_four(n, pt, 2 - pc, bt, 2 - bc, table)
        # The common denominator: the longest path's cards.
        for cell in range(N_CELLS):
            if table[cell]:
                drawn = cell // 200 + (cell // 100) % 2 + 4 - dealt
                most = max(most, drawn)
        for cell in range(N_CELLS):
            if table[cell]:
                drawn = cell // 200 + (cell // 100) % 2 + 4 - dealt
                table[cell] *= _falling(n_cards - drawn, most - drawn)
    return _falling(n_cards, most) if most >= 0 else 0


def cell_ways(object card_counts, object player, object banker):
    """The ways of each of the 400 cells (index ``((pc - 2) * 2 + bc - 2) * 100 + pt * 10 +
    bt``: the hands' cards and totals at the end of the round) and their common total, for
    a round with ``player`` and ``banker`` (deck indices) dealt so far from a shoe now holding
    ``card_counts[i]`` of deck index ``i``."""
    cdef int counts[N_CARDS]
    cdef long long table[N_CELLS]
    cdef long long n_cards = read_counts(card_counts, counts)
    total = _cells(counts, n_cards, _indices(player, "player"), _indices(banker, "banker"),
                   table)
    return tuple([table[i] for i in range(N_CELLS)]), total


# --- The pair bets ----------------------------------------------------------------------------

cdef void _pair_ways(int* c, int k, long long n, int* known_p, int np, int* known_b, int nb,
                     long long* out) noexcept nogil:
    """The ways the Player's first two cards pair, the Banker's do, both do, and the total,
    over the classes ``c[0..k)`` (ranks or cards) of the ``n`` cards left, given the hands'
    known first cards (``np`` and ``nb`` of them, 0–2): the unknown ones are drawn from what
    is left, the Player's first (any order counts them alike)."""
    cdef int up = 2 - np, ub = 2 - nb, i
    cdef long long s2 = 0, own_p, own_b, both, cr, cs
    for i in range(k):
        s2 += <long long>c[i] * (c[i] - 1)
    # Each hand's pairs over its own unknown cards: known (1 or 0), one card to match, or any.
    own_p = (known_p[0] == known_p[1]) if np == 2 else c[known_p[0]] if np == 1 else s2
    own_b = (known_b[0] == known_b[1]) if nb == 2 else c[known_b[0]] if nb == 1 else s2
    out[0] = own_p * _falling(n - up, ub)
    out[1] = own_b * _falling(n - ub, up)
    if up == 0:
        both = own_p * out[1]
    elif ub == 0:
        both = own_b * out[0]
    elif up == 1 and ub == 1:
        cr = c[known_p[0]]
        cs = c[known_b[0]]
        both = cr * (cs - (known_p[0] == known_b[0]))
    elif up == 1:  # the Player's card matches one of its rank; the Banker's two pair of the rest
        cr = c[known_p[0]]
        both = cr * (s2 - 2 * (cr - 1))
    elif ub == 1:
        cs = c[known_b[0]]
        both = cs * (s2 - 2 * (cs - 1))
    else:  # two of class i to the Player: c_i (c_i - 1) pairs fewer by 4 c_i - 6 for the Banker
        both = 0
        for i in range(k):
            both += <long long>c[i] * (c[i] - 1) * (s2 - 4 * c[i] + 6)
    out[2] = both
    out[3] = _falling(n, up + ub)


cdef tuple _pairs(int* counts, long long n_cards, list player, list banker, bint by_card):
    cdef int c[N_CARDS]
    cdef int kp[2]
    cdef int kb[2]
    cdef long long out[4]
    cdef int i, k = N_CARDS if by_card else N_RANKS
    cdef int np = min(len(player), 2), nb = min(len(banker), 2)
    if n_cards + len(player) + len(banker) < ROUND_CARDS:
        return (0, 0, 0, 0)
    memset(c, 0, sizeof(c))
    for i in range(N_CARDS):
        c[i if by_card else i >> 2] += counts[i]
    for i in range(np):
        kp[i] = player[i] if by_card else player[i] >> 2
    for i in range(nb):
        kb[i] = banker[i] if by_card else banker[i] >> 2
    _pair_ways(c, k, n_cards, kp, np, kb, nb, out)
    return (out[0], out[1], out[2], out[3])


# --- The entry point --------------------------------------------------------------------------

def round_ways(object card_counts, object player, object banker, bytes codes, bytes widths):
    """Every bet's ways for a round with ``player`` and ``banker`` (deck indices) dealt so far
    from a shoe now holding ``card_counts[i]`` of deck index ``i``.

    ``codes`` holds 400 bytes per bet: each cell's outcome code (0 a loss, 1 … its width);
    ``widths`` each bet's number of outcome codes (at most 15). Returns ``(ways, total,
    rank_pairs, card_pairs)``: per bet, the ways of codes 1 … its width; the common total (0:
    fewer than 6 cards to deal the round from); and, by rank and by card, ``(player pairs,
    banker pairs, both pair, total)``."""
    cdef int counts[N_CARDS]
    cdef long long table[N_CELLS]
    cdef long long acc[MAX_CODES]
    cdef long long n_cards = read_counts(card_counts, counts)
    cdef const unsigned char[:] code = codes
    cdef int live[N_CELLS]
    cdef int n_live = 0, bet, i, width, cell, offset, n_bets = len(widths)
    p = _indices(player, "player")
    b = _indices(banker, "banker")
    if len(codes) != n_bets * N_CELLS:
        raise ValueError(f"need 400 outcome codes a bet, got {len(codes)} for {n_bets} bets")
    total = _cells(counts, n_cards, p, b, table)
    for cell in range(N_CELLS):
        if table[cell]:
            live[n_live] = cell
            n_live += 1
    ways = []
    for bet in range(n_bets):
        width = widths[bet]
        if width >= MAX_CODES:
            raise ValueError(f"a bet has at most {MAX_CODES - 1} outcome codes, got {width}")
        offset = bet * N_CELLS
        memset(acc, 0, sizeof(acc))
        for i in range(n_live):
            # The mask keeps a code out of range from writing outside ``acc``.
            acc[code[offset + live[i]] & (MAX_CODES - 1)] += table[live[i]]
        ways.append(tuple([acc[i] for i in range(1, width + 1)]))
    return ways, total, _pairs(counts, n_cards, p, b, False), _pairs(counts, n_cards, p, b, True)
