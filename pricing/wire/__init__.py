"""Translation between the wire (``pricing.v1`` messages) and the tables: no game rules here.

It sits below both the journal (which stores events as their requests) and the servicers.
Each direction is one small function: a table's configuration (``config``), the dealer feed's
events (``feed``, mapped generically from their classes and the proto), what the tables answer
(``state``, ``positions``) and times (``times``).
"""

from pricing.wire.config import (
    RULES_FROM_PROTO,
    RULES_TO_PROTO,
    config_from_proto,
    config_to_proto,
    game_from_proto,
)
from pricing.wire.feed import FEED_FIELDS, FEED_KINDS, FeedKind, feed_kind
from pricing.wire.positions import leg_results_to_proto, position_legs, position_to_proto
from pricing.wire.state import (
    answer_quote,
    quote_to_proto,
    ratio,
    settlement_to_proto,
    snapshot_to_proto,
    summary_to_proto,
)
from pricing.wire.times import seconds, timestamp

__all__ = [
    "FEED_FIELDS",
    "FEED_KINDS",
    "RULES_FROM_PROTO",
    "RULES_TO_PROTO",
    "FeedKind",
    "answer_quote",
    "config_from_proto",
    "config_to_proto",
    "feed_kind",
    "game_from_proto",
    "leg_results_to_proto",
    "position_legs",
    "position_to_proto",
    "quote_to_proto",
    "ratio",
    "seconds",
    "settlement_to_proto",
    "snapshot_to_proto",
    "summary_to_proto",
    "timestamp",
]
