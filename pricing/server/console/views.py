"""A table's latest state as JSON (``google.protobuf.json_format``), made once per published
version however many pages read it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from google.protobuf import json_format

from pricing.server.fanout import Published
from pricing.v1 import pricing_pb2 as pb

__all__ = ["StateJson", "StateViews", "state_json"]

#: Tables gone (moved out after their retention) whose JSON may stay before it is dropped.
SLACK: Final = 64


@dataclass(frozen=True, slots=True)
class StateJson:
    """One published state as JSON: the text sent to pages and the dict a page renders."""

    published: Published
    text: bytes
    fields: dict[str, Any]


def state_json(published: Published) -> StateJson:
    """``published`` as JSON, every field present (zeros included) by its proto name."""
    message = pb.TableState.FromString(published.payload)
    fields = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return StateJson(published, json.dumps(fields, separators=(",", ":")).encode(), fields)


class StateViews:
    """Each table's latest state as JSON, made once per published state: keyed by table, kept
    while the hub's latest is the very state it was made of (a state refreshed at the same
    version, with the main game's figures, is another ``Published``). ``served``: the tables
    served now (the publisher's hubs), so that the JSON of tables gone is dropped."""

    def __init__(self, served: Mapping[str, object]) -> None:
        self._served = served
        self._made: dict[str, StateJson] = {}

    def __len__(self) -> int:
        return len(self._made)

    def of(self, table_id: str, published: Published) -> StateJson:
        made = self._made.get(table_id)
        if made is None or made.published is not published:
            made = self._made[table_id] = state_json(published)
            if len(self._made) > len(self._served) + SLACK:
                for gone in self._made.keys() - self._served.keys():
                    del self._made[gone]
        return made
