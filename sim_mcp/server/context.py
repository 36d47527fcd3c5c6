"""What serving a runtime adds to it: resource subscribers and the web UI's live feed, metrics, the rate
limiter. Built once per server (MCP over stdio, or the HTTP app), subscribed to the runtime's one
after-commit path, and shared by the MCP server, the control API and the UI."""

from __future__ import annotations

from sim_mcp.config import ServerConfig
from sim_mcp.runtime import Runtime
from sim_mcp.server.limits import RateLimiter
from sim_mcp.server.metrics import Metrics
from sim_mcp.server.resources import SessionChanges
from sim_mcp.specs.registry import Catalog


class ServerContext:
    """A runtime and the transport's own parts; `changes` and `metrics` hear every committed change.

    `config` is the transport's concern (its rate limit, the web UI's token); None: its defaults, no limit
    and no token, as an in-memory server for a test or a harness wants."""

    def __init__(self, runtime: Runtime, config: ServerConfig | None = None) -> None:
        self.runtime = runtime
        self.config = config if config is not None else ServerConfig()
        self.changes = SessionChanges()
        self.metrics = Metrics()
        self.limiter = RateLimiter(self.config.rate_limit)
        # Both act in this process only (its connections, its counters): `local`.
        runtime.hooks.subscribe(self.changes, local=True)
        runtime.hooks.subscribe(self.metrics, local=True)

    def reload(self) -> Catalog:
        """Load the specs again (see `Runtime.reload`), counted in the metrics."""
        catalog = self.runtime.reload()
        self.metrics.reloads.inc()
        return catalog
