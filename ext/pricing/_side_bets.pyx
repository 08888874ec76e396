# cython: language_level=3
"""Side-bet kernel: the exact ways of the side-bet library's bets (docs/rules.md §3.8) over what
is left of a shoe of 1–8 decks, and the outcome of one dealt hand of each.

Three-card bets — 21+3, Hot 3, Lucky Lucky, Top 3, Match the Dealer — read the seat's first
two cards and the dealer's up card. A deal is an unordered pair of cards for the seat and an
up card from the rest: ``C(N, 2) × (N − 2)`` equally likely deals of ``N`` cards. A bet's
outcome depends only on the three cards' kinds (deck index 0–51), so at import one table
gives, for every seat pair of kinds ``(i, j)`` and up card kind ``k``, the deal's *class*: the
outcome of every bet at once (a few dozen distinct classes). One pass over the shoe adds each
deal's integer weight to its class — ``c_i × c_j`` seat pairs (``C(c_i, 2)`` when ``i = j``)
times the ``c_k`` up cards left of kind ``k`` (less the seat's own) — and each bet's ways are
then sums over the classes.

Two-card bets — Lucky Ladies, Over 13, Under 13 — read the seat's first two cards, weighted
the same way; Lucky Ladies counts the dealer's first two cards too, out of
``C(N, 2) × C(N − 2, 2)`` deals (at most about 7.4e9 with 8 decks: 64-bit integers hold every
count here, and the products of the totals are made as Python ``int``s all the same).

Cards are counted by deck index ``(rank - 1) * 4 + suit`` (suits C, D, H, S = 0–3), as in
``pricing.cards``. Outcome numbers are 1-based positions in ``OUTCOMES[bet]``; 0 is a loss.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memset

from pricing._deck cimport N_CARDS, read_counts

#: The three-card bets, in the order of ``three_card_ways``' passes.
THREE_CARD_BETS = ("TWENTY_ONE_PLUS_THREE", "HOT_3", "LUCKY_LUCKY", "TOP_3", "MATCH_THE_DEALER")
#: The two-card bets.
TWO_CARD_BETS = ("LUCKY_LADIES", "OVER_13", "UNDER_13")
#: Every bet's winning outcomes, highest award first (outcome ``n`` is ``OUTCOMES[bet][n - 1]``).
OUTCOMES = {
    "TWENTY_ONE_PLUS_THREE": ("SUITED_TRIPS", "STRAIGHT_FLUSH", "TRIPS", "STRAIGHT", "FLUSH"),
    "HOT_3": ("SEVENS", "SUITED_21", "TWENTY_ONE", "TWENTY", "NINETEEN"),
    "LUCKY_LUCKY": (
        "SUITED_777", "SUITED_678", "SEVENS", "SIX_SEVEN_EIGHT", "SUITED_21", "TWENTY_ONE",
        "TWENTY", "NINETEEN",
    ),
    "TOP_3": ("SUITED_TRIPS", "STRAIGHT_FLUSH", "TRIPS"),
    "MATCH_THE_DEALER": (
        "TWO_SUITED", "SUITED_AND_UNSUITED", "TWO_UNSUITED", "SUITED", "UNSUITED",
    ),
    "LUCKY_LADIES": ("QH_PAIR_DEALER_BLACKJACK", "QH_PAIR", "MATCHED_20", "SUITED_20", "ANY_20"),
    "OVER_13": ("OVER",),
    "UNDER_13": ("UNDER",),
}

cdef enum:
    N_THREE = 5  # three-card bets
    BET_21_3 = 0
    BET_HOT_3 = 1
    BET_LUCKY_LUCKY = 2
    BET_TOP_3 = 3
    BET_MATCH = 4
    MAX_OUTCOMES = 9  # a loss and up to eight winning outcomes
    # A class code is every three-card bet's outcome as one number in base MAX_OUTCOMES.
    N_CODES = MAX_OUTCOMES * MAX_OUTCOMES * MAX_OUTCOMES * MAX_OUTCOMES * MAX_OUTCOMES
    MAX_CLASSES = 1024
    N_TRIPLES = N_CARDS * N_CARDS * N_CARDS

    ACE = 1
    QUEEN = 12
    QUEEN_OF_HEARTS = (QUEEN - 1) * 4 + 2

    # Outcome numbers (1-based positions in OUTCOMES).
    SUITED_TRIPS = 1
    STRAIGHT_FLUSH = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5

    LL_SUITED_777 = 1
    LL_SUITED_678 = 2
    LL_SEVENS = 3
    LL_SIX_SEVEN_EIGHT = 4
    LL_SUITED_21 = 5
    LL_TWENTY_ONE = 6
    LL_TWENTY = 7
    LL_NINETEEN = 8

    HOT_SEVENS = 1
    HOT_SUITED_21 = 2
    HOT_TWENTY_ONE = 3
    HOT_TWENTY = 4
    HOT_NINETEEN = 5

    MATCH_TWO_SUITED = 1
    MATCH_SUITED_AND_UNSUITED = 2
    MATCH_TWO_UNSUITED = 3
    MATCH_SUITED = 4
    MATCH_UNSUITED = 5

    LADIES_QH_PAIR_DEALER_BLACKJACK = 1
    LADIES_QH_PAIR = 2
    LADIES_MATCHED_20 = 3
    LADIES_SUITED_20 = 4
    LADIES_ANY_20 = 5


cdef inline int _rank(int idx) noexcept nogil:
    """1 (ace) … 13 (king)."""
    return (idx >> 2) + 1


cdef inline int _suit(int idx) noexcept nogil:
    return idx & 3


cdef inline int _points(int rank) noexcept nogil:
    """A card's blackjack points with an ace as 1: J, Q, K count 10."""
    return 10 if rank >= 10 else rank


