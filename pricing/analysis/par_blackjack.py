"""Blackjack's PAR sheet: every side bet of the library under each preset, insurance, and the
main game, on one shoe size and dealer rule.

- **Side bets** (``BET/preset``, as ``pricing analyze blackjack`` names them): fixed paytables
  whose odds move with the shoe. The outcome table and its figures are the full shoe's, exact
  (the engine's odds, ``pricing.analysis.side_bets.price``): the mean of every round's RTP over
  a shoe, since the next cards of a uniform shuffle are uniform however many were dealt. The
  distribution is of the RTP over the rounds of seeded simulated shoes dealt to the cut card
  (``pricing.analysis.par_blackjack_play``): each round's exact odds at the shoe's state when
  it starts, weight 1, game protection (``close_at_rtp_bp``) leaving out the rounds it closes.
- **Insurance** (``INSURANCE``): a bet offered only with the dealer's Ace up, so its figures
  are conditioned on that Ace: it wins 2 : 1 when the dealer's second card is a ten (no hole
  card), with ``16 × decks`` tens among the ``52 × decks − 1`` cards left on a full shoe. The
  player's two cards are dealt before the dealer's second card, but unseen they change nothing
  (exchangeability): the figures are over them. Its distribution is over the same simulated
  rounds, each weighted by its chance of an Ace up (Aces left over cards left), its odds
  given that Ace: so over the rounds in which insurance is offered. Game protection is for
  side bets; it does not close insurance.
- **The main game** (``MAIN``): ``pricing.analysis.par_blackjack_main``, over rounds of
  ``MAIN_SHOES_PER_SHOE`` times as many shoes of the same seeded sequence (the side bets' first).

>>> sheet = blackjack_par_sheet(shoes=2, bet="PAIRS", preset="any-pair")
>>> [e.bet for e in sheet.entries], sheet.cut_card
(['PAIRS/any-pair'], 78)
>>> pairs = sheet.entries[0].par
>>> pairs.rtp, [(o.name, o.probability) for o in pairs.outcomes]
(Fraction(276, 311), [('PAIR', Fraction(23, 311)), ('LOSE', Fraction(288, 311))])
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Final

from pricing import _blackjack
from pricing.analysis.par import ParBet, par_bet
from pricing.analysis.par_blackjack_main import MAIN, MAIN_NOTE, MainAccumulator, main_game_entry
from pricing.analysis.par_blackjack_play import DealtRound, deal_shoe
from pricing.analysis.par_sheet import (
    Basis,
    ParEntry,
    ParSheet,
    Precision,
    paytable_rules,
    protection_rule,
)
from pricing.analysis.par_shoe import pay_text
from pricing.analysis.par_simulated import SimulatedRtpAccumulator, check_shoes
from pricing.analysis.side_bets import full_shoe, price, pricing_groups, side_bet_presets
from pricing.cards import CARDS_PER_DECK, DECK, Rank
from pricing.errors import InvalidOption
from pricing.games.blackjack.bets import InsuranceOdds, insurance
from pricing.games.blackjack.decisions import MainGameRules
from pricing.games.blackjack.library import Paytable
from pricing.games.blackjack.paytables import INSURANCE_HUNDREDTHS
from pricing.games.blackjack.rules import DealerRule, check_decks
from pricing.games.fixed_odds import SideBetOdds, check_close_at_rtp_bp

__all__ = [
    "DEFAULT_PAR_SHOES",
    "INSURANCE",
    "MAIN_SHOES_PER_SHOE",
    "MIN_CUT_CARD",
    "blackjack_par_sheet",
    "deal_shoes",
    "default_cut_card",
    "insurance_given_ace",
    "insurance_state",
    "side_bet_pars",
    "simulate_shoes",
]

#: Simulated shoes when none are asked for: a few seconds for every bet and preset.
DEFAULT_PAR_SHOES: Final = 100
#: The main game plays this many times as many shoes (the side bets' first): dealing and
#: playing a round costs a small part of pricing every side bet on it, and the standard
#: deviation's error falls by the square root.
MAIN_SHOES_PER_SHOE: Final = 10
#: The sheet's name of insurance.
INSURANCE: Final = "INSURANCE"
#: The shortest cut card accepted: a round (up to four split hands and the dealer's) almost
#: never needs more cards, and a round that does is left out of the main game's figures.
MIN_CUT_CARD: Final = 10
_ACES: Final = tuple(card.index for card in DECK if card.rank is Rank.ACE)

_SIDE_BETS_NOTE: Final = (
    "Side bets: fixed paytables whose odds move with the shoe. The outcome table and its "
    "figures are the full shoe's, exact: the mean of every round's RTP over a shoe (the next "
    "cards of a uniform shuffle are uniform however many were dealt). The distribution is of "
    "the RTP over the rounds of the simulated shoes, each round's exact odds at the shoe's "
    "state when it starts, the rounds game protection closes left out; its standard errors "
    "take each shoe as a cluster, and its variance is the whole-shoe variance of a unit staked "
    "on every offered round of the sample."
)
_INSURANCE_NOTE: Final = (
    "Insurance is conditioned on the dealer's Ace up: it pays 2 : 1 when the dealer's second "
    "card is a ten (no hole card), over the player's cards unseen (they are dealt before it, "
    "which changes no chance). Its distribution weights each simulated round by its chance of "
    "an Ace up (Aces left over cards left): the rounds in which insurance is offered. Game "
    "protection does not close insurance."
)


def default_cut_card(decks: int) -> int:
    """The cut card when none is given: a quarter of the shoe from the end, where the demo
    dealer (``pricing simulate``) cuts a blackjack shoe (78 cards of six decks).

    >>> default_cut_card(6), default_cut_card(8)
    (78, 104)
    """
    return decks * CARDS_PER_DECK // 4


def side_bet_pars(
    counts: Sequence[int], rule: DealerRule, tables: Mapping[str, Paytable]
) -> dict[str, ParBet]:
    """The PAR figures of every paytable of ``tables`` (by ``BET/preset``) for the next round
    dealt by ``rule`` from a shoe of ``counts`` (52 counts by ``Card.index``), from the
    engine's exact odds; a bet the shoe cannot deal is left out."""
    odds = price(counts, rule, pricing_groups(tables))
    return {key: par_bet(o) for key, o in odds.items() if o.open}


