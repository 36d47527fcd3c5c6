"""A backend whose outcomes a test scripts (pydantic-ai's `FunctionModel`, httpx's `MockTransport`)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.errors import BackendError
from sim_mcp.llm.reply import outcome_from_object

__all__ = ["Answer", "FunctionBackend", "Script", "scripted"]

Answer = Outcome | Mapping[str, Any]
"""An outcome, or a reply object (`{"result", "is_error", "state_patch"}`) read as a model's reply is."""
Script = Callable[[SimulationRequest], Answer | Awaitable[Answer]]
Completion = Callable[[JsonRequest], JsonReply | Mapping[str, Any] | Awaitable[JsonReply | Mapping[str, Any]]]


class FunctionBackend(Backend):
    """A backend that answers each call with what `function(request)` returns (an `Outcome`, or a reply object
    parsed as an LLM's reply is, so a bad one raises `InvalidOutcome` and the simulator asks again);
    `complete`, when given, answers `complete_json` (the reward judge, task generation). Every request is
    kept, in order, in `requests` (and `completions`), for the test to read what the simulator asked."""

    def __init__(
        self,
        function: Script,
        *,
        complete: Completion | None = None,
        name: str = "function",
        model: str | None = None,
    ) -> None:
        self.function = function
        self.complete = complete
        self.name = name
        self.model = model
        self.requests: list[SimulationRequest] = []
        self.completions: list[JsonRequest] = []

    async def simulate(self, request: SimulationRequest) -> Outcome:
        self.requests.append(request)
        answer = self.function(request)
        if inspect.isawaitable(answer):
            answer = await answer
        return answer if isinstance(answer, Outcome) else outcome_from_object(dict(answer))

    def can_complete(self) -> bool:
        return self.complete is not None

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        if self.complete is None:
            return await super().complete_json(request)
        self.completions.append(request)
        reply = self.complete(request)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply if isinstance(reply, JsonReply) else JsonReply(dict(reply))


def scripted(*answers: Answer, name: str = "scripted") -> FunctionBackend:
    """A backend that answers the calls with `answers`, one each, in order; a call past the last is a
    `BackendError` naming how many there were."""
    queue = list(answers)

    def next_answer(request: SimulationRequest) -> Answer:
        if not queue:
            raise BackendError(name, f"the script's {len(answers)} answers are spent: {request.tool.name} asked again")
        return queue.pop(0)

    return FunctionBackend(next_answer, name=name)
