"""``pricing simulate --game blackjack`` against the real server: it deals to several seats and
plays each round as a dealer would (the basic strategy of ``pricing.games.blackjack.strategy``)."""

from __future__ import annotations

import io

import pytest

from pricing import cli
from pricing.client import PricingClient
from pricing.games.blackjack import dealer_hand_result, hand_total
from pricing.games.blackjack.strategy import player_draws
from pricing.v1 import pricing_pb2 as pb
from tests.support.server import ServerProcess

pytestmark = pytest.mark.timeout(120)


def rounds_dealt(output: str) -> list[list[tuple[str, str]]]:
    """The simulator's lines as rounds of (who, card): who is "SEAT n" or "DEALER"."""
    rounds: list[list[tuple[str, str]]] = [[]]
    for line in output.splitlines():
        who, card = line[:6].strip(), line[7:10].strip()
        if who.startswith("SEAT") or who == "DEALER":
            rounds[-1].append((who, card))
        elif who in ("END", "VOID") and rounds[-1]:
            rounds.append([])
    return [r for r in rounds if r]


@pytest.mark.parametrize("seats", [3, 7])
def test_simulate_deals_every_seat_and_plays_hands_as_a_dealer(
    server: ServerProcess, table_id: str, seats: int
) -> None:
    out = io.StringIO()
    argv = ["simulate", "--server", server.target, "--table", table_id, "--game", "blackjack"]
    argv += ["--seats", str(seats), "--pace", "0", "--shoes", "1", "--seed", "5", "--close"]
    assert cli.main(argv, out=out) == 0
    with PricingClient(server.target) as client:
        state = client.get_table(table_id)
    assert (
        state.phase == pb.PHASE_CLOSED
        and [s.seat for s in state.seats] == list(range(1, 8))[:seats]
    )

    rounds = rounds_dealt(out.getvalue())
    assert len(rounds) > 5
    seat_names = [f"SEAT {n}" for n in range(1, seats + 1)]
    for deal in rounds:
        # The deal: a card to each seat, the dealer's up card, a second card to each seat.
        assert [who for who, _ in deal[: 2 * seats + 1]] == [*seat_names, "DEALER", *seat_names]
        up = deal[seats][1]
        hands = {name: [card for who, card in deal if who == name] for name in seat_names}
        dealer = [card for who, card in deal if who == "DEALER"]
        for hand in hands.values():
            # Every card after the second was drawn by the strategy; the last one ended it.
            for n in range(2, len(hand)):
                assert player_draws(hand[:n], up), (hand, up)
            assert not player_draws(hand, up), (hand, up)
        if all(hand_total(hand)[0] > 21 for hand in hands.values()):
            assert dealer == [up]  # every seat bust: the dealer does not draw
        else:
            assert dealer_hand_result(dealer, "S17") is not None, dealer
            assert dealer_hand_result(dealer[:-1], "S17") is None, dealer
