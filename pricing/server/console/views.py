"""Tables as JSON: a table's latest state (``google.protobuf.json_format``) made once per
published version, however many pages read it, and the lobby's rows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from pricing.server.fanout import Published
from pricing.v1 import pricing_pb2 as pb

__all__ = ["StateJson", "StateViews", "lobby_row"]


@dataclass(frozen=True, slots=True)
class StateJson:
    """One published state as JSON: the text sent to pages and the dict the lobby reads."""

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
    version, with the main game's figures, is another ``Published``)."""

    def __init__(self) -> None:
        self._made: dict[str, StateJson] = {}

    def __len__(self) -> int:
        return len(self._made)

    def of(self, table_id: str, published: Published) -> StateJson:
        made = self._made.get(table_id)
        if made is None or made.published is not published:
            made = self._made[table_id] = state_json(published)
        return made

    def keep_only(self, table_ids: set[str]) -> None:
        """Forget the tables no longer served (moved out after their retention)."""
        for gone in self._made.keys() - table_ids:
            del self._made[gone]


def _best_side_bet(fields: dict[str, Any]) -> dict[str, Any] | None:
    """The open side bet of the highest return to player, if the state prices any."""
    open_bets = [s for s in fields.get("side_bets", ()) if s.get("open")]
    if not open_bets:
        return None
    best = max(open_bets, key=lambda s: float(s.get("rtp", 0.0)))
    return {
        "bet": best.get("bet", ""),
        "rtp": best.get("rtp", 0.0),
        "player_favourable": best.get("player_favourable", False),
    }


def lobby_row(summary: pb.TableSummary, state: StateJson) -> dict[str, Any]:
    """A table as the lobby lists it: what ListTables answers, with what its latest state
    says of the player's chances (the blackjack player edge, the best open side bet)."""
    row = json_format.MessageToDict(
        summary, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    fields = state.fields
    row["shoe"] = fields.get("shoe", 0)
    row["round_id"] = fields.get("round_id", 0)
    row["last_seq"] = fields.get("last_seq", 0)
    row["player_edge"] = fields.get("player_edge")
    row["best_side_bet"] = _best_side_bet(fields)
    return row