def _insurance_odds(odds: InsuranceOdds) -> SideBetOdds:
    return SideBetOdds.from_ways(
        INSURANCE, {"WIN": odds.ways}, odds.total, {"WIN": odds.payout_hundredths}
    )


def insurance_given_ace(counts: Sequence[int]) -> SideBetOdds | None:
    """Insurance's odds for a round about to be dealt from ``counts`` (52 counts by
    ``Card.index``), given that its up card is an Ace (one of them out of the shoe); ``None``
    when no Ace is left.

    >>> odds = insurance_given_ace(full_shoe(6))
    >>> odds.outcomes["WIN"].fraction, odds.rtp_fraction
    (Fraction(96, 311), Fraction(288, 311))
    """
    shoe = list(counts)
    ace = next((i for i in _ACES if shoe[i]), None)
    if ace is None:
        return None
    shoe[ace] -= 1
    return _insurance_odds(InsuranceOdds(*_blackjack.insurance_ways_counts(shoe)))


def deal_shoes(
    decks: int, rules: MainGameRules, shoes: int, seed: int, cut_card: int
) -> Iterator[list[DealtRound]]:
    """``shoes`` seeded shuffles of a ``decks``-deck shoe, each dealt to ``cut_card`` cards
    from the end (``pricing.analysis.par_blackjack_play.deal_shoe``), one at a time: the same
    arguments give the same rounds."""
    rng = random.Random(f"{seed}/{decks}")
    cards = [card.index for card in DECK for _ in range(decks)]
    for _ in range(shoes):
        rng.shuffle(cards)
        yield deal_shoe(cards, decks, cut_card, rules)


def simulate_shoes(
    decks: int, rules: MainGameRules, shoes: int, seed: int, cut_card: int
) -> list[list[DealtRound]]:
    """``deal_shoes``' shoes, in a list."""
    return list(deal_shoes(decks, rules, shoes, seed, cut_card))


