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
    """Each table's states as JSON, made once per published state however many pages send
    it: the newest made (the hub's latest, until a newer one or the same version refreshed
    with the main game's figures, another ``Published``), and the last older one made (a
    round's result held for pages that had not sent it yet: they send it one after another).
    ``served``: the tables served now (the publisher's hubs), so that the JSON of tables gone
    is dropped."""

    def __init__(self, served: Mapping[str, object]) -> None:
        self._served = served
        self._latest: dict[str, StateJson] = {}
        self._held: dict[str, StateJson] = {}

    def __len__(self) -> int:
        return len(self._latest)

    def of(self, table_id: str, published: Published) -> StateJson:
        latest = self._latest.get(table_id)
        if latest is not None and latest.published is published:
            return latest
        held = self._held.get(table_id)
        if held is not None and held.published is published:
            return held
        made = state_json(published)
        if latest is None or published.version >= latest.published.version:
            self._latest[table_id] = made
            if len(self._latest) > len(self._served) + SLACK:
                for gone in self._latest.keys() - self._served.keys():
                    del self._latest[gone]
                    self._held.pop(gone, None)
        else:
            self._held[table_id] = made
        return made
