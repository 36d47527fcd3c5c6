"""The `openai` backend: OpenAI Chat Completions, or any server that speaks it (vLLM, Ollama, llama.cpp).

Structured output first (`json_schema`). A server that rejects it (an error naming the response
format, or a bare 400 / 422) is asked again with `json_object` (with the schema, as llama.cpp's
server takes it; then without), then in plain text; the form that worked is kept for this backend's
later calls. Retries on 429, 5xx and connection errors are the SDK's own (exponential backoff with
jitter, `Retry-After` honoured); `SIM_MCP_PROVIDER_RETRIES` (Settings.provider_retries) sets how many.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, Literal, cast

import anyio
from openai import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AsyncOpenAI,
    OpenAIError,
)

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.backends._provider import (
    ErrorTranslator,
    check_reachable,
    max_tokens_for,
    model_for,
    temperature_for,
)
from sim_mcp.engine.contract import (
    InvalidOutcome,
    JsonReply,
    JsonRequest,
    Outcome,
    SimulationRequest,
    outcome_schema,
)
from sim_mcp.engine.parse import parse_json_object, parse_outcome
from sim_mcp.engine.prompt import build_prompt
from sim_mcp.errors import BackendError, ConfigError
from sim_mcp.state.session import TokenUsage

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion

    from sim_mcp.config import Settings

__all__ = ["OpenAIBackend"]

_KEY_VARIABLE = "OPENAI_API_KEY"
_URL_VARIABLE = "OPENAI_BASE_URL"
# Local servers need no key, but the SDK insists on one.
_PLACEHOLDER_KEY = "sim-mcp-no-key"
# What an OpenAI key looks like, so an echo of one in an error body is cut out too.
_SECRET = re.compile(r"\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-*]{8,}")
_START_TIMEOUT_S = 5.0
_ResponseMode = Literal["json_schema", "json_object_schema", "json_object", "text"]
_MODES: tuple[_ResponseMode, ...] = ("json_schema", "json_object_schema", "json_object", "text")


class OpenAIBackend(Backend):
    """Simulates calls with a Chat Completions model (`--backend openai`, optionally `--base-url`)."""

    name = "openai"

    def __init__(self, settings: Settings, *, api_key: str | None = None) -> None:
        self._settings = settings
        self._base_url = settings.base_url or os.environ.get(_URL_VARIABLE) or None
        self._api_key = api_key if api_key is not None else os.environ.get(_KEY_VARIABLE) or None
        self.model = settings.model
        self._translate = ErrorTranslator(
            self.name, "the OpenAI API", APITimeoutError, APIConnectionError, APIStatusError, _SECRET
        )
        self._limiter = anyio.CapacityLimiter(settings.backend_concurrency)
        self._mode_index = 0
        self._client: AsyncOpenAI | None = None
        if self._api_key is not None or self._base_url is not None:
            self._client = AsyncOpenAI(
                api_key=self._api_key or _PLACEHOLDER_KEY,
                base_url=self._base_url,
                timeout=settings.timeout_s,
                max_retries=settings.provider_retries,
            )

    async def start(self) -> None:
        if self._client is None:
            raise ConfigError(
                f"backend openai needs an API key: set {_KEY_VARIABLE}, or give --base-url / SIM_MCP_BASE_URL "
                f"(or {_URL_VARIABLE}) for an OpenAI-compatible server that needs none"
            )
        if self.model is None:
            raise ConfigError("backend openai needs a model: give --model / SIM_MCP_MODEL")
        if self._base_url is None:
            return
        client = self._client.with_options(max_retries=0, timeout=_START_TIMEOUT_S)
        where = f"the OpenAI-compatible server at {self._base_url} (--base-url / SIM_MCP_BASE_URL)"
        await check_reachable(client.models.list, self._translate, where)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()

    async def simulate(self, request: SimulationRequest) -> Outcome:
        model = model_for(request, self.model, self.name)
        if self._client is None:
            raise BackendError(self.name, f"no API key: set {_KEY_VARIABLE}", model=model)
        prompt = build_prompt(
            request,
            history_events=self._settings.history_events,
            state_budget_chars=self._settings.state_budget_chars,
        )
        messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}]
        params: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": temperature_for(request, self._settings.temperature),
            "seed": request.seed,
        }
        max_tokens = max_tokens_for(request, self._settings.max_tokens)
        params.update(self._token_limit(max_tokens))
        if self._base_url is None:
            # OpenAI's own API: a stable key helps its prompt cache.
            params["prompt_cache_key"] = f"sim-mcp-{request.environment.name}-{request.environment.version}"
        async with self._limiter:
            completion = await self._create(params, model, "outcome", outcome_schema(request))
        return self._process_response(completion, model, max_tokens)

    def can_complete(self) -> bool:
        return True

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        model = self.model
        if model is None:
            raise BackendError(self.name, "no model: give --model / SIM_MCP_MODEL")
        if self._client is None:
            raise BackendError(self.name, f"no API key: set {_KEY_VARIABLE}", model=model)
        max_tokens = self._settings.max_tokens
        params: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": request.system}, {"role": "user", "content": request.user}],
            "temperature": self._settings.temperature,
            **self._token_limit(max_tokens),
        }
        async with self._limiter:
            completion = await self._create(params, model, request.name, request.schema)
        content, usage = self._content(completion, model, max_tokens)
        try:
            value = parse_json_object(content, request.schema.get("required", ()))
        except InvalidOutcome as e:
            raise InvalidOutcome(self.name, e.reason, model=model, usage=usage) from None
        return JsonReply(value, usage)

    def _token_limit(self, max_tokens: int) -> dict[str, int]:
        # OpenAI's own API refuses `max_tokens` for reasoning models; compatible servers may know only it.
        return {"max_completion_tokens" if self._base_url is None else "max_tokens": max_tokens}

    async def _create(self, params: dict[str, Any], model: str, name: str, schema: dict[str, Any]) -> ChatCompletion:
        """One completion, stepping down the response formats while the server rejects them."""
        client = cast(AsyncOpenAI, self._client)
        index = self._mode_index
        while True:
            try:
                completion: ChatCompletion = await client.chat.completions.create(
                    **params, **_response_format(_MODES[index], name, schema)
                )
            except OpenAIError as e:
                if index + 1 < len(_MODES) and _format_rejected(e):
                    index += 1
                    continue
                raise self._translate(
                    e, model=model, base_url=self._base_url, timeout_s=self._settings.timeout_s, api_key=self._api_key
                ) from e
            # Later calls start from the form that worked.
            self._mode_index = index
            return completion

    def _process_response(self, completion: ChatCompletion, model: str, max_tokens: int) -> Outcome:
        content, usage = self._content(completion, model, max_tokens)
        try:
            outcome = parse_outcome(content)
        except InvalidOutcome as e:
            raise InvalidOutcome(self.name, e.reason, model=model, usage=usage) from None
        outcome.usage = usage
        return outcome

    def _content(self, completion: ChatCompletion, model: str, max_tokens: int) -> tuple[str, TokenUsage]:
        """The reply's text and usage; `InvalidOutcome` for a reply cut off, refused or empty."""
        usage = _usage(completion)
        if not completion.choices:
            raise InvalidOutcome(self.name, "the reply had no choices", model=model, usage=usage)
        choice = completion.choices[0]
        if choice.finish_reason == "length":
            raise InvalidOutcome(
                self.name,
                f"the reply was cut off at {max_tokens} tokens; answer with a shorter result",
                model=model,
                usage=usage,
            )
        content = choice.message.content
        if not content:
            refusal = choice.message.refusal
            reason = f"the model refused: {refusal}" if refusal else "the reply had no content"
            raise InvalidOutcome(self.name, reason, model=model, usage=usage)
        return content, usage


def _response_format(mode: _ResponseMode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    match mode:
        case "json_schema":
            return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}}
        case "json_object_schema":
            return {"response_format": {"type": "json_object", "schema": schema}}
        case "json_object":
            return {"response_format": {"type": "json_object"}}
        case "text":
            return {}


def _format_rejected(error: OpenAIError) -> bool:
    """Whether the server refused the request for its response format (not for something else)."""
    if not isinstance(error, APIStatusError):
        return False
    # Servers name the field, with a 400, a 422, or (llama.cpp's server) a 500.
    text = f"{error.message} {error.body}".lower()
    if any(word in text for word in ("response_format", "response format", "json_schema", "json_object")):
        return True
    # A bare refusal, nothing to go on: the format is the likeliest cause.
    return error.status_code in (400, 422) and not error.body


def _usage(completion: ChatCompletion) -> TokenUsage:
    usage = completion.usage
    if usage is None:
        return TokenUsage()
    details = usage.prompt_tokens_details
    cached = details.cached_tokens if details is not None and details.cached_tokens is not None else 0
    return TokenUsage(input=usage.prompt_tokens, output=usage.completion_tokens, cached=cached)
