"""The browser tests' fixtures: one headless Chromium and one server with the console (on a
free port) for each module."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import chromium
from tests.support.server import ServerProcess, start_server


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    for name in ("chromium", "chromedriver"):
        if shutil.which(name) is None:
            pytest.fail(f"{name} is not installed: apt-get install chromium chromium-driver")
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = start_server("--console-port=0")
    yield process
    assert process.stop() == 0, process.log()
