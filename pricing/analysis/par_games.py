"""The PAR sheets of the games whose bets move with the deck: Hi-Lo, Higher/Lower and Goa Gae
(a price that moves: exact over every deck state) and baccarat and Dragon Tiger (fixed
paytables whose odds move: exact on a full shoe, the spread over seeded simulated shoes).
Blackjack's is ``pricing.analysis.par_blackjack``'s.

>>> sheet = hilo_par_sheet(min_rtp=Fraction(85, 100))
>>> seven = sheet.entry("SEVEN")
>>> f"{float(seven.par.rtp):.5f} {seven.par.standard_deviation:.4f} {seven.distribution.below_min}"
'0.83469 3.0115 1'
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Final

from pricing.analysis.goagae import DEFAULT_CARDS_PER_ROUND, goagae_positions
from pricing.analysis.higher_lower import (
    BOTH_MODES,
    mode_positions,
    mode_tallies,
    round_cards_out,
)
from pricing.analysis.hilo import FULL_DECK_CLASSES, hilo_positions
from pricing.analysis.par import par_bet
from pricing.analysis.par_sheet import (
    Basis,
    ParEntry,
    ParSheet,
    Precision,
    paytable_rules,
    protection_rule,
)
from pricing.analysis.par_shoe import mixture_odds, position_states, rtp_distribution
from pricing.analysis.par_simulated import SimulatedRtpAccumulator, check_shoes
from pricing.analysis.report import PositionTally
from pricing.analysis.two_hands import (
    TwoHandName,
    game_of,
    main_bet_names,
    price_shoe,
    shoe_pricer,
    simulated_paytables,
    table_keys,
)
from pricing.analysis.two_hands_sim import (
    DEFAULT_CUT_CARD,
    shoe_rounds,
)
from pricing.cards import CARDS_PER_DECK, DECK, Card, parse_cards
from pricing.errors import InvalidOption
from pricing.games import higher_lower as hl
from pricing.games.fixed_odds import SideBetOdds
from pricing.games.goagae import GoaGaePaytable
from pricing.games.hilo import OPENING_BURNS, RESULTS_PER_DECK, HiLoPaytable
from pricing.games.next_card import NextCardGame
from pricing.games.two_hands import Paytable
from pricing.payout import BetPrice, PayRule
from pricing.payout import Paytable as RulesPaytable

__all__ = [
    "DEFAULT_PAR_SHOES",
    "goagae_par_sheet",
    "higher_lower_par_sheet",
    "hilo_par_sheet",
    "next_card_par_sheet",
    "two_hand_par_sheet",
]

#: Simulated shoes of a baccarat or Dragon Tiger sheet when none are asked for.
DEFAULT_PAR_SHOES: Final = 200

_MOVING_PRICE: Final = (
    "A moving price: each figure is over the rounds the bet is offered (a unit staked on "
    "every offered round), exact over every way the deck can fall. The outcome table lists "
    "each payout the bet is offered at with the chance a unit staked on a random offered "
    "round wins at it; its variance is the whole-shoe variance (the spread of the prices "
    "included). The distribution is of the RTP over the offered rounds."
)
_FULL_SHOE: Final = (
    "Fixed paytables whose odds move with the shoe: the outcome table and its figures are the "
    "full shoe's, exact (the mean of every round's RTP over a shoe). The distribution is of "
    "the RTP over the rounds of seeded simulated shoes dealt to the cut card, with standard "
    "errors taking each shoe as a cluster; its variance is the whole-shoe variance of a unit "
    "staked on every offered round of the sample."
)


_NEVER_OFFERED: Final = "never offered: no deal of this deck leaves a winning outcome"


def _rule_text(rule: PayRule) -> str:
    return (
        f"RTP {rule.rtp_bp / 100:g} %, payout {rule.min_hundredths / 100:g} to "
        f"{rule.max_hundredths / 100:g} : 1"
    )


def _moving_entry(
    bet: str,
    positions: Sequence[PositionTally],
    price: Callable[[int, int], BetPrice],
    min_rtp: Fraction | None,
) -> ParEntry:
    states = list(position_states(bet, positions, price))
    if not any(w and odds.open for w, odds in states):
        return ParEntry(bet, Basis.OFFERED_ROUNDS, Precision.EXACT, None, note=_NEVER_OFFERED)
    return ParEntry(
        bet,
        Basis.OFFERED_ROUNDS,
        Precision.EXACT,
        par_bet(mixture_odds(bet, states)),
        rtp_distribution(states, min_rtp=min_rtp),
    )


def _rule_price(bet: str, rule: PayRule) -> Callable[[int, int], BetPrice]:
    return lambda wins, outcomes: rule.price(bet, wins, outcomes)


def hilo_par_sheet(
    paytable: HiLoPaytable | None = None,
    *,
    min_rtp: Fraction | None = None,
    sizes: Sequence[int] = FULL_DECK_CLASSES,
    burns: int = OPENING_BURNS,
    results: int = RESULTS_PER_DECK,
) -> ParSheet:
    """Hi-Lo's five bets over a uniformly shuffled deck, exactly (``sizes``, ``burns`` and
    ``results``: ``pricing.analysis.hilo.hilo_rtp``'s deck and deal, the game's by default)."""
    rules = (paytable or HiLoPaytable()).rules()
    entries = tuple(
        _moving_entry(bet, positions, _rule_price(bet, rules[bet]), min_rtp)
        for bet, positions in hilo_positions(sizes=sizes, burns=burns, results=results).items()
    )
    lines = (
        ("Deck", f"{sum(sizes)} cards, shuffled"),
        ("Deal", f"{burns} opening burns, then {results} result cards"),
        *((bet, _rule_text(rule)) for bet, rule in rules.items()),
    )
    return ParSheet("hilo", "Hi-Lo", lines, entries, min_rtp=min_rtp, notes=(_MOVING_PRICE,))


def _cards_text(cards: Iterable[Card | str]) -> str:
    held = sorted(set(parse_cards(cards)))
    return f"{len(held)} cards: {' '.join(str(c) for c in held)}"


def goagae_par_sheet(
    paytable: GoaGaePaytable | None = None,
    *,
    rounds: int = 1,
    cards_per_round: int = DEFAULT_CARDS_PER_ROUND,
    deck: Iterable[Card | str] | None = None,
    min_rtp: Fraction | None = None,
) -> ParSheet:
    """Goa Gae's category bets: a fresh deck every round, or ``rounds`` rounds of
    ``cards_per_round`` cards from one deck (bets with no exact count are left out, named).
    ``deck`` (default: the 52 cards): ``goagae_positions``' reduced deck, for what-if
    questions and the tests' brute force."""
    table = paytable or GoaGaePaytable()
    rules = table.rules()
    cards = None if deck is None else tuple(deck)
    positions, left_out = goagae_positions(
        table, rounds=rounds, cards_per_round=cards_per_round, deck=cards
    )
    entries = tuple(
        _moving_entry(bet, tallies, _rule_price(bet, rules[bet]), min_rtp)
        for bet, tallies in positions.items()
    )
    deal = (
        "a fresh deck every round"
        if rounds == 1
        else (f"{rounds} rounds of {cards_per_round} cards from one deck")
    )
    notes = [_MOVING_PRICE]
    if left_out:
        notes.append(f"Left out (no exact count for this deal): {', '.join(left_out)}.")
    lines = (
        ("Deck", "52 cards" if cards is None else _cards_text(cards)),
        ("Deal", deal),
        *((bet, _rule_text(rule)) for bet, rule in rules.items()),
    )
    return ParSheet("goagae", "Goa Gae", lines, entries, min_rtp=min_rtp, notes=tuple(notes))


