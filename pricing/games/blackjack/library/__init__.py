"""The side-bet library of a live blackjack table (docs/rules.md §3.8): every bet a table can
offer, each exact over the remaining shoe.

``BETS`` holds each bet by its name on the wire; ``paytable`` makes a table's paytable of a
bet from a preset and overrides, ``odds`` prices the bets a table offers for the next round
and ``settle`` settles a seat's bet on a finished round. A new bet is one module here (a
``SideBet``) and one line in ``BETS``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from pricing.errors import InvalidOption
from pricing.games.blackjack.library.base import Deal, Paytable, SideBet
from pricing.games.blackjack.library.bust_it import BustIt
from pricing.games.blackjack.library.buster import Buster
from pricing.games.blackjack.library.hot_3 import Hot3
from pricing.games.blackjack.library.lucky_ladies import LuckyLadies
from pricing.games.blackjack.library.lucky_lucky import LuckyLucky
from pricing.games.blackjack.library.match_the_dealer import MatchTheDealer
from pricing.games.blackjack.library.over_under_13 import Over13, Under13
from pricing.games.blackjack.library.pairs import Pairs
from pricing.games.blackjack.library.royal_match import RoyalMatch
from pricing.games.blackjack.library.top_3 import Top3
from pricing.games.blackjack.library.twenty_one_plus_three import TwentyOnePlusThree
from pricing.games.blackjack.paytables import LOSE_HUNDREDTHS
from pricing.games.blackjack.rules import DealerRule
from pricing.games.fixed_odds import SideBetOdds, preset_pays
from pricing.payout import MAX_HUNDREDTHS
from pricing.text import quoted

__all__ = ["BETS", "Deal", "Paytable", "SideBet", "odds", "paytable", "settle"]

#: Every bet of the library, by its name on the wire, in the order a table lists them.
BETS: Final[Mapping[str, SideBet]] = {
    bet.name: bet
    for bet in (
        RoyalMatch(),
        Pairs(),
        TwentyOnePlusThree(),
        Hot3(),
        LuckyLadies(),
        LuckyLucky(),
        Top3(),
        MatchTheDealer(),
        Over13(),
        Under13(),
        BustIt(),
        Buster(),
    )
}


def paytable(bet: str, preset: str = "", overrides: Mapping[str, int] | None = None) -> Paytable:
    """``bet``'s paytable: ``preset`` (its default when empty) with the pays of ``overrides``
    (by paytable entry) in place of the preset's. ``InvalidOption`` names an unknown bet,
    preset or entry.

    >>> paytable("PAIRS", "any-pair").pays
    {'PAIR': 1100}
    """
    engine = BETS.get(bet)
    if engine is None:
        raise InvalidOption(f"unknown side bet {quoted(bet)}: expected one of {', '.join(BETS)}")
    name, pays = preset_pays(bet, engine.presets, preset, engine.default_preset, overrides)
    table = Paytable(bet, name, pays)
    for outcome, hundredths in engine.outcome_pays(table).items():
        if hundredths > MAX_HUNDREDTHS:  # an outcome that sums entries (Match the Dealer)
            raise InvalidOption(
                f"{bet} {outcome} would pay {hundredths} hundredths, more than {MAX_HUNDREDTHS}"
            )
    return table


def odds(
    counts: Sequence[int], rule: DealerRule, paytables: Sequence[Paytable]
) -> dict[str, SideBetOdds]:
    """The odds of each offered bet for the next round dealt from ``counts`` (the shoe's count
    of each card by ``Card.index``), in the order of ``paytables``."""
    priced = {}
    for table in paytables:
        engine = BETS[table.bet]
        ways, total = engine.ways(counts, rule, table)
        priced[table.bet] = SideBetOdds.from_ways(
            table.bet, ways, total, engine.outcome_pays(table)
        )
    return priced


def settle(table: Paytable, deal: Deal) -> tuple[str, int] | None:
    """A seat's bet on a finished round: its outcome and what it pays in hundredths (``-100``:
    lost), or ``None`` when the stake is refunded."""
    outcome = BETS[table.bet].outcome(deal, table)
    if outcome is None:
        return None
    if outcome == "LOSE":
        return outcome, LOSE_HUNDREDTHS
    return outcome, BETS[table.bet].outcome_pays(table)[outcome]
