"""Live statistics: what each bet at a table actually returned, against the exact theory for
the prices it was offered at.

The records of a table's journal are folded through ``pricing.tables`` exactly as the server
folds them. For every round that ended with a result, every bet that was open when the round's
betting closed is settled for one unit (``UNIT_CENTS``) as the table settles a bet (profit =
floor(stake × payout / 100); with a unit of 100 cents and payouts in hundredths the floor is
exact): the stakes the table counts as it folds the round (``Table.stakes``, from
``pricing.tables.live_return``, the same the server's ``pricing_live_return_z`` sums in
floats), one a round for each bet. Blackjack's side bets are settled the same way for every
seat dealt its two cards (a seat dealt fewer is refunded) and make one stake together: what
they returned per unit, their mean.

The theory for one such stake is exact: at the prices the round was offered on, the bet wins
``ways`` of ``total`` equally likely outcomes (``BetPrice.wins`` of ``remaining`` for a dynamic
bet; each outcome of a side bet's paytable), so its expected return ``E`` and variance ``V``
are ratios of integers, summed here as ``Fraction``s. Over ``n`` stakes the realised mean
return is compared with the mean of their ``E``: each stake's deviation from its own ``E`` has
mean zero given everything dealt before it, so the deviations add up as a martingale and the
standard error of the realised mean about the expected one is ``sqrt(ΣV) / n`` (the cards of
one deck are not independent, but this conditional form needs no independence). A stake on
several seats is the mean of their returns, each with that ``E`` and ``V``; its variance is at
most ``V`` whatever the seats have in common, so ``V`` is used: exact for a bet settled on the
dealer's cards alone (Bust It), conservative for one on each seat's own cards (Perfect Pairs).
A gap beyond ``FLAG_SE`` standard errors is flagged: the table did not deal the cards the
service priced (a short deck, a biased shuffle, a feed that misses cards).

Blackjack's Crown Treasure is priced on the dealer's first two cards; a round in which the
dealer never draws a second (every seat bust) cannot pay it, so a live Royal Match returns a
hair less than its price says (a Crown is rarer than 1 in 10,000 rounds: far inside the
standard error).

``certified`` is the long-run figure of the theoretical report, where one applies: Hi-Lo's
``per_offered_round`` over a uniformly shuffled deck (``pricing.analysis.hilo``), and a side
bet's full-shoe RTP (its mean at every penetration): blackjack's, and every bet of baccarat
and Dragon Tiger (the round's hands are the journal's PLAYER/BANKER and DRAGON/TIGER cards,
each bet settled on them as the table settles it). It is a reference: the realised return is
tested against ``expected``, the exact figure for the deck states the table actually went
through; the two agree in the long run. Goa Gae has none: its report depends on how many
rounds are dealt from a deck and how many cards each takes, which a live table does not fix.

>>> from pricing.cards import parse_card
>>> from pricing.tables import ExposeCard, CardRole, Table, TableConfig, Game
>>> table = Table("t1", TableConfig(Game.HILO), keep_journal=True)
>>> for seq, text in enumerate(["2S", "3S", "4S", "5S", "6S", "KH"], start=1):
...     role = CardRole.RESULT if seq == 6 else CardRole.BURN
...     _ = table.apply(seq, ExposeCard(parse_card(text), role))
>>> stats = live_stats([[Record("t1", entry, 0.0) for entry in table.journal]])
>>> stats.rounds, stats.bets["HIGH"].returned, stats.bets["LOW"].returned
(1, Fraction(47, 25), Fraction(0, 1))
>>> stats.bets["HIGH"].expected == Fraction(24, 47) * Fraction(188, 100)  # HIGH paid 0.88 : 1
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

from pricing.analysis.report import exact_number
from pricing.errors import InvalidInput
from pricing.games.baccarat.table import BACCARAT, BaccaratRules
from pricing.games.blackjack import library
from pricing.games.dragon_tiger.table import DRAGON_TIGER, DragonTigerRules
from pricing.games.higher_lower import HigherLowerRules
from pricing.games.hilo import HiLoPaytable
from pricing.games.two_hands import TwoHandGame
from pricing.journal import Record
from pricing.journal.fold import apply_record, fold_records
from pricing.tables import Game, Table, TableConfig
from pricing.tables.live_return import UNIT_CENTS, Stake

__all__ = ["FLAG_SE", "UNIT_CENTS", "LiveBet", "LiveReport", "live_stats"]

#: A gap between the realised and the expected return beyond this many standard errors is
#: flagged (by chance alone: about 6 honest bets' figures in 100,000).
FLAG_SE: Final = 4


@dataclass(frozen=True, slots=True)
class LiveBet:
    """One bet over the stakes counted: ``stakes`` settled, one a round it was offered on (a
    blackjack side bet: one unit on each seat dealt two cards, returning their mean), ``wins``
    of them won (on at least one seat); ``returned`` the realised return per unit staked and
    ``expected`` the exact expectation of those same stakes (both stake included: 1 is
    break-even); ``standard_error`` of ``returned`` about ``expected``; ``certified`` the
    theoretical report's figure, where one applies (see the module's docstring)."""

    bet: str
    stakes: int
    wins: int
    returned: Fraction
    expected: Fraction
    variance: Fraction  # Σ of the stakes' variances (units²; on several seats: one seat's)
    certified: Fraction | None = None

    @property
    def standard_error(self) -> float:
        return math.sqrt(self.variance) / self.stakes if self.stakes else 0.0

    @property
    def gap(self) -> Fraction:
        return self.returned - self.expected

    @property
    def z(self) -> float | None:
        """The gap in standard errors; ``None`` with no stakes or no variance."""
        se = self.standard_error
        return float(self.gap) / se if se else None

    @property
    def flagged(self) -> bool:
        """The gap is beyond ``FLAG_SE`` standard errors (with no variance: any gap), decided
        exactly: gap² > FLAG_SE² × ΣV / stakes²."""
        return self.gap**2 * self.stakes**2 > FLAG_SE**2 * self.variance

    @property
    def interval(self) -> tuple[float, float]:
        """Where ``returned`` is expected to fall: ``expected`` ± ``FLAG_SE`` standard errors."""
        half = FLAG_SE * self.standard_error
        return (float(self.expected) - half, float(self.expected) + half)

    def as_dict(self) -> dict[str, Any]:
        return {
            "bet": self.bet,
            "stakes": self.stakes,
            "wins": self.wins,
            "returned": exact_number(self.returned),
            "expected": exact_number(self.expected),
            "standard_error": self.standard_error,
            "interval": list(self.interval),
            "z": self.z,
            "flagged": self.flagged,
            "certified": None if self.certified is None else exact_number(self.certified),
        }


@dataclass(frozen=True, slots=True)
class LiveReport:
    """The live statistics of ``table_ids`` (one game) over the rounds that ended in
    [``since``, ``until``) (``None``: unbounded): ``rounds`` ended with a result, ``void_rounds``
    were refunded; ``first_at``/``last_at``: when the first and last counted round ended."""

    game: Game
    table_ids: tuple[str, ...]
    since: float | None
    until: float | None
    rounds: int
    void_rounds: int
    first_at: float | None
    last_at: float | None
    bets: dict[str, LiveBet]

    @property
    def flagged(self) -> tuple[str, ...]:
        return tuple(bet for bet, stats in self.bets.items() if stats.flagged)

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game.name.lower(),
            "table_ids": list(self.table_ids),
            "since": self.since,
            "until": self.until,
            "rounds": self.rounds,
            "void_rounds": self.void_rounds,
            "first_at": self.first_at,
            "last_at": self.last_at,
            "flag_se": FLAG_SE,
            "flagged": list(self.flagged),
            "bets": {bet: stats.as_dict() for bet, stats in self.bets.items()},
        }


@dataclass
class _Tally:
    stakes: int = 0
    wins: int = 0
    #: Cents returned by the stakes on each number of seats (units): summed as integers, each
    #: over its units once at the end (``returned``).
    returned_cents: dict[int, int] = field(default_factory=dict)
    expected: Fraction = field(default_factory=Fraction)
    variance: Fraction = field(default_factory=Fraction)

    @property
    def returned(self) -> Fraction:
        """Per unit staked: each stake returned the mean of its units'."""
        if not self.stakes:
            return Fraction(0)
        cents = sum((Fraction(c, units) for units, c in self.returned_cents.items()), Fraction(0))
        return cents / (UNIT_CENTS * self.stakes)


