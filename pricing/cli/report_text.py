"""``pricing analyze``'s reports as text tables and as JSON: each game's theoretical report
(``format_report``) and the live statistics of tables (``format_live``)."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Final

from pricing.analysis.blackjack import RemovalReport
from pricing.analysis.build import Report
from pricing.analysis.goagae import GoaGaeReport
from pricing.analysis.higher_lower import HigherLowerReport, NextCardBetReport
from pricing.analysis.hilo import HiLoReport
from pricing.analysis.live import FLAG_SE, LiveReport
from pricing.analysis.main_game import QUANTILE, MainGameReport
from pricing.analysis.report import BetReport
from pricing.analysis.two_hands import TwoHandReport
from pricing.analysis.two_hands_sim import COUNTS, Simulation
from pricing.games.blackjack.decisions import MainGameRules
from pricing.tables import Game

__all__ = [
    "as_json",
    "decks_text",
    "format_higher_lower",
    "format_live",
    "format_main_game",
    "format_removal",
    "format_report",
    "format_two_hands",
    "rules_text",
]


def _odds(hundredths: int | None) -> str:
    return "--" if hundredths is None else f"{hundredths / 100:.2f}"


def _bet_rows(bets: Mapping[str, BetReport], position: str) -> list[str]:
    head = (
        f"{'bet':<15} {'RTP':>8} {'set':>6} {'worst ' + position:>12} {'best ' + position:>11} "
        f"{'closed':>8} {'clamp lo':>9} {'clamp hi':>9} {'min':>7} {'max':>7}"
    )
    rows = [head]
    for bet, r in bets.items():
        set_rtp = r.rule.rtp_bp / 10_000
        rows.append(
            f"{bet:<15} {float(r.rtp):8.4%} {set_rtp:6.1%} {float(min(r.by_position)):12.4%} "
            f"{float(max(r.by_position)):11.4%} {float(r.closed):8.4%} "
            f"{float(r.clamped_min):9.4%} {float(r.clamped_max):9.4%} "
            f"{_odds(r.min_payout):>7} {_odds(r.max_payout):>7}"
        )
    return rows


def format_report(report: Report) -> str:
    """The report as a text table (exact figures shown to 4 decimals of a percent)."""
    if isinstance(report, HiLoReport):
        lines = [
            "Hi-Lo: exact return to player over a uniformly shuffled deck, per unit staked",
            "(RTP: mean over the 10 result positions of the return given the bet is offered;",
            " min/max: the extreme payouts offered, odds to 1)",
            *_bet_rows(report.bets, "pos."),
        ]
        return "\n".join(lines)
    if isinstance(report, GoaGaeReport):
        deal = (
            "a fresh deck every round"
            if report.rounds == 1
            else f"{report.rounds} rounds of {report.cards_per_round} cards from one deck"
        )
        lines = [f"Goa Gae category bets: exact return to player, {deal}"]
        lines += _bet_rows(report.bets, "round")
        if report.left_out:
            lines.append(f"left out (no exact count for this deal): {', '.join(report.left_out)}")
        return "\n".join(lines)
    if isinstance(report, RemovalReport):
        return format_removal(report)
    if isinstance(report, HigherLowerReport):
        return format_higher_lower(report)
    if isinstance(report, MainGameReport):
        return format_main_game(report)
    if isinstance(report, TwoHandReport):
        return format_two_hands(report)
    width = max([28, *(len(key) for by_key in report.full_shoe.values() for key in by_key)])
    lines = [
        f"Blackjack side bets: exact full-shoe RTP; by penetration over {report.shoes:,} "
        f"simulated shoes (seed {report.seed}), mean ± standard error; dealer "
        f"{report.rule.value}",
        f"{'decks':>5} {'bet/preset':<{width}} {'full shoe':>9} {'dealt':>6} {'mean ± se':>19} "
        f"{'spread':>7} {'favourable ± se':>17} {'edge if fav. ± se':>17}",
    ]
    for decks, by_key in report.by_penetration.items():
        for key, points in by_key.items():
            for p in points:
                lines.append(
                    f"{decks:>5} {key:<{width}} {float(report.full_shoe[decks][key]):9.5f} "
                    f"{float(p.penetration):6.0%} {p.simulated_mean:9.5f} ± "
                    f"{p.simulated_se:.5f} {p.spread:7.4f} {p.favourable:8.4f} ± "
                    f"{p.favourable_se:.4f} {p.favourable_edge:8.4f} ± {p.favourable_edge_se:.4f}"
                )
    return "\n".join(lines)


def format_removal(report: RemovalReport) -> str:
    """The effect of removal as text: per shoe size and bet, each rank's exact change in the
    full-shoe RTP, in percentage points and as a fraction, and their sum (0: the check)."""
    lines = [
        f"Blackjack side bets, dealer {report.rule.value}: effect of removal, the exact change "
        "in the full-shoe RTP",
        "when one card of a rank leaves the shoe (its suit uniform among the four), in percentage",
        "points (pp) and as a fraction; the 13 changes sum to 0",
    ]
    for decks, by_key in report.effect_of_removal.items():
        for key, effects in by_key.items():
            rtp = report.full_shoe[decks][key]
            lines += [
                "",
                f"{key}, {decks} decks: full-shoe RTP {float(rtp):.6f} ({float(rtp):.4%})",
                f"{'rank':<4} {'change pp':>10}  exact change",
            ]
            for rank, change in [*effects.items(), ("sum", sum(effects.values(), Fraction(0)))]:
                lines.append(f"{rank:<4} {float(change) * 100:+10.5f}  {change}")
    return "\n".join(lines)


_TITLES: Final = {"baccarat": "Baccarat", "dragon-tiger": "Dragon Tiger"}


def _pm(value: float, se: float, digits: int = 3) -> str:
    return f"{value:+.{digits}f} ± {se:.{digits}f}"


def format_two_hands(report: TwoHandReport) -> str:
    """Baccarat's or Dragon Tiger's report as text: RTPs in percent to 4 decimals, effects of
    removal in percentage points, simulated figures ± their standard errors (the exact
    fractions are in ``--json``)."""
    title = _TITLES[report.game]
    sizes = list(report.full_shoe)
    keys = list(report.full_shoe[sizes[0]])
    width = max(len(k) for k in keys) + 1
    lines = [
        f"{title}: exact full-shoe RTP, per unit staked (stake included)",
        f"{'bet/preset':<{width}}" + "".join(f"{decks_text(d):>11}" for d in sizes),
    ]
    for key in keys:
        lines.append(
            f"{key:<{width}}" + "".join(f"{float(report.full_shoe[d][key]):>11.4%}" for d in sizes)
        )
    for decks, by_key in report.effect_of_removal.items():
        lines += [
            "",
            f"Effect of removal, {decks_text(decks)}: the exact change in the full-shoe RTP, in "
            "percentage points, when one card of the rank leaves the shoe (the 13 sum to 0)",
            f"{'bet/preset':<{width}}" + "".join(f"{rank:>8}" for rank in _RANKS),
        ]
        for key, effects in by_key.items():
            lines.append(
                f"{key:<{width}}" + "".join(f"{float(x) * 100:>+8.4f}" for x in effects.values())
            )
    for sim in report.simulations.values():
        lines += ["", *_simulation_text(report, sim, width)]
    return "\n".join(lines)


_RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _simulation_text(report: TwoHandReport, sim: Simulation, width: int) -> list[str]:
    burn = "after the opening burn" if sim.burn else "with no burn"
    lines = [
        f"{sim.shoes:,} simulated {sim.decks}-deck shoes (seed {sim.seed}), dealt {burn} "
        f"to a cut card {sim.cut_card} cards from the end: {sim.rounds_per_shoe:.2f} ± "
        f"{sim.rounds_per_shoe_se:.2f} rounds a shoe",
        "each bet over the rounds: share player-favourable (exact RTP > 1) and the mean edge "
        "then; an exact player's units per shoe (one unit whenever favourable) and their "
        "expectation, ± standard errors",
        f"{'bet/preset':<{width}} {'favourable ± se':>17} {'edge if fav. ± se':>18} "
        f"{'units/shoe ± se':>17} {'expected ± se':>17} {'bets/shoe':>9}",
    ]
    exact = {s.bets[0]: s for s in sim.strategies if s.rule == "exact" and len(s.bets) == 1}
    for key, row in sim.overall.items():
        s = exact[key]
        lines.append(
            f"{key:<{width}} {row.favourable:8.4f} ± {row.favourable_se:.4f} "
            f"{row.favourable_edge:8.4f} ± {row.favourable_edge_se:.4f}  "
            f"{_pm(s.units_per_shoe, s.units_per_shoe_se):>16} "
            f"{_pm(s.expected_per_shoe, s.expected_per_shoe_se):>17} {s.bets_per_shoe:9.2f}"
        )
    played = {key.split("/")[0] for key in sim.overall}
    triggers = "; ".join(
        f"{c.name}: {c.bet} at a true count of {c.trigger:+d} or more"
        for c in COUNTS
        if c.bet in played
    )
    lines += [
        "",
        f"players, one unit a bet ({triggers or 'no published count'}); with protection at "
        f"{sim.close_at_rtp_bp} bp a side bet is refused in a round whose exact RTP is at or "
        "over it",
        f"{'player':<{width + 18}} {'units/shoe ± se':>17} {'expected ± se':>17} "
        f"{'bets':>6} | {'protected ± se':>17} {'expected ± se':>17} {'refused':>7}",
    ]
    for s in sim.strategies:
        if len(s.bets) == 1 and s.rule == "exact" and s.bets[0].split("/")[0] not in report.shown:
            continue
        lines.append(
            f"{s.name:<{width + 18}} {_pm(s.units_per_shoe, s.units_per_shoe_se):>17} "
            f"{_pm(s.expected_per_shoe, s.expected_per_shoe_se):>17} {s.bets_per_shoe:6.2f} | "
            f"{_pm(s.protected_units_per_shoe, s.protected_units_per_shoe_se):>17} "
            f"{_pm(s.protected_expected_per_shoe, s.protected_expected_per_shoe_se):>17} "
            f"{s.refused_per_shoe:7.2f}"
        )
    for key, rows in sim.by_penetration.items():
        if key.split("/")[0] not in report.shown:
            continue
        lines += [
            "",
            f"{key} by penetration (the share of the shoe dealt when the round starts)",
            f"{'dealt':>9} {'rounds':>7} {'mean RTP ± se':>19} {'spread':>7} "
            f"{'favourable ± se':>17} {'edge if fav. ± se':>18}",
        ]
        for r in rows:
            lines.append(
                f"{r.low:4.0%}-{r.high:<4.0%} {r.rounds:7,} {r.mean_rtp:9.4%} ± "
                f"{r.mean_rtp_se:.4%} {r.spread:7.4f} {r.favourable:8.4f} ± {r.favourable_se:.4f} "
                f"{r.favourable_edge:8.4f} ± {r.favourable_edge_se:.4f}"
            )
    return lines


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def decks_text(n: int) -> str:
    """``6 decks``, ``1 deck``."""
    return f"{n} deck{'s' if n > 1 else ''}"


def rules_text(rules: MainGameRules) -> str:
    """The main game's rule options in a few words."""
    return (
        f"dealer {rules.dealer_rule.value}, double after split {_yes(rules.double_after_split)}, "
        f"{rules.max_splits} split{'s' if rules.max_splits > 1 else ''}, "
        f"surrender {_yes(rules.surrender)}"
    )


