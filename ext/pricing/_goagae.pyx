# cython: language_level=3
"""Goa Gae (9K) kernel: the hand order as a precomputed strength table, exact counts of the
next hand's category and points over what is left of one deck, showdown counts of a known
(or partly known) hand against a random opponent, and the category bets priced through the
shared payout rule (``pricing._payout``).

The order — interpretation (docs/rules.md §4): categories POINTS < FLUSH < STRAIGHT < JQK <
STRAIGHT_FLUSH < TRIPLE; a hand takes the highest category it qualifies for. Within a category:

- POINTS: points, then the highest card (A > K > … > 2), then the higher suit among the cards
  of that rank;
- FLUSH: the suit, then the highest card;
- STRAIGHT: the sequence (Q-K-A > J-Q-K > … > A-2-3), then the suit of its top card;
- JQK: the highest card, then the higher suit among the cards of that rank;
- STRAIGHT_FLUSH: the suit, then the sequence;
- TRIPLE: 3 > A > K > Q > … > 4 > 2.

Every hand gets a sparse key ``category * 1024 + rank-in-category`` at import; the 540
distinct keys, sorted, are renumbered 0 … 539 into the dense ``strength`` stored for every
ordered triple of cards (52³ entries of 2 bytes), so the hot loops compare hands with one table
load.

The next hand's category and points are counted by rank triple (455 of them, suits only for
flushes), not hand by hand; the hand-by-hand path through the strength table stays as a
cross-check for the tests. A showdown never pairs hands: prefix counts of strengths per card
and inclusion-exclusion give the opponent hands below a strength that avoid the hand's cards.
"""

cimport cython
from libc.stdlib cimport calloc, free

from pricing._deck cimport card_index_of, card_text
from pricing._payout cimport BetPrice, make_price

from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput

CATEGORIES = ("POINTS", "FLUSH", "STRAIGHT", "JQK", "STRAIGHT_FLUSH", "TRIPLE")
BETS = ("TRIPLE", "STRAIGHT_FLUSH", "JQK", "STRAIGHT", "FLUSH", "NINE")
RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

cdef enum:
    SPARSE_STRIDE = 1024
    N_SPARSE = N_CATEGORIES * SPARSE_STRIDE
    MAX_STRENGTHS = 1024  # there are 540 distinct strengths; checked at import
    N_BETS = 6
    ROW = N_CARDS * N_CARDS

# Bet b wins on category BET_CATEGORY[b]; NINE (the last) on a POINTS hand of 9 points.
cdef int[N_BETS] BET_CATEGORY = [CAT_TRIPLE, CAT_STRAIGHT_FLUSH, CAT_JQK, CAT_STRAIGHT,
                                 CAT_FLUSH, CAT_POINTS]

