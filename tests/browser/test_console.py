"""The web console in a real browser (``make console-check``; marked ``browser``, so ``make test``
leaves it out): Selenium drives Debian's headless Chromium (``chromium``, ``chromium-driver``)
against the real server, fed through the dealer API as a card reader feeds it. The lobby shows
an opened table's row and sorts and filters its rows; a table's page changes with each card (a
price, an RTP, a bet closed by game protection, a round's result); and a page left open across
a server restart (same data folder, same port) reconnects by itself and shows the next card
without being reloaded.

Every wait is on the page's DOM (``WebDriverWait``), never a sleep.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from pricing.cards import DECK
from pricing.v1 import pricing_pb2 as pb
from tests.support.browser import text, until
from tests.support.server import ServerProcess, start_server
from tests.support.wire import Feed

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

D, T, BURN = pb.CARD_ROLE_DRAGON, pb.CARD_ROLE_TIGER, pb.CARD_ROLE_BURN


def bet_rows(driver: Any) -> dict[str, tuple[str, list[str]]]:
    """The bets table: each bet's row as (its class, its cells' text)."""
    rows = driver.find_elements(By.CSS_SELECTOR, "#bets tbody tr")
    cells = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in rows]
    return {c[0]: (tr.get_attribute("class") or "", c) for tr, c in zip(rows, cells, strict=True)}


def open_page(driver: Any, server: ServerProcess, table_id: str, version: int) -> None:
    """Open a table's page and wait until its stream has shown ``version``, live."""
    driver.get(server.console_url(f"/tables/{table_id}"))
    until(driver, lambda d: text(d, "version") == str(version), f"{table_id} at {version}")
    until(driver, lambda d: text(d, "link") == "live", "the header's badge says live")


def test_the_lobby_shows_a_table_opened_while_it_is_open(
    browser: Any, server: ServerProcess
) -> None:
    browser.get(server.console_url("/"))
    until(browser, lambda d: text(d, "link") == "live", "the lobby's badge says live")
    Feed(server, "browser-lobby").open(game=pb.GAME_BACCARAT)
    link = until(
        browser,
        lambda d: d.find_elements(By.LINK_TEXT, "browser-lobby"),
        "the new table's row in the lobby",
    )[0]
    assert link.get_attribute("href") == server.console_url("/tables/browser-lobby")
    row = link.find_element(By.XPATH, "./ancestor::tr")
    assert "Baccarat" in row.text


def lobby_ids(driver: Any, prefix: str) -> list[str]:
    """The ids of the lobby's rows shown (not filtered out) that start with ``prefix``, in
    the order shown."""
    links = driver.find_elements(By.CSS_SELECTOR, "#lobby tbody tr td:first-child a")
    return [str(a.text) for a in links if a.text.startswith(prefix)]


def test_the_lobby_sorts_by_a_clicked_column_and_filters_by_game(
    browser: Any, server: ServerProcess
) -> None:
    for table_id, game in (("sort-a", pb.GAME_HILO), ("sort-b", pb.GAME_BACCARAT)):
        Feed(server, table_id).open(game=game)
    feed = Feed(server, "sort-c")
    feed.open(game=pb.GAME_HILO)
    feed.expose("2S")  # one card fewer left than sort-a's
    browser.get(server.console_url("/"))
    until(browser, lambda d: lobby_ids(d, "sort-") == ["sort-a", "sort-b", "sort-c"], "by id")
    header = browser.find_element(By.CSS_SELECTOR, '#lobby th[data-key="table_id"]')
    header.click()  # sorted by id already: a click reverses it
    until(browser, lambda d: lobby_ids(d, "sort-") == ["sort-c", "sort-b", "sort-a"], "reversed")
    assert header.get_attribute("aria-sort") == "descending"
    browser.find_element(By.CSS_SELECTOR, '#lobby th[data-key="cards_remaining"]').click()
    until(  # fewest cards left first: Hi-Lo's 51, then 52, then baccarat's eight decks
        browser, lambda d: lobby_ids(d, "sort-") == ["sort-c", "sort-a", "sort-b"], "by cards"
    )
    Select(browser.find_element(By.ID, "game")).select_by_visible_text("Hi-Lo")
    until(browser, lambda d: lobby_ids(d, "sort-") == ["sort-c", "sort-a"], "Hi-Lo's only")
    assert all(
        cell.text == "Hi-Lo"
        for cell in browser.find_elements(By.CSS_SELECTOR, "#lobby tbody tr td:nth-child(2)")
    )


