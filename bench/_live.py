"""Pieces the live-service benchmarks share: a Hi-Lo dealer feed, and a process's CPU time and
resident memory read from /proc (Linux)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _harness import ROOT  # noqa: F401  (puts the repository on sys.path)

from pricing.cards import DECK
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc

CARDS = [str(card) for card in DECK]
TICKS = os.sysconf("SC_CLK_TCK")


class Feed:
    """One Hi-Lo table's dealer: 5 burns, then results, a new shoe when it runs out. Each call
    has a deadline of ``timeout`` seconds (a stalled server fails the call, not the run).
    ``send(streamed=True)`` sends the event on the table's own Feed stream instead (opened
    at its first event, or before by ``open_stream``); a stream has no deadline per event,
    so there only the phase's own bound ends a stall."""

    def __init__(
        self, stub: pb_grpc.DealerServiceStub, table_id: str, seed: int, timeout: float = 30.0
    ) -> None:
        self.stub, self.table_id, self.timeout = stub, table_id, timeout
        self.rng = random.Random(seed)
        self.seq, self.phase, self.deck = 0, pb.PHASE_OPENING, self.rng.sample(CARDS, len(CARDS))
        self._stream: Any = None
        self._last: pb.FeedRequest | None = None  # the last event sent, as a FeedRequest

    async def send(self, streamed: bool = False) -> pb.TableState:
        self.seq += 1
        if self.phase == pb.PHASE_SHOE_COMPLETE or not self.deck:
            shoe = pb.NewShoeRequest(table_id=self.table_id, seq=self.seq)
            self._last = pb.FeedRequest(new_shoe=shoe)
            state = await (
                self._on_stream(self._last)
                if streamed
                else self.stub.NewShoe(shoe, timeout=self.timeout)
            )
            self.deck = self.rng.sample(CARDS, len(CARDS))
        else:
            role = pb.CARD_ROLE_BURN if self.phase == pb.PHASE_OPENING else pb.CARD_ROLE_RESULT
            card = pb.ExposeCardRequest(
                table_id=self.table_id, seq=self.seq, card=self.deck.pop(), role=role
            )
            self._last = pb.FeedRequest(expose_card=card)
            state = await (
                self._on_stream(self._last)
                if streamed
                else self.stub.ExposeCard(card, timeout=self.timeout)
            )
        self.phase = state.phase
        return state

    async def open_stream(self) -> None:
        """Open the table's Feed stream before its events need it, as a card reader opens its
        stream once for the day: the table's last event sent again (answered as it was, not
        applied again, so no watcher hears of it). A table without events opens its stream
        at its first."""
        if self._stream is None and self._last is not None:
            await self._on_stream(self._last)

    async def end_stream(self) -> None:
        """End the table's Feed stream, if it has one, and wait for the server's OK."""
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.done_writing()
            await stream.code()

    async def _on_stream(self, request: pb.FeedRequest) -> pb.TableState:
        if self._stream is None:
            self._stream = self.stub.Feed()
        try:
            await self._stream.write(request)
            state = await self._stream.read()
        except BaseException:
            self._stream = None  # it failed (AioRpcError): the next event opens another
            raise
        if not isinstance(state, pb.TableState):  # EOF: the server ended it without a status
            self._stream = None
            raise RuntimeError(f"table {self.table_id}: the Feed stream ended")
        return state


def cpu_seconds(pid: int) -> float:
    """User + system CPU time ``pid`` has used so far (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime: fields 14 and 15


def cpu_ticks() -> tuple[int, int]:
    """The machine's CPU time so far, in clock ticks: (stolen, all). Steal is time the VM's
    virtual CPUs were ready to run but the host ran something else: on a busy host it
    stretches every latency, whoever is measured."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    # user nice system idle iowait irq softirq steal (guest time is already in user)
    return fields[7], sum(fields[:8])


@dataclass
class Steal:
    """The machine's CPU ticks its host stole over some spans of time, and all its ticks then;
    spans add up (``+=``)."""

    stolen: int = 0
    ticks: int = 0

    @classmethod
    def since(cls, start: tuple[int, int]) -> Steal:
        """From ``start`` (``cpu_ticks()`` then) until now."""
        stolen, ticks = cpu_ticks()
        return cls(stolen - start[0], ticks - start[1])

    def __iadd__(self, other: Steal) -> Steal:
        self.stolen += other.stolen
        self.ticks += other.ticks
        return self

    @property
    def share(self) -> float:
        """The share of the CPU time the host took (0 to 1)."""
        return self.stolen / self.ticks if self.ticks else float("nan")


def rss_bytes(pid: int) -> int:
    """``pid``'s resident set size now."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")
