"""Session stores, chosen by URL: `memory`, `sqlite:///PATH`, `redis://HOST:PORT/DB`."""

from __future__ import annotations

from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit

from sim_mcp.errors import ConfigError
from sim_mcp.state.stores.base import SessionStore
from sim_mcp.state.stores.memory import MemoryStore

__all__ = ["MemoryStore", "SessionStore", "open_store"]

_EXPECTED = (
    "expected 'memory', 'sqlite:///PATH' (relative; 'sqlite:////abs/path' for an absolute one) "
    "or 'redis://HOST:PORT/DB' (--store / SIM_MCP_STORE)"
)


def open_store(url: str) -> SessionStore:
    """A store for `url`; stores other than memory are imported only when asked for.

    Nothing connects here: `await store.start()` (which `Runtime` does) opens files and connections.
    """
    if url in ("", "memory", "memory://"):
        return MemoryStore()
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme == "sqlite":
        # As in SQLAlchemy: sqlite:///data/sessions.db is relative, sqlite:////var/lib/sessions.db absolute.
        prefix = "sqlite:///"
        path = url[len(prefix) :] if url.lower().startswith(prefix) else ""
        if not path or "?" in path:
            raise ConfigError(f"bad store URL {url!r}: sqlite needs a file path and no options; {_EXPECTED}")
        from sim_mcp.state.stores.sqlite import SqliteStore

        return SqliteStore(path)
    if scheme in ("redis", "rediss"):
        parts = urlsplit(url)
        try:
            port = parts.port
        except ValueError as e:
            raise ConfigError(f"bad store URL {url!r}: {e}; {_EXPECTED}") from e
        database = parts.path.strip("/")
        if not parts.hostname or (database and not database.isdigit()) or port == 0:
            raise ConfigError(
                f"bad store URL {url!r}: need a host, an optional port and a database number; {_EXPECTED}"
            )
        from sim_mcp.state.stores.redis import RedisStore

        plain, lease_s = _lease(url, parts)
        return RedisStore(plain, lease_s=lease_s)
    raise ConfigError(f"unsupported store {url!r}: {_EXPECTED}")


def _lease(url: str, parts: SplitResult) -> tuple[str, float]:
    """`?lease_s=SECONDS` of a Redis URL (how long a lock outlives a process that died holding it; default
    30), and the URL without it (the rest of the query goes to redis-py)."""
    query = parse_qsl(parts.query, keep_blank_values=True)
    given = [value for key, value in query if key == "lease_s"]
    if not given:
        return url, 30.0
    try:
        lease = float(given[-1])
    except ValueError:
        lease = 0.0
    if not lease > 0:
        raise ConfigError(f"bad store URL {url!r}: lease_s: expected seconds above 0, got {given[-1]!r}; {_EXPECTED}")
    rest = urlencode([(key, value) for key, value in query if key != "lease_s"])
    return parts._replace(query=rest).geturl(), lease
