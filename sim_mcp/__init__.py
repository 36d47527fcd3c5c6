"""sim-mcp: an MCP server that simulates any tool spec, with consistent per-session world state.

The public API, importable from `sim_mcp` (`__all__` is the contract; anything else is internal):

- specs: `load_catalog(*paths)` -> `Catalog` of `Environment`s and their `ToolSpec`s; `read_spec_file`.
- running in process: `Settings`, `Runtime` (the composition root: `async with Runtime(settings) as rt`),
  `rt.simulator.call(session, tool, arguments)` -> `CallResult`, `rt.sessions` (create, reset, fork...).
- serving: `create_app(settings)` (the HTTP app: MCP in both eras, control API, UI), `serve_stdio`,
  `build_mcp_server` with `SessionRouting` and `ServerContext` (the SDK's low-level Server, e.g. for the SDK's
  Client in memory).
- extending: `Backend` (with `SimulationRequest` -> `Outcome`), `SessionStore`, `open_store`; a backend, store,
  spec format, check kind or output mode of one's own: `register_backend`, `register_store`,
  `register_spec_format`, `register_check_kind`, `register_output_mode` (the tables of `sim_mcp.plugins`).
- testing: `sim_mcp.testing` (a scripted backend and a fake LLM provider).
- harness side: `SimClient` / `SimSession` (a running server's sessions over HTTP and MCP) and `LocalServer`.
- errors: `SimMcpError` and its kinds.

Names are imported when first used, so `import sim_mcp` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sim_mcp.version import __version__

if TYPE_CHECKING:
    from sim_mcp.client import LocalServer, SimClient, SimSession
    from sim_mcp.config import Settings
    from sim_mcp.engine.backends import Backend, load_backend
    from sim_mcp.engine.contract import Outcome, SimulationRequest
    from sim_mcp.engine.hooks import Change, Commit, Lifecycle
    from sim_mcp.engine.sessions import SessionService
    from sim_mcp.engine.simulator import CallResult, Simulator
    from sim_mcp.errors import (
        BackendError,
        ConfigError,
        SessionExists,
        SessionNotFound,
        SimMcpError,
        SpecError,
        StoreError,
    )
    from sim_mcp.plugins import (
        register_backend,
        register_check_kind,
        register_output_mode,
        register_spec_format,
        register_store,
    )
    from sim_mcp.runtime import Runtime
    from sim_mcp.server.context import ServerContext
    from sim_mcp.server.http import create_app
    from sim_mcp.server.mcp import SessionRouting, build_mcp_server
    from sim_mcp.server.stdio import serve_stdio
    from sim_mcp.specs.formats import read_spec_file
    from sim_mcp.specs.model import Environment, ToolSpec
    from sim_mcp.specs.registry import Catalog, load_catalog
    from sim_mcp.state.session import Event, SessionRecord
    from sim_mcp.state.stores import MemoryStore, SessionStore, open_store

_WHERE = {
    "LocalServer": "sim_mcp.client",
    "SimClient": "sim_mcp.client",
    "SimSession": "sim_mcp.client",
    "Settings": "sim_mcp.config",
    "Backend": "sim_mcp.engine.backends",
    "load_backend": "sim_mcp.engine.backends",
    "Outcome": "sim_mcp.engine.contract",
    "SimulationRequest": "sim_mcp.engine.contract",
    "Change": "sim_mcp.engine.hooks",
    "Commit": "sim_mcp.engine.hooks",
    "Lifecycle": "sim_mcp.engine.hooks",
    "SessionService": "sim_mcp.engine.sessions",
    "CallResult": "sim_mcp.engine.simulator",
    "Simulator": "sim_mcp.engine.simulator",
    "BackendError": "sim_mcp.errors",
    "ConfigError": "sim_mcp.errors",
    "SessionExists": "sim_mcp.errors",
    "SessionNotFound": "sim_mcp.errors",
    "SimMcpError": "sim_mcp.errors",
    "SpecError": "sim_mcp.errors",
    "StoreError": "sim_mcp.errors",
    "Runtime": "sim_mcp.runtime",
    "ServerContext": "sim_mcp.server.context",
    "create_app": "sim_mcp.server.http",
    "SessionRouting": "sim_mcp.server.mcp",
    "build_mcp_server": "sim_mcp.server.mcp",
    "serve_stdio": "sim_mcp.server.stdio",
    "read_spec_file": "sim_mcp.specs.formats",
    "Environment": "sim_mcp.specs.model",
    "ToolSpec": "sim_mcp.specs.model",
    "Catalog": "sim_mcp.specs.registry",
    "load_catalog": "sim_mcp.specs.registry",
    "Event": "sim_mcp.state.session",
    "SessionRecord": "sim_mcp.state.session",
    "MemoryStore": "sim_mcp.state.stores",
    "SessionStore": "sim_mcp.state.stores",
    "open_store": "sim_mcp.state.stores",
    "register_backend": "sim_mcp.plugins",
    "register_check_kind": "sim_mcp.plugins",
    "register_output_mode": "sim_mcp.plugins",
    "register_spec_format": "sim_mcp.plugins",
    "register_store": "sim_mcp.plugins",
}

__all__ = [
    "Backend",
    "BackendError",
    "CallResult",
    "Catalog",
    "Change",
    "Commit",
    "ConfigError",
    "Environment",
    "Event",
    "Lifecycle",
    "LocalServer",
    "MemoryStore",
    "Outcome",
    "Runtime",
    "ServerContext",
    "SessionExists",
    "SessionNotFound",
    "SessionRecord",
    "SessionRouting",
    "SessionService",
    "SessionStore",
    "Settings",
    "SimClient",
    "SimMcpError",
    "SimSession",
    "SimulationRequest",
    "Simulator",
    "SpecError",
    "StoreError",
    "ToolSpec",
    "__version__",
    "build_mcp_server",
    "create_app",
    "load_backend",
    "load_catalog",
    "open_store",
    "read_spec_file",
    "register_backend",
    "register_check_kind",
    "register_output_mode",
    "register_spec_format",
    "register_store",
    "serve_stdio",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'sim_mcp' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
