"""The fixtures every tier shares: a server process per test module, a table id per test, and
no server left running when the session ends (``tests/support/server.py`` starts them)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.support.server import STARTED, ServerProcess, start_server


@pytest.fixture(scope="session", autouse=True)
def _no_server_outlives_the_session() -> Iterator[None]:
    yield
    for proc in STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """One server process for a whole test module; tests use distinct table ids."""
    process = start_server()
    yield process
    code = process.stop()
    assert code == 0, process.log()


_ids = itertools.count(1)


@pytest.fixture
def table_id(request: pytest.FixtureRequest) -> str:
    return f"{request.node.name[:40]}-{next(_ids)}"
