"""A table's configuration on the wire (``OpenTableRequest``, ``QuoteRequest``: the game, its
decks and its rules message) and as the tables hold it. The game-specific part is only how a
game's rules message becomes its engine's rules object (``RULES_FROM_PROTO``), which a new game
adds beside its adapter in ``pricing/tables/adapters/``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Final

from google.protobuf.message import Message

from pricing.errors import InvalidOption
from pricing.games import blackjack, goagae, higher_lower, hilo
from pricing.games.blackjack import library
from pricing.games.blackjack.decisions import MAX_SPLITS
from pricing.games.blackjack.library import Paytable
from pricing.games.blackjack.library.pairs import pairs as library_pairs
from pricing.games.blackjack.library.royal_match import royal_match
from pricing.games.blackjack.rounds import BlackjackOptions
from pricing.payout import PayRule
from pricing.tables import (
    Game,
    TableConfig,
    adapter_for,
)
from pricing.text import distinct_names, key_path, quoted
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import ProtoEnum, enum_number
from pricing.wire.rules_two_hands import (
    baccarat_from_proto,
    baccarat_to_proto,
    dragon_tiger_from_proto,
    dragon_tiger_to_proto,
)

__all__ = [
    "RULES_FROM_PROTO",
    "RULES_TO_PROTO",
    "config_from_proto",
    "config_to_proto",
    "game_from_proto",
]


def game_from_proto(value: int) -> Game:
    if value == pb.GAME_UNSPECIFIED:
        raise InvalidOption(
            "game is required: GAME_HILO, GAME_BLACKJACK, GAME_GOA_GAE, GAME_HIGHER_LOWER, "
            "GAME_BACCARAT or GAME_DRAGON_TIGER",
            field="game",
        )
    try:
        return Game(value)
    except ValueError:
        raise InvalidOption(f"unknown game {value}", field="game") from None


@contextmanager
def _within(path: str, what: str = "") -> Iterator[None]:
    """An option refused inside the request's message at ``path`` is named there: ``path``,
    then the field of that message the refusal names, if it names one (``PayRule``'s
    ``max_hundredths``); ``what`` goes before its message."""
    try:
        yield
    except InvalidOption as exc:
        field = path if exc.field is None else f"{path}.{exc.field}"
        raise InvalidOption(f"{what}{exc}", field=field) from None


def _pay_rule(name: str, rule: pb.PayRule, path: str) -> PayRule:
    """The rule of bet ``name``, sent at ``path`` in the request (``hilo.low``)."""
    with _within(path, f"paytable entry {name}: "):
        return PayRule(rule.rtp_bp, rule.min_hundredths, rule.max_hundredths)


def _named_rules(
    game: str, bets: Mapping[str, pb.PayRule], valid: tuple[str, ...], path: str
) -> dict[str, PayRule]:
    """Each bet's rule as the rules message's map ``bets`` (at ``path``) names it; an unknown
    name, two names for one bet or a bad rule is refused naming its key."""
    names = distinct_names(f"{game} bet", bets, field=path)
    given = {}
    for name, rule in bets.items():
        if names[name] not in valid:
            raise InvalidOption(
                f"unknown {game} bet {quoted(name)} in bets: expected one of {', '.join(valid)}",
                field=key_path(path, name),
            )
        given[names[name]] = _pay_rule(names[name], rule, key_path(path, name))
    return given


def _hilo_rules(rules: Message) -> hilo.HiLoPaytable:
    assert isinstance(rules, pb.HiLoRules)
    given = {
        bet: _pay_rule(bet, getattr(rules, bet.lower()), f"hilo.{bet.lower()}")
        for bet in hilo.BETS
        if rules.HasField(bet.lower())  # type: ignore[arg-type]
    }
    return hilo.HiLoPaytable.from_rules(given)


def _goagae_rules(rules: Message) -> goagae.GoaGaePaytable:
    assert isinstance(rules, pb.GoaGaeRules)
    given = _named_rules("Goa Gae", rules.bets, goagae.BETS, "goa_gae.bets")
    return goagae.GoaGaePaytable.from_rules(given)


_HIGHER_LOWER_SHUFFLES: Final[dict[int, str]] = {
    pb.SHUFFLE_MODE_DEPLETING: "DEPLETING",
    pb.SHUFFLE_MODE_CONTINUOUS: "CONTINUOUS",
}


def _higher_lower_rules(rules: Message) -> higher_lower.HigherLowerRules:
    """The rules message: one RTP for the bets ``bets`` leaves out (``rtp_bp``, 9670 when not
    sent, with the default clamp), the named bets' own rules, the shuffle, burns and cap."""
    assert isinstance(rules, pb.HigherLowerRules)
    base = higher_lower.DEFAULT_RULE
    if rules.HasField("rtp_bp"):
        try:
            base = PayRule(rules.rtp_bp, base.min_hundredths, base.max_hundredths)
        except InvalidOption as exc:
            raise InvalidOption(
                f"higher_lower.rtp_bp: {exc}", field="higher_lower.rtp_bp"
            ) from None
    given = {bet: base for bet in higher_lower.BETS}
    given |= _named_rules("Higher/Lower", rules.bets, higher_lower.BETS, "higher_lower.bets")
    shuffle = _enum_option(
        "higher_lower.shuffle_mode",
        pb.ShuffleMode,
        rules.shuffle_mode,
        _HIGHER_LOWER_SHUFFLES,
        "CONTINUOUS",
    )
    return higher_lower.HigherLowerRules(
        paytable=higher_lower.HigherLowerPaytable.from_rules(given),
        shuffle=higher_lower.ShuffleMode(shuffle),
        burns=rules.burns if rules.HasField("burns") else higher_lower.DEFAULT_BURNS,
        max_position_payout_cents=rules.max_position_payout_cents,
    )