def higher_lower_par_sheet(
    paytable: hl.HigherLowerPaytable | None = None,
    *,
    decks: int = hl.DEFAULT_DECKS,
    burns: int = hl.DEFAULT_BURNS,
    modes: Sequence[hl.ShuffleMode] = BOTH_MODES,
    min_rtp: Fraction | None = None,
) -> ParSheet:
    """Higher/Lower's bets in each of ``modes`` (entries ``BET/continuous``,
    ``BET/depleting``), exactly, as ``pricing.analysis.higher_lower`` counts them."""
    table = paytable or hl.HigherLowerPaytable()
    hl.HigherLowerRules(paytable=table, burns=burns)  # checked as a table's rules are
    return next_card_par_sheet(hl.game(decks), table, burns=burns, modes=modes, min_rtp=min_rtp)


def next_card_par_sheet(
    nc: NextCardGame,
    paytable: RulesPaytable,
    *,
    burns: int = hl.DEFAULT_BURNS,
    modes: Sequence[hl.ShuffleMode] = BOTH_MODES,
    min_rtp: Fraction | None = None,
) -> ParSheet:
    """The sheet of every bet of the next-card game ``nc`` under ``paytable`` (Higher/Lower's
    on ``higher_lower_par_sheet``'s shoe; any deck, such as the tests' reduced ones).
    ``InvalidOption`` for a shoe too small to deal a round, as ``next_card_report``."""
    if not round_cards_out(nc.deck.size, burns):
        raise InvalidOption(f"a shoe of {nc.deck.size} cards deals no round with {burns} burns")
    entries = []
    for mode in modes:
        tallies = mode_tallies(nc.deck.size, mode, burns)
        for bet in nc.names:
            positions, price = mode_positions(nc, bet, paytable, tallies)
            entry = _moving_entry(bet, positions, price, min_rtp)
            # every figure the entry has, a never-offered bet's note too, under the mode's name
            entries.append(dataclasses.replace(entry, bet=f"{bet}/{mode.value.lower()}"))
    decks = nc.deck.decks
    lines = (
        ("Shoe", f"{decks} decks of {nc.deck.size // decks} cards"),
        ("Burns", f"{burns} before each result (depleting shoe)"),
        ("Modes", ", ".join(m.value.lower() for m in modes)),
        *((bet, _rule_text(rule)) for bet, rule in paytable.rules().items()),
    )
    return ParSheet(
        "higher-lower", "Higher/Lower", lines, tuple(entries), min_rtp=min_rtp,
        notes=(_MOVING_PRICE,),
    )  # fmt: skip


