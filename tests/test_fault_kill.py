"""Faults under load: `kill -9` of the server with the SQLite store and with Redis, in the middle of a run
(the load and its checks: tests/fault_load.py; a Redis restart: tests/test_fault_redis_restart.py, a file of
its own so that the test command's workers run the two side by side)."""

from __future__ import annotations

from pathlib import Path

from tests.fault_load import (
    CALLS_BETWEEN_FAULTS,
    check_final_state,
    kill_and_restart,
    run_with_faults,
    serving,
)
from tests.fuzzing import record_figures
from tests.helpers_server import RedisServer

pytest_plugins = ["tests.fault_load"]  # its durable_redis fixture


async def test_kill_9_under_load_with_sqlite(tmp_path: Path) -> None:
    with serving(tmp_path, f"sqlite:///{tmp_path / 'sessions.db'}") as server:
        load = await run_with_faults(server, [kill_and_restart(server), kill_and_restart(server)])
        figures = check_final_state(server.base, load)
    assert figures["found"] == figures["acknowledged"] >= 3 * CALLS_BETWEEN_FAULTS
    record_figures("kill -9 of the server, SQLite store (2 kills)", figures)


async def test_kill_9_under_load_with_redis(tmp_path: Path, durable_redis: RedisServer) -> None:
    # A lock held by the killed process frees after its lease: 2 s here instead of 30.
    with serving(tmp_path, f"{durable_redis.url}?lease_s=2") as server:
        load = await run_with_faults(server, [kill_and_restart(server), kill_and_restart(server)])
        figures = check_final_state(server.base, load)
    assert figures["found"] == figures["acknowledged"] >= 3 * CALLS_BETWEEN_FAULTS
    record_figures("kill -9 of the server, Redis store (2 kills)", figures)
