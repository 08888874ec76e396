"""The PAR sheets' simulations streamed (``pricing.analysis.par_shoe.RtpAccumulator``,
``par_simulated.SimulatedRtpAccumulator``, ``par_blackjack_main.MainAccumulator``): the same
figures as over lists of every round, exactly and bit for bit, in any order and shoe by shoe;
a sheet's memory that does not grow with its shoes; and at least two shoes for every simulated
sheet (a standard error needs two), in the builders, on the command line and over the RPC
(``tests/service/test_par_rpc.py``)."""

from __future__ import annotations

import io
import math
import random
import tracemalloc
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.analysis.par_blackjack import blackjack_par_sheet, simulate_shoes
from pricing.analysis.par_blackjack_main import MainAccumulator, main_simulation
from pricing.analysis.par_blackjack_play import PlayedRound
from pricing.analysis.par_games import two_hand_par_sheet
from pricing.analysis.par_shoe import RtpAccumulator, rtp_distribution
from pricing.analysis.par_simulated import SimulatedRtpAccumulator, simulated_distribution
from pricing.analysis.two_hands_sim import Cluster
from pricing.cli import main
from pricing.errors import InvalidOption
from pricing.games.blackjack.decisions import MainGameRules
from pricing.games.fixed_odds import SideBetOdds
from tests.support.effort import effort

#: A random state: a weight (0 allowed) and a bet winning ``wins`` of ``total`` at ``pay``.
STATE = st.tuples(
    st.fractions(min_value=0, max_value=5, max_denominator=6),
    st.integers(1, 6).flatmap(lambda t: st.tuples(st.just(t), st.integers(0, t))),
    st.integers(-100, 2000),
)


def odds_of(state: tuple[Fraction, tuple[int, int], int]) -> tuple[Fraction, SideBetOdds]:
    weight, (total, wins), pay = state
    return weight, SideBetOdds.from_ways("B", {"WIN": wins}, total, {"WIN": pay})


# --- The accumulators are the list-based figures -------------------------------------------


@settings(max_examples=effort(suite=40, exhaustive=400), deadline=None)
@given(
    states=st.lists(STATE, min_size=1, max_size=8),
    seed=st.integers(0, 2**32),
    close=st.sampled_from([0, 9_000, 10_000]),
    by_rtp=st.booleans(),
)
def test_the_accumulator_is_the_distribution_in_any_order(
    states: list[tuple[Fraction, tuple[int, int], int]], seed: int, close: int, by_rtp: bool
) -> None:
    pairs: list[tuple[Fraction, SideBetOdds | Fraction]] = [
        (w, o.rtp_fraction if by_rtp else o) for w, o in map(odds_of, states)
    ]
    shuffled = list(pairs)
    random.Random(seed).shuffle(shuffled)
    accumulator = RtpAccumulator(min_rtp=Fraction(1), close_at_rtp_bp=close)
    for weight, state in shuffled:
        accumulator.add(weight, state)
    try:
        want = rtp_distribution(pairs, min_rtp=Fraction(1), close_at_rtp_bp=close)
    except ValueError:
        with pytest.raises(ValueError, match="offered"):
            accumulator.result()
        return
    assert accumulator.result() == want
    assert accumulator.result() == want  # reading it changes nothing


@settings(max_examples=effort(suite=40, exhaustive=400), deadline=None)
@given(shoes=st.lists(st.lists(STATE, max_size=5), min_size=2, max_size=5))
def test_shoe_by_shoe_is_the_distribution_over_every_round(
    shoes: list[list[tuple[Fraction, tuple[int, int], int]]],
) -> None:
    dealt = [[odds_of(state) for state in shoe] for shoe in shoes]
    every = [state for shoe in dealt for state in shoe]
    if not any(w and o.open for w, o in every):
        return
    accumulator = SimulatedRtpAccumulator(min_rtp=Fraction(1))
    for shoe in dealt:
        accumulator.add_shoe(iter(shoe))  # read once
    distribution, error = accumulator.result()
    assert distribution == rtp_distribution(every, min_rtp=Fraction(1))
    assert (distribution, error) == simulated_distribution(dealt, min_rtp=Fraction(1))
    assert error.shoes == accumulator.shoes == len(shoes)


