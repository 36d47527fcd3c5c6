"""The `replay` backend: answers from a cassette written by `--record`, with no model and no network.

A call is looked up by `cache_key(request)` (environment version, tool, arguments, state before the
call). A situation recorded several times gives its answers back in recorded order: the n-th time a
session meets it, the n-th answer recorded for a session of the same id (else for any session), the
last one once they run out. So an evaluation run again against the cassette, with the same session
ids, gets the results it got when it was recorded.

A situation the cassette lacks is a `ReplayMiss` (the simulator answers it with an error result), or
goes to the fallback backend (`--replay-fallback`) when there is one.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Self

import anyio.to_thread

from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.cache import cache_key
from sim_mcp.engine.cassette import CassetteEntry, call_key, read_cassette
from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.errors import ConfigError, ReplayMiss
from sim_mcp.plugins import BACKENDS
from sim_mcp.state.session import TokenUsage

if TYPE_CHECKING:
    from sim_mcp.config import LlmConfig
    from sim_mcp.rules import Limits

__all__ = ["ReplayBackend", "ReplayMiss"]


class ReplayBackend(Backend):
    """Answers from the cassette at `path` (read by `start`), else from `fallback` when given."""

    name = "replay"

    def __init__(self, path: Path, fallback: Backend | None = None) -> None:
        self.path = path
        self.fallback = fallback
        self.model = fallback.model if fallback is not None else None
        self.hits = 0
        self.misses = 0
        self._entries: dict[str, list[CassetteEntry]] = {}
        # (session, key) -> how many times the session has met that situation.
        self._seen: defaultdict[tuple[str, str], int] = defaultdict(int)

    @classmethod
    def from_config(cls, settings: LlmConfig, limits: Limits | None = None) -> Self:
        """The cassette (`--cassette`) and the backend for calls it lacks (`--replay-fallback`)."""
        from sim_mcp.engine.backends import load_backend

        if settings.cassette is None:
            raise ConfigError(
                "backend replay needs a cassette: give --cassette FILE (SIM_MCP_CASSETTE), a file written by --record"
            )
        if settings.replay_fallback is None:
            return cls(settings.cassette)
        if settings.replay_fallback == cls.name:
            others = ", ".join(name for name in BACKENDS.builtin() if name != cls.name)
            raise ConfigError(
                f"--replay-fallback: expected another backend to simulate what the cassette lacks ({others}), "
                "got 'replay'"
            )
        fallback = load_backend(
            settings.model_copy(
                update={"backend": settings.replay_fallback, "cassette": None, "replay_fallback": None}
            ),
            limits,
        )
        return cls(settings.cassette, fallback)

    async def start(self) -> None:
        entries = await anyio.to_thread.run_sync(read_cassette, self.path)
        by_key: dict[str, list[CassetteEntry]] = {}
        for entry in entries:
            by_key.setdefault(entry.key, []).append(entry)
        self._entries = by_key
        if self.fallback is not None:
            await self.fallback.start()

    def __len__(self) -> int:
        """How many outcomes the cassette holds."""
        return sum(len(entries) for entries in self._entries.values())

    async def simulate(self, request: SimulationRequest) -> Outcome:
        key = cache_key(request)
        entries = self._entries.get(key)
        if not entries:  # a real server's recorded call: keyed by tool and arguments alone
            key = call_key(request.tool.name, request.arguments)
            entries = self._entries.get(key)
        if not entries:
            self.misses += 1
            if self.fallback is None:
                raise ReplayMiss(self.path, request.tool.name, request.environment.name, request.environment.version)
            outcome = await self.fallback.simulate(request)
            note = f"not in the cassette: simulated by {self.fallback.name}"
            return outcome.model_copy(update={"note": f"{note}; {outcome.note}" if outcome.note else note})
        self.hits += 1
        own = [entry for entry in entries if entry.session == request.session_id] or entries
        seen = self._seen[(request.session_id, key)]
        self._seen[(request.session_id, key)] = seen + 1
        entry = own[min(seen, len(own) - 1)]
        return entry.outcome.model_copy(deep=True, update={"usage": TokenUsage(), "note": "replayed from the cassette"})

    def can_complete(self) -> bool:
        return self.fallback is not None and self.fallback.can_complete()

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        if self.fallback is None:
            return await super().complete_json(request)
        return await self.fallback.complete_json(request)

    def forget(self, request: SimulationRequest) -> None:
        if self.fallback is not None:
            self.fallback.forget(request)

    async def aclose(self) -> None:
        if self.fallback is not None:
            await self.fallback.aclose()
