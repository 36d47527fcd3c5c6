"""Settings, from flags and `SIM_MCP_*` environment variables (flags win)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sim_mcp.errors import ConfigError
from sim_mcp.specs.bundled import default_specs
from sim_mcp.specs.model import Latency, LlmOutput

ENV_PREFIX = "SIM_MCP_"

# What each setting is about. A command names the concerns it reads and offers only their flags
# (cli/flags.py); a split of `Settings` into one object per concern would follow these groups. Every field
# is in exactly one (tests/test_cli_flags.py), so a new setting has to say what it is about.
CONCERNS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "specs": ("specs",),
        "server": (
            "transport",
            "host",
            "port",
            "workers",
            "stateless_http",
            "token",
            "allowed_hosts",
            "watch",
            "max_sessions",
            "session_ttl",
            "connection_idle_timeout",
            "max_request_bytes",
            "rate_limit",
            "log_format",
            "default_session",
        ),
        "store": ("store",),
        "engine": ("seed", "max_state_bytes", "run_rules", "rules_max_steps", "rules_timeout_ms", "max_argument_bytes"),
        "llm": (
            "backend",
            "model",
            "base_url",
            "temperature",
            "max_tokens",
            "timeout_s",
            "max_attempts",
            "backend_concurrency",
            "llm_output",
            "model_profile",
            "history_events",
            "state_budget_chars",
            "provider_retries",
            "response_format_memory",
            "response_cache",
            "cassette",
            "replay_fallback",
        ),
        "faults": (
            "fault_error_rate",
            "fault_timeout_rate",
            "fault_timeout_ms",
            "fault_malformed_rate",
            "fault_latency_ms",
            "fault_seed",
        ),
        "episodes": ("trajectories", "record", "curriculum_window", "curriculum_up", "curriculum_down"),
    }
)


def _cache_dir() -> Path:
    """`$XDG_CACHE_HOME/sim-mcp`, else `~/.cache/sim-mcp`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sim-mcp"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    specs: list[Path] = Field(
        default_factory=default_specs,
        description="Spec files or folders (default ./tool_specs, else the bundled examples).",
    )
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
    store: str = Field(default="memory", description="Session store: memory, sqlite:///PATH or redis://HOST:PORT/DB.")
    token: str | None = Field(default=None, description="Bearer token required on HTTP routes but health.")
    allowed_hosts: list[str] = Field(default_factory=list, description="Extra Host headers to accept over HTTP.")

    backend: str = Field(default="offline", description="Simulator backend: offline, anthropic, openai or replay.")
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
        description="How an LLM backend answers a call: patch (JSON Patch of the state), program (a short "
        "Starlark program the engine runs on the state, so arithmetic and copies are exact), or auto (program for "
        "a call whose tool changes the state, patch for a read; docs/formats.md).",
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

    watch: bool = Field(default=True, description="Reload spec files when they change (hot reload).")

    seed: int = Field(default=0, description="Seed of new sessions (the offline simulator and faults draw from it).")
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
    max_state_bytes: int = Field(default=1_000_000, gt=0, description="Largest world state of one session, as JSON.")
    run_rules: bool = Field(
        default=True,
        description="Answer the tools that have a rules program by running it (false: the backend answers all).",
    )
    rules_max_steps: int = Field(
        default=2_000_000, ge=1000, description="Bytecode steps a rules program may take per call (docs/formats.md)."
    )
    rules_timeout_ms: float = Field(default=1000, gt=0, description="Time a rules program may take per call.")
    max_request_bytes: int = Field(default=4 * 1024 * 1024, gt=0, description="Largest HTTP request body accepted.")
    rate_limit: float = Field(default=0, ge=0, description="Tool calls per second per session; 0 for no limit.")
    log_format: Literal["text", "json"] = Field(default="text", description="Log lines as text or JSON.")
    max_argument_bytes: int = Field(default=256_000, gt=0, description="Largest arguments of one call, as JSON.")
    default_session: str = Field(default="default", description="Session of modern-era HTTP calls naming none.")

    # Training and evaluation (docs/training.md).
    trajectories: Path | None = Field(default=None, description="Folder of per-session event logs (JSON Lines).")
    record: Path | None = Field(default=None, description="Cassette file that checked outcomes are appended to.")
    cassette: Path | None = Field(default=None, description="Cassette the replay backend answers from.")
    replay_fallback: str | None = Field(default=None, description="Backend for calls the cassette lacks.")
    fault_error_rate: float | None = Field(default=None, ge=0, le=1, description="Share of calls failing.")
    fault_timeout_rate: float | None = Field(default=None, ge=0, le=1, description="Share of calls timing out.")
    fault_timeout_ms: float | None = Field(default=None, ge=0, description="How long a timed-out call takes.")
    fault_malformed_rate: float | None = Field(default=None, ge=0, le=1, description="Share of truncated results.")
    fault_latency_ms: float | Latency | None = Field(default=None, description="Added latency, fixed or drawn.")
    fault_seed: int | None = Field(default=None, description="Seed of the fault draws.")

    # The adaptive curriculum (docs/users.md): after `window` rewards at a level, up at a mean of `up` or more,
    # down at a mean of `down` or less (TRUSTEE's thresholds).
    curriculum_window: int = Field(default=5, ge=1, le=10_000, description="Episodes per difficulty decision.")
    curriculum_up: float = Field(default=0.5, description="Mean reward at or above which difficulty goes up.")
    curriculum_down: float = Field(default=0.0, description="Mean reward at or below which difficulty goes down.")

    @field_validator("fault_latency_ms", mode="before")
    @classmethod
    def _latency(cls, value: Any) -> float | Latency | None:
        return None if value is None else Latency.of(value)

    @classmethod
    def load(cls, overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
        """Defaults, then `SIM_MCP_*` variables, then `overrides` (flags); None values are ignored."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            raw = environ.get(ENV_PREFIX + name.upper())
            if raw is None or raw == "":
                continue
            origin = getattr(field.annotation, "__origin__", None)
            values[name] = [part for part in raw.split(",") if part] if origin is list else raw
        values.update({key: value for key, value in (overrides or {}).items() if value is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as e:
            first = e.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else "?"
            source = f"--{name.replace('_', '-')} / {ENV_PREFIX}{name.upper()}"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ConfigError(f"{source}: {message} (got {first.get('input')!r})") from e
