"""``pricing.wire.json_map.to_dict`` against its reference, protobuf's own
``json_format.MessageToDict`` (with the options the console uses), on random messages of every
type a table state holds: every field filled or left unset at random, 64-bit integers up to
their bounds, enums unknown to the schema, doubles NaN and infinite."""

from __future__ import annotations

import math
from typing import Any

import pytest
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.v1 import pricing_pb2 as pb
from pricing.wire.json_map import to_dict
from tests.support.effort import effort

_INTS = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind in _INTS:
        low, high = _INTS[kind]
        return st.integers(low, high)
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return st.floats(allow_nan=True, allow_infinity=True)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_STRING:
        return st.text(max_size=5)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=5)
    if kind == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in field.enum_type.values]
        return st.sampled_from(known) | st.integers(100, 110)  # open enums keep any number
    raise AssertionError(f"no strategy for {field.full_name}")


@st.composite
def messages(draw: st.DrawFn, descriptor: Descriptor, depth: int = 0) -> Message:
    """A random message of ``descriptor``'s type (submessages to a depth of 3)."""
    message = message_factory.GetMessageClass(descriptor)()
    for field in descriptor.fields:
        if not draw(st.booleans()):
            continue
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth >= 3 or field.message_type.GetOptions().map_entry:
                continue
            count = draw(st.integers(0, 2)) if field.is_repeated else 1
            for _ in range(count):
                sub = draw(messages(field.message_type, depth + 1))
                if field.is_repeated:
                    getattr(message, field.name).add().CopyFrom(sub)
                else:
                    getattr(message, field.name).CopyFrom(sub)
        elif field.is_repeated:
            getattr(message, field.name).extend(draw(st.lists(_scalar(field), max_size=3)))
        else:
            setattr(message, field.name, draw(_scalar(field)))
    return message


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


@pytest.mark.slow
@settings(max_examples=effort(suite=150, exhaustive=3000), deadline=None)
@given(messages(pb.TableState.DESCRIPTOR))
def test_a_table_state_maps_as_protobufs_own_json_format_maps_it(state: pb.TableState) -> None:
    reference = json_format.MessageToDict(
        state, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    assert _same(to_dict(state), reference), (to_dict(state), reference)


def test_a_default_state_prints_every_field_without_presence() -> None:
    mapped = to_dict(pb.TableState())
    assert (
        mapped["version"] == "0" and mapped["prices"] == [] and mapped["game"] == "GAME_UNSPECIFIED"
    )
    assert "player_edge" not in mapped and "insurance" not in mapped  # optional, message: unset


def test_map_fields_are_refused_not_mapped_wrongly() -> None:
    with pytest.raises(TypeError, match="map fields"):
        to_dict(pb.PairsPaytable())
