"""The interface every backend implements: `simulate` a call, and optionally `complete_json` for judges."""

from __future__ import annotations

from abc import ABC, abstractmethod

from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.errors import BackendError

__all__ = ["Backend"]


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
