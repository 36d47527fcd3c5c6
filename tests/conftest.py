from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import settings

# The fault tests' checks live in a helper module: its asserts get pytest's detailed messages, as a test's do.
pytest.register_assert_rewrite("tests.fault_load")

# In CI every property test meets the same cases on every run (a new case found by chance fails a run that changed
# nothing); locally each run draws new ones, which is how new cases are found. A test's own `@settings` keeps this.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI") is not None:
    settings.load_profile("ci")

from sim_mcp.plugins import BACKENDS  # noqa: E402
from sim_mcp.testing import FakeProvider  # noqa: E402
from tests.helpers_server import app_server  # noqa: E402
from tests.servers import BUNDLED_SPECS, ServerProcess, running_server  # noqa: E402


@pytest.fixture(scope="session")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server on the bundled specs for the whole run (tests use their own session names)."""
    with running_server(tmp_path_factory.mktemp("http")) as server:
        yield server


@pytest.fixture
def bundled_specs() -> Path:
    return BUNDLED_SPECS


@pytest.fixture(autouse=True)
def _no_provider_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reaches a real LLM provider, whatever keys the machine has; and none reads or leaves a
    memory of response formats (Settings.response_format_memory) in the machine's own cache folder."""
    for backend in BACKENDS.builtin():
        for variable in BACKENDS.entry(backend).env:
            monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def fake_provider_server() -> Iterator[FakeProvider]:
    """The fake OpenAI/Anthropic server (sim_mcp/testing/fake_provider.py), one per test module."""
    with FakeProvider() as server:
        yield server


@pytest.fixture
def fake(fake_provider_server: FakeProvider) -> FakeProvider:
    """The module's fake provider, idle (an earlier test's request that is still being answered, or is
    noticing its client went away, finishes first: its count would blur this test's), its script and
    recorded requests cleared."""
    fake_provider_server.wait_idle()
    fake_provider_server.reset()
    return fake_provider_server


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """A server on the bundled specs, in this process on a free port, one per test module."""
    with app_server() as url:
        yield url


@pytest.fixture
async def http(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the module's server (`base_url`)."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        yield client
