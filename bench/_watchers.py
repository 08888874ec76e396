"""Watcher client processes for the service benchmark, and the parent's handle on them.

A watcher process (``bench/service.py --watcher CONFIG``) opens its share of the streams over
several channels (each its own TCP connection), then answers JSON-line commands on stdin:

- ``mark``: forget what arrived so far (a phase starts);
- ``drain``: wait (at most ``timeout`` s) until every stream of the named tables holds the
  table's last version, then turn each arrival into a latency against the feed's send time of
  that (table, version) and answer the deliveries, the latencies and the last arrival;
- ``stop``: end every stream, answer how each one ended, and exit.

Per message a stream only records ``time.monotonic()`` (system-wide on Linux, so comparable with
the feed's send times in another process) and the version, read from the raw bytes by the
decoder the parent chose (``version_of`` or the generated ``TableState``). A stream that ends
or fails is counted by its status code, never waited on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import selectors
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import grpc
import grpc.aio

from pricing.v1 import pricing_pb2 as pb

#: At most this many latencies come back per process and phase (an even stride through all).
MAX_SAMPLES = 100_000
#: Each channel its own connection: gRPC would otherwise share one subchannel between
#: channels of the same target and arguments.
CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]


def version_of(data: bytes) -> int:
    """TableState.version (field 3) from serialised bytes, skipping the fields before it."""
    i = 0
    while True:
        tag = data[i]
        i += 1
        value = shift = 0
        while True:  # a varint: the value of a varint field, or a length
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        if tag == 0x18:  # field 3, varint
            return value
        if tag & 7 == 2:  # length-delimited: skip the bytes
            i += value
        elif tag & 7 != 0:
            raise ValueError(f"unexpected wire type in tag {tag:#x}")


def pb_version_of(data: bytes) -> int:
    return int(pb.TableState.FromString(data).version)


DECODERS: dict[str, Callable[[bytes], int]] = {"manual": version_of, "protobuf": pb_version_of}


class Stream:
    __slots__ = ("done", "first", "last", "table", "times", "versions")

    def __init__(self, table: str) -> None:
        self.table = table
        self.times: list[float] = []
        self.versions: list[int] = []
        self.last = 0
        self.first = asyncio.Event()
        self.done = ""  # how it ended: a status code's name, "" while open


async def _watch(
    call: grpc.aio.UnaryStreamMultiCallable[bytes, bytes],
    request: bytes,
    stream: Stream,
    decode: Callable[[bytes], int],
    gate: asyncio.Semaphore | None,
) -> None:
    clock = time.monotonic
    times, versions = stream.times, stream.versions
    try:
        async for raw in call(request):
            times.append(clock())
            stream.last = version = decode(raw)
            versions.append(version)
            if not stream.first.is_set():
                stream.first.set()
                if gate is not None:
                    gate.release()
                    gate = None
        stream.done = "OK"
    except grpc.aio.AioRpcError as exc:
        stream.done = exc.code().name
    except asyncio.CancelledError:
        stream.done = stream.done or "STOPPED"
        raise
    finally:
        if gate is not None:
            gate.release()
        stream.first.set()


async def watcher_main(config: dict[str, Any]) -> None:
    """The body of a watcher process (see the module docstring)."""
    decode = DECODERS[config["decode"]]
    channels = [
        grpc.aio.insecure_channel(config["target"], options=CHANNEL_OPTIONS)
        for _ in range(config["channels"])
    ]
    calls = [
        c.unary_stream(config["method"], request_serializer=None, response_deserializer=None)
        for c in channels
    ]
    real = config["method"].startswith("/pricing.")
    streams: list[Stream] = []
    tasks: list[asyncio.Task[None]] = []
    concurrency = config["open_concurrency"]
    gate = asyncio.Semaphore(concurrency) if concurrency else None
    t0 = time.monotonic()
    for table, count in config["streams"]:
        request = (
            pb.WatchTableRequest(table_id=table).SerializeToString() if real else table.encode()
        )
        for _ in range(count):
            stream = Stream(table)
            if gate is not None:
                await gate.acquire()
            call = calls[len(streams) % len(calls)]
            streams.append(stream)
            tasks.append(asyncio.create_task(_watch(call, request, stream, decode, gate)))
    opened = asyncio.gather(*(s.first.wait() for s in streams))
    with contextlib.suppress(TimeoutError):  # what has not opened by then is counted below
        await asyncio.wait_for(opened, config["open_timeout"])
    served = sum(1 for s in streams if s.versions)
    ended = Counter(s.done for s in streams if s.done and not s.versions)
    waiting = sum(1 for s in streams if not s.versions and not s.done)
    reply = {"served": served, "failed": dict(ended), "waiting": waiting}
    _answer({**reply, "seconds": time.monotonic() - t0})

    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        command = json.loads(line)
        if command["cmd"] == "mark":
            for s in streams:
                s.times.clear()
                s.versions.clear()
            _answer({"ok": True})
        elif command["cmd"] == "drain":
            _answer(await _drain(streams, command))
        elif command["cmd"] == "stop":
            break
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    _answer({"ended": dict(Counter(s.done for s in streams if s.done != "STOPPED"))})
    for channel in channels:
        await channel.close(None)


async def _drain(streams: list[Stream], command: dict[str, Any]) -> dict[str, Any]:
    last: dict[str, int] = command["last"]
    mine = [s for s in streams if s.table in last]
    deadline = time.monotonic() + command["timeout"]
    while time.monotonic() < deadline:
        if all(s.last >= last[s.table] or s.done for s in mine):
            break
        await asyncio.sleep(0.02)
    sent: dict[str, dict[str, float]] = command["sent"]
    latencies: list[float] = []
    deliveries = 0
    last_arrival = 0.0
    for s in mine:
        times = sent[s.table]
        for version, arrived in zip(s.versions, s.times, strict=True):
            t0 = times.get(str(version))
            if t0 is None:  # a version sent before the phase began
                continue
            deliveries += 1
            latencies.append(arrived - t0)
            last_arrival = max(last_arrival, arrived)
    stride = max(1, len(latencies) // MAX_SAMPLES)
    return {
        "deliveries": deliveries,
        "latencies": [round(x, 7) for x in latencies[::stride]],
        "stride": stride,
        "last_arrival": last_arrival,
        "behind": sum(1 for s in mine if s.last < last[s.table] and not s.done),
        "ended": dict(Counter(s.done for s in mine if s.done)),
    }


def _answer(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


class Child:
    """A child process of this script answering JSON lines on its stdout; every wait bounded."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float) -> dict[str, Any]:
        """The next JSON line from the child; a child that exited or stays silent is an error."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            if not self._selector.select(max(0.0, deadline - time.monotonic())):
                raise TimeoutError(f"{self.proc.args[-1][:80]}: no answer in {timeout} s")
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"child exited with {self.proc.wait()}")
            if line.startswith("{"):
                answer: dict[str, Any] = json.loads(line)
                return answer

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._selector.close()


class Watchers:
    """Watcher processes on one server: ``streams`` [(table, count)] split evenly over
    ``procs`` processes of ``channels`` channels each."""

    def __init__(
        self,
        script: str,
        target: str,
        method: str,
        streams: list[tuple[str, int]],
        *,
        procs: int,
        channels: int,
        decode: str,
        open_concurrency: int = 256,
        open_timeout: float = 60.0,
    ) -> None:
        self.open_timeout = open_timeout
        self.children: list[Child] = []
        for p in range(procs):
            share = [(t, n // procs + (1 if p < n % procs else 0)) for t, n in streams]
            config = {
                "target": target,
                "method": method,
                "streams": [(t, n) for t, n in share if n],
                "channels": channels,
                "decode": decode,
                "open_concurrency": open_concurrency,
                "open_timeout": open_timeout,
            }
            self.children.append(Child([sys.executable, script, "--watcher", json.dumps(config)]))

    def opened(self) -> dict[str, Any]:
        """Once every process has opened its streams: served, failed (by code), waiting."""
        total: dict[str, Any] = {"served": 0, "failed": Counter(), "waiting": 0, "seconds": 0.0}
        for child in self.children:
            answer = child.reply(self.open_timeout + 30)
            total["served"] += answer["served"]
            total["waiting"] += answer["waiting"]
            total["failed"].update(answer["failed"])
            total["seconds"] = max(total["seconds"], answer["seconds"])
        return total

    def ask(self, command: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        for child in self.children:
            child.send(command)
        return [child.reply(timeout) for child in self.children]

    def stop(self) -> Counter[str]:
        """End every stream; how many had ended before (by code)."""
        ended: Counter[str] = Counter()
        for child in self.children:
            try:
                child.send({"cmd": "stop"})
                ended.update(child.reply(30)["ended"])
            except (OSError, RuntimeError, TimeoutError) as exc:
                ended[f"watcher process: {exc}"] += 1
            child.stop()
        return ended
