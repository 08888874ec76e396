"""What ``pricing`` prints: the watch lines under their legend (100 columns, blackjack's round,
dealer results and insurance), the table summary, ``--json``, and what ``simulate`` shows."""

from __future__ import annotations

import io
import itertools
import json
import random
import re
import threading
from functools import partial

import pytest
from google.protobuf import json_format

from pricing import cli
from pricing.cards import DECK, parse_card
from pricing.cli.dealer import DemoDealer
from pricing.cli.format import WATCH_WIDTH, WatchPrinter, format_state
from pricing.tables import CardRole, EndRound, ExposeCard, Game, NewShoe, TableConfig, Tables
from pricing.tables import VoidRound as Void
from pricing.v1 import pricing_pb2 as pb
from pricing.v1.enums import enum_short_name
from pricing.wire import snapshot_to_proto
from tests.support.server import ServerProcess
from tests.support.wire import Feed, Lines, wait_for

pytestmark = pytest.mark.timeout(60)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


class _LocalFeed:
    """The demo dealer's feed, applied to a table here: every state it goes through."""

    def __init__(self, game: Game) -> None:
        self.tables = Tables()
        self.seq = 0
        self.states = [snapshot_to_proto(self.tables.open("t", TableConfig(game)))]

    def _apply(self, event: object) -> pb.TableState:
        self.seq += 1
        state = snapshot_to_proto(self.tables.apply("t", self.seq, event))  # type: ignore[arg-type]
        self.states.append(state)
        return state

    def expose(self, card: str, role: str, seat: int = 0) -> pb.TableState:
        return self._apply(ExposeCard(parse_card(card), CardRole[role], seat))

    def void(self) -> pb.TableState:
        return self._apply(Void())

    def end_round(self) -> pb.TableState:
        return self._apply(EndRound())

    def new_shoe(self) -> pb.TableState:
        return self._apply(NewShoe())


def _dealt_states(game: Game, seed: int) -> list[pb.TableState]:
    """Two shoes as ``pricing simulate`` deals them."""
    feed = _LocalFeed(game)
    rng = random.Random(seed)
    dealer = DemoDealer(feed, rng, 0.1, lambda *_: None, seats=3)  # type: ignore[arg-type]
    play = {
        Game.HILO: dealer.hilo,
        Game.GOA_GAE: dealer.goagae,
        Game.BLACKJACK: dealer.blackjack,
        Game.HIGHER_LOWER: dealer.higher_lower,
    }
    in_deck = [c for c in DECK if game != Game.HIGHER_LOWER or c.rank.symbol != "10"]
    for shoe in range(2):
        state = feed.new_shoe() if shoe else feed.states[-1]
        cards = [str(c) for c in in_deck] * max(1, state.decks)
        rng.shuffle(cards)
        play[game](state, cards)
    return feed.states


@pytest.mark.parametrize(
    "game",
    [Game.HILO, Game.GOA_GAE, Game.BLACKJACK, Game.HIGHER_LOWER],
    ids=lambda game: str(game.name),
)
def test_watch_lines_fit_100_columns_under_their_legend_and_header(game: Game) -> None:
    states = _dealt_states(game, seed=5)
    printer = WatchPrinter()
    lines = [line for state in states for line in printer.lines(state)]
    assert max(len(line) for line in lines) <= WATCH_WIDTH
    legend = [line for line in lines if line.startswith("#")]
    assert lines[: len(legend)] == legend and legend  # the legend comes first, once
    header = lines[len(legend)]
    assert header.startswith("ver ") and "|" in header
    rows = [line for line in lines if re.match(r"v\d", line)]
    assert len(rows) == len(states)  # one line per version
    # Each value ends where its column's label ends.
    ends = [m.end() for m in re.finditer(r"\S+", header.split("|")[1])]
    for row in rows:
        for m in re.finditer(r"\S+", row.split("|")[1]):
            assert m.end() in ends, (header, row)


def test_watch_shows_blackjacks_round_dealer_results_and_insurance(
    server: ServerProcess, table_id: str
) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, decks=1, blackjack=pb.BlackjackRules(seats=1))
    feed.expose("KH", pb.CARD_ROLE_PLAYER)
    feed.expose("QH", pb.CARD_ROLE_PLAYER)
    feed.end_round()
    feed.expose("9S", pb.CARD_ROLE_PLAYER)
    state = feed.expose("AS", pb.CARD_ROLE_DEALER)
    assert state.round_id == 2 and state.HasField("insurance")
    printer = WatchPrinter()
    *above, line = printer.lines(state)
    header = above[-1]
    assert " r2 " in line and "#0" not in line

    def under(label: str) -> str:
        """The cell under ``label``: from the previous column's end to its own."""
        end = header.index(f" {label}") + len(label) + 1
        start = len(header[: end - len(label)].rstrip())
        return line[start:end].strip()

    dealer = {o.name: o.probability for o in state.dealer_outcomes.outcomes}
    assert under("BJ") == f"{100 * dealer['BJ']:.1f}"
    assert under("BUST") == f"{100 * dealer['BUST']:.1f}"
    assert under("INS") == f"{100 * state.insurance.rtp:.1f}"
    assert under("ROYAL") == ""  # the next round's side bets: not while dealing
    betting = feed.end_round()
    side = {sb.bet: sb.rtp for sb in betting.side_bets}
    row = format_state(betting)
    assert f"{100 * side['ROYAL_MATCH']:.1f}" in row and f"{100 * side['PAIRS']:.1f}" in row


