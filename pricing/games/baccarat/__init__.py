"""Baccarat, punto banco (docs/rules.md §7): the drawing rules, every bet, and their exact odds
from any point of a round over what is left of the shoe.

The package, by what each module holds (``__all__`` re-exports their public names):

* ``tableau``: card values and totals, naturals, the drawing rules as the hand the next card
  of a round goes to (``next_hands``) and the rule a card for the wrong hand breaks
  (``refusal``), for a live table to check each card the dealer reports;
* ``bets``: the main bets under the three commission variants (``Commission``,
  ``main_paytables``), every side bet with its presets (``SIDE_BETS``, ``paytable``), each
  outcome's signed pay (``outcome_pays``) and the settlement of a complete round (``settle``);
* ``odds``: every bet's exact odds as ``SideBetOdds`` (``odds``), over the kernel
  ``pricing._baccarat``, which holds the drawing rules' other copy, in C.

>>> from pricing.cards import Shoe
>>> priced = odds(Shoe(8).counts(), [], [], [paytable("DRAGON_7"), paytable("PLAYER_PAIR")])
>>> [f"{p.house_edge:.3%}" for p in priced.values()]
['7.611%', '10.361%']
"""

from __future__ import annotations

from pricing.games.baccarat.bets import (
    MAIN_BETS,
    PAIR_BETS,
    SIDE_BETS,
    BaccaratPaytable,
    Commission,
    RoundResult,
    main_paytables,
    outcome_pays,
    paytable,
    settle,
)
from pricing.games.baccarat.odds import odds
from pricing.games.baccarat.tableau import (
    Hand,
    is_complete,
    is_natural,
    next_hand_dealt,
    next_hands,
    refusal,
    total,
    value,
)
from pricing.games.fixed_odds import OutcomeOdds, SideBetOdds

__all__ = [
    "MAIN_BETS",
    "PAIR_BETS",
    "SIDE_BETS",
    "BaccaratPaytable",
    "Commission",
    "Hand",
    "OutcomeOdds",
    "RoundResult",
    "SideBetOdds",
    "is_complete",
    "is_natural",
    "main_paytables",
    "next_hand_dealt",
    "next_hands",
    "odds",
    "outcome_pays",
    "paytable",
    "refusal",
    "settle",
    "total",
    "value",
]
