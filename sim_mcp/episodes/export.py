"""`sim-mcp export`: sessions' trajectories as JSON Lines, from a running server or straight from a store.

From a server (`--url`), through its control API (`GET /sessions`, `GET /sessions/{id}/trajectory`), so
it works with any store and sees what the server sees. From a store (`--store`), with no server: the
events are read directly (stop the server first for SQLite; Redis may stay shared), and the `openai`
format takes its tool list from the spec folders (`--specs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote, unquote

import httpx

from sim_mcp.episodes.trajectory import TrajectoryFormat, agent_tools, to_jsonl, trajectory_lines
from sim_mcp.errors import ConfigError
from sim_mcp.specs.registry import load_catalog
from sim_mcp.state.stores import open_store

__all__ = ["export_from_server", "export_from_store"]


def export_from_server(
    url: str, sessions: Sequence[str] | None, format: TrajectoryFormat, *, token: str | None = None, timeout: float = 60
) -> tuple[str, int]:
    """The JSON Lines of `sessions` (None: all of them, oldest first) and how many sessions that is."""
    base = url.rstrip("/").removesuffix("/mcp")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with httpx.Client(base_url=base, headers=headers, timeout=timeout) as http:
        if sessions is None:
            listing = _get(http, "/sessions", base)
            sessions = [str(session["id"]) for session in listing.json()["sessions"]]
        parts = [
            _get(http, f"/sessions/{quote(session_id, safe='')}/trajectory", base, format=format).text
            for session_id in sessions
        ]
    return "".join(parts), len(sessions)


async def export_from_store(
    store_url: str, sessions: Sequence[str] | None, format: TrajectoryFormat, specs: Sequence[Path]
) -> tuple[str, int]:
    """As `export_from_server`, reading the store at `store_url` directly."""
    catalog = load_catalog(*specs) if format == "openai" else None
    store = open_store(store_url)
    await store.start()
    try:
        if sessions is None:
            records = sorted(await store.list(), key=lambda record: (record.created_at, record.id))
        else:
            records = []
            for session_id in sessions:
                record = await store.get(session_id)
                if record is None:
                    raise ConfigError(f"--session {session_id}: no such session in the store {store_url}")
                records.append(record)
        lines = []
        for record in records:
            events = await store.events(record.id)
            tools = agent_tools(catalog, record.environment) if catalog is not None else []
            lines += trajectory_lines(format, record.id, events, tools)
    finally:
        await store.aclose()
    return to_jsonl(lines), len(records)


def _get(http: httpx.Client, path: str, base: str, **params: str) -> httpx.Response:
    try:
        response = http.get(path, params=params)
    except httpx.HTTPError as e:
        raise ConfigError(f"--url {base}: cannot reach the server: {e}") from e
    if response.status_code == 401:
        raise ConfigError(f"--url {base}: the server wants a token: give --token (or SIM_MCP_TOKEN)")
    if response.status_code == 404 and path.startswith("/sessions/"):
        session_id = unquote(path.split("/")[2])
        raise ConfigError(f"--session {session_id}: no such session on {base}")
    if response.status_code != 200:
        raise ConfigError(f"--url {base}: GET {path} answered {response.status_code}: {response.text[:200]}")
    return response
