"""How journaled events and table images are written down.

An event is stored as its kind (``ExposeCard``, …) and the body of the request that asks for
it, in the service's own protobuf messages (``OpenTableRequest`` with every rules field sent,
``ExposeCardRequest`` with card and role; the other events have no body). So the journal is in
the documented API's terms, any protobuf reader can read it, and a journal written by an older
build reads in a newer one the way old clients' requests do. The JSON Lines of ``pricing
journal export`` are the same messages in protobuf's JSON mapping.

A record a newer build wrote is told apart from damage (``decode_event``): it parses, but
this build's messages do not have all of it (a game it does not serve, a field number or an
enum value its proto does not define, an event kind it does not know). Protobuf reads the
unknown parts without a word (it keeps unknown fields aside and enum values as bare numbers),
so they are looked for: a table whose rules were half understood would be priced wrong.

A ``TableImage`` is a cache, not a record: it is pickled, and stored with its format: the
classes the pickle holds and a digest of their layouts (dataclass fields, enum members). An
image whose classes have another layout in this build (an upgrade that changed them) is
ignored and the table folded from its events; an upgrade that changed none keeps every image.
The journal file is the server's own, written by it alone, so pickle's trust model (never
unpickle data from elsewhere) holds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import hashlib
import importlib
import io
import pickle
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any, Final

from google.protobuf import empty_pb2, json_format, unknown_fields
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message

from pricing.errors import InvalidInput
from pricing.journal import JournalCorrupt, JournalNewer, Record
from pricing.tables import (
    Game,
    GameUnavailable,
    JournalEntry,
    OpenTable,
    TableEvent,
    TableImage,
    adapter_for,
)
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_prefix
from pricing.wire import FEED_KINDS, config_from_proto, config_to_proto, feed_kind

#: Every kind a journal holds: its opening, then the feed's.
_KINDS: Final = frozenset({"OpenTable", *FEED_KINDS})
#: What an event kind's name looks like (``ExposeCard``): one of that shape that this build
#: does not know is a newer build's; anything else in its place is damage.
_KIND_NAME: Final = re.compile(r"[A-Z][A-Za-z0-9]{0,63}")

__all__ = [
    "archive_name",
    "archive_table_id",
    "decode_event",
    "decode_image",
    "encode_event",
    "encode_image",
    "format_is_current",
    "is_archive_of",
    "record_from_json",
    "record_to_json",
]


def _message(event: TableEvent) -> tuple[str, Message | None]:
    if isinstance(event, OpenTable):
        return "OpenTable", config_to_proto(event.table_id, event.config)
    kind = feed_kind(event)
    return kind.name, kind.body(event)


def encode_event(event: TableEvent) -> tuple[str, bytes]:
    """``(kind, body)`` of an event, as the journal stores it."""
    kind, message = _message(event)
    return kind, b"" if message is None else message.SerializeToString(deterministic=True)


def _event_of(kind: str, message: Message | None) -> TableEvent:
    if kind == "OpenTable":
        assert isinstance(message, pb.OpenTableRequest)
        config = config_from_proto(message.game, message.decks, message)
        return OpenTable(message.table_id, adapter_for(config.game).configure(config))
    feed = FEED_KINDS[kind]
    return feed.record() if message is None else feed.event(message)


def _message_type(kind: str) -> Any:
    """The message a journaled ``kind``'s body is (None: it has no body; ``KeyError``: not a
    kind)."""
    if kind == "OpenTable":
        return pb.OpenTableRequest
    feed = FEED_KINDS[kind]
    return feed.request if feed.fields else None


def decode_event(kind: str, body: bytes) -> TableEvent:
    """The event ``encode_event`` wrote. ``JournalNewer`` if a newer build wrote it (it
    parses, but this build does not have all of it: ``_unknown_parts``), ``JournalCorrupt`` if
    it is not an event at all."""
    if kind not in _KINDS:
        try:
            empty_pb2.Empty.FromString(body)  # any message's bytes parse, as unknown fields
        except DecodeError:
            pass
        else:
            if _KIND_NAME.fullmatch(kind):
                raise JournalNewer(
                    f"unknown journaled event kind {kind!r}: a kind of event this build does "
                    "not have"
                )
        raise JournalCorrupt(f"unknown journaled event kind {kind!r} ({len(body)} bytes)")
    request = pb.OpenTableRequest if kind == "OpenTable" else FEED_KINDS[kind].request
    try:
        message = request.FromString(body)
    except DecodeError as exc:
        raise JournalCorrupt(f"a journaled {kind} event does not decode: {exc}") from exc
    newer = _unknown_parts(kind, message)
    if newer:
        raise JournalNewer(f"its {kind} event {newer}")
    try:
        if _message_type(kind) is not None:
            return _event_of(kind, message)
        if not body:
            return _event_of(kind, None)
    except (InvalidInput, ValueError) as exc:
        lacked = _lacked_by_engines(kind, message)
        if lacked:
            raise JournalNewer(f"its {kind} event {lacked}") from exc
        raise JournalCorrupt(f"a journaled {kind} event does not decode: {exc}") from exc
    raise JournalCorrupt(f"a journaled {kind} event has a body ({len(body)} bytes): it has none")


def _unknown_parts(kind: str, message: Message) -> str:
    """What of a journaled ``kind`` event's ``message`` this build does not have, in a phrase
    ('' if nothing): the game of an opening it does not serve, or anywhere in the message a
    field number or an enum value its proto does not define.

    >>> _unknown_parts("OpenTable", pb.OpenTableRequest(game=99))
    'names game 99, which this build does not serve'
    >>> _unknown_parts("ExposeCard", pb.ExposeCardRequest.FromString(bytes([0xa0, 0x38, 1])))
    'carries field number 900, which this build does not have'
    """
    if isinstance(message, pb.OpenTableRequest) and message.game:
        try:
            adapter_for(Game(message.game))
        except (ValueError, GameUnavailable):
            game = pb.Game.Name(message.game) if _named(pb.Game, message.game) else message.game
            return f"names game {game}, which this build does not serve"
    if kind in FEED_KINDS and not _nests(message.DESCRIPTOR):
        # Its enum values are the engines' to take: one they refuse is looked at then
        # (``_lacked_by_engines``), so an event that decodes costs no walk through it.
        return _unknown_numbers(message, "")
    return _unknown_in(message, "")


@functools.cache  # a descriptor is the proto's, which does not change while the process runs
def _nests(descriptor: Descriptor) -> bool:
    """Whether a message of ``descriptor`` holds messages."""
    return any(field.message_type is not None for field in descriptor.fields)


def _lacked_by_engines(kind: str, message: Message) -> str:
    """An enum value of a feed event that the proto names but this build's engines do not
    take, in a phrase ('' if none): a proto ahead of its engines, read only once the event
    was refused (a value of 0 is no build's: damage)."""
    for field in FEED_KINDS[kind].fields if kind in FEED_KINDS else ():
        value = getattr(message, field.name)
        if field.enum and value:
            try:
                field.from_wire(value)
            except InvalidInput:
                return f"has {field.name} {value}, which this build does not have"
    return ""


def _named(enum: Any, value: int) -> bool:
    return value in enum.DESCRIPTOR.values_by_number


def _unknown_in(message: Message, path: str) -> str:
    """The first field number or enum value in ``message`` (at ``path`` in its event) that
    this build's proto does not define, in a phrase ('' if none)."""
    found = _unknown_numbers(message, path)
    if found:
        return found
    for field, value in message.ListFields():
        of = _items_of(field)
        if of is None:
            continue
        keyed: Any = ((None, value),)  # (its key or index, if it has one; the value)
        if of is not field:
            keyed = value.items()
        elif field.is_repeated:
            keyed = enumerate(value)
        enum = of.enum_type
        for key, item in keyed:
            if enum is None:
                found = _unknown_in(item, _where(path, field, key))
                if found:
                    return found
            elif item not in enum.values_by_number:
                where = _where(path, field, key)
                return f"has {where} {item}, a {enum.name} this build does not have"
    return ""


def _unknown_numbers(message: Message, path: str) -> str:
    """The field numbers ``message`` (at ``path`` in its event) carries that this build's
    proto does not define, in a phrase ('' if none): protobuf keeps them aside unread."""
    unknown = unknown_fields.UnknownFieldSet(message)
    if not len(unknown):
        return ""
    numbers = sorted({unknown[n].field_number for n in range(len(unknown))})
    where = f" in {path}" if path else ""
    plural = "s" if len(numbers) > 1 else ""
    listed = ", ".join(map(str, numbers))
    return f"carries field number{plural} {listed}{where}, which this build does not have"


def _where(path: str, field: FieldDescriptor, key: object) -> str:
    """Where a value of ``field`` is in its event (``hilo.low``, ``side_bets['PAIRS']``)."""
    name = f"{path}.{field.name}" if path else field.name
    return name if key is None else f"{name}[{key!r}]"


@functools.cache  # a descriptor is the proto's, which does not change while the process runs
def _items_of(field: FieldDescriptor) -> FieldDescriptor | None:
    """The field each value of ``field`` is (a map's: its entries' value field), if those
    values may hold what this build lacks (a message, an enum); None for numbers and text."""
    of = field
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        of = field.message_type.fields_by_name["value"]
    return of if of.message_type is not None or of.enum_type is not None else None


class _RecordingPickler(pickle.Pickler):
    """Notes the class of every object it pickles (the C pickler calls ``reducer_override``
    for all but the built-in containers and scalars)."""

    def __init__(self, out: io.BytesIO) -> None:
        super().__init__(out, protocol=5)
        self.classes: set[type] = set()

    def reducer_override(self, obj: object) -> Any:
        self.classes.add(type(obj))
        return NotImplemented  # pickle it as usual


@functools.cache  # a class's layout does not change while the process runs
def _layout(cls: type) -> str:
    if dataclasses.is_dataclass(cls):
        return ",".join(f.name for f in dataclasses.fields(cls))
    if issubclass(cls, enum.Enum):
        return ",".join(f"{m.name}={m.value!r}" for m in cls)
    return ""  # a Cython class checks its own layout when unpickled


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _digest(classes: dict[str, str]) -> str:
    text = ";".join(f"{name}({layout})" for name, layout in sorted(classes.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encode_image(image: TableImage) -> tuple[str, bytes]:
    """``(format, data)``: the format names the pickled classes and digests their layouts."""
    out = io.BytesIO()
    pickler = _RecordingPickler(out)
    pickler.dump(image)
    classes = {_name(c): _layout(c) for c in pickler.classes if c.__module__ != "builtins"}
    return f"pickle-5 {_digest(classes)} {' '.join(sorted(classes))}", out.getvalue()


@functools.lru_cache(maxsize=256)
def format_is_current(fmt: str) -> bool:
    """Whether an image of format ``fmt`` unpickles into this build's classes as they were."""
    kind, digest, *names = fmt.split(" ")
    if kind != "pickle-5":
        return False
    classes = {}
    for name in names:
        module, _, qualname = name.partition(":")
        try:
            found: object = importlib.import_module(module)
            for part in qualname.split("."):
                found = getattr(found, part)
        except (ImportError, AttributeError):
            return False
        if not isinstance(found, type):
            return False
        classes[name] = _layout(found)
    return _digest(classes) == digest


def decode_image(data: bytes) -> TableImage:
    image = pickle.loads(data)  # the server's own file: see the module docstring
    if not isinstance(image, TableImage):
        raise TypeError(f"not a table image: {type(image).__name__}")
    return image


# ---- JSON Lines (export, replay, the archive) -----------------------------------------------

_ARCHIVE_STAMP: Final = re.compile(r"\.\d{8}T\d{6}Z\.jsonl\.gz")


def archive_name(table_id: str, stamp: str) -> str:
    """The archive file of a table closed at ``stamp``: the id percent-encoded, so no id can
    name a path or a pattern."""
    return f"{urllib.parse.quote(table_id, safe='')}.{stamp}.jsonl.gz"


def archive_table_id(file_name: str) -> str | None:
    """The table an archive file is of (None: not an archive file).

    >>> archive_table_id(archive_name("a/b c", "20261201T091908Z"))
    'a/b c'
    """
    stamp = _ARCHIVE_STAMP.search(file_name)
    if stamp is None or stamp.end() != len(file_name):
        return None
    return urllib.parse.unquote(file_name[: stamp.start()])


def is_archive_of(file_name: str, table_id: str) -> bool:
    """Whether ``file_name`` is an archive file of exactly ``table_id``.

    >>> is_archive_of("H.20261201T091908Z.jsonl.gz", "H"), is_archive_of(
    ...     "H.x.20261201T091908Z.jsonl.gz", "H")
    (True, False)
    """
    prefix = urllib.parse.quote(table_id, safe="")
    return file_name.startswith(prefix) and bool(_ARCHIVE_STAMP.fullmatch(file_name[len(prefix) :]))


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


#: Fields renamed since exports were first written: old name (and its JSON name) → new.
_RENAMED_FIELDS: Final = {
    "pays_hundredths": "payout_hundredths",
    "paysHundredths": "payoutHundredths",
}


def _current_names(body: Any, descriptor: Descriptor) -> Any:
    """An export's JSON body in today's names: a renamed field under its new name, an enum
    value written without its enum's prefix (``"role": "BURN"``, before the prefixes) with it.
    Anything else is left for ``ParseDict`` to accept or refuse.

    >>> _current_names({"role": "BURN", "card": "2S"}, pb.ExposeCardRequest.DESCRIPTOR)
    {'role': 'CARD_ROLE_BURN', 'card': '2S'}
    """
    if not isinstance(body, dict):
        return body
    fields: dict[str, FieldDescriptor] = dict(descriptor.fields_by_name)
    fields.update((str(f.json_name), f) for f in descriptor.fields)
    upgraded = {}
    for old_key, value in body.items():
        key = str(_RENAMED_FIELDS.get(old_key, old_key))
        field = fields.get(key)
        upgraded[key] = value if field is None else _current_value(value, field)
    return upgraded


def _current_value(value: Any, field: FieldDescriptor) -> Any:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        entry = field.message_type.fields_by_name["value"]
        if isinstance(value, dict):
            return {k: _current_value(v, entry) for k, v in value.items()}
        return value
    if isinstance(value, list):
        return [_current_value(v, field) for v in value]
    if field.message_type is not None:
        return _current_names(value, field.message_type)
    enum = field.enum_type
    if enum is not None and isinstance(value, str) and value not in enum.values_by_name:
        prefixed = enum_prefix(enum) + value
        return prefixed if prefixed in enum.values_by_name else value
    return value


def record_from_json(line: Mapping[str, Any]) -> Record:
    """The record a line of ``record_to_json`` stands for (``InvalidInput`` if it is not one)."""
    try:
        ((kind, body),) = dict(line["event"]).items()
        message_type = _message_type(kind) if kind in _KINDS else None
        message = None if message_type is None else message_type()
        if message is not None:
            json_format.ParseDict(_current_names(body, message.DESCRIPTOR), message)
        elif kind not in _KINDS or body:
            raise InvalidInput(f"unknown event {kind!r}")
        at = dt.datetime.fromisoformat(str(line["accepted_at"]).replace("Z", "+00:00"))
        entry = JournalEntry(int(line["seq"]), int(line["version"]), _event_of(kind, message))
        return Record(str(line["table_id"]), entry, at.timestamp())
    except InvalidInput:
        raise
    except (KeyError, TypeError, ValueError, json_format.ParseError) as exc:
        raise InvalidInput(f"not a journal line: {exc}") from exc
