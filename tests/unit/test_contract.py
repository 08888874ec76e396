"""The names of the contract (proto/pricing/v1/pricing.proto) game servers code against."""

from __future__ import annotations

import re

from google.protobuf.descriptor import EnumDescriptor

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
        "Settle": ("SettleRequest", "SettleResponse", False),
        "ListTables": ("ListTablesRequest", "ListTablesResponse", False),
        "Analyze": ("AnalyzeRequest", "AnalyzeResponse", False),
        "SettlePosition": ("SettlePositionRequest", "SettlePositionResponse", False),
    }


def test_enums() -> None:
    def values(enum: str) -> dict[str, int]:
        return {v.name: v.number for v in FILE.enum_types_by_name[enum].values}

    # The numbers are those of every journal and client since the first release; the names
    # took their enum's prefix in one deliberate change (buf's STANDARD style).
    assert values("Game") == {
        "GAME_UNSPECIFIED": 0, "GAME_HILO": 1, "GAME_BLACKJACK": 2, "GAME_GOA_GAE": 3,
        "GAME_HIGHER_LOWER": 4, "GAME_BACCARAT": 5, "GAME_DRAGON_TIGER": 6,
    }  # fmt: skip
    assert values("CardRole") == {
        "CARD_ROLE_UNSPECIFIED": 0, "CARD_ROLE_BURN": 1, "CARD_ROLE_RESULT": 2,
        "CARD_ROLE_PLAYER": 3, "CARD_ROLE_DEALER": 4, "CARD_ROLE_BANKER": 5,
        "CARD_ROLE_DRAGON": 6, "CARD_ROLE_TIGER": 7,
    }  # fmt: skip
    assert values("Phase") == {
        "PHASE_UNSPECIFIED": 0, "PHASE_OPENING": 1, "PHASE_BETTING": 2,
        "PHASE_SHOE_COMPLETE": 3, "PHASE_CLOSED": 4, "PHASE_DEALING": 5,
    }  # fmt: skip
    assert values("Action") == {
        "ACTION_UNSPECIFIED": 0, "ACTION_STAND": 1, "ACTION_HIT": 2, "ACTION_DOUBLE": 3,
        "ACTION_SPLIT": 4, "ACTION_SURRENDER": 5,
    }  # fmt: skip
    status = FILE.message_types_by_name["SettleResponse"].enum_types_by_name["Status"]
    assert {v.name: v.number for v in status.values} == {
        "STATUS_UNSPECIFIED": 0, "STATUS_PENDING": 1, "STATUS_WIN": 2, "STATUS_LOSE": 3,
        "STATUS_VOID": 4, "STATUS_PUSH": 5,
    }  # fmt: skip
    assert values("Commission") == {
        "COMMISSION_UNSPECIFIED": 0, "COMMISSION_STANDARD": 1, "COMMISSION_NONE": 2,
        "COMMISSION_EZ": 3,
    }  # fmt: skip


def _all_enums() -> list[EnumDescriptor]:
    enums = list(FILE.enum_types_by_name.values())
    for message in FILE.message_types_by_name.values():
        enums += message.enum_types
    return enums


def test_every_enum_value_carries_its_enums_prefix() -> None:
    """buf's ENUM_VALUE_PREFIX and ENUM_ZERO_VALUE_SUFFIX, over the compiled descriptors: no
    value can clash with another enum's in the package scope, now or when enums are added."""
    assert len(_all_enums()) >= 7
    for enum in _all_enums():
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
        assert enum.values[0].name == prefix + "UNSPECIFIED", enum.full_name
        wrong = [v.name for v in enum.values if not v.name.startswith(prefix)]
        assert not wrong, f"{enum.full_name}: values without the prefix {prefix}: {wrong}"


def test_each_rpc_has_its_own_request_and_response_but_for_table_state() -> None:
    """buf.yaml excepts RPC_RESPONSE_STANDARD_NAME and RPC_REQUEST_RESPONSE_UNIQUE for one
    design only, TableState as the answer of every call about a table's state: this holds
    every other RPC to the rules the exception turns off."""
    used: dict[str, list[str]] = {}
    for service in FILE.services_by_name.values():
        for method in service.methods:
            assert method.input_type.name == f"{method.name}Request", method.full_name
            assert method.output_type.name in {f"{method.name}Response", "TableState"}, (
                method.full_name
            )
            used.setdefault(method.input_type.name, []).append(method.full_name)
            if method.output_type.name != "TableState":
                used.setdefault(method.output_type.name, []).append(method.full_name)
    assert {name: rpcs for name, rpcs in used.items() if len(rpcs) > 1} == {}


