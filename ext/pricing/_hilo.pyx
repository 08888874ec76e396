# cython: language_level=3
"""Hi-Lo kernel: count the winning cards of each bet in what is left of one deck, and price
each through the shared payout rule (``pricing._payout``).

Bets on the next result (docs/rules.md §1): LOW wins on A–6, HIGH on 8–K, ODD on A 3 5 9 J K,
EVEN on 2 4 6 8 10 Q, SEVEN on 7; a 7 loses every bet but SEVEN.
"""

from pricing._deck cimport N_CARDS, take_out
from pricing._payout cimport BetPrice, make_price

BETS = ("LOW", "HIGH", "ODD", "EVEN", "SEVEN")
RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

cdef enum:
    N_BETS = 5
    N_RANKS = 13

# Bit r-1 set when a card of rank r wins the bet.
cdef int[N_BETS] WIN_MASKS = [
    0b0000000111111,  # LOW: A..6
    0b1111110000000,  # HIGH: 8..K
    0b1010100010101,  # ODD: A 3 5 9 J K
    0b0101010101010,  # EVEN: 2 4 6 8 10 Q
    0b0000001000000,  # SEVEN: 7
]


def winning_ranks(str bet):
    """The ranks (1–13) on which ``bet`` wins.

    >>> winning_ranks("ODD")
    (1, 3, 5, 9, 11, 13)
    """
    cdef int b = BETS.index(bet)
    return tuple(r + 1 for r in range(N_RANKS) if WIN_MASKS[b] >> r & 1)


cdef dict _price_counts(const long long* rank_counts, tuple rules):
    cdef long long wins[N_BETS]
    cdef long long remaining = 0
    cdef int b, r
    cdef tuple rule
    for b in range(N_BETS):
        wins[b] = 0
    for r in range(N_RANKS):
        remaining += rank_counts[r]
        for b in range(N_BETS):
            if WIN_MASKS[b] >> r & 1:
                wins[b] += rank_counts[r]
    cdef dict out = {}
    for b in range(N_BETS):
        rule = <tuple>rules[b]
        out[BETS[b]] = make_price(<str>BETS[b], wins[b], remaining,
                                  rule[0], rule[1], rule[2])
    return out


cdef int _fill_rank_counts(object exposed, dict index, object parse_index,
                           long long* rank_counts) except -1:
    """Start from one full deck and take out every card of ``exposed``."""
    cdef int counts[N_CARDS]
    cdef int r
    take_out(exposed, index, parse_index, 1, counts)
    for r in range(N_RANKS):
        rank_counts[r] = counts[4 * r] + counts[4 * r + 1] + counts[4 * r + 2] + counts[4 * r + 3]
    return 0


def quote_cards(object exposed, dict index, object parse_index, tuple rules):
    """Prices of the five bets after ``exposed`` (cards or card texts) left one deck.

    ``index`` maps known spellings to deck indices; anything else goes to ``parse_index``
    (which raises on bad text). ``rules`` holds ``(rtp_bp, min_h, max_h)`` per bet in
    ``BETS`` order.
    """
    cdef long long rank_counts[N_RANKS]
    _fill_rank_counts(exposed, index, parse_index, rank_counts)
    return _price_counts(rank_counts, rules)


def quote_rank_counts(object counts, tuple rules):
    """Prices of the five bets for a deck holding ``counts[r]`` cards of rank r+1."""
    cdef long long rank_counts[N_RANKS]
    cdef int r
    if len(counts) != N_RANKS:
        raise ValueError(f"need 13 rank counts, got {len(counts)}")
    for r in range(N_RANKS):
        rank_counts[r] = counts[r]
        if rank_counts[r] < 0:
            raise ValueError(f"rank count must be >= 0, got {counts[r]} for rank {r + 1}")
    return _price_counts(rank_counts, rules)


def next_card_quotes(object exposed, dict index, object parse_index, tuple rules):
    """For each rank still in the deck, the prices that follow if a card of it comes next."""
    cdef long long rank_counts[N_RANKS]
    cdef int r
    cdef dict out = {}
    _fill_rank_counts(exposed, index, parse_index, rank_counts)
    for r in range(N_RANKS):
        if rank_counts[r] > 0:
            rank_counts[r] -= 1
            out[RANK_SYMBOLS[r]] = _price_counts(rank_counts, rules)
            rank_counts[r] += 1
    return out
