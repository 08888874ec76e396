"""A table's states as JSON (protobuf's JSON mapping), made once per published state however
many pages read it."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pricing.server.fanout import Published
from pricing.v1 import pricing_pb2 as pb
from pricing.wire.json_map import to_dict

__all__ = ["StateJson", "StateViews", "state_json"]

#: Tables gone (moved out after their retention) whose JSON may stay before it is dropped.
SLACK: Final = 64
#: States of a table kept as JSON: the latest, and the round results pages are still sending.
KEPT: Final = 8


@dataclass(frozen=True, slots=True)
class StateJson:
    """One published state as JSON: the text sent to pages and the dict a page renders, and
    that page once rendered (``page``)."""

    published: Published
    text: bytes
    fields: dict[str, Any]
    _page: list[bytes] = field(default_factory=list, compare=False)

    def page(self, render: Callable[[], bytes]) -> bytes:
        """The table's page of this state, rendered once for every reader."""
        if not self._page:
            self._page.append(render())
        return self._page[0]


def state_json(published: Published) -> StateJson:
    """``published`` as JSON, every field present (zeros included) by its proto name
    (protobuf's JSON mapping, made by ``pricing.wire.json_map``: half ``json_format``'s time)."""
    fields = to_dict(pb.TableState.FromString(published.payload))
    return StateJson(published, json.dumps(fields, separators=(",", ":")).encode(), fields)


class StateViews:
    """Each table's states as JSON, made once per published state however many pages send
    it: the last ``KEPT`` states made of each table, by version (a state refreshed at the same
    version, with the main game's figures, is another ``Published``, made anew), so that the
    round results held for pages that had not sent them yet, sent one page after another while
    newer states come, are made once too. ``served``: the tables served now (the publisher's
    hubs), so that the JSON of tables gone is dropped."""

    def __init__(self, served: Mapping[str, object]) -> None:
        self._served = served
        self._made: dict[str, dict[int, StateJson]] = {}

    def __len__(self) -> int:
        return len(self._made)

    def of(self, table_id: str, published: Published) -> StateJson:
        kept = self._made.get(table_id)
        if kept is None:
            kept = self._made[table_id] = {}
            if len(self._made) > len(self._served) + SLACK:
                for gone in self._made.keys() - self._served.keys() - {table_id}:
                    del self._made[gone]
        made = kept.get(published.version)
        if made is None or made.published is not published:
            made = kept[published.version] = state_json(published)
            if len(kept) > KEPT:
                del kept[min(kept)]
        return made
