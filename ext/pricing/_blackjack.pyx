# cython: language_level=3
"""Blackjack kernel: exact counting over what is left of a shoe of 1–8 decks.

Every result is a ratio of integers computed in C without rounding:

* side bets (docs/rules.md §2, §3): the ways the player's first two cards (and, for Crown
  Treasure, the dealer's first two) fall into each outcome, out of every possible deal;
* insurance: the cards that give a dealer Ace a blackjack, out of the cards left;
* dealer outcomes: the dealer's final result, 17–21, BJ or BUST, from the up card or from
  the dealer's hand so far (any number of cards: a hand that is already over is a point mass
  on its result), summed exactly over every order in which the dealer can draw from the
  shoe, without replacement (orders that draw the same cards are summed together, see
  ``_draw_levels``). Every draw sequence of ``k`` cards has the exact weight
  ``c1 × c2 × … × ck`` (the counts at each draw) over ``N × (N − 1) × … × (N − k + 1)``;
  scaled to the common denominator ``N × … × (N − D + 1)`` (``D`` the longest possible
  sequence) the numerators are integers.
  With 8 decks ``D`` is 12 and the denominator is below 416**12 ≈ 2.8e31, so unsigned 128-bit
  integers (``unsigned __int128``, GCC/Clang) hold every value exactly; they are reduced to
  lowest common terms and handed to Python as ``int`` objects.

Cards are counted by deck index ``(rank - 1) * 4 + suit`` (suits C, D, H, S = 0–3), as in
``pricing.cards``; for the dealer they are merged into ten values: ace, 2–9, and ten (10 J Q K).
"""

cimport cython
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from pricing._dealer cimport (
    DRAWS, LEVEL_FULL, N_OUTCOMES, N_VALUES, Level, dealer_outcome, level_add, level_clear,
    level_draw, u128, u128_to_int,
)
from pricing._deck cimport (
    MAX_DECKS, N_CARDS, card_index_of, card_text, check_decks, read_counts, take_out,
)

from pricing.errors import CardNotInShoe, IllegalMove, InvalidInput

#: The dealer's possible final results, in the order of every numerator tuple below.
DEALER_OUTCOMES = ("17", "18", "19", "20", "21", "BJ", "BUST")
#: The ten card values the dealer's play depends on: ace, 2 … 9, ten (10 J Q K).
VALUE_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")

cdef enum:
    # The longest dealer draw sequence after the up card (H17, up A: six more aces make soft
    # 17, which hits; a 5 makes hard 12; four aces make 16; then the last card): 12 cards.
    # The dealer's hand so far is a prefix of such a sequence: from it, fewer draws remain.
    MAX_DRAWS = 12

cdef int KING = 13
cdef int QUEEN = 12


def shoe_counts(object exposed, dict index, object parse_index, int decks):
    """How many of each of the 52 cards (by deck index) remain after ``exposed``."""
    cdef int counts[N_CARDS]
    take_out(exposed, index, parse_index, decks, counts)
    return tuple([counts[i] for i in range(N_CARDS)])


# ---------------------------------------------------------------------------------------------
# Side bets
# ---------------------------------------------------------------------------------------------

cdef inline long long _pairs(long long n) noexcept nogil:
    return n * (n - 1) // 2 if n > 1 else 0


cdef tuple _side_bet_ways(const int* counts, long long remaining):
    # Royal Match (docs/rules.md §2). Suited pairs and suited K+Q pairs per suit, for the player's
    # two cards; for CROWN the dealer's two cards come from the N - 2 cards left after them.
    cdef long long suited = 0, royal = 0, crown = 0, s_total
    cdef long long kk, qq
    cdef int s, t_suit, r
    cdef long long kings[4]
    cdef long long queens[4]
    for s in range(4):
        s_total = 0
        for r in range(13):
            s_total += counts[r * 4 + s]
        suited += _pairs(s_total)
        kings[s] = counts[(KING - 1) * 4 + s]
        queens[s] = counts[(QUEEN - 1) * 4 + s]
        royal += kings[s] * queens[s]
    for s in range(4):
        for t_suit in range(4):
            if s == t_suit:
                kk = kings[s] - 1
                qq = queens[s] - 1
                if kk < 0:
                    kk = 0
                if qq < 0:
                    qq = 0
                crown += kings[s] * queens[s] * kk * qq
            else:
                crown += kings[s] * queens[s] * kings[t_suit] * queens[t_suit]
    cdef long long player_pairs = _pairs(remaining)
    cdef long long dealer_pairs = _pairs(remaining - 2) if remaining >= 2 else 0
    cdef long long total4 = player_pairs * dealer_pairs
    cdef long long rm_crown = crown
    cdef long long rm_royal = royal * dealer_pairs - crown
    cdef long long rm_easy = (suited - royal) * dealer_pairs
    cdef long long rm_lose = (player_pairs - suited) * dealer_pairs

    # Pair bets (docs/rules.md §3): same rank; identical cards (perfect), same colour and a
    # different suit (coloured: clubs with spades, diamonds with hearts), different colour
    # (mixed).
    cdef long long perfect = 0, coloured = 0, mixed = 0, c, d, h, sp
    for r in range(13):
        c = counts[r * 4]
        d = counts[r * 4 + 1]
        h = counts[r * 4 + 2]
        sp = counts[r * 4 + 3]
        perfect += _pairs(c) + _pairs(d) + _pairs(h) + _pairs(sp)
        coloured += c * sp + d * h
        mixed += (c + sp) * (d + h)
    cdef long long no_pair = player_pairs - perfect - coloured - mixed
    return ((rm_crown, rm_royal, rm_easy, rm_lose, total4),
            (perfect, coloured, mixed, no_pair, player_pairs))


