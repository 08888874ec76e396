"""The Analyze RPC's PAR sheet (``AnalyzeRequest.par``): the request read into the report's
typed options (``pricing.analysis.build.ReportOptions``), the sheet built as the command line
builds it (``pricing.analysis.par_build``), and put on the wire."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from pricing.analysis.build import AnalyzedGame, ReportOptions
from pricing.analysis.par_build import build_par_sheet
from pricing.cards import MAX_DECKS
from pricing.errors import InvalidOption
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.blackjack.rules import DealerRule
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.games.goagae import GoaGaePaytable
from pricing.games.higher_lower import HigherLowerRules
from pricing.games.hilo import HiLoPaytable
from pricing.server.par_proto import sheet_to_proto
from pricing.tables import Game
from pricing.v1 import pricing_pb2 as pb

__all__ = ["MAX_PAR_BLACKJACK_SHOES", "min_rtp", "par_response"]

#: The most simulated shoes one blackjack sheet may ask for: some 40 s of one core (every
#: side bet priced before each round of each shoe, and ten times as many main-game shoes),
#: in about 60 MiB whatever the shoes (each shoe is counted and dropped).
MAX_PAR_BLACKJACK_SHOES = 2_000

_NAMES: dict[Game, AnalyzedGame] = {
    Game.HILO: "hilo",
    Game.GOA_GAE: "goagae",
    Game.BLACKJACK: "blackjack",
    Game.HIGHER_LOWER: "higher-lower",
    Game.BACCARAT: "baccarat",
    Game.DRAGON_TIGER: "dragon-tiger",
}


def min_rtp(request: pb.AnalyzeRequest) -> Fraction | None:
    """The request's floor (``min_rtp_bp``), checked: only with ``par``, at most 10000
    (``close_at_rtp_bp``, the sheet's other own field, only with ``par`` too)."""
    for field in ("min_rtp_bp", "close_at_rtp_bp"):
        if request.HasField(field) and not request.par:
            raise InvalidOption(f"{field} is for a PAR sheet: send par too", field=field)
    if not request.HasField("min_rtp_bp"):
        return None
    if request.min_rtp_bp > 10_000:
        raise InvalidOption(
            f"min_rtp_bp must be at most 10000 (100 %), got {request.min_rtp_bp}",
            field="min_rtp_bp",
        )
    return Fraction(request.min_rtp_bp, 10_000)


def _options(
    game: Game, request: pb.AnalyzeRequest, rules: object, shoes: int, rule: DealerRule
) -> ReportOptions:
    if request.decks > MAX_DECKS:
        raise InvalidOption(
            f"decks {request.decks} is not allowed: send 1 to {MAX_DECKS} (0: the game's default)",
            field="decks",
        )
    options = ReportOptions(
        _NAMES[game],
        min_rtp=min_rtp(request),
        decks=(request.decks,) if request.decks else (),
        shoes=shoes,
        seed=request.seed,
        rule=rule,
        bet=request.side_bet,
        preset=request.preset,
        rounds=max(request.rounds, 1),
        cards_per_round=request.cards_per_round or 6,
        cut_card=request.cut_card if request.HasField("cut_card") else None,
        close_at_rtp_bp=request.close_at_rtp_bp,
    )
    if isinstance(rules, HiLoPaytable | GoaGaePaytable):
        return replace(options, paytable=rules)
    if isinstance(rules, HigherLowerRules):
        return replace(options, paytable=rules.paytable, burns=rules.burns, modes=(rules.shuffle,))
    if isinstance(rules, BaccaratRules | DragonTigerRules):
        return replace(
            options,
            two_hand_paytables=tuple(rules.paytables),
            close_at_rtp_bp=rules.close_at_rtp_bp,
        )
    return options


def par_response(
    game: Game, request: pb.AnalyzeRequest, rules: object, shoes: int, rule: DealerRule
) -> pb.AnalyzeResponse:
    """The sheet ``request`` asks for, on the wire (``rules``: the request's, read; ``shoes``:
    the simulated shoes and ``rule`` blackjack's dealer rule, checked by the caller)."""
    sheet = build_par_sheet(_options(game, request, rules, shoes, rule))
    wire_game = pb.Game.Value(f"GAME_{game.name}")
    return pb.AnalyzeResponse(game=wire_game, par=sheet_to_proto(sheet, wire_game))
