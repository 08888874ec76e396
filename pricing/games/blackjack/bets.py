"""The exact odds of the bets on the next round's first cards (docs/rules.md §2, §3): the side
bets (Royal Match 21 and the pair bet) and insurance against a dealer Ace.

The kernel (``pricing._blackjack``) counts the ways each outcome can happen over what is left
of the shoe; the odds types here keep those integers and turn them into ratios
(``fractions.Fraction``) and, at the edge, floats. The RTP of a side bet is
``sum(ways × (pays + 100)) / (100 × total)`` over every outcome.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from pricing import _blackjack
from pricing.cards import CARD_INDEX, Card, card_index
from pricing.errors import IllegalMove
from pricing.games.blackjack.paytables import (
    DEFAULT_ROYAL_MATCH,
    INSURANCE_HUNDREDTHS,
    PairsPaytable,
    RoyalMatchPaytable,
    pairs_paytable,
    royal_match_paytable,
)
from pricing.games.blackjack.rules import check_decks
from pricing.games.fixed_odds import SideBetOdds

__all__ = [
    "InsuranceOdds",
    "insurance",
    "side_bets",
    "side_bets_from_ways",
]


@dataclass(frozen=True, slots=True)
class InsuranceOdds:
    """Insurance against a dealer Ace (docs/rules.md §3): the dealer makes blackjack with ``ways``
    of the ``total`` cards left; insurance pays 2 : 1. A player holding blackjack may instead
    take even money (1 : 1 at once), which is worth more than keeping the blackjack (3 : 2,
    pushed by a dealer blackjack) exactly when insurance is player-favourable."""

    ways: int
    total: int
    payout_hundredths: int = INSURANCE_HUNDREDTHS

    @property
    def fraction(self) -> Fraction:
        """The exact probability that the dealer makes blackjack."""
        return Fraction(self.ways, self.total)

    @property
    def probability(self) -> float:
        return float(self.fraction)

    @property
    def rtp_fraction(self) -> Fraction:
        return self.fraction * Fraction(self.payout_hundredths + 100, 100)

    @property
    def rtp(self) -> float:
        return float(self.rtp_fraction)

    @property
    def player_favourable(self) -> bool:
        return self.rtp_fraction > 1

    @property
    def even_money_profit(self) -> Fraction:
        """Taking even money wins 1 per unit of the main bet, for sure."""
        return Fraction(1)

    @property
    def blackjack_profit(self) -> Fraction:
        """Expected win per unit of keeping the blackjack: 3 : 2 unless the dealer has one."""
        return (1 - self.fraction) * Fraction(3, 2)

    @property
    def even_money_advantage(self) -> Fraction:
        """Even money minus keeping the blackjack, per unit (half insurance's edge)."""
        return self.even_money_profit - self.blackjack_profit

    @property
    def take_even_money(self) -> bool:
        return self.even_money_advantage > 0


def side_bets(
    exposed: Iterable[Card | str],
    decks: int = 6,
    royal_match: RoyalMatchPaytable | str = DEFAULT_ROYAL_MATCH,
    pairs: PairsPaytable | str = "perfect-pairs",
) -> dict[str, SideBetOdds]:
    """Odds of the side bets for the next round, ``exposed`` being every card seen in the shoe.

    Keys ``ROYAL_MATCH`` (outcomes CROWN, ROYAL, EASY, LOSE; without Crown Treasure ROYAL,
    EASY, LOSE, a Crown deal counting as ROYAL) and ``PAIRS`` (PERFECT, COLOURED, MIXED, LOSE,
    or PAIR, LOSE). Royal Match ways count deals of the player's two cards and the
    dealer's two out of ``C(N, 2) × C(N − 2, 2)``; pair ways count the player's two cards out
    of ``C(N, 2)``.

    >>> odds = side_bets(["QS", "QH", "QD", "QC"] * 6, decks=6, pairs="any-pair")
    >>> odds["ROYAL_MATCH"].outcomes["ROYAL"].ways, odds["PAIRS"].outcomes["PAIR"].payout_hundredths
    (0, 1100)
    >>> side_bets(["AS"] * 7, decks=6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.CardNotInShoe: card AS is not in the shoe: all 6 of the 6-deck shoe are ...
    """
    decks = check_decks(decks)
    rm_table = royal_match_paytable(royal_match)
    pairs_table = pairs_paytable(pairs)
    rm, pp = _blackjack.side_bet_ways(exposed, CARD_INDEX, card_index, decks)
    return side_bets_from_ways(rm, pp, rm_table, pairs_table)


def side_bets_from_ways(
    rm: tuple[int, int, int, int, int],
    pp: tuple[int, int, int, int, int],
    rm_table: RoyalMatchPaytable,
    pairs_table: PairsPaytable,
) -> dict[str, SideBetOdds]:
    """``side_bets`` from the kernel's ways (``rm``: Royal Match, ``pp``: pairs); the shoe
    (``BlackjackShoe.side_bets``) counts them from its own card counts."""
    crown, royal, easy, _lose, total4 = rm
    perfect, coloured, mixed, _no_pair, total2 = pp
    royal_ways = {"CROWN": crown, "ROYAL": royal}
    if not rm_table.crown_treasure:  # a Crown deal is a ROYAL (classify_royal_match says so)
        royal_ways = {"ROYAL": crown + royal}
    if pairs_table.pair_hundredths is not None:
        pair_ways = {"PAIR": perfect + coloured + mixed}
    else:
        pair_ways = {"PERFECT": perfect, "COLOURED": coloured, "MIXED": mixed}
    return {
        "ROYAL_MATCH": SideBetOdds.from_ways(
            "ROYAL_MATCH",
            {**royal_ways, "EASY": easy},
            total4,
            rm_table.pays(),
        ),
        "PAIRS": SideBetOdds.from_ways("PAIRS", pair_ways, total2, pairs_table.pays()),
    }


def insurance(exposed: Iterable[Card | str], decks: int = 6) -> InsuranceOdds:
    """Insurance and even money against a dealer Ace; ``exposed`` is every card seen in the
    shoe, the dealer's Ace included.

    >>> odds = insurance(["AS", "10H", "KD", "QC", "JS"], decks=1)
    >>> odds.fraction, odds.player_favourable, odds.take_even_money
    (Fraction(12, 47), False, False)
    """
    decks = check_decks(decks)
    ways, total = _blackjack.insurance_ways(exposed, CARD_INDEX, card_index, decks)
    if total == 0:
        raise IllegalMove("no card is left in the shoe for the dealer: the shoe must be reshuffled")
    return InsuranceOdds(ways, total)
