"""Stores: calls per second of sim-mcp (offline backend) with the memory, SQLite and Redis stores, at
64 concurrent sessions, each making create and read calls in turn.

The client is the lean one of `wire.py` (2026-07-28 JSON-RPC POSTs, a connection per session), so
that the server and its store, not the client, bound the rate. A store the server refuses to start with (its URL is not
supported yet) or whose program is missing is skipped, with the reason printed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from benchmarks.clients import LoadResult, lean_http_load
from benchmarks.overhead import CALLS
from benchmarks.report import Figure
from benchmarks.servers import HttpServer, RedisServer, redis_server, start_sim_http

SECTION = "5 stores"
SESSIONS = 64


@contextmanager
def store_urls() -> Iterator[list[tuple[str, str | None, str]]]:
    """(name, URL or None, reason when None) of each store to try."""
    with tempfile.TemporaryDirectory(prefix="sim-mcp-bench-") as folder, redis_server() as redis:
        sqlite = f"sqlite:///{Path(folder) / 'sessions.db'}"
        stores: list[tuple[str, str | None, str]] = [("memory", "memory", ""), ("sqlite", sqlite, "")]
        if isinstance(redis, RedisServer):
            stores.append(("redis", redis.url, ""))
        else:
            stores.append(("redis", None, redis))
        yield stores


def _plan(i: int) -> tuple[str, dict[str, Any]]:
    return CALLS["create_ticket"] if i % 2 else CALLS["get_ticket"]


def _load(sim: HttpServer, calls: int, prefix: str) -> LoadResult:
    return anyio.run(
        lambda: lean_http_load(
            sim.url,
            path="/mcp",
            clients=SESSIONS,
            calls=calls,
            plan=_plan,
            session_prefix=prefix,
            server_pid=sim.pid,
        )
    )


def measure(quick: bool) -> list[Figure]:
    calls = 10 if quick else 40
    figures: list[Figure] = []
    memory_rate: float | None = None
    with store_urls() as stores:
        for name, url, reason in stores:
            if url is None:
                figures.append(Figure(SECTION, f"{name}: skipped, {reason}", float("nan"), ""))
                continue
            try:
                sim = start_sim_http("--store", url)
            except RuntimeError as e:
                last = str(e).strip().splitlines()[-1]
                figures.append(
                    Figure(SECTION, f"{name}: skipped, the server refused the store: {last}", float("nan"), "")
                )
                continue
            try:
                result = _load(sim, calls, f"st{os.getpid()}-{name}")
            finally:
                sim.stop()
            rate = result.calls_per_s
            if name == "memory":
                memory_rate = rate
            label = f"{name} store, {SESSIONS} sessions"
            note = "; ".join(result.error_samples)[:200]
            figures += [
                Figure(
                    SECTION,
                    f"{label}: calls/s (baseline: memory)",
                    rate,
                    "/s",
                    memory_rate,
                    note=note,
                    failed=result.errors > 0,
                ),
                Figure(SECTION, f"{label}: p50", result.percentile(50) * 1000, "ms"),
                Figure(SECTION, f"{label}: p99", result.percentile(99) * 1000, "ms"),
                Figure(
                    SECTION, f"{label}: server CPU per call", result.server_cpu_s / max(result.calls, 1) * 1000, "ms"
                ),
            ]
    return figures
