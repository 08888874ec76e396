"""How ``pricing`` shows the service's messages: one watch line per table version (with its
legend), a table's summary, a quote, a settlement, and ``--json`` output for any of them.

Every function here takes a ``pricing.v1`` message and returns text; nothing is printed and no
game rule is applied (the numbers are the service's own).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final, TextIO

from google.protobuf import json_format
from google.protobuf.message import Message

from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name

__all__ = [
    "DEALER_RESULTS",
    "WATCH_WIDTH",
    "WatchPrinter",
    "format_ended",
    "format_figures",
    "format_position",
    "format_quote",
    "format_settlement",
    "format_state",
    "format_table",
    "message_dict",
    "message_json",
    "print_json",
    "watch_header",
]

#: Columns a watch line fits in, whatever the game.
WATCH_WIDTH: Final = 100

#: The dealer's final results, in the order ``DealerOutcomes`` lists them.
DEALER_RESULTS: Final = ("17", "18", "19", "20", "21", "BJ", "BUST")

#: Header labels of bets whose names are wider than a column.
_LABELS: Final = {
    "STRAIGHT_FLUSH": "ST.FL",
    "ROYAL_MATCH": "ROYAL",
    "RANGE_2_5": "2-5",
    "RANGE_6_9": "6-9",
    "RANGE_J_A": "J-A",
    "KING_OR_ACE": "K/A",
    # baccarat
    "PLAYER_PAIR": "P.PR",
    "BANKER_PAIR": "B.PR",
    "EITHER_PAIR": "E.PR",
    "PERFECT_PAIR": "PERF",
    "DRAGON_7": "D7",
    "PANDA_8": "P8",
    "DRAGON_BONUS_PLAYER": "DB.P",
    "DRAGON_BONUS_BANKER": "DB.B",
    "LUCKY_6": "L6",
    "SUPER_6": "S6",
    **{f"EGALITE_{n}": f"EG{n}" for n in range(10)},
    # Dragon Tiger
    "SUITED_TIE": "S.TIE",
    **{
        f"{side}_{kind}": f"{side[0]}.{label}"
        for side in ("DRAGON", "TIGER")
        for kind, label in (("BIG", "BIG"), ("SMALL", "SML"), ("ODD", "ODD"), ("EVEN", "EVN"))
    },
}

#: The games whose every bet is a fixed paytable's, shown by RTP: the next round's while
#: betting, the round's given its cards while it is dealt.
_TWO_HAND_GAMES: Final = (pb.GAME_BACCARAT, pb.GAME_DRAGON_TIGER)

_ROUND_LINE: Final = "; a round's result is shown on a line of its own"

#: What starts a line of figures computed after their version's line was printed.
_FIGURES_MARK: Final = "  +"
_FIGURES_LEGEND: Final = (
    f"# {_FIGURES_MARK.strip()} vN: version N's figures once computed: the next round's player "
    "edge, each seat's best action"
)


def _legend(game: int, round_lines: bool, figures: bool) -> list[str]:
    """What the numbers of ``format_state``'s lines are; ``round_lines``: the lines of rounds
    that ended come between them (a watch); ``figures``: so do lines of blackjack's figures."""
    note = _ROUND_LINE if round_lines else ""
    if game == pb.GAME_BLACKJACK:
        legend = [
            "# side bets: RTP % of the next round while betting (! favours the player); "
            "INS: insurance RTP %",
            f"# 17 ... BUST: % of the dealer's final results{note}",
        ]
        return [*legend, _FIGURES_LEGEND] if figures else legend
    if game in _TWO_HAND_GAMES:
        return [
            "# RTP % of each bet: the next round's while betting, the round's while dealt",
            f"# ! favours the player; -- closed by game protection{note}",
        ]
    return [f"# payout to 1 of each bet (-- closed){note}"]


#: Blackjack's phases are BETTING and DEALING: its columns take the room of SHOE_COMPLETE.
#: Higher/Lower's ten bets need the room too: its SHOE_COMPLETE is shown as COMPLETE.
_PHASE_WIDTH: Final[dict[int, int]] = {pb.GAME_BLACKJACK: 8, pb.GAME_HIGHER_LOWER: 9}
#: The narrowest payout column (a payout to 1 up to 99.99 and a space); Higher/Lower's ten
#: bets, whose pays stay under 100 : 1, take one column less each.
_MIN_WIDTH: Final[dict[int, int]] = {pb.GAME_HIGHER_LOWER: 5}


def _odds(hundredths: int) -> str:
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.1f}"


