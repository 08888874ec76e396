"""Blackjack shoe odds (docs/rules.md §2, §3): side bets, insurance and the dealer's outcomes.

Everything is exact: the kernel (``pricing._blackjack``) counts the ways each outcome can
happen over what is left of the shoe, and this package turns those integers into ratios
(``fractions.Fraction``) and, at the edge, floats.

>>> odds = side_bets([], decks=6, royal_match=STANDARD_ROYAL_MATCH)
>>> rm = odds["ROYAL_MATCH"]
>>> rm.outcomes["EASY"].ways, rm.outcomes["EASY"].total  # 11,868 suited pairs × C(310, 2)
(568417860, 2323673820)
>>> round(1 - rm.rtp, 6), rm.player_favourable  # house edge 6.6658 %
(0.066658, False)
>>> insurance(["AS"], decks=1).fraction
Fraction(16, 51)
>>> round(dealer_outcomes("6S", [], decks=1)["BUST"], 6)
0.420823

Interpretations (the rule sheets are silent here; docs/rules.md §3 records them):

* Royal Match's Crown Treasure compares the player's first two cards with the dealer's first
  two. The four cards are counted as a random deal of four from the shoe (player two, dealer
  two): with a hole-card deal that is exact whatever the deal order.
* Insurance is offered while the dealer's only card is an Ace, up to the dealer's second
  card (docs/rules.md §3's European deal; see ``BlackjackShoe.insurance``). Dealer outcomes are
  conditioned on the dealer's hand so far (every DEALER card of the round, in order:
  ``dealer_odds_from_hand``); a hand that is over is a point mass on its result.
* Insurance and dealer outcomes draw the dealer's next cards from the shoe as it is now.
  Cards that players draw in between are unknown when the price is shown; the chance that the
  next cards of the shoe are any given sequence is a martingale as cards are drawn, so however
  many cards the players take, the dealer's cards are distributed exactly as the next cards of
  the shoe now. This also holds for docs/rules.md §3's European deal, where the dealer's second
  card comes after the players have drawn.
* A pay of ``n`` hundredths means ``n / 100 : 1``; a losing outcome is listed with ``-100``
  (the stake is lost), so the RTP is ``sum(ways × (pays + 100)) / (100 × total)`` over every
  outcome.

The package, by what each module holds (``__all__`` re-exports the public names of the first
six; ``rounds`` and ``strategy`` are imported from their own modules):

* ``rules``: the dealer's rule on soft 17 (``DealerRule``), the shoe mode (``ShoeMode``);
* ``paytables``: the Royal Match and pair paytables and their presets;
* ``bets``: the exact odds of the side bets and of insurance (``side_bets``, ``insurance``);
* ``hands``: hand totals, when the dealer's hand is over, the side bets' outcome of a dealt
  round (``classify_royal_match``, ``classify_pair``);
* ``dealer``: the dealer's outcomes as exact distributions (``dealer_odds``, ``dealer_table``);
* ``shoe``: the shoe of a live table, ``BlackjackShoe``, a pure state machine folded from
  ``pricing.games.events`` (depleting shoe or continuous shuffle, 1–8 decks);
* ``rounds``: a table's rounds over the shoe: its options, betting phase and how a round ended;
* ``strategy``: the hit/stand basic strategy the simulator deals demo rounds by.
"""

from __future__ import annotations

from pricing.games.blackjack.bets import InsuranceOdds, insurance, side_bets
from pricing.games.blackjack.dealer import (
    DEALER_OUTCOMES,
    UP_VALUES,
    DealerOdds,
    dealer_odds,
    dealer_odds_from_hand,
    dealer_outcomes,
    dealer_outcomes_from_hand,
    dealer_table,
)
from pricing.games.blackjack.hands import (
    classify_pair,
    classify_royal_match,
    dealer_hand_result,
    hand_total,
    played_dealer_hand,
)
from pricing.games.blackjack.paytables import (
    ANY_PAIR,
    DEFAULT_ROYAL_MATCH,
    PAIRS_PRESETS,
    PERFECT_PAIRS,
    ROYAL_MATCH_PRESETS,
    STANDARD_ROYAL_MATCH,
    PairsPaytable,
    RoyalMatchPaytable,
    pairs_paytable,
    royal_match_paytable,
)
from pricing.games.blackjack.rules import DealerRule, ShoeMode
from pricing.games.blackjack.shoe import BlackjackShoe
from pricing.games.fixed_odds import OutcomeOdds, SideBetOdds

__all__ = [
    "ANY_PAIR",
    "DEALER_OUTCOMES",
    "DEFAULT_ROYAL_MATCH",
    "PAIRS_PRESETS",
    "PERFECT_PAIRS",
    "ROYAL_MATCH_PRESETS",
    "STANDARD_ROYAL_MATCH",
    "UP_VALUES",
    "BlackjackShoe",
    "DealerOdds",
    "DealerRule",
    "InsuranceOdds",
    "OutcomeOdds",
    "PairsPaytable",
    "RoyalMatchPaytable",
    "ShoeMode",
    "SideBetOdds",
    "classify_pair",
    "classify_royal_match",
    "dealer_hand_result",
    "dealer_odds",
    "dealer_odds_from_hand",
    "dealer_outcomes",
    "dealer_outcomes_from_hand",
    "dealer_table",
    "hand_total",
    "insurance",
    "pairs_paytable",
    "played_dealer_hand",
    "royal_match_paytable",
    "side_bets",
]
