"""Baccarat's and Dragon Tiger's rules on the wire and in the journal (docs/rules.md §7, §8):
every rules object survives the rules message and its bytes (what the journal keeps of an
OpenTable) unchanged; a bad option is refused naming its field; the side bets come in the
game's order whatever the map's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.errors import InvalidOption
from pricing.games.baccarat import SIDE_BETS as BACCARAT_SIDE_BETS
from pricing.games.baccarat import Commission
from pricing.games.baccarat import paytable as baccarat_paytable
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.blackjack import ShoeMode
from pricing.games.dragon_tiger.bets import SIDE_BETS as DRAGON_TIGER_SIDE_BETS
from pricing.games.dragon_tiger.bets import paytable as dragon_tiger_paytable
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.games.fixed_odds import MAX_CLOSE_AT_RTP_BP
from pricing.tables import Game, TableConfig
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto, config_to_proto

_CLOSE = st.one_of(st.just(0), st.just(10_000), st.integers(0, MAX_CLOSE_AT_RTP_BP))


@st.composite
def baccarat_rules(draw: st.DrawFn) -> BaccaratRules:
    bets = draw(st.lists(st.sampled_from(BACCARAT_SIDE_BETS), unique=True))
    return BaccaratRules(
        commission=draw(st.sampled_from(list(Commission))),
        tie_pays=draw(st.sampled_from([8, 9])),
        side_bets=tuple(baccarat_paytable(b) for b in BACCARAT_SIDE_BETS if b in bets),
        close_at_rtp_bp=draw(_CLOSE),
        mode=draw(st.sampled_from(list(ShoeMode))),
    )


@st.composite
def dragon_tiger_rules(draw: st.DrawFn) -> DragonTigerRules:
    bets = draw(st.lists(st.sampled_from(DRAGON_TIGER_SIDE_BETS), unique=True))
    return DragonTigerRules(
        tie_pays=draw(st.sampled_from([8, 11])),
        side_bets=tuple(dragon_tiger_paytable(b) for b in DRAGON_TIGER_SIDE_BETS if b in bets),
        close_at_rtp_bp=draw(_CLOSE),
        mode=draw(st.sampled_from(list(ShoeMode))),
    )


def round_trip(config: TableConfig) -> TableConfig:
    request = config_to_proto("t", config)
    journaled = pb.OpenTableRequest.FromString(request.SerializeToString())
    return config_from_proto(journaled.game, journaled.decks, journaled)


@settings(max_examples=60, deadline=None)
@given(rules=baccarat_rules(), decks=st.integers(1, 8))
def test_baccarat_rules_survive_the_wire_and_the_journal(rules: BaccaratRules, decks: int) -> None:
    config = TableConfig(Game.BACCARAT, decks, rules)
    assert round_trip(config) == config


@settings(max_examples=60, deadline=None)
@given(rules=dragon_tiger_rules(), decks=st.integers(1, 8))
def test_dragon_tiger_rules_survive_the_wire_and_the_journal(
    rules: DragonTigerRules, decks: int
) -> None:
    config = TableConfig(Game.DRAGON_TIGER, decks, rules)
    assert round_trip(config) == config


def test_side_bets_come_in_the_games_order_whatever_the_maps() -> None:
    request = pb.OpenTableRequest(table_id="t", game=pb.GAME_BACCARAT)
    for bet in ("PANDA_8", "PLAYER_PAIR", "DRAGON_7"):
        request.baccarat.side_bets[bet].preset = ""
    config = config_from_proto(request.game, request.decks, request)
    assert isinstance(config.rules, BaccaratRules)
    order = [t.bet for t in config.rules.side_bets]
    assert order == sorted(order, key=BACCARAT_SIDE_BETS.index)


@pytest.mark.parametrize(
    ("rules", "field", "message"),
    [
        (pb.BaccaratRules(tie_pays=7), "baccarat.tie_pays", "tie_pays"),
        (pb.BaccaratRules(commission=99), "baccarat.commission", "COMMISSION_STANDARD"),
        (
            pb.BaccaratRules(close_at_rtp_bp=MAX_CLOSE_AT_RTP_BP + 1),
            "baccarat.close_at_rtp_bp",
            "basis",
        ),
        (pb.BaccaratRules(shuffle_mode=9), "baccarat.shuffle_mode", "SHUFFLE_MODE_DEPLETING"),
    ],
)
def test_a_bad_baccarat_option_is_refused_naming_its_field(
    rules: pb.BaccaratRules, field: str, message: str
) -> None:
    request = pb.OpenTableRequest(table_id="t", game=pb.GAME_BACCARAT, baccarat=rules)
    with pytest.raises(InvalidOption, match=message) as refused:
        config_from_proto(request.game, request.decks, request)
    assert refused.value.field == field


def test_a_side_bet_of_another_game_or_a_main_bet_is_refused_naming_its_key() -> None:
    for game, field, name in [
        (pb.GAME_BACCARAT, "baccarat", "SUITED_TIE"),
        (pb.GAME_BACCARAT, "baccarat", "BANKER"),
        (pb.GAME_DRAGON_TIGER, "dragon_tiger", "DRAGON_7"),
    ]:
        request = pb.OpenTableRequest(table_id="t", game=game)
        getattr(request, field).side_bets[name].preset = ""
        with pytest.raises(InvalidOption, match=name) as refused:
            config_from_proto(request.game, request.decks, request)
        assert refused.value.field is not None and name in refused.value.field
