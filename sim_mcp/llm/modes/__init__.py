"""Output modes: how a model answers one call (docs/formats.md, "Program mode of the LLM path").

`patch` (the default): the result and an RFC 6902 patch of the state. `program`: the tool's function, which
the LLM layer runs on a copy of the state. `auto`: one or the other per call (`auto.py`, a `ModeChooser`).
Each mode is one module owning its instructions, decoding schema and finishing step (`base.Mode`), named in
the table of output modes (`sim_mcp.plugins.OUTPUT_MODES`); `answering` picks the mode of one attempt of a
call (`mode_for`: only the mode), `prompt_for` builds its prompt.
"""

from __future__ import annotations

from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.errors import ConfigError
from sim_mcp.llm.context import Prompt, build_prompt, static_prompt
from sim_mcp.llm.modes.base import Answering, Mode, ModeChooser, ModeContext
from sim_mcp.llm.profiles import DEFAULT_PROFILE, ModelProfile
from sim_mcp.plugins import OUTPUT_MODES
from sim_mcp.specs.model import Environment, LlmOutput, ToolSpec

__all__ = [
    "Answering",
    "Mode",
    "ModeChooser",
    "ModeContext",
    "answering",
    "fixed_mode",
    "mode_for",
    "output_mode",
    "prompt_for",
    "system_prompt",
]


def output_mode(name: str) -> Mode | ModeChooser:
    """The output mode `name` of the table of output modes (`NotRegistered` naming them when it has none)."""
    found = OUTPUT_MODES.load(name)
    if not isinstance(found, Mode | ModeChooser):
        raise ConfigError(f"output mode {name!r}: {found!r} is neither a Mode nor a ModeChooser")
    return found


def fixed_mode(name: str) -> Mode:
    """The output mode `name`, which must answer every call one way (not a chooser such as `auto`)."""
    found = output_mode(name)
    if not isinstance(found, Mode):
        raise ConfigError(f"output mode {name!r} chooses a mode per call: name the one it would choose")
    return found


def answering(request: SimulationRequest, configured: LlmOutput) -> Answering:
    """The mode of this attempt: its environment's `model_settings.llm_output`, else `configured`
    (`--llm-output`); a chooser (`auto`) chooses per call and attempt."""
    own = request.environment.model_settings
    chosen = output_mode(own.llm_output if own is not None and own.llm_output is not None else configured)
    return chosen.answering(request) if isinstance(chosen, ModeChooser) else Answering(chosen, request)


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
    mode = mode if mode is not None else fixed_mode("patch")
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
    mode = mode if mode is not None else fixed_mode("patch")
    if system is None:
        system = system_prompt(request.environment, request.tool, mode, profile)
    return build_prompt(
        request,
        system=system,
        closing=mode.closing(request.tool),
        history_events=history_events,
        state_budget_chars=state_budget_chars,
    )
