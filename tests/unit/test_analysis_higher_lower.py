"""The exact Higher/Lower report: brute force on reduced shoes, the 6-deck figures pinned."""

from __future__ import annotations

import io
import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import pytest

from pricing.analysis.higher_lower import (
    HigherLowerReport,
    higher_lower_report,
    next_card_report,
    round_cards_out,
)
from pricing.cards import DECK, Card, Rank
from pricing.cli import main
from pricing.errors import InvalidOption
from pricing.games import higher_lower
from pricing.games.events import CardRole
from pricing.games.higher_lower import DEFAULT_PAYTABLE, HigherLowerShoe, ShuffleMode
from pricing.games.next_card import NextCardDeck, NextCardGame
from pricing.text import fraction_text

BOTH = (ShuffleMode.CONTINUOUS, ShuffleMode.DEPLETING)


def reduced(decks: int, *ranks: Rank) -> NextCardGame:
    """Higher/Lower's ten bets on a small shoe (bets on absent ranks are never offered)."""
    return NextCardGame(
        NextCardDeck(decks=decks, ranks=ranks), higher_lower.game(1).bets, close_over_par=True
    )


def shoe(nc: NextCardGame) -> list[Card]:
    """Every card of the shoe, each copy its own entry."""
    return [c for c in DECK if nc.deck.holds(c) for _ in range(nc.deck.decks)]


@dataclass
class Tally:
    """A brute-force count of one bet over equally likely states: ``returned`` sums each open
    state's expected return per unit staked."""

    states: int = 0
    offered: int = 0
    returned: Fraction = Fraction(0)
    pays: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    @property
    def given_offered(self) -> Fraction:
        return self.returned / self.offered if self.offered else Fraction(0)

    @property
    def closed(self) -> Fraction:
        return 1 - Fraction(self.offered, self.states)

    @property
    def distribution(self) -> dict[int, Fraction]:
        return {p: Fraction(n, self.states) for p, n in sorted(self.pays.items())}


class BruteForce:
    """Each state (cards out, base card) priced by the live engine (``price_counts``) and its
    return summed over every card that can come next (``NextCardGame.wins``)."""

    def __init__(self, nc: NextCardGame) -> None:
        self.nc = nc

    def value(self, out: tuple[int, ...], base: Card) -> dict[str, tuple[int, Fraction] | None]:
        """Per bet: ``(payout, expected return)`` when offered after the cards of deck indices
        ``out`` left the shoe, else ``None``."""
        counts = self.nc.deck.counts(DECK[i] for i in out)
        prices = self.nc.price_counts(counts, base, DEFAULT_PAYTABLE)
        left = sum(counts)
        result: dict[str, tuple[int, Fraction] | None] = {}
        for bet, price in prices.items():
            if not price.open:
                result[bet] = None
                continue
            wins = sum(
                n for c, n in zip(DECK, counts, strict=True) if n and self.nc.wins(bet, c, base)
            )
            pay = price.payout_hundredths
            result[bet] = (pay, Fraction(wins * (100 + pay), 100 * left))
        return result

    def tally(
        self, states: Iterator[tuple[list[Card], Card]]
    ) -> tuple[dict[str, Tally], dict[tuple[str, Card], Tally]]:
        """Per bet over ``states`` (each equally likely), and per bet and base card. States
        with the same cards out are priced once and counted as often as they come."""
        seen = Counter((tuple(sorted(c.index for c in out)), base) for out, base in states)
        total: dict[str, Tally] = defaultdict(Tally)
        by_base: dict[tuple[str, Card], Tally] = defaultdict(Tally)
        for (out, base), times in seen.items():
            for bet, value in self.value(out, base).items():
                for t in (total[bet], by_base[bet, base]):
                    t.states += times
                    if value is not None:
                        t.offered += times
                        t.returned += times * value[1]
                        t.pays[value[0]] += times
        return total, by_base


def ordered_prefixes(cards: list[Card], m: int) -> Iterator[tuple[list[Card], Card]]:
    """Every ordered draw of the first ``m`` cards (copies told apart): the cards out, and the
    last one, the base."""
    for prefix in itertools.permutations(cards, m):
        yield list(prefix), prefix[-1]


