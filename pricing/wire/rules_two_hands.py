"""Baccarat's and Dragon Tiger's rules messages (``BaccaratRules``, ``DragonTigerRules``) to
and from the engines' rules objects: ``pricing.wire.config`` lists these converters in
``RULES_FROM_PROTO`` and ``RULES_TO_PROTO``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeVar

from google.protobuf.message import Message

from pricing.errors import InvalidOption
from pricing.games.baccarat import bets as baccarat_bets
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.blackjack.rules import ShoeMode
from pricing.games.dragon_tiger import bets as dragon_tiger
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.text import distinct_names, key_path
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number

__all__ = [
    "baccarat_from_proto",
    "baccarat_to_proto",
    "dragon_tiger_from_proto",
    "dragon_tiger_to_proto",
]

_SHUFFLE_MODES: Final[dict[int, ShoeMode]] = {
    pb.SHUFFLE_MODE_UNSPECIFIED: ShoeMode.DEPLETING,
    pb.SHUFFLE_MODE_DEPLETING: ShoeMode.DEPLETING,
    pb.SHUFFLE_MODE_CONTINUOUS: ShoeMode.CONTINUOUS,
}
_COMMISSIONS: Final[dict[int, baccarat_bets.Commission]] = {
    pb.COMMISSION_UNSPECIFIED: baccarat_bets.Commission.STANDARD,
    pb.COMMISSION_STANDARD: baccarat_bets.Commission.STANDARD,
    pb.COMMISSION_NONE: baccarat_bets.Commission.NO_COMMISSION,
    pb.COMMISSION_EZ: baccarat_bets.Commission.EZ,
}
_COMMISSION_NUMBERS: Final = {
    baccarat_bets.Commission.STANDARD: pb.COMMISSION_STANDARD,
    baccarat_bets.Commission.NO_COMMISSION: pb.COMMISSION_NONE,
    baccarat_bets.Commission.EZ: pb.COMMISSION_EZ,
}

Table = TypeVar("Table")


def _shuffle(value: int, field: str) -> ShoeMode:
    mode = _SHUFFLE_MODES.get(value)
    if mode is None:
        raise InvalidOption(
            f"unknown {field} {value}: expected SHUFFLE_MODE_DEPLETING or SHUFFLE_MODE_CONTINUOUS",
            field=field,
        )
    return mode


def _side_bets(
    entries: Mapping[str, pb.SideBetPaytable],
    field: str,
    make: Callable[[str, str, dict[str, int]], Table],
    order: Sequence[str],
) -> tuple[Table, ...]:
    """The side bets a rules message's ``side_bets`` map offers (at ``field``), each made by
    the game's ``paytable``, in the game's ``order`` of its side bets (a map has no order a
    request could rely on: the same bets are the same table); a refusal names the bet's key."""
    names = distinct_names("side bet", entries, field=field)
    offered = []
    for name, entry in entries.items():
        try:
            offered.append(
                (
                    order.index(names[name]) if names[name] in order else -1,
                    make(names[name], entry.preset, dict(entry.payout_hundredths)),
                )
            )
        except InvalidOption as exc:
            exc.field = key_path(field, name)
            raise
    return tuple(table for _, table in sorted(offered, key=lambda pair: pair[0]))


def _within(field: str, build: Callable[[], Table]) -> Table:
    """``build()``, an option it refuses named inside the rules message ``field``."""
    try:
        return build()
    except InvalidOption as exc:
        exc.field = f"{field}.{exc.field}" if exc.field else field
        raise


def baccarat_from_proto(message: Message) -> BaccaratRules:
    assert isinstance(message, pb.BaccaratRules)
    commission = _COMMISSIONS.get(message.commission)
    if commission is None:
        raise InvalidOption(
            f"unknown baccarat.commission {message.commission}: expected COMMISSION_STANDARD, "
            "COMMISSION_NONE or COMMISSION_EZ",
            field="baccarat.commission",
        )
    side_bets = _side_bets(
        message.side_bets, "baccarat.side_bets", baccarat_bets.paytable, baccarat_bets.SIDE_BETS
    )
    mode = _shuffle(message.shuffle_mode, "baccarat.shuffle_mode")
    return _within(
        "baccarat",
        lambda: BaccaratRules(
            commission=commission,
            tie_pays=message.tie_pays or 8,
            side_bets=side_bets,
            close_at_rtp_bp=message.close_at_rtp_bp,
            mode=mode,
        ),
    )


def _common_to_proto(
    message: pb.BaccaratRules | pb.DragonTigerRules, rules: BaccaratRules | DragonTigerRules
) -> None:
    """What both games' rules messages hold: the shuffle, the tie's pay, game protection and
    the side bets (each with its preset and every entry's pay)."""
    message.shuffle_mode = enum_number(pb.ShuffleMode, rules.mode.value)  # type: ignore[assignment]
    message.tie_pays = rules.tie_pays
    message.close_at_rtp_bp = rules.close_at_rtp_bp
    for table in rules.side_bets:
        message.side_bets[table.bet].preset = table.preset
        message.side_bets[table.bet].payout_hundredths.update(table.pays)


def baccarat_to_proto(rules: object) -> Message:
    assert isinstance(rules, BaccaratRules)
    message = pb.BaccaratRules(commission=_COMMISSION_NUMBERS[rules.commission])
    _common_to_proto(message, rules)
    return message


def dragon_tiger_from_proto(message: Message) -> DragonTigerRules:
    assert isinstance(message, pb.DragonTigerRules)
    side_bets = _side_bets(
        message.side_bets, "dragon_tiger.side_bets", dragon_tiger.paytable, dragon_tiger.SIDE_BETS
    )
    mode = _shuffle(message.shuffle_mode, "dragon_tiger.shuffle_mode")
    return _within(
        "dragon_tiger",
        lambda: DragonTigerRules(
            tie_pays=message.tie_pays or 8,
            side_bets=side_bets,
            close_at_rtp_bp=message.close_at_rtp_bp,
            mode=mode,
        ),
    )


def dragon_tiger_to_proto(rules: object) -> Message:
    assert isinstance(rules, DragonTigerRules)
    message = pb.DragonTigerRules()
    _common_to_proto(message, rules)
    return message
