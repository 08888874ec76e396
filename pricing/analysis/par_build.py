"""The PAR sheet ``pricing analyze GAME --par`` asks for, from the report's typed options
(``pricing.analysis.build.ReportOptions`` with ``par``): each game's builder with the options'
values or the builder's defaults."""

from __future__ import annotations

from typing import Final

from pricing.analysis import par_games
from pricing.analysis.build import DEFAULT_SEED, ReportOptions
from pricing.analysis.higher_lower import BOTH_MODES
from pricing.analysis.par_blackjack import DEFAULT_PAR_SHOES as BLACKJACK_SHOES
from pricing.analysis.par_blackjack import blackjack_par_sheet
from pricing.analysis.par_sheet import ParSheet
from pricing.analysis.two_hands import simulated_paytables
from pricing.analysis.two_hands_sim import DEFAULT_CUT_CARD
from pricing.games.goagae import GoaGaePaytable
from pricing.games.higher_lower import (
    DEFAULT_BURNS,
    DEFAULT_DECKS,
    HigherLowerPaytable,
)
from pricing.games.hilo import HiLoPaytable

__all__ = ["BLACKJACK_DECKS", "TWO_HAND_DECKS", "build_par_sheet"]

#: The shoe of a blackjack sheet when none is asked for.
BLACKJACK_DECKS: Final = 6
#: The shoe of a baccarat or Dragon Tiger sheet when none is asked for.
TWO_HAND_DECKS: Final = 8


def build_par_sheet(options: ReportOptions) -> ParSheet:
    """The sheet of ``options.game`` (seconds for the simulated games)."""
    decks = options.decks[0] if options.decks else None
    seed = DEFAULT_SEED if options.seed is None else options.seed
    table = options.paytable
    if options.game == "hilo":
        assert table is None or isinstance(table, HiLoPaytable)
        return par_games.hilo_par_sheet(table, min_rtp=options.min_rtp)
    if options.game == "goagae":
        assert table is None or isinstance(table, GoaGaePaytable)
        return par_games.goagae_par_sheet(
            table,
            rounds=options.rounds,
            cards_per_round=options.cards_per_round,
            min_rtp=options.min_rtp,
        )
    if options.game == "higher-lower":
        assert table is None or isinstance(table, HigherLowerPaytable)
        return par_games.higher_lower_par_sheet(
            table,
            decks=decks or DEFAULT_DECKS,
            burns=DEFAULT_BURNS if options.burns is None else options.burns,
            modes=options.modes or BOTH_MODES,
            min_rtp=options.min_rtp,
        )
    if options.game in ("baccarat", "dragon-tiger"):
        tables = options.two_hand_paytables or simulated_paytables(options.game)
        return par_games.two_hand_par_sheet(
            options.game,
            decks=decks or TWO_HAND_DECKS,
            paytables=[t for t in tables if not options.bets or t.bet in options.bets],
            shoes=par_games.DEFAULT_PAR_SHOES if options.shoes is None else options.shoes,
            seed=seed,
            cut_card=DEFAULT_CUT_CARD if options.cut_card is None else options.cut_card,
            burn=options.burn,
            close_at_rtp_bp=options.close_at_rtp_bp,
            min_rtp=options.min_rtp,
        )
    return blackjack_par_sheet(
        decks=decks or BLACKJACK_DECKS,
        rule=options.rule,
        shoes=BLACKJACK_SHOES if options.shoes is None else options.shoes,
        seed=seed,
        cut_card=options.cut_card,
        min_rtp=options.min_rtp,
        close_at_rtp_bp=options.close_at_rtp_bp,
        bet=options.bet,
        preset=options.preset,
    )
