"""What the LLM layer reads of the settings, in one object built from `Settings`.

Flags and `SIM_MCP_*` variables stay those of `Settings` (`--model`, `--timeout-s`, `--llm-output`,
`--model-profile`...); the LLM layer takes this object, so what it depends on is written in one place and a
test can build it without a server's worth of settings.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from sim_mcp.config import Settings
from sim_mcp.rules import Limits
from sim_mcp.specs.model import LlmOutput

__all__ = ["LlmConfig"]


class LlmConfig(BaseModel):
    """The model, the request limits, the prompt's budgets, how a call is answered and the model profile."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    model: str | None = None
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int = 2048
    timeout_s: float = 60.0
    provider_retries: int = 3
    concurrency: int = 16
    response_format_memory: Path | None = None
    history_events: int = 4
    state_budget_chars: int = 24_000
    # How a call is answered when its environment does not say (`model_settings.llm_output`).
    output: LlmOutput = "patch"
    # `auto` (chosen by the model's name), `none`, or a profile's name (llm/profiles).
    model_profile: str = "auto"
    # The limits of a program the model writes (the same as a rules program's).
    program_limits: Limits = Limits()

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmConfig:
        return cls(
            model=settings.model,
            base_url=settings.base_url,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            timeout_s=settings.timeout_s,
            provider_retries=settings.provider_retries,
            concurrency=settings.backend_concurrency,
            response_format_memory=settings.response_format_memory,
            history_events=settings.history_events,
            state_budget_chars=settings.state_budget_chars,
            output=settings.llm_output,
            model_profile=settings.model_profile,
            program_limits=Limits.of(settings),
        )

    @classmethod
    def of(cls, given: LlmConfig | Settings) -> LlmConfig:
        """`given` itself, or the config built from the settings given."""
        return given if isinstance(given, LlmConfig) else cls.from_settings(given)
