"""Positions (docs/rules.md §6.3): the arithmetic against an independent reference
(``tests/support/reference/position_ref.py``) over random stakes, prices, outcomes, collects
and caps, its invariants, and a table's legs settled as its bets are."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.cards import parse_card
from pricing.errors import IllegalMove, InvalidInput
from pricing.games.higher_lower import HigherLowerRules
from pricing.payout import MAX_HUNDREDTHS
from pricing.tables import (
    MAX_LEGS,
    CardRole,
    ExposeCard,
    Game,
    LegOutcome,
    PositionLeg,
    PositionSettlement,
    SettleStatus,
    StaleBet,
    TableConfig,
    Tables,
    settle_position,
)
from pricing.tables.positions import MAX_VALUE_CENTS, position_steps, step
from tests.support.effort import effort
from tests.support.reference.position_ref import (
    RefLeg,
    RefPosition,
    RefRow,
    Refused,
    ride,
    value_after,
)

#: Outcomes of a leg, a win most often so that long rides (and the cap) are common.
STATUSES = ("WIN", "WIN", "WIN", "WIN", "VOID", "LOSE", "PENDING")


def _run(stake: int, cap: int, ref_legs: list[RefLeg]) -> PositionSettlement | Refused:
    """The code under test on the reference's legs (rounds 1, 2, …), a refusal as the
    reference writes it."""
    legs = [PositionLeg(i + 1, i + 1, "HIGHER", leg.collect) for i, leg in enumerate(ref_legs)]
    said = {
        leg.round_id: LegOutcome(SettleStatus[ref.status], ref.payout)
        for leg, ref in zip(legs, ref_legs, strict=True)
    }
    try:
        return settle_position(stake, legs, cap, lambda i, leg: said[leg.round_id])
    except InvalidInput as exc:
        assert exc.field is not None and exc.field in str(exc), str(exc)
        return Refused("invalid", exc.field)
    except IllegalMove as exc:
        index = str(exc).split("]")[0].removeprefix("legs[")
        return Refused("illegal", index)


def _as_reference(p: PositionSettlement | Refused) -> RefPosition | Refused:
    if isinstance(p, Refused):
        return p
    rows = tuple(
        RefRow(
            leg.status.name,
            leg.stake_cents,
            leg.value_cents,
            leg.capped,
            leg.collected_cents,
            leg.riding_cents,
        )
        for leg in p.legs
    )
    return RefPosition(p.status.name, rows, p.collected_cents, p.riding_cents)


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, int, list[RefLeg]]:
    """A stake, a cap (0: none; sometimes under the stake) and legs whose collects are mostly
    valid: none, a part, all of the value, or (rarely) more, or on a leg that collects nothing."""
    stake = draw(st.one_of(st.integers(1, 1000), st.integers(1, 10**12)))
    cap = draw(
        st.one_of(
            st.just(0),
            st.integers(stake, stake * 50),
            st.integers(1, 10**13),
            st.just(2**64 + 5),
        )
    )
    legs = []
    riding = stake
    for _ in range(draw(st.integers(1, 8))):
        status = draw(st.sampled_from(STATUSES))
        payout = draw(st.one_of(st.integers(0, 300), st.integers(0, MAX_HUNDREDTHS)))
        value, _ = value_after(riding, status, payout, cap)
        how = draw(st.sampled_from(["none"] * 4 + ["part"] * 4 + ["all", "over", "any"]))
        collect = {
            "none": 0,
            "part": draw(st.integers(0, value)),
            "all": value,
            "over": value + 1,
            "any": draw(st.integers(0, 10**14)),
        }[how]
        if status in ("LOSE", "PENDING") and how != "any":
            collect = 0
        legs.append(RefLeg(status, payout, collect))
        riding = value - min(collect, value)
    return stake, cap, legs


@pytest.mark.slow
@settings(max_examples=effort(suite=200, exhaustive=2_000), deadline=None)
@given(positions())
def test_a_position_is_what_the_reference_says(position: tuple[int, int, list[RefLeg]]) -> None:
    stake, cap, legs = position
    assert _as_reference(_run(stake, cap, legs)) == ride(stake, cap, legs)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(positions(), st.integers(1, 3))
def test_a_position_settled_in_steps_is_the_same_position(
    position: tuple[int, int, list[RefLeg]], every: int
) -> None:
    """The server settles a long position a few legs a step (``position_steps``): the same
    answer or the same refusal, each leg's outcome asked once, in order, and a step yielded
    after every ``every`` legs read."""
    stake, cap, ref_legs = position
    legs = [PositionLeg(i + 1, i + 1, "HIGHER", leg.collect) for i, leg in enumerate(ref_legs)]
    asked: list[int] = []

    def outcome(i: int, leg: PositionLeg) -> LegOutcome:
        asked.append(i)
        ref = ref_legs[i]
        return LegOutcome(SettleStatus[ref.status], ref.payout)

    whole: object
    try:
        whole = settle_position(stake, legs, cap, outcome)
    except (InvalidInput, IllegalMove) as exc:
        whole = (type(exc), str(exc))
    asked_whole, asked[:] = list(asked), []
    steps = position_steps(stake, legs, cap, outcome, every=every)
    yielded = 0
    stepped: object
    try:
        while (settled := step(steps)) is None:
            yielded += 1
        stepped = settled
    except (InvalidInput, IllegalMove) as exc:
        stepped = (type(exc), str(exc))
    assert stepped == whole
    assert asked == asked_whole == list(range(len(asked)))
    assert yielded == max(0, len(asked) - 1) // every


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(positions())
def test_a_position_never_makes_money_from_nothing(
    position: tuple[int, int, list[RefLeg]],
) -> None:
    """Collected + riding is at most the stake grown by every leg won, the value never passes
    the cap, a void leg changes nothing, and what rides is the value less the collect."""
    stake, cap, legs = position
    p = _run(stake, cap, legs)
    if isinstance(p, Refused):
        return
    bound = Fraction(stake)
    for leg in p.legs:
        assert leg.riding_cents == leg.value_cents - leg.collected_cents
        assert 0 <= leg.riding_cents <= leg.value_cents <= MAX_VALUE_CENTS
        if cap:
            assert leg.value_cents <= cap and leg.riding_cents <= cap, (leg, cap)
        if leg.status is SettleStatus.WIN:
            bound *= 1 + Fraction(leg.payout_hundredths, 100)
            assert leg.value_cents >= leg.stake_cents  # a win never makes a position smaller
        if leg.status is SettleStatus.VOID:
            assert (leg.value_cents, leg.capped) == (leg.stake_cents, False)
    assert p.collected_cents + p.riding_cents <= math.floor(bound)
    # all it pays fits the cap and the wire, however the collects are spread
    assert p.collected_cents + p.riding_cents <= min(cap or MAX_VALUE_CENTS, MAX_VALUE_CENTS)
    assert p.collected_cents == sum(leg.collected_cents for leg in p.legs)
    if p.status is SettleStatus.LOSE:
        assert p.riding_cents == 0


def test_values_leg_by_leg_floor_the_profit_and_cut_to_the_cap() -> None:
    # 1001 at 1.50: 1001 + floor(1501.5) = 2502; then at 0.33 on 2000: 2000 + 660 = 2660, cut to
    # what is left of the 2600 cap after 502 collected, 2098: collected whole.
    p = _run(1001, 2600, [RefLeg("WIN", 150, 500), RefLeg("VOID", 0, 2), RefLeg("WIN", 33, 7)])
    assert isinstance(p, PositionSettlement)
    rows = [(leg.value_cents, leg.capped, leg.collected_cents, leg.riding_cents) for leg in p.legs]
    assert rows == [(2502, False, 500, 2002), (2002, False, 2, 2000), (2098, True, 2098, 0)]
    assert (p.status, p.collected_cents, p.riding_cents) == (SettleStatus.WIN, 2600, 0)


def test_partial_collects_do_not_get_round_the_cap() -> None:
    """The cap is on all a position pays: 100 at 8.90 is 990 under a 1000 cap; 890 collected,
    100 rides and wins 990 again, but only 110 is left of the cap."""
    p = _run(100, 1000, [RefLeg("WIN", 890, 890), RefLeg("WIN", 890)])
    assert isinstance(p, PositionSettlement)
    assert [(leg.value_cents, leg.capped) for leg in p.legs] == [(990, False), (110, True)]
    assert p.collected_cents + p.riding_cents == 1000
    # a collect over a capped leg's value is refused as anywhere else
    assert _run(100, 1000, [RefLeg("WIN", 890, 890), RefLeg("WIN", 890, 111)]) == Refused(
        "invalid", "legs[1].collect_cents"
    )
    # and a stake the cap leaves nothing to win on
    assert _run(1000, 1000, [RefLeg("WIN", 100)]) == Refused("invalid", "stake_cents")


def test_a_value_exactly_on_the_cap_is_collected_and_ends_the_position() -> None:
    # 1000 at 1.00 is 2000, exactly the cap: nothing more can be won, so nothing rides on.
    p = _run(1000, 2000, [RefLeg("WIN", 100)])
    assert isinstance(p, PositionSettlement)
    assert (p.legs[0].capped, p.collected_cents, p.riding_cents) == (True, 2000, 0)
    refused = _run(1000, 2000, [RefLeg("WIN", 100), RefLeg("WIN", 50)])
    assert refused == Refused("illegal", "1")
    # one cent under the cap still rides
    p = _run(1000, 2001, [RefLeg("WIN", 100), RefLeg("WIN", 50)])
    assert isinstance(p, PositionSettlement)
    assert [leg.capped for leg in p.legs] == [False, True]


def test_no_cap_is_the_wire_s_largest_value() -> None:
    legs = [RefLeg("WIN", MAX_HUNDREDTHS)] * 2
    p = _run(10**12, 0, legs)
    assert isinstance(p, PositionSettlement)
    assert p.collected_cents == MAX_VALUE_CENTS and p.legs[-1].capped
    assert not p.legs[0].capped


@pytest.mark.parametrize(
    ("stake", "cap", "legs", "field", "fragment"),
    [
        (0, 0, [RefLeg("WIN", 100)], "stake_cents", "got 0"),
        (10**12 + 1, 0, [RefLeg("WIN", 100)], "stake_cents", "1000000000000"),
        (5000, 4000, [RefLeg("WIN", 100)], "stake_cents", "max_position_payout_cents 4000"),
        (100, 0, [], "legs", "got 0"),
        (100, 0, [RefLeg("VOID", 0)] * (MAX_LEGS + 1), "legs", "got 1001"),
        (100, 0, [RefLeg("WIN", 100, 201)], "legs[0].collect_cents", "value after leg 0: 200"),
        (100, 0, [RefLeg("LOSE", 100, 1)], "legs[0].collect_cents", "must be 0"),
        (100, 0, [RefLeg("PENDING", 100, 1)], "legs[0].collect_cents", "must be 0"),
        (100, 0, [RefLeg("WIN", 100, 200), RefLeg("WIN", 1)], "legs[0].collect_cents", "legs[1]"),
    ],
)
def test_a_malformed_position_is_refused_naming_its_field(
    stake: int, cap: int, legs: list[RefLeg], field: str, fragment: str
) -> None:
    refused = _run(stake, cap, legs)
    assert refused == Refused("invalid", field)
    with pytest.raises(InvalidInput) as info:
        settle_position(
            stake,
            [PositionLeg(i + 1, i + 1, "HIGHER", leg.collect) for i, leg in enumerate(legs)],
            cap,
            lambda i, leg: LegOutcome(SettleStatus[legs[i].status], legs[i].payout),
        )
    assert info.value.field == field and fragment in str(info.value), str(info.value)


def test_rounds_must_go_forward_and_nothing_follows_a_lost_leg() -> None:
    def win(i: int, leg: PositionLeg) -> LegOutcome:
        return LegOutcome(SettleStatus.WIN, 100)

    with pytest.raises(InvalidInput, match=r"legs\[1\].round_id 3 must be after") as info:
        settle_position(100, [PositionLeg(3, 5, "HIGHER"), PositionLeg(3, 9, "LOWER")], 0, win)
    assert info.value.field == "legs[1].round_id"
    with pytest.raises(IllegalMove, match=r"legs\[2\] \(round 7\) follows a lost leg"):
        settle_position(
            100,
            [PositionLeg(1, 1, "A"), PositionLeg(4, 5, "B"), PositionLeg(7, 9, "C")],
            0,
            lambda i, leg: LegOutcome(SettleStatus.LOSE if i == 1 else SettleStatus.WIN, 100),
        )


def test_legs_after_a_pending_leg_are_not_read() -> None:
    asked: list[int] = []

    def outcome(i: int, leg: PositionLeg) -> LegOutcome:
        asked.append(i)
        return LegOutcome(SettleStatus.PENDING if i == 1 else SettleStatus.WIN, 50)

    legs = [PositionLeg(r, r, "HIGHER") for r in (1, 2, 3)]
    p = settle_position(100, legs, 0, outcome)
    assert asked == [0, 1] and len(p.legs) == 2
    assert (p.status, p.riding_cents, p.legs[1].value_cents) == (SettleStatus.PENDING, 150, 150)


# -- a table's legs are its bets --------------------------------------------------------------


def _higher_lower(cap: int = 0) -> tuple[Tables, list[int]]:
    """A Higher/Lower table: base 7S, then round 1 decided by 9H (HIGHER wins), round 2 open.
    The versions each round was open for betting at."""
    tables = Tables()
    rules = HigherLowerRules(max_position_payout_cents=cap)
    tables.open("hl", TableConfig(Game.HIGHER_LOWER, 0, rules))
    cards = [("7S", CardRole.RESULT), *[(c, CardRole.BURN) for c in ("2S", "3S", "4S")]]
    cards.append(("9H", CardRole.RESULT))
    opened = []
    for seq, (card, role) in enumerate(cards, start=1):
        snap = tables.apply("hl", seq, ExposeCard(parse_card(card), role))
        if role is CardRole.RESULT:
            opened.append(snap.version)
    return tables, opened


def test_a_leg_is_refused_as_its_bet_would_be_naming_the_leg() -> None:
    tables, (v1, v2) = _higher_lower()
    table = tables.get("hl")
    settled = table.settle(1, v1, "HIGHER", 1000)
    p = table.settle_position(1000, [PositionLeg(1, v1, "HIGHER"), PositionLeg(2, v2, "LOWER")])
    assert p.legs[0].value_cents == settled.returned_cents
    assert p.legs[0].result == settled.result and p.status is SettleStatus.PENDING
    with pytest.raises(InvalidInput) as info:
        table.settle_position(1000, [PositionLeg(1, v1, "PURPLE")])
    assert info.value.field == "legs[0].bet" and "legs[0]: unknown bet 'PURPLE'" in str(info.value)
    with pytest.raises(StaleBet) as stale:
        table.settle_position(1000, [PositionLeg(1, v1, "HIGHER"), PositionLeg(2, v1, "LOWER")])
    assert stale.value.why == "BETTING_CLOSED" and str(stale.value).startswith("legs[1]: ")
    with pytest.raises(InvalidInput) as zero:
        table.settle_position(1000, [PositionLeg(0, v1, "HIGHER")])
    assert zero.value.field == "legs[0].round_id"


def test_a_blackjack_side_bet_cannot_be_a_leg() -> None:
    tables = Tables()
    tables.open("bj", TableConfig(Game.BLACKJACK, 6))
    table = tables.get("bj")
    bet = table.snapshot.view.side_bets[0].bet
    with pytest.raises(InvalidInput) as info:
        table.settle_position(100, [PositionLeg(1, 1, bet)])
    assert info.value.field == "legs[0].bet" and "side bet" in str(info.value)
    assert bet in str(info.value)
