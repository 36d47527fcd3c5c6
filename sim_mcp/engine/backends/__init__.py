"""Simulator backends: one module each, behind one interface (`Backend`, in `base.py`).

`offline` (deterministic, no network; the default), `anthropic`, `openai` (also any
OpenAI-compatible server), `replay` (answers from a cassette recorded by `--record`). The two LLM
backends are the LLM layer's (`sim_mcp/llm/`: providers, transport, output modes, model profiles).
`load_backend` imports a backend only when it is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim_mcp.engine.backends.base import Backend

if TYPE_CHECKING:
    from sim_mcp.config import LlmConfig
    from sim_mcp.rules import Limits

__all__ = ["BACKEND_NAMES", "Backend", "load_backend"]

BACKEND_NAMES = ("offline", "anthropic", "openai", "replay")


def load_backend(settings: LlmConfig, limits: Limits | None = None) -> Backend:
    """The backend named by `settings.backend`, imported only when asked for; `limits` bound the programs a
    model writes (the engine's, `Limits.of(engine)`; None: the default limits)."""
    from sim_mcp.errors import ConfigError

    backend: Backend
    if settings.backend != "replay":
        for value, flag in ((settings.cassette, "--cassette"), (settings.replay_fallback, "--replay-fallback")):
            if value is not None:
                raise ConfigError(
                    f"{flag} is only read by --backend replay (SIM_MCP_BACKEND=replay), "
                    f"but the backend is {settings.backend!r}"
                )
    match settings.backend:
        case "offline":
            from sim_mcp.engine.backends.offline import OfflineBackend

            return OfflineBackend(settings.offline_unknown)
        case "openai":
            from sim_mcp.llm.providers.openai import OpenAIBackend

            backend = OpenAIBackend(settings, limits=limits)
        case "anthropic":
            from sim_mcp.llm.providers.anthropic import AnthropicBackend

            backend = AnthropicBackend(settings, limits=limits)
        case "replay":
            return _replay_backend(settings, limits)
        case _:
            raise ConfigError(
                f"unknown backend {settings.backend!r} (--backend / SIM_MCP_BACKEND): expected one of "
                + ", ".join(BACKEND_NAMES)
            )
    if settings.response_cache > 0:
        from sim_mcp.engine.cache import CachingBackend

        backend = CachingBackend(backend, settings.response_cache)
    return backend


def _replay_backend(settings: LlmConfig, limits: Limits | None) -> Backend:
    from sim_mcp.engine.backends.replay import ReplayBackend
    from sim_mcp.errors import ConfigError

    if settings.cassette is None:
        raise ConfigError(
            "backend replay needs a cassette: give --cassette FILE (SIM_MCP_CASSETTE), a file written by --record"
        )
    fallback: Backend | None = None
    if settings.replay_fallback is not None:
        if settings.replay_fallback == "replay":
            raise ConfigError(
                "--replay-fallback: expected another backend to simulate what the cassette lacks "
                f"({', '.join(name for name in BACKEND_NAMES if name != 'replay')}), got 'replay'"
            )
        fallback = load_backend(
            settings.model_copy(
                update={"backend": settings.replay_fallback, "cassette": None, "replay_fallback": None}
            ),
            limits,
        )
    return ReplayBackend(settings.cassette, fallback)