class _SideBets:
    """The side bets' distributions over the simulated shoes, shoe by shoe: every round priced
    once for every bet (``pricing.analysis.side_bets.price``'s groups)."""

    __slots__ = ("accumulators", "groups", "rule")

    def __init__(
        self,
        rule: DealerRule,
        tables: Mapping[str, Paytable],
        *,
        min_rtp: Fraction | None,
        close_at_rtp_bp: int,
    ) -> None:
        self.rule = rule
        self.groups = pricing_groups(tables)
        self.accumulators = {
            key: SimulatedRtpAccumulator(min_rtp=min_rtp, close_at_rtp_bp=close_at_rtp_bp)
            for key in tables
        }

    def add_shoe(self, shoe: Sequence[DealtRound]) -> None:
        priced = [price(r.counts, self.rule, self.groups) for r in shoe]
        for key, accumulator in self.accumulators.items():
            accumulator.add_shoe((1, odds[key]) for odds in priced)

    def entries(self, decks: int) -> list[ParEntry]:
        """Each side bet's entry: its full-shoe figures and its RTP over the rounds added."""
        full = price(full_shoe(decks), self.rule, self.groups)
        entries = []
        for key, accumulator in self.accumulators.items():
            distribution, error = accumulator.result()
            entries.append(
                ParEntry(key, Basis.FULL_SHOE, Precision.EXACT, par_bet(full[key]), distribution,
                         Precision.SIMULATED, error)
            )  # fmt: skip
        return entries


def insurance_state(counts: Sequence[int]) -> tuple[Fraction, SideBetOdds]:
    """Insurance in a round about to be dealt from ``counts``: the chance of an Ace up (its
    weight among the rounds) and the odds given it (closed when no Ace is left)."""
    given = insurance_given_ace(counts)
    aces = sum(counts[i] for i in _ACES)
    return Fraction(aces, sum(counts)), given or SideBetOdds(INSURANCE, {}, 0, 0)


def _insurance_entry(accumulator: SimulatedRtpAccumulator, decks: int) -> ParEntry:
    """Insurance's entry: its full-shoe figures given the dealer's Ace (``bets.insurance`` with
    an Ace seen) and its RTP over the rounds ``accumulator`` counted (``insurance_state``: each
    weighted by its chance of an Ace)."""
    ace = next(card for card in DECK if card.rank is Rank.ACE)
    full = _insurance_odds(insurance([ace], decks))
    distribution, error = accumulator.result()
    return ParEntry(
        INSURANCE, Basis.FULL_SHOE, Precision.EXACT, par_bet(full), distribution,
        Precision.SIMULATED, error, note="given the dealer's Ace up",
    )  # fmt: skip


def _wanted(bet: str, preset: str) -> tuple[dict[str, Paytable], bool, bool]:
    """The side-bet paytables, and whether insurance and the main game, ``bet`` and ``preset``
    ask for (``pricing analyze blackjack --bet/--preset``; ``INSURANCE`` and ``MAIN`` too)."""
    name = bet.strip().upper()
    if name in (INSURANCE, MAIN):
        if preset.strip():
            raise InvalidOption(f"{name} has no presets, got preset {preset!r}")
        return {}, name == INSURANCE, name == MAIN
    tables = side_bet_presets(bet, preset)
    return tables, not name, not name


def _check_cut_card(cut_card: int | None, decks: int) -> int:
    if cut_card is None:
        return default_cut_card(decks)
    cards = decks * CARDS_PER_DECK
    if isinstance(cut_card, bool) or not isinstance(cut_card, int):
        raise InvalidOption(f"cut_card must be a whole number of cards, got {cut_card!r}")
    if not MIN_CUT_CARD <= cut_card < cards:
        raise InvalidOption(
            f"cut_card must be {MIN_CUT_CARD} to {cards - 1} cards from the end of a "
            f"{decks}-deck shoe, got {cut_card}"
        )
    return cut_card


def _main_rules_text(rules: MainGameRules) -> str:
    das = "and after a split" if rules.double_after_split else "not after a split"
    surrender = "against 2–10" if rules.surrender else "not offered"
    return (
        f"blackjack pays 3 : 2; no hole card (a dealer blackjack takes only the initial wager); "
        f"double on any first two cards {das}; split to {rules.max_splits + 1} hands (Aces "
        f"once, one card each); surrender {surrender}"
    )