def test_table_prints_a_summary_and_json(server: ServerProcess, table_id: str) -> None:
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=1))
    feed.expose("KH", pb.CARD_ROLE_PLAYER)
    feed.expose("AS", pb.CARD_ROLE_DEALER)
    code, text = run("table", table_id, "--server", server.target)
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == f"table {table_id!r}: BLACKJACK, 6 decks, DEALING"
    assert lines[1] == "version 3, last_seq 2, shoe 1, round 1, 310 cards left"
    assert lines[2] == "seen (2): KH AS"
    assert "INSURANCE" in text and "DEALER AS S17" in text
    assert len(lines) <= 15 and "{" not in text  # not protobuf text
    code, text = run("table", table_id, "--json", "--server", server.target)
    state = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
    assert json_format.ParseDict(json.loads(text), pb.TableState()) == state


def test_quote_settle_and_watch_print_json(server: ServerProcess, table_id: str) -> None:
    code, text = run("quote", "hilo", "7H", "--json")
    assert code == 0
    quote = json_format.ParseDict(json.loads(text), pb.QuoteResponse())
    assert quote.cards_remaining == 51 and quote.prices[0].bet == "LOW"

    feed = Feed(server, table_id)
    feed.open()
    for card in ["2S", "3S", "4S", "5S", "6S"]:
        state = feed.expose(card)
    feed.expose("QD", pb.CARD_ROLE_RESULT)
    feed.close()
    code, text = run(
        "settle", table_id, "--round", "1", "--version", str(state.version), "--bet", "HIGH",
        "--stake-cents", "1000", "--json", "--server", server.target,
    )  # fmt: skip
    settlement = json_format.ParseDict(json.loads(text), pb.SettleResponse())
    assert settlement.status == pb.SettleResponse.STATUS_WIN and settlement.stake_cents == 1000

    code, text = run("watch", table_id, "--json", "--no-wait", "--server", server.target)
    assert code == 0
    lines = text.splitlines()
    states = [json_format.ParseDict(json.loads(line), pb.TableState()) for line in lines]
    assert states[-1].phase == pb.PHASE_CLOSED  # standard output is JSON lines only


def test_quote_without_crown_treasure_has_no_crown_row() -> None:
    code, text = run("quote", "blackjack", "--no-crown")
    assert code == 0
    assert "CROWN" not in text and re.search(r"^  ROYAL .* pays 25\.00 : 1$", text, re.M)
    assert "CROWN" in run("quote", "blackjack")[1]


def test_simulate_shows_the_opening_state_pauses_for_betting_and_shows_the_close(
    server: ServerProcess, table_id: str
) -> None:
    out = io.StringIO()

    def pause(seconds: float) -> None:
        out.write(f"<pause {seconds}>\n")

    argv = [
        "simulate", "--server", server.target, "--table", table_id, "--game", "blackjack",
        "--pace", "0.25", "--shoes", "1", "--seed", "2", "--close",
    ]  # fmt: skip
    code = cli.main(argv, out=out, sleep=pause)
    assert code == 0
    lines = [line for line in out.getvalue().splitlines() if not line.lstrip().startswith("#")]
    opened = next(i for i, line in enumerate(lines) if line.startswith("OPEN "))
    assert re.search(r"v1 .* BETTING", lines[opened])  # round 1's betting prices are shown
    assert lines[opened + 1] == "<pause 0.25>"  # ... and held before the first card
    assert re.match(r"(SEAT \d|DEALER) ", lines[opened + 2])  # the first card
    assert re.match(r"CLOSE .* CLOSED", lines[-2]) and lines[-1] == "<pause 0.25>"


