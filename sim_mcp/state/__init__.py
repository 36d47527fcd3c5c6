"""Per-session world state and event logs, and the stores that keep them."""

from sim_mcp.state.session import Event, JsonPatch, SessionRecord, Snapshot, TokenUsage, new_session_id
from sim_mcp.state.stores import MemoryStore, SessionStore, open_store

__all__ = [
    "Event",
    "JsonPatch",
    "MemoryStore",
    "SessionRecord",
    "SessionStore",
    "Snapshot",
    "TokenUsage",
    "new_session_id",
    "open_store",
]
