"""TLS and mutual TLS against the real server, with certificates generated here: a TLS server
does not answer a plaintext client, an mTLS server refuses a client without a certificate,
both serve a correct client, and SIGHUP switches certificates (the web console's too) without
dropping the server."""

from __future__ import annotations

import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from pricing.client import PricingClient
from pricing.v1 import pricing_pb2 as pb
from pricing.v1 import pricing_pb2_grpc as pb_grpc
from tests.support import ROOT
from tests.support.certs import CA
from tests.support.server import ServerProcess, start_server
from tests.support.wire import wait_for

pytestmark = pytest.mark.timeout(120)


def health(channel: grpc.Channel, timeout: float = 5.0) -> grpc.StatusCode:
    try:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[no-any-return]
    finally:
        channel.close()
    return grpc.StatusCode.OK


def tls_channel(
    server: ServerProcess, ca: Path, cert: Path | None = None, key: Path | None = None
) -> grpc.Channel:
    credentials = grpc.ssl_channel_credentials(
        root_certificates=ca.read_bytes(),
        private_key=key.read_bytes() if key else None,
        certificate_chain=cert.read_bytes() if cert else None,
    )
    return grpc.secure_channel(server.target, credentials)


def console_trusted(server: ServerProcess, ca: Path, *, tolerate_refusal: bool = False) -> bool:
    """Whether the web console's TLS handshake succeeds for a client trusting only ``ca``
    (and then answers its health); ``tolerate_refusal``: a connection closed before or in
    its handshake is False too."""
    assert server.console_port is not None
    context = ssl.create_default_context(cafile=ca)
    try:
        with (
            socket.create_connection(("127.0.0.1", server.console_port), timeout=10) as raw,
            context.wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            tls.sendall(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return tls.recv(4096).startswith(b"HTTP/1.1 200")
    except ssl.SSLCertVerificationError:
        return False
    except (ssl.SSLError, ConnectionError):
        if tolerate_refusal:
            return False
        raise


def test_a_tls_server_serves_tls_only(tmp_path: Path) -> None:
    ca = CA(tmp_path)
    pair = ca.issue("server", server=True)
    server = start_server(f"--tls-cert={pair.cert}", f"--tls-key={pair.key}")
    try:
        assert health(grpc.insecure_channel(server.target)) == grpc.StatusCode.UNAVAILABLE
        other = CA(tmp_path, "other-ca")  # a CA that did not sign the server's certificate
        assert health(tls_channel(server, other.path)) == grpc.StatusCode.UNAVAILABLE
        assert health(tls_channel(server, ca.path)) == grpc.StatusCode.OK
        with PricingClient(server.target, tls_ca=ca.path) as client:  # the typed client too
            assert client.open_table("tls-1", "HILO").version == 1
            assert client.get_table("tls-1").version == 1
        assert "(TLS;" in server.log()
    finally:
        assert server.stop() == 0


def test_a_target_listing_replicas_needs_the_tls_server_name(tmp_path: Path) -> None:
    # gRPC checks the certificate against a target's host; a target listing replicas
    # (ipv4:A:PORT,B:PORT) has no single host, so the client names the one to check.
    ca = CA(tmp_path)
    pair = ca.issue("server", server=True)  # for localhost and 127.0.0.1
    server = start_server(f"--tls-cert={pair.cert}", f"--tls-key={pair.key}")
    replicas = f"ipv4:{server.target},{server.target}"  # one server, listed twice
    try:
        with PricingClient(replicas, tls_ca=ca.path, timeout=5) as client:
            with pytest.raises(grpc.RpcError) as refused:
                client.health()
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        with PricingClient(
            replicas, tls_ca=ca.path, tls_server_name="localhost", timeout=5
        ) as client:
            assert client.health() == "SERVING"
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from pricing.launch import main; sys.exit(main())",
             "health", "--server", replicas, "--tls-ca", str(ca.path),
             "--tls-server-name", "127.0.0.1"],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        assert server.stop() == 0


def test_an_mtls_server_refuses_a_client_without_a_certificate(tmp_path: Path) -> None:
    ca = CA(tmp_path)
    pair = ca.issue("server", server=True)
    client = ca.issue("client", server=False)
    stranger = CA(tmp_path, "stranger-ca").issue("stranger", server=False)
    server = start_server(
        f"--tls-cert={pair.cert}", f"--tls-key={pair.key}", f"--tls-client-ca={ca.path}"
    )
    try:
        assert health(tls_channel(server, ca.path)) == grpc.StatusCode.UNAVAILABLE
        assert (
            health(tls_channel(server, ca.path, stranger.cert, stranger.key))
            == grpc.StatusCode.UNAVAILABLE
        )
        assert health(tls_channel(server, ca.path, client.cert, client.key)) == grpc.StatusCode.OK
        channel = tls_channel(server, ca.path, client.cert, client.key)
        state = pb_grpc.DealerServiceStub(channel).OpenTable(
            pb.OpenTableRequest(table_id="mtls-1", game=pb.GAME_HILO), timeout=10
        )
        assert state.version == 1
        channel.close()
        assert "mutual TLS" in server.log()
    finally:
        assert server.stop() == 0


def test_sighup_switches_certificates_without_dropping_the_server(tmp_path: Path) -> None:
    old_ca, new_ca = CA(tmp_path, "old-ca"), CA(tmp_path, "new-ca")
    old, new = old_ca.issue("old", server=True), new_ca.issue("new", server=True)
    cert, key = tmp_path / "live.crt", tmp_path / "live.key"
    shutil.copy(old.cert, cert)
    shutil.copy(old.key, key)
    server = start_server(f"--tls-cert={cert}", f"--tls-key={key}", "--console-port=0")
    try:
        assert console_trusted(server, old_ca.path) and not console_trusted(server, new_ca.path)
        kept = tls_channel(server, old_ca.path)  # a connection made before the switch
        dealer = pb_grpc.DealerServiceStub(kept)
        dealer.OpenTable(pb.OpenTableRequest(table_id="reload-1", game=pb.GAME_HILO), timeout=10)
        assert health(tls_channel(server, new_ca.path)) == grpc.StatusCode.UNAVAILABLE
        shutil.copy(new.cert, cert)
        shutil.copy(new.key, key)
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "reloaded TLS certificates" in server.log())
        wait_for(lambda: health(tls_channel(server, new_ca.path)) == grpc.StatusCode.OK)
        assert health(tls_channel(server, old_ca.path)) == grpc.StatusCode.UNAVAILABLE
        assert console_trusted(server, new_ca.path), "the console kept the old certificate"
        assert not console_trusted(server, old_ca.path)
        state = dealer.ExposeCard(  # the old connection still works: nothing was dropped
            pb.ExposeCardRequest(table_id="reload-1", seq=1, card="2S", role=pb.CARD_ROLE_BURN),
            timeout=10,
        )
        assert state.version == 2
        kept.close()
        key.write_text("not a key")  # unusable: the certificates in force stay
        server.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "certificates not reloaded" in server.log())
        assert health(tls_channel(server, new_ca.path)) == grpc.StatusCode.OK
        assert console_trusted(server, new_ca.path)
        assert server.proc.poll() is None
    finally:
        assert server.stop() == 0