cdef inline int _blackjack_total(int hard, bint ace) noexcept nogil:
    """The best blackjack total of cards worth ``hard`` points (aces as 1): one ace counts 11
    when that does not take the total over 21. Over 21 is a bust."""
    return hard + 10 if ace and hard + 10 <= 21 else hard


# ---------------------------------------------------------------------------------------------
# The three-card bets, one card hand at a time: the seat's cards a, b and the up card c
# ---------------------------------------------------------------------------------------------

cdef int _poker_hand(int a, int b, int c) noexcept nogil:
    """21+3's outcome: the three cards as a three-card poker hand. A straight is three ranks in
    a row, the ace low (A-2-3) or high (Q-K-A), never both (K-A-2 is not one)."""
    cdef int ra = _rank(a), rb = _rank(b), rc = _rank(c), lo, mid, hi
    cdef bint flush = _suit(a) == _suit(b) == _suit(c)
    if ra == rb == rc:
        return SUITED_TRIPS if flush else TRIPS
    lo = min(ra, rb, rc)
    hi = max(ra, rb, rc)
    mid = ra + rb + rc - lo - hi
    if (lo + 1 == mid and mid + 1 == hi) or (lo == ACE and mid == 12 and hi == 13):
        return STRAIGHT_FLUSH if flush else STRAIGHT
    return FLUSH if flush else 0


cdef int _top_3(int a, int b, int c) noexcept nogil:
    """Top 3's outcome: suited trips, a straight flush or trips (21+3's top three)."""
    cdef int hand = _poker_hand(a, b, c)
    return hand if hand <= TRIPS else 0


cdef int _lucky_lucky(int a, int b, int c) noexcept nogil:
    """Lucky Lucky's outcome: 7-7-7 and 6-7-8 (suited or not) first, then the blackjack
    total of the three cards, 21 suited or not, 20 or 19."""
    cdef int ra = _rank(a), rb = _rank(b), rc = _rank(c)
    cdef int lo = min(ra, rb, rc), hi = max(ra, rb, rc)
    cdef int mid = ra + rb + rc - lo - hi
    cdef bint suited = _suit(a) == _suit(b) == _suit(c)
    cdef int total
    if ra == rb == rc == 7:
        return LL_SUITED_777 if suited else LL_SEVENS
    if lo == 6 and mid == 7 and hi == 8:
        return LL_SUITED_678 if suited else LL_SIX_SEVEN_EIGHT
    total = _blackjack_total(_points(ra) + _points(rb) + _points(rc),
                             ra == ACE or rb == ACE or rc == ACE)
    if total == 21:
        return LL_SUITED_21 if suited else LL_TWENTY_ONE
    if total == 20:
        return LL_TWENTY
    if total == 19:
        return LL_NINETEEN
    return 0