def _enum_option(
    field: str, enum: ProtoEnum, value: int, names: Mapping[int, str], default: str
) -> str:
    """The option the rules enum ``field`` (its path in the request) chose (``default`` for
    its zero value)."""
    if value == 0:
        return default
    name = names.get(value)
    if name is None:
        valid = ", ".join(enum.Name(number) for number in names)
        raise InvalidOption(f"unknown {field} {value}: expected one of {valid}", field=field)
    return name


_DEALER_RULES: Final[dict[int, str]] = {pb.DEALER_RULE_S17: "S17", pb.DEALER_RULE_H17: "H17"}
_SHUFFLE_MODES: Final[dict[int, str]] = {
    pb.SHUFFLE_MODE_DEPLETING: "DEPLETING",
    pb.SHUFFLE_MODE_CONTINUOUS: "CONTINUOUS",
}
_PAIRS_PRESETS: Final[dict[int, str]] = {
    pb.PAIRS_PRESET_PERFECT_PAIRS: "perfect-pairs",
    pb.PAIRS_PRESET_ANY_PAIR: "any-pair",
}
_PAIRS_FIELDS: Final = {
    "PAIR": "pair_hundredths",
    "PERFECT": "perfect_hundredths",
    "COLOURED": "coloured_hundredths",
    "MIXED": "mixed_hundredths",
}


_CROWN_TREASURE_HUNDREDTHS: Final = 100_000  # docs/rules.md §2: Crown Treasure pays 1000 : 1


