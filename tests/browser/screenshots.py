"""The docs' screenshots of the web console (``make console-screenshots``): a real server with
the console, a baccarat table and a Hi-Lo table dealt by ``pricing simulate`` while their pages
are open, each page saved once its header says it is live and it has drawn some rounds.

Run from the repository root: ``.venv/bin/python -m tests.browser.screenshots [DIR]`` (default
``docs``): writes ``console-lobby.png`` and ``console-table.png`` there.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.support import ROOT
from tests.support.browser import chromium
from tests.support.server import start_server

WAIT = 60.0


def _text(driver: Any, element_id: str) -> str:
    found = driver.find_elements(By.ID, element_id)
    return str(found[0].text) if found else ""


def _simulate(target: str, game: str, table: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; from pricing.launch import main; sys.exit(main())",
         "simulate", "--server", target, "--game", game, "--table", table, "--pace", "0.02",
         "--shoes", "1", "--seed", "7"],
        cwd=ROOT, stdout=subprocess.DEVNULL,
    )  # fmt: skip


def main(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    server = start_server("--console-port=0")
    feeds: list[subprocess.Popen[bytes]] = []
    try:
        with chromium(1200, 1400) as driver:
            wait = WebDriverWait(driver, WAIT)
            feeds.append(_simulate(server.target, "hilo", "demo"))
            feeds.append(_simulate(server.target, "baccarat", "demo-baccarat"))
            driver.get(server.console_url("/"))
            wait.until(lambda d: _text(d, "link") == "live" and "demo-baccarat" in d.page_source)
            driver.get(server.console_url("/tables/demo-baccarat"))
            wait.until(lambda d: _text(d, "link") == "live")
            # Some rounds drawn on the page's chart before it is taken.
            wait.until(lambda d: d.page_source.count("round ") >= 12)
            assert driver.save_screenshot(str(folder / "console-table.png"))
            driver.get(server.console_url("/"))
            wait.until(lambda d: _text(d, "link") == "live" and "demo-baccarat" in d.page_source)
            assert driver.save_screenshot(str(folder / "console-lobby.png"))
    finally:
        for feed in feeds:
            feed.terminate()
            feed.wait()
        server.stop()
    print(f"wrote {folder / 'console-lobby.png'} and {folder / 'console-table.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")))
