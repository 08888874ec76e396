"""The console script and the typed clients, against the real server process."""

from __future__ import annotations

import asyncio
import io
import re
import threading

import pytest

from pricing import cli
from pricing.cli.common import GAMES
from pricing.client import AsyncPricingClient, PricingClient
from pricing.games import blackjack, goagae
from pricing.v1 import pricing_pb2 as pb
from pricing.wire import answer_quote
from tests.support.server import ServerProcess, start_server
from tests.support.wire import metric

pytestmark = pytest.mark.timeout(60)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def test_simulate_feeds_a_table_that_watch_follows_to_the_end(
    server: ServerProcess, table_id: str
) -> None:
    watched: dict[str, object] = {}

    def watch() -> None:
        watched["code"], watched["out"] = run("watch", table_id, "--server", server.target)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()  # before the table exists: watch waits for it
    code, fed = run(
        "simulate", "--server", server.target, "--table", table_id,
        "--pace", "0", "--shoes", "2", "--seed", "4", "--close",
    )  # fmt: skip
    assert code == 0
    watcher.join(30)
    assert watched["code"] == 0
    lines = str(watched["out"]).splitlines()
    assert lines[-1] == f"table {table_id!r} closed"
    versions = [int(m.group(1)) for m in re.finditer(r"^v(\d+)", str(watched["out"]), re.M)]
    assert versions == sorted(set(versions)) and versions[-1] >= 2 * 16 + 1
    assert "BETTING" in fed and "SHOE_COMPLETE" in fed
    assert "RESULT" in fed


@pytest.mark.parametrize("game", ["hilo", "blackjack"])
def test_simulate_on_a_feed_stream_deals_what_it_deals_by_calls(
    server: ServerProcess, table_id: str, game: str
) -> None:
    """The same seed dealt by calls and with --stream prints the same states, and the second
    went on a Feed stream."""
    fed = {"grpc_method": "Feed", "grpc_type": "bidi_stream"}
    before = metric(server, "grpc_server_msg_received_total", fed)
    outputs = []
    for table, streamed in ((f"{table_id}-calls", ()), (f"{table_id}-stream", ("--stream",))):
        code, out = run(
            "simulate", "--server", server.target, "--table", table, "--game", game,
            "--pace", "0", "--shoes", "1", "--seed", "11", "--close", *streamed,
        )  # fmt: skip
        assert code == 0, out
        outputs.append(out.replace(table, "<table>"))
    assert outputs[0] == outputs[1]
    shown = [line for line in outputs[1].splitlines()[1:] if not line.startswith(" ")]
    assert shown[0].startswith("OPEN")  # then a line per event (results are indented)
    received = metric(server, "grpc_server_msg_received_total", fed) - before
    assert received == len(shown) - 1 > 10


class _Signalling(io.StringIO):
    """Output that signals once the first line has been written."""

    def __init__(self) -> None:
        super().__init__()
        self.wrote_line = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if "\n" in text:
            self.wrote_line.set()
        return written


def test_watch_tells_a_server_shutdown_from_a_table_closing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    own = start_server()  # this test stops its server
    out = _Signalling()
    codes: list[int] = []
    argv = ["watch", "demo", "--no-wait", "--server", own.target]
    watcher = threading.Thread(target=lambda: codes.append(cli.main(argv, out=out)), daemon=True)
    try:
        with PricingClient(own.target) as client:
            client.feed("demo").open()
        watcher.start()
        assert out.wrote_line.wait(10)  # the first state is out: the stream is open
        assert own.stop() == 0  # SIGTERM: the server ends every stream with UNAVAILABLE
    finally:
        own.stop()
    watcher.join(10)
    assert codes == [cli.EXIT_STREAM_ENDED]
    states = [line for line in out.getvalue().splitlines() if re.match(r"v\d", line)]
    assert states[0].startswith("v1 ") and "table 'demo' closed" not in out.getvalue()
    err = capsys.readouterr().err
    assert "the server ended the stream of table 'demo' (it did not close)" in err