def format_main_game(report: MainGameReport) -> str:
    """The main-game report as text: edges in percent of the original wager (+: the player
    is favoured), exact figures to 6 decimals, simulated ones to 4 with their standard errors."""
    which = "every rule set" if report.all_rules else "the default rules by dealer rule"
    lines = [
        "Blackjack main game: the next round's player edge per unit of the original wager "
        "(+: player favoured)",
        f"Full shoe, exact, {which}: CDZ- (composition-dependent play) and basic strategy",
        f"{'decks':>5} {'dealer':>6} {'DAS':>4} {'splits':>6} {'surr.':>5} "
        f"{'CDZ- edge':>11} {'basic edge':>11} {'CDZ- gain':>10}",
    ]
    for r in report.full_shoe:
        lines.append(
            f"{r.decks:>5} {r.rules.dealer_rule.value:>6} {_yes(r.rules.double_after_split):>4} "
            f"{r.rules.max_splits:>6} {_yes(r.rules.surrender):>5} {r.composition:+11.6%} "
            f"{r.basic:+11.6%} {r.composition - r.basic:+10.6%}"
        )
    for decks, up in report.up_cards.items():
        lines += [
            "",
            f"{decks_text(decks)}, full shoe, {rules_text(report.rules)}: the round's EV given the "
            "dealer's up card (best play on every deal)",
            f"{'up':>3} {'chance':>9} {'EV given up':>12} {'share of edge':>14}",
        ]
        for row in up.rows:
            lines.append(
                f"{row.name:>3} {row.probability:9.4%} {row.ev:+12.6%} {row.contribution:+14.6%}"
            )
        lines.append(
            f"{'all':>3} {math.fsum(r.probability for r in up.rows):9.4%} {'':>12} "
            f"{up.total:+14.6%}  (player_edge {up.edge:+.6%})"
        )
    for decks, points in report.penetration.items():
        computed = 1 + sum(p.priced + p.skipped for p in points if p.cards_dealt)
        lines += [
            "",
            f"{decks_text(decks)}, {rules_text(report.rules)}: the next round's edge (CDZ-) by "
            f"penetration over {report.shoes:,} simulated shoes (seed {report.seed}; "
            f"{computed:,} edges computed)",
            f"{'dealt':>5} {'cards':>5} {'skip':>4} {'mean edge ± se':>19} {'spread':>8} "
            f"{'favourable ± se':>17} {'edge if fav. ± se':>19} {f'{QUANTILE:.0%} pct':>9}",
        ]
        for p in points:
            lines.append(
                f"{p.percent:>4}% {p.cards_dealt:>5} {p.skipped:>4} {p.mean:+9.4%} ± "
                f"{p.mean_se:.4%} {p.spread:8.4%} {p.favourable:7.2%} ± {p.favourable_se:6.2%} "
                f"{p.favourable_edge:+8.4%} ± {p.favourable_edge_se:.4%} {p.quantile:+9.4%}"
            )
    return "\n".join(lines)


