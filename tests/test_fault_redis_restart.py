"""Faults under load: `redis-server` killed with kill -9 and restarted (durable with an fsynced append-only
file) twice in the middle of a run; the load and its checks are tests/fault_load.py's."""

from __future__ import annotations

from pathlib import Path

from tests.fault_load import (
    CALLS_BETWEEN_FAULTS,
    check_final_state,
    run_with_faults,
    serving,
)
from tests.fuzzing import record_figures
from tests.helpers_server import RedisServer

pytest_plugins = ["tests.fault_load"]  # its durable_redis fixture


async def test_redis_restart_under_load(tmp_path: Path, durable_redis: RedisServer) -> None:
    with serving(tmp_path, f"{durable_redis.url}?lease_s=2") as server:
        load = await run_with_faults(server, [durable_redis.restart, durable_redis.restart])
        figures = check_final_state(server.base, load)
    assert figures["found"] == figures["acknowledged"] >= 3 * CALLS_BETWEEN_FAULTS
    record_figures("kill -9 and restart of redis-server mid-run (2 restarts)", figures)