@pytest.mark.parametrize(
    ("argv", "seen"),
    [
        (("--game", "goagae"), ("DEALING", "END", "SHOE_COMPLETE", "TRIPLE")),
        (("--game", "blackjack", "--decks", "1"), ("DEALING", "ROYAL  PAIRS", "END")),
        (
            ("--game", "blackjack", "--decks", "1", "--mode", "continuous"),
            ("DEALING", "   52 |"),
        ),
        (("--game", "higher-lower"), ("DEALING", "RESULT", "HIGH", "K/A", "  287 |")),
        (
            ("--game", "higher-lower", "--decks", "1", "--mode", "depleting"),
            ("DEALING", "RESULT", "COMPLETE", "J-A"),
        ),
    ],
    ids=[
        "goagae",
        "blackjack",
        "blackjack-continuous",
        "higher-lower",
        "higher-lower-depleting",
    ],
)
def test_simulate_deals_goagae_and_blackjack_shoes(
    server: ServerProcess, table_id: str, argv: tuple[str, ...], seen: tuple[str, ...]
) -> None:
    code, fed = run(
        "simulate", "--server", server.target, "--table", table_id, "--pace", "0",
        "--shoes", "2", "--seed", "9", "--close", *argv,
    )  # fmt: skip
    assert code == 0
    for text in seen:
        assert text in fed
    assert "SHOE " in fed  # the second shoe opened with NewShoe
    with PricingClient(server.target) as client:
        assert client.get_table(table_id).phase == pb.PHASE_CLOSED


def test_quote_offline_and_through_the_server_agree(server: ServerProcess) -> None:
    offline = run("quote", "hilo", "7H", "KS", "2D")
    online = run("quote", "hilo", "7H", "KS", "2D", "--server", server.target)
    assert offline == online
    assert offline[1].splitlines()[-1] == "SEVEN   3/49 12.63 : 1"
    assert cli.main(["quote", "hilo", "1H"]) == 2  # a clear error, not a traceback


@pytest.mark.parametrize(
    "argv",
    [
        ("goagae", "2S", "3S"),
        ("blackjack", "--decks", "6", "--up", "AS", "KH", "QS"),
        ("blackjack", "KH", "--decks", "1", "--rule", "h17", "--pairs", "any-pair", "--no-crown"),
        ("higher-lower", "--base", "9D"),
        ("higher-lower", "2S", "AD", "--base", "KS", "--mode", "depleting", "--decks", "1"),
        ("blackjack", "2C", "--up", "6D", "--hand", "8S,8H", "--max-splits", "1",
         "--no-double-after-split"),
    ],
    ids=[
        "goagae",
        "blackjack-ace",
        "blackjack-options",
        "higher-lower",
        "higher-lower-depleting",
        "blackjack-hand",
    ],
)  # fmt: skip
def test_quote_of_goagae_and_blackjack_offline_and_online_agree(
    server: ServerProcess, argv: tuple[str, ...]
) -> None:
    offline = run("quote", *argv)
    assert offline == run("quote", *argv, "--server", server.target)
    assert offline[0] == 0


def test_quote_shows_each_games_numbers() -> None:
    prices = goagae.quote(["2S", "3S"])
    lines = run("quote", "goagae", "2S", "3S")[1].splitlines()
    assert (
        lines[0] == f"TRIPLE           46/19600 {prices['TRIPLE'].payout_hundredths / 100:.2f} : 1"
    )
    out = run("quote", "blackjack", "--decks", "6", "--up", "AS", "KH", "QS")[1]
    odds = blackjack.side_bets(["KH", "QS", "AS"], 6)
    assert f"ROYAL_MATCH  RTP {odds['ROYAL_MATCH'].rtp:.6f}" in out
    assert f"dealer blackjack {blackjack.insurance(['KH', 'QS', 'AS'], 6).probability:.6f}" in out
    assert "DEALER AS S17" in out and out.endswith("309 cards left in the shoe\n")
    no_crown = run("quote", "blackjack", "--no-crown")[1]
    assert "CROWN" not in no_crown and "pays 1000.00" not in no_crown
    assert cli.main(["quote", "goagae", "--up", "AS"]) == 2
    # Higher/Lower: the pay to 1 and, as the providers print it, for one
    lines = run("quote", "higher-lower", "--base", "2H")[1].splitlines()
    assert lines[:2] == [
        "HIGHER      264/287 0.05 : 1 (1.05 for one)",
        "LOWER         0/287 closed",
    ]


