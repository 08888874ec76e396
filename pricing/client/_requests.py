"""The request layer: each call's request message built from its arguments, and the table of
dealer-feed events, read from ``FeedRequest``'s ``event`` oneof rather than listed here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import parse_enum

Rules = (
    pb.HiLoRules
    | pb.BlackjackRules
    | pb.GoaGaeRules
    | pb.HigherLowerRules
    | pb.BaccaratRules
    | pb.DragonTigerRules
)
"""A game's rules message: it goes into the request's ``rules`` oneof by its type."""

_RULES_FIELD: Final = {
    pb.HiLoRules: "hilo",
    pb.BlackjackRules: "blackjack",
    pb.GoaGaeRules: "goa_gae",
    pb.HigherLowerRules: "higher_lower",
    pb.BaccaratRules: "baccarat",
    pb.DragonTigerRules: "dragon_tiger",
}


def game(value: str | int) -> pb.Game.ValueType:
    """A game by number or by name: ``pb.GAME_HILO``, ``"GAME_HILO"``, ``"hilo"``."""
    return pb.Game.ValueType(parse_enum(pb.Game, value) if isinstance(value, str) else value)


def role(value: str | int) -> pb.CardRole.ValueType:
    """A card role by number or by name: ``pb.CARD_ROLE_BURN``, ``"CARD_ROLE_BURN"``, ``"burn"``."""
    return pb.CardRole.ValueType(
        parse_enum(pb.CardRole, value) if isinstance(value, str) else value
    )


def _set_rules(request: pb.OpenTableRequest | pb.QuoteRequest, rules: Rules | None) -> None:
    if rules is not None:
        getattr(request, _RULES_FIELD[type(rules)]).CopyFrom(rules)


def open_request(
    table_id: str, game_: str | int, decks: int, rules: Rules | None
) -> pb.OpenTableRequest:
    request = pb.OpenTableRequest(table_id=table_id, game=game(game_), decks=decks)
    _set_rules(request, rules)
    return request


def quote_request(
    game_: str | int, exposed: Sequence[str], decks: int, rules: Rules | None, dealer_up_card: str
) -> pb.QuoteRequest:
    request = pb.QuoteRequest(
        game=game(game_), decks=decks, exposed=exposed, dealer_up_card=dealer_up_card
    )
    _set_rules(request, rules)
    return request


def settle_request(
    table_id: str, round_id: int, version: int, bet: str, stake_cents: int, *, seat: int
) -> pb.SettleRequest:
    return pb.SettleRequest(
        table_id=table_id,
        round_id=round_id,
        version=version,
        bet=bet,
        stake_cents=stake_cents,
        seat=seat,
    )


def position_request(
    table_id: str, stake_cents: int, legs: Iterable[pb.PositionLeg]
) -> pb.SettlePositionRequest:
    return pb.SettlePositionRequest(table_id=table_id, stake_cents=stake_cents, legs=legs)


def list_request(game_: str | int) -> pb.ListTablesRequest:
    return pb.ListTablesRequest(game=game(game_) if game_ else pb.GAME_UNSPECIFIED)


def expose_request(
    table_id: str, seq: int, card: str, role_: str | int, seat: int
) -> pb.ExposeCardRequest:
    return pb.ExposeCardRequest(table_id=table_id, seq=seq, card=card, role=role(role_), seat=seat)


@dataclass(frozen=True)
class Event:
    """A kind of dealer-feed event: its field in ``FeedRequest``'s ``event`` oneof (also the
    name of the clients' call for it), its request message, and its DealerService RPC."""

    kind: str
    message: type[Message]
    rpc: str

    def request(self, table_id: str, seq: int, *args: object) -> Message:
        """The event's request, numbered ``seq``; ``args``: its own fields after those two, as
        its typed call takes them (``expose_card``'s card, role, seat)."""
        build = _WITH_ARGUMENTS.get(self.kind)
        if build is not None:
            return build(table_id, seq, *args)
        # Every event message has these two fields; Message's stub declares no fields at all.
        message: Any = self.message
        return message(table_id=table_id, seq=seq)  # type: ignore[no-any-return]


#: The events whose request takes more than a table and a seq, built from their typed call's
#: arguments (a role by name, say); any other event needs no entry.
_WITH_ARGUMENTS: Final[Mapping[str, Callable[..., Message]]] = {"expose_card": expose_request}


def _events() -> dict[str, Event]:
    service = pb.DESCRIPTOR.services_by_name["DealerService"]
    events = {}
    for field in pb.FeedRequest.DESCRIPTOR.oneofs_by_name["event"].fields:
        message = field.message_type
        assert message is not None, f"FeedRequest.{field.name} is no message"
        rpc = message.name.removesuffix("Request")
        assert rpc in service.methods_by_name, f"no DealerService.{rpc} for {message.name}"
        events[field.name] = Event(field.name, GetMessageClass(message), rpc)
    return events


#: Every kind of feed event, by kind (``"expose_card"``, ``"void_round"``, ...).
EVENTS: Final[Mapping[str, Event]] = _events()
_BY_MESSAGE: Final = {event.message: event for event in EVENTS.values()}


def event_of(request: Message) -> Event:
    """The event ``request`` is (TypeError for a message that is no feed event)."""
    event = _BY_MESSAGE.get(type(request))
    if event is None:
        kinds = ", ".join(e.message.__name__ for e in EVENTS.values())
        raise TypeError(f"not a dealer-feed event: {type(request).__name__} (one of {kinds})")
    return event


def numbered(request: Message, table_id: str, seq: int) -> Message:
    """A copy of the event ``request`` for table ``table_id`` with seq ``seq``."""
    copy = type(request)()
    copy.CopyFrom(request)
    copy.table_id = table_id  # type: ignore[attr-defined]  # every event has both
    copy.seq = seq  # type: ignore[attr-defined]
    return copy


def feed_request(request: Message) -> pb.FeedRequest:
    """The event ``request`` as a Feed stream carries it."""
    return pb.FeedRequest(**{event_of(request).kind: request})  # type: ignore[arg-type]