def _head(game: int, fields: tuple[str, str, str, str, str]) -> str:
    """Version, shoe and round, phase, last card, cards left; then the bar."""
    version, where, phase, last, left = fields
    width = _PHASE_WIDTH.get(game, 14)
    return f"{version:<7}{where:<11}{phase:<{width}}{last:>4}{left:>5} | "


def _cells(columns: list[tuple[str, int]], texts: list[str]) -> str:
    cells = "".join(f"{text:>{width}}" for text, (_, width) in zip(texts, columns, strict=True))
    return cells.rstrip()


def _shown_bets(state: pb.TableState, chosen: tuple[str, ...]) -> list[str]:
    """The fixed-paytable bets a line shows: every one but in baccarat and Dragon Tiger,
    whose many bets do not fit: there those ``chosen`` (all of them that the table offers),
    or else the main bets and the side bets that fit in ``WATCH_WIDTH`` columns."""
    bets = [sb.bet for sb in state.side_bets]
    if state.game not in _TWO_HAND_GAMES:
        return bets
    if chosen:
        return [bet for bet in bets if bet in chosen]
    room = WATCH_WIDTH - len(_head(state.game, ("",) * 5))
    shown = []
    for bet in bets:
        room -= max(6, len(_LABELS.get(bet, bet))) + 1
        if room < 0:
            break
        shown.append(bet)
    return shown


