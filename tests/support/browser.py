"""Debian's headless Chromium under Selenium, as the browser tests and the docs' screenshots
drive it: the flags a root user in a closed network needs, a fresh profile, Debian's
chromedriver named outright (Selenium Manager would otherwise look for one online), and the
page's console kept (``goog:loggingPrefs``) so that a test can read its errors (``severe``)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["FLAGS", "WAIT", "chromium", "severe", "text", "until"]

#: Seconds a page may take to show a change (the lobby's stream: one event a second).
WAIT = 20.0

#: As root, in a container, with no network beyond loopback.
FLAGS = (
    "--headless",
    "--no-sandbox",  # as root, in a container: Chromium's sandbox needs what neither gives
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed: apt-get install chromium chromium-driver")
    return found


@contextmanager
def chromium(width: int = 1200, height: int = 900) -> Iterator[Any]:
    """A Selenium driver of a new headless Chromium, quit and its profile removed after."""
    from selenium import webdriver  # noqa: PLC0415 - the test extra's, only when a browser runs
    from selenium.webdriver.chrome.options import Options  # noqa: PLC0415
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    profile = tempfile.mkdtemp(prefix="console-chromium-")
    options = Options()
    options.binary_location = _tool("chromium")
    for flag in (*FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    # every level of the page's console: a script's uncaught error or a failed load is SEVERE
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(_tool("chromedriver")))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def severe(driver: Any) -> list[str]:
    """The page console's SEVERE entries (an uncaught error, a resource that failed to load)
    since the last read: Chromium's log is drained by each read."""
    return [str(e["message"]) for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def until(driver: Any, condition: Callable[[Any], Any], what: str, wait: float = WAIT) -> Any:
    """Wait for ``condition`` on the page (a node replaced under it is read again); fails
    naming ``what``."""
    from selenium.common.exceptions import StaleElementReferenceException  # noqa: PLC0415
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: PLC0415

    return WebDriverWait(driver, wait, ignored_exceptions=[StaleElementReferenceException]).until(
        condition, message=what
    )


def text(driver: Any, element_id: str) -> str:
    """The text of the page's element ``element_id``."""
    from selenium.webdriver.common.by import By  # noqa: PLC0415

    return str(driver.find_element(By.ID, element_id).text)