def base_and_others(cards: list[Card], m: int) -> Iterator[tuple[list[Card], Card]]:
    """The same draws grouped by order: each base card, and each set of the other ``m - 1``
    cards out (every set stands for its (m-1)! equally likely orders)."""
    for i, base in enumerate(cards):
        rest = cards[:i] + cards[i + 1 :]
        for others in itertools.combinations(rest, m - 1):
            yield [*others, base], base


def check_continuous(report: HigherLowerReport, force: BruteForce) -> None:
    cards = shoe(force.nc)
    total, by_base = force.tally(([base], base) for base in cards)
    assert report.continuous is not None
    for bet, r in report.continuous.items():
        expected = total[bet]
        assert r.overall.by_position == (expected.given_offered,), bet
        assert r.overall.closed == expected.closed, bet
        assert r.overall.distribution == expected.distribution, bet
        for group in r.by_base:
            for card in group.cards:
                own = by_base[bet, card]
                assert group.report.by_position == (own.given_offered,), (bet, card)
                assert group.report.closed == own.closed, (bet, card)
            assert group.probability == Fraction(
                len(group.cards), len(cards) // force.nc.deck.decks
            )


def check_depleting(
    report: HigherLowerReport, force: BruteForce, draws: type[object] | object = base_and_others
) -> None:
    cards = shoe(force.nc)
    assert report.depleting is not None
    per_round = [force.tally(draws(cards, m)) for m in report.cards_out]  # type: ignore[operator]
    for bet, r in report.depleting.items():
        rounds = [t[bet] for t, _ in per_round]
        assert r.overall.by_position == tuple(t.given_offered for t in rounds), bet
        assert r.overall.closed_by_position == tuple(t.closed for t in rounds), bet
        assert r.overall.distribution_by_position == tuple(t.distribution for t in rounds), bet
        live = [t.given_offered for t in rounds if t.offered]
        assert r.overall.rtp == (sum(live, Fraction(0)) / len(live) if live else 0), bet
        staked = sum(Fraction(t.offered, t.states) for t in rounds)
        if staked:
            returned = sum(t.returned / t.states for t in rounds)
            assert r.overall.per_offered_round == returned / staked, bet
        for group in r.by_base:
            for card in group.cards:
                own = tuple(b[bet, card].given_offered for _, b in per_round)
                assert group.report.by_position == own, (bet, card, group.label)


@pytest.mark.parametrize("burns", [0, 1])
def test_every_ordered_draw_of_an_8_card_shoe(burns: int) -> None:
    nc = reduced(1, Rank.TWO, Rank.ACE)
    report = next_card_report(nc, DEFAULT_PAYTABLE, burns=burns, modes=BOTH)
    force = BruteForce(nc)
    check_continuous(report, force)
    check_depleting(report, force, ordered_prefixes)


@pytest.mark.slow
@pytest.mark.parametrize("burns", [0, 1])
def test_every_draw_of_a_12_card_shoe(burns: int) -> None:
    nc = reduced(1, Rank.TWO, Rank.THREE, Rank.ACE)
    report = next_card_report(nc, DEFAULT_PAYTABLE, burns=burns, modes=BOTH)
    assert report.rounds == len(round_cards_out(12, burns)) == (11 if burns == 0 else 5)
    force = BruteForce(nc)
    check_continuous(report, force)
    check_depleting(report, force)


def test_every_draw_of_a_two_deck_shoe() -> None:
    """Copies of a card: the base's copies and the winners left are counted per copy."""
    nc = reduced(2, Rank.TWO, Rank.ACE)
    report = next_card_report(nc, DEFAULT_PAYTABLE, burns=2, modes=BOTH)
    assert report.cards_out == (1, 4, 7, 10, 13)
    force = BruteForce(nc)
    check_continuous(report, force)
    check_depleting(report, force)


@pytest.fixture(scope="module")
def six_decks() -> HigherLowerReport:
    return higher_lower_report()


