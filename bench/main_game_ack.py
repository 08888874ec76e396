"""ExposeCard's acknowledgement on a 7-seat blackjack table with the main game's analysis on
against the same table with it off (``--no-main-game-analysis``), in the same run.

Two servers, each with one 7-seat 8-deck table, are fed the same dealt rounds, one event to
each in turn, so the machine's load falls on both alike. Each round: two cards a seat and the
up card, a hit for each seat under 17, the dealer's draws, EndRound; every card is a call whose
answer time is measured. With the analysis on, each card sets off the decisions of every seat
in play and each round end the next round's edge, in the server's worker thread: the goal is an
acknowledgement within 1.5 times the one without, at the median and the 99th percentile.

Run from the repository root: ``.venv/bin/python bench/main_game_ack.py [--rounds N]
[--pace SECONDS]`` (the pace is the pause after each card: a dealer's cards come about a second
apart, so the default leaves the worker some time, and 0 gives it none).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import _harness  # noqa: F401  (the repository root on sys.path)

from pricing.cards import DECK
from pricing.games.blackjack.hands import hand_total
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess, start_server

GOAL = 1.5
SEATS = 7
DECKS = 8
SEED = 20261202


def rounds(count: int) -> list[list[tuple[str, int, int]]]:
    """``count`` rounds dealt from one shuffled shoe: (card, role, seat) in the order dealt."""
    shoe = [str(card) for card in DECK for _ in range(DECKS)]
    random.Random(SEED).shuffle(shoe)
    out = []
    for _ in range(count):
        if len(shoe) < 60:
            break
        events: list[tuple[str, int, int]] = []
        hands: dict[int, list[str]] = {seat: [] for seat in range(1, SEATS + 1)}
        for seat in range(1, SEATS + 1):
            hands[seat].append(shoe.pop())
            events.append((hands[seat][-1], pb.CARD_ROLE_PLAYER, seat))
        dealer = [shoe.pop()]
        events.append((dealer[0], pb.CARD_ROLE_DEALER, 0))
        for seat in range(1, SEATS + 1):
            hands[seat].append(shoe.pop())
            events.append((hands[seat][-1], pb.CARD_ROLE_PLAYER, seat))
        for seat in range(1, SEATS + 1):
            while hand_total(hands[seat])[0] < 17:
                hands[seat].append(shoe.pop())
                events.append((hands[seat][-1], pb.CARD_ROLE_PLAYER, seat))
        while hand_total(dealer)[0] < 17:
            dealer.append(shoe.pop())
            events.append((dealer[-1], pb.CARD_ROLE_DEALER, 0))
        out.append(events)
    return out


class Table:
    def __init__(self, server: ServerProcess, table_id: str) -> None:
        self.stub = server.dealer()
        self.table_id = table_id
        self.seq = 0
        self.stub.OpenTable(
            pb.OpenTableRequest(
                table_id=table_id,
                game=pb.GAME_BLACKJACK,
                decks=DECKS,
                blackjack=pb.BlackjackRules(seats=SEATS),
            )
        )
        self.acks: list[float] = []

    def card(self, card: str, role: int, seat: int) -> None:
        self.seq += 1
        request = pb.ExposeCardRequest(
            table_id=self.table_id, seq=self.seq, card=card, role=role, seat=seat
        )
        start = time.perf_counter()
        self.stub.ExposeCard(request)
        self.acks.append(time.perf_counter() - start)

    def end_round(self) -> None:
        self.seq += 1
        self.stub.EndRound(pb.EndRoundRequest(table_id=self.table_id, seq=self.seq))


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--pace", type=float, default=0.02)
    args = parser.parse_args()
    on, off = start_server(), start_server("--no-main-game-analysis")
    try:
        tables = (Table(on, "bench-on"), Table(off, "bench-off"))
        for events in rounds(args.rounds):
            for card, role, seat in events:
                for table in tables:
                    table.card(card, role, seat)
                time.sleep(args.pace)
            for table in tables:
                table.end_round()
            time.sleep(args.pace)
    finally:
        on.stop()
        off.stop()
    with_, without = tables[0].acks, tables[1].acks
    ok = True
    print(f"ExposeCard acknowledgements, {len(with_)} cards a server, pace {args.pace} s")
    for name, measure in (("p50", statistics.median), ("p99", p99)):
        a, b = measure(with_), measure(without)
        ratio = a / b
        ok &= ratio <= GOAL
        print(
            f"  {name}: analysis on {a * 1e3:7.3f} ms, off {b * 1e3:7.3f} ms: {ratio:.2f}x "
            f"(goal <= {GOAL}x)"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