def _pays(pay: int | None) -> str:
    """A payout "for one" (stake included), as the provider prints it."""
    return "closed" if pay is None else f"{1 + pay / 100:.2f}"


def _pct4(x: Fraction) -> str:
    return f"{float(x):.4%}"


def _overall_rows(bets: dict[str, NextCardBetReport], depleting: bool) -> list[str]:
    rows = [
        f"{'bet':<12} {'RTP':>9} {'offered':>9} {'worst rd':>9} {'best rd':>9} {'closed':>9} "
        f"{'clamp lo':>9} {'clamp hi':>9} {'min':>6} {'max':>7}"
        if depleting
        else f"{'bet':<12} {'RTP':>9} {'closed':>9} {'min':>6} {'max':>7}"
    ]
    for bet, b in bets.items():
        r = b.overall
        pays = f"{_pays(r.min_payout):>6} {_pays(r.max_payout):>7}"
        if depleting:
            live = [x for x, c in zip(r.by_position, r.closed_by_position, strict=True) if c < 1]
            rows.append(
                f"{bet:<12} {_pct4(r.rtp):>9} {_pct4(r.per_offered_round):>9} "
                f"{_pct4(min(live)):>9} {_pct4(max(live)):>9} {_pct4(r.closed):>9} "
                f"{_pct4(r.clamped_min):>9} {_pct4(r.clamped_max):>9} {pays}"
            )
        else:
            rows.append(f"{bet:<12} {_pct4(r.rtp):>9} {_pct4(r.closed):>9} {pays}")
    return rows


