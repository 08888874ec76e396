"""The server's flags and their environment variables: checked alike, refused with a usage error
naming the bad value, and a dealer feed that is never left open beyond loopback by accident."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys

import pytest

from pricing.server.flags import is_loopback, parser
from tests.support import ROOT


def parse(
    argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> argparse.Namespace:
    for key in [k for k in os.environ if k.startswith("PRICING_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return parser().parse_args(argv)


def test_defaults_bind_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    args = parse([], {}, monkeypatch)
    assert (args.host, args.port, args.metrics_port, args.log_level, args.grace) == (
        "127.0.0.1",
        50051,
        9464,
        "INFO",
        5.0,
    )
    assert args.insecure is False


def test_environment_sets_each_flag_and_the_flag_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "PRICING_PORT": "6000",
        "PRICING_METRICS_PORT": "0",
        "PRICING_LOG_LEVEL": "debug",
        "PRICING_GRACE": "2.5",
        "PRICING_ALLOW_OPEN_FEED": "yes",
    }
    args = parse(["--port", "7000"], env, monkeypatch)
    assert (args.port, args.metrics_port, args.log_level, args.grace) == (7000, 0, "DEBUG", 2.5)
    assert args.insecure is True


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        ([], {"PRICING_PORT": "abc"}, "PRICING_PORT='abc': 'abc' is not a port number"),
        (["--port", "70000"], {}, "70000 is not a port"),
        ([], {"PRICING_METRICS_PORT": "-1"}, "PRICING_METRICS_PORT='-1': -1 is not a port"),
        ([], {"PRICING_LOG_LEVEL": "verbose"}, "PRICING_LOG_LEVEL='verbose': 'verbose' is not"),
        ([], {"PRICING_GRACE": "-1"}, "PRICING_GRACE='-1': -1.0 seconds is outside 0-3600"),
        (["--grace", "soon"], {}, "'soon' is not a number of seconds"),
        ([], {"PRICING_ALLOW_OPEN_FEED": "maybe"}, "'maybe' is not a yes/no value"),
        (["--max-feeds", "0"], {}, "0 is outside 1-"),  # 0 would refuse every Feed stream
    ],
)
def test_bad_values_are_usage_errors_naming_them(
    argv: list[str],
    env: dict[str, str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        parse(argv, env, monkeypatch)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert ("argument --" in err) == bool(argv)  # an environment value: named by its variable


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--port", "cannot serve: gRPC port 127.0.0.1:{port}: Address already in use: "
         "choose another --port (PRICING_PORT)"),
        ("--metrics-port", "cannot serve: metrics port 127.0.0.1:{port}: Address already in "
         "use: choose another --metrics-port (PRICING_METRICS_PORT)"),
    ],
)  # fmt: skip
def test_a_busy_port_names_its_address_and_the_flag_to_change(flag: str, message: str) -> None:
    """A port this test holds (bound and listening: no race with a port found free, no sleep):
    the server exits 1 with one line naming it, no traceback, never ready."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        ports = {"--port": "0", "--metrics-port": "0", flag: str(port)}
        done = run_server(*(arg for item in ports.items() for arg in item), env={})
    assert done.returncode == 1, done.stderr
    assert message.format(port=port) in done.stderr
    assert "Traceback" not in done.stderr
    assert "ready" not in done.stdout


def test_an_address_not_of_this_machine_names_the_host_flag() -> None:
    # 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never an address of this machine.
    done = run_server(
        "--host", "192.0.2.1", "--insecure", "--port", "0", "--metrics-port", "0", env={}
    )
    assert done.returncode == 1, done.stderr
    assert "cannot serve: gRPC port 192.0.2.1:0: " in done.stderr
    assert "change --host (PRICING_HOST)" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.9.10", True), ("localhost", True), ("::1", True),
     ("[::1]", True), ("0.0.0.0", False), ("::", False), ("10.1.2.3", False),
     ("pricing.internal", False)],
)  # fmt: skip
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def run_server(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``server.py`` with ``args``, on a journal that keeps nothing (never the repo's ./data)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PRICING_")}
    return subprocess.run(
        [sys.executable, str(ROOT / "server.py"), "--data-dir=:memory:", *args],
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_open_dealer_feed_beyond_loopback_is_refused_before_binding() -> None:
    done = run_server("--host", "0.0.0.0", "--port", "0", "--metrics-port", "0", env={})
    assert done.returncode == 2
    for needed in ("TLS", "PRICING_DEALER_TOKEN", "--reader-tokens-file", "--insecure"):
        assert needed in done.stderr
    assert "ready" not in done.stdout


def test_help_names_the_program_it_was_started_as() -> None:
    done = run_server("--help", env={"PRICING_PORT": "abc"})
    assert done.returncode == 0
    assert done.stdout.startswith("usage: python server.py")
    assert "PRICING_ALLOW_OPEN_FEED" in done.stdout
