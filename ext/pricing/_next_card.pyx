# cython: language_level=3
"""The next-card kernel: every bet on the next card of a shoe, priced exactly from the cards
that can come next, through the shared payout rule (``pricing._payout``).

A bet is a predicate on the next card (docs/rules.md §1 and §6): an ABSOLUTE set of cards
(Hi-Lo's LOW … SEVEN; Higher/Lower's ranges, colours, KING_OR_ACE, ACE), or a card RELATIVE to
the base card in the game's rank order (HIGHER, LOWER, SAME). With ``remaining`` cards that can
come next, ``wins`` of which win the bet, each equally likely, the bet pays by its ``PayRule``.
Both Hi-Los are configurations of this one kernel (``pricing.games.next_card``).
"""

from libc.stdint cimport uint64_t

from pricing._deck cimport N_CARDS, take_out
from pricing._payout cimport BetPrice, make_price

cimport cython

RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

# How a bet reads the next card (``pricing.games.next_card.Relation``'s values).
cdef enum:
    ABSOLUTE = 0
    HIGHER = 1
    LOWER = 2
    SAME = 3
    MAX_BETS = 32
    N_RANKS = 13


cdef BetPrice _offer(str bet, long long wins, long long remaining, long long rtp_bp,
                     long long min_h, long long max_h, bint close_over_par):
    """The price of one bet winning on ``wins`` of ``remaining`` cards: the payout rule, then,
    with ``close_over_par``, closed if its clamped payout would return more than the stake."""
    cdef BetPrice price = make_price(bet, wins, remaining, rtp_bp, min_h, max_h)
    if close_over_par and price.open and (100 + price.payout_hundredths) * wins > 100 * remaining:
        return BetPrice(bet, wins, remaining, 0, False, False)
    return price


def offer(str bet, long long wins, long long remaining, tuple rule, bint close_over_par):
    """One bet's price as ``BetSet`` prices it, from its counts alone (for reports).

    >>> offer("HIGHER", 264, 287, (9670, 5, 10000), True).payout_hundredths
    5
    >>> offer("HIGHER", 100, 101, (9670, 5, 10000), True).open  # 1.05 x 100/101 > 1
    False
    """
    if not 0 <= wins <= remaining:
        raise ValueError(f"need 0 <= wins <= remaining, got wins={wins} remaining={remaining}")
    return _offer(bet, wins, remaining, rule[0], rule[1], rule[2], close_over_par)


cdef int _counts_after(object exposed, int decks, dict index, object parse_index,
                       object absent, int base, int* counts) except -1:
    """``counts``: a shoe of ``decks`` decks without ``exposed`` and without the cards of the
    ``absent`` mask (bit per deck index), which it never held; ``base`` checked too."""
    cdef int i
    cdef uint64_t gone = <uint64_t>absent
    if not -1 <= base < N_CARDS:
        raise ValueError(f"base must be a deck index 0-51 or -1, got {base}")
    take_out(exposed, index, parse_index, decks, counts)
    for i in range(N_CARDS):
        if gone >> i & 1:
            counts[i] = 0
    return 0


