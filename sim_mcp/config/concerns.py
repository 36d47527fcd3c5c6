"""The settings, one object per concern: what the specs, the server, the session store, the engine, the LLM
layer, the injected faults and the episodes each read.

Every field here is a setting: the flag `--some-name` and the variable `SIM_MCP_SOME_NAME` (`Settings`
composes these objects into the flat settings the command line and the environment fill). A part of the
program takes the objects of the concerns it reads (the simulator `EngineConfig`, an LLM backend
`LlmConfig`...), so what it depends on is written in its signature, and a test builds it without a server's
worth of settings. A command offers the flags of the concerns it uses (`CONCERNS`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sim_mcp.plugins import BACKENDS, OUTPUT_MODES, STORES
from sim_mcp.specs.bundled import default_specs
from sim_mcp.specs.model import Latency, LlmOutput

__all__ = [
    "CONCERNS",
    "CONCERN_CONFIGS",
    "Concern",
    "EngineConfig",
    "EpisodesConfig",
    "FaultsConfig",
    "LlmConfig",
    "ServerConfig",
    "SpecsConfig",
    "StoreConfig",
]


def _cache_dir() -> Path:
    """`$XDG_CACHE_HOME/sim-mcp`, else `~/.cache/sim-mcp`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sim-mcp"


