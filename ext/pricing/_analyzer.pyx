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
* **The dealer** (``pricing._analyzer_dealer``). For every composition the dealer's final
  result (17–21, BJ, BUST) is computed from the up card alone over the shoe without the
  player's cards: the order in which player and dealer draw does not change the probabilities
  (exchangeability). The dealer's hands are enumerated once per up card and rule; for a shoe
  the distribution is a sum of falling-factorial products over them.
* **Play** (``pricing._analyzer_play``). STAND; HIT, then playing on by the better of stand and
  hit on the exact cards (composition-dependent); DOUBLE (one card, then stand on a doubled
  stake). SURRENDER is −0.5 and needs no kernel.
* **Splits** (``pricing._analyzer_split``), by E. Farmer's method for "CDZ-" play: each split
  hand is played by the decision best for an unsplit hand of the same cards, but valued on the
  shoe it really draws from, with the other hands' pair cards out.
* **Basic strategy.** The same evaluation with the decisions read from a fixed chart (``chart``
  bytes from ``pricing.games.blackjack.decisions``) instead of from the unsplit EVs.
* The EVs are C doubles, as in every combinatorial analyzer: the sums have thousands of
  terms, each a product of ratios of small integers, so the rounding error stays near 1e-15
  (the tests hold the kernel to exact ``Fraction`` references within 1e-12).

No hole card (docs/rules.md §3.1): when the dealer makes blackjack, every player hand but a
blackjack loses exactly the original wager, busted, doubled or split; a player blackjack
pushes.

This module holds the entry points, ``hand_evs`` and ``edge``, and the analysis's set-up; the
state its parts share is ``Ctx`` (``pricing._analyzer_state``).
"""

cimport cython
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

from pricing._analyzer_dealer cimport _dealer, _up_card
from pricing._analyzer_play cimport _double, _hit, _memo_clear, _unsplit, _unsplit_double
from pricing._analyzer_split cimport _split
from pricing._analyzer_state cimport (
    ACT_DOUBLE, ACT_STAND, ACT_SURRENDER, CHART_CELLS, CHART_SIZE, ERR_LEVEL_FULL, ERR_MEMORY,
    ERR_RAN_OUT, MAX_HANDS, SPOT_FIRST_TWO, Ctx, _card, _stand, _total,
)
from pricing._dealer cimport LEVEL_FULL, N_VALUES, OUT_BJ, Level

# pricing._analyzer's Python names: hand_evs and edge below, and these two of its parts.
from pricing._analyzer_dealer import dealer_variants
from pricing._analyzer_play import TIE
from pricing.errors import IllegalMove

cdef enum:
    # Dealer distributions cached per base: a full shoe's edge needs under half of the
    # larger, one hand's decisions under half of the smaller.
    EDGE_CACHE = 1 << 16
    HAND_CACHE = 1 << 15


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