@pytest.mark.slow
def test_continuous_prices_are_the_live_quotes(six_decks: HigherLowerReport) -> None:
    """Each base group's payout is what a continuous table quotes on each of its cards."""
    assert six_decks.continuous is not None
    for bet, r in six_decks.continuous.items():
        for group in r.by_base:
            for card in group.cards:
                shoe = HigherLowerShoe().expose(card, CardRole.RESULT)
                price = shoe.prices[bet]
                assert price.open == (group.report.closed == 0), (bet, card)
                if price.open:
                    assert price.payout_hundredths == group.report.min_payout, (bet, card)


def test_six_deck_continuous_figures(six_decks: HigherLowerReport) -> None:
    assert six_decks.continuous is not None
    by_label = {bet: {g.label: g for g in r.by_base} for bet, r in six_decks.continuous.items()}
    assert by_label["HIGHER"]["2"].report.min_payout == 5  # 1.05 for one
    assert by_label["HIGHER"]["A"].report.closed == 1
    assert by_label["SNAP"]["any"].report.min_payout == 1106
    assert by_label["SNAP"]["any"].winners == 23
    for bet, outside in [
        ("RANGE_2_5", "6 7 8 9 J Q K A"),
        ("RANGE_6_9", "2 3 4 5 J Q K A"),
        ("RANGE_J_A", "2 3 4 5 6 7 8 9"),
    ]:
        assert by_label[bet][outside].report.min_payout == 189
        assert by_label[bet][outside].probability == Fraction(2, 3)
    assert by_label["RED"]["red"].report.min_payout == 94
    assert by_label["RED"]["black"].report.min_payout == 92
    rtp = {bet: str(r.overall.rtp) for bet, r in six_decks.continuous.items()}
    assert rtp == {
        "HIGHER": "6924/7175",
        "LOWER": "6924/7175",
        "SNAP": "13869/14350",
        "RANGE_2_5": "20807/21525",
        "RANGE_6_9": "20807/21525",
        "RANGE_J_A": "20807/21525",
        "RED": "5539/5740",
        "BLACK": "5539/5740",
        "KING_OR_ACE": "3329/3444",
        "ACE": "55487/57400",
    }
    for r in six_decks.continuous.values():
        assert r.overall.rtp < Fraction(967, 1000)
        assert r.overall.per_offered_round == r.overall.rtp  # one position
    assert six_decks.continuous["HIGHER"].overall.closed == Fraction(1, 12)


#: Depleting, 6 decks, 3 burns: (RTP, per offered round, closed), to 12 decimals.
DEPLETING = {
    "HIGHER": (0.965118694873, 0.965120882194, 0.09369108897),
    "LOWER": (0.965118694873, 0.965120882194, 0.09369108897),
    "SNAP": (0.96657281193, 0.96658272227, 0.025957736502),
    "RANGE_2_5": (0.965397805416, 0.965398050276, 0.000979584964),
    "RANGE_6_9": (0.965397805416, 0.965398050276, 0.000979584964),
    "RANGE_J_A": (0.965397805416, 0.965398050276, 0.000979584964),
    "RED": (0.964607945254, 0.9646079234, 0.000216163955),
    "BLACK": (0.964607945254, 0.9646079234, 0.000216163955),
    "KING_OR_ACE": (0.966172983528, 0.96617633742, 0.007248728912),
    "ACE": (0.966566729169, 0.966576452834, 0.024520491246),
}


def test_six_deck_depleting_figures(six_decks: HigherLowerReport) -> None:
    assert six_decks.depleting is not None
    assert six_decks.rounds == 71
    assert six_decks.cards_out[:3] == (1, 5, 9) and six_decks.cards_out[-1] == 281
    for bet, r in six_decks.depleting.items():
        o = r.overall
        got = (float(o.rtp), float(o.per_offered_round), float(o.closed))
        assert got == pytest.approx(DEPLETING[bet], abs=1e-12), bet
        assert (o.min_payout, o.max_payout) == (5, 10_000), bet
        assert sum(o.distribution.values()) + o.closed == 1
        assert o.rtp < Fraction(967, 1000)
        assert len(o.by_position) == 71
    # the first round is the continuous shuffler's: only the base card is out
    assert six_decks.continuous is not None
    for bet, r in six_decks.depleting.items():
        assert r.overall.by_position[0] == six_decks.continuous[bet].overall.rtp


