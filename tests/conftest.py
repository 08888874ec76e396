"""The fixtures every tier shares: a server process per test module, a table id per test, and
no server left running when the session ends (``tests/support/server.py`` starts them); and
the order tests run in."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.support.effort import load_profile
from tests.support.server import STARTED, ServerProcess, start_server

load_profile()


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


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` checks first, each in its place otherwise: in a parallel run (``make
    test``) none of them is left to start last, with the other workers idle until it ends."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


_ids = itertools.count(1)


@pytest.fixture
def table_id(request: pytest.FixtureRequest) -> str:
    return f"{request.node.name[:40]}-{next(_ids)}"
