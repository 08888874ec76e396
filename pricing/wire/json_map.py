"""A message in protobuf's JSON mapping, as ``json_format.MessageToDict`` gives it with
``preserving_proto_field_name=True`` and ``always_print_fields_with_no_presence=True`` (every
field without presence printed, zeros included; a message field or an ``optional`` scalar only
when set), several times faster: the web console turns each table state it sends into JSON
on the server's event loop, and ``MessageToDict`` reads each field through Python-level
descriptor logic (a baccarat state: about 350 µs).

Per message type, the fields are planned once (``_plan``); a message is then read field by
field with ``getattr``. The mapping's rules kept: 64-bit integers as strings, enums by name
(an unknown number as the number), bytes as base64, floats as numbers, and NaN and the
infinities as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``. Well-known types (Any,
Timestamp, Struct and their kind) are not used by the pricing messages and are refused.

>>> from pricing.v1 import pricing_pb2 as pb
>>> to_dict(pb.BetPrice(bet="SEVEN", wins=4, remaining=47, payout_hundredths=1000, open=True))
{'bet': 'SEVEN', 'wins': 4, 'remaining': 47, 'probability': 0.0, 'payout_hundredths': 1000, \
'open': True, 'clamped': False}
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable
from typing import Any, Final

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

__all__ = ["to_dict"]

_64_BITS: Final = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_FLOATS: Final = frozenset({FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT})

Convert = Callable[[Any], Any]
#: (field name, always printed, its value's conversion, repeated)
Plan = tuple[tuple[str, bool, Convert | None, bool], ...]
_PLANS: dict[Any, Plan] = {}  # by Descriptor (upb's, or the pure-Python one's)


def _float(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def _enum(field: FieldDescriptor) -> Convert:
    assert field.enum_type is not None
    names = {number: value.name for number, value in field.enum_type.values_by_number.items()}
    return lambda number: names.get(number, number)


def _convert(field: FieldDescriptor) -> Convert | None:
    """How a value of ``field`` is written; None: as it is (a string, bool or small int)."""
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        assert field.message_type is not None
        if field.message_type.full_name.startswith("google.protobuf."):
            raise TypeError(f"{field.full_name}: well-known types are not mapped here")
        return to_dict
    if kind == FieldDescriptor.TYPE_ENUM:
        return _enum(field)
    if kind in _64_BITS:
        return str
    if kind in _FLOATS:
        return _float
    if kind == FieldDescriptor.TYPE_BYTES:
        return lambda raw: base64.b64encode(raw).decode("ascii")
    return None


def _plan(descriptor: Any) -> Plan:
    """How each field of a message of ``descriptor`` (a ``Descriptor``) is written."""
    plan = []
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            raise TypeError(f"{field.full_name}: map fields are not mapped here")
        repeated = field.is_repeated
        always = repeated or not field.has_presence
        plan.append((field.name, always, _convert(field), repeated))
    return _PLANS.setdefault(descriptor, tuple(plan))


def to_dict(message: Message) -> dict[str, Any]:
    """``message`` in the JSON mapping (see the module's docstring)."""
    plan = _PLANS.get(message.DESCRIPTOR) or _plan(message.DESCRIPTOR)
    out: dict[str, Any] = {}
    for name, always, convert, repeated in plan:
        if not always and not message.HasField(name):
            continue
        value = getattr(message, name)
        if repeated:
            out[name] = [convert(v) for v in value] if convert is not None else list(value)
        else:
            out[name] = value if convert is None else convert(value)
    return out
