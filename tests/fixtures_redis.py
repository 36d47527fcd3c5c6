"""Redis fixtures (load with `pytest_plugins = ["tests.fixtures_redis"]`): a real `redis-server` per run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from tests.helpers_server import RedisServer


def require_redis_server() -> None:
    """Skip when `redis-server` is not installed, except under CI (CI=true), where that is a failure."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("redis-server is not installed, and CI is set: .ci/run must install it (apt redis-server)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    require_redis_server()
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The shared server, emptied for this test."""
    redis_server.flush()
    return redis_server.url
