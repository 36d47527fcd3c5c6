"""Simulator backends: one module each, behind one interface.

`offline` (deterministic, no network; the default), `anthropic`, `openai` (also any
OpenAI-compatible server), `replay` (answers from a cassette recorded by `--record`), `function`
(a Python callable: for tests and scripted outcomes).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.errors import BackendError

if TYPE_CHECKING:
    from sim_mcp.config import Settings

__all__ = ["BACKEND_NAMES", "Backend", "load_backend"]

BACKEND_NAMES = ("offline", "anthropic", "openai", "replay")


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

    def can_complete(self) -> bool:
        """Whether `complete_json` works: the backend has a model to ask (the LLM backends do)."""
        return False

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        """Ask the backend's model for one JSON object fitting `request.schema` (the reward judge uses it).
        Raises `InvalidOutcome` for a reply that is not such an object, `BackendError` when the provider fails."""
        raise BackendError(self.name, "this backend has no model to ask: use an LLM backend (openai or anthropic)")


def load_backend(settings: Settings) -> Backend:
    """The backend named by `settings.backend`, imported only when asked for."""
    from sim_mcp.errors import ConfigError

    backend: Backend
    if settings.backend != "replay":
        for value, flag in ((settings.cassette, "--cassette"), (settings.replay_fallback, "--replay-fallback")):
            if value is not None:
                raise ConfigError(
                    f"{flag} is only read by --backend replay (SIM_MCP_BACKEND=replay), "
                    f"but the backend is {settings.backend!r}"
                )
    match settings.backend:
        case "offline":
            from sim_mcp.engine.backends.offline import OfflineBackend

            return OfflineBackend()
        case "openai":
            from sim_mcp.engine.backends.openai import OpenAIBackend

            backend = OpenAIBackend(settings)
        case "anthropic":
            from sim_mcp.engine.backends.anthropic import AnthropicBackend

            backend = AnthropicBackend(settings)
        case "replay":
            return _replay_backend(settings)
        case _:
            raise ConfigError(
                f"unknown backend {settings.backend!r} (--backend / SIM_MCP_BACKEND): expected one of "
                + ", ".join(BACKEND_NAMES)
            )
    if settings.response_cache > 0:
        from sim_mcp.engine.cache import CachingBackend

        backend = CachingBackend(backend, settings.response_cache)
    return backend


def _replay_backend(settings: Settings) -> Backend:
    from sim_mcp.engine.backends.replay import ReplayBackend
    from sim_mcp.errors import ConfigError

    if settings.cassette is None:
        raise ConfigError(
            "backend replay needs a cassette: give --cassette FILE (SIM_MCP_CASSETTE), a file written by --record"
        )
    fallback: Backend | None = None
    if settings.replay_fallback is not None:
        if settings.replay_fallback == "replay":
            raise ConfigError(
                "--replay-fallback: expected another backend to simulate what the cassette lacks "
                f"({', '.join(name for name in BACKEND_NAMES if name != 'replay')}), got 'replay'"
            )
        fallback = load_backend(
            settings.model_copy(update={"backend": settings.replay_fallback, "cassette": None, "replay_fallback": None})
        )
    return ReplayBackend(settings.cassette, fallback)
