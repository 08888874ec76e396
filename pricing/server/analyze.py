"""The Analyze RPC's answer: the reports of ``pricing.analysis`` as ``AnalyzeResponse``
messages (the numbers ``pricing analyze --json`` prints), and a live table's statistics."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from pricing.analysis.blackjack import DEFAULT_SHOES, BlackjackReport, blackjack_rtp
from pricing.analysis.goagae import GoaGaeReport, goagae_rtp
from pricing.analysis.higher_lower import HigherLowerReport, higher_lower_report
from pricing.analysis.hilo import HiLoReport, hilo_rtp
from pricing.analysis.live import LiveReport, live_stats
from pricing.analysis.par_blackjack import DEFAULT_PAR_SHOES as BLACKJACK_PAR_SHOES
from pricing.analysis.par_games import DEFAULT_PAR_SHOES
from pricing.analysis.par_simulated import MIN_SHOES as MIN_PAR_SHOES
from pricing.analysis.report import BetReport
from pricing.analysis.side_bets import side_bet_presets
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
from pricing.cards import MAX_DECKS
from pricing.errors import InvalidOption
from pricing.games.baccarat.table import BaccaratRules
from pricing.games.blackjack.rules import DealerRule
from pricing.games.dragon_tiger.table import DragonTigerRules
from pricing.games.goagae import GoaGaePaytable
from pricing.games.higher_lower import DEFAULT_DECKS, HigherLowerRules
from pricing.games.hilo import HiLoPaytable
from pricing.journal import Record
from pricing.server.analyze_par import MAX_PAR_BLACKJACK_SHOES, min_rtp, par_response
from pricing.tables import Game
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number, enum_short_name
from pricing.wire import RULES_FROM_PROTO, game_from_proto, ratio, seconds, timestamp

__all__ = [
    "MAX_SHOES",
    "MAX_TWO_HAND_SHOES",
    "answer_analyze",
    "answer_live",
    "check_live_request",
]

#: The most simulated shoes one Analyze may ask for: some 75 s of one core for every bet and
#: preset of the library (about 4 ms a shoe of each size, docs/BENCHMARKS.md), less for one bet.
MAX_SHOES: Final = 20_000
#: The most simulated shoes of baccarat or Dragon Tiger one Analyze may ask for: some 55 s of
#: one core for baccarat's 8-deck shoes, every bet priced before every round (about 27 ms a
#: shoe, docs/analysis/baccarat.md); Dragon Tiger's take less. Their PAR sheet (``par``) counts
#: every round's odds of every bet too: some 70 s for 2,000 baccarat shoes (about 35 ms a
#: shoe), 40 s for Dragon Tiger's, in about 60 MiB whatever the shoes (each shoe is counted
#: and dropped).
MAX_TWO_HAND_SHOES: Final = 2_000


def _bet(r: BetReport) -> pb.DynamicBetReport:
    return pb.DynamicBetReport(
        bet=r.bet,
        rule=pb.PayRule(
            rtp_bp=r.rule.rtp_bp,
            min_hundredths=r.rule.min_hundredths,
            max_hundredths=r.rule.max_hundredths,
        ),
        rtp=ratio(r.rtp),
        per_offered_round=ratio(r.per_offered_round),
        by_position=[ratio(x) for x in r.by_position],
        closed=ratio(r.closed),
        closed_by_position=[ratio(x) for x in r.closed_by_position],
        clamped_min=ratio(r.clamped_min),
        clamped_max=ratio(r.clamped_max),
        min_payout_hundredths=r.min_payout or 0,
        max_payout_hundredths=r.max_payout or 0,
        distribution=[
            pb.PayoutProbability(payout_hundredths=k, probability=float(v))
            for k, v in r.distribution.items()
        ],
    )


def _effects(effects: dict[str, Fraction]) -> list[pb.RankEffect]:
    return [pb.RankEffect(rank=rank, rtp_change=ratio(change)) for rank, change in effects.items()]


def report_to_proto(
    report: HiLoReport | GoaGaeReport | BlackjackReport | HigherLowerReport | TwoHandReport,
) -> pb.AnalyzeResponse:
    if isinstance(report, HigherLowerReport):
        return _higher_lower_to_proto(report)
    if isinstance(report, TwoHandReport):
        return _two_hands_to_proto(report)
    if isinstance(report, HiLoReport):
        return pb.AnalyzeResponse(
            game=pb.GAME_HILO,
            positions=report.positions,
            bets=[_bet(r) for r in report.bets.values()],
        )
    if isinstance(report, GoaGaeReport):
        return pb.AnalyzeResponse(
            game=pb.GAME_GOA_GAE,
            positions=report.rounds,
            bets=[_bet(r) for r in report.bets.values()],
            left_out=report.left_out,
        )
    side_bets = []
    for decks, by_key in report.by_penetration.items():
        for key, points in by_key.items():
            side_bets.append(
                pb.SideBetReport(
                    decks=decks,
                    bet=key,
                    full_shoe_rtp=ratio(report.full_shoe[decks][key]),
                    favourable_rounds=report.favourable_rounds[decks][key],
                    by_penetration=[
                        pb.PenetrationPoint(
                            cards_dealt=p.cards_dealt,
                            penetration=float(p.penetration),
                            simulated_mean=p.simulated_mean,
                            simulated_se=p.simulated_se,
                            spread=p.spread,
                            favourable=p.favourable,
                            favourable_se=p.favourable_se,
                            favourable_edge=p.favourable_edge,
                            favourable_edge_se=p.favourable_edge_se,
                        )
                        for p in points
                    ],
                    effect_of_removal=_effects(report.effect_of_removal[decks][key]),
                )
            )
    return pb.AnalyzeResponse(
        game=pb.GAME_BLACKJACK,
        side_bets=side_bets,
        shoes=report.shoes,
        seed=report.seed,
        dealer_rule=enum_number(pb.DealerRule, report.rule.value),  # type: ignore[arg-type]
    )


def _two_hands_to_proto(report: TwoHandReport) -> pb.AnalyzeResponse:
    """Every bet and preset at every shoe size as a ``SideBetReport`` (its effect of removal
    and penetration figures at the simulated sizes), and each size's simulated shoes."""
    side_bets = []
    for decks, rtps in report.full_shoe.items():
        sim = report.simulations.get(decks)
        for key, rtp in rtps.items():
            message = pb.SideBetReport(
                decks=decks,
                bet=key,
                full_shoe_rtp=ratio(rtp),
                effect_of_removal=_effects(report.effect_of_removal.get(decks, {}).get(key, {})),
            )
            if sim is not None and key in sim.overall:
                message.favourable_rounds = sim.overall[key].favourable
                message.by_penetration.extend(
                    pb.PenetrationPoint(
                        cards_dealt=int(row.low * 52 * decks),
                        penetration=row.low,
                        simulated_mean=row.mean_rtp,
                        simulated_se=row.mean_rtp_se,
                        spread=row.spread,
                        favourable=row.favourable,
                        favourable_se=row.favourable_se,
                        favourable_edge=row.favourable_edge,
                        favourable_edge_se=row.favourable_edge_se,
                    )
                    for row in sim.by_penetration[key]
                )
            side_bets.append(message)
    simulations = [
        pb.ShoeSimulation(
            decks=sim.decks,
            cut_card=sim.cut_card,
            burn=sim.burn,
            close_at_rtp_bp=sim.close_at_rtp_bp,
            rounds_per_shoe=sim.rounds_per_shoe,
            rounds_per_shoe_se=sim.rounds_per_shoe_se,
            strategies=[pb.StrategyResult(**s.as_dict()) for s in sim.strategies],
        )
        for sim in report.simulations.values()
    ]
    first = next(iter(report.simulations.values()), None)
    return pb.AnalyzeResponse(
        game=pb.GAME_BACCARAT if report.game == "baccarat" else pb.GAME_DRAGON_TIGER,
        side_bets=side_bets,
        shoes=0 if first is None else first.shoes,
        seed=0 if first is None else first.seed,
        simulations=simulations,
    )