def test_one_mode_and_bad_options() -> None:
    report = higher_lower_report(decks=1, burns=0, modes=(ShuffleMode.DEPLETING,))
    assert report.continuous is None and report.depleting is not None
    assert report.rounds == 47
    with pytest.raises(InvalidOption, match="burns must be a whole number from 0 to 10"):
        higher_lower_report(burns=11)
    with pytest.raises(InvalidOption, match="needs a shuffle mode"):
        higher_lower_report(modes=())
    with pytest.raises(InvalidOption, match="deals no round"):
        next_card_report(reduced(1, Rank.ACE), DEFAULT_PAYTABLE, burns=5)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["analyze", "higher-lower", *argv], out)
    return code, out.getvalue()


@pytest.mark.slow
def test_cli_json_holds_every_bet_in_both_modes() -> None:
    """The JSON is the report's: two decks, whose report is a tenth of six decks' work (six
    decks' figures are checked on the report itself, above)."""
    code, text = run("--json", "--decks", "2")
    assert code == 0
    data = json.loads(text)
    assert (data["game"], data["decks"], data["burns"], data["deck_size"]) == (
        "higher-lower",
        2,
        3,
        96,
    )
    want = higher_lower_report(decks=2)
    assert want.continuous is not None and want.depleting is not None
    assert list(data["continuous"]) == list(higher_lower.BETS)
    assert list(data["depleting"]["bets"]) == list(higher_lower.BETS)
    assert data["depleting"]["rounds"] == len(data["depleting"]["cards_out"]) == want.rounds == 23
    higher = data["continuous"]["HIGHER"]
    assert (
        higher["rtp"]["exact"]
        == "25222/26125"
        == fraction_text(want.continuous["HIGHER"].overall.rtp)
    )
    two = higher["by_base"][0]
    assert (two["base"], two["payout_hundredths"], two["win_probability"]["exact"]) == (
        "2",
        5,
        "88/95",
    )
    snap = data["depleting"]["bets"]["SNAP"]
    assert len(snap["by_position"]) == 23
    assert snap["rtp"]["exact"] == fraction_text(want.depleting["SNAP"].overall.rtp)
    assert sum(snap["distribution"].values()) + snap["closed"]["value"] == pytest.approx(1)


@pytest.mark.slow
def test_cli_text_and_options(tmp_path: Path) -> None:
    code, text = run("--mode", "continuous", "--decks", "1", "--burns", "0")
    assert code == 0
    assert text.splitlines()[0].endswith("1 deck of 48 cards, 0 burns before each result")
    assert "Depleting" not in text
    assert "HIGHER        96.7118%   8.3333%   1.05   11.36" in text
    file = tmp_path / "paytable.json"
    file.write_text(
        json.dumps({"snap": {"rtp_bp": 9000, "min_hundredths": 5, "max_hundredths": 10_000}})
    )
    code, text = run("--paytable", str(file), "--mode", "depleting", "--decks", "2")
    assert code == 0 and "Continuous" not in text
    assert "Depleting shoe: 23 rounds" in text
    snap = next(line for line in text.splitlines() if line.startswith("SNAP "))
    assert 0.89 < float(snap.split()[1].rstrip("%")) / 100 < 0.9


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["higher-lower", "--rounds", "3"], "--rounds and --cards-per-round are for goagae"),
        (["higher-lower", "--decks", "2", "--decks", "3"], "--decks twice"),
        (["higher-lower", "--main-game"], "--main-game: not for higher-lower"),
        (["hilo", "--burns", "2"], "--burns and --mode are for higher-lower"),
    ],
)
def test_cli_refuses_other_options(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["analyze", *argv], io.StringIO()) == 2
    assert message in capsys.readouterr().err


def test_live_statistics_take_no_higher_lower_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--table", "t1", "--burns", "1"], io.StringIO()) == 2
    assert "--burns, --mode, --decks" in capsys.readouterr().err