cdef int _hot_3(int a, int b, int c) noexcept nogil:
    """Hot 3's outcome: 7-7-7 (any suits), else the three cards' blackjack total: 21 suited
    or not, 20 or 19. (Lucky Lucky's outcomes, merged: a 6-7-8 is a 21.)"""
    cdef int ll = _lucky_lucky(a, b, c)
    if ll == LL_SUITED_777 or ll == LL_SEVENS:
        return HOT_SEVENS
    if ll == LL_SUITED_678 or ll == LL_SUITED_21:
        return HOT_SUITED_21
    if ll == LL_SIX_SEVEN_EIGHT or ll == LL_TWENTY_ONE:
        return HOT_TWENTY_ONE
    if ll == LL_TWENTY:
        return HOT_TWENTY
    if ll == LL_NINETEEN:
        return HOT_NINETEEN
    return 0


cdef int _match_the_dealer(int a, int b, int up) noexcept nogil:
    """Match the Dealer's outcome: how many of the seat's two cards match the up card's rank in
    the same suit (suited) and in another suit (unsuited)."""
    cdef int suited = 0, unsuited = 0
    if _rank(a) == _rank(up):
        if _suit(a) == _suit(up):
            suited += 1
        else:
            unsuited += 1
    if _rank(b) == _rank(up):
        if _suit(b) == _suit(up):
            suited += 1
        else:
            unsuited += 1
    if suited == 2:
        return MATCH_TWO_SUITED
    if suited == 1:
        return MATCH_SUITED_AND_UNSUITED if unsuited == 1 else MATCH_SUITED
    if unsuited == 2:
        return MATCH_TWO_UNSUITED
    return MATCH_UNSUITED if unsuited == 1 else 0


cdef inline void _three_card_outcomes(int a, int b, int c, int* out) noexcept nogil:
    out[BET_21_3] = _poker_hand(a, b, c)
    out[BET_HOT_3] = _hot_3(a, b, c)
    out[BET_LUCKY_LUCKY] = _lucky_lucky(a, b, c)
    out[BET_TOP_3] = _top_3(a, b, c)
    out[BET_MATCH] = _match_the_dealer(a, b, c)


# The class table, built once at import: _class_of[(i * 52 + j) * 52 + k] is the class of the
# deal of seat cards i, j and up card k; _class_outcome[cls][bet] its outcome of each bet.
cdef unsigned short _class_of[N_TRIPLES]
cdef unsigned char _class_outcome[MAX_CLASSES][N_THREE]
cdef int _n_classes = 0


cdef int _build_classes() except -1:
    global _n_classes
    cdef int i, j, k, bet, code, cls
    cdef int out[N_THREE]
    cdef int* class_of_code = <int*>PyMem_Malloc(N_CODES * sizeof(int))
    if class_of_code == NULL:
        raise MemoryError()
    try:
        for code in range(N_CODES):
            class_of_code[code] = -1
        for i in range(N_CARDS):
            for j in range(N_CARDS):
                for k in range(N_CARDS):
                    _three_card_outcomes(i, j, k, out)
                    code = 0
                    for bet in range(N_THREE):
                        code = code * MAX_OUTCOMES + out[bet]
                    cls = class_of_code[code]
                    if cls < 0:
                        if _n_classes >= MAX_CLASSES:
                            raise RuntimeError(f"more than {MAX_CLASSES} deal classes")
                        cls = _n_classes
                        _n_classes += 1
                        class_of_code[code] = cls
                        for bet in range(N_THREE):
                            _class_outcome[cls][bet] = <unsigned char>out[bet]
                    _class_of[(i * N_CARDS + j) * N_CARDS + k] = <unsigned short>cls
    finally:
        PyMem_Free(class_of_code)
    return 0


_build_classes()


