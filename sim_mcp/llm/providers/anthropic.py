"""The `anthropic` backend: Claude through the Messages API.

Only the wire format lives here; retries, deadlines, errors and accounting are the LLM layer's
(`llm/request.py`, `llm/backend.py`). The static part of the prompt is a system block marked
`cache_control: ephemeral`, so calls of one environment share a cached prefix. The outcome comes as the
input of a forced tool call whose input schema is the contract; a reply without that tool call is parsed as
text. The Messages API (SDK 2.x) takes no temperature: `--temperature` and an environment's `temperature` do
not apply here. One `AsyncAnthropic` client per backend, on the SDK's aiohttp transport, pooled, with bodies
encoded and replies parsed here, as `openai.py` says.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from anthropic import (
    AnthropicError,
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AsyncAnthropic,
    DefaultAioHttpClient,
)

from sim_mcp.config import LlmConfig
from sim_mcp.llm import request
from sim_mcp.llm.backend import LLMBackend
from sim_mcp.state.session import TokenUsage

if TYPE_CHECKING:
    pass

__all__ = ["AnthropicBackend"]

_KEY_VARIABLE = "ANTHROPIC_API_KEY"
_TOKEN_VARIABLE = "ANTHROPIC_AUTH_TOKEN"
_URL_VARIABLE = "ANTHROPIC_BASE_URL"
# A gateway or test server may need no key, but requests must carry one.
_PLACEHOLDER_KEY = "sim-mcp-no-key"
_TOOL_NAME = "simulate_outcome"
_TOOL_DESCRIPTION = "Report the simulated tool call's outcome: its result, whether it failed, and the state patch."


class AnthropicBackend(LLMBackend):
    """Simulates calls with a Claude model (`--backend anthropic`, `--base-url` or `ANTHROPIC_BASE_URL`)."""

    name = "anthropic"

    key_variable = _KEY_VARIABLE
    url_variable = _URL_VARIABLE

    def _connect(self, config: LlmConfig, base_url: str | None, api_key: str | None) -> tuple[request.Wire, str | None]:
        auth_token = os.environ.get(_TOKEN_VARIABLE) or None
        client: AsyncAnthropic | None = None
        if api_key is not None or auth_token is not None or base_url is not None:
            client = AsyncAnthropic(
                api_key=api_key or (None if auth_token else _PLACEHOLDER_KEY),
                auth_token=auth_token,
                base_url=base_url,
                **request.sdk_options(DefaultAioHttpClient, config),
            )
        missing = (
            None
            if client is not None
            else (
                f"backend anthropic needs an API key: set {_KEY_VARIABLE} (or {_TOKEN_VARIABLE}), or give "
                f"--base-url / SIM_MCP_BASE_URL / {_URL_VARIABLE} for a server that needs none"
            )
        )
        return _AnthropicWire(client), missing


class _AnthropicWire(request.Wire):
    provider = "the Anthropic API"
    server = "the Anthropic API"
    url_source = f"--base-url / SIM_MCP_BASE_URL / {_URL_VARIABLE}"
    errors = request.ErrorKinds(AnthropicError, APITimeoutError, APIConnectionError, APIStatusError)
    secret = re.compile(r"\b(sk-ant-[A-Za-z0-9]{2})[A-Za-z0-9_\-*]{8,}")

    def __init__(self, client: AsyncAnthropic | None) -> None:
        super().__init__(client)
        self._client = client
        self._tools = request.SchemaBytes()
        self._url = request.request_url(client.base_url, "/v1/messages") if client is not None else ""

    async def send(self, call: request.Call, form: str) -> request.Reply:
        assert self._client is not None
        simulating = call.purpose == "simulate"
        name = _TOOL_NAME if simulating else call.name
        description = _TOOL_DESCRIPTION if simulating else call.description or f"Report the answer as {call.name}."
        system = call.system_json
        if simulating:
            system = b'[{"type":"text","text":' + call.system_json + b',"cache_control":{"type":"ephemeral"}}]'
        tools = self._tools.get(
            (name, description),
            call.schema,
            lambda: request.json_text([{"name": name, "description": description, "input_schema": call.schema}]),
        )
        head = (
            b'"system":'
            + system
            + b',"messages":[{"role":"user","content":'
            + request.json_text(call.user)
            + b'}],"tools":'
            + tools
        )
        fields = {"model": call.model, "max_tokens": call.max_tokens, "tool_choice": {"type": "tool", "name": name}}
        raw = await self._client.post(self._url, content=request.json_object(head, fields), cast_to=bytes)
        return _reply(request.reply_body(raw), name)

    async def probe(self, timeout_s: float) -> None:
        assert self._client is not None
        await self._client.with_options(max_retries=0, timeout=timeout_s).models.list()


def _reply(body: dict[str, Any] | str, tool: str) -> request.Reply:
    """A Messages body (`content` blocks, `stop_reason`, `usage`) as a `Reply`: the text blocks, and the
    input of the call to `tool` when the reply made one."""
    if isinstance(body, str):
        return request.Reply(TokenUsage(), problem=body)
    usage = _usage(body.get("usage"))
    blocks = [block for block in body.get("content") or () if isinstance(block, dict)]
    tool_input = next(
        (block.get("input") for block in blocks if block.get("type") == "tool_use" and block.get("name") == tool), None
    )
    text = "".join(str(block.get("text", "")) for block in blocks if block.get("type") == "text")
    # A reply cut off keeps what it had (for the trajectory), but is not read as an answer.
    return request.Reply(usage, text=text, tool_input=tool_input, cut_off=body.get("stop_reason") == "max_tokens")


def _usage(usage: object) -> TokenUsage:
    # Anthropic counts cached and cache-writing input apart from `input_tokens`; ours is the total, like OpenAI's.
    if not isinstance(usage, dict):
        return TokenUsage()
    read = request.count(usage.get("cache_read_input_tokens"))
    written = request.count(usage.get("cache_creation_input_tokens"))
    return TokenUsage(
        input=request.count(usage.get("input_tokens")) + read + written,
        output=request.count(usage.get("output_tokens")),
        cached=read,
    )
