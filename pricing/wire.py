"""Translation between the wire (``pricing.v1`` messages) and the tables: no game rules here.

It sits below both the journal (which stores events as their requests) and the servicers.
Each direction is one small function; the game-specific part is only how a game's rules message
becomes its engine's rules object (``RULES_FROM_PROTO``), which a new game adds beside its
adapter in ``pricing/tables/adapters/``. The dealer feed's events are mapped generically, from
their classes and the proto (``FEED_KINDS``).
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Final

from google.protobuf.message import Message

from pricing.cards import CARDS_PER_DECK, Card, parse_card
from pricing.errors import IllegalMove, InvalidInput, InvalidOption
from pricing.games import blackjack, goagae, hilo
from pricing.games.blackjack.rounds import BlackjackOptions
from pricing.payout import BetPrice, PayRule
from pricing.tables import (
    FeedEvent,
    Game,
    GameView,
    SeatView,
    Settlement,
    Snapshot,
    TableConfig,
    adapter_for,
)
from pricing.text import distinct_names, quoted
from pricing.v1 import pricing_pb2 as pb

__all__ = [
    "FEED_FIELDS",
    "FEED_KINDS",
    "RULES_FROM_PROTO",
    "FeedKind",
    "answer_quote",
    "config_from_proto",
    "config_to_proto",
    "feed_kind",
    "game_from_proto",
    "quote_to_proto",
    "settlement_to_proto",
    "snapshot_to_proto",
    "summary_to_proto",
]


def game_from_proto(value: int) -> Game:
    if value == pb.GAME_UNSPECIFIED:
        raise InvalidOption("game is required: HILO, BLACKJACK or GOA_GAE", field="game")
    try:
        return Game(value)
    except ValueError:
        raise InvalidOption(f"unknown game {value}", field="game") from None


def _pay_rule(name: str, rule: pb.PayRule) -> PayRule:
    try:
        return PayRule(rule.rtp_bp, rule.min_hundredths, rule.max_hundredths)
    except InvalidOption as exc:
        raise InvalidOption(f"paytable entry {name}: {exc}") from None


def _hilo_rules(rules: Message) -> hilo.HiLoPaytable:
    assert isinstance(rules, pb.HiLoRules)
    given = {
        bet: _pay_rule(bet, getattr(rules, bet.lower()))
        for bet in hilo.BETS
        if rules.HasField(bet.lower())  # type: ignore[arg-type]
    }
    return hilo.HiLoPaytable.from_rules(given)


def _goagae_rules(rules: Message) -> goagae.GoaGaePaytable:
    assert isinstance(rules, pb.GoaGaeRules)
    names = distinct_names("Goa Gae bet", rules.bets)
    given = {names[name]: _pay_rule(names[name], rule) for name, rule in rules.bets.items()}
    return goagae.GoaGaePaytable.from_rules(given)


def _enum_option(kind: str, value: int, names: Mapping[int, str], default: str) -> str:
    if value == 0:
        return default
    name = names.get(value)
    if name is None:
        raise InvalidOption(f"unknown {kind} {value}: expected one of {', '.join(names.values())}")
    return name


_DEALER_RULES: Final[dict[int, str]] = {pb.S17: "S17", pb.H17: "H17"}
_SHUFFLE_MODES: Final[dict[int, str]] = {pb.DEPLETING: "DEPLETING", pb.CONTINUOUS: "CONTINUOUS"}
_PAIRS_PRESETS: Final[dict[int, str]] = {pb.PERFECT_PAIRS: "perfect-pairs", pb.ANY_PAIR: "any-pair"}
_PAIRS_FIELDS: Final = {
    "PAIR": "pair_hundredths",
    "PERFECT": "perfect_hundredths",
    "COLOURED": "coloured_hundredths",
    "MIXED": "mixed_hundredths",
}


_CROWN_TREASURE_HUNDREDTHS: Final = 100_000  # docs/rules.md §2: Crown Treasure pays 1000 : 1


def _royal_match(message: pb.RoyalMatchPaytable) -> blackjack.RoyalMatchPaytable:
    """Each field sent replaces its default; a field left out keeps it."""
    default = blackjack.DEFAULT_ROYAL_MATCH
    crown_on = (
        message.crown_enabled
        if message.HasField("crown_enabled")
        else default.crown_hundredths is not None
    )
    crown: int | None = None
    if crown_on:
        crown = (
            message.crown_hundredths
            if message.HasField("crown_hundredths")
            else default.crown_hundredths or _CROWN_TREASURE_HUNDREDTHS
        )
    elif message.HasField("crown_hundredths"):
        raise InvalidOption(
            f"royal_match crown_hundredths {message.crown_hundredths} was sent with "
            "crown_enabled false: Crown Treasure is off, so it pays nothing of its own"
        )
    return blackjack.RoyalMatchPaytable(
        royal_hundredths=(
            message.royal_hundredths
            if message.HasField("royal_hundredths")
            else default.royal_hundredths
        ),
        easy_hundredths=(
            message.easy_hundredths
            if message.HasField("easy_hundredths")
            else default.easy_hundredths
        ),
        crown_hundredths=crown,
    )


def _pairs(message: pb.PairsPaytable) -> blackjack.PairsPaytable:
    """A preset (default Perfect Pairs), its pays overridden by name."""
    preset = _enum_option("pairs preset", message.preset, _PAIRS_PRESETS, "perfect-pairs")
    table = blackjack.pairs_paytable(preset)
    pays = table.pays()
    overrides: dict[str, int] = {}
    names = distinct_names("pairs outcome", message.pays_hundredths)
    for name, hundredths in message.pays_hundredths.items():
        outcome = names[name]
        if outcome not in pays:
            raise InvalidOption(
                f"pairs outcome {quoted(name)} is not in the {preset} paytable: expected one of "
                f"{', '.join(pays)}"
            )
        overrides[_PAIRS_FIELDS[outcome]] = hundredths
    return replace(table, **overrides) if overrides else table


def _blackjack_rules(rules: Message) -> BlackjackOptions:
    assert isinstance(rules, pb.BlackjackRules)
    default = BlackjackOptions()
    return BlackjackOptions(
        rule=blackjack.DealerRule(
            _enum_option("dealer_rule", rules.dealer_rule, _DEALER_RULES, default.rule.value)
        ),
        mode=blackjack.ShoeMode(
            _enum_option("shuffle_mode", rules.shuffle_mode, _SHUFFLE_MODES, default.mode.value)
        ),
        royal_match=(
            _royal_match(rules.royal_match)
            if rules.HasField("royal_match")
            else default.royal_match
        ),
        pairs=_pairs(rules.pairs) if rules.HasField("pairs") else default.pairs,
        seats=rules.seats or default.seats,  # 0: the default (the adapter checks the range)
    )


#: game → (name of its field in the ``rules`` oneof, its rules message → the engine's object)
RULES_FROM_PROTO: Final[dict[Game, tuple[str, Callable[[Message], object]]]] = {
    Game.HILO: ("hilo", _hilo_rules),
    Game.GOA_GAE: ("goa_gae", _goagae_rules),
    Game.BLACKJACK: ("blackjack", _blackjack_rules),
}


# The other way, for the journal (``pricing.journal.codec``): an engine's rules object as the
# rules message that asks for exactly it, every field sent, so nothing depends on a default.


def _pay_rule_proto(rule: PayRule) -> pb.PayRule:
    return pb.PayRule(
        rtp_bp=rule.rtp_bp, min_hundredths=rule.min_hundredths, max_hundredths=rule.max_hundredths
    )


def _hilo_proto(rules: object) -> Message:
    assert isinstance(rules, hilo.HiLoPaytable)
    return pb.HiLoRules(
        **{bet.lower(): _pay_rule_proto(rule) for bet, rule in rules.rules().items()}
    )


def _goagae_proto(rules: object) -> Message:
    assert isinstance(rules, goagae.GoaGaePaytable)
    return pb.GoaGaeRules(bets={bet: _pay_rule_proto(r) for bet, r in rules.rules().items()})


def _blackjack_proto(rules: object) -> Message:
    assert isinstance(rules, BlackjackOptions)
    royal = rules.royal_match
    royal_proto = pb.RoyalMatchPaytable(
        royal_hundredths=royal.royal_hundredths,
        easy_hundredths=royal.easy_hundredths,
        crown_enabled=royal.crown_hundredths is not None,
    )
    if royal.crown_hundredths is not None:
        royal_proto.crown_hundredths = royal.crown_hundredths
    pairs = rules.pairs
    preset = pb.ANY_PAIR if pairs.pair_hundredths is not None else pb.PERFECT_PAIRS
    pays = {
        outcome: getattr(pairs, field)
        for outcome, field in _PAIRS_FIELDS.items()
        if getattr(pairs, field) is not None
    }
    return pb.BlackjackRules(
        dealer_rule=pb.DealerRule.Value(rules.rule.value),
        shuffle_mode=pb.ShuffleMode.Value(rules.mode.value),
        royal_match=royal_proto,
        pairs=pb.PairsPaytable(preset=preset, pays_hundredths=pays),
        seats=rules.seats,
    )


#: game → its rules object → the rules message (the inverse of ``RULES_FROM_PROTO``)
RULES_TO_PROTO: Final[dict[Game, Callable[[object], Message]]] = {
    Game.HILO: _hilo_proto,
    Game.GOA_GAE: _goagae_proto,
    Game.BLACKJACK: _blackjack_proto,
}


def config_to_proto(table_id: str, config: TableConfig) -> pb.OpenTableRequest:
    """The OpenTable request that opens ``config`` (defaults filled in) again: for every
    configured table, ``config_from_proto`` of it configures to an equal config."""
    request = pb.OpenTableRequest(
        table_id=table_id,
        game=int(config.game),  # type: ignore[arg-type]
        decks=config.decks,
    )
    if config.rules is not None:
        field, _ = RULES_FROM_PROTO[config.game]
        getattr(request, field).CopyFrom(RULES_TO_PROTO[config.game](config.rules))
    return request


def answer_quote(request: pb.QuoteRequest) -> pb.QuoteResponse:
    """The answer to a Quote: the prices and odds of a table in that state, with no table.
    The service and the offline ``pricing quote`` both answer through here."""
    config = config_from_proto(request.game, request.decks, request)
    adapter = adapter_for(config.game)
    config = adapter.configure(config)
    shoe = CARDS_PER_DECK * config.decks
    seen = len(request.exposed) + bool(request.dealer_up_card)
    if seen > shoe:
        # Checked before any card is read: the work a quote costs is bounded by its shoe.
        raise InvalidInput(
            f"a quote of a {config.decks}-deck shoe takes at most {shoe} cards, got {seen}",
            field="exposed",
        )
    try:
        view = adapter.quote(config, list(request.exposed), request.dealer_up_card or None)
    except IllegalMove as exc:
        # The request alone is contradictory (a card twice in a one-deck quote): whatever the
        # state of the server, it is a bad argument.
        raise InvalidInput(str(exc), field="exposed") from None
    return quote_to_proto(config.game, view)


def config_from_proto(
    game_value: int, decks: int, request: pb.OpenTableRequest | pb.QuoteRequest
) -> TableConfig:
    """The table config an OpenTable or Quote request asks for (defaults not filled in)."""
    game = game_from_proto(game_value)
    adapter_for(game)  # UNIMPLEMENTED before anything else if the game is not in this build
    chosen = request.WhichOneof("rules")
    if chosen is None:
        return TableConfig(game, decks, None)
    field, convert = RULES_FROM_PROTO[game]  # every Game has its rules message
    if chosen != field:
        raise InvalidOption(f"rules {chosen!r} were sent for a {game.name} table")
    return TableConfig(game, decks, convert(getattr(request, field)))


# ---- The dealer feed's events --------------------------------------------------------------


def _words(name: str) -> str:
    """``CardRole`` as a message names it: "card role"."""
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()


def _same(value: Any) -> Any:
    return value


def _enum_from_wire(enum: type[Enum]) -> Callable[[int], Enum]:
    """How a proto enum's number becomes ``enum``'s member (the proto enum of the same name,
    members by name); ``InvalidInput`` naming the number and the members otherwise."""
    wire = getattr(pb, enum.__name__)
    members = {wire.Value(member.name): member for member in enum}
    names = list(enum.__members__)
    valid = f"{', '.join(names[:-1])} or {names[-1]}"

    def convert(value: int) -> Enum:
        member = members.get(value)
        if member is None:
            shown = wire.Name(value) if value == 0 else value
            raise InvalidInput(f"{_words(enum.__name__)} {shown} is not valid: send {valid}")
        return member

    return convert


@dataclass(frozen=True, slots=True)
class _Field:
    """One field of a feed event and its request: its name, and how its value crosses."""

    name: str
    from_wire: Callable[[Any], object]
    to_wire: Callable[[Any], object]
    enum: bool = False


def _field(name: str, hint: object) -> _Field:
    """The field ``name`` of type ``hint``: a ``Card`` is its text, an ``Enum`` the proto
    enum of the same name, anything else (a number) as it is."""
    if hint is Card:
        return _Field(name, parse_card, str)
    if isinstance(hint, type) and issubclass(hint, Enum):
        to_wire = {member: getattr(pb, hint.__name__).Value(member.name) for member in hint}
        return _Field(name, _enum_from_wire(hint), to_wire.__getitem__, enum=True)
    return _Field(name, _same, _same)


@dataclass(frozen=True, slots=True)
class FeedKind:
    """One kind of dealer feed event on the wire, derived from its record class (a
    ``FeedEvent``) and the proto: its ``DealerService`` method (the class's name), its request
    message (``<name>Request``: ``table_id``, ``seq`` and the record's fields, by name) and its
    field of ``FeedRequest``'s ``event`` oneof."""

    name: str
    record: type[FeedEvent]
    request: Any  # the generated message class
    field: str
    fields: tuple[_Field, ...]  # the record's, enums first: the order they are checked in

    def event(self, request: Message) -> FeedEvent:
        """The event a request (or a journaled body) asks for; ``InvalidInput`` naming a bad
        value (an enum field's before the others')."""
        values = {}
        for f in self.fields:
            try:
                values[f.name] = f.from_wire(getattr(request, f.name))
            except InvalidInput as exc:
                # The field that held the bad value (a card parser knows none): a client
                # program is told it without reading the message.
                if exc.field is None:
                    exc.field = f.name
                raise
        return self.record(**values)

    def body(self, event: FeedEvent) -> Message | None:
        """The request without table id and seq that ``event`` reads back from; ``None`` for a
        kind with no fields (its body is empty)."""
        if not self.fields:
            return None
        message: Message = self.request(
            **{f.name: f.to_wire(getattr(event, f.name)) for f in self.fields}
        )
        return message


def _feed_kinds() -> dict[str, FeedKind]:
    oneof = pb.FeedRequest.DESCRIPTOR.oneofs_by_name["event"]
    kinds = {}
    for field in oneof.fields:
        assert field.message_type is not None  # a oneof of messages
        message = field.message_type.name
        name = message.removesuffix("Request")
        record = FeedEvent.KINDS.get(name)
        if record is None:
            raise ImportError(f"FeedRequest.{field.name} carries {message}: no FeedEvent {name}")
        hints = typing.get_type_hints(record)
        fields = [_field(f.name, hints[f.name]) for f in dataclasses.fields(record)]  # type: ignore[arg-type]
        # An enum field is checked first: a request with a bad role and a bad card is told of
        # its role, as it always was.
        fields.sort(key=lambda f: not f.enum)
        kinds[name] = FeedKind(name, record, getattr(pb, message), field.name, tuple(fields))
    unsent = set(FeedEvent.KINDS) - set(kinds)
    if unsent:
        raise ImportError(f"FeedEvent kinds with no FeedRequest field: {sorted(unsent)}")
    return kinds


#: Every kind of feed event, by name (``ExposeCard``), in the order of ``FeedRequest``'s fields.
FEED_KINDS: Final[Mapping[str, FeedKind]] = _feed_kinds()
#: The same kinds by their ``FeedRequest`` field (``expose_card``).
FEED_FIELDS: Final[Mapping[str, FeedKind]] = {k.field: k for k in FEED_KINDS.values()}


def feed_kind(event: FeedEvent) -> FeedKind:
    return FEED_KINDS[type(event).__name__]


def _prices(view: GameView) -> list[pb.BetPrice]:
    return [_price(p) for p in view.prices.values()]


def _price(p: BetPrice) -> pb.BetPrice:
    return pb.BetPrice(
        bet=p.bet,
        wins=p.wins,
        remaining=p.remaining,
        probability=p.probability,
        payout_hundredths=p.payout_hundredths,
        open=p.open,
        clamped=p.clamped,
    )


def _extras(view: GameView, out: pb.TableState | pb.QuoteResponse) -> None:
    for sb in view.side_bets:
        out.side_bets.append(
            pb.SideBetOdds(
                bet=sb.bet,
                rtp=sb.rtp,
                player_favourable=sb.player_favourable,
                open=sb.open,
                outcomes=[
                    pb.SideBetOutcome(
                        name=o.name,
                        ways=o.ways,
                        total=o.total,
                        probability=o.ways / o.total if o.total else 0.0,
                        pays_hundredths=o.pays_hundredths,
                    )
                    for o in sb.outcomes
                ],
            )
        )
    if view.insurance is not None:
        ins = view.insurance
        out.insurance.CopyFrom(
            pb.InsuranceOdds(
                offered=ins.offered,
                probability=ins.probability,
                rtp=ins.rtp,
                player_favourable=ins.player_favourable,
            )
        )
    if view.dealer_outcomes is not None:
        d = view.dealer_outcomes
        out.dealer_outcomes.CopyFrom(
            pb.DealerOutcomes(
                up_card=d.up_card,
                rule=pb.DealerRule.Value(d.rule),
                outcomes=[pb.DealerOutcome(name=n, probability=p) for n, p in d.outcomes],
            )
        )


def _seats(seats: Sequence[SeatView]) -> list[pb.SeatCards]:
    return [pb.SeatCards(seat=s.seat, cards=[str(c) for c in s.cards]) for s in seats]


def snapshot_to_proto(snap: Snapshot) -> pb.TableState:
    view = snap.view
    state = pb.TableState(
        table_id=snap.table_id,
        game=int(snap.game),  # type: ignore[arg-type]
        version=snap.version,
        shoe=view.shoe,
        phase=int(snap.phase),  # type: ignore[arg-type]
        round_id=view.round_id,
        result_index=view.result_index,
        last_seq=snap.last_seq,
        exposed=[str(c) for c in view.exposed],
        cards_remaining=view.cards_remaining,
        prices=_prices(view),
        decks=snap.decks,
        seats=_seats(view.seats),
    )
    if view.ended is not None:
        e = view.ended
        state.ended_round.CopyFrom(
            pb.RoundResult(
                round_id=e.round_id,
                result_index=e.result_index,
                void=e.void,
                result_card=" ".join(str(c) for c in e.result),
                result_cards=[str(c) for c in e.result],
                seats=_seats(e.seats),
            )
        )
    _extras(view, state)
    return state


def summary_to_proto(snap: Snapshot, seats: int, watchers: int) -> pb.TableSummary:
    """A table as the lobby (ListTables) lists it."""
    return pb.TableSummary(
        table_id=snap.table_id,
        game=int(snap.game),  # type: ignore[arg-type]
        decks=snap.decks,
        phase=int(snap.phase),  # type: ignore[arg-type]
        version=snap.version,
        cards_remaining=snap.view.cards_remaining,
        closed=snap.closed,
        watchers=watchers,
        seats=seats,
    )


def quote_to_proto(game: Game, view: GameView) -> pb.QuoteResponse:
    response = pb.QuoteResponse(
        game=int(game),  # type: ignore[arg-type]
        cards_remaining=view.cards_remaining,
        prices=_prices(view),
    )
    _extras(view, response)
    return response


_STATUS: Final = {
    "PENDING": pb.Settlement.PENDING,
    "WIN": pb.Settlement.WIN,
    "LOSE": pb.Settlement.LOSE,
    "VOID": pb.Settlement.VOID,
}


def settlement_to_proto(settlement: Settlement, request: pb.SettleRequest) -> pb.Settlement:
    return pb.Settlement(
        status=_STATUS[settlement.status.value],
        payout_hundredths=settlement.payout_hundredths,
        returned_cents=settlement.returned_cents,
        result_card=" ".join(str(c) for c in settlement.result),
        result_cards=[str(c) for c in settlement.result],
        outcome=settlement.outcome,
        round_id=request.round_id,
        version=request.version,
        bet=request.bet,
        stake_cents=request.stake_cents,
        seat=settlement.seat,
    )