def run_server(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--port=0", "--metrics-port=0", *args],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_unusable_certificates_stop_the_server_at_start(tmp_path: Path) -> None:
    ca = CA(tmp_path)
    a, b = ca.issue("a", server=True), ca.issue("b", server=True)
    for args, message in (
        ([f"--tls-cert={a.cert}", f"--tls-key={b.key}"], "not a usable pair"),
        ([f"--tls-cert={a.cert}"], "go together"),
        ([f"--tls-client-ca={ca.path}"], "needs --tls-cert"),
        ([f"--tls-cert={a.cert}", f"--tls-key={a.key}", f"--tls-client-ca={a.key}"], "no usable"),
    ):
        done = run_server(*args)
        assert done.returncode == 2 and message in done.stderr, done.stderr


def test_beyond_loopback_tls_and_tokens_or_insecure(tmp_path: Path) -> None:
    ca = CA(tmp_path)
    pair = ca.issue("server", server=True)
    tokens = tmp_path / "tokens"
    tokens.write_text("a-token-of-twenty-chars\n")
    done = run_server("--host=0.0.0.0", f"--dealer-tokens-file={tokens}")
    assert done.returncode == 2 and "TLS" in done.stderr and "reader tokens" in done.stderr
    server = start_server("--host=0.0.0.0", "--insecure")
    try:
        assert "WARNING" in server.log() and "--insecure" in server.log()
    finally:
        server.stop()
    server = start_server(  # everything configured: no warning
        "--host=0.0.0.0",
        f"--tls-cert={pair.cert}",
        f"--tls-key={pair.key}",
        f"--dealer-tokens-file={tokens}",
        f"--reader-tokens-file={tokens}",
    )
    try:
        assert "WARNING" not in server.log()
    finally:
        server.stop()


def test_the_consoles_tls_handshakes_count_among_its_connections(tmp_path: Path) -> None:
    """Connections that never begin their TLS handshake hold places of
    --console-max-connections until the handshake's time runs out: a client beyond is refused
    (counted), then let in once they are dropped."""
    ca = CA(tmp_path)
    pair = ca.issue("server", server=True)
    server = start_server(
        f"--tls-cert={pair.cert}", f"--tls-key={pair.key}", "--console-port=0",
        "--console-max-connections=2", "--console-idle-seconds=1",
    )  # fmt: skip
    try:
        assert server.console_port is not None
        silent = [socket.create_connection(("127.0.0.1", server.console_port)) for _ in range(2)]
        wait_for(lambda: not console_trusted(server, ca.path, tolerate_refusal=True))
        counted = re.search(r'limit="console-max-connections"\} (\S+)', server.metrics_text())
        assert counted is not None and float(counted[1]) >= 1, server.metrics_text()
        wait_for(lambda: console_trusted(server, ca.path, tolerate_refusal=True))
        for sock in silent:
            sock.close()
    finally:
        assert server.stop() == 0, server.log()
