"""Simulator backends: one module each, behind one interface (`Backend`, in `base.py`), named in the table of
backends (`sim_mcp.plugins.BACKENDS`).

`offline` (deterministic, no network; the default), `anthropic`, `openai` (also any OpenAI-compatible
server), `replay` (answers from a cassette recorded by `--record`), or one a package registers. The two LLM
backends are the LLM layer's (`sim_mcp/llm/`: providers, transport, output modes, model profiles).
`load_backend` imports a backend only when it is asked for, and builds it with `Backend.from_config`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim_mcp.engine.backends.base import Backend
from sim_mcp.errors import ConfigError
from sim_mcp.plugins import BACKENDS

if TYPE_CHECKING:
    from sim_mcp.config import LlmConfig
    from sim_mcp.rules import Limits

__all__ = ["Backend", "backend_class", "load_backend"]


def load_backend(settings: LlmConfig, limits: Limits | None = None) -> Backend:
    """The backend named by `settings.backend`, imported only when asked for; `limits` bound the programs a
    model writes (the engine's, `Limits.of(engine)`; None: the default limits)."""
    if settings.backend != "replay":
        for value, flag in ((settings.cassette, "--cassette"), (settings.replay_fallback, "--replay-fallback")):
            if value is not None:
                raise ConfigError(
                    f"{flag} is only read by --backend replay (SIM_MCP_BACKEND=replay), "
                    f"but the backend is {settings.backend!r}"
                )
    kind = backend_class(settings.backend)
    backend: Backend = kind.from_config(settings, limits)
    if settings.response_cache > 0 and kind.cacheable:
        from sim_mcp.engine.cache import CachingBackend

        backend = CachingBackend(backend, settings.response_cache)
    return backend


def backend_class(name: str) -> type[Backend]:
    """The class of the backend `name` (`NotRegistered` naming every backend when there is none)."""
    kind = BACKENDS.load(name)
    if not (isinstance(kind, type) and issubclass(kind, Backend)):
        raise ConfigError(f"backend {name!r}: {kind!r} is not a Backend subclass")
    return kind
