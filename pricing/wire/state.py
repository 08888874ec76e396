"""What the tables answer, on the wire: a table's state (``TableState``), the lobby's summary,
a quote and a settlement. A blackjack table's main-game figures (``Figures``: each seat's
decisions, the player edge) are computed after its state is published, so they are given to
``snapshot_to_proto`` beside the state, not read from it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from pricing._wire import encode_fixed_bets
from pricing.cards import Card, parse_card
from pricing.errors import IllegalMove, InvalidInput
from pricing.payout import BetPrice
from pricing.tables import (
    Figures,
    Game,
    GameView,
    HandView,
    SeatDecisionsView,
    SeatView,
    Settlement,
    Snapshot,
    adapter_for,
)
from pricing.text import fraction_text
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_number
from pricing.wire.config import config_from_proto

__all__ = [
    "SETTLE_STATUS",
    "answer_quote",
    "quote_to_proto",
    "ratio",
    "settlement_to_proto",
    "snapshot_to_proto",
    "summary_to_proto",
]


def answer_quote(request: pb.QuoteRequest) -> pb.QuoteResponse:
    """The answer to a Quote: the prices and odds of a table in that state, with no table.
    The service and the offline ``pricing quote`` both answer through here."""
    config = config_from_proto(request.game, request.decks, request)
    adapter = adapter_for(config.game)
    config = adapter.configure(config)
    shoe = adapter.new_state(config).cards_remaining  # the game's own: 48-card decks, say
    seen = (
        len(request.exposed)
        + len(request.player_hand)
        + len(request.banker_hand)
        + bool(request.dealer_up_card)
        + bool(request.base_card)
    )
    if seen > shoe:
        # Checked before any card is read: the work a quote costs is bounded by its shoe.
        raise InvalidInput(
            f"a quote takes at most the {shoe} cards of its {config.decks}-deck shoe, got {seen}",
            field="exposed",
        )
    _check_cards(request, config.decks)
    try:
        view = adapter.quote(
            config,
            list(request.exposed),
            request.dealer_up_card or None,
            list(request.player_hand),
            include_player_edge=request.include_player_edge,
            base_card=request.base_card or None,
            banker_hand=list(request.banker_hand),
        )
    except IllegalMove as exc:
        # The request alone is contradictory (a card twice in a one-deck quote): whatever the
        # state of the server, it is a bad argument.
        raise InvalidInput(str(exc), field="exposed") from None
    return quote_to_proto(config.game, view)


def _prices(view: GameView) -> list[pb.BetPrice]:
    return [_price(p) for p in view.prices.values()]


def _price(p: BetPrice) -> pb.BetPrice:
    return pb.BetPrice(
        bet=p.bet,
        wins=p.wins,
        remaining=p.remaining,
        probability=p.probability,
        payout_hundredths=p.payout_hundredths,
        open=p.open,
        clamped=p.clamped,
    )


def _hands(hands: Sequence[HandView]) -> list[pb.HandCards]:
    return [pb.HandCards(hand=h.hand, cards=[str(c) for c in h.cards]) for h in hands]


def _extras(view: GameView, out: pb.TableState | pb.QuoteResponse) -> None:
    if view.side_bets or view.round_odds:
        # Every fixed-paytable bet, as bytes upb merges (ext/pricing/_wire.pyx: the 50 bets of
        # a baccarat card take a tenth of the time that making their messages here does).
        fields = out.DESCRIPTOR.fields_by_name
        out.MergeFromString(
            encode_fixed_bets(fields["side_bets"].number, view.side_bets)
            + encode_fixed_bets(fields["round_odds"].number, view.round_odds)
        )
    if view.insurance is not None:
        ins = view.insurance
        out.insurance.CopyFrom(
            pb.InsuranceOdds(
                offered=ins.offered,
                probability=ins.probability,
                rtp=ins.rtp,
                player_favourable=ins.player_favourable,
            )
        )
    if view.dealer_outcomes is not None:
        d = view.dealer_outcomes
        out.dealer_outcomes.CopyFrom(
            pb.DealerOutcomes(
                up_card=d.up_card,
                rule=enum_number(pb.DealerRule, d.rule),  # type: ignore[arg-type]
                outcomes=[pb.DealerOutcome(name=n, probability=p) for n, p in d.outcomes],
            )
        )


def ratio(x: Fraction) -> pb.Ratio:
    """An exact ratio on the wire: "numerator/denominator" in lowest terms, and its double."""
    return pb.Ratio(value=float(x), exact=fraction_text(x))


def _seats(seats: Sequence[SeatView]) -> list[pb.SeatCards]:
    return [pb.SeatCards(seat=s.seat, cards=[str(c) for c in s.cards]) for s in seats]


def _decisions(figures: SeatDecisionsView, out: pb.SeatCards | pb.QuoteResponse) -> None:
    out.decisions.extend(
        pb.Decision(action=enum_number(pb.Action, name), ev=ev)  # type: ignore[arg-type]
        for name, ev in figures.decisions
    )
    out.best_action = enum_number(pb.Action, figures.best)  # type: ignore[assignment]


def _figures(figures: Figures, state: pb.TableState) -> None:
    """A table's main-game figures onto its state: each seat's decisions on its own entry of
    ``seats`` (the seats are listed in order, seat ``n`` at index ``n - 1``)."""
    for seat in figures.seats:
        _decisions(seat, state.seats[seat.seat - 1])
    if figures.player_edge is not None:
        state.player_edge = figures.player_edge


def snapshot_to_proto(snap: Snapshot, figures: Figures | None = None) -> pb.TableState:
    """``snap`` on the wire, with the main-game ``figures`` computed for it, if any."""
    view = snap.view
    state = pb.TableState(
        table_id=snap.table_id,
        game=int(snap.game),  # type: ignore[arg-type]
        version=snap.version,
        shoe=view.shoe,
        phase=int(snap.phase),  # type: ignore[arg-type]
        round_id=view.round_id,
        result_index=view.result_index,
        last_seq=snap.last_seq,
        exposed=[str(c) for c in view.exposed],
        cards_remaining=view.cards_remaining,
        prices=_prices(view),
        decks=snap.decks,
        seats=_seats(view.seats),
        hands=_hands(view.hands),
    )
    if view.base_card is not None:
        state.base_card = str(view.base_card)
    if view.ended is not None:
        e = view.ended
        state.ended_round.CopyFrom(
            pb.RoundResult(
                round_id=e.round_id,
                result_index=e.result_index,
                void=e.void,
                result_card=" ".join(str(c) for c in e.result),
                result_cards=[str(c) for c in e.result],
                seats=_seats(e.seats),
                hands=_hands(e.hands),
            )
        )
    _extras(view, state)
    if figures is not None:
        _figures(figures, state)
    return state


def summary_to_proto(snap: Snapshot, seats: int, watchers: int) -> pb.TableSummary:
    """A table as the lobby (ListTables) lists it."""
    return pb.TableSummary(
        table_id=snap.table_id,
        game=int(snap.game),  # type: ignore[arg-type]
        decks=snap.decks,
        phase=int(snap.phase),  # type: ignore[arg-type]
        version=snap.version,
        cards_remaining=snap.view.cards_remaining,
        closed=snap.closed,
        watchers=watchers,
        seats=seats,
    )


def _check_cards(request: pb.QuoteRequest, decks: int) -> None:
    """Every card of a Quote is one, and no card is sent more often than a shoe of ``decks``
    holds it; else ``InvalidInput`` naming its place in the request (``exposed[3]``,
    ``player_hand[1]``, ``dealer_up_card``): the engines that read them know no request. A
    card one too many is blamed where it is, in the order the fields are listed."""
    places = [(f"exposed[{i}]", text) for i, text in enumerate(request.exposed)]
    places += [(f"player_hand[{i}]", text) for i, text in enumerate(request.player_hand)]
    places += [(f"banker_hand[{i}]", text) for i, text in enumerate(request.banker_hand)]
    if request.dealer_up_card:
        places.append(("dealer_up_card", request.dealer_up_card))
    if request.base_card:
        places.append(("base_card", request.base_card))
    sent: Counter[Card] = Counter()
    for place, text in places:
        try:
            card = parse_card(text)
        except InvalidInput as exc:
            exc.field = place
            raise
        sent[card] += 1
        if sent[card] > decks:
            held = (
                f"{decks} decks hold {decks} of each" if decks > 1 else "a deck holds one of each"
            )
            raise InvalidInput(
                f"card {card} in {place} is one more than the shoe holds: {held}", field=place
            )


def quote_to_proto(game: Game, view: GameView) -> pb.QuoteResponse:
    response = pb.QuoteResponse(
        game=int(game),  # type: ignore[arg-type]
        cards_remaining=view.cards_remaining,
        prices=_prices(view),
    )
    _extras(view, response)
    if view.figures is not None:
        for seat in view.figures.seats:  # the quoted hand's, if it has any
            _decisions(seat, response)
        if view.figures.player_edge is not None:
            response.player_edge = view.figures.player_edge
    return response


#: A settlement status as ``SettleResponse.Status`` (a position and its legs use it too).
SETTLE_STATUS: Final = {
    "PENDING": pb.SettleResponse.STATUS_PENDING,
    "WIN": pb.SettleResponse.STATUS_WIN,
    "LOSE": pb.SettleResponse.STATUS_LOSE,
    "VOID": pb.SettleResponse.STATUS_VOID,
    "PUSH": pb.SettleResponse.STATUS_PUSH,
}


def settlement_to_proto(settlement: Settlement, request: pb.SettleRequest) -> pb.SettleResponse:
    return pb.SettleResponse(
        status=SETTLE_STATUS[settlement.status.value],
        payout_hundredths=settlement.payout_hundredths,
        returned_cents=settlement.returned_cents,
        result_card=" ".join(str(c) for c in settlement.result),
        result_cards=[str(c) for c in settlement.result],
        outcome=settlement.outcome,
        round_id=request.round_id,
        version=request.version,
        bet=request.bet,
        stake_cents=request.stake_cents,
        seat=settlement.seat,
        net_payout_hundredths=settlement.net_payout_hundredths,
    )
