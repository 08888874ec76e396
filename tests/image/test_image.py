"""The image as an operator runs it: not root, healthy by its HEALTHCHECK, refusing to serve
beyond loopback unprotected, its journal on a volume surviving a SIGKILL mid-feed, and a
SIGTERM drained within ``--grace``. Its port is published on 127.0.0.1 only; the clients are
the package's own, over TLS with tokens, as the image requires."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import grpc
import pytest

from pricing.client import PricingClient
from pricing.v1 import pricing_pb2 as pb
from tests.image.docker import Docker, docker, free_port, logs, state, wait_healthy, wait_log
from tests.service.test_durability_e2e import CARDS
from tests.support.wire import wait_for

pytestmark = pytest.mark.image

#: The environment of a protected server: TLS, dealer and reader tokens, all from /secrets.
PROTECTED = (
    *("-e", "PRICING_TLS_CERT=/secrets/server.crt"),
    *("-e", "PRICING_TLS_KEY=/secrets/server.key"),
    *("-e", "PRICING_DEALER_TOKENS_FILE=/secrets/dealers.txt"),
    *("-e", "PRICING_READER_TOKENS_FILE=/secrets/readers.txt"),
)


def token(secrets: Path, role: str) -> str:
    return (secrets / f"{role}s.txt").read_text().strip()


def serve(engine: Docker, secrets: Path, *args: str, command: tuple[str, ...] = ()) -> int:
    """A protected server on its own network, published on a free 127.0.0.1 port: the port."""
    port = free_port()
    engine.run(
        *("--network", engine.networks[0] if engine.networks else engine.network()),
        *("-p", f"127.0.0.1:{port}:50051"),
        *("-v", f"{secrets}:/secrets:ro"),
        *PROTECTED,
        *args,
        command=command,
    )
    return port


def client(port: int, secrets: Path, role: str = "dealer") -> PricingClient:
    return PricingClient(
        f"127.0.0.1:{port}", token=token(secrets, role), tls_ca=secrets / "ca.crt", timeout=10
    )


def test_it_runs_as_a_user_and_its_health_check_turns_healthy(
    engine: Docker, secrets: Path
) -> None:
    started = time.monotonic()
    port = serve(engine, secrets)
    container = engine.containers[-1]
    took = wait_healthy(container)
    print(f"start to healthy: {time.monotonic() - started:.1f} s (health polled {took:.1f} s)")
    assert docker("exec", container, "id", "-u") == "10001"
    assert state(container, ".Config.User") == "pricing"
    with client(port, secrets, "reader") as reader:
        assert reader.health() == "SERVING"
    assert "(TLS; dealer feed token required; reads token required)" in logs(container)


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ((), "TLS (--tls-cert and --tls-key), dealer tokens"),
        (PROTECTED[:-2], "reader tokens (--reader-tokens-file)"),
    ],
    ids=["nothing", "no-reader-tokens"],
)
def test_it_refuses_to_serve_beyond_loopback_unprotected_and_says_why(
    engine: Docker, secrets: Path, env: tuple[str, ...], missing: str
) -> None:
    container = engine.run("--network", engine.network(), "-v", f"{secrets}:/secrets:ro", *env)
    assert docker("wait", container, timeout=60) == "2"  # a usage error, as argparse exits
    said = logs(container)
    assert "--host 0.0.0.0 serves beyond this machine without " + missing in said, said
    assert "configure them, or pass --insecure to accept the risk" in said


def test_a_sigkill_mid_feed_and_a_restart_keep_every_acknowledged_card(
    engine: Docker, secrets: Path
) -> None:
    volume = engine.volume()
    port = serve(engine, secrets, "-v", f"{volume}:/var/lib/pricing")
    container = engine.containers[-1]
    wait_log(container, '"event": "ready"')
    deck = random.Random(7).sample(CARDS, 15)  # a Hi-Lo shoe: 5 burns, then 10 results
    acknowledged: list[str] = []
    failures: list[BaseException] = []

    def deal() -> None:
        try:
            with client(port, secrets) as dealer, dealer.feed("kill-9") as feed:
                feed.open("HILO")
                for i, card in enumerate(deck):
                    feed.expose(card, "BURN" if i < 5 else "RESULT")  # resent until answered
                    acknowledged.append(card)
                    time.sleep(0.1)  # a card reader's pace: the kill lands mid-shoe
        except BaseException as exc:  # reported by the test's thread
            failures.append(exc)

    dealer = threading.Thread(target=deal, daemon=True)
    dealer.start()
    wait_for(lambda: len(acknowledged) >= 6 or bool(failures), what="the feed under way")
    docker("kill", container)  # SIGKILL: no clean shutdown, no last snapshot
    before_kill = list(acknowledged)
    assert 6 <= len(before_kill) < len(deck)
    docker("start", container)  # the same volume and port
    wait_for(lambda: logs(container).count('"event": "ready"') == 2, what="restarted")
    dealer.join(60)
    assert not failures, failures
    assert not dealer.is_alive(), "the feed did not finish after the restart"
    with client(port, secrets, "reader") as reader:
        table = reader.get_table("kill-9")
    assert list(table.exposed) == acknowledged == deck  # each card once, none lost
    assert list(table.exposed)[: len(before_kill)] == before_kill
    assert table.phase == pb.PHASE_SHOE_COMPLETE
    assert "1 table(s) recovered" in logs(container)


def test_sigterm_drains_within_the_grace_period(engine: Docker, secrets: Path) -> None:
    grace = 3.0
    port = serve(engine, secrets, command=("--grace", str(grace)))
    container = engine.containers[-1]
    wait_log(container, '"event": "ready"')
    with client(port, secrets) as dealer:
        dealer.feed("drain").open("HILO")
    ended: list[grpc.StatusCode] = []

    def watch() -> None:
        with client(port, secrets, "reader") as reader:
            try:
                for _ in reader.watch_table("drain"):
                    pass
            except grpc.RpcError as exc:
                ended.append(exc.code())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with client(port, secrets, "reader") as reader:
        wait_for(
            lambda: any(t.watchers for t in reader.list_tables()), what="the watcher connected"
        )
    started = time.monotonic()
    docker("stop", "-t", "30", container)  # SIGTERM (the image's STOPSIGNAL), then waits
    took = time.monotonic() - started
    watcher.join(10)
    print(f"SIGTERM to exit: {took:.2f} s (grace {grace} s)")
    assert state(container, ".State.ExitCode") == "0"
    assert took < grace + 2.0, logs(container)
    said = logs(container)
    assert f"shutting down: health NOT_SERVING, ending streams, {grace:.1f} s grace" in said
    assert said.rstrip().endswith("stopped"), said
    assert ended == [grpc.StatusCode.UNAVAILABLE]
