"""``pricing``'s arguments: checked before any server is called, errors naming the flag and its
range, the same exit status for an error found here or by the server, --version and --help."""

from __future__ import annotations

import io
import re
import socket
import threading

import grpc
import pytest

from pricing import __version__, cli
from pricing.cli.simulate import _Patient
from pricing.client import PricingClient
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Lines

pytestmark = pytest.mark.timeout(60)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    try:
        code = cli.main(list(argv), out=out)
    except SystemExit as exit_:  # argparse's usage errors
        code = int(exit_.code or 0)
    return code, out.getvalue()


def _table_exists(server: ServerProcess, table_id: str) -> bool:
    with PricingClient(server.target) as client:
        try:
            client.get_table(table_id)
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.NOT_FOUND
            return False
    return True


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--void-rate", "-0.5"), "argument --void-rate: -0.5 is out of range: use 0 to 1"),
        (("--void-rate", "1.5"), "argument --void-rate: 1.5 is out of range: use 0 to 1"),
        (("--pace", "-1"), "argument --pace: -1 seconds is out of range: use 0 to 3600"),
        (("--pace", "nan"), "argument --pace: 'nan' is not a finite number"),
        (("--shoes", "-1"), "argument --shoes: -1 is out of range: use 0 or more"),
        (("--decks", "9", "--game", "blackjack"), "argument --decks: 9 is out of range"),
        (
            ("--mode", "continuous"),
            "--mode is a blackjack, higher-lower, baccarat or dragon-tiger option: not for hilo",
        ),
        (
            ("--game", "goagae", "--mode", "depleting"),
            "--mode is a blackjack, higher-lower, baccarat or dragon-tiger",
        ),
        (("--seats", "2"), "--seats is a blackjack option: not for hilo"),
        (
            ("--side-bet", "HOT_3"),
            "--side-bet is a blackjack, baccarat or dragon-tiger option: not for hilo",
        ),
        (("--game", "blackjack", "--seats", "8"), "argument --seats: 8 is out of range: use 1"),
        (("--decks", "3"), "decks 3 is not allowed for Hi-Lo"),
        (("--table", ""), "--table must not be empty"),
    ],
)
def test_simulate_checks_every_argument_before_touching_the_server(
    server: ServerProcess,
    table_id: str,
    argv: tuple[str, ...],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if "--table" not in argv:
        argv = ("--table", table_id, *argv)
    code, out = run("simulate", "--server", server.target, "--pace", "0", "--shoes", "1", *argv)
    assert code == cli.EXIT_USAGE
    assert message in capsys.readouterr().err
    assert out == ""  # nothing opened, nothing dealt
    assert not _table_exists(server, table_id)


def test_simulate_with_every_round_voided_deals_the_deck_out(
    server: ServerProcess, table_id: str
) -> None:
    code, out = run(
        "simulate", "--server", server.target, "--table", table_id,
        "--void-rate", "1", "--shoes", "1", "--pace", "0",
    )  # fmt: skip
    assert code == 0
    assert "RESULT" not in out  # every card a burn: each round voided
    with PricingClient(server.target) as client:
        assert client.get_table(table_id).cards_remaining == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("quote", "blackjack", "--decks", "-1"),
         "argument --decks: -1 is out of range: use 0 to 8"),
        (
            ("settle", "t", "--round", "1", "--version", "2", "--bet", "HIGH",
             "--stake-cents", "-5"),
            "argument --stake-cents: -5 is out of range: use 1 to 1000000000000",
        ),
        (("settle", "t", "--round", "0", "--version", "2", "--bet", "HIGH", "--stake-cents",
          "5"), "argument --round: 0 is out of range: use 1 to"),
        (("watch", "demo", "--from-version", "-1"), "argument --from-version: -1 is out of range"),
        (("watch", "demo", "--from-version", "x"), "argument --from-version: 'x' is not a whole"),
        (("health", "--timeout", "-3"), "argument --timeout: -3 seconds is out of range"),
    ],
)  # fmt: skip
def test_numbers_out_of_range_name_the_flag_and_its_range(
    argv: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(*argv)[0] == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert message in err and "Value out of range" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ("quote", "hilo", "1H"),  # a bad card
        ("quote", "goagae", "--decks", "2"),  # decks the game does not have
        ("quote", "blackjack", "--up", "ZZ"),
    ],
)
def test_an_error_found_here_or_by_the_server_exits_the_same(
    server: ServerProcess, argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    local = run(*argv)[0]
    local_err = capsys.readouterr().err
    remote = run(*argv, "--server", server.target)[0]
    remote_err = capsys.readouterr().err
    assert local == remote == cli.EXIT_USAGE, (local_err, remote_err)
    assert "INVALID_ARGUMENT" in remote_err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--rule", "S17"), "--rule is a blackjack option"),
        (("--side-bet", "HOT_3"), "--side-bet is a blackjack, baccarat or dragon-tiger option"),
    ],
)
def test_an_option_of_another_game_is_an_error_for_quote(
    argv: tuple[str, ...], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message names the flag as it is typed."""
    assert run("quote", "hilo", *argv)[0] == cli.EXIT_USAGE
    assert f"{flag}: not for hilo" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--version")[0] == 0
    assert capsys.readouterr().out == f"pricing {__version__}\n"


def test_every_command_has_a_one_line_description(capsys: pytest.CaptureFixture[str]) -> None:
    p = cli.parser()
    (sub,) = [a for a in p._actions if a.dest == "command"]
    helps = {action.dest: action.help for action in sub._get_subactions()}
    assert set(helps) == set(sub.choices)  # type: ignore[arg-type]
    assert all(helps.values()), helps
    assert run("--help")[0] == 0
    text = capsys.readouterr().out
    for command, help_text in helps.items():
        assert re.search(rf"^\s+{command}\s+\S", text, re.M), (command, help_text)


def test_health_of_an_unknown_service_names_the_ones_there_are(
    server: ServerProcess, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("health", "--service", "nope", "--server", server.target)[0] == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "no health for service 'nope'" in err and "'pricing.v1.PricingService'" in err
    assert run("health", "--service", "pricing.v1.PricingService", "--server", server.target) == (
        0,
        "SERVING\n",
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_simulate_waits_for_an_unavailable_server() -> None:
    port = _free_port()
    out = Lines()
    codes: list[int] = []
    argv = [
        "simulate", "--server", f"127.0.0.1:{port}", "--table", "late",
        "--pace", "0", "--shoes", "1", "--close",
    ]  # fmt: skip
    feeder = threading.Thread(target=lambda: codes.append(cli.main(argv, out=out)), daemon=True)
    feeder.start()
    assert out.wait_for(f"server 127.0.0.1:{port} unavailable: retrying")
    own = start_server(f"--port={port}")
    try:
        feeder.join(30)
        assert codes == [0], out.getvalue()
        assert f"server 127.0.0.1:{port} is back" in out.getvalue()
        with PricingClient(own.target) as client:
            assert client.get_table("late").phase == 4  # CLOSED
    finally:
        assert own.stop() == 0


def test_simulate_says_busy_for_a_full_budget_and_unavailable_for_an_outage() -> None:
    for line, said in (
        ("table 't': RESOURCE_EXHAUSTED, resending event 3 in 0.10 s", "busy"),
        ("table 't': UNAVAILABLE, resending event 3 in 0.05 s", "unavailable"),
    ):
        out = io.StringIO()
        patient = _Patient("127.0.0.1:1", out)
        patient.resending(line)
        patient.resending(line)  # once per outage
        assert out.getvalue() == f"server 127.0.0.1:1 {said}: retrying\n"
