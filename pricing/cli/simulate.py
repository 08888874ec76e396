"""``pricing simulate``: open a table and deal shuffled shoes into it through a dealer feed,
showing each state, waiting out a server that is not up (the dealing itself is
``pricing.cli.dealer``'s); and its parser (``add_simulate``)."""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TextIO, TypeVar

import grpc

from pricing.cards import DECK, MAX_DECKS, Rank
from pricing.cli.args import check_game_options, fraction, integer, seconds
from pricing.cli.common import (
    DECKS_NOTE,
    GAMES,
    Commands,
    add_server,
    add_side_bets,
    connect,
    offer_side_bets,
    shuffle_mode,
)
from pricing.cli.dealer import DemoDealer
from pricing.cli.format import WatchPrinter
from pricing.cli.two_hands import (
    TWO_HAND_GAMES,
    TWO_HAND_OPTIONS,
    add_two_hand_rules,
    close_at_rtp_bp,
    set_two_hand_rules,
)
from pricing.client import DealerFeed, retry_delay
from pricing.games.blackjack.rounds import MAX_SEATS
from pricing.tables import adapter_for
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import config_from_proto

__all__ = ["SIMULATED_SEATS", "add_simulate", "default_table", "run_simulate"]

#: The options only some games have (dest -> those games), for ``check_game_options``.
_SIMULATE_OPTIONS: Final = {
    "mode": ("blackjack", "higher-lower", *TWO_HAND_GAMES),
    "seats": ("blackjack",),
    "side_bet": ("blackjack", *TWO_HAND_GAMES),
    "close_at_rtp_bp": ("blackjack", *TWO_HAND_GAMES),
    **TWO_HAND_OPTIONS,
}
#: The seats ``simulate`` deals a blackjack table unless --seats says otherwise.
SIMULATED_SEATS: Final = 3


def default_table(game: str) -> str:
    """The table ``simulate --game GAME`` deals to without ``--table``: each game its own, so
    one game's demo after another's opens a table instead of finding one of the other game
    (Hi-Lo's is ``demo``, the README's first).

    >>> default_table("hilo"), default_table("higher-lower")
    ('demo', 'demo-higher-lower')
    """
    return "demo" if game == "hilo" else f"demo-{game}"


def _open_request(args: argparse.Namespace) -> pb.OpenTableRequest:
    """The OpenTable request ``simulate`` sends, checked here first by the service's own code
    (an option of another game, decks the game does not have), so a bad argument is found
    before anything is opened or dealt."""
    table_id = default_table(args.game) if args.table is None else args.table
    if not table_id:
        raise ValueError("--table must not be empty")
    check_game_options(args, args.game, _SIMULATE_OPTIONS)
    request = pb.OpenTableRequest(table_id=table_id, game=GAMES[args.game], decks=args.decks)
    if request.game == pb.GAME_BLACKJACK:
        request.blackjack.shuffle_mode = shuffle_mode(args.mode, "depleting")
        request.blackjack.seats = args.seats or SIMULATED_SEATS
        offer_side_bets(request.blackjack, args.side_bet)
        request.blackjack.close_at_rtp_bp = close_at_rtp_bp(args)
    set_two_hand_rules(request, args)
    if request.game == pb.GAME_HIGHER_LOWER:
        request.higher_lower.shuffle_mode = shuffle_mode(args.mode, "continuous")
    config = config_from_proto(request.game, request.decks, request)
    adapter_for(config.game).configure(config)
    return request


T = TypeVar("T")


@dataclass
class _Patient:
    """Makes a call until the server answers it: UNAVAILABLE (not up yet, restarting) is
    waited out, said once per outage. A dealer feed's event keeps its seq while it waits, so
    the server applies it once."""

    target: str
    out: TextIO
    waiting: bool = False  # said that the server is unavailable, not yet that it is back
    sleep: Callable[[float], object] = time.sleep

    def resending(self, line: str) -> None:
        """The feed resends an event (or its opening): said once per outage."""
        if not self.waiting:
            self.waiting = True
            # The feed's line names the status: a write budget that frees up is not an outage.
            why = "busy" if "RESOURCE_EXHAUSTED" in line else "unavailable"
            print(f"server {self.target} {why}: retrying", file=self.out, flush=True)

    def __call__(self, call: Callable[[], T]) -> T:
        attempt = 0
        while True:
            try:
                result = call()
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                self.resending(str(exc))
                self.sleep(retry_delay(attempt))
                attempt += 1
                continue
            if self.waiting:
                self.waiting = False
                print(f"server {self.target} is back", file=self.out, flush=True)
            return result


def run_simulate(args: argparse.Namespace, out: TextIO) -> int:
    """Deal shuffled shoes into a table as a card reader would (``--game``): Hi-Lo, Goa Gae,
    blackjack, Higher/Lower, baccarat or Dragon Tiger; now and then a round is voided. Each
    state is shown, the opening one first, and each is held ``--pace`` seconds (the opening
    state's pause is round 1's betting)."""
    request = _open_request(args)
    rng = random.Random(args.seed)
    with connect(args) as client:
        patient = _Patient(client.target, out, sleep=args.sleep)
        with client.feed(
            request.table_id, streamed=args.stream, on_resend=patient.resending
        ) as feed:
            return _deal(args, feed, patient, out, request=request, rng=rng)