def _royal_match(message: pb.RoyalMatchPaytable) -> Paytable:
    """The old ``royal_match`` field: each field sent replaces its default; a field left out
    keeps it."""
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
            "crown_enabled false: Crown Treasure is off, so it pays nothing of its own",
            field="blackjack.royal_match.crown_hundredths",
        )
    with _within("blackjack.royal_match"):
        table = blackjack.RoyalMatchPaytable(
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
    preset = "crown-treasure" if table.crown_treasure else "standard"
    return Paytable("ROYAL_MATCH", preset, table.pays())


def _pairs(message: pb.PairsPaytable) -> Paytable:
    """The old ``pairs`` field: a preset (default Perfect Pairs), its pays overridden by
    name."""
    preset = _enum_option(
        "blackjack.pairs.preset", pb.PairsPreset, message.preset, _PAIRS_PRESETS, "perfect-pairs"
    )
    table = blackjack.pairs_paytable(preset)
    pays = table.pays()
    overrides: dict[str, int] = {}
    sent_as: dict[str, str] = {}  # each overridden field of the paytable: the key it came in
    path = "blackjack.pairs.payout_hundredths"
    names = distinct_names("pairs outcome", message.payout_hundredths, field=path)
    for name, hundredths in message.payout_hundredths.items():
        outcome = names[name]
        if outcome not in pays:
            raise InvalidOption(
                f"pairs outcome {quoted(name)} is not in the {preset} paytable: expected one of "
                f"{', '.join(pays)}",
                field=key_path(path, name),
            )
        overrides[_PAIRS_FIELDS[outcome]] = hundredths
        sent_as[_PAIRS_FIELDS[outcome]] = name
    try:
        table = replace(table, **overrides) if overrides else table
    except InvalidOption as exc:
        exc.field = key_path(path, sent_as[exc.field]) if exc.field in sent_as else path
        raise
    return Paytable("PAIRS", preset, table.pays())


#: The bets the old ``royal_match`` and ``pairs`` fields set: each one's field, and the presets
#: it can ask for.
_OLD_FIELDS: Final = {
    "ROYAL_MATCH": ("royal_match", ("crown-treasure", "standard")),
    "PAIRS": ("pairs", tuple(_PAIRS_PRESETS.values())),
}


def _side_bets(rules: pb.BlackjackRules) -> tuple[Paytable, ...]:
    """The bets a table offers: ``side_bets``, and ``royal_match`` / ``pairs`` when sent; with
    neither, Royal Match and the pair bet as those fields set them."""
    offered: list[Paytable] = []
    names = distinct_names("side bet", rules.side_bets, field="blackjack.side_bets")
    for name, entry in rules.side_bets.items():
        bet = names[name]
        field = key_path("blackjack.side_bets", name)
        old = _OLD_FIELDS[bet][0] if bet in _OLD_FIELDS else None
        if old is not None and rules.HasField(old):  # type: ignore[arg-type]
            raise InvalidOption(
                f"side bet {bet} is set twice: in side_bets and in {old}; send it in one of them",
                field=field,
            )
        try:
            offered.append(library.paytable(bet, entry.preset, dict(entry.payout_hundredths)))
        except InvalidOption as exc:
            exc.field = field
            raise
    if rules.HasField("royal_match") or not rules.side_bets:
        offered.append(_royal_match(rules.royal_match))
    if rules.HasField("pairs") or not rules.side_bets:
        offered.append(_pairs(rules.pairs))
    return tuple(offered)


def _max_splits(rules: pb.BlackjackRules, default: int) -> int:
    """``max_splits`` as sent (explicit presence: not sent is the default), checked here so
    the refusal names the field and the value."""
    if not rules.HasField("max_splits"):
        return default
    if not 1 <= rules.max_splits <= MAX_SPLITS:
        raise InvalidOption(
            f"max_splits {rules.max_splits} is not allowed: send 1 to {MAX_SPLITS} (a pair "
            f"becomes at most max_splits + 1 hands; not sent: {default})",
            field="blackjack.max_splits",
        )
    return rules.max_splits


def _blackjack_rules(rules: Message) -> BlackjackOptions:
    assert isinstance(rules, pb.BlackjackRules)
    default = BlackjackOptions()
    return BlackjackOptions(
        rule=blackjack.DealerRule(
            _enum_option(
                "blackjack.dealer_rule",
                pb.DealerRule,
                rules.dealer_rule,
                _DEALER_RULES,
                default.rule.value,
            )
        ),
        mode=blackjack.ShoeMode(
            _enum_option(
                "blackjack.shuffle_mode",
                pb.ShuffleMode,
                rules.shuffle_mode,
                _SHUFFLE_MODES,
                default.mode.value,
            )
        ),
        side_bets=_side_bets(rules),
        seats=rules.seats or default.seats,  # 0: the default (the adapter checks the range)
        double_after_split=(
            rules.double_after_split
            if rules.HasField("double_after_split")
            else default.double_after_split
        ),
        max_splits=_max_splits(rules, default.max_splits),
        close_at_rtp_bp=rules.close_at_rtp_bp,
    )


#: game → (name of its field in the ``rules`` oneof, its rules message → the engine's object)
RULES_FROM_PROTO: Final[dict[Game, tuple[str, Callable[[Message], object]]]] = {
    Game.HILO: ("hilo", _hilo_rules),
    Game.GOA_GAE: ("goa_gae", _goagae_rules),
    Game.BLACKJACK: ("blackjack", _blackjack_rules),
    Game.HIGHER_LOWER: ("higher_lower", _higher_lower_rules),
    Game.BACCARAT: ("baccarat", baccarat_from_proto),
    Game.DRAGON_TIGER: ("dragon_tiger", dragon_tiger_from_proto),
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


def _higher_lower_proto(rules: object) -> Message:
    assert isinstance(rules, higher_lower.HigherLowerRules)
    return pb.HigherLowerRules(
        shuffle_mode=enum_number(pb.ShuffleMode, rules.shuffle.value),  # type: ignore[arg-type]
        burns=rules.burns,
        max_position_payout_cents=rules.max_position_payout_cents,
        bets={bet: _pay_rule_proto(r) for bet, r in rules.paytable.rules().items()},
    )


def _blackjack_proto(rules: object) -> Message:
    assert isinstance(rules, BlackjackOptions)
    message = pb.BlackjackRules(
        dealer_rule=enum_number(pb.DealerRule, rules.rule.value),  # type: ignore[arg-type]
        shuffle_mode=enum_number(pb.ShuffleMode, rules.mode.value),  # type: ignore[arg-type]
        seats=rules.seats,
    )
    # The main game's split rules only when they are not the defaults: a table opened before
    # they existed is journaled with the same bytes as then, and folds to the same options.
    default = BlackjackOptions()
    if rules.double_after_split != default.double_after_split:
        message.double_after_split = rules.double_after_split
    if rules.max_splits != default.max_splits:
        message.max_splits = rules.max_splits
    message.close_at_rtp_bp = rules.close_at_rtp_bp  # 0, the default, is not written
    bets = {table.bet: table for table in rules.side_bets}
    old = set(bets) == set(_OLD_FIELDS) and all(
        bets[bet].preset in presets for bet, (_, presets) in _OLD_FIELDS.items()
    )
    if not old:  # every bet in side_bets, with its whole paytable
        for table in rules.side_bets:
            message.side_bets[table.bet].preset = table.preset
            message.side_bets[table.bet].payout_hundredths.update(table.pays)
        return message
    # The seed sheets' two bets, as tables opened before side_bets were written (the same
    # journal bytes as then).
    royal = royal_match(bets["ROYAL_MATCH"])
    royal_proto = pb.RoyalMatchPaytable(
        royal_hundredths=royal.royal_hundredths,
        easy_hundredths=royal.easy_hundredths,
        crown_enabled=royal.crown_hundredths is not None,
    )
    if royal.crown_hundredths is not None:
        royal_proto.crown_hundredths = royal.crown_hundredths
    pairs = library_pairs(bets["PAIRS"])
    preset = (
        pb.PAIRS_PRESET_ANY_PAIR
        if pairs.pair_hundredths is not None
        else pb.PAIRS_PRESET_PERFECT_PAIRS
    )
    pays = {
        outcome: getattr(pairs, field)
        for outcome, field in _PAIRS_FIELDS.items()
        if getattr(pairs, field) is not None
    }
    message.royal_match.CopyFrom(royal_proto)
    message.pairs.CopyFrom(pb.PairsPaytable(preset=preset, payout_hundredths=pays))
    return message


#: game → its rules object → the rules message (the inverse of ``RULES_FROM_PROTO``)
RULES_TO_PROTO: Final[dict[Game, Callable[[object], Message]]] = {
    Game.HILO: _hilo_proto,
    Game.GOA_GAE: _goagae_proto,
    Game.BLACKJACK: _blackjack_proto,
    Game.HIGHER_LOWER: _higher_lower_proto,
    Game.BACCARAT: baccarat_to_proto,
    Game.DRAGON_TIGER: dragon_tiger_to_proto,
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
        raise InvalidOption(
            f"rules {chosen!r} were sent for a GAME_{game.name} table", field=chosen
        )
    return TableConfig(game, decks, convert(getattr(request, field)))