@dataclass
class _Totals:
    rounds: int = 0
    void_rounds: int = 0
    first_at: float | None = None
    last_at: float | None = None
    bets: dict[str, _Tally] = field(default_factory=dict)

    def tally(self, bet: str) -> _Tally:
        found = self.bets.get(bet)
        if found is None:
            found = self.bets[bet] = _Tally()
        return found


def _count(stakes: Iterable[Stake], totals: _Totals) -> None:
    """Add a round's stakes (``Table.stakes``) to ``totals``, exactly."""
    for offer, cents, units, won in stakes:
        tally = totals.tally(offer.bet)
        tally.stakes += 1
        tally.wins += won
        tally.returned_cents[units] = tally.returned_cents.get(units, 0) + cents
        tally.expected += offer.mean(Fraction)
        tally.variance += offer.variance(Fraction)


def _fold_table(
    records: Sequence[Record], since: float | None, until: float | None, totals: _Totals
) -> Table:
    """Fold one table's records, adding the stakes of every round that ended in the range to
    ``totals``; the folded table."""
    table = fold_records(records[0].table_id if records else "", None, list(records[:1]))
    for record in records[1:]:
        apply_record(table, record)
        ended = table.snapshot.view.ended
        at = record.accepted_at
        if (
            ended is None
            or (since is not None and at < since)
            or (until is not None and at >= until)
        ):
            continue
        if ended.void:
            totals.void_rounds += 1
            continue
        totals.rounds += 1
        totals.first_at = at if totals.first_at is None else totals.first_at
        totals.last_at = at
        _count(table.stakes, totals)
    return table