def blackjack_par_sheet(
    *,
    decks: int = 6,
    rule: DealerRule | str = DealerRule.S17,
    main_rules: MainGameRules | None = None,
    shoes: int = DEFAULT_PAR_SHOES,
    seed: int = 2026,
    cut_card: int | None = None,
    min_rtp: Fraction | None = None,
    close_at_rtp_bp: int = 0,
    bet: str = "",
    preset: str = "",
) -> ParSheet:
    """Blackjack's PAR sheet on a ``decks``-deck shoe dealt by ``rule`` (see the module's
    docstring): every side bet of the library under each preset (or ``bet``, and its
    ``preset``; ``INSURANCE`` or ``MAIN`` alone), insurance and the main game under
    ``main_rules`` (default: the table's, ``MainGameRules(rule)``), over ``shoes`` shoes
    seeded by ``seed`` dealt to ``cut_card`` cards from the end (default a quarter of the
    shoe), side bets closed by game protection at ``close_at_rtp_bp``, ``below_min`` measured
    against ``min_rtp``. The same arguments give the same sheet."""
    decks = check_decks(decks)
    rule = DealerRule.parse(rule)
    rules = MainGameRules(rule) if main_rules is None else main_rules
    if rules.dealer_rule is not rule:
        raise InvalidOption(
            f"the main game's dealer rule {rules.dealer_rule.value} is not the table's {rule.value}"
        )
    check_shoes(shoes)
    check_close_at_rtp_bp(close_at_rtp_bp)
    cut = _check_cut_card(cut_card, decks)
    tables, with_insurance, with_main = _wanted(bet, preset)
    # Each shoe is counted into every figure and dropped (the sheet's memory does not grow
    # with the shoes): the side bets and insurance over the first ``shoes``, the main game
    # over those and more of the same seeded sequence.
    side_bets = _SideBets(rule, tables, min_rtp=min_rtp, close_at_rtp_bp=close_at_rtp_bp)
    insured = SimulatedRtpAccumulator(min_rtp=min_rtp)
    main = MainAccumulator()
    dealt = shoes * (MAIN_SHOES_PER_SHOE if with_main else 1)
    ran_out = 0
    for index, shoe in enumerate(deal_shoes(decks, rules, dealt, seed, cut)):
        if index < shoes:
            if tables:
                side_bets.add_shoe(shoe)
            if with_insurance:
                insured.add_shoe(insurance_state(r.counts) for r in shoe)
        if with_main:
            main.add_shoe(r.played for r in shoe if r.played is not None)
        ran_out += sum(1 for r in shoe if r.played is None)
    entries: list[ParEntry] = side_bets.entries(decks) if tables else []
    if with_insurance:
        entries.append(_insurance_entry(insured, decks))
    if with_main:
        entries.append(main_game_entry(decks, rules, main.result()))
    notes = [
        note
        for note, wanted in (
            (_SIDE_BETS_NOTE, bool(tables)),
            (_INSURANCE_NOTE, with_insurance),
            (MAIN_NOTE, with_main),
        )
        if wanted
    ]
    notes.append(
        f"Simulation: shoes shuffled by Python's random.Random seeded with '{seed}/{decks}' "
        f"(the same arguments give the same sheet), the first {shoes} for the side bets and "
        f"insurance, {dealt} for the main game; one seat; a round dealt player, dealer's "
        "up card, player, the player's play, the dealer's second card and draws."
        + (f" {ran_out} round(s) ran the shoe out and are left out of the main game." if ran_out
           else "")
    )  # fmt: skip
    lines = (
        ("Decks", f"{decks} ({decks * CARDS_PER_DECK} cards)"),
        ("Dealer", "stands on all 17s (S17)" if rule is DealerRule.S17 else "hits soft 17 (H17)"),
        ("Main game", _main_rules_text(rules)),
        ("Cut card", f"{cut} cards from the end; the round it comes out in is played out"),
        ("Simulation", f"{shoes} shoes (main game {dealt}), seed {seed}, one seat, "
                       "the player by basic strategy"),
        protection_rule(close_at_rtp_bp),
        *paytable_rules(tables),
        *(((INSURANCE, f"{pay_text(INSURANCE_HUNDREDTHS)} when the dealer's second card "
                       "makes blackjack; up to half the wager"),) if with_insurance else ()),
    )  # fmt: skip
    return ParSheet(
        "blackjack", "Blackjack", lines, tuple(entries), min_rtp=min_rtp, shoes=shoes,
        seed=seed, cut_card=cut, notes=tuple(notes),
    )  # fmt: skip