def _base_rows(report: HigherLowerReport) -> list[str]:
    """Per bet and base group: the continuous price (pays for one, P(win), RTP) and the
    depleting RTP and closed chance averaged over the rounds."""
    fresh, depleted = report.continuous, report.depleting
    main = fresh if fresh is not None else depleted
    assert main is not None
    head = f"{'bet':<12} {'base':<22} {'P(base)':>8}"
    if fresh is not None:
        head += f" {'pays':>6} {'P(win)':>9} {'RTP':>9}"
    if depleted is not None:
        head += f" {'depl. RTP':>9} {'closed':>9}"
    rows = [head]
    for bet, b in main.items():
        for i, g in enumerate(b.by_base):
            row = f"{bet if i == 0 else '':<12} {g.label:<22} {float(g.probability):8.2%}"
            if fresh is not None:
                r = fresh[bet].by_base[i].report
                win = Fraction(g.winners, report.deck_size - 1)
                row += f" {_pays(r.min_payout):>6} {_pct4(win):>9} {_pct4(r.rtp):>9}"
            if depleted is not None:
                r = depleted[bet].by_base[i].report
                row += f" {_pct4(r.rtp):>9} {_pct4(r.closed):>9}"
            rows.append(row)
    return rows


def format_higher_lower(report: HigherLowerReport) -> str:
    """The report as text tables (exact figures shown to 4 decimals of a percent; pays "for
    one", stake included, as the provider prints them)."""
    lines = [
        f"Higher/Lower: exact return to player per unit staked, stake included; {report.decks} "
        f"deck{'s' if report.decks > 1 else ''} of {report.deck_size // report.decks} cards, "
        f"{report.burns} burns before each result",
    ]
    if report.continuous is not None:
        lines += [
            "",
            "Continuous shuffler: the next card is uniform over the full shoe without the base",
            "(RTP given the bet is offered, the base card drawn from the full shoe)",
            *_overall_rows(report.continuous, depleting=False),
        ]
    if report.depleting is not None:
        lines += [
            "",
            f"Depleting shoe: {report.rounds} rounds (RTP: mean over the rounds of the return "
            "given the bet is offered;",
            " offered: per unit staked on every round it is offered; rd: round)",
            *_overall_rows(report.depleting, depleting=True),
        ]
    averaged = " (depleting: averaged over the rounds)" if report.depleting is not None else ""
    lines += ["", f"By base card{averaged}", *_base_rows(report)]
    return "\n".join(lines)


