"""A card reader's dealer feed for one Hi-Lo table, through ``pricing.client``.

With the service running (``make serve``), from the clone::

    .venv/bin/python examples/dealer_feed.py --table demo --seed 7 --pace 0.5
    .venv/bin/python examples/dealer_feed.py --table demo --seed 7 --lose-answer 8
    .venv/bin/python examples/dealer_feed.py --table demo-stream --seed 7 --stream

It deals shuffled decks (a seeded shuffle stands in for the card reader's scanner): five
opening burns and ten results per deck (docs/rules.md §1.1), then a new shoe. What it shows:

- **Numbered events.** Every event after ``OpenTable`` carries ``seq`` = the table's
  ``last_seq + 1``; ``DealerFeed`` numbers them. Event number N of the script is seq N.
- **Rejoining.** ``OpenTable`` with the same id and rules returns the table as it is, so a
  restarted reader learns ``last_seq`` and carries on with the next event of its script.
- **A stream, if you like.** ``--stream`` sends the same events on one ``Feed`` stream
  (``DealerService.Feed``) instead of a call each: the same answers, in order, and the same
  resending of an event whose answer did not come, on a new stream (a restart of the server
  shows it; ``--lose-answer`` works on calls only).
- **A retry after a timeout, answered idempotently.** Each call has a deadline
  (``--timeout``). When no answer comes (``DEADLINE_EXCEEDED``, or ``UNAVAILABLE``) the reader
  cannot know whether the card was applied, so ``DealerFeed`` sends the SAME seq and card again
  after a short pause. The server applies a seq once: the answer is the table as of that
  event, whether the first attempt landed or not, and the card leaves the deck once
  (docs/rules.md §5.1). ``--lose-answer N`` makes that happen on purpose: the answer to event N
  is thrown away once, as a network that lost it after the server applied the card would.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import grpc

from pricing.client import DealerFeed, PricingClient, default_target
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK = tuple(rank + suit for rank in RANKS for suit in "SHDC")
OPENING_BURNS = 5
RESULTS_PER_DECK = 10


@dataclass(frozen=True)
class Event:
    """One event of the script: a card with its role, or a new shoe, or closing the table."""

    kind: str  # "CARD", "NEW_SHOE" or "CLOSE"
    card: str = ""
    role: str = ""

    def __str__(self) -> str:
        return f"{self.role:<6} {self.card}" if self.kind == "CARD" else self.kind


def script(seed: int, shoes: int, close: bool) -> list[Event]:
    """What the card reader will report: per deck 5 BURNs then 10 RESULTs, a NEW_SHOE between
    decks, and CLOSE at the end if asked."""
    shuffler = random.Random(seed)
    events: list[Event] = []
    for shoe in range(shoes):
        if shoe:
            events.append(Event("NEW_SHOE"))
        deck = list(DECK)
        shuffler.shuffle(deck)
        events += [Event("CARD", card, "BURN") for card in deck[:OPENING_BURNS]]
        results = deck[OPENING_BURNS : OPENING_BURNS + RESULTS_PER_DECK]
        events += [Event("CARD", card, "RESULT") for card in results]
    if close:
        events.append(Event("CLOSE"))
    return events


class AnswerLost(grpc.RpcError):
    """What the reader sees when an answer never arrives: its deadline passes."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.DEADLINE_EXCEEDED

    def details(self) -> str:
        return "no answer before the deadline (thrown away on purpose: --lose-answer)"


class LosingClient(PricingClient):
    """A client that throws away the server's answer to event ``lose_seq`` once, AFTER the
    server applied it: the worst case of a timeout, shown on purpose."""

    def __init__(self, target: str, lose_seq: int, *, timeout: float) -> None:
        super().__init__(target, timeout=timeout)
        self.lose_seq = lose_seq
        self.lost: pb.TableState | None = None

    def _maybe_lose(self, seq: int, state: pb.TableState) -> pb.TableState:
        if seq == self.lose_seq and self.lost is None:
            self.lost = state
            raise AnswerLost()
        return state

    def expose_card(
        self, table_id: str, seq: int, card: str, role: str | int, seat: int = 0
    ) -> pb.TableState:
        return self._maybe_lose(seq, super().expose_card(table_id, seq, card, role, seat))

    def new_shoe(self, table_id: str, seq: int) -> pb.TableState:
        return self._maybe_lose(seq, super().new_shoe(table_id, seq))

    def close_table(self, table_id: str, seq: int) -> pb.TableState:
        return self._maybe_lose(seq, super().close_table(table_id, seq))


