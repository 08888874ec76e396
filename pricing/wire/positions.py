"""Positions on the wire: a ``SettlePositionRequest`` as the tables' legs, and a settled
position as its ``SettlePositionResponse`` (docs/rules.md §6.3)."""

from __future__ import annotations

from pricing.errors import InvalidInput
from pricing.tables import PositionLeg, PositionSettlement
from pricing.text import ascii_name
from pricing.v1 import pricing_pb2 as pb
from pricing.wire.state import SETTLE_STATUS

__all__ = ["position_legs", "position_to_proto"]


def position_legs(request: pb.SettlePositionRequest) -> tuple[PositionLeg, ...]:
    """The request's legs, each bet's name as Settle compares it (``ascii_name``); a bad name
    is refused naming its leg's field."""
    legs = []
    for i, leg in enumerate(request.legs):
        field = f"legs[{i}].bet"
        try:
            bet = ascii_name(field, leg.bet)
        except InvalidInput as exc:
            raise InvalidInput(str(exc), field=field) from None
        legs.append(PositionLeg(leg.round_id, leg.version, bet, leg.collect_cents))
    return tuple(legs)


def position_to_proto(position: PositionSettlement) -> pb.SettlePositionResponse:
    return pb.SettlePositionResponse(
        status=SETTLE_STATUS[position.status.value],
        legs=[
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
            for leg in position.legs
        ],
        collected_cents=position.collected_cents,
        riding_cents=position.riding_cents,
        stake_cents=position.stake_cents,
    )