def test_settle_and_health_commands(server: ServerProcess, table_id: str) -> None:
    with PricingClient(server.target) as client:
        feed = client.feed(table_id)
        feed.open()
        for card in ["2S", "3S", "4S", "5S", "6S"]:
            state = feed.expose(card)
        feed.expose("QD", "RESULT")
    code, text = run(
        "settle", table_id, "--round", "1", "--version", str(state.version),
        "--bet", "high", "--stake-cents", "1000", "--server", server.target,
    )  # fmt: skip
    high = {p.bet: p.payout_hundredths for p in state.prices}["HIGH"]
    assert code == 0
    assert text.startswith("WIN") and f"returns {1000 + 10 * high} cents" in text
    assert run("health", "--server", server.target) == (0, "SERVING\n")
    assert cli.main(["health", "--server", "127.0.0.1:1", "--timeout", "0.5"]) == 1


def test_async_client_and_feed(server: ServerProcess, table_id: str) -> None:
    async def scenario() -> None:
        async with AsyncPricingClient(server.target) as client:
            assert await client.health() == "SERVING"
            feed = client.feed(table_id)
            await feed.open("hilo")
            states = []

            async def follow() -> None:
                async for state in client.watch_table(table_id):
                    states.append(state.version)

            follower = asyncio.create_task(follow())
            for card in ["2S", "3S", "4S", "5S", "6S"]:
                await feed.expose(card)
            await feed.close()
            await asyncio.wait_for(follower, 10)
            assert states[-1] == 7 and states == sorted(states)
            assert (await client.get_table(table_id)).last_seq == 6
            quote = await client.quote("HILO", ["AS"])
            assert quote.cards_remaining == 51

    asyncio.run(scenario())


def test_feed_rejoins_a_table_where_it_left_off(server: ServerProcess, table_id: str) -> None:
    with PricingClient(server.target) as client:
        first = client.feed(table_id)
        first.open()
        first.expose("AS")
        again = client.feed(table_id)
        assert again.open().last_seq == 1
        assert again.expose("KS").last_seq == 2


def test_each_games_demo_deals_to_its_own_table_in_the_readmes_order() -> None:
    """The README's quickstart deals Hi-Lo to table demo, then suggests the other games'
    demos on the same server: each opens a table of its own (demo-GAME), none is refused for
    finding the table of another game."""
    server = start_server()
    try:
        demos = [
            ("hilo", "demo", ()),
            ("higher-lower", "demo-higher-lower", ()),
            ("goagae", "demo-goagae", ()),
            ("blackjack", "demo-blackjack", ("--decks", "1")),
        ]
        for game, table, more in demos:
            code, fed = run(
                "simulate", "--server", server.target, "--game", game, "--pace", "0",
                "--shoes", "1", "--seed", "3", *more,
            )  # fmt: skip
            assert code == 0, fed
            assert fed.startswith(f"table {table!r} at version 1,")
        with PricingClient(server.target) as client:
            for game, table, _ in demos:
                assert client.get_table(table).game == GAMES[game]
    finally:
        assert server.stop() == 0


@pytest.mark.parametrize(
    ("argv", "rules"),
    [
        ((), pb.BlackjackRules()),
        (
            ("--max-splits", "1", "--no-double-after-split"),
            pb.BlackjackRules(max_splits=1, double_after_split=False),
        ),
    ],
    ids=["default-rules", "split-rules"],
)
def test_quote_prints_a_players_hands_decisions(
    argv: tuple[str, ...], rules: pb.BlackjackRules
) -> None:
    """``--hand`` reaches QuoteRequest.player_hand (and the split rules its rules): each
    action open to the hand with its EV, the best marked, as the service answers them."""
    code, text = run("quote", "blackjack", "--up", "6D", "--hand", "8S, 8H", *argv)
    assert code == 0, text
    rules.dealer_rule = pb.DEALER_RULE_S17
    rules.pairs.preset = pb.PAIRS_PRESET_PERFECT_PAIRS
    answer = answer_quote(
        pb.QuoteRequest(
            game=pb.GAME_BLACKJACK, dealer_up_card="6D", player_hand=["8S", "8H"], blackjack=rules
        )
    )
    assert answer.best_action == pb.ACTION_SPLIT
    printed = [line for line in text.splitlines() if line.startswith("DECISION ")]
    assert printed == [
        f"DECISION {pb.Action.Name(d.action).removeprefix('ACTION_'):<9} EV {d.ev:+.6f}"
        + ("  (best)" if d.action == pb.ACTION_SPLIT else "")
        for d in answer.decisions
    ]
    assert len(printed) == 5  # stand, hit, double, split, surrender against a 6