def _when(at: float | None) -> str:
    if at is None:
        return "--"
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pct(x: object) -> str:
    return "--" if x is None else f"{float(x):.2%}"  # type: ignore[arg-type]


_GAME_NAMES: Final = {
    Game.HILO: "Hi-Lo",
    Game.GOA_GAE: "Goa Gae",
    Game.BLACKJACK: "Blackjack",
    Game.HIGHER_LOWER: "Higher/Lower",
    Game.BACCARAT: "Baccarat",
    Game.DRAGON_TIGER: "Dragon Tiger",
}
_CERTIFIED: Final = {
    Game.HILO: "the exact report's RTP per offered round (pricing analyze hilo)",
    Game.HIGHER_LOWER: "the exact report's RTP per offered round in the table's shuffle mode "
    "(pricing analyze higher-lower)",
    Game.BLACKJACK: "the side bet's exact full-shoe RTP (pricing analyze blackjack)",
    Game.BACCARAT: "the bet's exact full-shoe RTP (pricing analyze baccarat)",
    Game.DRAGON_TIGER: "the bet's exact full-shoe RTP (pricing analyze dragon-tiger)",
}


def format_live(report: LiveReport) -> str:
    """The live statistics as a text table."""
    which = "table" if len(report.table_ids) == 1 else "tables"
    lines = [
        f"{_GAME_NAMES[report.game]} live statistics, {which} {', '.join(report.table_ids)}: "
        f"{report.rounds:,} rounds played, {report.void_rounds:,} void (refunded)",
        f"rounds ended {_when(report.first_at)} to {_when(report.last_at)}"
        + (
            f" (asked: {_when(report.since)} to {_when(report.until)})"
            if report.since is not None or report.until is not None
            else ""
        ),
        "returned: per unit staked on every round the bet was offered, stake included",
        f"expected: exact at the prices offered; interval: expected ± {FLAG_SE} standard errors",
    ]
    if report.game in _CERTIFIED:
        lines.append(f"certified: {_CERTIFIED[report.game]}")
    lines.append(
        f"{'bet':<15} {'stakes':>7} {'wins':>6} {'returned':>9} {'expected':>9} "
        f"{'interval':^17} {'z':>6} {'certified':>9}"
    )
    for bet, s in report.bets.items():
        low, high = s.interval
        z = "--" if s.z is None else f"{s.z:+.2f}"
        lines.append(
            f"{bet:<15} {s.stakes:>7,} {s.wins:>6,} {_pct(s.returned):>9} {_pct(s.expected):>9} "
            f"{_pct(low):>8}-{_pct(high):<8} {z:>6} {_pct(s.certified):>9}"
            + ("  FLAGGED" if s.flagged else "")
        )
    flagged = report.flagged
    lines.append(
        f"FLAGGED, beyond {FLAG_SE} standard errors: {', '.join(flagged)}"
        if flagged
        else f"no bet beyond {FLAG_SE} standard errors"
    )
    return "\n".join(lines)


def as_json(report: Report | LiveReport) -> str:
    """The report as JSON (``--json``): its ``as_dict()``, indented."""
    return json.dumps(report.as_dict(), indent=2, sort_keys=False)
