"""A server and every process under it (its workers), measured from ``/proc``: CPU time and
proportional set size (PSS). A worker's memory is what an operator pays for as much as the
server's, and PSS counts pages a worker shares with its parent once, not once per process."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MIB: Final = 1024 * 1024
TICKS: Final = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    """``/proc/PID/stat``'s fields after the command name (field 3 on); the name, in
    parentheses, may hold spaces."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def children(pid: int) -> list[int]:
    """Every live process whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(int(entry.name))[1]) == pid:  # field 4: ppid
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
    return found


def descendants(pid: int) -> list[int]:
    """``pid``'s children, theirs, and so on."""
    out: list[int] = []
    todo = [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def _ticks(pid: int) -> int:
    """CPU ticks ``pid`` used, with those of its children it has reaped: a worker that ended
    between two readings still counts, in its parent."""
    fields = _stat(pid)
    return sum(int(f) for f in fields[11:15])  # utime stime cutime cstime: fields 14-17


def _rollup(pid: int, *fields: str) -> int:
    """The sum of ``fields`` (``Pss``, ``Private_Dirty``, ...) of ``/proc/PID/smaps_rollup``."""
    total = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            total += int(value.split()[0]) * 1024
    return total


@dataclass(frozen=True)
class ProcessTree:
    """The process ``pid`` and its descendants as they are at each reading."""

    pid: int

    def pids(self) -> list[int]:
        return [self.pid, *descendants(self.pid)]

    def cpu_seconds(self) -> float:
        total = 0
        for pid in self.pids():
            try:
                total += _ticks(pid)
            except (OSError, IndexError):
                continue  # ended between the listing and the reading
        return total / TICKS

    def pss_bytes(self) -> int:
        return self._memory("Pss")

    def private_bytes(self) -> int:
        """Pages no other process maps (USS): unlike PSS, this does not move when unrelated
        processes map or unmap the same libraries, so small growths show in it."""
        return self._memory("Private_Clean", "Private_Dirty")

    def _memory(self, *fields: str) -> int:
        total = 0
        for pid in self.pids():
            try:
                total += _rollup(pid, *fields)
            except OSError:
                continue
        return total


@dataclass(frozen=True)
class Settling:
    """How a figure came down after a load left: each reading, and whether one met the bound
    in time (``within``: seconds from the first reading to the first good one)."""

    readings: tuple[float, ...]
    within: float | None

    @property
    def ok(self) -> bool:
        return self.within is not None

    @property
    def best(self) -> float:
        return min(self.readings)


def quiet_within(tree: ProcessTree, bound: float, seconds: float) -> Settling:
    """The tree's CPU share of one core (1.0: a whole core) over back-to-back 1 s windows,
    until one is under ``bound`` or ``seconds`` have passed."""
    start = time.monotonic()
    readings: list[float] = []
    stamp, used = start, tree.cpu_seconds()
    while len(readings) < int(seconds):
        time.sleep(max(0.0, start + len(readings) + 1 - time.monotonic()))
        now, total = time.monotonic(), tree.cpu_seconds()
        readings.append((total - used) / (now - stamp))
        stamp, used = now, total
        if readings[-1] < bound:
            return Settling(tuple(readings), now - start)
    return Settling(tuple(readings), None)


def pss_within(tree: ProcessTree, limit: int, seconds: float, every: float = 0.5) -> Settling:
    """The tree's PSS every ``every`` seconds until it is at most ``limit`` bytes or
    ``seconds`` have passed (readings in bytes)."""
    start, readings = time.monotonic(), []
    while True:
        readings.append(float(tree.pss_bytes()))
        elapsed = time.monotonic() - start
        if readings[-1] <= limit:
            return Settling(tuple(readings), elapsed)
        if elapsed + every > seconds:
            return Settling(tuple(readings), None)
        time.sleep(every)