cdef void _three_card_pass(const int* counts, long long* by_class) noexcept nogil:
    """Add the weight of every deal to its class: ``by_class[cls]`` ways."""
    cdef int present[N_CARDS]
    cdef int m = 0, a, b, x, i, j, k
    cdef long long w
    cdef const unsigned short* row
    for i in range(N_CARDS):
        if counts[i] > 0:
            present[m] = i
            m += 1
    for a in range(m):
        i = present[a]
        for b in range(a, m):
            j = present[b]
            if a == b:
                w = <long long>counts[i] * (counts[i] - 1) // 2
                if w == 0:
                    continue
            else:
                w = <long long>counts[i] * counts[j]
            row = &_class_of[(i * N_CARDS + j) * N_CARDS]
            # Every up card left, then the seat's own two cards taken back out.
            for x in range(m):
                k = present[x]
                by_class[row[k]] += w * counts[k]
            by_class[row[i]] -= w
            by_class[row[j]] -= w


def three_card_ways(object card_counts):
    """The ways of every three-card bet's winning outcomes for the next round dealt from a
    shoe holding ``card_counts[i]`` of deck index ``i``: ``{bet: (ways, total)}``, ``ways`` in
    the order of ``OUTCOMES[bet]``, ``total`` = ``C(N, 2) × (N − 2)`` (0 below three cards)."""
    cdef int counts[N_CARDS]
    cdef long long by_class[MAX_CLASSES]
    cdef long long ways[N_THREE][MAX_OUTCOMES]
    cdef long long n = read_counts(card_counts, counts)
    cdef int cls, bet
    memset(by_class, 0, sizeof(by_class))
    memset(ways, 0, sizeof(ways))
    with nogil:
        _three_card_pass(counts, by_class)
    for cls in range(_n_classes):
        for bet in range(N_THREE):
            ways[bet][_class_outcome[cls][bet]] += by_class[cls]
    total = (n * (n - 1) // 2) * (n - 2) if n >= 3 else 0
    result = {}
    for bet in range(N_THREE):
        name = THREE_CARD_BETS[bet]
        result[name] = (
            tuple([ways[bet][o] for o in range(1, len(OUTCOMES[name]) + 1)]),
            total,
        )
    return result


cdef int _card(object idx) except -1:
    if not 0 <= idx < N_CARDS:
        raise ValueError(f"card index must be 0-51, got {idx}")
    return idx


def three_card_outcome(str bet, object seat_a, object seat_b, object up):
    """The outcome of ``bet`` (a name in ``THREE_CARD_BETS``) on the seat's cards of deck
    indices ``seat_a``, ``seat_b`` and the up card ``up``: a name in ``OUTCOMES[bet]`` or
    ``"LOSE"``."""
    if bet not in THREE_CARD_BETS:
        raise ValueError(f"{bet!r} is not a three-card bet: expected one of {THREE_CARD_BETS}")
    cdef int b = THREE_CARD_BETS.index(bet)
    cdef int cls = _class_of[(_card(seat_a) * N_CARDS + _card(seat_b)) * N_CARDS + _card(up)]
    cdef int outcome = _class_outcome[cls][b]
    return OUTCOMES[bet][outcome - 1] if outcome else "LOSE"


# ---------------------------------------------------------------------------------------------
# The two-card bets: the seat's cards a, b (and the dealer's first two for Lucky Ladies)
# ---------------------------------------------------------------------------------------------

cdef int _lucky_ladies_seat(int a, int b) noexcept nogil:
    """Lucky Ladies on the seat's two cards alone: 0 if they are not a blackjack 20 (A-9 is),
    else LADIES_QH_PAIR for two queens of hearts (the dealer's cards decide whether it is the
    top award), MATCHED_20 (same rank and suit), SUITED_20 or ANY_20."""
    cdef int ra = _rank(a), rb = _rank(b)
    if _blackjack_total(_points(ra) + _points(rb), ra == ACE or rb == ACE) != 20:
        return 0
    if a == QUEEN_OF_HEARTS and b == QUEEN_OF_HEARTS:
        return LADIES_QH_PAIR
    if a == b:
        return LADIES_MATCHED_20
    return LADIES_SUITED_20 if _suit(a) == _suit(b) else LADIES_ANY_20


cdef inline bint _is_blackjack(int a, int b) noexcept nogil:
    """An ace and a ten-value card."""
    cdef int ra = _rank(a), rb = _rank(b)
    return (ra == ACE and rb >= 10) or (rb == ACE and ra >= 10)


cdef inline int _ace_one_total(int a, int b) noexcept nogil:
    """Over/Under 13's total: the two cards' points, an ace always 1."""
    return _points(_rank(a)) + _points(_rank(b))


def two_card_ways(object card_counts):
    """The ways of every two-card bet's winning outcomes for the next round dealt from a shoe
    holding ``card_counts[i]`` of deck index ``i``: ``{bet: (ways, total)}`` as
    ``three_card_ways``. Over 13 and Under 13 count the seat's pair, out of ``C(N, 2)``; Lucky
    Ladies the seat's pair and the dealer's two cards, out of ``C(N, 2) × C(N − 2, 2)``."""
    cdef int counts[N_CARDS]
    cdef long long n = read_counts(card_counts, counts)
    cdef long long ladies[6]
    cdef long long over = 0, under = 0, w, aces = 0, tens = 0
    cdef int i, j, total
    memset(ladies, 0, sizeof(ladies))
    with nogil:
        for i in range(N_CARDS):
            if counts[i] == 0:
                continue
            if _rank(i) == ACE:
                aces += counts[i]
            elif _rank(i) >= 10:
                tens += counts[i]
            for j in range(i, N_CARDS):
                w = (<long long>counts[i] * (counts[i] - 1) // 2 if i == j
                     else <long long>counts[i] * counts[j])
                if w == 0:
                    continue
                ladies[_lucky_ladies_seat(i, j)] += w
                total = _ace_one_total(i, j)
                if total > 13:
                    over += w
                elif total < 13:
                    under += w
    seat_pairs = n * (n - 1) // 2 if n >= 2 else 0
    dealer_pairs = (n - 2) * (n - 3) // 2 if n >= 4 else 0
    # With the two queens of hearts out, the dealer's blackjacks: an ace and one of the other
    # ten-value cards (no queen-of-hearts pair is possible with fewer than two of them).
    dealer_blackjacks = aces * (tens - 2) if ladies[LADIES_QH_PAIR] else 0
    qh_pairs = ladies[LADIES_QH_PAIR]
    return {
        "LUCKY_LADIES": (
            (
                qh_pairs * dealer_blackjacks,
                qh_pairs * (dealer_pairs - dealer_blackjacks),
                ladies[LADIES_MATCHED_20] * dealer_pairs,
                ladies[LADIES_SUITED_20] * dealer_pairs,
                ladies[LADIES_ANY_20] * dealer_pairs,
            ),
            seat_pairs * dealer_pairs,
        ),
        "OVER_13": ((over,), seat_pairs),
        "UNDER_13": ((under,), seat_pairs),
    }


def two_card_outcome(str bet, object seat_a, object seat_b, object dealer=()):
    """The outcome of ``bet`` (a name in ``TWO_CARD_BETS``) on the seat's cards of deck
    indices ``seat_a``, ``seat_b`` — and, for Lucky Ladies, the dealer's first two cards
    ``dealer`` (deck indices; fewer than two make no blackjack): a name in ``OUTCOMES[bet]``
    or ``"LOSE"``."""
    cdef int a = _card(seat_a), b = _card(seat_b), outcome, total
    if bet == "LUCKY_LADIES":
        outcome = _lucky_ladies_seat(a, b)
        if outcome == LADIES_QH_PAIR and len(dealer) >= 2 and _is_blackjack(
                _card(dealer[0]), _card(dealer[1])):
            outcome = LADIES_QH_PAIR_DEALER_BLACKJACK
    elif bet == "OVER_13" or bet == "UNDER_13":
        total = _ace_one_total(a, b)
        outcome = 1 if (total > 13 if bet == "OVER_13" else total < 13) else 0
    else:
        raise ValueError(f"{bet!r} is not a two-card bet: expected one of {TWO_CARD_BETS}")
    return OUTCOMES[bet][outcome - 1] if outcome else "LOSE"
