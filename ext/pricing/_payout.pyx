# cython: language_level=3
"""The one implementation of the dynamic payout rule (docs/rules.md §1, reused by Goa Gae).

With ``total`` equally likely outcomes of which ``wins`` win the bet, the payout (to 1) is
``RTP × total / wins − 1`` rounded DOWN to a hundredth, then clamped to the paytable's
[min, max]. In integers, with RTP in basis points:

    payout_hundredths = floor((rtp_bp × total − 10000 × wins) / (100 × wins))

A bet with no winning outcome is closed: not offered, payout 0.
"""

cimport cython


@cython.final
cdef class BetPrice:
    """The price of one bet: exact ``wins`` of ``remaining`` equally likely outcomes, the
    payout in hundredths of odds-to-1 (0.52 : 1 is 52), whether it is ``open`` (wins > 0), and
    whether the clamp changed the payout (``clamped``). ``probability`` is for display only."""

    def __init__(self, str bet, long long wins, long long remaining,
                 long long payout_hundredths, bint open, bint clamped):
        if wins < 0 or remaining < 0 or wins > remaining:
            raise ValueError(f"need 0 <= wins <= remaining, got wins={wins} remaining={remaining}")
        self.bet = bet
        self.wins = wins
        self.remaining = remaining
        self.probability = (<double>wins / <double>remaining) if remaining else 0.0
        self.payout_hundredths = payout_hundredths
        self.open = open
        self.clamped = clamped

    def _key(self):
        return (self.bet, self.wins, self.remaining, self.payout_hundredths, self.open,
                self.clamped)

    def __eq__(self, other):
        if not isinstance(other, BetPrice):
            return NotImplemented
        return self._key() == (<BetPrice>other)._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"BetPrice(bet={self.bet!r}, wins={self.wins}, remaining={self.remaining}, "
                f"payout_hundredths={self.payout_hundredths}, open={self.open}, "
                f"clamped={self.clamped})")

    def __reduce__(self):
        return (BetPrice, (self.bet, self.wins, self.remaining, self.payout_hundredths,
                           self.open, self.clamped))


@cython.cdivision(True)
cdef long long floor_payout(long long rtp_bp, long long wins, long long total) noexcept nogil:
    # C division truncates toward zero; the rule rounds down, so negative numerators (a bet
    # more likely than its RTP, which the clamp then lifts) are floored by hand.
    cdef long long num = rtp_bp * total - 10000 * wins
    cdef long long den = 100 * wins
    if num >= 0:
        return num / den
    return -((-num + den - 1) / den)


cdef BetPrice make_price(str bet, long long wins, long long total,
                         long long rtp_bp, long long min_h, long long max_h):
    cdef BetPrice price = BetPrice.__new__(BetPrice)
    cdef long long raw, clamped
    price.bet = bet
    price.wins = wins
    price.remaining = total
    price.probability = (<double>wins / <double>total) if total else 0.0
    if wins <= 0:
        price.payout_hundredths = 0
        price.open = False
        price.clamped = False
        return price
    raw = floor_payout(rtp_bp, wins, total)
    clamped = min(max(raw, min_h), max_h)
    price.payout_hundredths = clamped
    price.open = True
    price.clamped = clamped != raw
    return price


def raw_payout_hundredths(long long rtp_bp, long long wins, long long total):
    """The payout before the clamp: ``floor(100 × (rtp_bp/10000 × total / wins − 1))``.

    >>> raw_payout_hundredths(9600, 24, 38)
    52
    """
    if wins <= 0 or total < wins:
        raise ValueError(f"need 0 < wins <= total, got wins={wins} total={total}")
    return floor_payout(rtp_bp, wins, total)


def price_bet(str bet, long long wins, long long total, long long rtp_bp, long long min_h,
              long long max_h):
    """Price one bet by the rule above.

    >>> price_bet("SEVEN", 1, 47, 8350, 693, 3824).payout_hundredths
    3824
    """
    if wins < 0 or total < wins:
        raise ValueError(f"need 0 <= wins <= total, got wins={wins} total={total}")
    return make_price(bet, wins, total, rtp_bp, min_h, max_h)


def price_bets(tuple names, tuple wins, long long total, tuple rules):
    """Price several bets over the same ``total`` outcomes; ``rules`` holds one
    ``(rtp_bp, min_hundredths, max_hundredths)`` per name. Returns ``{name: BetPrice}``."""
    cdef Py_ssize_t i, n = len(names)
    cdef dict out = {}
    cdef tuple rule
    for i in range(n):
        rule = <tuple>rules[i]
        out[names[i]] = make_price(<str>names[i], wins[i], total, rule[0], rule[1], rule[2])
    return out
