"""The reports ``pricing analyze`` asks for, built from typed options: a game's exact
theoretical report (``ReportOptions``, ``build_report``), or the live statistics of tables read
from a data directory (``build_live``). Which options go together is the command line's to
check (``pricing.cli.analyze_options``); here each report takes its own options, with their
defaults for those left out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Final, Literal

from pricing.analysis import blackjack, main_game
from pricing.analysis.blackjack import BlackjackReport, RemovalReport, blackjack_rtp, removal_report
from pricing.analysis.goagae import GoaGaeReport, goagae_rtp
from pricing.analysis.higher_lower import BOTH_MODES, HigherLowerReport, higher_lower_report
from pricing.analysis.hilo import HiLoReport, hilo_rtp
from pricing.analysis.live import LiveReport, live_stats
from pricing.analysis.main_game import MainGameReport, main_game_report
from pricing.analysis.two_hands import (
    DEFAULT_DECKS as TWO_HAND_DECKS,
)
from pricing.analysis.two_hands import (
    DEFAULT_SHOE_DECKS,
    TwoHandReport,
    two_hand_report,
)
from pricing.analysis.two_hands_sim import DEFAULT_CUT_CARD
from pricing.analysis.two_hands_sim import DEFAULT_SHOES as TWO_HAND_SHOES
from pricing.games.blackjack.decisions import MainGameRules
from pricing.games.blackjack.rules import DealerRule
from pricing.games.goagae import GoaGaePaytable
from pricing.games.higher_lower import (
    DEFAULT_BURNS,
    DEFAULT_DECKS,
    HigherLowerPaytable,
    ShuffleMode,
)
from pricing.games.hilo import HiLoPaytable
from pricing.games.two_hands import Paytable as TwoHandPaytable
from pricing.tables import Game, OpenTable

__all__ = [
    "DEFAULT_SEED",
    "AnalyzedGame",
    "Paytable",
    "Report",
    "ReportOptions",
    "build_live",
    "build_report",
]

Report = (
    HiLoReport
    | GoaGaeReport
    | BlackjackReport
    | RemovalReport
    | MainGameReport
    | HigherLowerReport
    | TwoHandReport
)
#: A game's paytable, as a report prices its bets with.
Paytable = HiLoPaytable | GoaGaePaytable | HigherLowerPaytable
#: The games with a theoretical report, by the command line's names.
AnalyzedGame = Literal["hilo", "goagae", "blackjack", "higher-lower", "baccarat", "dragon-tiger"]

#: The blackjack simulations' seed when the options name none.
DEFAULT_SEED: Final = 2026


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What a theoretical report is asked for: ``game`` and the options of its report (None:
    the report's default). ``paytable``: Hi-Lo's, Goa Gae's or Higher/Lower's, of that game;
    ``rounds``, ``cards_per_round``: Goa Gae's deal; ``shoes``, ``seed``, ``rule``, ``bet``,
    ``preset``: blackjack's side bets (``eor``: their exact effect of removal instead of the
    penetration report); ``main_game`` with ``decks``, ``points`` and ``all_rules``: blackjack's
    main game (``shoes``, ``seed`` and ``rule`` apply); ``decks`` (one size), ``burns`` and
    ``modes``: Higher/Lower's; baccarat's and Dragon Tiger's: ``decks`` (the shoe sizes of
    every table; none: the full-shoe RTPs of 1, 2, 4, 6 and 8 decks, the rest of 8),
    ``shoes``, ``seed``, ``cut_card``, ``burn`` and ``bets`` (those the penetration table and
    the plot show). A PAR sheet (``pricing.analysis.par_build``) reads these and
    ``min_rtp`` (the floor the share below is measured against) and ``close_at_rtp_bp``
    (game protection's bound in the simulated shoes, 0: off) and, for baccarat and Dragon
    Tiger, ``two_hand_paytables`` (a table's bets; None: a table's defaults)."""

    game: AnalyzedGame
    paytable: Paytable | None = None
    rounds: int = 1
    cards_per_round: int = 6
    shoes: int | None = None
    seed: int | None = None
    rule: DealerRule = DealerRule.S17
    bet: str = ""
    preset: str = ""
    eor: bool = False
    main_game: bool = False
    decks: tuple[int, ...] = ()
    points: tuple[int, ...] | None = None
    all_rules: bool = False
    burns: int | None = None
    modes: tuple[ShuffleMode, ...] | None = None
    cut_card: int | None = None
    burn: bool = True
    bets: tuple[str, ...] = ()
    min_rtp: Fraction | None = None
    close_at_rtp_bp: int = 0
    two_hand_paytables: tuple[TwoHandPaytable, ...] | None = None


