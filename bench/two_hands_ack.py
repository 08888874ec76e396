"""ExposeCard's acknowledgement on a baccarat table offering every bet against a Hi-Lo table's,
in the same run; and the same for Dragon Tiger.

Each card of a baccarat table prices every bet twice over, exactly: the next round's odds of
all 25 bets from the shoe, and while a round is dealt the round's odds given its cards. A Hi-Lo
card prices five bets. Two servers (one for each game of the pair), fed a card each in turn so
the machine's load falls on both alike; every card is a call whose answer time is measured.
The goal: the two-hand table's acknowledgement within 1.5 times Hi-Lo's, at the median and
the 99th percentile.

Run from the repository root: ``.venv/bin/python bench/two_hands_ack.py [--cards N]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import _harness  # noqa: F401  (the repository root on sys.path)

from pricing.cards import DECK, parse_cards
from pricing.games.baccarat import SIDE_BETS as BACCARAT_SIDE_BETS
from pricing.games.baccarat import Hand, next_hand_dealt
from pricing.games.dragon_tiger.bets import SIDE_BETS as DRAGON_TIGER_SIDE_BETS
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess, start_server

GOAL = 1.5
#: In a list of cards: the dealer starts a new shoe here.
NEW_SHOE = ("", 0)
DECKS = 8
SEED = 20261207


class Table:
    """One table of a server, its cards' acknowledgement times."""

    def __init__(self, server: ServerProcess, request: pb.OpenTableRequest) -> None:
        self.stub = server.dealer()
        self.table_id = request.table_id
        self.seq = 0
        self.state = self.stub.OpenTable(request)
        self.acks: list[float] = []

    def card(self, card: str, role: int) -> None:
        self.seq += 1
        request = pb.ExposeCardRequest(table_id=self.table_id, seq=self.seq, card=card, role=role)
        start = time.perf_counter()
        self.state = self.stub.ExposeCard(request)
        self.acks.append(time.perf_counter() - start)

    def new_shoe(self) -> None:
        self.seq += 1
        self.state = self.stub.NewShoe(pb.NewShoeRequest(table_id=self.table_id, seq=self.seq))


def shoe(rng: random.Random) -> list[str]:
    cards = [str(card) for card in DECK for _ in range(DECKS)]
    rng.shuffle(cards)
    return cards


def baccarat_cards(count: int, rng: random.Random) -> list[tuple[str, int]]:
    """``count`` cards of whole baccarat rounds dealt by the tableau, from fresh shoes."""
    out: list[tuple[str, int]] = []
    cards = shoe(rng)
    while len(out) < count:
        if len(cards) < 60:
            cards = shoe(rng)  # a short shoe is not what is measured: a fresh one
            out.append(NEW_SHOE)
        hands: dict[Hand, list[str]] = {Hand.PLAYER: [], Hand.BANKER: []}
        while hand := next_hand_dealt(*(parse_cards(h) for h in hands.values())):
            hands[hand].append(cards.pop())
            role = pb.CARD_ROLE_PLAYER if hand is Hand.PLAYER else pb.CARD_ROLE_BANKER
            out.append((hands[hand][-1], role))
    return out


def dragon_tiger_cards(count: int, rng: random.Random) -> list[tuple[str, int]]:
    cards = shoe(rng)
    out: list[tuple[str, int]] = []
    while len(out) < count:
        if len(cards) < 60:
            cards = shoe(rng)
            out.append(NEW_SHOE)
        out += [(cards.pop(), pb.CARD_ROLE_DRAGON), (cards.pop(), pb.CARD_ROLE_TIGER)]
    return out


def hilo_role(table: Table) -> int:
    """Hi-Lo's burns open a deck; then every card is a result."""
    return pb.CARD_ROLE_BURN if table.state.phase == pb.PHASE_OPENING else pb.CARD_ROLE_RESULT


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def measure(game: str, cards: list[tuple[str, int]], request: pb.OpenTableRequest) -> bool:
    """Feed ``cards`` to a ``game`` table and a Hi-Lo table, a card each in turn."""
    rng = random.Random(SEED)
    first, second = start_server(), start_server()
    try:
        table = Table(first, request)
        hilo = Table(second, pb.OpenTableRequest(table_id="bench-hilo", game=pb.GAME_HILO))
        hilo_shoe = [str(c) for c in DECK]
        rng.shuffle(hilo_shoe)
        for card, role in cards:
            if hilo.state.phase == pb.PHASE_SHOE_COMPLETE or not hilo_shoe:
                hilo.new_shoe()
                hilo_shoe = [str(c) for c in DECK]
                rng.shuffle(hilo_shoe)
            if (card, role) == NEW_SHOE:
                table.new_shoe()
                continue
            table.card(card, role)
            hilo.card(hilo_shoe.pop(), hilo_role(hilo))
    finally:
        first.stop()
        second.stop()
    ok = True
    print(f"ExposeCard acknowledgements, {len(table.acks)} cards a table: {game} against Hi-Lo")
    for name, stat in (("p50", statistics.median), ("p99", p99)):
        a, b = stat(table.acks), stat(hilo.acks)
        ratio = a / b
        ok &= ratio <= GOAL
        print(
            f"  {name}: {game} {a * 1e3:7.3f} ms, Hi-Lo {b * 1e3:7.3f} ms: {ratio:.2f}x "
            f"(goal <= {GOAL}x)"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1500)
    args = parser.parse_args()
    rng = random.Random(SEED)
    baccarat = pb.BaccaratRules()
    for bet in BACCARAT_SIDE_BETS:
        baccarat.side_bets[bet].preset = ""
    dragon_tiger = pb.DragonTigerRules()
    for bet in DRAGON_TIGER_SIDE_BETS:
        dragon_tiger.side_bets[bet].preset = ""
    ok = measure(
        "baccarat",
        baccarat_cards(args.cards, rng),
        pb.OpenTableRequest(
            table_id="bench-baccarat", game=pb.GAME_BACCARAT, decks=DECKS, baccarat=baccarat
        ),
    )
    ok &= measure(
        "Dragon Tiger",
        dragon_tiger_cards(args.cards, rng),
        pb.OpenTableRequest(
            table_id="bench-dt", game=pb.GAME_DRAGON_TIGER, decks=DECKS, dragon_tiger=dragon_tiger
        ),
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
