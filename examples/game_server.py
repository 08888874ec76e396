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
- **A reconnect.** When the server cannot be reached (``UNAVAILABLE``; or the stream ended
  without the table closing, as when a server shuts down) it waits — 50 ms doubling to 1 s —
  and watches again with ``from_version`` = the last version it saw + 1: it carries on from
  where it was, and a bet whose round ended meanwhile is settled from the server's history
  (docs/rules.md §5.2).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import grpc

from pricing.client import PricingClient, default_target, retry_delay
from pricing.v1 import pricing_pb2 as pb

#: Worth waiting for: the server is restarting or unreachable, or the table is not open yet.
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.NOT_FOUND)


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
    return ended or state.round_id > bet.round_id or state.phase == pb.CLOSED


def offered(state: pb.TableState, name: str) -> pb.BetPrice | None:
    """The bet's price if it can be placed now."""
    if state.phase != pb.BETTING:
        return None
    return next((p for p in state.prices if p.bet == name and p.open), None)


def settle(client: PricingClient, table_id: str, bet: Bet) -> pb.Settlement:
    """Pays at the price of ``bet.version``, whatever the price is now; VOID: the stake back."""
    return client.settle(table_id, bet.round_id, bet.version, bet.bet, bet.stake_cents)


def play(
    client: PricingClient,
    table_id: str,
    bet_name: str,
    stake_cents: int,
    rounds: int,
    *,
    give_up_after: float = 60.0,
    out: Callable[[str], None] = print,
) -> list[pb.Settlement]:
    """Bet ``stake_cents`` on ``bet_name`` in each of ``rounds`` rounds; return the settlements."""
    settled: list[pb.Settlement] = []
    pending: Bet | None = None
    last_version = 0
    attempt = 0
    down_since: float | None = None
    while True:
        try:
            # The first time from v1: the current state; after a reconnect, the first version
            # not seen yet (older ones are skipped; a bet's round is settled from the server).
            for state in client.watch_table(table_id, from_version=last_version + 1):
                if down_since is not None:
                    out(f"resumed at v{state.version} (asked for v{last_version + 1})")
                    down_since, attempt = None, 0
                last_version = state.version
                if pending is not None and round_over(state, pending):
                    settlement = settle(client, table_id, pending)
                    status = pb.Settlement.Status.Name(settlement.status)
                    out(
                        f"settled {pending.bet} on round {pending.round_id} at v{pending.version}:"
                        f" {status} on {settlement.result_card or '-'}, returned"
                        f" {settlement.returned_cents} cents"
                    )
                    settled.append(settlement)
                    pending = None
                    if len(settled) == rounds:
                        return settled
                if state.phase == pb.CLOSED:
                    out(f"table {table_id} closed at v{state.version}")
                    return settled
                price = offered(state, bet_name) if pending is None else None
                if price is not None:
                    payout = price.payout_hundredths
                    pending = Bet(state.round_id, state.version, bet_name, stake_cents, payout)
                    out(
                        f"accepted {bet_name} {stake_cents} cents on round {state.round_id} at "
                        f"v{state.version}: pays {odds(payout)}"
                    )
            reason = "the stream ended without the table closing"
        except grpc.RpcError as exc:
            if exc.code() not in RETRYABLE:
                raise
            reason = exc.code().name
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                reason += ": the table is not open yet"
        now = time.monotonic()
        down_since = now if down_since is None else down_since
        if now - down_since > give_up_after:
            raise TimeoutError(f"no answer from {client.target} for {give_up_after} s")
        delay = retry_delay(attempt)
        attempt += 1
        out(f"watch interrupted ({reason}); again in {delay:.2f} s from v{last_version + 1}")
        time.sleep(delay)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=default_target(), help="ADDR (default %(default)s)")
    parser.add_argument("--table", default="demo", help="table id (default %(default)s)")
    parser.add_argument("--bet", default="HIGH", help="LOW HIGH ODD EVEN SEVEN (default HIGH)")
    parser.add_argument("--stake-cents", type=int, default=1000, help="default %(default)s")
    parser.add_argument("--rounds", type=int, default=3, help="bets to settle (default 3)")
    parser.add_argument(
        "--give-up-after", type=float, default=60.0, help="seconds without the server (60)"
    )
    args = parser.parse_args(argv)
    with PricingClient(args.server) as client:
        try:
            play(
                client,
                args.table,
                args.bet.upper(),
                args.stake_cents,
                args.rounds,
                give_up_after=args.give_up_after,
            )
        except grpc.RpcError as exc:
            print(f"game_server: {exc.code().name}: {exc.details()}", file=sys.stderr)
            return 1
        except TimeoutError as exc:
            print(f"game_server: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