def _simulated_states(
    name: TwoHandName,
    tables: Mapping[str, Paytable],
    *,
    decks: int,
    shoes: int,
    seed: int,
    cut_card: int,
    burn: bool,
) -> Iterable[list[dict[str, SideBetOdds]]]:
    """Each seeded shoe's rounds, as every bet's odds when each round starts."""
    game = game_of(name)
    price = shoe_pricer(name, tables)
    rng = random.Random(f"{seed}/{decks}")
    cards = [card for card in DECK for _ in range(decks)]
    for _ in range(shoes):
        rng.shuffle(cards)
        left = [decks] * CARDS_PER_DECK
        seen = 0
        _, rounds = shoe_rounds(game, cards, cut_card, burn)
        shoe: list[dict[str, SideBetOdds]] = []
        for first, _hands, _after in rounds:
            for card in cards[seen:first]:
                left[card.index] -= 1
            seen = first
            shoe.append(price(left))
        yield shoe


def two_hand_par_sheet(
    name: TwoHandName,
    *,
    decks: int = 8,
    paytables: Sequence[Paytable] | None = None,
    shoes: int = DEFAULT_PAR_SHOES,
    seed: int = 2026,
    cut_card: int = DEFAULT_CUT_CARD,
    burn: bool = True,
    close_at_rtp_bp: int = 0,
    min_rtp: Fraction | None = None,
) -> ParSheet:
    """Baccarat's or Dragon Tiger's bets of ``paytables`` (default: a table's main bets and
    every side bet at its default preset), entries ``BET/preset``: each full-shoe outcome table
    exact, and the RTP over the rounds of ``shoes`` seeded shoes (two or more) of
    ``decks`` decks dealt to ``cut_card`` cards from the end, side bets closed by protection at
    ``close_at_rtp_bp``."""
    check_shoes(shoes)
    tables = table_keys(name, simulated_paytables(name) if paytables is None else paytables)
    mains = main_bet_names(name)
    full = price_shoe(name, [decks] * CARDS_PER_DECK, tables)
    # Each shoe is counted into every bet's figures and dropped: the sheet's memory does not
    # grow with the shoes.
    accumulators = {
        key: SimulatedRtpAccumulator(
            min_rtp=min_rtp, close_at_rtp_bp=0 if table.bet in mains else close_at_rtp_bp
        )
        for key, table in tables.items()
    }
    for shoe in _simulated_states(
        name, tables, decks=decks, shoes=shoes, seed=seed, cut_card=cut_card, burn=burn
    ):
        for key, accumulator in accumulators.items():
            accumulator.add_shoe((1, round_odds[key]) for round_odds in shoe)
    entries = []
    for key, accumulator in accumulators.items():
        distribution, error = accumulator.result()
        entries.append(
            ParEntry(
                key, Basis.FULL_SHOE, Precision.EXACT, par_bet(full[key]), distribution,
                Precision.SIMULATED, error,
            )
        )  # fmt: skip
    title = "Baccarat" if name == "baccarat" else "Dragon Tiger"
    lines = (
        ("Shoe", f"{decks} decks"),
        ("Deal", f"opening burn {'dealt' if burn else 'not dealt'}; cut card {cut_card} "
                 "cards from the end (the round it comes out in and one more are dealt)"),
        protection_rule(close_at_rtp_bp),
        *paytable_rules(tables),
    )  # fmt: skip
    return ParSheet(
        name, title, lines, tuple(entries), min_rtp=min_rtp, shoes=shoes, seed=seed,
        cut_card=cut_card, notes=(_FULL_SHOE,),
    )  # fmt: skip