def test_one_shoe_gives_no_standard_error() -> None:
    win = SideBetOdds.from_ways("B", {"WIN": 1}, 2, {"WIN": 80})
    accumulator = SimulatedRtpAccumulator()
    accumulator.add_shoe([(1, win), (1, win)])
    with pytest.raises(ValueError, match="need 2 shoes"):
        accumulator.result()
    with pytest.raises(ValueError, match="need 2 shoes"):
        simulated_distribution([[(1, win)]])


def two_pass(played: list[list[PlayedRound]]) -> tuple[float, ...]:
    """The main game's figures as computed over lists of every round: the mean first, then
    each shoe's squared deviations from it."""
    n = sum(len(shoe) for shoe in played)
    mean = math.fsum(r.net_halves for shoe in played for r in shoe) / 2 / n
    net, square, stake = Cluster(), Cluster(), Cluster()
    for shoe in played:
        rounds = float(len(shoe))
        net.add(rounds, math.fsum(r.net_halves for r in shoe) / 2)
        square.add(rounds, math.fsum((r.net_halves / 2 - mean) ** 2 for r in shoe))
        stake.add(rounds, float(sum(r.staked for r in shoe)))
    sd = math.sqrt(square.ratio)
    return n, mean, net.se, sd, square.se / (2 * sd), stake.ratio, stake.se


def test_the_main_game_shoe_by_shoe_is_the_two_pass_figures_bit_for_bit() -> None:
    shoes = simulate_shoes(6, MainGameRules(), 40, 2026, 78)
    played = [[r.played for r in shoe if r.played is not None] for shoe in shoes]
    accumulator = MainAccumulator()
    for shoe in shoes:
        accumulator.add_shoe(r.played for r in shoe if r.played is not None)
    sim = accumulator.result()
    got = (sim.rounds, sim.mean, sim.mean_se, sim.standard_deviation,
           sim.standard_deviation_se, sim.staked, sim.staked_se)  # fmt: skip
    assert got == two_pass(played)  # equal floats, not close ones
    assert main_simulation(played) == sim
    with pytest.raises(InvalidOption, match="no round"):
        MainAccumulator().result()


# --- Memory that does not grow with the shoes -----------------------------------------------


def peak_bytes(build: Callable[[], object]) -> int:
    """The most memory Python held while ``build`` ran (``tracemalloc``)."""
    tracemalloc.start()
    try:
        build()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
@pytest.mark.parametrize(
    "build",
    [
        lambda shoes: two_hand_par_sheet("dragon-tiger", decks=1, shoes=shoes, seed=3),
        lambda shoes: blackjack_par_sheet(shoes=shoes, bet="PAIRS", preset="any-pair", decks=1,
                                          cut_card=13),
        lambda shoes: blackjack_par_sheet(shoes=shoes, bet="MAIN", decks=1, cut_card=13),
    ],
    ids=["dragon-tiger", "blackjack side bet", "blackjack main game"],
)  # fmt: skip
def test_a_sheets_memory_does_not_grow_with_its_shoes(build: Callable[[int], object]) -> None:
    # Four times the shoes: the rounds kept in lists took about four times the memory. What
    # still grows is the exact sums' denominators (as many as the states a shoe can be priced
    # in: they stop growing) and the main game's byte a round.
    build(2)  # caches and imports warmed up
    few, many = peak_bytes(lambda: build(20)), peak_bytes(lambda: build(80))
    assert many < 1.2 * few + 32 * 1024, (few, many)


# --- At least two shoes ---------------------------------------------------------------------


@pytest.mark.parametrize("shoes", [0, 1])
def test_every_simulated_sheet_needs_two_shoes(shoes: int) -> None:
    for build in (
        lambda: two_hand_par_sheet("baccarat", decks=1, shoes=shoes),
        lambda: two_hand_par_sheet("dragon-tiger", decks=1, shoes=shoes),
        lambda: blackjack_par_sheet(shoes=shoes, bet="PAIRS", preset="any-pair"),
    ):
        with pytest.raises(InvalidOption, match="at least 2 for a PAR sheet") as info:
            build()
        assert info.value.field == "shoes"


@pytest.mark.parametrize("game", ["baccarat", "dragon-tiger", "blackjack"])
def test_the_command_line_refuses_one_shoe(capsys: pytest.CaptureFixture[str], game: str) -> None:
    out = io.StringIO()
    assert main(["analyze", game, "--par", "--shoes", "1"], out) == 2
    assert not out.getvalue()
    assert (
        "--shoes must be at least 2 for a PAR sheet (its standard errors need two shoes)"
        in capsys.readouterr().err
    )
