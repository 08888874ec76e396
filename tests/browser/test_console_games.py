"""Every game's table page in a real browser (marked ``browser``, as ``test_console.py``): each
game's table, fed a few cards in its roles through the dealer API, shows its last state live, at
least one bet, and no error in the page's console; blackjack shows its seats' cards, insurance
and the dealer's outcomes. And a page opened once with ``?token=`` on a server requiring reader
tokens goes live: the redirect's cookie carries the token to the EventSource, which sends no
headers.

Every wait is on the page's DOM (``WebDriverWait``), never a sleep.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from pricing.v1 import pricing_pb2 as pb
from tests.support.browser import severe, text, until
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Feed

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

BURN, RESULT = pb.CARD_ROLE_BURN, pb.CARD_ROLE_RESULT
PLAYER, DEALER, BANKER = pb.CARD_ROLE_PLAYER, pb.CARD_ROLE_DEALER, pb.CARD_ROLE_BANKER
DRAGON, TIGER = pb.CARD_ROLE_DRAGON, pb.CARD_ROLE_TIGER
READER = "console-reader-token-0123456789abcdef"


@dataclass(frozen=True)
class Deal:
    """A table of one game and the few events it is fed: (card, role, seat), or "END" for
    EndRound."""

    game: pb.Game.ValueType
    events: tuple[tuple[str, int, int] | str, ...]
    rules: dict[str, Any]


DEALS = (
    Deal(  # the five opening burns, then a round decided
        pb.GAME_HILO,
        (*((c, BURN, 0) for c in ("2S", "3S", "4S", "5S", "6S")), ("7H", RESULT, 0)),
        {},
    ),
    Deal(  # two seats' first two cards and the dealer's ace: a round being dealt
        pb.GAME_BLACKJACK,
        (
            ("KH", PLAYER, 1),
            ("9C", PLAYER, 2),
            ("AS", DEALER, 0),
            ("QD", PLAYER, 1),
            ("9D", PLAYER, 2),
        ),
        {"decks": 6, "blackjack": pb.BlackjackRules(seats=2)},
    ),
    Deal(  # a hand dealt and its round ended
        pb.GAME_GOA_GAE,
        (("9S", PLAYER, 0), ("KD", DEALER, 0), ("4C", PLAYER, 0), ("2H", PLAYER, 0), "END"),
        {},
    ),
    Deal(  # the shoe's base card, the three burns (the first closes betting), the result
        pb.GAME_HIGHER_LOWER,
        (("9D", RESULT, 0), ("4C", BURN, 0), ("JD", BURN, 0), ("9S", BURN, 0), ("KS", RESULT, 0)),
        {},
    ),
    Deal(  # Player 9 8 stands on 7, Banker K 2 must draw: a round in progress
        pb.GAME_BACCARAT,
        (("9S", PLAYER, 0), ("KD", BANKER, 0), ("8H", PLAYER, 0), ("2C", BANKER, 0)),
        {},
    ),
    Deal(pb.GAME_DRAGON_TIGER, (("KS", DRAGON, 0), ("3H", TIGER, 0)), {}),  # a round decided
)


def feed(server: ServerProcess, table_id: str, deal: Deal) -> pb.TableState:
    """Open ``table_id`` and feed it ``deal``'s events; the last state."""
    dealer = Feed(server, table_id)
    state = dealer.open(game=deal.game, **deal.rules)
    for event in deal.events:
        state = dealer.end_round() if event == "END" else dealer.expose(*event)
    return state


@pytest.mark.parametrize("deal", DEALS, ids=lambda d: pb.Game.Name(d.game).lower())
def test_each_games_page_shows_its_last_state_live_without_errors(
    browser: Any, server: ServerProcess, deal: Deal
) -> None:
    table_id = f"games-{pb.Game.Name(deal.game).lower().replace('_', '-')}"
    last = feed(server, table_id, deal)
    severe(browser)  # drained: only this page's entries are read below
    browser.get(server.console_url(f"/tables/{table_id}"))
    until(browser, lambda d: text(d, "version") == str(last.version), f"version {last.version}")
    until(browser, lambda d: text(d, "link") == "live", "the header's badge says live")
    assert browser.find_elements(By.CSS_SELECTOR, "#bets tbody tr"), "no bet shown"
    if deal.game == pb.GAME_BLACKJACK:
        until(browser, lambda d: "seat 1: KH QD" in text(d, "hands"), "seat 1's cards")
        assert "seat 2: 9C 9D" in text(browser, "hands")
        assert last.insurance.offered and last.dealer_outcomes.up_card == "AS"
        extra = text(browser, "extra")
        assert "insurance: dealer blackjack" in extra, extra
        assert "dealer AS: " in extra, extra
    if last.ended_round.round_id:
        until(
            browser,
            lambda d: d.find_elements(By.CSS_SELECTOR, "#results li"),
            "the ended round in the results",
        )
    assert severe(browser) == []


def test_a_page_opened_with_a_token_goes_live_on_its_cookie(browser: Any) -> None:
    """EventSource sends no Authorization header: the stream is let in by the cookie that
    ``?token=``'s redirect set."""
    folder = Path(tempfile.mkdtemp(prefix="console-reader-"))
    readers = folder / "readers"
    readers.write_text(f"{READER}\n")
    guarded = start_server("--console-port=0", f"--reader-tokens-file={readers}")
    try:
        browser.delete_all_cookies()
        severe(browser)
        browser.get(guarded.console_url(f"/?token={READER}"))
        until(browser, lambda d: text(d, "link") == "live", "the lobby's badge says live")
        assert browser.current_url == guarded.console_url("/")  # the token left the address
        assert severe(browser) == []
    finally:
        browser.delete_all_cookies()
        assert guarded.stop() == 0, guarded.log()
        shutil.rmtree(folder, ignore_errors=True)


def test_a_refused_page_shows_why(browser: Any) -> None:
    """EventSource cannot read a refusal: the page asks once and shows the server's answer
    (a 429 naming the limit) instead of "reconnecting" for ever."""
    full = start_server("--console-port=0", "--max-watchers-per-table=1")
    try:
        Feed(full, "full-table").open(game=pb.GAME_HILO)
        holder = full.pricing().WatchTable(pb.WatchTableRequest(table_id="full-table"))
        next(holder)  # the table's one watcher
        browser.get(full.console_url("/tables/full-table"))
        badge = until(
            browser,
            lambda d: (
                d.find_element(By.ID, "link").get_attribute("data-state") == "refused"
                and d.find_element(By.ID, "link")
            ),
            "the badge says refused",
        )
        assert badge.text.startswith("429: "), badge.text
        assert "--max-watchers-per-table is 1" in badge.text
        holder.cancel()
        until(browser, lambda d: text(d, "link") == "live", "live once the watcher left")
    finally:
        assert full.stop() == 0, full.log()
