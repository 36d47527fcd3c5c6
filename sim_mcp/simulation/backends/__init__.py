"""Simulator backends: one module each, behind one interface.

`offline` (deterministic, no network; the default), `anthropic`, `openai` (also any
OpenAI-compatible server), `function` (a Python callable: for tests and scripted outcomes).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from sim_mcp.simulation.contract import Outcome, SimulationRequest

if TYPE_CHECKING:
    from sim_mcp.config import Settings

__all__ = ["BACKEND_NAMES", "Backend", "load_backend"]

BACKEND_NAMES = ("offline", "anthropic", "openai")


class Backend(ABC):
    """Turns a `SimulationRequest` into an `Outcome`. Backends never touch session state."""

    name: str
    model: str | None = None

    @abstractmethod
    async def simulate(self, request: SimulationRequest) -> Outcome: ...

    async def start(self) -> None:
        """Check that the backend can work (keys present, URL reachable); raise `ConfigError` if not."""
        return None

    def forget(self, request: SimulationRequest) -> None:
        """The outcome given for `request` failed the simulator's checks: don't give it again (caches)."""
        return None

    async def aclose(self) -> None:
        """Release clients and connections."""
        return None


def load_backend(settings: Settings) -> Backend:
    """The backend named by `settings.backend`, imported only when asked for."""
    from sim_mcp.errors import ConfigError

    backend: Backend
    match settings.backend:
        case "offline":
            from sim_mcp.simulation.backends.offline import OfflineBackend

            return OfflineBackend()
        case "openai":
            from sim_mcp.simulation.backends.openai import OpenAIBackend

            backend = OpenAIBackend(settings)
        case "anthropic":
            from sim_mcp.simulation.backends.anthropic import AnthropicBackend

            backend = AnthropicBackend(settings)
        case _:
            raise ConfigError(
                f"unknown backend {settings.backend!r} (--backend / SIM_MCP_BACKEND): expected one of "
                + ", ".join(BACKEND_NAMES)
            )
    if settings.response_cache > 0:
        from sim_mcp.simulation.cache import CachingBackend

        backend = CachingBackend(backend, settings.response_cache)
    return backend
