"""The effect of removal: exact, equal to a brute-force count over the shoe one card short,
summing to 0 over the ranks for every bet of the library, and of the sign each bet's winning
cards give it."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pricing.analysis.blackjack import removal_report
from pricing.analysis.side_bets import RANKS, effect_of_removal, removal_effects, side_bet_presets
from pricing.cards import DECK
from pricing.games.blackjack import library
from pricing.games.blackjack.rules import DealerRule
from tests.support import toy_side_bet
from tests.support.reference import blackjack_ref as ref


def by_brute_force(decks: int, table: library.Paytable) -> dict[str, Fraction]:
    """Each rank's change, averaged over its suits, from the reference's Fraction counts of the
    bet over the full shoe and over each shoe one card short (no code shared with the kernel)."""

    def rtp(exposed: list[str]) -> Fraction:
        if table.bet == "ROYAL_MATCH":
            chances = ref.royal_match(exposed, decks)
            if "CROWN" not in table.pays:  # Crown Treasure off: a Crown deal is a ROYAL
                chances["ROYAL"] += chances.pop("CROWN")
        else:
            chances = ref.pairs(exposed, decks)
            if "PAIR" in table.pays:
                chances["PAIR"] = chances["PERFECT"] + chances["COLOURED"] + chances["MIXED"]
        return ref.rtp(chances, dict(table.pays))

    full = rtp([])
    out = dict.fromkeys(RANKS, Fraction(0))
    for card in DECK:
        out[card.rank.symbol] += (rtp([str(card)]) - full) / 4
    return out


@pytest.mark.parametrize(
    ("bet", "preset"),
    [
        ("ROYAL_MATCH", "crown-treasure"),  # reads suits, and the dealer's cards
        ("ROYAL_MATCH", "standard"),
        ("PAIRS", "perfect-pairs"),  # reads suits and colours
        ("PAIRS", "any-pair"),  # suit-blind
    ],
)
@pytest.mark.parametrize("decks", [1, 6])
def test_the_effect_of_removal_is_the_brute_force_count(bet: str, preset: str, decks: int) -> None:
    table = library.paytable(bet, preset)
    got = effect_of_removal(decks, DealerRule.S17, table)
    assert list(got) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert all(isinstance(v, Fraction) for v in got.values())
    assert got == by_brute_force(decks, table)


def test_the_signs_follow_the_winning_cards() -> None:
    for decks in (1, 6, 8):
        for preset in library.BETS["ROYAL_MATCH"].presets:
            eor = effect_of_removal(decks, "S17", library.paytable("ROYAL_MATCH", preset))
            # K-Q suited is the big win: taking a K or Q out hurts the player, any other card
            # (which never makes it) helps, all alike
            assert eor["K"] == eor["Q"] < 0 < eor["A"]
            assert len({eor[r] for r in RANKS if r not in ("K", "Q")}) == 1
        for preset in library.BETS["PAIRS"].presets:
            # every card is in some pair, and all 52 are alike to a pair bet: a card taken out
            # lowers its own rank's pairs exactly as much as it raises the others'
            eor = effect_of_removal(decks, "S17", library.paytable("PAIRS", preset))
            assert set(eor.values()) == {0}
    # by hand, Any Pair on 6 decks: an Ace out leaves 12 × (C(23, 2) + 12 C(24, 2)) / C(311, 2)
    table = library.paytable("PAIRS", "any-pair")
    base = Fraction(12 * 13 * 276, 48_516)
    assert (
        Fraction(12 * (253 + 12 * 276), 48_205) - base
        == 0
        == effect_of_removal(6, "S17", table)["A"]
    )


@pytest.mark.parametrize("rule", list(DealerRule))
def test_the_changes_sum_to_0_for_every_bet_and_preset(rule: DealerRule) -> None:
    """Removing a uniformly random card, then dealing, is dealing from the full shoe: on a
    full shoe (every card alike in count) the 13 ranks' changes sum to exactly 0."""
    tables = side_bet_presets()
    for decks in (1, 6):
        full, effects = removal_effects(decks, rule, tables)
        assert set(effects) == set(tables)
        for key, eor in effects.items():
            assert sum(eor.values()) == 0, (decks, key)
            bet, preset = key.split("/")
            odds = library.odds((decks,) * 52, rule, [library.paytable(bet, preset)])
            assert full[key] == odds[bet].rtp_fraction


def test_suits_are_averaged_and_the_rule_reaches_the_bet(monkeypatch: pytest.MonkeyPatch) -> None:
    toy_side_bet.register(monkeypatch)
    for rule in DealerRule:
        for decks in (1, 6):
            table = library.paytable("HEART_QUEEN", "fifty")
            want = toy_side_bet.effect_of_removal(decks, rule, 5000)
            assert effect_of_removal(decks, rule, table) == want
            assert want["Q"] < 0 < want["A"] and sum(want.values()) == 0
    report = removal_report(decks=(2,), rule="h17")
    assert report.rule is DealerRule.H17
    assert report.effect_of_removal[2]["HEART_QUEEN/forty"] == toy_side_bet.effect_of_removal(
        2, DealerRule.H17, 4000
    )
    assert set(report.full_shoe[2]) == set(side_bet_presets())
    assert report.as_dict()["decks"]["2"]["HEART_QUEEN/forty"]["effect_of_removal"]["K"] == {
        "value": float(toy_side_bet.effect_of_removal(2, DealerRule.H17, 4000)["K"]),
        "exact": str(toy_side_bet.effect_of_removal(2, DealerRule.H17, 4000)["K"]),
    }
