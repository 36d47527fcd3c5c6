"""What the LLM backends share: an environment's own model settings, and provider errors made ours."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.errors import BackendError, ConfigError

# Long enough to explain, short enough for a tool result and a log line.
_MESSAGE_CHARS = 500


def model_for(request: SimulationRequest, default: str | None, backend: str) -> str:
    """The environment's `model_settings.model`, else the server's `--model`."""
    settings = request.environment.model_settings
    model = (settings.model if settings is not None else None) or default
    if model is None:
        raise BackendError(backend, "no model: give --model / SIM_MCP_MODEL")
    return model


def temperature_for(request: SimulationRequest, default: float) -> float:
    settings = request.environment.model_settings
    return settings.temperature if settings is not None and settings.temperature is not None else default


def max_tokens_for(request: SimulationRequest, default: int) -> int:
    settings = request.environment.model_settings
    return settings.max_tokens if settings is not None and settings.max_tokens is not None else default


@dataclass(frozen=True)
class ErrorTranslator:
    """Turns one SDK's exceptions into `BackendError`s, never carrying the API key (nor anything shaped
    like one) in the message. The SDK's classes are given, so each backend names its own."""

    backend: str
    provider: str
    timeout_error: type[BaseException]
    connection_error: type[BaseException]
    status_error: type[BaseException]
    secret: re.Pattern[str]

    def __call__(
        self, error: BaseException, *, model: str, base_url: str | None, timeout_s: float, api_key: str | None
    ) -> BackendError:
        status: int | None = None
        if isinstance(error, self.timeout_error):
            message = f"no reply within {timeout_s:g}s"
        elif isinstance(error, self.connection_error):
            message = f"cannot reach {base_url or self.provider}: {describe_cause(error)}"
        elif isinstance(error, self.status_error):
            message = status_message(error)
            status = getattr(error, "status_code", None)
        else:
            message = str(error)
        return BackendError(self.backend, self.redact(message, api_key), model=model, status=status)

    def redact(self, message: str, api_key: str | None) -> str:
        if api_key:
            message = message.replace(api_key, "***")
        return self.secret.sub(r"\1***", message)[:_MESSAGE_CHARS]


async def check_reachable(probe: Callable[[], Awaitable[object]], translate: ErrorTranslator, where: str) -> None:
    """Start-up check of a base URL: any HTTP answer will do (a server without the probed route, or one
    that wants a key there, still answered); no connection is a `ConfigError` naming `where`."""
    try:
        await probe()
    except translate.status_error:
        pass
    except translate.connection_error as e:
        raise ConfigError(f"cannot reach {where}: {describe_cause(e)}") from e


def status_message(error: Any) -> str:
    """The provider's own explanation from an error body (`{"error": {"message": ...}}`), else the SDK's."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        detail = inner.get("message") if isinstance(inner, dict) else inner
        if detail:
            return str(detail)
    return str(getattr(error, "message", error))


def describe_cause(error: BaseException) -> str:
    cause = error.__cause__ or error.__context__
    return f"{error} ({cause})" if cause is not None and str(cause) else str(error)