def _deal(
    args: argparse.Namespace,
    feed: DealerFeed,
    patient: _Patient,
    out: TextIO,
    *,
    request: pb.OpenTableRequest,
    rng: random.Random,
) -> int:
    """``run_simulate``'s dealing, on ``feed``."""
    game = request.game
    chosen = request.WhichOneof("rules")
    rules = getattr(request, chosen) if chosen else None
    state = patient(lambda: feed.open(game, decks=request.decks, rules=rules))
    print(
        f"table {request.table_id!r} at version {state.version}, last_seq {state.last_seq}",
        file=out,
    )
    printer = WatchPrinter(figures=False)  # an answer has whatever figures were ready

    def show(action: str, card: str, state: pb.TableState) -> None:
        *above, line = printer.lines(state)
        for text in above:
            print(f"{'':12}{text}", file=out)
        print(f"{action:<6} {card:>3}  {line}", file=out, flush=True)
        if args.pace:
            args.sleep(args.pace)

    show("OPEN", "", state)
    dealer = DemoDealer(
        feed,
        rng,
        args.void_rate,
        show,
        continuous=(
            request.higher_lower.shuffle_mode == pb.SHUFFLE_MODE_CONTINUOUS
            if game == pb.GAME_HIGHER_LOWER
            else args.mode == "continuous"
        ),
        seats=request.blackjack.seats or 1,
        patient=patient,
    )
    play = {
        pb.GAME_HILO: dealer.hilo,
        pb.GAME_GOA_GAE: dealer.goagae,
        pb.GAME_BLACKJACK: dealer.blackjack,
        pb.GAME_HIGHER_LOWER: dealer.higher_lower,
        pb.GAME_BACCARAT: dealer.baccarat,
        pb.GAME_DRAGON_TIGER: dealer.dragon_tiger,
    }
    shoes = 0
    while args.shoes == 0 or shoes < args.shoes:
        if state.exposed or state.phase not in (pb.PHASE_OPENING, pb.PHASE_BETTING) or shoes:
            state = patient(feed.new_shoe)
            show("SHOE", "", state)
        in_deck = [c for c in DECK if game != pb.GAME_HIGHER_LOWER or c.rank != Rank.TEN]
        cards = [str(c) for c in in_deck] * max(1, state.decks)
        rng.shuffle(cards)
        play[game](state, cards)
        shoes += 1
    if args.close:
        show("CLOSE", "", patient(feed.close))
    return 0


def add_simulate(sub: Commands) -> None:
    m = sub.add_parser(
        "simulate",
        help="open a table and deal shuffled shoes into it (a demo dealer feed)",
        description="Open a table and deal shuffled shoes into it as a card reader would, "
        "printing each state; every argument is checked before the server is called, and an "
        "unavailable server is waited for.",
    )
    m.add_argument(
        "--table", default=None,
        help="table id (default: demo for hilo, demo-GAME for the others, e.g. "
        "demo-higher-lower: each game's demo its own table)",
    )  # fmt: skip
    m.add_argument(
        "--game", choices=list(GAMES), type=str.lower, default="hilo", help="default hilo"
    )
    m.add_argument(
        "--decks", type=integer(0, MAX_DECKS, DECKS_NOTE), default=0,
        help=f"decks, 0 to {MAX_DECKS} ({DECKS_NOTE}: baccarat and dragon-tiger 8, blackjack "
        "and higher-lower 6, the others 1)",
    )  # fmt: skip
    m.add_argument(
        "--mode",
        choices=["depleting", "continuous"],
        type=str.lower,
        default=None,
        help="blackjack, baccarat, dragon-tiger: a depleting shoe (default) or a continuous "
        "shuffle; higher-lower: a continuous shuffler (default) or a depleting shoe",
    )
    m.add_argument(
        "--seats",
        type=integer(1, MAX_SEATS),
        default=None,
        help=f"blackjack: the seats dealt to, 1 to {MAX_SEATS} (default {SIMULATED_SEATS})",
    )
    add_side_bets(m)
    add_two_hand_rules(m)
    m.add_argument(
        "--pace",
        type=seconds(),
        default=1.0,
        help="seconds each state is held, 0 to 3600 (default 1)",
    )
    m.add_argument(
        "--shoes",
        type=integer(0, note="0: until Ctrl-C"),
        default=0,
        help="shoes to deal (default 0: until Ctrl-C)",
    )
    m.add_argument("--seed", type=int, default=None, help="shuffle seed, for a repeatable run")
    m.add_argument(
        "--void-rate",
        type=fraction,
        default=0.05,
        help="chance a round is voided, 0 to 1 (Hi-Lo: a burn during betting; Higher/Lower: "
        "a VoidRound; default 0.05)",
    )
    m.add_argument("--close", action="store_true", help="close the table at the end")
    m.add_argument(
        "--stream",
        action="store_true",
        help="send the events on one Feed stream (DealerService.Feed), not a call each",
    )
    add_server(m)
    m.set_defaults(run=run_simulate)
