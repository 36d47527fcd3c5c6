"""A backend that counts what one environment's questions cost, in front of the batch's shared backend (whose
transport holds the provider's concurrency limit for every environment at once)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol, TypeVar

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import InvalidOutcome, JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.state.session import TokenUsage

__all__ = ["MeteredBackend"]


class _Used(Protocol):
    @property
    def usage(self) -> TokenUsage: ...


_Reply = TypeVar("_Reply", bound=_Used)


class MeteredBackend(Backend):
    """Passes every request to `inner`, adding up the tokens of each reply (usable or not) and the requests.
    Starting and closing stay with whoever owns `inner`."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.tokens = TokenUsage()
        self.requests = 0

    async def simulate(self, request: SimulationRequest) -> Outcome:
        return await self._counted(self.inner.simulate(request))

    def forget(self, request: SimulationRequest) -> None:
        self.inner.forget(request)

    def can_complete(self) -> bool:
        return self.inner.can_complete()

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        return await self._counted(self.inner.complete_json(request))

    async def _counted(self, asked: Awaitable[_Reply]) -> _Reply:
        """One request: its reply's tokens added up, or an unusable reply's (which the model was paid for too)."""
        self.requests += 1
        try:
            reply = await asked
        except InvalidOutcome as e:
            self.tokens = self.tokens + e.usage
            raise
        self.tokens = self.tokens + reply.usage
        return reply
