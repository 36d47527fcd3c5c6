"""Everything a running server holds, built from `Settings`: the catalog, the store, the backend, the simulator."""

from __future__ import annotations

import logging
from types import TracebackType

from sim_mcp.config import Settings
from sim_mcp.simulation.backends import Backend, load_backend
from sim_mcp.simulation.simulator import Simulator
from sim_mcp.specs.registry import Catalog, load_catalog
from sim_mcp.state.stores import SessionStore, open_store

logger = logging.getLogger("sim_mcp")


class Runtime:
    """Owns the server's long-lived parts; `async with` starts the backend and closes everything after."""

    def __init__(
        self,
        settings: Settings,
        *,
        catalog: Catalog | None = None,
        backend: Backend | None = None,
        store: SessionStore | None = None,
    ) -> None:
        self.settings = settings
        self.catalog = catalog if catalog is not None else load_catalog(*settings.specs)
        self.backend = backend if backend is not None else load_backend(settings)
        self.store = store if store is not None else open_store(settings.store)
        self.simulator = Simulator(lambda: self.catalog, self.backend, self.store, settings)
        for error in self.catalog.errors:
            logger.warning("skipped spec: %s", error)

    def reload(self) -> Catalog:
        """Load the spec folders again; the new catalog serves from the next request on."""
        self.catalog = load_catalog(*self.settings.specs)
        return self.catalog

    async def __aenter__(self) -> Runtime:
        await self.backend.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            await self.backend.aclose()
        finally:
            await self.store.aclose()
