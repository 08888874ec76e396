"""The command line's baccarat and Dragon Tiger against the real server (docs/rules.md §7, §8):
``simulate`` deals rounds the tableau allows, ``watch`` fits them in 100 columns with the bets
chosen, ``quote`` answers the same offline and from the server, ``settle`` settles a push."""

from __future__ import annotations

import io
import json

import pytest

from pricing import cli
from pricing.cli.format import WATCH_WIDTH, WatchPrinter
from pricing.client import PricingClient
from pricing.v1 import pricing_pb2 as pb
from tests.support.reference import baccarat_ref
from tests.support.server import ServerProcess
from tests.support.wire import Feed

pytestmark = pytest.mark.timeout(120)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def dealt_rounds(output: str, roles: tuple[str, str]) -> list[list[tuple[str, str]]]:
    """The simulator's lines as rounds of (role, card), a round ending where the next starts."""
    rounds: list[list[tuple[str, str]]] = []
    for line in output.splitlines():
        who, card = line[:6].strip(), line[7:10].strip()
        if who in roles:
            if not rounds or rounds[-1] == [] or _is_new_round(rounds[-1], who, roles):
                rounds.append([])
            rounds[-1].append((who, card))
        elif who == "VOID" and rounds:
            rounds[-1].append(("VOID", ""))
    return rounds


def _is_new_round(current: list[tuple[str, str]], who: str, roles: tuple[str, str]) -> bool:
    if current[-1][0] == "VOID":
        return True
    if roles == ("DRAGON", "TIGER"):
        return who == "DRAGON"
    player = [baccarat_ref.card(c) for r, c in current if r == "PLAYER"]
    banker = [baccarat_ref.card(c) for r, c in current if r == "BANKER"]
    return baccarat_ref.next_hand(player, banker) is None


@pytest.mark.parametrize(
    ("game", "roles"), [("baccarat", ("PLAYER", "BANKER")), ("dragon-tiger", ("DRAGON", "TIGER"))]
)
def test_simulate_deals_only_what_the_rules_allow_and_watch_fits_the_lines(
    server: ServerProcess, table_id: str, game: str, roles: tuple[str, str]
) -> None:
    code, out = run(
        "simulate", "--server", server.target, "--table", table_id, "--game", game,
        "--decks", "1", "--pace", "0", "--shoes", "1", "--seed", "3", "--close",
        "--side-bet", "PLAYER_PAIR" if game == "baccarat" else "SUITED_TIE",
    )  # fmt: skip
    assert code == 0, out
    rounds = dealt_rounds(out, roles)
    assert len(rounds) > 5
    for deal in rounds:
        cards = [(who, card) for who, card in deal if who != "VOID"]
        if game == "dragon-tiger":
            assert [who for who, _ in cards] in (["DRAGON"], ["DRAGON", "TIGER"]), deal
        elif deal[-1][0] != "VOID":  # a whole round: the tableau's, and complete
            player = [baccarat_ref.card(c) for who, c in cards if who == "PLAYER"]
            banker = [baccarat_ref.card(c) for who, c in cards if who == "BANKER"]
            assert baccarat_ref.next_hand(player, banker) is None, deal
    assert all(len(line) <= WATCH_WIDTH for line in out.splitlines() if "#" not in line), out
    with PricingClient(server.target) as client:
        assert client.get_table(table_id).phase == pb.PHASE_CLOSED
    first = roles[0]
    assert any(
        line.strip().startswith(f"round 1: {first} ") and " | " in line for line in out.splitlines()
    )


def test_watch_lines_show_the_bets_chosen(server: ServerProcess, table_id: str) -> None:
    """``pricing watch --bets``'s printer over the states a real table publishes: the next
    round's RTP while betting, the round's given its cards while it is dealt."""
    feed = Feed(server, table_id)
    rules = pb.BaccaratRules()
    rules.side_bets["PLAYER_PAIR"].preset = ""
    states = [feed.open(game=pb.GAME_BACCARAT, baccarat=rules)]
    states.append(feed.expose("9S", pb.CARD_ROLE_PLAYER))
    states.append(feed.expose("2C", pb.CARD_ROLE_BANKER))
    states.append(feed.expose("9H", pb.CARD_ROLE_PLAYER))  # a Player pair of nines
    printer = WatchPrinter(bets=("BANKER", "PLAYER_PAIR"))
    lines = [line for state in states for line in printer.lines(state)]
    header = next(line for line in lines if line.startswith("ver"))
    assert header.split("|")[1].split() == ["BANKER", "P.PR"]
    cells = [line.split("|")[1].split() for line in lines if line[1].isdigit()]
    assert len(cells) == 4 and all(len(c) == 2 for c in cells), lines
    assert cells[-1][1] == "1200!"  # the pair is made: 11:1 paid for sure
    assert all(len(line) <= WATCH_WIDTH for line in lines)


@pytest.mark.parametrize(
    "argv",
    [
        ["baccarat", "9S", "KD", "--player", "2C,3D", "--banker", "7H", "--commission", "ez"],
        ["dragon-tiger", "--dragon", "KS", "--side-bet", "SUITED_TIE", "--tie-pays", "11"],
        [
            "baccarat",
            "--side-bet",
            "DRAGON_7",
            "--close-at-rtp-bp",
            "10000",
            "--mode",
            "continuous",
        ],
    ],
)
def test_quote_is_the_same_offline_and_from_the_server(
    server: ServerProcess, argv: list[str]
) -> None:
    code, offline = run("quote", *argv, "--json")
    assert code == 0, offline
    code, online = run("quote", *argv, "--json", "--server", server.target)
    assert code == 0, online
    assert json.loads(offline) == json.loads(online)
    answer = json.loads(offline)
    assert answer["side_bets"][0]["bet"] in ("PLAYER", "DRAGON")
    if "--player" in argv or "--dragon" in argv:
        assert [sb["bet"] for sb in answer["round_odds"]] == [
            sb["bet"] for sb in answer["side_bets"]
        ]


def test_options_of_another_game_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, flag in [
        (["quote", "hilo", "--commission", "ez"], "--commission"),
        (["quote", "dragon-tiger", "--banker", "2S"], "--banker"),
        (["quote", "baccarat", "--dragon", "2S"], "--dragon"),
        (["simulate", "--game", "goagae", "--close-at-rtp-bp", "10000"], "--close-at-rtp-bp"),
    ]:
        code, _ = run(*argv)
        assert code == 2, argv
        assert flag in capsys.readouterr().err, argv


def test_settle_shows_a_push(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    state = feed.open(game=pb.GAME_BACCARAT)
    for card, role in [
        ("9S", pb.CARD_ROLE_PLAYER),
        ("9C", pb.CARD_ROLE_BANKER),
        ("KD", pb.CARD_ROLE_PLAYER),
        ("KH", pb.CARD_ROLE_BANKER),
    ]:
        feed.expose(card, role)  # a natural tie of 9s: PLAYER pushes
    code, out = run(
        "settle", table_id, "--round", "1", "--version", str(state.version), "--bet", "PLAYER",
        "--stake-cents", "1000", "--server", server.target,
    )  # fmt: skip
    assert code == 0, out
    assert out.startswith("PUSH: PLAYER on round 1") and "returns 1000 cents" in out, out
