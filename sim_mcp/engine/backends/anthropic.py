"""The `anthropic` backend: Claude through the Messages API.

The static part of the prompt is a system block marked `cache_control: ephemeral`, so calls of one
environment share a cached prefix. The outcome comes as the input of a forced tool call whose input
schema is the contract; a reply without that tool call is parsed as text. The Messages API (SDK 2.x)
takes no temperature: `--temperature` and an environment's `temperature` do not apply here. Retries on 429, 5xx, 529
and connection errors are the SDK's own (exponential backoff with jitter, `Retry-After` honoured).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import anyio
from anthropic import AnthropicError, APIConnectionError, APIStatusError, APITimeoutError, AsyncAnthropic

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.backends._provider import (
    ErrorTranslator,
    check_reachable,
    max_tokens_for,
    model_for,
)
from sim_mcp.engine.contract import (
    OUTCOME_SCHEMA,
    InvalidOutcome,
    JsonReply,
    JsonRequest,
    Outcome,
    SimulationRequest,
    outcome_schema,
)
from sim_mcp.engine.parse import outcome_from_object, parse_json_object, parse_outcome
from sim_mcp.engine.prompt import build_prompt
from sim_mcp.errors import BackendError, ConfigError
from sim_mcp.state.session import TokenUsage

if TYPE_CHECKING:
    from anthropic.types import Message, ToolChoiceToolParam, ToolParam

    from sim_mcp.config import Settings

__all__ = ["AnthropicBackend"]

_KEY_VARIABLE = "ANTHROPIC_API_KEY"
_TOKEN_VARIABLE = "ANTHROPIC_AUTH_TOKEN"
_URL_VARIABLE = "ANTHROPIC_BASE_URL"
# A gateway or test server may need no key, but requests must carry one.
_PLACEHOLDER_KEY = "sim-mcp-no-key"
# What an Anthropic key looks like, so an echo of one in an error body is cut out too.
_SECRET = re.compile(r"\b(sk-ant-[A-Za-z0-9]{2})[A-Za-z0-9_\-*]{8,}")
_START_TIMEOUT_S = 5.0
_TOOL_NAME = "simulate_outcome"
_TOOL: ToolParam = {
    "name": _TOOL_NAME,
    "description": "Report the simulated tool call's outcome: its result, whether it failed, and the state patch.",
    "input_schema": OUTCOME_SCHEMA,
}
_TOOL_CHOICE: ToolChoiceToolParam = {"type": "tool", "name": _TOOL_NAME}


class AnthropicBackend(Backend):
    """Simulates calls with a Claude model (`--backend anthropic`, `--base-url` or `ANTHROPIC_BASE_URL`)."""

    name = "anthropic"

    def __init__(self, settings: Settings, *, api_key: str | None = None) -> None:
        self._settings = settings
        self._base_url = settings.base_url or os.environ.get(_URL_VARIABLE) or None
        self._api_key = api_key if api_key is not None else os.environ.get(_KEY_VARIABLE) or None
        auth_token = os.environ.get(_TOKEN_VARIABLE) or None
        self.model = settings.model
        self._translate = ErrorTranslator(
            self.name, "the Anthropic API", APITimeoutError, APIConnectionError, APIStatusError, _SECRET
        )
        self._limiter = anyio.CapacityLimiter(settings.backend_concurrency)
        self._client: AsyncAnthropic | None = None
        if self._api_key is not None or auth_token is not None or self._base_url is not None:
            self._client = AsyncAnthropic(
                api_key=self._api_key or (None if auth_token else _PLACEHOLDER_KEY),
                auth_token=auth_token,
                base_url=self._base_url,
                timeout=settings.timeout_s,
                max_retries=settings.provider_retries,
            )

    async def start(self) -> None:
        if self._client is None:
            raise ConfigError(
                f"backend anthropic needs an API key: set {_KEY_VARIABLE} (or {_TOKEN_VARIABLE}), or give "
                f"--base-url / SIM_MCP_BASE_URL / {_URL_VARIABLE} for a server that needs none"
            )
        if self.model is None:
            raise ConfigError("backend anthropic needs a model: give --model / SIM_MCP_MODEL")
        if self._base_url is None:
            return
        client = self._client.with_options(max_retries=0, timeout=_START_TIMEOUT_S)
        where = f"the Anthropic API at {self._base_url} (--base-url / SIM_MCP_BASE_URL / {_URL_VARIABLE})"
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
        max_tokens = max_tokens_for(request, self._settings.max_tokens)
        async with self._limiter:
            try:
                message = await self._client.messages.create(
                    model=model,
                    max_tokens=max_tokens,
                    system=[{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}],
                    messages=[{"role": "user", "content": prompt.user}],
                    tools=[{**_TOOL, "input_schema": outcome_schema(request)}],
                    tool_choice=_TOOL_CHOICE,
                )
            except AnthropicError as e:
                raise self._translate(
                    e, model=model, base_url=self._base_url, timeout_s=self._settings.timeout_s, api_key=self._api_key
                ) from e
        return self._process_response(message, model, max_tokens)

    def can_complete(self) -> bool:
        return True

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        model = self.model
        if model is None:
            raise BackendError(self.name, "no model: give --model / SIM_MCP_MODEL")
        if self._client is None:
            raise BackendError(self.name, f"no API key: set {_KEY_VARIABLE}", model=model)
        tool: ToolParam = {
            "name": request.name,
            "description": request.description or f"Report the answer as {request.name}.",
            "input_schema": request.schema,
        }
        max_tokens = self._settings.max_tokens
        async with self._limiter:
            try:
                message = await self._client.messages.create(
                    model=model,
                    max_tokens=max_tokens,
                    system=request.system,
                    messages=[{"role": "user", "content": request.user}],
                    tools=[tool],
                    tool_choice={"type": "tool", "name": request.name},
                )
            except AnthropicError as e:
                raise self._translate(
                    e, model=model, base_url=self._base_url, timeout_s=self._settings.timeout_s, api_key=self._api_key
                ) from e
        usage = _usage(message)
        self._check_complete(message, model, max_tokens, usage)
        tool_input = _tool_input(message, request.name)
        required = request.schema.get("required", ())
        try:
            if isinstance(tool_input, dict) and all(key in tool_input for key in required):
                value: dict[str, Any] = tool_input
            else:
                value = parse_json_object(_text(message), required)
        except InvalidOutcome as e:
            raise InvalidOutcome(self.name, e.reason, model=model, usage=usage) from None
        return JsonReply(value, usage)

    def _check_complete(self, message: Message, model: str, max_tokens: int, usage: TokenUsage) -> None:
        if message.stop_reason == "max_tokens":
            raise InvalidOutcome(
                self.name,
                f"the reply was cut off at {max_tokens} tokens; answer with a shorter result",
                model=model,
                usage=usage,
            )

    def _process_response(self, message: Message, model: str, max_tokens: int) -> Outcome:
        usage = _usage(message)
        self._check_complete(message, model, max_tokens, usage)
        tool_input = _tool_input(message, _TOOL_NAME)
        try:
            outcome = outcome_from_object(tool_input) if tool_input is not None else parse_outcome(_text(message))
        except InvalidOutcome as e:
            raise InvalidOutcome(self.name, e.reason, model=model, usage=usage) from None
        outcome.usage = usage
        return outcome


def _tool_input(message: Message, name: str) -> object:
    """The input of the reply's call to the tool `name`, or None when it made none."""
    return next((block.input for block in message.content if block.type == "tool_use" and block.name == name), None)


def _text(message: Message) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


def _usage(message: Message) -> TokenUsage:
    # Anthropic counts cached and cache-writing input apart from `input_tokens`; ours is the total, like OpenAI's.
    usage = message.usage
    read = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    return TokenUsage(input=usage.input_tokens + read + written, output=usage.output_tokens, cached=read)
