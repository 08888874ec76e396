"""Tables as JSON: a table's latest state (``google.protobuf.json_format``) made once per
published version, however many pages read it, and the lobby's rows."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from pricing.server.fanout import Published
from pricing.v1 import pricing_pb2 as pb

__all__ = ["StateJson", "StateViews", "alerts", "lobby_row"]


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
        # each table's version the console last saw, and when it first saw it (wall clock)
        self._changed: dict[str, tuple[int, float]] = {}

    def __len__(self) -> int:
        return len(self._made)

    def of(self, table_id: str, published: Published) -> StateJson:
        made = self._made.get(table_id)
        if made is None or made.published is not published:
            made = self._made[table_id] = state_json(published)
            seen = self._changed.get(table_id)
            if seen is None or seen[0] != published.version:
                self._changed[table_id] = (published.version, time.time())
        return made

    def changed_at(self, table_id: str) -> float | None:
        """When the console first saw the table's latest version (seconds since the epoch):
        the lobby reads every table at least once a second while one is open."""
        seen = self._changed.get(table_id)
        return None if seen is None else seen[1]

    def keep_only(self, table_ids: set[str]) -> None:
        """Forget the tables no longer served (moved out after their retention)."""
        for gone in self._made.keys() - table_ids:
            del self._made[gone]
            self._changed.pop(gone, None)


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
    row["alerts"] = alerts(fields)
    return row


def alerts(fields: dict[str, Any]) -> list[str]:
    """What an operator should look at: each player-favourable bet or insurance, a positive
    blackjack player edge, each bet game protection closed.

    >>> alerts({"side_bets": [{"bet": "PAIRS", "player_favourable": True},
    ...     {"bet": "HOT_3", "closed_by_protection": True}], "player_edge": 0.01})
    ['player edge +1.00%', 'PAIRS favourable', 'HOT_3 closed']
    """
    said: list[str] = []
    edge = fields.get("player_edge")
    if edge is not None and float(edge) > 0:
        said.append(f"player edge {float(edge):+.2%}")
    for bet in fields.get("side_bets", ()):
        if bet.get("player_favourable"):
            said.append(f"{bet.get('bet', '')} favourable")
    insurance = fields.get("insurance") or {}
    if insurance.get("offered") and insurance.get("player_favourable"):
        said.append("insurance favourable")
    for bet in fields.get("side_bets", ()):
        if bet.get("closed_by_protection"):
            said.append(f"{bet.get('bet', '')} closed")
    return said
