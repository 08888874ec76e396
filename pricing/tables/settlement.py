"""Settlement: what a bet accepted at a table's version pays, from the table's histories.

A bet is paid at the price it was accepted on, in integers (docs/rules.md §5.3). ``Table``
takes these methods from ``SettlesBets``; the histories they read are the table's own.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, TypedDict

from pricing.errors import IllegalMove, InvalidInput
from pricing.payout import returned_cents
from pricing.tables.adapter import GameAdapter, check_seat
from pricing.tables.errors import HistoryNotLoaded, StaleBet, VersionNotReached
from pricing.tables.events import TableConfig
from pricing.tables.history import (
    Bounded,
    PricePoint,
    Settlement,
    SettleStatus,
    Snapshot,
    check_stake,
)
from pricing.tables.positions import (
    LegOutcome,
    PositionLeg,
    PositionSettlement,
    position_steps,
    settle_position,
)
from pricing.tables.views import EndedRound

__all__ = ["SettlesBets"]


class _BetValues(TypedDict):
    """A refused bet's values, as ``StaleBet`` takes them."""

    table_id: str
    round_id: int
    version: int
    bet: str
    current_version: int


class SettlesBets:
    """The settlement half of ``Table``: it reads the histories the table keeps."""

    __slots__ = ()

    if TYPE_CHECKING:  # the table's attributes these methods read (``Table`` sets them)
        table_id: str
        config: TableConfig
        adapter: GameAdapter
        seats: int
        snapshot: Snapshot
        history_from: int
        _prices: Bounded[int, PricePoint]
        _rounds: Bounded[int, EndedRound]

    def _need_history(self, what: str, held: bool) -> None:
        """Before saying something is too old: a table rebuilt from an image may just not hold
        it yet, if a table that never restarted would (``held``)."""
        if held and self.history_from > 1:
            raise HistoryNotLoaded(
                f"{what} of table {self.table_id!r} is older than its image "
                f"(version {self.history_from})"
            )

    def settle(
        self, round_id: int, version: int, bet: str, stake_cents: int, seat: int = 0
    ) -> Settlement:
        """Settle ``stake_cents`` on ``bet`` accepted at ``version`` for round ``round_id``, on
        ``seat`` (a game with seats: the box the bet is on, ``check_seat``).

        The bet is valid only if that round was open for betting at that version and the bet
        was open then; it is paid at that version's price: profit = floor(stake × payout /
        100), in integers. A void round returns the stake; before the result: PENDING.

        Malformed whatever the table's state (``InvalidInput``): a stake outside
        1..``MAX_STAKE_CENTS``, a round or version of 0 (both count from 1), a seat the table
        does not have, a bet the game does not have. Well-formed but not possible now
        (``IllegalMove``): a version the table has not reached yet, one no longer held, a bet
        that was not open at that version.
        """
        check_stake(stake_cents)
        if round_id < 1:
            raise InvalidInput(
                f"round_id must be 1 or more (rounds count from 1), got {round_id}",
                field="round_id",
            )
        if version < 1:
            raise InvalidInput(
                f"version must be 1 or more (a table opens at version 1), got {version}",
                field="version",
            )
        seat = check_seat(self.seats, seat, f"a bet at table {self.table_id!r}")
        point = self._prices.get(version)
        view = self.snapshot.view
        known = dict.fromkeys([*view.prices, *(sb.bet for sb in view.side_bets)])
        if point is not None:  # a game's bets are fixed for a table's life; in case one is not
            known.update(dict.fromkeys([*point.payouts, *point.side_bets]))
        if bet not in known:
            raise InvalidInput(
                f"unknown bet {bet!r} for {self.config.game.name}: expected one of "
                f"{', '.join(known)}",
                field="bet",
            )
        current = self.snapshot.version
        if version > current:
            raise VersionNotReached(
                f"version {version} of table {self.table_id!r} does not exist yet "
                f"(current version {current})",
                table_id=self.table_id,
                version=version,
                current_version=current,
            )
        if point is None:
            self._need_history(
                f"version {version}", version > self.snapshot.version - self._prices.limit
            )
            raise StaleBet(
                f"version {version} of table {self.table_id!r} is no longer held: prices of "
                f"the last {self._prices.limit} versions are kept (current version {current})",
                why="VERSION_NOT_HELD",
                **self._bet(round_id, version, bet),
            )
        if bet in point.side_bets:
            return self._settle_side_bet(round_id, version, bet, stake_cents, point, seat=seat)
        if bet not in point.payouts:
            raise StaleBet(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: the bet was not offered at that version",
                why="BET_NOT_OFFERED",
                **self._bet(round_id, version, bet),
            )
        self._check_open_round(round_id, version, bet, point)
        payout = point.payouts[bet]
        if payout is None:
            raise StaleBet(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: the bet was closed at that version",
                why="BET_CLOSED",
                **self._bet(round_id, version, bet),
            )
        ended = self._ended(round_id, version, bet)
        if ended is None:
            return Settlement(SettleStatus.PENDING, payout, 0)
        if ended.void:
            return Settlement(SettleStatus.VOID, payout, stake_cents)
        if self.adapter.bet_wins(self.config, bet, ended.result):
            returned = returned_cents(stake_cents, payout)
            return Settlement(SettleStatus.WIN, payout, returned, ended.result)
        return Settlement(SettleStatus.LOSE, payout, 0, ended.result)

    def settle_position(self, stake_cents: int, legs: Sequence[PositionLeg]) -> PositionSettlement:
        """Ride ``stake_cents`` through ``legs`` (``pricing.tables.positions``) under the
        table's cap (``GameAdapter.position_cap_cents``). Each leg is settled as a bet of its
        own (``settle``, stake 1: only its status, price and cards are read), so it is refused
        exactly when that bet would be, the refusal naming the leg; a fixed-paytable side bet
        cannot be a leg (its pay is not a price at a version)."""
        cap = self.adapter.position_cap_cents(self.config)
        return settle_position(stake_cents, legs, cap, self._leg_outcome)

    def position_steps(
        self, stake_cents: int, legs: Sequence[PositionLeg]
    ) -> Generator[None, None, PositionSettlement]:
        """``settle_position`` a few legs at a time (``pricing.tables.positions``)."""
        cap = self.adapter.position_cap_cents(self.config)
        return position_steps(stake_cents, legs, cap, self._leg_outcome)

    def _leg_outcome(self, i: int, leg: PositionLeg) -> LegOutcome:
        view = self.snapshot.view
        if leg.bet in {side_bet.bet for side_bet in view.side_bets}:
            raise InvalidInput(
                f"legs[{i}].bet {leg.bet!r} is a side bet: a position's legs are dynamic bets "
                f"({', '.join(view.prices) or f'{self.config.game.name} has none'})",
                field=f"legs[{i}].bet",
            )
        try:
            # Dynamic bets are on no seat: a table with seats is asked for seat 1, so the
            # seat check passes and the bet's own checks speak.
            settled = self.settle(leg.round_id, leg.version, leg.bet, 1, min(self.seats, 1))
        except InvalidInput as exc:  # keeps its kind (an InvalidOption's reason, …)
            exc.args = (f"legs[{i}]: {exc}",)
            exc.field = f"legs[{i}].{exc.field}" if exc.field else None
            raise
        except IllegalMove as exc:  # keeps its kind and values (a StaleBet's why, …)
            exc.args = (f"legs[{i}]: {exc}",)
            raise
        return LegOutcome(settled.status, settled.payout_hundredths, settled.result)

    def _settle_side_bet(
        self,
        round_id: int,
        version: int,
        bet: str,
        stake_cents: int,
        point: PricePoint,
        *,
        seat: int,
    ) -> Settlement:
        """A fixed-paytable side bet: valid if its round was open for betting at ``version``
        (no card of it dealt) and the bet could be placed then; it pays what the engine says
        its outcome pays on ``seat``'s cards (the paytable is fixed for the table's life). A
        seat dealt too few cards to settle it gets the stake back."""
        self._check_open_round(round_id, version, bet, point)
        if not point.side_bets[bet]:
            # The round was open: the bet alone was not (closed by game protection, or a shoe
            # too short to deal it).
            raise StaleBet(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: the bet was closed at that version (closed "
                "by game protection, or too few cards left to deal it)",
                why="BET_CLOSED",
                **self._bet(round_id, version, bet),
            )
        ended = self._ended(round_id, version, bet)
        if ended is None:
            return Settlement(SettleStatus.PENDING, 0, 0, seat=seat)
        result = (
            None if ended.void else self.adapter.side_bet_outcome(self.config, bet, ended, seat)
        )
        if result is None:
            return Settlement(SettleStatus.VOID, 0, stake_cents, seat=seat)
        pay = result.payout_hundredths
        # The one money rule, a loss included: a half loss (-50) returns half the stake,
        # rounded down (the odd cent to the house), a whole loss (-100) nothing.
        returned = returned_cents(stake_cents, pay)
        status = (
            SettleStatus.WIN if pay > 0 else SettleStatus.PUSH if pay == 0 else SettleStatus.LOSE
        )
        return Settlement(
            status,
            max(pay, 0),
            returned,
            result.cards,
            result.outcome,
            seat,
            net_payout_hundredths=pay,
        )

    def _bet(self, round_id: int, version: int, bet: str) -> _BetValues:
        """What a refused bet was, for its ``StaleBet``."""
        return _BetValues(
            table_id=self.table_id,
            round_id=round_id,
            version=version,
            bet=bet,
            current_version=self.snapshot.version,
        )

    def _check_open_round(self, round_id: int, version: int, bet: str, point: PricePoint) -> None:
        if not point.betting or point.round_id != round_id:
            open_round = f"round {point.round_id} was" if point.betting else "no round was"
            raise StaleBet(
                f"bet {bet} on round {round_id} at version {version} of table "
                f"{self.table_id!r} is not valid: {open_round} open for betting at that version",
                why="BETTING_CLOSED",
                **self._bet(round_id, version, bet),
            )

    def _ended(self, round_id: int, version: int, bet: str) -> EndedRound | None:
        """How ``round_id`` ended; ``None`` while it is still in play (``version`` and ``bet``:
        the bet asking, for the refusal's values)."""
        ended = self._rounds.get(round_id)
        current = self.snapshot
        if ended is None and not (round_id == current.view.round_id and not current.closed):
            self._need_history(
                f"round {round_id}", round_id > self.snapshot.view.round_id - self._rounds.limit
            )
            raise StaleBet(
                f"round {round_id} of table {self.table_id!r} is no longer held: the last "
                f"{self._rounds.limit} rounds are kept",
                why="ROUND_NOT_HELD",
                **self._bet(round_id, version, bet),
            )
        return ended
