"""The interface every backend implements: `simulate` a call, and optionally `complete_json` for judges."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Self

from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.errors import BackendError
from sim_mcp.plugins import BACKENDS

if TYPE_CHECKING:
    from sim_mcp.config import LlmConfig
    from sim_mcp.rules import Limits

__all__ = ["Backend"]


class Backend(ABC):
    """Turns a `SimulationRequest` into an `Outcome`. Backends never touch session state."""

    name: str
    model: str | None = None
    # Whether `--response-cache` may keep its answers (a backend that asks a model: the same call, the same
    # answer, without asking again).
    cacheable: ClassVar[bool] = False

    @classmethod
    def from_config(cls, settings: LlmConfig, limits: Limits | None = None) -> Self:
        """The backend `--backend NAME` stands for, built from the LLM settings (`limits`: those of the
        programs a model writes). By default it takes none of them."""
        return cls()

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
        with_model = " or ".join(BACKENDS.tagged("model"))
        raise BackendError(self.name, f"this backend has no model to ask: use an LLM backend ({with_model})")