def _shoes(request: pb.AnalyzeRequest, game: Game, default: int, most: int) -> int:
    """The simulated shoes a request asks for (0: ``default``), at most ``most``."""
    shoes = request.shoes or default
    if shoes > most:
        raise InvalidOption(
            f"shoes must be at most {most}, got {shoes} (0: {default} for GAME_{game.name})",
            field="shoes",
        )
    return shoes


def _two_hand_report(game: Game, request: pb.AnalyzeRequest, rules: object) -> pb.AnalyzeResponse:
    """Baccarat's or Dragon Tiger's report: ``rules`` (a table's, or None) say what the shoes
    price and protection's bound; ``decks``, ``shoes``, ``seed`` and ``cut_card`` how they are
    dealt."""
    assert rules is None or isinstance(rules, BaccaratRules | DragonTigerRules)
    if request.decks > MAX_DECKS:
        raise InvalidOption(
            f"decks {request.decks} is not allowed: send 1 to {MAX_DECKS} (0: the full-shoe "
            "RTPs of 1, 2, 4, 6 and 8 decks, the rest of 8)",
            field="decks",
        )
    shoes = _shoes(request, game, TWO_HAND_SHOES, MAX_TWO_HAND_SHOES)
    decks = (request.decks,) if request.decks else ()
    return report_to_proto(
        two_hand_report(
            "baccarat" if game is Game.BACCARAT else "dragon-tiger",
            decks=decks or TWO_HAND_DECKS,
            shoe_decks=decks or DEFAULT_SHOE_DECKS,
            shoes=shoes,
            seed=request.seed,
            cut_card=request.cut_card if request.HasField("cut_card") else DEFAULT_CUT_CARD,
            close_at_rtp_bp=(rules.close_at_rtp_bp if rules else 0) or 10_000,
            paytables=rules.paytables if rules else None,
        )
    )


