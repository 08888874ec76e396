"""The dealer feed's events on the wire, mapped generically from their record classes
(``FeedEvent``) and the proto's ``FeedRequest`` oneof: a new event kind is one record class
and one proto message, nothing here."""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from google.protobuf.message import Message

from pricing.cards import Card, parse_card
from pricing.errors import InvalidInput
from pricing.tables import (
    FeedEvent,
)
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number

__all__ = ["FEED_FIELDS", "FEED_KINDS", "FeedKind", "feed_kind"]


def _words(name: str) -> str:
    """``CardRole`` as a message names it: "card role"."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()


def _same(value: Any) -> Any:
    return value


def _enum_from_wire(enum: type[Enum]) -> Callable[[int], Enum]:
    """How a proto enum's number becomes ``enum``'s member (the proto enum of the same name,
    members by name); ``InvalidInput`` naming the number and the members otherwise."""
    wire = getattr(pb, enum.__name__)
    members = {enum_number(wire, member.name): member for member in enum}
    names = [wire.Name(number) for number in members]
    valid = f"{', '.join(names[:-1])} or {names[-1]}"

    def convert(value: int) -> Enum:
        member = members.get(value)
        if member is None:
            shown = wire.Name(value) if value == 0 else value
            raise InvalidInput(f"{_words(enum.__name__)} {shown} is not valid: send {valid}")
        return member

    return convert


@dataclass(frozen=True, slots=True)
class _Field:
    """One field of a feed event and its request: its name, and how its value crosses."""

    name: str
    from_wire: Callable[[Any], object]
    to_wire: Callable[[Any], object]
    enum: bool = False


def _field(name: str, hint: object) -> _Field:
    """The field ``name`` of type ``hint``: a ``Card`` is its text, an ``Enum`` the proto
    enum of the same name, anything else (a number) as it is."""
    if hint is Card:
        return _Field(name, parse_card, str)
    if isinstance(hint, type) and issubclass(hint, Enum):
        to_wire = {member: enum_number(getattr(pb, hint.__name__), member.name) for member in hint}
        return _Field(name, _enum_from_wire(hint), to_wire.__getitem__, enum=True)
    return _Field(name, _same, _same)


@dataclass(frozen=True, slots=True)
class FeedKind:
    """One kind of dealer feed event on the wire, derived from its record class (a
    ``FeedEvent``) and the proto: its ``DealerService`` method (the class's name), its request
    message (``<name>Request``: ``table_id``, ``seq`` and the record's fields, by name) and its
    field of ``FeedRequest``'s ``event`` oneof."""

    name: str
    record: type[FeedEvent]
    request: Any  # the generated message class
    field: str
    fields: tuple[_Field, ...]  # the record's, enums first: the order they are checked in

    def event(self, request: Message) -> FeedEvent:
        """The event a request (or a journaled body) asks for; ``InvalidInput`` naming a bad
        value (an enum field's before the others')."""
        values = {}
        for f in self.fields:
            try:
                values[f.name] = f.from_wire(getattr(request, f.name))
            except InvalidInput as exc:
                # The field that held the bad value (a card parser knows none): a client
                # program is told it without reading the message.
                if exc.field is None:
                    exc.field = f.name
                raise
        return self.record(**values)

    def body(self, event: FeedEvent) -> Message | None:
        """The request without table id and seq that ``event`` reads back from; ``None`` for a
        kind with no fields (its body is empty)."""
        if not self.fields:
            return None
        message: Message = self.request(
            **{f.name: f.to_wire(getattr(event, f.name)) for f in self.fields}
        )
        return message


def _feed_kinds() -> dict[str, FeedKind]:
    oneof = pb.FeedRequest.DESCRIPTOR.oneofs_by_name["event"]
    kinds = {}
    for field in oneof.fields:
        assert field.message_type is not None  # a oneof of messages
        message = field.message_type.name
        name = message.removesuffix("Request")
        record = FeedEvent.KINDS.get(name)
        if record is None:
            raise ImportError(f"FeedRequest.{field.name} carries {message}: no FeedEvent {name}")
        hints = typing.get_type_hints(record)
        fields = [_field(f.name, hints[f.name]) for f in dataclasses.fields(record)]  # type: ignore[arg-type]
        # An enum field is checked first: a request with a bad role and a bad card is told of
        # its role, as it always was.
        fields.sort(key=lambda f: not f.enum)
        kinds[name] = FeedKind(name, record, getattr(pb, message), field.name, tuple(fields))
    unsent = set(FeedEvent.KINDS) - set(kinds)
    if unsent:
        raise ImportError(f"FeedEvent kinds with no FeedRequest field: {sorted(unsent)}")
    return kinds


#: Every kind of feed event, by name (``ExposeCard``), in the order of ``FeedRequest``'s fields.
FEED_KINDS: Final[Mapping[str, FeedKind]] = _feed_kinds()
#: The same kinds by their ``FeedRequest`` field (``expose_card``).
FEED_FIELDS: Final[Mapping[str, FeedKind]] = {k.field: k for k in FEED_KINDS.values()}


def feed_kind(event: FeedEvent) -> FeedKind:
    return FEED_KINDS[type(event).__name__]
