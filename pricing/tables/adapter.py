"""Game adapters: the one place a game plugs into the tables (``pricing.tables.games`` lists
the built-in ones)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pricing.cards import Card
from pricing.errors import InvalidInput
from pricing.tables.events import Game, TableConfig
from pricing.tables.views import EndedRound, GameState, GameView, SideBetResult

__all__ = ["GameAdapter", "check_seat"]


class GameAdapter(Protocol):
    """What a game implements to get live tables, quotes and settlement (then
    ``register_adapter`` it, and map its rules message in ``pricing.wire``):

    - ``configure`` fills in defaults and validates (``InvalidOption``: INVALID_ARGUMENT);
    - ``check_offer`` refuses a configured table that may not be opened though it may be
      quoted (a blackjack side bet paying more than it takes on a full shoe, a Higher/Lower
      bet it could never offer); only a new table is checked, never a journal's;
    - ``new_state`` is the state of a freshly opened table;
    - ``view`` turns a state into the neutral ``GameView`` (usually ``standard_view`` plus the
      game's side bets, insurance and dealer outcomes);
    - ``quote`` is the view of a state with ``exposed`` seen, with no table (blackjack: and a
      dealer's up card, a player's hand; Higher/Lower: and a base card; baccarat: and the
      Player's and Banker's cards of a round in progress; a game without them refuses them);
    - ``bet_wins`` decides a dynamic bet from the cards that decided its round (settlement);
    - ``seats`` is the number of player boxes a table has (0: the game has none); the table
      checks the seat of each PLAYER card and each bet against it (``check_seat``);
    - ``side_bet_outcome`` settles a fixed-paytable side bet (``GameView.side_bets``) on the
      round for one seat (0 in a game without seats): a ``SideBetResult``, or ``None`` when
      that seat was not dealt enough cards to settle it (the stake is returned). A game
      without side bets is never asked;
    - ``position_cap_cents`` is the most a position (``pricing.tables.positions``) may be
      worth at a table of this config, in cents (0: no cap of the game's own);
    - ``describe`` names a configured table's options as a request writes them: each field's
      path in the game's rules message (``blackjack.dealer_rule``) and its value (``H17``),
      so a message about a config speaks the caller's notation.
    """

    @property
    def game(self) -> Game: ...

    def configure(self, config: TableConfig) -> TableConfig: ...
    def check_offer(self, config: TableConfig) -> None: ...
    def new_state(self, config: TableConfig) -> GameState: ...
    def view(self, state: GameState) -> GameView: ...
    def quote(
        self,
        config: TableConfig,
        exposed: Sequence[str],
        up_card: str | None = None,
        player_hand: Sequence[str] = (),
        *,
        include_player_edge: bool = False,
        base_card: str | None = None,
        banker_hand: Sequence[str] = (),
    ) -> GameView: ...
    def bet_wins(self, config: TableConfig, bet: str, result: tuple[Card, ...]) -> bool: ...
    def seats(self, config: TableConfig) -> int: ...
    def side_bet_outcome(
        self, config: TableConfig, bet: str, ended: EndedRound, seat: int
    ) -> SideBetResult | None: ...
    def position_cap_cents(self, config: TableConfig) -> int: ...
    def describe(self, config: TableConfig) -> dict[str, str]: ...


def check_seat(seats: int, seat: int, what: str) -> int:
    """The seat ``what`` (a PLAYER card, a bet) is for: ``seat`` checked against a table with
    ``seats`` player boxes (0: a game without seats, where it must be 0). Seats count from 1;
    with one seat, 0 means seat 1; with more, the seat is required. ``InvalidInput`` naming
    the value otherwise.

    >>> check_seat(3, 2, "a PLAYER card"), check_seat(1, 0, "a bet"), check_seat(0, 0, "a bet")
    (2, 1, 0)
    >>> check_seat(3, 4, "a PLAYER card")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pricing.errors.InvalidInput: seat 4 is out of range for a PLAYER card: the table has 3 ...
    """
    if seats == 0:
        if seat:
            raise InvalidInput(
                f"seat {seat} was sent for {what}: this game has no seats (send 0)", field="seat"
            )
        return 0
    if seat == 0 and seats == 1:
        return 1
    if seat == 0:
        raise InvalidInput(
            f"seat is required for {what}: the table has {seats} seats (send 1 to {seats})",
            field="seat",
        )
    if seat > seats:
        plural = "seat" if seats == 1 else "seats"
        raise InvalidInput(
            f"seat {seat} is out of range for {what}: the table has {seats} {plural} "
            f"(send 1 to {seats})",
            field="seat",
        )
    return seat
