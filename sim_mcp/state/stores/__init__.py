"""Session stores, chosen by the URL's scheme from the table of stores (`sim_mcp.plugins.STORES`): `memory`,
`sqlite:///PATH`, `redis://HOST:PORT/DB`, or one a package registers."""

from __future__ import annotations

from sim_mcp.errors import ConfigError, NotRegistered
from sim_mcp.plugins import STORES
from sim_mcp.state.stores.base import SessionStore, StoreOpener, expected_stores
from sim_mcp.state.stores.memory import MemoryStore

__all__ = ["MemoryStore", "SessionStore", "StoreOpener", "open_store", "store_kind"]


def open_store(url: str) -> SessionStore:
    """A store for `url`; stores other than memory are imported only when asked for.

    Nothing connects here: `await store.start()` (which `Runtime` does) opens files and connections.
    """
    return store_kind(url).from_url(url)


def store_kind(url: str) -> StoreOpener:
    """What opens stores of `url`'s scheme (`ConfigError` naming every store when none does)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else (url or "memory")
    try:
        kind = STORES.load(scheme)
    except NotRegistered as e:
        raise ConfigError(f"unsupported store {url!r}: {expected_stores()}") from e
    if not isinstance(kind, StoreOpener):
        raise ConfigError(f"store {scheme!r}: {kind!r} has no from_url and shared, so it opens no store")
    return kind