def _columns(state: pb.TableState, chosen: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """The columns after the bar, each a label and a width: each dynamic bet's payout; or
    the fixed-paytable bets (``_shown_bets``) and blackjack's dealer results and insurance."""
    bets = [p.bet for p in state.prices] + _shown_bets(state, chosen)
    labels = [_LABELS.get(bet, bet) for bet in bets]
    narrowest = _MIN_WIDTH.get(state.game, 6)
    columns = [(label, max(narrowest, len(label)) + 1) for label in labels]
    if state.game == pb.GAME_BLACKJACK:  # a percentage is at most 100.0, its column narrower
        columns += [(name, 6) for name in DEALER_RESULTS] + [("INS", 6)]
    return columns


def _rtp_cell(sb: pb.SideBetOdds) -> str:
    """The RTP in percent; 1000 % or more (a round's odds once a pair is dealt) without its
    decimal, so that it keeps its column's space."""
    percent = _percent(sb.rtp) if sb.rtp < 9.9995 else f"{100 * sb.rtp:.0f}"
    return percent + ("!" if sb.player_favourable else "")


def _values(state: pb.TableState, chosen: tuple[str, ...] = ()) -> list[str]:
    cells = [_odds(p.payout_hundredths) if p.open else "--" for p in state.prices]
    shown = _shown_bets(state, chosen)
    by_bet = {sb.bet: sb for sb in state.side_bets}
    in_round = {sb.bet: sb for sb in state.round_odds}
    for bet in shown:  # the next round's odds: shown while it can be bet
        sb = by_bet[bet]
        if sb.open:
            cells.append(_rtp_cell(sb))
        elif bet in in_round:  # a round being dealt: its odds given its cards
            cells.append(_rtp_cell(in_round[bet]))
        else:
            cells.append("--" if sb.closed_by_protection else "")
    if state.game == pb.GAME_BLACKJACK:
        dealer = {o.name: o.probability for o in state.dealer_outcomes.outcomes}
        cells += [_percent(dealer[name]) if dealer.get(name) else "" for name in DEALER_RESULTS]
        insurance = state.insurance
        cells.append(
            _percent(insurance.rtp) + ("!" if insurance.player_favourable else "")
            if state.HasField("insurance")
            else ""
        )
    return cells


def watch_header(
    state: pb.TableState,
    *,
    round_lines: bool = True,
    figures: bool = False,
    bets: tuple[str, ...] = (),
) -> list[str]:
    """The legend of ``format_state``'s lines for a table like ``state``: what the numbers
    are, then a header over the columns (naming each bet). ``round_lines`` False: the legend
    does not promise a line for each round's result (a state shown alone); ``figures``: it
    explains ``format_figures``'s lines (a watch); ``bets``: the bets shown of a baccarat or
    Dragon Tiger table (``_shown_bets``)."""
    columns = _columns(state, bets)
    head = _head(state.game, ("ver", "shoe round", "phase", "last", "left"))
    labels = [label for label, _ in columns]
    return [*_legend(state.game, round_lines, figures), head + _cells(columns, labels)]


def format_state(state: pb.TableState, bets: tuple[str, ...] = ()) -> str:
    """One line per version, for ``pricing watch``, under ``watch_header``'s columns: version,
    shoe, round (``#``: which round of the deck), phase, last card, cards left, then the
    prices (Hi-Lo, Goa Gae), the side bets, dealer results and insurance (blackjack) or the
    bets' RTP (baccarat, Dragon Tiger: ``bets`` those shown, ``_shown_bets``)."""
    index = f"#{state.result_index}" if state.result_index else ""
    phase = enum_short_name(pb.Phase, state.phase)
    if len(phase) >= _PHASE_WIDTH.get(state.game, 14):
        phase = phase.removeprefix("SHOE_")
    head = _head(
        state.game,
        (
            f"v{state.version}",
            f"s{state.shoe} r{state.round_id}{index}",
            phase,
            state.exposed[-1] if state.exposed else "--",
            str(state.cards_remaining),
        ),
    )
    return (head + _cells(_columns(state, bets), _values(state, bets))).rstrip()


def format_ended(state: pb.TableState) -> str | None:
    """The line of a round the version ended, or None.

    >>> format_ended(pb.TableState(ended_round=pb.RoundResult(round_id=3, result_card="8C")))
    '  round 3: 8C'
    >>> format_ended(pb.TableState(ended_round=pb.RoundResult(round_id=4, hands=[
    ...     pb.HandCards(hand="PLAYER", cards=["9S", "KD"]),
    ...     pb.HandCards(hand="BANKER", cards=["2C", "3D", "AH"])])))
    '  round 4: PLAYER 9S KD | BANKER 2C 3D AH'
    """
    if not state.HasField("ended_round"):
        return None
    e = state.ended_round
    return f"  round {e.round_id}: {'VOID' if e.void else _result_text(e)}"


def _hands_text(hands: Sequence[pb.HandCards]) -> str:
    """Each hand and its cards: ``PLAYER 9S KD | BANKER 2C 3D AH``."""
    return " | ".join(f"{h.hand} {' '.join(h.cards)}" for h in hands)


def _result_text(e: pb.RoundResult) -> str:
    """A decided round's result: its hands (baccarat, Dragon Tiger), else its result card."""
    return _hands_text(e.hands) if e.hands else e.result_card


def _edge_text(state: pb.TableState) -> str | None:
    return f"edge {state.player_edge:+.2%}" if state.HasField("player_edge") else None


def _actions_text(state: pb.TableState) -> str | None:
    best = [
        f"seat {s.seat} {enum_short_name(pb.Action, s.best_action)}"
        for s in state.seats
        if s.decisions
    ]
    return ", ".join(best) if best else None


def format_figures(state: pb.TableState, parts: list[str]) -> list[str]:
    """``parts`` of ``state``'s main-game figures on lines of their own, marked as figures of
    its version (after its line), within ``WATCH_WIDTH`` columns.

    >>> format_figures(pb.TableState(version=12), ["edge +0.52%", "seat 1 HIT, seat 2 STAND"])
    ['  + v12 edge +0.52% | seat 1 HIT, seat 2 STAND']
    """
    head = f"{_FIGURES_MARK} v{state.version} "
    lines = [head]
    for word in " | ".join(parts).split(" "):
        if len(lines[-1]) + len(word) > WATCH_WIDTH and lines[-1] != head:
            lines.append(head)  # seven seats of long actions: the rest on a line of its own
        lines[-1] += word + " "
    return [line.rstrip() for line in lines]


class WatchPrinter:
    """The lines ``pricing watch`` prints for each state: the header again whenever the
    columns change (the first state, a table reopened as another game), a round's result
    when one ended, then the state's line.

    A blackjack version is published again once its main-game figures are computed, perhaps
    more than once: its line and its round's result are printed the first time only, and
    each publication that brings figures not shown yet adds them on a line of figures
    (``format_figures``). The edge holds for a whole round, so it is shown when it changes;
    the seats' best actions belong to their version. ``figures`` False: no lines of figures
    (a dealer's feed, whose answers carry whatever figures happen to be known)."""

    def __init__(self, *, figures: bool = True, bets: tuple[str, ...] = ()) -> None:
        self._figures = figures
        self._bets = bets
        self._columns: list[tuple[str, int]] | None = None
        self._version: int | None = None
        self._edge: str | None = None
        self._actions: str | None = None

    def lines(self, state: pb.TableState) -> list[str]:
        lines = []
        if state.version != self._version:
            self._version, self._actions = state.version, None
            columns = _columns(state, self._bets)
            if columns != self._columns:
                self._columns = columns
                lines += watch_header(state, figures=self._figures, bets=self._bets)
            ended = format_ended(state)
            if ended is not None:
                lines.append(ended)
            lines.append(format_state(state, self._bets))
        edge, actions = _edge_text(state), _actions_text(state)
        new = [
            text
            for text, shown in ((edge, self._edge), (actions, self._actions))
            if text is not None and text != shown
        ]
        # A state without an edge is of a round whose edge is not known yet: its edge, once
        # computed, is news even if an earlier round's was the same.
        self._edge = edge
        self._actions = actions or self._actions
        if new and self._figures:
            lines += format_figures(state, new)
        return lines


def format_quote(response: pb.QuoteResponse | pb.TableState) -> str:
    """Prices and odds, one per line: dynamic prices, then side bets, insurance and dealer
    outcomes (a quote, or the body of ``format_table``)."""
    lines = []
    prices = response.prices
    bet_w = max([6, *(len(p.bet) for p in prices)])
    wins_w = max([2, *(len(str(p.wins)) for p in prices)])
    left_w = max([2, *(len(str(p.remaining)) for p in prices)])
    # Higher/Lower's players read pays "for one" (stake included), as the providers print them
    for_one = response.game == pb.GAME_HIGHER_LOWER
    for p in prices:
        odds = f"{_odds(p.payout_hundredths)} : 1" if p.open else "closed"
        if for_one and p.open:
            odds += f" ({_odds(100 + p.payout_hundredths)} for one)"
        note = "  (clamped)" if p.clamped else ""
        lines.append(f"{p.bet:<{bet_w}} {p.wins:>{wins_w}}/{p.remaining:<{left_w}} {odds}{note}")
    in_round = list(response.round_odds)
    for title, bets in (("", response.side_bets), ("THIS ROUND, given its cards:", in_round)):
        if title and bets:
            lines.append(title)
        lines += _fixed_bet_lines(bets)
    if response.HasField("insurance"):
        i = response.insurance
        alert = "  PLAYER-FAVOURABLE" if i.player_favourable else ""
        lines.append(f"INSURANCE  dealer blackjack {i.probability:.6f}  RTP {i.rtp:.6f}{alert}")
    if response.HasField("dealer_outcomes"):
        d = response.dealer_outcomes
        cells = "  ".join(f"{o.name} {o.probability:.6f}" for o in d.outcomes)
        lines.append(f"DEALER {d.up_card} {enum_short_name(pb.DealerRule, d.rule)}  {cells}")
    if isinstance(response, pb.QuoteResponse):
        # a player_hand's decisions: each action open to it, its EV per unit of the wager
        for decision in response.decisions:
            best = "  (best)" if decision.action == response.best_action else ""
            action = enum_short_name(pb.Action, decision.action)
            lines.append(f"DECISION {action:<9} EV {decision.ev:+.6f}{best}")
    if isinstance(response, pb.QuoteResponse) and response.HasField("player_edge"):
        lines.append(f"PLAYER EDGE  {response.player_edge:+.6%}  (the next round's main bet)")
    if response.side_bets:
        lines.append(f"{response.cards_remaining} cards left in the shoe")
    return "\n".join(lines)


def format_table(state: pb.TableState) -> str:
    """A table's state in a few lines (``pricing table``): where it is, the cards seen, how
    the last round ended, then its prices and odds as ``format_quote`` shows them."""
    decks = f"{state.decks} deck{'s' if state.decks != 1 else ''}"
    index = f" (#{state.result_index} of the deck)" if state.result_index else ""
    lines = [
        f"table {state.table_id!r}: {enum_short_name(pb.Game, state.game)}, {decks}, "
        f"{enum_short_name(pb.Phase, state.phase)}",
        f"version {state.version}, last_seq {state.last_seq}, shoe {state.shoe}, "
        f"round {state.round_id}{index}, {state.cards_remaining} cards left",
        f"seen ({len(state.exposed)}): {' '.join(state.exposed) if state.exposed else '-'}",
    ]
    if state.base_card:
        lines.append(f"base card {state.base_card}: the next result is compared with it")
    if state.hands:
        lines.append("this round: " + _hands_text(state.hands))
    if state.HasField("ended_round"):
        e = state.ended_round
        lines.append(f"round {e.round_id} ended: {'VOID' if e.void else _result_text(e)}")
    body = format_quote(state)
    if state.side_bets:  # format_quote's last line repeats the cards left
        body = body.rsplit("\n", 1)[0]
    return "\n".join([*lines, body]) if body else "\n".join(lines)


def format_settlement(s: pb.SettleResponse) -> str:
    """A settled bet in one line (``pricing settle``)."""
    status = enum_short_name(pb.SettleResponse.Status, s.status)
    return (
        f"{status}: {s.bet} on round {s.round_id} at version "
        f"{s.version}, stake {s.stake_cents} cents at {_settled_pay(s)} : 1 -> "
        f"returns {s.returned_cents} cents"
        + (f" ({s.outcome})" if s.outcome else "")
        + (f" (result {s.result_card})" if s.result_card else "")
    )


def _settled_pay(s: pb.SettleResponse) -> str:
    """What the bet paid to 1: signed for a half loss (Dragon Tiger's ``-0.50``)."""
    return _signed_odds(
        s.net_payout_hundredths if s.net_payout_hundredths < 0 else s.payout_hundredths
    )


def format_position(p: pb.SettlePositionResponse) -> str:
    """A settled position: a line for it, then one per leg read (``pricing settle-position``).

    >>> print(format_position(pb.SettlePositionResponse(status=pb.SettleResponse.STATUS_WIN,
    ...     stake_cents=100, collected_cents=50, riding_cents=200, legs=[pb.PositionLegResult(
    ...     status=pb.SettleResponse.STATUS_WIN, payout_hundredths=150, stake_cents=100,
    ...     value_cents=250, collected_cents=50, riding_cents=200, result_cards=["2S", "9H"])])))
    WIN: stake 100 cents -> collected 50 cents, riding 200 cents
      leg 0: WIN at 1.50 : 1, 100 -> 250 cents, collected 50, riding 200 (result 2S 9H)
    """
    status = enum_short_name(pb.SettleResponse.Status, p.status)
    lines = [
        f"{status}: stake {p.stake_cents} cents -> collected {p.collected_cents} cents, "
        f"riding {p.riding_cents} cents"
    ]
    for i, leg in enumerate(p.legs):
        leg_status = enum_short_name(pb.SettleResponse.Status, leg.status)
        lines.append(
            f"  leg {i}: {leg_status} at {_odds(leg.payout_hundredths)} : 1, {leg.stake_cents} "
            f"-> {leg.value_cents} cents"
            + (" (capped)" if leg.capped else "")
            + f", collected {leg.collected_cents}, riding {leg.riding_cents}"
            + (f" (result {' '.join(leg.result_cards)})" if leg.result_cards else "")
        )
    return "\n".join(lines)


def message_dict(message: Message) -> dict[str, object]:
    """A message as the proto3 JSON mapping has it: field names as in the proto, every field
    present; 64-bit integers are strings, as that mapping says."""
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def message_json(message: Message) -> str:
    """A message as one line of JSON (``message_dict``).

    >>> message_json(pb.BetPrice(bet="LOW", wins=24, remaining=47))[:40]
    '{"bet": "LOW", "wins": 24, "remaining": '
    """
    return json.dumps(message_dict(message))


def print_json(message: Message, out: TextIO) -> None:
    """Print ``message_json(message)`` as one line (a stream of them is JSON Lines)."""
    print(message_json(message), file=out, flush=True)


def _signed_odds(hundredths: int) -> str:
    """A signed pay to 1: ``-0.50`` for a half loss, ``0.00`` for a push."""
    return ("-" if hundredths < 0 else "") + _odds(abs(hundredths))


def _fixed_bet_lines(bets: Sequence[pb.SideBetOdds]) -> list[str]:
    """Each fixed-paytable bet's RTP, then each outcome's probability and pay."""
    lines = []
    for sb in bets:
        alert = "  PLAYER-FAVOURABLE" if sb.player_favourable else ""
        closed = "  (closed by game protection)" if sb.closed_by_protection else ""
        lines.append(f"{sb.bet}  RTP {sb.rtp:.6f}{alert}{closed}")
        name_w = max([8, *(len(o.name) for o in sb.outcomes)])
        for o in sb.outcomes:
            # ways/total unless they pass 64 bits (a dealer-drawing bet): then the exact ratio
            exact = f"{o.ways}/{o.total}" if o.total else o.probability_exact.exact
            pay = o.net_payout_hundredths or o.payout_hundredths
            lines.append(
                f"  {o.name:<{name_w}} {o.probability:.6f} ({exact})  pays {_signed_odds(pay)} : 1"
            )
    return lines
