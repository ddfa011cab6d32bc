from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract.harness import REPO


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Path]:
    """A private copy of the sample vault: tests may change it freely."""
    target = tmp_path / "vault"
    shutil.copytree(REPO / "examples" / "vault", target, symlinks=True)
    yield target