def live_stats(
    tables: Iterable[Sequence[Record]],
    *,
    since: float | None = None,
    until: float | None = None,
) -> LiveReport:
    """The live statistics of one or more tables of one game: each element of ``tables`` is a
    table's whole journal in version order (from its ``OpenTable``), as ``export_records``
    or ``Journal.events`` return it; rounds count when the record that ended them was
    accepted in [``since``, ``until``). ``JournalCorrupt`` if a journal does not fold;
    ``InvalidInput`` for tables of different games, or none."""
    totals = _Totals()
    game: Game | None = None
    ids: list[str] = []
    configs: set[TableConfig] = set()
    for records in tables:
        table = _fold_table(records, since, until, totals)
        if game is not None and table.config.game is not game:
            raise InvalidInput(
                f"table {table.table_id!r} is {table.config.game.name}, not {game.name}: "
                "live statistics add up the tables of one game"
            )
        game = table.config.game
        ids.append(table.table_id)
        configs.add(table.config)
    if game is None:
        raise InvalidInput("no tables to analyse")
    certified = _certified(configs.pop()) if len(configs) == 1 else {}
    # in the game's order (a bet first offered in a later round, Higher/Lower's LOWER after a
    # first base card of 2, would otherwise come last)
    view = table.snapshot.view
    order = [*view.prices, *(sb.bet for sb in view.side_bets)]
    ranked = sorted(totals.bets.items(), key=lambda item: _place(order, item[0]))
    bets = {
        bet: LiveBet(
            bet=bet,
            stakes=t.stakes,
            wins=t.wins,
            returned=t.returned,
            expected=t.expected / t.stakes if t.stakes else Fraction(0),
            variance=t.variance,
            certified=certified.get(bet),
        )
        for bet, t in ranked
    }
    return LiveReport(
        game=game,
        table_ids=tuple(ids),
        since=since,
        until=until,
        rounds=totals.rounds,
        void_rounds=totals.void_rounds,
        first_at=totals.first_at,
        last_at=totals.last_at,
        bets=bets,
    )


def _place(order: list[str], bet: str) -> int:
    return order.index(bet) if bet in order else len(order)


def _certified(config: TableConfig) -> dict[str, Fraction]:
    """The theoretical report's long-run figure of each bet of tables configured so."""
    if config.game is Game.HILO:
        assert isinstance(config.rules, HiLoPaytable)
        return _hilo_certified(config.rules)
    if config.game is Game.BLACKJACK:
        from pricing.games.blackjack.rounds import BlackjackOptions  # noqa: PLC0415

        options = config.rules
        assert isinstance(options, BlackjackOptions)
        full = (config.decks,) * 52  # a full shoe: every card config.decks times
        odds = library.odds(full, options.rule, options.side_bets)
        return {bet: o.rtp_fraction for bet, o in odds.items()}
    if config.game is Game.HIGHER_LOWER:
        assert isinstance(config.rules, HigherLowerRules)
        return _higher_lower_certified(config.rules, config.decks)
    if config.game in _TWO_HAND_GAMES:
        rules = config.rules
        assert isinstance(rules, BaccaratRules | DragonTigerRules)
        full = (config.decks,) * 52
        odds = _TWO_HAND_GAMES[config.game].odds(full, ((), ()), rules.paytables)
        return {bet: o.rtp_fraction for bet, o in odds.items()}
    return {}


#: The games of two hands, each by its engine: every bet a fixed paytable's.
_TWO_HAND_GAMES: Final[dict[Game, TwoHandGame]] = {
    Game.BACCARAT: BACCARAT,
    Game.DRAGON_TIGER: DRAGON_TIGER,
}


@lru_cache(maxsize=8)
def _higher_lower_certified(rules: HigherLowerRules, decks: int) -> dict[str, Fraction]:
    """The exact report's return per offered round, in the table's shuffle mode."""
    from pricing.analysis.higher_lower import higher_lower_report  # noqa: PLC0415 - 2 s

    report = higher_lower_report(
        rules.paytable, decks=decks, burns=rules.burns, modes=(rules.shuffle,)
    )
    bets = report.continuous if report.continuous is not None else report.depleting
    assert bets is not None
    return {bet: r.overall.per_offered_round for bet, r in bets.items()}


@lru_cache(maxsize=8)
def _hilo_certified(paytable: HiLoPaytable) -> dict[str, Fraction]:
    from pricing.analysis.hilo import hilo_rtp  # noqa: PLC0415 - under a second, when needed

    return {bet: r.per_offered_round for bet, r in hilo_rtp(paytable).bets.items()}
