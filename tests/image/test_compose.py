"""deploy/compose.yaml brought up with docs/operations/replicas.md's commands (the images from
the environment: ``make image-test`` points them at the stand-ins): a 3-node JetStream cluster,
two replicas, Prometheus. Its published ports are on 127.0.0.1 only, on free ports; the project
has a name of its own, and ``down -v`` removes it whatever failed."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from pricing.client import PricingClient
from pricing.v1 import pricing_pb2 as pb
from tests.image.docker import IMAGE, ROOT, docker, free_port, unique, wait_healthy
from tests.service.test_durability_e2e import CARDS
from tests.support.wire import wait_for

pytestmark = pytest.mark.image

SECRETS = ROOT / "deploy/secrets"


def compose_command() -> list[str]:
    """Debian's docker-compose where it is installed, else the engine's `docker compose`."""
    found = shutil.which("docker-compose")
    return [found] if found else ["docker", "compose"]


@dataclass
class Deployment:
    env: dict[str, str]
    ports: dict[str, int]

    def compose(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            [*compose_command(), "-f", "deploy/compose.yaml", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert done.returncode == 0, f"compose {' '.join(args)}:\n{done.stdout}{done.stderr}"
        return done.stdout.strip()

    def container(self, service: str) -> str:
        return self.compose("ps", "-q", service)

    def client(self, *replicas: int, role: str = "dealer") -> PricingClient:
        targets = ",".join(f"127.0.0.1:{self.ports[f'PRICING_{r}_GRPC']}" for r in replicas)
        return PricingClient(
            f"ipv4:{targets}" if len(replicas) > 1 else targets,
            token=(SECRETS / f"{role}s.txt").read_text().strip(),
            tls_ca=SECRETS / "ca.crt",
            timeout=15,
        )

    def prometheus(self, query: str) -> list[dict[str, object]]:
        url = f"http://127.0.0.1:{self.ports['PROMETHEUS']}/api/v1/query?" + urllib.parse.urlencode(
            {"query": query}
        )
        with urllib.request.urlopen(url, timeout=5) as response:
            answer = json.load(response)
        assert answer["status"] == "success", answer
        return list(answer["data"]["result"])


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    subprocess.run([str(ROOT / "deploy/make-secrets.sh")], check=True)
    ports = {
        name: free_port()
        for name in ("PRICING_1_GRPC", "PRICING_2_GRPC", "PRICING_1_METRICS", "PRICING_2_METRICS")
    }
    ports["PROMETHEUS"] = free_port()
    env = dict(os.environ, COMPOSE_PROJECT_NAME=unique("pricingtest").replace("-", ""))
    env["PRICING_IMAGE"] = IMAGE
    env.update({name: f"127.0.0.1:{port}" for name, port in ports.items()})
    env["PROMETHEUS_ADDR"] = env.pop("PROMETHEUS")
    deployed = Deployment(env, ports)
    try:
        deployed.compose("up", "-d")
        yield deployed
    finally:
        deployed.compose("down", "-v", "--remove-orphans")


def test_two_replicas_turn_healthy_and_serve(deployment: Deployment) -> None:
    for service in ("pricing-1", "pricing-2"):
        took = wait_healthy(deployment.container(service))
        print(f"{service}: healthy {took:.1f} s after `up -d` returned")
        with deployment.client(int(service[-1]), role="reader") as reader:
            assert reader.health() == "SERVING"


def test_a_feed_through_one_replica_is_watched_byte_for_byte_on_the_other(
    deployment: Deployment,
) -> None:
    table = "compose-watch"
    answers: dict[int, bytes] = {}
    with deployment.client(1) as dealer, deployment.client(2, role="reader") as reader:
        feed = dealer.feed(table)
        opened = feed.open("HILO")
        answers[opened.version] = opened.SerializeToString()
        wait_for(lambda: any(t.table_id == table for t in reader.list_tables()), what="on 2")
        watched: list[pb.TableState] = []

        def watch() -> None:
            for state in reader.watch_table(table):
                watched.append(state)
                if state.phase == pb.PHASE_SHOE_COMPLETE:
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        wait_for(lambda: bool(watched), what="the watcher's first state")
        for i, card in enumerate(random.Random(5).sample(CARDS, 15)):
            state = feed.expose(card, "BURN" if i < 5 else "RESULT")
            answers[state.version] = state.SerializeToString()
        watcher.join(30)
        assert not watcher.is_alive(), "the watcher on replica 2 did not see the shoe end"
        versions = [s.version for s in watched]
        assert versions == sorted(set(versions))
        for seen in watched:  # each state replica 2 sent is the one replica 1 answered
            assert seen.SerializeToString() == answers[seen.version], seen.version
        results = {v for v, b in answers.items() if pb.TableState.FromString(b).ended_round}
        assert results <= set(versions)  # no round result skipped
        assert versions[-1] == max(answers)
    with deployment.client(1, role="reader") as one, deployment.client(2, role="reader") as two:
        assert one.get_table(table).SerializeToString() == two.get_table(table).SerializeToString()


def test_prometheus_scrapes_both_replicas(deployment: Deployment) -> None:
    replicas = {"pricing-1:9464", "pricing-2:9464"}

    def instances(query: str) -> set[str]:
        return {str(r["metric"]["instance"]) for r in deployment.prometheus(query)}  # type: ignore[index]

    wait_for(
        lambda: instances('up{job="live-odds-pricing"} == 1') == replicas,
        timeout=60,
        what="both replicas up in Prometheus",
    )
    handled = 'grpc_server_handled_total{grpc_service="pricing.v1.DealerService"}'
    assert instances(handled) == replicas


def test_a_nats_node_and_a_replica_killed_mid_feed_lose_nothing_acknowledged(
    deployment: Deployment,
) -> None:
    table = "compose-faults"
    deck = random.Random(9).sample(CARDS, 15)
    acknowledged: list[str] = []
    # A card reader that loses its replica joins the table on the other one and carries on
    # from the seq that replica holds (two clients: over TLS, gRPC checks the certificate
    # against one host name, which a target listing both replicas does not give).
    with deployment.client(1) as one, deployment.client(2) as two:
        feed = one.feed(table)
        feed.open("HILO")
        for i, card in enumerate(deck):
            if i == 4:
                docker("kill", deployment.container("nats-1"))
            if i == 9:
                docker("kill", deployment.container("pricing-1"))
                feed = two.feed(table)
                assert feed.open("HILO").exposed == acknowledged  # every card so far
            feed.expose(card, "BURN" if i < 5 else "RESULT")  # resent until answered
            acknowledged.append(card)
    with deployment.client(2, role="reader") as survivor:
        assert survivor.health() == "SERVING"
        state = survivor.get_table(table)
    assert list(state.exposed) == acknowledged == deck
    assert state.phase == pb.PHASE_SHOE_COMPLETE