@cython.final
cdef class BetSet:
    """A game's bets compiled once: names, relations, card masks, pay rules and rank order.

    ``bets`` holds ``(name, relation, mask)``: ``mask`` has bit ``i`` set when the card of deck
    index ``i`` wins an ABSOLUTE bet (unused for the relative ones). ``order`` gives each rank
    (A … K) its place in the game's order (-1: the rank is not in the deck). ``rules`` holds
    ``(rtp_bp, min_hundredths, max_hundredths)`` per bet. With ``close_over_par`` a bet whose
    clamped payout would return more than the stake on average is closed (not offered).
    """

    cdef int n
    cdef tuple _names
    cdef int relation[MAX_BETS]
    cdef uint64_t mask[MAX_BETS]
    cdef long long rule[MAX_BETS][3]
    cdef int order[N_RANKS]
    cdef bint close_over_par

    def __init__(self, tuple bets, tuple order, tuple rules, bint close_over_par):
        cdef int b, r
        if not 0 < len(bets) <= MAX_BETS:
            raise ValueError(f"need 1 to {MAX_BETS} bets, got {len(bets)}")
        if len(rules) != len(bets):
            raise ValueError(f"need one rule per bet, got {len(rules)} for {len(bets)}")
        if len(order) != N_RANKS:
            raise ValueError(f"need a place for each of the 13 ranks, got {len(order)}")
        self.n = len(bets)
        self._names = tuple(bet[0] for bet in bets)
        for b in range(self.n):
            self.relation[b] = bets[b][1]
            if not ABSOLUTE <= self.relation[b] <= SAME:
                raise ValueError(f"unknown relation {bets[b][1]} for bet {bets[b][0]!r}")
            self.mask[b] = <uint64_t>bets[b][2]
            self.rule[b][0] = rules[b][0]
            self.rule[b][1] = rules[b][1]
            self.rule[b][2] = rules[b][2]
        for r in range(N_RANKS):
            self.order[r] = order[r]
        self.close_over_par = close_over_par

    @property
    def names(self):
        return self._names

    cdef dict _price(self, const int* counts, int base):
        """Every bet's price with ``counts`` (52 card counts) able to come next."""
        cdef long long remaining = 0
        cdef long long by_rank[N_RANKS]
        cdef long long wins
        cdef int b, i, r, base_place
        cdef dict out = {}
        for r in range(N_RANKS):
            by_rank[r] = counts[4 * r] + counts[4 * r + 1] + counts[4 * r + 2] + counts[4 * r + 3]
            remaining += by_rank[r]
        base_place = self.order[base >> 2] if base >= 0 else -1
        for b in range(self.n):
            wins = 0
            if self.relation[b] == ABSOLUTE:
                for i in range(N_CARDS):
                    if self.mask[b] >> i & 1:
                        wins += counts[i]
            elif base_place >= 0:  # relative bets need a base card in the deck's order
                for r in range(N_RANKS):
                    if self.order[r] < 0:
                        continue
                    if (self.relation[b] == HIGHER and self.order[r] > base_place
                            or self.relation[b] == LOWER and self.order[r] < base_place
                            or self.relation[b] == SAME and self.order[r] == base_place):
                        wins += by_rank[r]
            out[self._names[b]] = _offer(<str>self._names[b], wins, remaining, self.rule[b][0],
                                         self.rule[b][1], self.rule[b][2], self.close_over_par)
        return out

    def price_counts(self, object counts, int base=-1):
        """Prices with ``counts[i]`` cards of deck index ``i`` able to come next (52 entries),
        the base card's deck index ``base`` (-1: none, so every relative bet is closed)."""
        cdef int c[N_CARDS]
        cdef int i
        if len(counts) != N_CARDS:
            raise ValueError(f"need 52 card counts, got {len(counts)}")
        for i in range(N_CARDS):
            c[i] = counts[i]
            if c[i] < 0:
                raise ValueError(f"card count must be >= 0, got {counts[i]} at index {i}")
        if not -1 <= base < N_CARDS:
            raise ValueError(f"base must be a deck index 0-51 or -1, got {base}")
        return self._price(c, base)

    def staged_by_rank(self, object exposed, int decks, dict index, object parse_index,
                       object absent=0, int base=-1):
        """For each rank with a card left after ``exposed`` (as ``quote_cards`` reads them),
        the prices once one more card of it is out (of its first suit left: for bets that
        read ranks only), keyed by the rank's symbol: a game server's next screens."""
        cdef int c[N_CARDS]
        cdef int r, s
        cdef dict out = {}
        _counts_after(exposed, decks, index, parse_index, absent, base, c)
        for r in range(N_RANKS):
            for s in range(4):
                if c[4 * r + s] > 0:
                    c[4 * r + s] -= 1
                    out[RANK_SYMBOLS[r]] = self._price(c, base)
                    c[4 * r + s] += 1
                    break
        return out

    def quote_cards(self, object exposed, int decks, dict index, object parse_index,
                    object absent=0, int base=-1):
        """Prices after ``exposed`` (cards or texts) left a shoe of ``decks`` decks whose cards
        in the ``absent`` mask (bit per deck index) were never in it. ``CardNotInShoe`` for a
        card seen more often than the shoe holds it; the caller refuses absent cards."""
        cdef int c[N_CARDS]
        _counts_after(exposed, decks, index, parse_index, absent, base, c)
        return self._price(c, base)
