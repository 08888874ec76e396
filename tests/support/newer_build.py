"""Journaled events a newer build of the service would write, made as it would make them: this
build's own messages, with what a newer one adds (a game value, a field number, an event kind)
put into their bytes by protobuf's wire format, which this build parses without a word.

``NEWER`` holds one table's journal of each kind, as ``(kind, body)`` rows from version 1:
each is a table this build must hold aside, never load or take for damage.
"""

from __future__ import annotations

from typing import Final

from pricing.cards import DECK
from pricing.games.events import CardRole, ExposeCard
from pricing.journal.codec import encode_event
from pricing.tables import Game, OpenTable, TableConfig, adapter_for
from pricing.v1 import pricing_pb2 as pb

#: A game no build serves (the proto's values are small).
UNKNOWN_GAME: Final = 99
#: A field number no message of the proto has.
UNKNOWN_FIELD: Final = 900
#: An event kind this build does not have.
UNKNOWN_KIND: Final = "ShuffleCut"


def varint(value: int) -> bytes:
    """Protobuf's base-128 varint.

    >>> varint(1), varint(300)
    (b'\\x01', b'\\xac\\x02')
    """
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def varint_field(number: int, value: int = 1) -> bytes:
    """A varint field (wire type 0) ``number`` holding ``value``."""
    return varint(number << 3) + varint(value)


def message_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2) ``number`` holding ``payload``."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def hilo_opening(table_id: str) -> tuple[str, bytes]:
    """A Hi-Lo table's opening as this build journals it."""
    config = adapter_for(Game.HILO).configure(TableConfig(Game.HILO))
    return encode_event(OpenTable(table_id, config))


def card(n: int) -> tuple[str, bytes]:
    """A burn card, as this build journals it."""
    return encode_event(ExposeCard(DECK[n], CardRole.BURN))


def opening_of_unknown_game(table_id: str) -> tuple[str, bytes]:
    """An opening whose game this build does not serve."""
    body = pb.OpenTableRequest(table_id=table_id, game=UNKNOWN_GAME, decks=1)
    return "OpenTable", body.SerializeToString()


def opening_with_unknown_rules_field(table_id: str) -> tuple[str, bytes]:
    """A Hi-Lo opening whose rules message carries a field this build does not have."""
    kind, body = hilo_opening(table_id)
    message = pb.OpenTableRequest.FromString(body)
    rules = message.hilo.SerializeToString() + varint_field(UNKNOWN_FIELD, 7)
    message.ClearField("hilo")
    number = pb.OpenTableRequest.DESCRIPTOR.fields_by_name["hilo"].number
    return kind, message.SerializeToString() + message_field(number, rules)


#: One journal of each kind a newer build writes, by table id: its rows from version 1, and
#: words the reason it is held aside names.
NEWER: Final[dict[str, tuple[list[tuple[str, bytes]], str]]] = {
    "new-game": ([opening_of_unknown_game("new-game"), card(1)], f"game {UNKNOWN_GAME}"),
    "new-rules": (
        [opening_with_unknown_rules_field("new-rules"), card(1), card(2)],
        f"field number {UNKNOWN_FIELD} in hilo",
    ),
    "new-kind": (
        [hilo_opening("new-kind"), card(1), (UNKNOWN_KIND, varint_field(1, 3)), card(2)],
        repr(UNKNOWN_KIND),
    ),
}
