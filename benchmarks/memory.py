"""Memory: resident memory of the server process per idle session, at 10,000 sessions, less the
state's own size.

The server's RSS (VmRSS from /proc) is read after a warm-up, and again after N more sessions exist;
the difference over N is the cost of one session. Two kinds of idle session:
- *called*: one small call each (`get_ticket`, 2026-07-28 era, `?session=NAME`), the way an RL
  rollout's session comes to exist: its record, its own copy of the tickets world, one event;
- *created*: `POST /sessions` on the control API, nothing called yet (the world is not copied until
  the first call touches it).
The state's own size is its compact JSON. (As Python objects it takes more, but a session's world is
a deep copy of the environment's `initial_state`, which shares its strings with every other session.)
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import anyio

from benchmarks.report import Figure, Target
from benchmarks.servers import rss_bytes, sim_http
from benchmarks.wire import Connection

SECTION = "3 memory"
TARGET = Target(20.0, unit="KB")
_CONCURRENCY = 32


async def _populate(base_url: str, prefix: str, count: int, how: str) -> None:
    names = iter(range(count))

    async def worker() -> None:
        connection = Connection(base_url)
        try:
            for n in names:
                session = f"{prefix}-{n:06d}"
                if how == "called":
                    await connection.call("/mcp", session, "get_ticket", {"ticket_id": "T-1001"})
                else:
                    await connection.json("POST", "/sessions", {"id": session})
        finally:
            await connection.aclose()

    async with anyio.create_task_group() as tasks:
        for _ in range(_CONCURRENCY):
            tasks.start_soon(worker)


async def _state_of(base_url: str, session: str) -> Any:
    connection = Connection(base_url)
    try:
        return (await connection.json("GET", f"/sessions/{session}"))["state"]
    finally:
        await connection.aclose()


def measure(quick: bool) -> list[Figure]:
    count = 1_000 if quick else 10_000
    figures: list[Figure] = []
    for how in ("called", "created"):
        with sim_http() as sim:
            prefix = f"mem{os.getpid()}-{how}"
            anyio.run(_populate, sim.url, f"{prefix}-warm", 200, how)
            time.sleep(0.5)
            before = rss_bytes(sim.pid)
            started = time.perf_counter()
            anyio.run(_populate, sim.url, prefix, count, how)
            elapsed = time.perf_counter() - started
            time.sleep(0.5)
            per_session = (rss_bytes(sim.pid) - before) / count
            state = anyio.run(_state_of, sim.url, f"{prefix}-000000")
        # A created session has no world of its own until a call copies one in.
        state_bytes = len(json.dumps(state, separators=(",", ":"))) if how == "called" else 0
        label = f"{count:,} sessions, {how}"
        figures += [
            Figure(SECTION, f"{label}: RSS per session", per_session / 1024, "KB", note=f"{elapsed:.0f} s to create"),
            Figure(SECTION, f"{label}: its state (JSON)", state_bytes / 1024, "KB"),
            Figure(
                SECTION,
                f"{label}: RSS per session less its state",
                (per_session - state_bytes) / 1024,
                "KB",
                target=TARGET,
            ),
        ]
    return figures
