"""A record a newer build of the service wrote is told apart from damage: it parses, but names
what this build does not have (``JournalNewer``), where damage does not parse or holds what no
build writes (``JournalCorrupt``, and not ``JournalNewer``). And the tables' collection holds
such a table aside: neither served nor unknown."""

from __future__ import annotations

import pytest

from pricing.journal import JournalCorrupt, JournalNewer
from pricing.journal.codec import decode_event, encode_event
from pricing.tables import (
    Game,
    NewShoe,
    TableConfig,
    TableHeldAside,
    TableNotFound,
    Tables,
)
from pricing.v1 import pricing_pb2 as pb
from tests.support.newer_build import (
    NEWER,
    UNKNOWN_FIELD,
    UNKNOWN_KIND,
    card,
    hilo_opening,
    message_field,
    varint_field,
)

_ROLE = pb.ExposeCardRequest.DESCRIPTOR.fields_by_name["role"].number
_RULES = pb.OpenTableRequest.DESCRIPTOR.fields_by_name["hilo"].number
_LOW = pb.HiLoRules.DESCRIPTOR.fields_by_name["low"].number


@pytest.mark.parametrize(
    ("kind", "body", "why"),
    [
        (*NEWER["new-game"][0][0], "names game 99, which this build does not serve"),
        (*NEWER["new-rules"][0][0], f"field number {UNKNOWN_FIELD} in hilo"),
        (UNKNOWN_KIND, varint_field(1, 3), repr(UNKNOWN_KIND)),
        (UNKNOWN_KIND, b"", repr(UNKNOWN_KIND)),
        # A field a newer build added to a feed event, to one that had none, to a pay rule.
        ("ExposeCard", card(3)[1] + varint_field(UNKNOWN_FIELD), f"number {UNKNOWN_FIELD}"),
        ("NewShoe", varint_field(UNKNOWN_FIELD), f"number {UNKNOWN_FIELD}"),
        (
            "OpenTable",
            hilo_opening("t")[1]
            + message_field(_RULES, message_field(_LOW, varint_field(UNKNOWN_FIELD))),
            "in hilo.low, which",
        ),
        # An enum value the proto does not name (a card role a newer build added).
        ("ExposeCard", card(3)[1] + varint_field(_ROLE, 77), "has role 77"),
    ],
    ids=["game", "rules", "kind", "kind-without-body", "feed", "no-fields", "nested", "enum"],
)
def test_what_a_newer_build_wrote_is_newer_not_damage(kind: str, body: bytes, why: str) -> None:
    with pytest.raises(JournalNewer) as caught:
        decode_event(kind, body)
    assert why in str(caught.value), caught.value


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("ExposeCard", b"\xff\xff"),  # does not parse
        ("OpenTable", b"\x0a\x05ab"),  # cut short
        ("Expose Card!", b""),  # not even a kind's name: bytes flipped
        (UNKNOWN_KIND, b"\xff\xff"),  # a kind's name, but its body is no message
        ("OpenTable", pb.OpenTableRequest(table_id="t").SerializeToString()),  # no game
        ("NewShoe", pb.NewShoeRequest(table_id="t").SerializeToString()),  # a body it has not
        ("ExposeCard", pb.ExposeCardRequest(card="ZZ", role=1).SerializeToString()),
    ],
    ids=["garbage", "cut-short", "kind-flipped", "kind-garbage", "no-game", "body", "bad-card"],
)
def test_damage_is_corrupt_and_not_newer(kind: str, body: bytes) -> None:
    with pytest.raises(JournalCorrupt) as caught:
        decode_event(kind, body)
    assert not isinstance(caught.value, JournalNewer), caught.value


def test_what_this_build_writes_is_neither() -> None:
    assert decode_event(*encode_event(NewShoe())) == NewShoe()
    for table in NEWER.values():
        for kind, body in table[0][1:]:
            if kind != UNKNOWN_KIND:
                decode_event(kind, body)


def test_a_table_held_aside_is_neither_served_nor_unknown() -> None:
    tables = Tables()
    tables.open("a", TableConfig(Game.HILO))
    tables.open("b", TableConfig(Game.HILO))
    assert tables.hold_aside("b", "why") and not tables.hold_aside("b", "why")
    assert [t.table_id for t in tables] == ["a"] and "b" not in tables
    assert dict(tables.held_aside) == {"b": "why"}
    with pytest.raises(TableHeldAside, match="'b' was written by a newer build") as caught:
        tables.get("b")
    assert (caught.value.table_id, caught.value.why) == ("b", "why")
    with pytest.raises(TableHeldAside):
        tables.open("b", TableConfig(Game.HILO))
    with pytest.raises(TableNotFound):
        tables.get("c")
    tables.release("b")
    assert tables.open_table("b", TableConfig(Game.HILO))[1]