def test_a_hilo_page_shows_each_cards_prices(browser: Any, server: ServerProcess) -> None:
    feed = Feed(server, "browser-hilo")
    opened = feed.open(game=pb.GAME_HILO)
    open_page(browser, server, "browser-hilo", opened.version)
    before = bet_rows(browser)
    assert before, "no bets shown"
    exposed = feed.expose("KS")
    until(browser, lambda d: text(d, "version") == str(exposed.version), "the card's state")
    assert "KS" in text(browser, "cards")
    after = bet_rows(browser)
    assert after.keys() == before.keys()
    assert any(after[bet][1][1:] != before[bet][1][1:] for bet in after), "no price changed"


def test_protection_closes_a_bet_and_a_round_result_appears(
    browser: Any, server: ServerProcess
) -> None:
    """A two-deck Dragon Tiger shoe burnt down to its kings and queens makes a suited tie (1 in
    15 at 50:1) favourable: game protection closes it, and the page marks its row closed."""
    feed = Feed(server, "browser-dt")
    rules = pb.DragonTigerRules(close_at_rtp_bp=10_000)
    rules.side_bets["SUITED_TIE"].preset = ""
    state = feed.open(game=pb.GAME_DRAGON_TIGER, decks=2, dragon_tiger=rules)
    open_page(browser, server, "browser-dt", state.version)
    first_rtp = bet_rows(browser)["SUITED_TIE"][1][1]
    for card in [c for c in DECK for _ in range(2) if c.rank.name not in ("KING", "QUEEN")]:
        state = feed.expose(str(card), BURN)
    closed = until(
        browser,
        lambda d: (row := bet_rows(d).get("SUITED_TIE")) and "closed" in row[0] and row,
        "SUITED_TIE marked closed",
    )
    assert "closed by protection" in closed[1]
    assert closed[1][1] != first_rtp  # its RTP cell moved with the burns
    assert "closed" not in bet_rows(browser)["TIE"][0]
    feed.expose("KS", D)
    feed.expose("KH", T)
    result = until(
        browser,
        lambda d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#results li")],
        "the round's result",
    )
    assert result[0].startswith("round 1: ") and "KS" in result[0] and "KH" in result[0]


def test_a_page_reconnects_by_itself_after_a_restart(browser: Any) -> None:
    data = Path(tempfile.mkdtemp(prefix="console-restart-"))
    first = start_server("--console-port=0", data_dir=data)
    assert first.console_port is not None
    port = first.console_port
    try:
        feed = Feed(first, "browser-restart")
        opened = feed.open(game=pb.GAME_HILO)
        open_page(browser, first, "browser-restart", opened.version)
        browser.execute_script("window.notReloaded = true;")
    finally:
        assert first.stop() == 0, first.log()
    until(browser, lambda d: text(d, "link") != "live", "the badge leaves live")
    second = start_server(f"--console-port={port}", data_dir=data)
    try:
        assert second.console_port == port
        until(browser, lambda d: text(d, "link") == "live", "the badge live again")
        resumed = Feed(second, "browser-restart")
        resumed.seq = feed.seq
        exposed = resumed.expose("9D")
        until(browser, lambda d: text(d, "version") == str(exposed.version), "the next card")
        assert "9D" in text(browser, "cards")
        assert browser.execute_script("return window.notReloaded === true;")
    finally:
        assert second.stop() == 0, second.log()
        shutil.rmtree(data, ignore_errors=True)