def send(feed: DealerFeed, event: Event) -> pb.TableState:
    """Send one event; ``DealerFeed`` numbers it and resends the same seq if no answer comes."""
    if event.kind == "CARD":
        return feed.expose(event.card, event.role)
    if event.kind == "NEW_SHOE":
        return feed.new_shoe()
    return feed.close()


def describe(state: pb.TableState) -> str:
    phase = enum_short_name(pb.Phase, state.phase)
    return (
        f"v{state.version:<4} {phase:<13} round {state.round_id:<3} "
        f"#{state.result_index:<2} {state.cards_remaining:>2} left"
    )


def run(
    client: PricingClient,
    table_id: str,
    events: Sequence[Event],
    *,
    pace: float = 0.0,
    stop_after: int | None = None,
    streamed: bool = False,
    out: Callable[[str], None] = print,
) -> pb.TableState:
    """Open (or rejoin) the table and send the events it has not applied yet, in order
    (``streamed``: on one Feed stream, not a call each)."""
    with client.feed(table_id, streamed=streamed) as feed:  # leaving it ends the stream
        return deal(client, feed, events, pace=pace, stop_after=stop_after, out=out)


def deal(
    client: PricingClient,
    feed: DealerFeed,
    events: Sequence[Event],
    *,
    pace: float,
    stop_after: int | None,
    out: Callable[[str], None],
) -> pb.TableState:
    table_id = feed.table_id
    state = feed.open("HILO")
    if state.last_seq:
        out(f"rejoined {table_id}: last_seq {state.last_seq}, next seq {state.last_seq + 1}")
    else:
        out(f"opened {table_id}: {describe(state)}")
    last = len(events) if stop_after is None else min(stop_after, len(events))
    for seq in range(state.last_seq + 1, last + 1):
        event = events[seq - 1]
        state = send(feed, event)
        assert state.last_seq == seq == feed.last_seq
        out(f"seq {seq:>3}  {event!s:<10} -> {describe(state)}")
        lost = getattr(client, "lost", None)
        if lost is not None and lost.last_seq == seq:
            same = "the same state" if lost == state else "A DIFFERENT STATE"
            out(
                f"seq {seq:>3}  answer lost after the server applied it; resent with the same "
                f"seq, answered v{state.version}: {same} (applied once)"
            )
        if pace:
            time.sleep(pace)
    return state


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=default_target(), help="ADDR (default %(default)s)")
    parser.add_argument("--table", default="demo-feed", help="table id (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="shuffle seed (default %(default)s)")
    parser.add_argument("--shoes", type=int, default=1, help="decks to deal (default 1)")
    parser.add_argument("--close", action="store_true", help="close the table at the end")
    parser.add_argument("--pace", type=float, default=0.0, help="seconds between events")
    parser.add_argument("--timeout", type=float, default=2.0, help="deadline of each call, s")
    parser.add_argument("--stop-after", type=int, metavar="N", help="stop after event N")
    parser.add_argument(
        "--lose-answer",
        type=int,
        metavar="N",
        help="throw away the answer to event N once (calls only: not with --stream)",
    )
    parser.add_argument(
        "--stream", action="store_true", help="send the events on one Feed stream, not a call each"
    )
    args = parser.parse_args(argv)
    if args.stream and args.lose_answer is not None:
        parser.error(
            "--lose-answer throws away the answer to a call, so it cannot be used with --stream"
        )
    events = script(args.seed, args.shoes, args.close)
    client = (
        LosingClient(args.server, args.lose_answer, timeout=args.timeout)
        if args.lose_answer
        else PricingClient(args.server, timeout=args.timeout)
    )
    with client:
        try:
            run(
                client, args.table, events,
                pace=args.pace, stop_after=args.stop_after, streamed=args.stream,
            )  # fmt: skip
        except grpc.RpcError as exc:
            print(f"dealer_feed: {exc.code().name}: {exc.details()}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