def side_bet_ways(object exposed, dict index, object parse_index, int decks):
    """Exact ways of each side-bet outcome for the next round after ``exposed``.

    Returns ``((crown, royal, easy, lose, total4), (perfect, coloured, mixed, no_pair,
    total2))``: Royal Match ways count deals of the player's two cards and the dealer's two
    (unordered within each hand) out of ``C(N, 2) × C(N − 2, 2)``; pair ways count the
    player's two cards out of ``C(N, 2)``.
    """
    cdef int counts[N_CARDS]
    cdef int remaining = take_out(exposed, index, parse_index, decks, counts)
    return _side_bet_ways(counts, remaining)


def side_bet_ways_counts(object card_counts):
    """As ``side_bet_ways``, for a shoe holding ``card_counts[i]`` of deck index ``i``."""
    cdef int counts[N_CARDS]
    cdef long long remaining = read_counts(card_counts, counts)
    return _side_bet_ways(counts, remaining)


# ---------------------------------------------------------------------------------------------
# Insurance
# ---------------------------------------------------------------------------------------------

cdef long long _tens(const int* counts) noexcept nogil:
    cdef long long tens = 0
    cdef int i
    for i in range(36, N_CARDS):  # 10, J, Q, K: deck indices 36–51
        tens += counts[i]
    return tens


def insurance_ways(object exposed, dict index, object parse_index, int decks):
    """``(ten_value_cards, cards_left)``: the ways a dealer Ace makes blackjack with its next
    card, out of the cards left after ``exposed`` (which includes the Ace)."""
    cdef int counts[N_CARDS]
    cdef int remaining = take_out(exposed, index, parse_index, decks, counts)
    return (_tens(counts), remaining)


def insurance_ways_counts(object card_counts):
    """As ``insurance_ways``, for a shoe holding ``card_counts[i]`` of deck index ``i``."""
    cdef int counts[N_CARDS]
    cdef long long remaining = read_counts(card_counts, counts)
    return (_tens(counts), remaining)


# ---------------------------------------------------------------------------------------------
# Dealer outcomes
# ---------------------------------------------------------------------------------------------

cdef struct Dealer:
    int counts[N_VALUES]  # cards left of each value: ace, 2 … 9, ten
    int remaining
    bint h17
    u128 tail[MAX_DRAWS + 1]  # tail[k] = (N - k) × … × (N - D + 1): scales a k-draw weight
    u128 nums[N_OUTCOMES]
    int ran_out
    int too_deep
    int level_full
    int depth_limit


cdef void _draw_levels(Dealer* d, int start_hard, bint start_ace, int start_cards,
                       Level* cur, Level* nxt) noexcept nogil:
    """Draw from the dealer's hand so far (``start_cards`` cards, hard total ``start_hard``,
    ``start_ace`` if it holds an ace; the caller checked that it must draw) until every hand
    stands or busts, level by level over multisets (``pricing._dealer``)."""
    cdef int depth = 0, k
    cdef u128 ended[N_OUTCOMES]
    cdef Level* swap
    level_clear(cur)
    level_add(cur, 0, start_hard, start_ace, <u128>1)
    while cur.n > 0:
        if d.remaining - depth == 0:
            d.ran_out = 1
            return
        if depth >= d.depth_limit:
            d.too_deep = 1
            return
        memset(ended, 0, sizeof(ended))
        if level_draw(cur, nxt, d.counts, start_cards + depth, d.h17, ended, NULL) < 0:
            d.level_full = 1
            return
        depth += 1
        # Every draw sequence of ``depth`` cards over the common denominator.
        for k in range(N_OUTCOMES):
            d.nums[k] += ended[k] * d.tail[depth]
        swap = cur
        cur = nxt
        nxt = swap