def test_simulate_on_a_table_opened_otherwise_names_the_difference(
    server: ServerProcess, table_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    Feed(server, table_id).open(game=pb.GAME_BLACKJACK, blackjack=pb.BlackjackRules(seats=3))
    code, _ = run(
        "simulate", "--server", server.target, "--table", table_id, "--game", "blackjack",
        "--mode", "continuous", "--pace", "0", "--shoes", "1",
    )  # fmt: skip
    assert code == 1
    err = capsys.readouterr().err
    assert err == (
        f"pricing: ALREADY_EXISTS: table {table_id!r} already exists with another "
        "configuration: it has blackjack.shuffle_mode SHUFFLE_MODE_DEPLETING; this request "
        "asks for blackjack.shuffle_mode SHUFFLE_MODE_CONTINUOUS\n"
    )


#: What starts a watch's line of figures.
_FIGURES = "  +"


def _printed(out: Lines, prefix: str, text: str) -> bool:
    return any(line.startswith(prefix) and text in line for line in out.text().splitlines())


def _figures_of(state: pb.TableState) -> str:
    """What a watch's lines of figures show of ``state``'s first: its seats' best actions
    while they decide, else the next round's edge (new: a round ended)."""
    best = [
        f"seat {s.seat} {enum_short_name(pb.Action, s.best_action)}"
        for s in state.seats
        if s.decisions
    ]
    return ", ".join(best) if best else f"edge {state.player_edge:+.2%}"


def test_watch_prints_a_blackjack_version_once_and_its_figures_on_lines_of_their_own(
    server: ServerProcess, table_id: str
) -> None:
    """A blackjack version is published again once its figures are computed: the text watch
    shows its line and its round's result once, the figures on marked lines after it; --json
    shows every publication, each with its version."""
    feed = Feed(server, table_id)
    feed.open(game=pb.GAME_BLACKJACK, decks=1, blackjack=pb.BlackjackRules(seats=2))
    text, json_out = Lines(), Lines()
    argv = ["watch", table_id, "--no-wait", "--server", server.target]
    watchers = [
        threading.Thread(target=cli.main, args=(argv, text), daemon=True),
        threading.Thread(target=cli.main, args=([*argv, "--json"], json_out), daemon=True),
    ]
    for watcher in watchers:
        watcher.start()
    wait_for(lambda: "\nv1 " in text.text() and "\n" in json_out.text(), what="both watching")

    def figured(version: int) -> pb.TableState:
        """``version`` once the server has its figures (both seats' best actions while they
        decide, the next round's edge) and both watches have shown them: read before the next
        event, else a newer version may take the place of the last publication."""
        state = pb.TableState()

        def complete() -> bool:
            nonlocal state
            state = server.pricing().GetTable(pb.GetTableRequest(table_id=table_id))
            deciding = state.phase == pb.PHASE_DEALING
            return state.HasField("player_edge") and all(
                bool(s.decisions) == deciding for s in state.seats
            )

        wait_for(complete, what=f"version {version}'s figures")
        assert state.version == version
        wait_for(
            lambda: any(
                json_format.ParseDict(json.loads(line), pb.TableState()) == state
                for line in json_out.text().splitlines()
            ),
            what=f"the --json watch printing version {version} with its figures",
        )
        # Its own figures on its lines; the edge of a round still dealing may be on an
        # earlier version's, if it was known by then.
        mark, edge = f"{_FIGURES} v{version} ", f"edge {state.player_edge:+.2%}"
        for prefix, shown in ((mark, _figures_of(state)), (_FIGURES, edge)):
            wait_for(
                partial(_printed, text, prefix, shown),
                what=f"the watch printing {shown!r} on a line of figures marked {prefix!r}",
            )
        return state

    rounds = [("KH", "5D", "9S", "7C", "6H"), ("2C", "8D", "3S", "4H", "QD")]
    states = []
    for cards in rounds:
        for seat, card in zip((1, 2, 1, 2), cards, strict=False):
            feed.expose(card, pb.CARD_ROLE_PLAYER, seat)
        deciding = figured(feed.expose(cards[4], pb.CARD_ROLE_DEALER).version)
        assert {s.seat for s in deciding.seats if s.decisions} == {1, 2}
        states += [deciding, figured(feed.end_round().version)]
    closed = feed.close()
    for watcher in watchers:
        watcher.join(30)
        assert not watcher.is_alive()

    lines = text.text().splitlines()
    assert lines[-1] == f"table {table_id!r} closed"
    versions = [int(m.group(1)) for line in lines if (m := re.match(r"v(\d+) ", line))]
    assert versions == list(range(1, closed.version + 1))  # each version on one line, once
    ended = [line.split(":")[0] for line in lines if line.startswith("  round")]
    # Once each, though their versions came again (round 3: voided by the close).
    assert ended == ["  round 1", "  round 2", "  round 3"]
    for state in states:  # the figures follow their version's line, before any other
        at = next(i for i, line in enumerate(lines) if line.startswith(f"v{state.version} "))
        after = itertools.takewhile(lambda line: line.startswith(_FIGURES), lines[at + 1 :])
        assert any(_figures_of(state) in line for line in after), lines[at:]
    edges = [line.split(" edge ")[1] for line in lines if " edge " in line]
    assert len(edges) == len(set(edges)) == 3  # each shoe's, once

    publications = [json.loads(line) for line in json_out.text().splitlines()]
    seen = [int(p["version"]) for p in publications]
    assert sorted(set(seen)) == versions  # every version, each publication with its version
    assert all(seen.count(s.version) >= 2 for s in states)  # and again with its figures