def _higher_lower_to_proto(report: HigherLowerReport) -> pb.AnalyzeResponse:
    """One shuffle mode's overall figures: a continuous shuffler's one position (the base card
    drawn from the full shoe), or a depleting shoe's rounds. The figures per base card are
    the command line's (``pricing analyze higher-lower``)."""
    bets = report.continuous if report.continuous is not None else report.depleting
    assert bets is not None and (report.continuous is None or report.depleting is None)
    return pb.AnalyzeResponse(
        game=pb.GAME_HIGHER_LOWER,
        positions=1 if report.continuous is not None else report.rounds,
        bets=[_bet(r.overall) for r in bets.values()],
    )


def _dealer_rule(value: int) -> DealerRule:
    """A request's dealer rule (S17 when unspecified); ``InvalidOption`` for an unknown one."""
    if value == pb.DEALER_RULE_UNSPECIFIED:
        return DealerRule.S17
    try:
        return DealerRule.parse(enum_short_name(pb.DealerRule, value))
    except InvalidOption:
        raise InvalidOption(
            f"unknown dealer_rule {value}: expected DEALER_RULE_S17 or DEALER_RULE_H17",
            field="dealer_rule",
        ) from None


def answer_analyze(request: pb.AnalyzeRequest) -> pb.AnalyzeResponse:
    """The report an Analyze request asks for; a bad option is ``InvalidOption``."""
    game = game_from_proto(request.game)
    chosen = request.WhichOneof("rules")
    rules: object = None
    if chosen is not None:
        field, convert = RULES_FROM_PROTO[game]
        if chosen != field:
            raise InvalidOption(
                f"rules {chosen!r} were sent for a GAME_{game.name} analysis", field=chosen
            )
        rules = convert(getattr(request, field))
    if game is not Game.BLACKJACK:
        sent = _blackjack_options(request)
        if sent:
            raise InvalidOption(
                f"{', '.join(sent)} are for a GAME_BLACKJACK analysis, not GAME_{game.name}",
                field=sent[0],
            )
    two_hands = game in (Game.BACCARAT, Game.DRAGON_TIGER)
    sheet_decks = request.par and game is Game.BLACKJACK  # a sheet of blackjack names its shoe
    if game is not Game.HIGHER_LOWER and not two_hands and request.decks and not sheet_decks:
        raise InvalidOption(
            f"decks is for a GAME_HIGHER_LOWER, GAME_BACCARAT or GAME_DRAGON_TIGER analysis, not "
            f"GAME_{game.name}",
            field="decks",
        )
    if two_hands and request.HasField("cut_card"):
        cards = (request.decks or 8) * 52
        if request.cut_card >= cards:
            raise InvalidOption(
                f"cut_card {request.cut_card}: a shoe of {cards} cards takes it at most "
                f"{cards - 1} cards from the end",
                field="cut_card",
            )
    if not two_hands and request.HasField("cut_card"):
        raise InvalidOption(
            f"cut_card is for a GAME_BACCARAT or GAME_DRAGON_TIGER analysis, not GAME_{game.name}",
            field="cut_card",
        )
    if game is not Game.GOA_GAE and (request.rounds or request.cards_per_round):
        raise InvalidOption(
            f"rounds and cards_per_round are for a GAME_GOA_GAE analysis, not GAME_{game.name}",
            field="rounds" if request.rounds else "cards_per_round",
        )
    if request.par or request.HasField("min_rtp_bp") or request.HasField("close_at_rtp_bp"):
        return _par(game, request, rules, chosen)
    if two_hands:
        return _two_hand_report(game, request, rules)
    if game is Game.HILO:
        assert rules is None or isinstance(rules, HiLoPaytable)
        return report_to_proto(hilo_rtp(rules or HiLoPaytable()))
    if game is Game.HIGHER_LOWER:
        assert rules is None or isinstance(rules, HigherLowerRules)
        table = rules or HigherLowerRules()
        decks = request.decks or DEFAULT_DECKS
        if decks > MAX_DECKS:
            raise InvalidOption(
                f"decks {decks} is not allowed for Higher/Lower: send 1 to {MAX_DECKS} (0: "
                f"{DEFAULT_DECKS})",
                field="decks",
            )
        return report_to_proto(
            higher_lower_report(
                table.paytable, decks=decks, burns=table.burns, modes=(table.shuffle,)
            )
        )
    if game is Game.GOA_GAE:
        assert rules is None or isinstance(rules, GoaGaePaytable)
        return report_to_proto(
            goagae_rtp(
                rules or GoaGaePaytable(),
                rounds=max(request.rounds, 1),
                cards_per_round=request.cards_per_round or 6,
            )
        )
    if rules is not None:
        raise InvalidOption(
            "blackjack's Analyze reports the side-bet library's presets (side_bet and preset "
            "choose among them): send no rules",
            field=chosen,
        )
    shoes = _shoes(request, game, DEFAULT_SHOES, MAX_SHOES)
    for field, (bet, preset) in (
        ("side_bet", (request.side_bet, "")),
        ("preset", (request.side_bet, request.preset)),
    ):
        try:
            side_bet_presets(bet, preset)
        except InvalidOption as exc:
            raise InvalidOption(str(exc), field=field) from None
    return report_to_proto(
        blackjack_rtp(
            shoes=shoes,
            seed=request.seed,
            rule=_dealer_rule(request.dealer_rule),
            bet=request.side_bet,
            preset=request.preset,
        )
    )


