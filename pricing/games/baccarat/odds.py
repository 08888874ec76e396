"""The exact odds of baccarat's bets (docs/rules.md §7) from any point of a round: before it
(both hands empty: the next round's odds) or after any of its cards.

The kernel (``pricing._baccarat``) counts the ways each end of the round can come about —
the hands' totals and numbers of cards, 400 cells — over one common total, and the pair
bets' ways in closed form. The bets' rules (``pricing.games.baccarat.bets``) are read once
per set of paytables into a map from cell to outcome, which the kernel sums.

>>> from pricing.games.baccarat.bets import Commission, main_paytables
>>> priced = odds([8] * 52, [], [], main_paytables(Commission.STANDARD, 8))
>>> win = priced["BANKER"].outcomes["WIN"]
>>> win.ways, win.total  # 416 × 415 × … × 411 deals of six cards
(2292252566437888, 4998398275503360)
>>> f"{priced['BANKER'].house_edge:.4%}", f"{priced['PLAYER'].house_edge:.4%}"
('1.0579%', '1.2351%')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from pricing import _baccarat
from pricing.cards import Card
from pricing.games.baccarat.bets import (
    IDENTICAL_PAIR_BETS,
    PAIR_BETS,
    BaccaratPaytable,
    RoundResult,
    outcome,
    outcome_pays,
    pair_outcome,
)
from pricing.games.baccarat.tableau import next_hands
from pricing.games.fixed_odds import SideBetOdds

__all__ = ["odds"]

#: The cells of the kernel's table, in its order: (player cards, banker cards, player total,
#: banker total).
CELLS: Final = tuple(
    RoundResult(pt, bt, pc, bc)
    for pc in (2, 3)
    for bc in (2, 3)
    for pt in range(10)
    for bt in range(10)
)
#: Where a bet's ways come from: the cells, or the pairs by rank or by card.
_CELLS, _RANK_PAIRS, _CARD_PAIRS = 0, 1, 2
#: The joint events of the pair bets, (Player pairs, Banker pairs), the fourth (neither) left
#: out: a pair bet's outcome is one or more of them.
_PAIR_CELLS: Final = ((True, True), (True, False), (False, True))


@dataclass(frozen=True, slots=True)
class _Priced:
    """How one bet of a set of paytables is priced: its paytable, where its ways come from
    (``source``, and for cells its position among the kernel's bets), its outcomes in code
    order and their pays; for a pair bet, the positions in ``_PAIR_CELLS`` of each outcome."""

    table: BaccaratPaytable
    source: int
    position: int
    names: tuple[str, ...]
    pays: Mapping[str, int]
    pair_cells: tuple[tuple[int, ...], ...] = ()

    def priced(self, ways: Sequence[int], total: int) -> SideBetOdds:
        """The bet's odds from the ways of its outcomes in code order."""
        by_name = dict(zip(self.names, ways, strict=True))
        return SideBetOdds.from_ways(self.table.bet, by_name, total, self.pays)


@lru_cache(maxsize=64)
def _plan(paytables: tuple[BaccaratPaytable, ...]) -> tuple[bytes, bytes, tuple[_Priced, ...]]:
    """The kernel's outcome codes (400 a bet decided by the cells) and their number for each
    such bet, and how each bet is priced."""
    codes = bytearray()
    widths = bytearray()
    priced = []
    for table in paytables:
        pays = outcome_pays(table)
        names = tuple(pays)
        if table.bet in PAIR_BETS:
            source = _CARD_PAIRS if table.bet in IDENTICAL_PAIR_BETS else _RANK_PAIRS
            events = [pair_outcome(table, p, b) for p, b in _PAIR_CELLS]
            cells = tuple(tuple(i for i, e in enumerate(events) if e == name) for name in names)
            priced.append(_Priced(table, source, -1, names, pays, cells))
            continue
        for result in CELLS:
            name = outcome(table, result)
            codes.append(0 if name == "LOSE" else names.index(name) + 1)
        priced.append(_Priced(table, _CELLS, len(widths), names, pays))
        widths.append(len(names))
    return bytes(codes), bytes(widths), tuple(priced)


def odds(
    counts: Sequence[int],
    player: Sequence[Card],
    banker: Sequence[Card],
    paytables: Sequence[BaccaratPaytable],
) -> dict[str, SideBetOdds]:
    """The odds of every bet of ``paytables``, in that order, for the round with ``player``
    and ``banker`` dealt so far (both empty: the next round) from a shoe now holding
    ``counts[i]`` of the card with ``Card.index`` ``i`` (the round's cards already out of it).
    Each bet's ways are exact over one common total; a round needs 6 cards when it starts,
    and with fewer every bet is closed (total 0). ``ValueError`` for hands no round reaches.
    """
    next_hands(player, banker)  # refuses hands no round reaches
    codes, widths, plan = _plan(tuple(paytables))
    cell_ways, total, rank_pairs, card_pairs = _baccarat.round_ways(
        counts, [card.index for card in player], [card.index for card in banker], codes, widths
    )
    priced = {}
    for bet in plan:
        if bet.source == _CELLS:
            priced[bet.table.bet] = bet.priced(cell_ways[bet.position], total)
            continue
        player_pairs, banker_pairs, both, pair_total = (
            card_pairs if bet.source == _CARD_PAIRS else rank_pairs
        )
        joint = (both, player_pairs - both, banker_pairs - both)
        ways = tuple(sum(joint[i] for i in cells) for cells in bet.pair_cells)
        priced[bet.table.bet] = bet.priced(ways, pair_total)
    return priced