def build_report(options: ReportOptions) -> Report:
    """The report ``options`` ask for (computed here: seconds to minutes for blackjack's)."""
    if options.game == "higher-lower":
        return _higher_lower_report(options)
    if options.game in ("baccarat", "dragon-tiger"):
        return _two_hand_report(options)
    if options.game == "blackjack":
        if options.main_game:
            return _main_game_report(options)
        return _blackjack_report(options)
    table = options.paytable
    if options.game == "hilo":
        assert table is None or isinstance(table, HiLoPaytable)
        return hilo_rtp(table or HiLoPaytable())
    assert table is None or isinstance(table, GoaGaePaytable)
    return goagae_rtp(
        table or GoaGaePaytable(), rounds=options.rounds, cards_per_round=options.cards_per_round
    )


def _higher_lower_report(options: ReportOptions) -> HigherLowerReport:
    table = options.paytable
    assert table is None or isinstance(table, HigherLowerPaytable)
    return higher_lower_report(
        table or HigherLowerPaytable(),
        decks=options.decks[0] if options.decks else DEFAULT_DECKS,
        burns=DEFAULT_BURNS if options.burns is None else options.burns,
        modes=options.modes or BOTH_MODES,
    )


def _two_hand_report(options: ReportOptions) -> TwoHandReport:
    game = options.game
    assert game in ("baccarat", "dragon-tiger")
    return two_hand_report(
        game,
        decks=options.decks or TWO_HAND_DECKS,
        shoe_decks=options.decks or DEFAULT_SHOE_DECKS,
        shoes=TWO_HAND_SHOES if options.shoes is None else options.shoes,
        seed=DEFAULT_SEED if options.seed is None else options.seed,
        cut_card=DEFAULT_CUT_CARD if options.cut_card is None else options.cut_card,
        burn=options.burn,
        shown=options.bets,
    )


def _main_game_report(options: ReportOptions) -> MainGameReport:
    return main_game_report(
        shoes=main_game.DEFAULT_SHOES if options.shoes is None else options.shoes,
        seed=DEFAULT_SEED if options.seed is None else options.seed,
        decks=options.decks or main_game.DEFAULT_DECKS,
        rules=MainGameRules(options.rule),
        points=main_game.DEFAULT_POINTS if options.points is None else options.points,
        all_rules=options.all_rules,
    )


def _blackjack_report(options: ReportOptions) -> BlackjackReport | RemovalReport:
    """The side bets' penetration report, or with ``eor`` their effect of removal, of every bet
    and preset of the side-bet library or ``bet``'s."""
    if options.eor:
        return removal_report(rule=options.rule, bet=options.bet, preset=options.preset)
    return blackjack_rtp(
        shoes=blackjack.DEFAULT_SHOES if options.shoes is None else options.shoes,
        seed=DEFAULT_SEED if options.seed is None else options.seed,
        rule=options.rule,
        bet=options.bet,
        preset=options.preset,
    )


def build_live(
    data_dir: Path,
    tables: Sequence[str],
    game: Game | None,
    since: float | None,
    until: float | None,
) -> LiveReport:
    """The live statistics of ``tables``, or of every table of ``game``, from the journal (and
    archive) in ``data_dir``, read-only: the rounds that ended from ``since`` to before
    ``until`` (Unix seconds; None: no bound). ``LookupError`` if there is no such table."""
    # Only the live statistics read a journal: a theoretical report loads none of it.
    from pricing.journal.tools import export_tables  # noqa: PLC0415

    if tables:
        journals = [records for _, records in export_tables(data_dir, tables)]
    else:
        journals = []
        for _, records in export_tables(data_dir):
            opening = records[0].entry.event
            if isinstance(opening, OpenTable) and opening.config.game is game:
                journals.append(records)
        if not journals:
            name = "any" if game is None else game.name
            raise LookupError(f"no {name} table in the journal of {data_dir} or its archive")
    return live_stats(journals, since=since, until=until)
