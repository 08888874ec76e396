# cython: language_level=3
"""The state of one analysis of ``pricing._analyzer``, shared by its modules (``from
pricing._analyzer_state cimport ...``): the constants, ``Ctx``, and the small inline helpers
every part uses. Types and inline functions only: nothing is imported at run time."""

from pricing._dealer cimport N_VALUES, OUT_BJ, OUT_BUST, Level

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
