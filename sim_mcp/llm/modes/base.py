"""What an output mode is: how a model is asked to answer a call, and how its answer becomes an outcome.

A mode owns its instructions (the rules of the answer in the static prompt, and the closing that restates
the reply's form), the schema its reply is decoded against, the text that asks for a shorter reply, and
`finish`, which turns what was read from the reply into the finished `Outcome` (or raises `InvalidOutcome`
with what to fix). The backend asks and reads; the simulator checks and commits; neither knows the modes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from sim_mcp.engine.contract import Outcome, SimulationRequest
from sim_mcp.llm.profiles import ModelProfile
from sim_mcp.rules import Limits
from sim_mcp.specs.model import Environment, LlmOutput, ToolSpec

__all__ = ["Answering", "Mode", "ModeChooser", "ModeContext"]


@dataclass(frozen=True, slots=True)
class ModeContext:
    """What a mode reads besides the call: the model's profile and the limits of a program it writes."""

    profile: ModelProfile
    limits: Limits


class Mode(ABC):
    """One way a model answers a call."""

    name: LlmOutput
    # What a reply cut off at `max_tokens` is asked to be instead.
    shorter: str

    @abstractmethod
    def instructions(self, environment: Environment, tool: ToolSpec | None, profile: ModelProfile) -> str:
        """The rules of the answer, in the static prompt (the same bytes for every call of `tool`)."""

    @abstractmethod
    def closing(self, tool: ToolSpec) -> str:
        """The last lines of the prompt: the reply's form, restated after the untrusted data."""

    @abstractmethod
    def schema(self, request: SimulationRequest) -> dict[str, Any]:
        """The JSON Schema a reply must fit, for constrained decoding."""

    @abstractmethod
    def finish(self, read: Outcome, request: SimulationRequest, context: ModeContext) -> Outcome:
        """The outcome of the call from what was read of the reply; `InvalidOutcome` with what to fix."""


@dataclass(frozen=True, slots=True)
class Answering:
    """How one attempt of a call is answered: in `mode`, asked `request`, and whether it is a fallback to
    patch mode after program mode gave no valid answer (auto)."""

    mode: Mode
    request: SimulationRequest
    fallback: bool = False


class ModeChooser(ABC):
    """An output mode that picks another per call and attempt (`auto`)."""

    name: LlmOutput

    @abstractmethod
    def answering(self, request: SimulationRequest) -> Answering:
        """The mode of this attempt of the call, and the request to ask it."""