def _par(
    game: Game, request: pb.AnalyzeRequest, rules: object, chosen: str | None
) -> pb.AnalyzeResponse:
    """The PAR sheet: the report's options, checked as the report checks them."""
    min_rtp(request)
    # Its bound is the sheet's to check (blackjack_par_sheet: check_close_at_rtp_bp).
    if request.HasField("close_at_rtp_bp") and game is not Game.BLACKJACK:
        raise InvalidOption(
            f"close_at_rtp_bp is for a GAME_BLACKJACK sheet; GAME_{game.name}'s comes with its "
            "rules",
            field="close_at_rtp_bp",
        )
    if game is Game.BLACKJACK:
        if rules is not None:
            raise InvalidOption(
                "blackjack's PAR sheet covers the side-bet library's presets (side_bet and "
                "preset choose among them): send no rules",
                field=chosen,
            )
        shoes = _shoes(request, game, BLACKJACK_PAR_SHOES, MAX_PAR_BLACKJACK_SHOES)
    else:
        shoes = _shoes(request, game, DEFAULT_PAR_SHOES, MAX_TWO_HAND_SHOES)
    simulated = game in (Game.BLACKJACK, Game.BACCARAT, Game.DRAGON_TIGER)
    if simulated and request.shoes and request.shoes < MIN_PAR_SHOES:
        raise InvalidOption(
            f"shoes must be at least {MIN_PAR_SHOES} for a PAR sheet (its standard errors need "
            f"two shoes), got {request.shoes} (0: the sheet's default)",
            field="shoes",
        )
    return par_response(game, request, rules, shoes, _dealer_rule(request.dealer_rule))