cdef unsigned short STRENGTH[N_CARDS * N_CARDS * N_CARDS]
cdef unsigned char STRENGTH_CATEGORY[MAX_STRENGTHS]
# 1 when every hand of this strength is a POINTS hand of 9 points (the NINE bet).
cdef unsigned char STRENGTH_NINE[MAX_STRENGTHS]
cdef int N_STRENGTHS = 0
# Points of each card: A = 1, 2-9 face value, 10 J Q K = 0.
cdef unsigned char CARD_POINTS[N_CARDS]
# TRIPLE order by rank (1-13): 3 highest, then A, K, Q, ..., 4, 2 lowest.
cdef int[14] TRIPLE_ORDER = [-1, 11, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


cdef inline int high_order(int rank) noexcept nogil:
    """Single-card order, rank 1-13 to 0-12: 2 lowest, then 3 ... K, then A highest."""
    return 12 if rank == 1 else rank - 2


cdef inline void _order(int* r, int* s, int i, int j) noexcept nogil:
    cdef int t
    if r[i] > r[j] or (r[i] == r[j] and s[i] > s[j]):
        t = r[i]; r[i] = r[j]; r[j] = t
        t = s[i]; s[i] = s[j]; s[j] = t


cdef int sparse_key(int a, int b, int c) noexcept nogil:
    """The order of docs/rules.md §4 as ``category * 1024 + rank-in-category``."""
    cdef int r[3]
    cdef int s[3]
    cdef int top_rank, top_suit, seq, top = 0, points
    cdef bint flush, straight
    r[0] = (a >> 2) + 1; s[0] = a & 3
    r[1] = (b >> 2) + 1; s[1] = b & 3
    r[2] = (c >> 2) + 1; s[2] = c & 3
    # Sort by rank, then suit (three elements: a fixed network of three exchanges).
    _order(r, s, 0, 1)
    _order(r, s, 1, 2)
    _order(r, s, 0, 1)
    if r[0] == r[2]:
        return CAT_TRIPLE * SPARSE_STRIDE + TRIPLE_ORDER[r[0]]
    # The highest card, ace high; of two cards of that rank, the higher suit (sorted last).
    if r[0] == 1:
        top_rank = 1
        top_suit = s[1] if r[1] == 1 else s[0]
    else:
        top_rank = r[2]
        top_suit = s[2]
    flush = s[0] == s[1] and s[1] == s[2]
    seq = -1
    if r[1] == r[0] + 1 and r[2] == r[1] + 1:
        seq = r[0] - 1  # A-2-3 is 0 ... J-Q-K is 10; top card the highest rank
        top = 2
    elif r[0] == 1 and r[1] == 12 and r[2] == 13:
        seq = 11  # Q-K-A, the highest; its top card is the ace (sorted first)
        top = 0
    straight = seq >= 0
    if straight and flush:
        return CAT_STRAIGHT_FLUSH * SPARSE_STRIDE + s[0] * 12 + seq
    if r[0] >= 11:
        return CAT_JQK * SPARSE_STRIDE + high_order(top_rank) * 4 + top_suit
    if straight:
        return CAT_STRAIGHT * SPARSE_STRIDE + seq * 4 + s[top]
    if flush:
        return CAT_FLUSH * SPARSE_STRIDE + s[0] * 13 + high_order(top_rank)
    points = (CARD_POINTS[a] + CARD_POINTS[b] + CARD_POINTS[c]) % 10
    return CAT_POINTS * SPARSE_STRIDE + points * 52 + high_order(top_rank) * 4 + top_suit


cdef int _init_tables() except -1:
    global N_STRENGTHS
    cdef int a, b, c, k, key, rank
    cdef int* dense = <int*>calloc(N_SPARSE, sizeof(int))
    if dense == NULL:
        raise MemoryError()
    try:
        for a in range(N_CARDS):
            rank = (a >> 2) + 1
            CARD_POINTS[a] = rank if rank < 10 else 0
        for a in range(N_CARDS):
            for b in range(a + 1, N_CARDS):
                for c in range(b + 1, N_CARDS):
                    dense[sparse_key(a, b, c)] = 1
        N_STRENGTHS = 0
        for k in range(N_SPARSE):
            if dense[k]:
                if N_STRENGTHS >= MAX_STRENGTHS:
                    raise AssertionError("more distinct Goa Gae strengths than the table holds")
                STRENGTH_CATEGORY[N_STRENGTHS] = k // SPARSE_STRIDE
                STRENGTH_NINE[N_STRENGTHS] = (
                    k // SPARSE_STRIDE == CAT_POINTS and (k % SPARSE_STRIDE) // 52 == 9)
                dense[k] = N_STRENGTHS
                N_STRENGTHS += 1
        for a in range(N_CARDS):
            for b in range(N_CARDS):
                for c in range(N_CARDS):
                    if a != b and b != c and a != c:
                        STRENGTH[a * ROW + b * N_CARDS + c] = dense[sparse_key(a, b, c)]
                    else:
                        STRENGTH[a * ROW + b * N_CARDS + c] = 0
    finally:
        free(dense)
    return 0


_init_tables()


cdef unsigned short hand_strength(int a, int b, int c) noexcept nogil:
    return STRENGTH[a * ROW + b * N_CARDS + c]


cdef unsigned char strength_category(unsigned short strength) noexcept nogil:
    return STRENGTH_CATEGORY[strength]


def n_strengths():
    """How many distinct strengths there are (the strengths are 0 … n − 1)."""
    return N_STRENGTHS


def evaluate_indices(int a, int b, int c):
    """``(category index, points, strength)`` of the hand of three distinct deck indices.

    >>> evaluate_indices(4, 24, 28)[:2]  # 2C 7C 8C: a flush of 7 points
    (1, 7)
    """
    if not (0 <= a < N_CARDS and 0 <= b < N_CARDS and 0 <= c < N_CARDS):
        raise InvalidInput(f"deck indices must be 0-51, got {(a, b, c)}")
    if a == b or b == c or a == c:
        raise InvalidInput(f"a hand needs three different cards, got indices {(a, b, c)}")
    cdef unsigned short s = hand_strength(a, b, c)
    return (STRENGTH_CATEGORY[s], (CARD_POINTS[a] + CARD_POINTS[b] + CARD_POINTS[c]) % 10, s)


cdef int _take_out(object cards, dict index, object parse_index, unsigned char* present,
                   str what) except -1:
    """Take every card of ``cards`` (Cards or card texts) out of ``present``."""
    cdef int idx
    for card in cards:
        idx = card_index_of(card, index, parse_index)
        if not present[idx]:
            raise CardNotInShoe(
                f"card {card_text(idx)} in {what} is not in the deck: it is listed twice "
                "(a deck holds one of each)")
        present[idx] = 0
    return 0


cdef int _deck(const unsigned char* present, int* deck) noexcept nogil:
    cdef int i, n = 0
    for i in range(N_CARDS):
        if present[i]:
            deck[n] = i
            n += 1
    return n


cdef inline long long choose3(long long n) noexcept nogil:
    return n * (n - 1) * (n - 2) // 6 if n >= 3 else 0


cdef inline long long choose2(long long n) noexcept nogil:
    return n * (n - 1) // 2 if n >= 2 else 0


@cython.cdivision(True)
cdef long long _count_by_rank(const unsigned char* present, long long* categories,
                              long long* points, long long* nine) noexcept nogil:
    """Count the three-card hands left in ``present`` by category and by points; return their
    number. Works on rank triples r1 <= r2 <= r3 (455 of them), not on the up to 22,100 hands:
    the category of a hand is fixed by its ranks except for a flush, and the suited hands of
    three distinct ranks are counted suit by suit (docs/rules.md §4 categories)."""
    cdef int r1, r2, r3, s, p, cat
    cdef long long n[13]
    cdef long long ways, suited, total = 0
    cdef bint straight
    for cat in range(N_CATEGORIES):
        categories[cat] = 0
    for p in range(10):
        points[p] = 0
    nine[0] = 0
    for r1 in range(13):
        n[r1] = (present[r1 * 4] + present[r1 * 4 + 1] + present[r1 * 4 + 2]
                 + present[r1 * 4 + 3])
    for r1 in range(13):
        for r2 in range(r1, 13):
            for r3 in range(r2, 13):
                p = (CARD_POINTS[r1 * 4] + CARD_POINTS[r2 * 4] + CARD_POINTS[r3 * 4]) % 10
                if r1 == r3:
                    ways = choose3(n[r1])
                    categories[CAT_TRIPLE] += ways
                elif r1 == r2 or r2 == r3:
                    # A pair and a kicker: never a flush or a straight. Ranks are 0-based:
                    # J Q K are 10 11 12.
                    ways = (choose2(n[r1]) * n[r3]) if r1 == r2 else (n[r1] * choose2(n[r3]))
                    cat = CAT_JQK if r1 >= 10 else CAT_POINTS
                    categories[cat] += ways
                    if cat == CAT_POINTS and p == 9:
                        nine[0] += ways
                else:
                    ways = n[r1] * n[r2] * n[r3]
                    if ways == 0:
                        continue
                    suited = 0
                    for s in range(4):
                        suited += (present[r1 * 4 + s] & present[r2 * 4 + s]
                                   & present[r3 * 4 + s])
                    straight = ((r2 == r1 + 1 and r3 == r2 + 1)
                                or (r1 == 0 and r2 == 11 and r3 == 12))  # Q-K-A
                    if straight:
                        categories[CAT_STRAIGHT_FLUSH] += suited
                        # Distinct ranks all J Q K: J-Q-K itself, which JQK outranks.
                        categories[CAT_JQK if r1 >= 10 else CAT_STRAIGHT] += ways - suited
                    else:
                        categories[CAT_FLUSH] += suited
                        categories[CAT_POINTS] += ways - suited
                        if p == 9:
                            nine[0] += ways - suited
                points[p] += ways
                total += ways
    return total


@cython.cdivision(True)
cdef long long _count_by_enumeration(const unsigned char* present, long long* categories,
                                     long long* points, long long* nine) noexcept nogil:
    """The same counts as ``_count_by_rank``, hand by hand through the strength table: a
    second, independent path, for the tests."""
    cdef int deck[N_CARDS]
    cdef int n = _deck(present, deck)
    cdef int i, j, k, a, b, p
    cdef long long sums[28]
    cdef const unsigned short* row
    cdef unsigned short s
    for i in range(N_CATEGORIES):
        categories[i] = 0
    for i in range(28):
        sums[i] = 0
    nine[0] = 0
    for i in range(n - 2):
        a = deck[i]
        for j in range(i + 1, n - 1):
            b = deck[j]
            row = &STRENGTH[a * ROW + b * N_CARDS]
            p = CARD_POINTS[a] + CARD_POINTS[b]
            for k in range(j + 1, n):
                s = row[deck[k]]
                categories[STRENGTH_CATEGORY[s]] += 1
                sums[p + CARD_POINTS[deck[k]]] += 1
                nine[0] += STRENGTH_NINE[s]
    for i in range(10):
        points[i] = sums[i] + sums[i + 10] + (sums[i + 20] if i + 20 < 28 else 0)
    return choose3(n)


def hand_counts(object exposed, dict index, object parse_index, bint by_enumeration=False):
    """Count the next hand's outcomes over what is left of one deck after ``exposed``.

    Returns ``(total, categories, points, nine)``: the number of three-card hands, the number
    of each category (``CATEGORIES`` order), of each points total 0-9 (any category), and of
    POINTS hands with 9 points. ``by_enumeration`` takes the slower hand-by-hand path.
    """
    cdef unsigned char present[N_CARDS]
    cdef long long categories[N_CATEGORIES]
    cdef long long points[10]
    cdef long long nine, total
    cdef int i
    for i in range(N_CARDS):
        present[i] = 1
    _take_out(exposed, index, parse_index, present, "exposed")
    if by_enumeration:
        total = _count_by_enumeration(present, categories, points, &nine)
    else:
        total = _count_by_rank(present, categories, points, &nine)
    return (total, tuple([categories[i] for i in range(N_CATEGORIES)]),
            tuple([points[i] for i in range(10)]), nine)


def quote_cards(object exposed, dict index, object parse_index, tuple rules):
    """Prices of the six bets on the next hand after ``exposed`` left one deck; ``rules`` holds
    ``(rtp_bp, min_h, max_h)`` per bet in ``BETS`` order."""
    cdef unsigned char present[N_CARDS]
    cdef long long categories[N_CATEGORIES]
    cdef long long points[10]
    cdef long long nine, total, wins
    cdef int i
    cdef tuple rule
    cdef dict out = {}
    for i in range(N_CARDS):
        present[i] = 1
    _take_out(exposed, index, parse_index, present, "exposed")
    total = _count_by_rank(present, categories, points, &nine)
    for i in range(N_BETS):
        wins = nine if i == N_BETS - 1 else categories[BET_CATEGORY[i]]
        rule = <tuple>rules[i]
        out[BETS[i]] = make_price(<str>BETS[i], wins, total, rule[0], rule[1], rule[2])
    return out


cdef long long* _strength_prefix(const int* deck, int n, bint per_card) except NULL:
    """Per card of ``deck`` (rows 0-51, only if ``per_card``) and for all hands (row 52): how
    many three-card hands of the deck, containing that card, have a strength below s, at
    column s (0 … N_STRENGTHS). The caller frees the table."""
    cdef int width = N_STRENGTHS + 1
    cdef long long* table = <long long*>calloc((N_CARDS + 1) * width, sizeof(long long))
    cdef long long* all_row = table + N_CARDS * width
    cdef long long* row
    cdef const unsigned short* pair
    cdef int i, j, k, a, b, c, t
    cdef unsigned short s
    if table == NULL:
        raise MemoryError()
    with nogil:
        # Count at column s + 1, then prefix-sum: column s ends up counting strengths < s.
        for i in range(n - 2):
            a = deck[i]
            for j in range(i + 1, n - 1):
                b = deck[j]
                pair = &STRENGTH[a * ROW + b * N_CARDS]
                for k in range(j + 1, n):
                    c = deck[k]
                    s = pair[c] + 1
                    all_row[s] += 1
                    if per_card:
                        table[a * width + s] += 1
                        table[b * width + s] += 1
                        table[c * width + s] += 1
        for t in range(1, width):
            all_row[t] += all_row[t - 1]
        for i in range(n if per_card else 0):
            row = table + deck[i] * width
            for t in range(1, width):
                row[t] += row[t - 1]
    return table


def showdown_counts(object hand, object exposed, dict index, object parse_index):
    """``(wins, ties, losses, total)`` of ``hand`` (1-3 cards, the rest drawn from the deck)
    against one opponent hand drawn from what is left after ``exposed`` and the hand.

    Outcomes are the equally likely pairs (completion of the hand, opponent hand). The count
    of opponent hands below strength s that avoid the completion cards is found by
    inclusion-exclusion over prefix counts (``_strength_prefix``), not by pairing hands.
    """
    cdef unsigned char present[N_CARDS]
    cdef int deck[N_CARDS]
    cdef int known[3]
    cdef int k = 0, n, i, j, z, x, y, need
    cdef long long wins = 0, ties = 0, total, lt, eq, c_lt, c_eq
    cdef long long* table
    cdef long long* all_row
    cdef long long* row_x
    cdef long long* row_y
    cdef const unsigned short* pair
    cdef unsigned short s, t
    cdef int width = N_STRENGTHS + 1
    for i in range(N_CARDS):
        present[i] = 1
    for card in hand:
        if k == 3:
            raise InvalidInput(f"a Goa Gae hand has at most 3 cards, got more: {list(hand)!r}")
        known[k] = card_index_of(card, index, parse_index)
        if not present[known[k]]:
            raise CardNotInShoe(f"card {card_text(known[k])} is in the hand twice")
        present[known[k]] = 0
        k += 1
    if k == 0:
        raise InvalidInput("a hand needs 1 to 3 known cards, got none")
    _take_out(exposed, index, parse_index, present, "exposed (or also in the hand)")
    n = _deck(present, deck)
    need = 3 - k + 3
    if n < need:
        raise IllegalMove(
            f"only {n} cards left in the deck: completing a {k}-card hand and dealing an "
            f"opponent needs {need}")
    table = _strength_prefix(deck, n, k < 3)
    all_row = table + N_CARDS * width
    try:
        with nogil:
            if k == 3:
                s = hand_strength(known[0], known[1], known[2])
                wins = all_row[s]
                ties = all_row[s + 1] - all_row[s]
                total = choose3(n)
            elif k == 2:
                pair = &STRENGTH[known[0] * ROW + known[1] * N_CARDS]
                for i in range(n):
                    x = deck[i]
                    s = pair[x]
                    row_x = table + x * width
                    wins += all_row[s] - row_x[s]
                    ties += (all_row[s + 1] - all_row[s]) - (row_x[s + 1] - row_x[s])
                total = n * choose3(n - 1)
            else:
                for i in range(n - 1):
                    x = deck[i]
                    row_x = table + x * width
                    for j in range(i + 1, n):
                        y = deck[j]
                        row_y = table + y * width
                        s = hand_strength(known[0], x, y)
                        # Opponent hands holding both x and y: one per third card z.
                        pair = &STRENGTH[x * ROW + y * N_CARDS]
                        c_lt = 0
                        c_eq = 0
                        for z in range(n):
                            if z != i and z != j:
                                t = pair[deck[z]]
                                c_lt += t < s
                                c_eq += t == s
                        lt = all_row[s] - row_x[s] - row_y[s] + c_lt
                        eq = ((all_row[s + 1] - all_row[s]) - (row_x[s + 1] - row_x[s])
                              - (row_y[s + 1] - row_y[s]) + c_eq)
                        wins += lt
                        ties += eq
                total = choose2(n) * choose3(n - 2)
    finally:
        free(table)
    return (wins, ties, total - wins - ties, total)


def disjoint_tied_pairs():
    """The number of unordered pairs of DISJOINT hands of one deck with equal strength,
    counted exhaustively over all 22,100 hands (docs/rules.md §4 says: none)."""
    cdef int deck[N_CARDS]
    cdef int i, a, b, c, z
    cdef long long pairs = 0, eq
    cdef long long* table
    cdef long long* all_row
    cdef int width = N_STRENGTHS + 1
    cdef unsigned short s
    cdef int[3][2] sides = [[0, 1], [0, 2], [1, 2]]
    cdef int h[3]
    cdef int p
    for i in range(N_CARDS):
        deck[i] = i
    table = _strength_prefix(deck, N_CARDS, True)
    all_row = table + N_CARDS * width
    try:
        with nogil:
            for a in range(N_CARDS):
                for b in range(a + 1, N_CARDS):
                    for c in range(b + 1, N_CARDS):
                        h[0] = a; h[1] = b; h[2] = c
                        s = hand_strength(a, b, c)
                        # Hands of strength s avoiding a, b, c: inclusion-exclusion, where
                        # the hand itself is the one holding all three.
                        eq = all_row[s + 1] - all_row[s]
                        for i in range(3):
                            eq -= table[h[i] * width + s + 1] - table[h[i] * width + s]
                        for p in range(3):
                            for z in range(N_CARDS):
                                if (z != h[sides[p][0]] and z != h[sides[p][1]]
                                        and hand_strength(h[sides[p][0]], h[sides[p][1]], z)
                                        == s):
                                    eq += 1
                        eq -= 1
                        pairs += eq
    finally:
        free(table)
    return pairs // 2
