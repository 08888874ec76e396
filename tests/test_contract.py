"""The names of the contract (proto/pricing/v1/pricing.proto) game servers code against."""

from __future__ import annotations

from pricing.v1 import pricing_pb2 as pb

FILE = pb.DESCRIPTOR


def fields(message: str) -> set[str]:
    return {f.name for f in FILE.message_types_by_name[message].fields}


def test_services_and_methods() -> None:
    def methods(service: str) -> dict[str, tuple[str, str, bool]]:
        return {
            m.name: (m.input_type.name, m.output_type.name, m.server_streaming)
            for m in FILE.services_by_name[service].methods
        }

    def client_streaming(service: str) -> set[str]:
        return {m.name for m in FILE.services_by_name[service].methods if m.client_streaming}

    assert FILE.package == "pricing.v1"
    assert methods("DealerService") == {
        "OpenTable": ("OpenTableRequest", "TableState", False),
        "ExposeCard": ("ExposeCardRequest", "TableState", False),
        "VoidRound": ("VoidRoundRequest", "TableState", False),
        "EndRound": ("EndRoundRequest", "TableState", False),
        "NewShoe": ("NewShoeRequest", "TableState", False),
        "CloseTable": ("CloseTableRequest", "TableState", False),
        "Feed": ("FeedRequest", "TableState", True),
    }
    assert client_streaming("DealerService") == {"Feed"}
    assert client_streaming("PricingService") == set()
    # A Feed request carries one of the seq'ed events, each the request of its own call.
    (event,) = FILE.message_types_by_name["FeedRequest"].oneofs
    assert {f.name: f.message_type.name for f in event.fields} == {
        "expose_card": "ExposeCardRequest",
        "void_round": "VoidRoundRequest",
        "end_round": "EndRoundRequest",
        "new_shoe": "NewShoeRequest",
        "close_table": "CloseTableRequest",
    }
    assert methods("PricingService") == {
        "GetTable": ("GetTableRequest", "TableState", False),
        "WatchTable": ("WatchTableRequest", "TableState", True),
        "Quote": ("QuoteRequest", "QuoteResponse", False),
        "Settle": ("SettleRequest", "Settlement", False),
        "ListTables": ("ListTablesRequest", "ListTablesResponse", False),
        "Analyze": ("AnalyzeRequest", "AnalyzeResponse", False),
    }


def test_enums() -> None:
    def values(enum: str) -> dict[str, int]:
        return {v.name: v.number for v in FILE.enum_types_by_name[enum].values}

    assert values("Game") == {"GAME_UNSPECIFIED": 0, "HILO": 1, "BLACKJACK": 2, "GOA_GAE": 3}
    assert values("CardRole") == {
        "CARD_ROLE_UNSPECIFIED": 0, "BURN": 1, "RESULT": 2, "PLAYER": 3, "DEALER": 4,
    }  # fmt: skip
    # The contract's values, plus DEALING (added for blackjack and Goa Gae rounds).
    assert values("Phase") == {
        "PHASE_UNSPECIFIED": 0, "OPENING": 1, "BETTING": 2, "SHOE_COMPLETE": 3, "CLOSED": 4,
        "DEALING": 5,
    }  # fmt: skip
    status = FILE.message_types_by_name["Settlement"].enum_types_by_name["Status"]
    assert {"PENDING", "WIN", "LOSE", "VOID"} <= {v.name for v in status.values}


def test_messages() -> None:
    assert {"table_id", "game", "decks"} <= fields("OpenTableRequest")
    assert {"table_id", "seq", "card", "role"} <= fields("ExposeCardRequest")
    for request in ("VoidRoundRequest", "EndRoundRequest", "NewShoeRequest", "CloseTableRequest"):
        assert {"table_id", "seq"} <= fields(request)
    assert {
        "table_id", "game", "version", "shoe", "phase", "round_id", "result_index", "last_seq",
        "exposed", "cards_remaining", "prices", "side_bets", "insurance", "dealer_outcomes",
    } <= fields("TableState")  # fmt: skip
    assert fields("BetPrice") >= {
        "bet", "wins", "remaining", "probability", "payout_hundredths", "open", "clamped",
    }  # fmt: skip
    assert fields("WatchTableRequest") >= {"table_id", "from_version"}
    assert fields("SettleRequest") >= {"table_id", "round_id", "version", "bet", "stake_cents"}
    assert fields("Settlement") >= {"status", "payout_hundredths", "returned_cents", "result_card"}
    assert fields("QuoteRequest") >= {"game", "decks", "exposed"}
    assert fields("SideBetOutcome") >= {"name", "ways", "total", "probability", "pays_hundredths"}
    assert fields("SideBetOdds") >= {"outcomes", "rtp", "player_favourable"}
    # Blackjack seats and the lobby.
    assert "seats" in fields("BlackjackRules") and "seats" in fields("TableState")
    assert "seat" in fields("ExposeCardRequest") and "seat" in fields("SettleRequest")
    assert fields("SeatCards") == {"seat", "cards"} and "seats" in fields("RoundResult")
    assert fields("ListTablesRequest") == {"game"}
    assert fields("TableSummary") >= {
        "table_id", "game", "decks", "phase", "version", "cards_remaining", "closed", "watchers",
    }  # fmt: skip


def test_every_game_has_its_rules_field_in_the_oneof() -> None:
    from pricing.tables import Game  # noqa: PLC0415
    from pricing.wire import RULES_FROM_PROTO  # noqa: PLC0415 - the wire-only tests above

    oneof = {f.name for f in pb.OpenTableRequest.DESCRIPTOR.oneofs_by_name["rules"].fields}
    assert set(RULES_FROM_PROTO) == set(Game)
    assert {field for field, _ in RULES_FROM_PROTO.values()} == oneof
