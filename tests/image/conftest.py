"""Fixtures of the image tests (``make image-test``): demo secrets made by the same script an
operator runs, readable by the image's non-root user, and a ``Docker`` that cleans up."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.image.docker import ROOT, Docker


@pytest.fixture(scope="session")
def secrets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("secrets")
    subprocess.run([str(ROOT / "deploy/make-secrets.sh"), str(folder)], check=True)
    folder.chmod(0o755)  # mounted as it is: the container's user must get in
    return folder


@pytest.fixture
def engine() -> Iterator[Docker]:
    made = Docker()
    yield made
    made.clean()