class Concern(BaseModel):
    """The settings one concern reads; each field is a setting of the same name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def of(cls, settings: Concern) -> Self:
        """This concern's part of `settings`: a `Settings`, which composes every concern, or this concern's
        object (returned as it is). The values are those the settings validated, not validated again."""
        if type(settings) is cls:
            return settings
        missing = [name for name in cls.model_fields if name not in type(settings).model_fields]
        if missing:
            raise TypeError(f"{cls.__name__}.of: expected Settings or {cls.__name__}, got {type(settings).__name__}")
        return cls.model_construct(**{name: getattr(settings, name) for name in cls.model_fields})


class SpecsConfig(Concern):
    """Where the tool specs are read from."""

    specs: list[Path] = Field(
        default_factory=default_specs,
        description="Spec files or folders (default ./tool_specs, else the bundled examples).",
    )


class ServerConfig(Concern):
    """The transports: HTTP and stdio, their limits and the sessions a server holds."""

    transport: Literal["stdio", "http"] = Field(default="http", description="Serve over stdio or Streamable HTTP.")
    host: str = Field(default="127.0.0.1", description="HTTP bind address.")
    port: int = Field(default=8765, ge=0, le=65535, description="HTTP port (0: any free port).")
    workers: int = Field(
        default=1, ge=1, le=256, description="HTTP server processes sharing the port (sessions need a Redis store)."
    )
    stateless_http: bool = Field(
        default=False,
        description="Keep no handshake state in the process (replicas, --workers): clients name sessions in the URL.",
    )
    token: str | None = Field(default=None, description="Bearer token required on HTTP routes but health.")
    allowed_hosts: list[str] = Field(default_factory=list, description="Extra Host headers to accept over HTTP.")
    watch: bool = Field(default=True, description="Reload spec files when they change (hot reload).")
    max_sessions: int = Field(default=100_000, ge=1, description="Most sessions held at once.")
    session_ttl: float = Field(
        default=0, ge=0, description="Seconds without calls after which a session is deleted; 0 keeps them."
    )
    connection_idle_timeout: float = Field(
        default=1800,
        gt=0,
        description="Seconds a handshake-era HTTP connection (Mcp-Session-Id) may sit idle before it is closed; "
        "the session's state stays.",
    )
    max_request_bytes: int = Field(default=4 * 1024 * 1024, gt=0, description="Largest HTTP request body accepted.")
    rate_limit: float = Field(default=0, ge=0, description="Tool calls per second per session; 0 for no limit.")
    log_format: Literal["text", "json"] = Field(default="text", description="Log lines as text or JSON.")
    default_session: str = Field(default="default", description="Session of modern-era HTTP calls naming none.")


class StoreConfig(Concern):
    """Where sessions are kept."""

    store: str = Field(
        default="memory",
        description=f"Session store, by URL: {'; '.join(STORES.entry(name).help for name in STORES.builtin())}.",
    )


class EngineConfig(Concern):
    """What the engine needs to answer one call: the seed of new sessions, its size limits, and whether and
    within what budget rules programs run."""

    seed: int = Field(default=0, description="Seed of new sessions (the offline simulator and faults draw from it).")
    max_state_bytes: int = Field(
        default=1_000_000, gt=0, description="Largest world state of one session, as compact JSON in UTF-8 bytes."
    )
    run_rules: bool = Field(
        default=True,
        description="Answer the tools that have a rules program by running it (false: the backend answers all).",
    )
    rules_max_steps: int = Field(
        default=2_000_000, ge=1000, description="Bytecode steps a rules program may take per call (docs/formats.md)."
    )
    rules_timeout_ms: float = Field(default=1000, gt=0, description="Time a rules program may take per call.")
    max_argument_bytes: int = Field(
        default=256_000, gt=0, description="Largest arguments of one call, as compact JSON in UTF-8 bytes."
    )


class LlmConfig(Concern):
    """The backend and what the LLM layer reads: the model, the request limits, the prompt's budgets, how a
    call is answered and the model profile; the replay backend's cassette and fallback."""

    backend: str = Field(
        default="offline",
        description=f"Simulator backend: {BACKENDS.listing()}, or one a package registers (docs/architecture.md, "
        '"Where to add").',
    )
    offline_unknown: Literal["error", "generate"] = Field(
        default="error",
        description="What the offline backend answers for a tool it cannot read that does not say it only reads: "
        "an error naming the ways to simulate it, or generated data with the state unchanged.",
    )
    model: str | None = Field(default=None, description="Model name for the LLM backends.")
    base_url: str | None = Field(
        default=None, description="Provider URL, e.g. an OpenAI-compatible server (vLLM, Ollama, llama.cpp)."
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature of the LLM backends.")
    max_tokens: int = Field(default=2048, gt=0, description="Most tokens an LLM backend may write per call.")
    timeout_s: float = Field(
        default=60.0, gt=0, description="Seconds an LLM request may take; past it, it is cancelled, then retried."
    )
    max_attempts: int = Field(default=3, ge=1, le=10, description="Tries per call before an honest error.")
    backend_concurrency: int = Field(default=16, ge=1, description="Requests in flight per backend.")
    llm_output: LlmOutput = Field(
        default="patch",
        description="How an LLM backend answers a call: "
        + "; ".join(f"{name} ({OUTPUT_MODES.entry(name).help})" for name in OUTPUT_MODES.builtin())
        + " (docs/formats.md).",
    )
    model_profile: str = Field(
        default="auto",
        description="What the model's family needs (habit rewrites, error hints, prompt variant): auto (by the "
        "model's name), none, or a profile's name (docs/architecture.md, \"Model profiles\").",
    )
    history_events: int = Field(default=4, ge=0, description="Recent events shown to the simulator.")
    state_budget_chars: int = Field(default=24_000, gt=0, description="State larger than this is trimmed.")
    provider_retries: int = Field(
        default=3, ge=0, le=10, description="SDK retries (backoff, jitter) on 429, 5xx and connection errors."
    )
    response_format_memory: Path | None = Field(
        default_factory=lambda: _cache_dir() / "response-formats.json",
        description="File remembering the response format each LLM base URL accepted, for later processes.",
    )
    response_cache: int = Field(default=0, ge=0, description="Entries of the response cache; 0 turns it off.")
    cassette: Path | None = Field(default=None, description="Cassette the replay backend answers from.")
    replay_fallback: str | None = Field(default=None, description="Backend for calls the cassette lacks.")


class FaultsConfig(Concern):
    """Faults injected into calls, server-wide (docs/training.md); all None: none."""

    fault_error_rate: float | None = Field(default=None, ge=0, le=1, description="Share of calls failing.")
    fault_timeout_rate: float | None = Field(default=None, ge=0, le=1, description="Share of calls timing out.")
    fault_timeout_ms: float | None = Field(default=None, ge=0, description="How long a timed-out call takes.")
    fault_malformed_rate: float | None = Field(default=None, ge=0, le=1, description="Share of truncated results.")
    fault_latency_ms: float | Latency | None = Field(default=None, description="Added latency, fixed or drawn.")
    fault_seed: int | None = Field(default=None, description="Seed of the fault draws.")

    @field_validator("fault_latency_ms", mode="before")
    @classmethod
    def _latency(cls, value: Any) -> float | Latency | None:
        return None if value is None else Latency.of(value)


class EpisodesConfig(Concern):
    """Training and evaluation (docs/training.md): trajectories, recordings and the adaptive curriculum."""

    trajectories: Path | None = Field(default=None, description="Folder of per-session event logs (JSON Lines).")
    record: Path | None = Field(default=None, description="Cassette file that checked outcomes are appended to.")
    # The adaptive curriculum (docs/users.md): after `window` rewards at a level, up at a mean of `up` or more,
    # down at a mean of `down` or less (TRUSTEE's thresholds).
    curriculum_window: int = Field(default=5, ge=1, le=10_000, description="Episodes per difficulty decision.")
    curriculum_up: float = Field(default=0.5, description="Mean reward at or above which difficulty goes up.")
    curriculum_down: float = Field(default=0.0, description="Mean reward at or below which difficulty goes down.")


# Each concern's object by the name a command gives it (cli/flags.py), in the order of `--help`.
CONCERN_CONFIGS: Mapping[str, type[Concern]] = MappingProxyType(
    {
        "specs": SpecsConfig,
        "server": ServerConfig,
        "store": StoreConfig,
        "engine": EngineConfig,
        "llm": LlmConfig,
        "faults": FaultsConfig,
        "episodes": EpisodesConfig,
    }
)

# The settings (flags) of each concern: its object's fields. Every setting is in exactly one.
CONCERNS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {name: tuple(config.model_fields) for name, config in CONCERN_CONFIGS.items()}
)
