"""How journaled events and table images are written down.

An event is stored as its kind (``ExposeCard``, …) and the body of the request that asks for
it, in the service's own protobuf messages (``OpenTableRequest`` with every rules field sent,
``ExposeCardRequest`` with card and role; the other events have no body). So the journal is in
the documented API's terms, any protobuf reader can read it, and a journal written by an older
build reads in a newer one the way old clients' requests do. The JSON Lines of ``pricing
journal export`` are the same messages in protobuf's JSON mapping.

A ``TableImage`` is a cache, not a record: it is pickled with the format below, and an image of
another format (another build) is ignored, the table then folded from its events. The journal
file is the server's own, written by it alone, so pickle's trust model (never unpickle data
from elsewhere) holds.
"""

from __future__ import annotations

import datetime as dt
import pickle
from collections.abc import Callable, Mapping
from typing import Any, Final

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from pricing import __version__
from pricing.errors import InvalidInput
from pricing.events import EndRound, ExposeCard, NewShoe, VoidRound
from pricing.journal import JournalCorrupt, Record
from pricing.messages import config_from_proto, config_to_proto, expose_event, expose_request
from pricing.tables import (
    CloseTable,
    JournalEntry,
    OpenTable,
    TableEvent,
    TableImage,
    adapter_for,
)
from pricing.v1 import pricing_pb2 as pb

__all__ = [
    "IMAGE_FORMAT",
    "decode_event",
    "decode_image",
    "encode_event",
    "encode_image",
    "record_from_json",
    "record_to_json",
]

#: Bumped whenever a pickled ``TableImage`` of the previous build would not load as it was.
IMAGE_FORMAT: Final = f"pickle-5/{__version__}/1"

_NO_BODY: Final[Mapping[str, Callable[[], TableEvent]]] = {
    "VoidRound": VoidRound,
    "EndRound": EndRound,
    "NewShoe": NewShoe,
    "CloseTable": CloseTable,
}


def _message(event: TableEvent) -> tuple[str, Message | None]:
    match event:
        case OpenTable(table_id=table_id, config=config):
            return "OpenTable", config_to_proto(table_id, config)
        case ExposeCard():
            return "ExposeCard", expose_request(event)
    kind = type(event).__name__
    if kind not in _NO_BODY:
        raise TypeError(f"not a table event: {event!r}")
    return kind, None


def encode_event(event: TableEvent) -> tuple[str, bytes]:
    """``(kind, body)`` of an event, as the journal stores it."""
    kind, message = _message(event)
    return kind, b"" if message is None else message.SerializeToString(deterministic=True)


def _event_of(kind: str, message: Message | None) -> TableEvent:
    if kind == "OpenTable":
        assert isinstance(message, pb.OpenTableRequest)
        config = config_from_proto(message.game, message.decks, message)
        return OpenTable(message.table_id, adapter_for(config.game).configure(config))
    if kind == "ExposeCard":
        assert isinstance(message, pb.ExposeCardRequest)
        return expose_event(message)
    return _NO_BODY[kind]()


_MESSAGES: Final[Mapping[str, type[Message]]] = {
    "OpenTable": pb.OpenTableRequest,
    "ExposeCard": pb.ExposeCardRequest,
}


def decode_event(kind: str, body: bytes) -> TableEvent:
    """The event ``encode_event`` wrote; ``JournalCorrupt`` if it is not one."""
    try:
        if kind in _MESSAGES:
            message = _MESSAGES[kind]()
            message.ParseFromString(body)
            return _event_of(kind, message)
        if kind in _NO_BODY and not body:
            return _NO_BODY[kind]()
    except (DecodeError, InvalidInput, ValueError) as exc:
        raise JournalCorrupt(f"a journaled {kind} event does not decode: {exc}") from exc
    raise JournalCorrupt(f"unknown journaled event kind {kind!r} ({len(body)} bytes)")


def encode_image(image: TableImage) -> bytes:
    return pickle.dumps(image, protocol=5)


def decode_image(data: bytes) -> TableImage:
    image = pickle.loads(data)  # the server's own file: see the module docstring
    if not isinstance(image, TableImage):
        raise TypeError(f"not a table image: {type(image).__name__}")
    return image


# ---- JSON Lines (export, replay) -----------------------------------------------------------


def _timestamp(seconds: float) -> str:
    when = dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
    return when.isoformat(timespec="microseconds").replace("+00:00", "Z")


def record_to_json(record: Record) -> dict[str, Any]:
    """One line of ``pricing journal export``."""
    kind, message = _message(record.entry.event)
    body = (
        {}
        if message is None
        else json_format.MessageToDict(message, preserving_proto_field_name=True)
    )
    return {
        "table_id": record.table_id,
        "seq": record.entry.seq,
        "version": record.entry.version,
        "accepted_at": _timestamp(record.accepted_at),
        "event": {kind: body},
    }


def record_from_json(line: Mapping[str, Any]) -> Record:
    """The record a line of ``record_to_json`` stands for (``InvalidInput`` if it is not one)."""
    try:
        ((kind, body),) = dict(line["event"]).items()
        message = _MESSAGES[kind]() if kind in _MESSAGES else None
        if message is not None:
            json_format.ParseDict(body, message)
        elif kind not in _NO_BODY or body:
            raise InvalidInput(f"unknown event {kind!r}")
        at = dt.datetime.fromisoformat(str(line["accepted_at"]).replace("Z", "+00:00"))
        entry = JournalEntry(int(line["seq"]), int(line["version"]), _event_of(kind, message))
        return Record(str(line["table_id"]), entry, at.timestamp())
    except InvalidInput:
        raise
    except (KeyError, TypeError, ValueError, json_format.ParseError) as exc:
        raise InvalidInput(f"not a journal line: {exc}") from exc
