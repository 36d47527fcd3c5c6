"""Output modes: how a model answers one call (docs/formats.md, "Program mode of the LLM path").

`patch` (the default): the result and an RFC 6902 patch of the state. `program`: the tool's function, which
the LLM layer runs on a copy of the state. `auto`: one or the other per call (`auto.py`). Each mode is one
module owning its instructions, decoding schema and finishing step (`base.Mode`); `answering` picks the mode
of one attempt of a call (`mode_for`: only the mode), `prompt_for` builds its prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.llm.context import Prompt, build_prompt, static_prompt
from sim_mcp.llm.modes.auto import chosen_mode, falls_back
from sim_mcp.llm.modes.base import Mode, ModeContext
from sim_mcp.llm.modes.patch import PatchMode
from sim_mcp.llm.modes.program import ProgramMode
from sim_mcp.llm.profiles import DEFAULT_PROFILE, ModelProfile
from sim_mcp.specs.model import Environment, LlmOutput, ToolSpec

__all__ = ["MODES", "Answering", "Mode", "ModeContext", "answering", "mode_for", "prompt_for", "system_prompt"]

MODES: dict[str, Mode] = {"patch": PatchMode(), "program": ProgramMode()}


@dataclass(frozen=True, slots=True)
class Answering:
    """How one attempt of a call is answered: in `mode`, asked `request`, and whether it is auto's fallback
    to patch mode after program mode gave no valid answer."""

    mode: Mode
    request: SimulationRequest
    fallback: bool = False


def answering(request: SimulationRequest, configured: LlmOutput) -> Answering:
    """The mode of this attempt: its environment's `model_settings.llm_output`, else `configured`
    (`--llm-output`); `auto` chooses per call and attempt (`auto.py`)."""
    own = request.environment.model_settings
    chosen = own.llm_output if own is not None and own.llm_output is not None else configured
    if chosen != "auto":
        return Answering(MODES[chosen], request)
    if falls_back(request):
        # Its one attempt is asked afresh: the feedback so far is about programs.
        return Answering(MODES["patch"], replace(request, feedback=[]), fallback=True)
    return Answering(MODES[chosen_mode(request)], request)


def mode_for(request: SimulationRequest, configured: LlmOutput) -> Mode:
    """The mode of this attempt of the call (`answering`)."""
    return answering(request, configured).mode


def system_prompt(
    environment: Environment,
    tool: ToolSpec | None,
    mode: Mode | None = None,
    profile: ModelProfile = DEFAULT_PROFILE,
) -> str:
    """The static part of a call's prompt in `mode` (patch when None; without `tool`: every tool in full)."""
    mode = mode if mode is not None else MODES["patch"]
    return static_prompt(environment, tool, mode.instructions(environment, tool, profile))


def prompt_for(
    request: SimulationRequest,
    mode: Mode | None = None,
    *,
    history_events: int,
    state_budget_chars: int,
    profile: ModelProfile = DEFAULT_PROFILE,
    system: str | None = None,
) -> Prompt:
    """The prompt of one call in `mode` (patch when None); `system`: its static part, when the caller keeps
    it built."""
    mode = mode if mode is not None else MODES["patch"]
    if system is None:
        system = system_prompt(request.environment, request.tool, mode, profile)
    return build_prompt(
        request,
        system=system,
        closing=mode.closing(request.tool),
        history_events=history_events,
        state_budget_chars=state_budget_chars,
    )