@cython.cdivision(True)
cdef u128 _gcd(u128 a, u128 b) noexcept nogil:
    cdef u128 t
    while b != 0:
        t = a % b
        a = b
        b = t
    return a


cdef tuple _dealer_exact(const int* counts10, int remaining, int up_value, bint h17):
    """``(numerators, denominator)`` of the seven outcomes for an up card of ``up_value``
    (1 = ace … 10 = ten) over a shoe holding ``counts10`` (up card already removed)."""
    return _dealer_exact_from(counts10, remaining, up_value, up_value == 1, 1, h17)


cdef tuple _dealer_exact_from(const int* counts10, int remaining, int start_hard,
                              bint start_ace, int start_cards, bint h17):
    """``(numerators, denominator)`` of the seven outcomes for the dealer's hand so far
    (``start_cards`` cards, hard total ``start_hard``, ``start_ace`` if it holds an ace),
    drawing the rest from a shoe holding ``counts10`` (the hand's cards already removed). A
    hand that is over is a point mass on its result, whatever is left of the shoe."""
    cdef Dealer d
    cdef int final = dealer_outcome(start_hard, start_ace, start_cards, h17)
    if final != DRAWS:
        return (tuple([1 if k == final else 0 for k in range(N_OUTCOMES)]), 1)
    cdef int k, depth_limit
    cdef Level* levels
    memset(&d, 0, sizeof(Dealer))
    for k in range(N_VALUES):
        d.counts[k] = counts10[k]
    d.remaining = remaining
    d.h17 = h17
    depth_limit = MAX_DRAWS if remaining > MAX_DRAWS else remaining
    d.depth_limit = depth_limit
    d.tail[depth_limit] = 1
    for k in range(depth_limit - 1, -1, -1):
        d.tail[k] = d.tail[k + 1] * <u128>(remaining - k)
    if remaining == 0:
        d.ran_out = 1
    else:
        levels = <Level*>malloc(2 * sizeof(Level))
        if levels == NULL:
            raise MemoryError()
        with nogil:
            _draw_levels(&d, start_hard, start_ace, start_cards, &levels[0], &levels[1])
        free(levels)
    if d.level_full:
        raise RuntimeError(
            f"more than {LEVEL_FULL} dealer hands of one length: kernel bound broken")
    if d.too_deep and not d.ran_out:
        # With fewer cards left than MAX_DRAWS the shoe runs out first (reported below), and no
        # dealer hand draws more than MAX_DRAWS cards (the test suite checks it on 8 decks).
        raise RuntimeError(f"dealer hand longer than {MAX_DRAWS} draws: kernel bound broken")
    if d.ran_out:
        if start_cards == 1:
            hand = f"an up card of {VALUE_SYMBOLS[start_hard - 1]}"
        else:
            hand = f"the dealer's {start_cards} cards"
        raise IllegalMove(
            f"the {remaining} cards left cannot complete every dealer hand from {hand}: "
            "the shoe must be reshuffled")
    # Lowest common terms: divide the numerators and the denominator by their common factor.
    cdef u128 common = d.tail[0]
    for k in range(N_OUTCOMES):
        common = _gcd(common, d.nums[k])
    for k in range(N_OUTCOMES):
        d.nums[k] = _div(d.nums[k], common)
    return (tuple([u128_to_int(d.nums[k]) for k in range(N_OUTCOMES)]),
            u128_to_int(_div(d.tail[0], common)))


@cython.cdivision(True)
cdef inline u128 _div(u128 a, u128 b) noexcept nogil:
    return a / b


cdef int _values_from_cards(const int* counts, int* counts10) noexcept nogil:
    cdef int r, s, total = 0
    for r in range(N_VALUES):
        counts10[r] = 0
    for r in range(13):
        for s in range(4):
            counts10[r if r < 9 else 9] += counts[r * 4 + s]
            total += counts[r * 4 + s]
    return total


def dealer_exact(object up, object exposed, dict index, object parse_index, int decks,
                 bint h17):
    """Exact dealer outcomes for the up card ``up`` after ``exposed`` (not including ``up``)
    left a ``decks``-deck shoe: ``((n17, n18, n19, n20, n21, nBJ, nBUST), denominator)``."""
    cdef int counts[N_CARDS]
    take_out(exposed, index, parse_index, decks, counts)
    return _dealer_for_up(card_index_of(up, index, parse_index), counts, decks, h17)


def dealer_exact_counts(int up_index, object card_counts, bint h17):
    """As ``dealer_exact``, for the up card of deck index ``up_index`` already dealt from a
    shoe that now holds ``card_counts[i]`` of deck index ``i``."""
    cdef int counts[N_CARDS]
    cdef int counts10[N_VALUES]
    if not 0 <= up_index < N_CARDS:
        raise ValueError(f"up card index must be 0-51, got {up_index}")
    read_counts(card_counts, counts)
    cdef int remaining = _values_from_cards(counts, counts10)
    return _dealer_exact(counts10, remaining, _up_value(up_index), h17)


