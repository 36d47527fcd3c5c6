"""Everything a running server holds, built from `Settings`: the catalog, the store, the backend, the simulator."""

from __future__ import annotations

import logging
from types import TracebackType

from sim_mcp.config import Settings
from sim_mcp.server.limits import RateLimiter
from sim_mcp.server.metrics import Metrics
from sim_mcp.server.resources import SessionChanges
from sim_mcp.simulation.backends import Backend, load_backend
from sim_mcp.simulation.sessions import SessionService
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
        self.sessions = SessionService(self.simulator)
        # Subscribers to session resources, shared by the MCP server and the control API.
        self.changes = SessionChanges()
        self.metrics = Metrics()
        self.limiter = RateLimiter(settings.rate_limit)
        for error in self.catalog.errors:
            logger.warning("skipped spec: %s", error)

    def reload(self) -> Catalog:
        """Load the spec folders again; the new catalog serves from the next request on. A file that
        broke keeps its last good version served; sessions keep their state."""
        self.catalog = load_catalog(*self.settings.specs, previous=self.catalog)
        self.metrics.reloads.inc()
        for error in self.catalog.errors:
            logger.warning("spec not (re)loaded: %s", error)
        return self.catalog

    async def __aenter__(self) -> Runtime:
        await self.store.start()
        try:
            await self.backend.start()
        except BaseException:
            await self.store.aclose()
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            await self.backend.aclose()
        finally:
            await self.store.aclose()
