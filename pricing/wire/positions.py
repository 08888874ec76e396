"""Positions on the wire: a ``SettlePositionRequest`` as the tables' legs, and a settled
position as its ``SettlePositionResponse`` (docs/rules.md §6.3)."""

from __future__ import annotations

from collections.abc import Sequence

from pricing.errors import InvalidInput
from pricing.tables import LegResult, PositionLeg, PositionSettlement
from pricing.text import ascii_name
from pricing.v1 import pricing_pb2 as pb
from pricing.wire.state import SETTLE_STATUS

__all__ = ["leg_results_to_proto", "position_legs", "position_to_proto"]


def position_legs(
    request: pb.SettlePositionRequest, start: int = 0, stop: int | None = None
) -> tuple[PositionLeg, ...]:
    """The request's legs (those from ``start`` to ``stop``), each bet's name as Settle
    compares it (``ascii_name``); a bad name is refused naming its leg's field."""
    legs = []
    for i, leg in enumerate(request.legs[start:stop], start=start):
        field = f"legs[{i}].bet"
        try:
            bet = ascii_name(field, leg.bet)
        except InvalidInput as exc:
            raise InvalidInput(str(exc), field=field) from None
        legs.append(PositionLeg(leg.round_id, leg.version, bet, leg.collect_cents))
    return tuple(legs)


def leg_results_to_proto(legs: Sequence[LegResult]) -> list[pb.PositionLegResult]:
    return [
        pb.PositionLegResult(
            status=SETTLE_STATUS[leg.status.value],
            payout_hundredths=leg.payout_hundredths,
            stake_cents=leg.stake_cents,
            value_cents=leg.value_cents,
            capped=leg.capped,
            collected_cents=leg.collected_cents,
            riding_cents=leg.riding_cents,
            result_cards=[str(card) for card in leg.result],
        )
        for leg in legs
    ]


def position_to_proto(
    position: PositionSettlement, *, legs: bool = True
) -> pb.SettlePositionResponse:
    """The response; ``legs`` False: without its legs (``leg_results_to_proto``), for a
    caller that adds them a few at a time."""
    return pb.SettlePositionResponse(
        status=SETTLE_STATUS[position.status.value],
        legs=leg_results_to_proto(position.legs) if legs else (),
        collected_cents=position.collected_cents,
        riding_cents=position.riding_cents,
        stake_cents=position.stake_cents,
    )