def _blackjack_options(request: pb.AnalyzeRequest) -> list[str]:
    """The blackjack report's own options a request sent."""
    return [
        name
        for name, value in (
            ("side_bet", request.side_bet),
            ("preset", request.preset),
            ("dealer_rule", request.dealer_rule),
        )
        if value
    ]


def live_to_proto(report: LiveReport) -> pb.AnalyzeResponse:
    bets = []
    for s in report.bets.values():
        bet = pb.LiveBetStats(
            bet=s.bet,
            stakes=s.stakes,
            wins=s.wins,
            returned=ratio(s.returned),
            expected=ratio(s.expected),
            standard_error=s.standard_error,
            z=s.z or 0.0,
            flagged=s.flagged,
        )
        if s.certified is not None:
            bet.certified.CopyFrom(ratio(s.certified))
        bets.append(bet)
    return pb.AnalyzeResponse(
        game=int(report.game),  # type: ignore[arg-type]
        live=pb.LiveStats(
            table_ids=report.table_ids,
            rounds=report.rounds,
            void_rounds=report.void_rounds,
            first_at=None if report.first_at is None else timestamp(report.first_at),
            last_at=None if report.last_at is None else timestamp(report.last_at),
            bets=bets,
        ),
    )


def check_live_request(request: pb.AnalyzeRequest, game: Game) -> None:
    """An Analyze with a ``table_id`` (of a ``game`` table) carries nothing of a theoretical
    report: ``InvalidOption`` naming what it does carry."""
    if request.game and game_from_proto(request.game) is not game:
        raise InvalidOption(
            f"table {request.table_id!r} is a {pb.Game.Name(int(game))} table, not "  # type: ignore[arg-type]
            f"{pb.Game.Name(request.game)}: leave game out with a table_id",
            field="game",
        )
    extra = [
        name
        for name, value in (
            ("rules", request.WhichOneof("rules")),
            ("rounds", request.rounds),
            ("cards_per_round", request.cards_per_round),
            ("decks", request.decks),
            ("shoes", request.shoes),
            ("seed", request.seed),
            ("cut_card", request.HasField("cut_card")),
        )
        if value
    ] + _blackjack_options(request)
    if extra:
        raise InvalidOption(
            f"{', '.join(extra)} are for the theoretical report: a table_id's statistics use "
            "the table's own rules",
            field=extra[0],
        )
    since, until = _bounds(request)
    if since is not None and until is not None and until <= since:
        raise InvalidOption(
            f"until {request.until.ToJsonString()} is not after since "
            f"{request.since.ToJsonString()}",
            field="until",
        )


def _bounds(request: pb.AnalyzeRequest) -> tuple[float | None, float | None]:
    """The request's since and until in Unix seconds (None: not sent, no bound)."""
    bounds: list[float | None] = []
    for name in ("since", "until"):
        if not request.HasField(name):
            bounds.append(None)
            continue
        try:
            bounds.append(seconds(getattr(request, name)))
        except ValueError as exc:  # outside 0001-01-01 .. 9999-12-31, or negative nanos
            raise InvalidOption(f"{name} is not a valid time: {exc}", field=name) from None
    return bounds[0], bounds[1]


def answer_live(request: pb.AnalyzeRequest, records: Sequence[Record]) -> pb.AnalyzeResponse:
    """The live statistics of the table whose journal is ``records``."""
    since, until = _bounds(request)
    return live_to_proto(live_stats([records], since=since, until=until))
