"""Live statistics of baccarat and Dragon Tiger tables fed by ``pricing simulate`` through the
real server: the journal's rounds are read (their PLAYER/BANKER and DRAGON/TIGER cards), every
bet is settled on them, and what each returned agrees with a reference tally of the dealt
rounds; read back by the Analyze RPC and by ``pricing analyze --table``."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest

from pricing import cli
from pricing.analysis.two_hands import price_shoe
from pricing.v1 import pricing_pb2 as pb
from tests.support.reference import baccarat_ref, dragon_tiger_ref
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(120)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    return code, out.getvalue()


def dealt_rounds(output: str, roles: tuple[str, str]) -> list[tuple[list[str], list[str]]]:
    """The simulator's whole rounds as the two hands' cards (void rounds left out)."""
    rounds: list[tuple[list[str], list[str]]] = []
    current: tuple[list[str], list[str]] | None = None
    for line in output.splitlines():
        who, card = line[:6].strip(), line[7:10].strip()
        if who == "VOID":
            current = None
        elif who in roles:
            if current is None or _round_over(current, roles):
                current = ([], [])
                rounds.append(current)
            current[roles.index(who)].append(card)
    complete = [r for r in rounds if _round_over(r, roles)]
    return complete


def _round_over(hands: tuple[list[str], list[str]], roles: tuple[str, str]) -> bool:
    if roles == ("DRAGON", "TIGER"):
        return len(hands[1]) == 1
    if len(hands[0]) < 2 or len(hands[1]) < 2:
        return False
    player = [baccarat_ref.card(c) for c in hands[0]]
    banker = [baccarat_ref.card(c) for c in hands[1]]
    return baccarat_ref.next_hand(player, banker) is None


def analyze_table(server: ServerProcess, table_id: str) -> dict[str, object]:
    assert server.data_dir is not None
    code, out = run("analyze", "--table", table_id, "--data-dir", str(server.data_dir), "--json")
    assert code == 0, out
    data: dict[str, object] = json.loads(out)
    return data


def test_a_baccarat_table_fed_by_simulate(server: ServerProcess, table_id: str) -> None:
    code, out = run(
        "simulate", "--server", server.target, "--table", table_id, "--game", "baccarat",
        "--decks", "1", "--pace", "0", "--shoes", "2", "--seed", "4", "--commission", "ez",
        "--side-bet", "DRAGON_7", "--side-bet", "PLAYER_PAIR",
    )  # fmt: skip
    assert code == 0, out
    rounds = dealt_rounds(out, ("PLAYER", "BANKER"))
    assert len(rounds) > 10
    got = server.pricing().Analyze(pb.AnalyzeRequest(table_id=table_id))
    live = {b.bet: b for b in got.live.bets}
    assert list(live)[:3] == ["PLAYER", "BANKER", "TIE"]
    assert set(live) == {"PLAYER", "BANKER", "TIE", "DRAGON_7", "PLAYER_PAIR"}
    assert got.live.rounds == len(rounds)
    pays = {"PLAYER": {"WIN": 100}, "BANKER": {"WIN": 100}, "TIE": {"WIN": 800},
            "DRAGON_7": {"WIN": 4000}, "PLAYER_PAIR": {"WIN": 1100}}  # fmt: skip
    for bet, wire in live.items():
        variant = "ez" if bet == "BANKER" else "standard"
        back = [
            1 + Fraction(baccarat_ref.settle((bet, variant), pays[bet], p, b)[1], 100)
            for p, b in rounds
        ]
        assert wire.stakes == len(rounds)
        assert Fraction(wire.returned.exact) == sum(back, Fraction(0)) / len(back), bet
        assert wire.HasField("certified")
    full = price_shoe("baccarat", [1] * 52)
    assert Fraction(live["DRAGON_7"].certified.exact) == full["DRAGON_7/standard"].rtp_fraction
    data = analyze_table(server, table_id)
    assert data["game"] == "baccarat" and data["rounds"] == len(rounds)
    code, text = run("analyze", "--table", table_id, "--data-dir", str(server.data_dir))
    assert code == 0 and text.startswith(f"Baccarat live statistics, table {table_id}")
    assert "certified: the bet's exact full-shoe RTP (pricing analyze baccarat)" in text


def test_a_dragon_tiger_table_fed_by_simulate(server: ServerProcess, table_id: str) -> None:
    code, out = run(
        "simulate", "--server", server.target, "--table", table_id, "--game", "dragon-tiger",
        "--decks", "1", "--pace", "0", "--shoes", "1", "--seed", "6", "--side-bet", "SUITED_TIE",
    )  # fmt: skip
    assert code == 0, out
    rounds = dealt_rounds(out, ("DRAGON", "TIGER"))
    assert len(rounds) > 10
    data = analyze_table(server, table_id)
    bets = data["bets"]
    assert isinstance(bets, dict) and list(bets) == ["DRAGON", "TIGER", "TIE", "SUITED_TIE"]
    for bet, wins in (("DRAGON", 100), ("TIE", 800), ("SUITED_TIE", 5000)):
        back = [
            1
            + dragon_tiger_ref.pay(
                dragon_tiger_ref.outcome(
                    bet, dragon_tiger_ref.card(d[0]), dragon_tiger_ref.card(t[0])
                ),
                wins,
            )
            for d, t in rounds
        ]
        num, den = map(int, bets[bet]["returned"]["exact"].split("/"))
        assert Fraction(num, den) == sum(back, Fraction(0)) / len(back), bet
