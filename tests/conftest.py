from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import BUNDLED_SPECS, ServerProcess, running_server


@pytest.fixture(scope="session")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server on the bundled specs for the whole run (tests use their own session names)."""
    with running_server(tmp_path_factory.mktemp("http")) as server:
        yield server


@pytest.fixture
def bundled_specs() -> Path:
    return BUNDLED_SPECS