def test_generated_code_has_a_home_in_every_language() -> None:
    options = FILE.GetOptions()
    assert options.go_package.endswith(";pricingv1")
    assert options.java_package.endswith(".pricing.v1") and options.java_multiple_files
    assert options.csharp_namespace.endswith(".Pricing.V1")


def test_times_are_timestamps() -> None:
    """A time on the wire is a google.protobuf.Timestamp, never a number of seconds."""
    times = {
        (message.name, field.name): field.message_type and field.message_type.full_name
        for message in FILE.message_types_by_name.values()
        for field in message.fields
        if field.name.endswith("_at") or field.name in {"since", "until"}
    }
    assert times == {
        ("AnalyzeRequest", "since"): "google.protobuf.Timestamp",
        ("AnalyzeRequest", "until"): "google.protobuf.Timestamp",
        ("LiveStats", "first_at"): "google.protobuf.Timestamp",
        ("LiveStats", "last_at"): "google.protobuf.Timestamp",
    }


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
    assert fields("SettleResponse") >= {
        "status",
        "payout_hundredths",
        "returned_cents",
        "result_card",
    }
    assert fields("QuoteRequest") >= {"game", "decks", "exposed"}
    assert fields("SideBetOutcome") >= {"name", "ways", "total", "probability", "payout_hundredths"}
    # One name for one thing: a pay is payout_hundredths wherever it is (net_: signed, a push
    # 0 and a half loss -50, beside the unsigned one clients read since the first release).
    pays = {
        (message.name, field.name)
        for message in FILE.message_types_by_name.values()
        for field in message.fields
        if "pay" in field.name and field.name.endswith("_hundredths")
    }
    assert {name for _, name in pays} == {
        "payout_hundredths", "min_payout_hundredths", "max_payout_hundredths",
        "net_payout_hundredths",
    }, pays  # fmt: skip
    assert fields("SideBetOdds") >= {"outcomes", "rtp", "player_favourable"}
    # Blackjack seats and the lobby.
    assert "seats" in fields("BlackjackRules") and "seats" in fields("TableState")
    assert "seat" in fields("ExposeCardRequest") and "seat" in fields("SettleRequest")
    assert fields("SeatCards") == {"seat", "cards", "decisions", "best_action"}
    assert "seats" in fields("RoundResult")
    # The main game's figures (docs/rules.md §3.9): the names clients code against.
    assert fields("Decision") == {"action", "ev"}
    assert fields("QuoteRequest") >= {"player_hand", "dealer_up_card"}
    assert fields("QuoteResponse") >= {"decisions", "best_action", "player_edge"}
    assert "player_edge" in fields("TableState")
    optional = {
        (message, name)
        for message in ("BlackjackRules", "TableState", "QuoteResponse")
        for name, field in FILE.message_types_by_name[message].fields_by_name.items()
        if field.has_presence and field.message_type is None
    }
    assert optional >= {
        ("BlackjackRules", "double_after_split"), ("BlackjackRules", "max_splits"),
        ("TableState", "player_edge"), ("QuoteResponse", "player_edge"),
    }  # fmt: skip
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


def test_the_wire_actions_are_the_engines() -> None:
    """Every ``Action`` of the analyzer has its wire value (``ACTION_`` + its name), and the
    other way round: the wire mapping crosses by name (``pricing.v1.enums``)."""
    from pricing.games.blackjack.decisions import Action  # noqa: PLC0415
    from pricing.v1.enums import enum_number, enum_short_name  # noqa: PLC0415

    wire = [v.number for v in pb.Action.DESCRIPTOR.values[1:]]
    assert [enum_short_name(pb.Action, n) for n in wire] == [a.value for a in Action]
    assert [enum_number(pb.Action, a.value) for a in Action] == wire
