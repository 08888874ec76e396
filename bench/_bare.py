"""The baseline of the service benchmark: a bare grpc.aio server of the service's shapes, written
as plain grpc.aio code with nothing of the service in it.

- ``Echo``: an empty unary call answered with a fixed payload the size of a Hi-Lo TableState;
- ``Post``: a unary call carrying a serialised TableState (the size of a Hi-Lo one); the server
  reads its ``table_id`` and puts the same bytes in the queue of every subscriber of that table;
- ``Feed``: the same posts on one bidirectional stream, each answered in turn with an empty
  message (DealerService.Feed answers each event with the table's state);
- ``Watch``: a server stream, the request a table id; an async-generator handler per
  subscriber, fed from its own ``asyncio.Queue``, that first sends the latest post (as
  WatchTable first sends the current state).

A subscriber's queue holds at most ``QUEUE`` posts; when full the oldest is dropped (a bounded
queue is what plain code would do; the service keeps one, the newest). No interceptors; the
same transport options as the real server (``pricing.server.limits.grpc_options``: pending-call
limits, keepalive, message size).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio

from pricing.server.limits import Limits, grpc_options
from pricing.v1 import pricing_pb2 as pb

SERVICE = "bench.Bare"
ECHO = f"/{SERVICE}/Echo"
POST = f"/{SERVICE}/Post"
WATCH = f"/{SERVICE}/Watch"
FEED = f"/{SERVICE}/Feed"
QUEUE = 8


class Topic:
    __slots__ = ("latest", "queues")

    def __init__(self) -> None:
        self.latest = b""
        self.queues: set[asyncio.Queue[bytes]] = set()


async def serve(payload_size: int) -> None:
    payload = b"x" * payload_size
    topics: dict[str, Topic] = {}

    async def echo(request: bytes, context: Any) -> bytes:
        return payload

    async def post(request: bytes, context: Any) -> bytes:
        topic = topics.setdefault(pb.TableState.FromString(request).table_id, Topic())
        topic.latest = request
        for queue in topic.queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(request)
        return b""

    async def feed(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        async for request in requests:
            yield await post(request, context)

    async def watch(request: bytes, context: Any) -> AsyncIterator[bytes]:
        topic = topics.setdefault(request.decode(), Topic())
        queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE)
        topic.queues.add(queue)
        try:
            if topic.latest:
                yield topic.latest
            while True:
                yield await queue.get()
        finally:
            topic.queues.discard(queue)

    raw: dict[str, Any] = {"request_deserializer": None, "response_serializer": None}
    handler = grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Echo": grpc.unary_unary_rpc_method_handler(echo, **raw),
            "Post": grpc.unary_unary_rpc_method_handler(post, **raw),
            "Watch": grpc.unary_stream_rpc_method_handler(watch, **raw),
            "Feed": grpc.stream_stream_rpc_method_handler(feed, **raw),
        },
    )
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0), *grpc_options(Limits())])
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(json.dumps({"event": "ready", "grpc_port": port}), flush=True)
    await server.wait_for_termination()
