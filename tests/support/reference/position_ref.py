"""Slow, obviously-correct positions (docs/rules.md §6.3): a stake ridden through legs.

Independent of ``pricing.tables.positions`` on purpose: plain tuples and strings, the win as a
``Fraction`` of the value times (1 + payout / 100) floored, the walk written as a queue. It
answers either the settled position or the first refusal, as ("invalid", field) for a
malformed position or ("illegal", leg index) for a leg after a lost or a capped one. The cap
is on all the position pays: what it collected and what rides never add up past it, and a
value that reaches what is left of it is collected whole.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

#: Whatever the table's cap, a value fits in a uint64.
WIRE_MAX = 18_446_744_073_709_551_615
MAX_STAKE = 1_000_000_000_000


@dataclass(frozen=True)
class RefLeg:
    """One leg as the reference sees it: what its round did, its price, the collect after."""

    status: str  # "WIN", "LOSE", "VOID" or "PENDING"
    payout: int
    collect: int = 0


@dataclass(frozen=True)
class RefRow:
    status: str
    stake: int
    value: int
    capped: bool
    collected: int
    riding: int


@dataclass(frozen=True)
class RefPosition:
    status: str
    rows: tuple[RefRow, ...]
    collected: int
    riding: int


@dataclass(frozen=True)
class Refused:
    kind: str  # "invalid" or "illegal"
    where: str  # the field, or the index of the leg refused


def ceiling(cap: int) -> int:
    return WIRE_MAX if cap == 0 else min(cap, WIRE_MAX)


def value_after(
    riding: int, status: str, payout: int, cap: int, collected: int = 0
) -> tuple[int, bool]:
    """The value once a leg is decided, and whether it reached the cap (less what the position
    already collected)."""
    if status == "LOSE":
        return 0, False
    if status != "WIN":
        return riding, False
    grown = math.floor(Fraction(riding) * (1 + Fraction(payout, 100)))
    limit = ceiling(cap) - collected
    return (limit, True) if grown >= limit else (grown, False)


def ride(stake: int, cap: int, legs: list[RefLeg]) -> RefPosition | Refused:
    if stake < 1 or stake > MAX_STAKE:
        return Refused("invalid", "stake_cents")
    if not legs or len(legs) > 1000:
        return Refused("invalid", "legs")
    if cap > 0 and stake >= cap:
        return Refused("invalid", "stake_cents")
    todo = deque(enumerate(legs))
    rows: list[RefRow] = []
    riding = stake
    while todo:
        index, leg = todo.popleft()
        collected = sum(row.collected for row in rows)
        value, capped = value_after(riding, leg.status, leg.payout, cap, collected)
        field = f"legs[{index}].collect_cents"
        if capped:
            if leg.collect > value:
                return Refused("invalid", field)
            rows.append(RefRow(leg.status, riding, value, True, value, 0))
            riding = 0
            if todo:
                return Refused("illegal", str(todo[0][0]))
            break
        if leg.status in ("LOSE", "PENDING") and leg.collect != 0:
            return Refused("invalid", field)
        if leg.collect > value:
            return Refused("invalid", field)
        if value > 0 and leg.collect == value and len(todo) > 0:
            return Refused("invalid", field)
        rows.append(RefRow(leg.status, riding, value, capped, leg.collect, value - leg.collect))
        riding = value - leg.collect
        if leg.status == "PENDING":
            break
        if leg.status == "LOSE":
            if todo:
                return Refused("illegal", str(todo[0][0]))
            break
    kinds = [row.status for row in rows]
    if "PENDING" in kinds:
        overall = "PENDING"
    elif "LOSE" in kinds:
        overall = "LOSE"
    elif all(kind == "VOID" for kind in kinds):
        overall = "VOID"
    else:
        overall = "WIN"
    return RefPosition(overall, tuple(rows), sum(row.collected for row in rows), riding)
