"""Positions (docs/rules.md §6.3): one stake carried from round to round, each leg a dynamic
bet on a later round at the price of the version it was accepted on.

The arithmetic is here once, pure and in integers; what each leg did (won, lost, void,
pending; its price and cards) is asked of ``outcome``, which the table answers with its one
settlement of a bet (``SettlesBets.settle``), so a leg is valid exactly when that bet is.

- A leg won: value + floor(value × payout / 100), cut to the cap less what the position has
  collected (the cap is on all it pays); a value that reaches that (``capped``) is collected
  whole and no leg may follow (it could only lose); lost: 0 and
  the position ends (a leg after it is refused); void: the value rides on unchanged; pending:
  the position waits, and the legs after it are not read.
- After a decided leg ``collect_cents`` (at most its value) is taken out; the rest rides on.
  A pending or lost leg collects nothing. A leg may not follow one that collected the whole
  value: nothing would ride on it (Settle refuses a stake of 0 alike).
- Nothing is ever added: the stake is the only money in, so a position pays at most
  ``stake × Π(1 + payout / 100)``, and its collects and value together never pass the cap.
- The cap: the table's (0: none), and in any case ``MAX_VALUE_CENTS``, the most a uint64 on
  the wire carries; a stake not under the cap is refused (a position must be able to win).

>>> legs = [PositionLeg(1, 2, "HIGHER", collect_cents=50), PositionLeg(2, 7, "LOWER")]
>>> said = {1: LegOutcome(SettleStatus.WIN, 150), 2: LegOutcome(SettleStatus.VOID, 80)}
>>> p = settle_position(100, legs, 0, lambda i, leg: said[leg.round_id])
>>> p.status.name, [(leg.value_cents, leg.riding_cents) for leg in p.legs], p.collected_cents
('WIN', [(250, 200), (200, 200)], 50)
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Final

from pricing.cards import Card
from pricing.errors import IllegalMove, InvalidInput
from pricing.payout import returned_cents
from pricing.tables.history import SettleStatus, check_stake

__all__ = [
    "MAX_LEGS",
    "MAX_VALUE_CENTS",
    "STEP_LEGS",
    "LegOutcome",
    "LegResult",
    "PositionLeg",
    "PositionSettlement",
    "check_legs",
    "position_steps",
    "settle_position",
    "step",
]

#: The most legs one position may have.
MAX_LEGS: Final = 1000
#: The most a position is worth whatever the table's cap: ``value_cents`` is a uint64.
MAX_VALUE_CENTS: Final = 2**64 - 1
#: Legs settled in one step of ``position_steps``: about half a millisecond of work.
STEP_LEGS: Final = 50


@dataclass(frozen=True, slots=True)
class PositionLeg:
    """One leg as asked: the bet (``round_id``, ``version``, ``bet``, as a Settle names it)
    and what is collected after it."""

    round_id: int
    version: int
    bet: str
    collect_cents: int = 0


@dataclass(frozen=True, slots=True)
class LegOutcome:
    """What settling the leg's bet said: its status, its price at its version, its cards."""

    status: SettleStatus
    payout_hundredths: int
    result: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class LegResult:
    """One leg settled: ``stake_cents`` rode on it; ``value_cents`` after the cap and before
    the collect (0 lost, the stake while pending); ``riding_cents`` = value − collected."""

    status: SettleStatus
    payout_hundredths: int
    stake_cents: int
    value_cents: int
    capped: bool
    collected_cents: int
    riding_cents: int
    result: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class PositionSettlement:
    """A position as it stands: its legs read (up to a pending one), what was collected, what
    still rides (0 after a loss)."""

    status: SettleStatus
    legs: tuple[LegResult, ...]
    collected_cents: int
    riding_cents: int
    stake_cents: int


def check_legs(stake_cents: int, legs: Sequence[PositionLeg], cap_cents: int) -> None:
    """What is malformed whatever the rounds did (``InvalidInput`` naming the field): the
    stake, the number of legs, the rounds' order, a stake over the cap."""
    check_stake(stake_cents)
    if not 1 <= len(legs) <= MAX_LEGS:
        raise InvalidInput(f"legs must be 1 to {MAX_LEGS}, got {len(legs)}", field="legs")
    for i in range(1, len(legs)):
        before, leg = legs[i - 1].round_id, legs[i].round_id
        if leg <= before:
            raise InvalidInput(
                f"legs[{i}].round_id {leg} must be after legs[{i - 1}].round_id {before}: "
                "each leg is on a later round",
                field=f"legs[{i}].round_id",
            )
    if cap_cents and stake_cents >= cap_cents:
        raise InvalidInput(
            f"stake_cents {stake_cents} is not under the table's max_position_payout_cents "
            f"{cap_cents}: a position pays at most that, so it could win nothing",
            field="stake_cents",
        )


