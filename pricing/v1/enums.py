"""The wire's enum names, written by hand beside the generated stubs: every value of a
``pricing.v1`` enum is its enum's name as a prefix (``CARD_ROLE_``) and then what people call it
(``BURN``), as buf's STANDARD style has it. The engine's own enums use the short names; these
functions cross between the two, for the wire mapping, the client and the command line alike.
"""

from __future__ import annotations

from typing import Any, Protocol

from google.protobuf.descriptor import EnumDescriptor

__all__ = ["ProtoEnum", "enum_number", "enum_prefix", "enum_short_name", "parse_enum"]


class ProtoEnum(Protocol):
    """A generated proto enum (``pricing_pb2.CardRole``)."""

    DESCRIPTOR: EnumDescriptor

    # A generated enum's own number type (``CardRole.ValueType``), a subtype of int.
    def Name(self, number: Any) -> str: ...  # noqa: N802 (protobuf's names)

    def Value(self, name: str) -> int: ...  # noqa: N802


def enum_prefix(enum: ProtoEnum | EnumDescriptor) -> str:
    """What every value of a proto enum starts with (its zero value names it).

    >>> from pricing.v1 import pricing_pb2 as pb
    >>> enum_prefix(pb.CardRole), enum_prefix(pb.Phase.DESCRIPTOR)
    ('CARD_ROLE_', 'PHASE_')
    """
    descriptor = enum if isinstance(enum, EnumDescriptor) else enum.DESCRIPTOR
    return str(descriptor.values[0].name).removesuffix("UNSPECIFIED")


def enum_number(enum: ProtoEnum, name: str) -> int:
    """The number of the value a short name stands for: ``BURN`` → ``CARD_ROLE_BURN``'s.

    >>> from pricing.v1 import pricing_pb2 as pb
    >>> enum_number(pb.CardRole, "BURN") == pb.CARD_ROLE_BURN
    True
    """
    return int(enum.Value(enum_prefix(enum) + name))


def enum_short_name(enum: ProtoEnum, number: int) -> str:
    """A value's name without its prefix, as people read it (the number if there is none).

    >>> from pricing.v1 import pricing_pb2 as pb
    >>> enum_short_name(pb.Phase, pb.PHASE_SHOE_COMPLETE), enum_short_name(pb.Phase, 9)
    ('SHOE_COMPLETE', '9')
    """
    value = enum.DESCRIPTOR.values_by_number.get(number)
    return str(number) if value is None else value.name.removeprefix(enum_prefix(enum))


def parse_enum(enum: ProtoEnum, text: str) -> int:
    """The value a person or a program wrote, with its prefix or without, in any case
    (``burn``, ``BURN``, ``CARD_ROLE_BURN``); ``ValueError`` naming the values otherwise.

    >>> from pricing.v1 import pricing_pb2 as pb
    >>> parse_enum(pb.Game, "hilo") == parse_enum(pb.Game, "GAME_HILO") == pb.GAME_HILO
    True
    >>> parse_enum(pb.Game, "poker")
    Traceback (most recent call last):
    ...
    ValueError: unknown game 'poker': expected one of HILO, BLACKJACK, GOA_GAE, HIGHER_LOWER, ...
    """
    prefix = enum_prefix(enum)
    name = text.strip().upper()
    full = name if name.startswith(prefix) else prefix + name
    value = enum.DESCRIPTOR.values_by_name.get(full)
    if value is None or value.number == 0:
        kind = prefix.rstrip("_").lower().replace("_", " ")
        valid = ", ".join(v.name.removeprefix(prefix) for v in enum.DESCRIPTOR.values[1:])
        raise ValueError(f"unknown {kind} {text!r}: expected one of {valid}")
    return value.number
