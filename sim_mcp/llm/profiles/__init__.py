"""Model profiles: what one family of models needs that others don't, as data the LLM layer reads.

A `ModelProfile` holds the accommodations a family needs when it writes programs: rewrites of its habits
before a program is parsed, hints added to the interpreter's errors it is shown, the variant of the program
guide it reads, and how it quotes. The engine, the prompt and the program runtime never name a model; the
LLM layer picks a profile by the model's name (each family's module says which names are its), or by
`--model-profile` / `SIM_MCP_MODEL_PROFILE` (`auto`, `none`, or a profile's name), and reads its fields.
The default profile has none of them.
"""

from __future__ import annotations

from collections.abc import Callable

from sim_mcp.errors import ConfigError
from sim_mcp.llm.profiles import qwen
from sim_mcp.llm.profiles.base import ErrorHint, ModelProfile

__all__ = ["DEFAULT_PROFILE", "ErrorHint", "ModelProfile", "profile_for"]


DEFAULT_PROFILE = ModelProfile("default")


def _profiles() -> dict[str, tuple[ModelProfile, Callable[[str], bool]]]:
    """Every named profile, with the test of a model name that picks it under `auto`."""
    return {qwen.PROFILE.name: (qwen.PROFILE, qwen.matches)}


def profile_for(model: str | None, setting: str = "auto") -> ModelProfile:
    """The profile for `model` as `setting` (`--model-profile`) says: `auto` picks by the model's name
    (the default profile when no family claims it), `none` is the default profile, a name is that profile."""
    profiles = _profiles()
    if setting == "none":
        return DEFAULT_PROFILE
    if setting == "auto":
        found = next((profile for profile, matches in profiles.values() if model and matches(model)), None)
        return found if found is not None else DEFAULT_PROFILE
    if setting in profiles:
        return profiles[setting][0]
    raise ConfigError(
        f"unknown model profile {setting!r} (--model-profile / SIM_MCP_MODEL_PROFILE): expected one of "
        + ", ".join(["auto", "none", *sorted(profiles)])
    )