def dealer_exact_hand(object hand, object exposed, dict index, object parse_index, int decks,
                      bint h17):
    """Exact dealer outcomes for the dealer's hand so far, ``hand`` being the dealer's cards
    in the order dealt (the up card first), after ``exposed`` (every other card seen, not
    including ``hand``) left a ``decks``-deck shoe: as ``dealer_exact``."""
    cdef int counts[N_CARDS]
    cdef int counts10[N_VALUES]
    take_out(exposed, index, parse_index, decks, counts)
    indices = [card_index_of(card, index, parse_index) for card in hand]
    for idx in indices:
        if counts[<int>idx] == 0:
            raise CardNotInShoe(
                f"dealer card {card_text(idx)} is not in the shoe: all {decks} of the "
                f"{decks}-deck shoe are already exposed")
        counts[<int>idx] -= 1
    cdef int remaining = _values_from_cards(counts, counts10)
    return _dealer_exact_hand(indices, counts10, remaining, h17)


def dealer_exact_hand_counts(object hand_indices, object card_counts, bint h17):
    """As ``dealer_exact_hand``, for the dealer's cards of deck indices ``hand_indices`` (in
    the order dealt) already dealt from a shoe that now holds ``card_counts[i]`` of deck
    index ``i``."""
    cdef int counts[N_CARDS]
    cdef int counts10[N_VALUES]
    indices = list(hand_indices)
    for idx in indices:
        if not 0 <= idx < N_CARDS:
            raise ValueError(f"dealer card index must be 0-51, got {idx}")
    read_counts(card_counts, counts)
    cdef int remaining = _values_from_cards(counts, counts10)
    return _dealer_exact_hand(indices, counts10, remaining, h17)


cdef tuple _dealer_exact_hand(list indices, const int* counts10, int remaining, bint h17):
    """Fold the dealer's cards (deck indices, in order) into a hand state and count from it.
    ``InvalidInput`` for no card, or for a card after the hand was already over: the caller
    decides which cards make up the dealer's hand (``pricing.blackjack``)."""
    cdef int hard = 0, n = 0, value
    cdef bint ace = False
    if not indices:
        raise InvalidInput("the dealer's hand needs at least one card")
    for idx in indices:
        if dealer_outcome(hard, ace, n, h17) != DRAWS:
            raise InvalidInput(
                f"the dealer's hand is over after {n} cards "
                f"({' '.join(card_text(i) for i in indices[:n])}): "
                f"{card_text(idx)} is not part of it")
        value = _up_value(idx)
        hard += value
        ace = ace or value == 1
        n += 1
    return _dealer_exact_from(counts10, remaining, hard, ace, n, h17)


cdef inline int _up_value(int up_idx) noexcept nogil:
    cdef int rank = (up_idx >> 2) + 1
    return rank if rank < 10 else 10


cdef tuple _dealer_for_up(int up_idx, int* counts, int decks, bint h17):
    cdef int counts10[N_VALUES]
    if counts[up_idx] == 0:
        raise CardNotInShoe(
            f"up card {card_text(up_idx)} is not in the shoe: all {decks} of the "
            f"{decks}-deck shoe are already exposed")
    counts[up_idx] -= 1
    cdef int remaining = _values_from_cards(counts, counts10)
    counts[up_idx] += 1
    return _dealer_exact(counts10, remaining, _up_value(up_idx), h17)


def dealer_table(object exposed, dict index, object parse_index, int decks, bint h17):
    """For each up-card value (A, 2 … 9, 10), the exact dealer outcomes if the next up card
    has that value, or ``None`` when none is left (or the shoe would run out): ten entries."""
    cdef int counts[N_CARDS]
    take_out(exposed, index, parse_index, decks, counts)
    return _dealer_table(counts, h17)


def dealer_table_counts(object card_counts, bint h17):
    """As ``dealer_table``, for a shoe holding ``card_counts[i]`` of deck index ``i``."""
    cdef int counts[N_CARDS]
    read_counts(card_counts, counts)
    return _dealer_table(counts, h17)


cdef tuple _dealer_table(const int* counts, bint h17):
    cdef int counts10[N_VALUES]
    cdef int v
    cdef int remaining = _values_from_cards(counts, counts10)
    out = []
    for v in range(N_VALUES):
        if counts10[v] == 0:
            out.append(None)
            continue
        counts10[v] -= 1
        try:
            out.append(_dealer_exact(counts10, remaining - 1, v + 1, h17))
        except IllegalMove:
            out.append(None)
        finally:
            counts10[v] += 1
    return tuple(out)
