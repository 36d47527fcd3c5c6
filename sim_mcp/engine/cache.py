"""A response cache in front of a backend, so an identical situation is not paid for twice.

Keyed by the environment's version, the tool, the arguments and the state (recent events and feedback
are not in the key: the same call on the same state should get the same answer). The cache cannot tell
a good outcome from a bad one: the simulator calls `forget(request)` when it rejects one.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any

from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.state.session import TokenUsage

__all__ = ["CachingBackend", "cache_key", "situation_key"]


class CachingBackend(Backend):
    """Wraps `inner`; remembers up to `max_entries` outcomes, least recently used evicted first."""

    def __init__(self, inner: Backend, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[str, Outcome] = OrderedDict()

    async def simulate(self, request: SimulationRequest) -> Outcome:
        key = cache_key(request)
        cached = self._entries.get(key)
        if cached is not None:
            self._entries.move_to_end(key)
            self.hits += 1
            # A deep copy: callers may change what they get without changing the cache. A hit is no fallback
            # of this call (llm/modes/auto.py), whatever the call that filled the entry came to.
            return cached.model_copy(deep=True, update={"usage": TokenUsage(), "note": "cache hit", "fallback": False})
        self.misses += 1
        outcome = await self.inner.simulate(request)
        self._entries[key] = outcome.model_copy(deep=True)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return outcome

    def forget(self, request: SimulationRequest) -> None:
        """Drop the outcome cached for this situation (it was rejected); no error if there is none."""
        self._entries.pop(cache_key(request), None)

    def __len__(self) -> int:
        return len(self._entries)

    def can_complete(self) -> bool:
        return self.inner.can_complete()

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        return await self.inner.complete_json(request)  # not cached: only simulated outcomes are

    async def start(self) -> None:
        await self.inner.start()

    async def aclose(self) -> None:
        await self.inner.aclose()


def cache_key(request: SimulationRequest) -> str:
    """sha256 of (environment version, tool, canonical arguments, canonical state)."""
    return situation_key(request.environment.version, request.tool.name, request.arguments, request.state)


def situation_key(version: str, tool: str, arguments: dict[str, Any], state: Any) -> str:
    """The key of a call in a state (`cache_key`), for a writer of cassettes that has no request at hand."""
    parts: list[Any] = [version, tool, arguments, state]
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