def _collect(i: int, leg: PositionLeg, value: int, status: SettleStatus, last: bool) -> int:
    """The collect after leg ``i`` (``last``: no leg follows), checked against its value."""
    collect = leg.collect_cents
    field = f"legs[{i}].collect_cents"
    if status in (SettleStatus.PENDING, SettleStatus.LOSE) and collect:
        raise InvalidInput(
            f"{field} {collect} must be 0: leg {i} "
            f"{'lost' if status is SettleStatus.LOSE else 'is pending'}, nothing can be "
            "collected from it",
            field=field,
        )
    if collect > value:
        raise InvalidInput(
            f"{field} {collect} is more than the position's value after leg {i}: {value}",
            field=field,
        )
    if collect == value and value and not last:
        raise InvalidInput(
            f"{field} {collect} collects the whole value after leg {i}, but legs[{i + 1}] "
            "follows: nothing would ride on it (cash out after the last leg)",
            field=field,
        )
    return collect


def settle_position(
    stake_cents: int,
    legs: Sequence[PositionLeg],
    cap_cents: int,
    outcome: Callable[[int, PositionLeg], LegOutcome],
) -> PositionSettlement:
    """Ride ``stake_cents`` through ``legs`` under ``cap_cents`` (0: none), each leg's
    outcome from ``outcome(index, leg)``, asked in order and not past a pending or lost leg.
    ``IllegalMove`` for a leg after a lost one; ``InvalidInput`` for a malformed position."""
    steps = position_steps(stake_cents, legs, cap_cents, outcome)
    while (settled := step(steps)) is None:
        pass
    return settled


def step(steps: Generator[None, None, PositionSettlement]) -> PositionSettlement | None:
    """Run ``position_steps`` one step on: the settlement once it is done, else None."""
    try:
        next(steps)
    except StopIteration as done:
        settled: PositionSettlement = done.value
        return settled
    return None


def position_steps(
    stake_cents: int,
    legs: Sequence[PositionLeg],
    cap_cents: int,
    outcome: Callable[[int, PositionLeg], LegOutcome],
    every: int = STEP_LEGS,
) -> Generator[None, None, PositionSettlement]:
    """``settle_position`` in steps: it yields after every ``every`` legs and returns the
    settlement. The server runs a long position so, a step at a time, letting the dealer's
    feed in between (a thousand legs take about 10 ms, a step well under one)."""
    check_legs(stake_cents, legs, cap_cents)
    cap = min(cap_cents or MAX_VALUE_CENTS, MAX_VALUE_CENTS)
    riding = stake_cents
    collected = 0
    results: list[LegResult] = []
    for i, leg in enumerate(legs):
        if i and not i % every:
            yield
        said = outcome(i, leg)
        value, capped = riding, False
        if said.status is SettleStatus.WIN:
            room = cap - collected  # the cap is on all the position pays
            value = returned_cents(riding, said.payout_hundredths)
            value, capped = min(value, room), value >= room
        elif said.status is SettleStatus.LOSE:
            value = 0
        last = i == len(legs) - 1
        collect = _collect(i, leg, value, said.status, last=last or capped)
        if capped:  # collected whole: from the cap the position could only lose
            collect = value
        collected += collect
        results.append(
            LegResult(
                said.status,
                said.payout_hundredths,
                riding,
                value,
                capped,
                collect,
                value - collect,
                said.result,
            )
        )
        riding = value - collect
        if said.status is SettleStatus.PENDING:
            break
        if capped and not last:
            raise IllegalMove(
                f"legs[{i + 1}] (round {legs[i + 1].round_id}) follows a capped leg: legs[{i}] "
                f"reached the position's cap of {cap} cents on round {leg.round_id}, and the "
                "position was collected whole there"
            )
        if said.status is SettleStatus.LOSE:
            if i + 1 < len(legs):
                raise IllegalMove(
                    f"legs[{i + 1}] (round {legs[i + 1].round_id}) follows a lost leg: "
                    f"legs[{i}] lost on round {leg.round_id} and the position ended there"
                )
            break
    statuses = {r.status for r in results}
    if SettleStatus.PENDING in statuses or SettleStatus.LOSE in statuses:
        status = results[-1].status
    elif statuses == {SettleStatus.VOID}:
        status = SettleStatus.VOID
    else:
        status = SettleStatus.WIN
    return PositionSettlement(
        status,
        tuple(results),
        sum(r.collected_cents for r in results),
        riding,
        stake_cents,
    )
