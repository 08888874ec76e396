"""The fixed-paytable bets on the wire: ``pricing._wire.encode_fixed_bets``'s bytes decode to
exactly the messages a plain Python encoder makes (tests/support/reference/wire_ref.py), for
odds of every size — none, small, past 2**53 (where a double is no longer exact), past 2**64
(a dealer-drawing bet's totals) — signed pays, and both repeated fields of both messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing._wire import encode_fixed_bets
from pricing.games.fixed_odds import SideBetOdds
from pricing.tables.views import SideBetView
from pricing.v1 import pricing_pb2 as pb
from tests.support.effort import effort
from tests.support.reference.wire_ref import add_fixed_bet

_SIZES = st.one_of(
    st.integers(0, 60),
    st.integers(0, 2**53 + 10),
    st.integers(2**53 - 10, 2**64 + 10),
    st.integers(0, 2**80),
)
_PAYS = st.one_of(
    st.sampled_from([-100, -50, 0, 95, 100, 800, 5000, 25000]), st.integers(-100, 10**6)
)


@st.composite
def odds(draw: st.DrawFn) -> SideBetView:
    names = draw(
        st.lists(st.sampled_from(["WIN", "PUSH", "TIE_HALF_LOSS", "WIN_BY_9", "É"]), unique=True)
    )
    total = draw(_SIZES)
    ways = {name: draw(st.integers(0, total)) for name in names}
    total = max(total, sum(ways.values()))
    pays = {name: draw(_PAYS) for name in names}
    bet = draw(st.sampled_from(["PLAYER", "DRAGON_7", "ROYAL_MATCH", "X" * 40]))
    return SideBetView(
        bet,
        SideBetOdds.from_ways(bet, ways, total, pays),
        open=draw(st.booleans()),
        protected=draw(st.booleans()),
    )


@pytest.mark.slow
@settings(max_examples=effort(suite=100, exhaustive=1_000), deadline=None)
@given(side_bets=st.lists(odds(), max_size=6), round_odds=st.lists(odds(), max_size=6))
def test_the_bytes_decode_to_the_references_messages(
    side_bets: list[SideBetView], round_odds: list[SideBetView]
) -> None:
    for message in (pb.TableState(), pb.QuoteResponse()):
        fields = message.DESCRIPTOR.fields_by_name
        got = type(message)()
        got.MergeFromString(
            encode_fixed_bets(fields["side_bets"].number, side_bets)
            + encode_fixed_bets(fields["round_odds"].number, round_odds)
        )
        want = type(message)()
        for sb in side_bets:
            add_fixed_bet(want.side_bets, sb)
        for sb in round_odds:
            add_fixed_bet(want.round_odds, sb)
        assert got == want


def test_no_bets_are_no_bytes() -> None:
    assert encode_fixed_bets(15, []) == b""
