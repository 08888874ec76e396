"""A game server's side of a live Hi-Lo table, through ``pricing.client``: watch the table,
accept a bet at the current version, settle it when its round ends, and ride out a lost
connection.

With the service and a dealer feed running (``make serve``; ``pricing simulate --pace 1`` or
``examples/dealer_feed.py --pace 1``), from the clone::

    .venv/bin/python examples/game_server.py --table demo --bet HIGH --stake-cents 1000

What it shows:

- **Watching.** ``WatchTable`` sends the table's current state, then every new version.
- **Accepting a bet at a version.** A player's bet is taken on the price the player saw: the
  state's ``round_id`` and ``version`` are kept with it (docs/rules.md §5.3). Here the bet is
  placed on the first state of each round where it is open.
- **Settling.** Once the state shows the round ended (``ended_round``, or a later round),
  ``Settle`` pays the bet at the price of its version — whatever the price is now — or
  refunds it if the round was void.
- **A reconnect.** When the server cannot be reached or is shutting down (``UNAVAILABLE``),
  ``PricingClient.follow_table`` waits — 50 ms doubling to 1 s — and watches again with
  ``from_version`` = the last version it gave + 1: the game server carries on from where it
  was, and a bet whose round ended meanwhile is settled from the server's history
  (docs/rules.md §5.2). A table not open yet (``NOT_FOUND``) is waited for the same way.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import grpc

from pricing.client import PricingClient, default_target, retry_delay
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name


@dataclass(frozen=True)
class Bet:
    round_id: int
    version: int
    bet: str
    stake_cents: int
    payout_hundredths: int


def odds(hundredths: int) -> str:
    return f"{hundredths // 100}.{hundredths % 100:02d} : 1"


def round_over(state: pb.TableState, bet: Bet) -> bool:
    """Whether ``state`` shows that the bet's round has ended."""
    ended = state.HasField("ended_round") and state.ended_round.round_id == bet.round_id
    return ended or state.round_id > bet.round_id or state.phase == pb.PHASE_CLOSED


def offered(state: pb.TableState, name: str) -> pb.BetPrice | None:
    """The bet's price if it can be placed now."""
    if state.phase != pb.PHASE_BETTING:
        return None
    return next((p for p in state.prices if p.bet == name and p.open), None)


def settle(client: PricingClient, table_id: str, bet: Bet) -> pb.SettleResponse:
    """Pays at the price of ``bet.version``, whatever the price is now; VOID: the stake back."""
    return client.settle(table_id, bet.round_id, bet.version, bet.bet, bet.stake_cents)


def follow(
    client: PricingClient, table_id: str, out: Callable[[str], None]
) -> Iterator[pb.TableState]:
    """The table's states, across lost connections: ``follow_table`` waits (50 ms doubling to
    1 s) on UNAVAILABLE and watches again from the last version it gave + 1. Before the table
    is open (NOT_FOUND) this waits the same way."""
    attempt = 0
    while True:
        try:
            yield from client.follow_table(table_id, on_reconnect=out)
            return
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.NOT_FOUND:
                raise
            if attempt == 0:
                out(f"table {table_id!r} is not open yet (NOT_FOUND); waiting")
            time.sleep(retry_delay(attempt))
            attempt += 1


def play(
    client: PricingClient,
    table_id: str,
    bet_name: str,
    stake_cents: int,
    rounds: int,
    *,
    out: Callable[[str], None] = print,
) -> list[pb.SettleResponse]:
    """Bet ``stake_cents`` on ``bet_name`` in each of ``rounds`` rounds; return the settlements."""
    settled: list[pb.SettleResponse] = []
    pending: Bet | None = None
    last_version = 0
    reconnecting = False

    def lost(line: str) -> None:
        nonlocal reconnecting
        reconnecting = True
        out(line)

    for state in follow(client, table_id, lost):
        if reconnecting:
            out(f"resumed at v{state.version} (asked for v{last_version + 1})")
            reconnecting = False
        last_version = state.version
        if pending is not None and round_over(state, pending):
            settlement = settle(client, table_id, pending)
            status = enum_short_name(pb.SettleResponse.Status, settlement.status)
            out(
                f"settled {pending.bet} on round {pending.round_id} at v{pending.version}:"
                f" {status} on {settlement.result_card or '-'}, returned"
                f" {settlement.returned_cents} cents"
            )
            settled.append(settlement)
            pending = None
            if len(settled) == rounds:
                break
        price = offered(state, bet_name) if pending is None else None
        if price is not None:
            payout = price.payout_hundredths
            pending = Bet(state.round_id, state.version, bet_name, stake_cents, payout)
            out(
                f"accepted {bet_name} {stake_cents} cents on round {state.round_id} at "
                f"v{state.version}: pays {odds(payout)}"
            )
    else:
        out(f"table {table_id} closed at v{last_version}")
    return settled


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=default_target(), help="ADDR (default %(default)s)")
    parser.add_argument("--table", default="demo", help="table id (default %(default)s)")
    parser.add_argument("--bet", default="HIGH", help="LOW HIGH ODD EVEN SEVEN (default HIGH)")
    parser.add_argument("--stake-cents", type=int, default=1000, help="default %(default)s")
    parser.add_argument("--rounds", type=int, default=3, help="bets to settle (default 3)")
    args = parser.parse_args(argv)
    with PricingClient(args.server) as client:
        try:
            play(
                client,
                args.table,
                args.bet.upper(),
                args.stake_cents,
                args.rounds,
            )
        except grpc.RpcError as exc:
            print(f"game_server: {exc.code().name}: {exc.details()}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
