"""Prompt growth: the prompt an LLM backend is sent at calls 1, 10, 100 and 500 of one session whose
state stays the same size, against a naive prompt that carries the whole transcript.

In process, no server: the simulator runs with the offline backend (so the state changes as calls
say) wrapped in a backend that builds, for every call, the prompt the LLM backends send
(`sim_mcp.llm.modes.prompt_for`, with the default settings) and the naive one (the same
builder given every event of the session, with no limit on history or state). The calls alternate
`update_ticket` on T-1001 between two priorities, so the state keeps its size while events pile up.
Tokens are characters / 4 (no tokenizer is installed).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import anyio

from benchmarks.report import Figure, Target
from benchmarks.servers import BUNDLED_SPECS
from sim_mcp.config import Settings
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.backends.offline import OfflineBackend
from sim_mcp.engine.contract import Outcome, SimulationRequest
from sim_mcp.engine.simulator import Simulator
from sim_mcp.llm.modes import fixed_mode, prompt_for
from sim_mcp.specs.registry import load_catalog
from sim_mcp.state.stores.memory import MemoryStore

SECTION = "4 prompt growth"
CHECKPOINTS = (1, 10, 100, 500)
TARGET = Target(1.5)


def tokens(chars: int) -> float:
    return chars / 4


class PromptSizes(Backend):
    """The offline backend, recording the size of both prompts for every call it answers."""

    name = "offline"

    def __init__(self, settings: Settings, store: MemoryStore) -> None:
        self.inner = OfflineBackend()
        self.settings = settings
        self.store = store
        self.sizes: list[tuple[int, int]] = []

    async def simulate(self, request: SimulationRequest) -> Outcome:
        bounded = prompt_for(
            request,
            fixed_mode("patch"),
            history_events=self.settings.history_events,
            state_budget_chars=self.settings.state_budget_chars,
        )
        transcript = await self.store.events(request.session_id)
        naive = prompt_for(
            replace(request, recent_events=transcript),
            fixed_mode("patch"),
            history_events=sys.maxsize,
            state_budget_chars=sys.maxsize,
        )
        self.sizes.append((len(bounded.system) + len(bounded.user), len(naive.system) + len(naive.user)))
        return await self.inner.simulate(request)


async def _sizes(calls: int) -> list[tuple[int, int]]:
    # run_rules off: the tickets tools have rules programs, which would answer every call with no backend.
    settings = Settings(specs=[BUNDLED_SPECS], run_rules=False)
    store = MemoryStore()
    backend = PromptSizes(settings, store)
    catalog = load_catalog(*settings.specs)
    simulator = Simulator(lambda: catalog, backend, store, settings, llm=settings, faults=None)
    for i in range(calls):
        arguments: dict[str, Any] = {"ticket_id": "T-1001", "priority": "low" if i % 2 else "high"}
        outcome = await simulator.call("prompt-growth", "update_ticket", arguments)
        if outcome.is_error:
            raise RuntimeError(f"update_ticket failed at call {i + 1}: {outcome.result}")
    return backend.sizes


def measure(quick: bool) -> list[Figure]:
    sizes = anyio.run(_sizes, max(CHECKPOINTS))
    if len(sizes) < max(CHECKPOINTS):
        raise RuntimeError(f"the backend answered {len(sizes)} of {max(CHECKPOINTS)} calls: something else answered")
    figures = [
        Figure(
            SECTION,
            f"prompt tokens at call {n} (baseline: naive transcript)",
            tokens(sizes[n - 1][0]),
            "tok",
            tokens(sizes[n - 1][1]),
        )
        for n in CHECKPOINTS
    ]
    first, last = CHECKPOINTS[1], CHECKPOINTS[-1]
    figures.append(
        Figure(
            SECTION,
            f"growth: call {last} vs call {first}",
            tokens(sizes[last - 1][0]),
            "tok",
            tokens(sizes[first - 1][0]),
            TARGET,
        )
    )
    figures.append(
        Figure(
            SECTION,
            f"naive growth: call {last} vs call {first}",
            tokens(sizes[last - 1][1]),
            "tok",
            tokens(sizes[first - 1][1]),
        )
    )
    return figures
