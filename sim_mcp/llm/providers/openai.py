"""The `openai` backend: OpenAI Chat Completions, or any server that speaks it (vLLM, Ollama, llama.cpp).

Only the wire format lives here; retries, deadlines, errors and the memory of refused response forms
are the LLM layer's (`llm/request.py`, `llm/backend.py`). Structured output first (`json_schema`). A
server that rejects it (an error naming the response format, or a bare 400 / 422) is asked again with
`json_object` with the schema (as llama.cpp's server takes it), then without, then in plain text.

One `AsyncOpenAI` client per backend, on the SDK's aiohttp transport (`DefaultAioHttpClient`, its
documented `http_client` hook) with as many pooled connections as `--backend-concurrency`: the default
httpx pool scans every pooled connection on every request, which at hundreds in flight cost more CPU
than the rest of the call. Requests go through the SDK's documented `client.post(url, content=...,
cast_to=bytes)`, to the absolute URL joined once (`request_url`), with the body encoded here and the reply
parsed here, once, with no model classes:
`create` would transform and re-encode every parameter on every call, the static prompt (most of the
bytes) included, which the base encodes once, and build a `ChatCompletion` of the reply.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from openai import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AsyncOpenAI,
    DefaultAioHttpClient,
    OpenAIError,
)

from sim_mcp.config import LlmConfig
from sim_mcp.llm import request
from sim_mcp.llm.backend import LLMBackend
from sim_mcp.state.session import TokenUsage

if TYPE_CHECKING:
    pass

__all__ = ["OpenAIBackend"]

_KEY_VARIABLE = "OPENAI_API_KEY"
_URL_VARIABLE = "OPENAI_BASE_URL"
# Local servers need no key, but the SDK insists on one.
_PLACEHOLDER_KEY = "sim-mcp-no-key"
_FORMS = ("json_schema", "json_object_schema", "json_object", "text")


class OpenAIBackend(LLMBackend):
    """Simulates calls with a Chat Completions model (`--backend openai`, optionally `--base-url`)."""

    name = "openai"

    key_variable = _KEY_VARIABLE
    url_variable = _URL_VARIABLE

    def _connect(self, config: LlmConfig, base_url: str | None, api_key: str | None) -> tuple[request.Wire, str | None]:
        client: AsyncOpenAI | None = None
        if api_key is not None or base_url is not None:
            client = AsyncOpenAI(
                api_key=api_key or _PLACEHOLDER_KEY,
                base_url=base_url,
                **request.sdk_options(DefaultAioHttpClient, config),
            )
        missing = (
            None
            if client is not None
            else (
                f"backend openai needs an API key: set {_KEY_VARIABLE}, or give --base-url / SIM_MCP_BASE_URL "
                f"(or {_URL_VARIABLE}) for an OpenAI-compatible server that needs none"
            )
        )
        return _OpenAIWire(client, base_url), missing


class _OpenAIWire(request.Wire):
    provider = "the OpenAI API"
    server = "the OpenAI-compatible server"
    url_source = "--base-url / SIM_MCP_BASE_URL"
    errors = request.ErrorKinds(OpenAIError, APITimeoutError, APIConnectionError, APIStatusError)
    secret = re.compile(r"\b(sk-[A-Za-z0-9_\-]{4})[A-Za-z0-9_\-*]{8,}")
    forms = _FORMS

    def __init__(self, client: AsyncOpenAI | None, base_url: str | None) -> None:
        super().__init__(client)
        self._client = client
        self._base_url = base_url
        self._formats = request.SchemaBytes()
        self._url = request.request_url(client.base_url, "/chat/completions") if client is not None else ""

    async def send(self, call: request.Call, form: str) -> request.Reply:
        assert self._client is not None
        fields: dict[str, Any] = {
            "model": call.model,
            "temperature": call.temperature,
            # OpenAI's own API refuses `max_tokens` for reasoning models; compatible servers may know only it.
            ("max_completion_tokens" if self._base_url is None else "max_tokens"): call.max_tokens,
        }
        if call.purpose == "simulate":
            fields["seed"] = call.seed
            if self._base_url is None and call.cache_key is not None:
                # OpenAI's own API: a stable key helps its prompt cache.
                fields["prompt_cache_key"] = call.cache_key
        messages = (
            b'"messages":[{"role":"system","content":'
            + call.system_json
            + b'},{"role":"user","content":'
            + request.json_text(call.user)
            + b"}]"
            + self._formats.get((form, call.name), call.schema, lambda: _response_format(form, call.name, call.schema))
        )
        raw = await self._client.post(self._url, content=request.json_object(messages, fields), cast_to=bytes)
        return _reply(request.reply_body(raw))

    def form_rejected(self, error: Exception) -> bool:
        """Whether the server refused the request for its response format (not for something else)."""
        if not isinstance(error, APIStatusError):
            return False
        # Servers name the field, with a 400, a 422, or (llama.cpp's server) a 500.
        text = f"{error.message} {error.body}".lower()
        if any(word in text for word in ("response_format", "response format", "json_schema", "json_object")):
            return True
        # A bare refusal, nothing to go on: the format is the likeliest cause.
        return error.status_code in (400, 422) and not error.body

    async def probe(self, timeout_s: float) -> None:
        assert self._client is not None
        await self._client.with_options(max_retries=0, timeout=timeout_s).models.list()


def _response_format(form: str, name: str, schema: dict[str, Any]) -> bytes:
    """The body's `response_format` member in `form`, with its leading comma (empty in plain text)."""
    match form:
        case "json_schema":
            value: dict[str, Any] = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
        case "json_object_schema":
            value = {"type": "json_object", "schema": schema}
        case "json_object":
            value = {"type": "json_object"}
        case _:
            return b""
    return b',"response_format":' + request.json_text(value)


def _reply(body: dict[str, Any] | str) -> request.Reply:
    """A Chat Completions body (`choices[0].message`, `finish_reason`, `usage`) as a `Reply`."""
    if isinstance(body, str):
        return request.Reply(TokenUsage(), problem=body)
    usage = _usage(body.get("usage"))
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return request.Reply(usage, problem="the reply had no choices")
    choice = choices[0]
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    content = message.get("content")
    if choice.get("finish_reason") == "length":  # kept for the trajectory: what the model was writing
        return request.Reply(usage, text=content if isinstance(content, str) else "", cut_off=True)
    if not isinstance(content, str) or not content:
        refusal = message.get("refusal")
        return request.Reply(usage, problem=f"the model refused: {refusal}" if refusal else "the reply had no content")
    return request.Reply(usage, text=content)


def _usage(usage: object) -> TokenUsage:
    if not isinstance(usage, dict):
        return TokenUsage()
    details = usage.get("prompt_tokens_details")
    cached = request.count(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return TokenUsage(
        input=request.count(usage.get("prompt_tokens")),
        output=request.count(usage.get("completion_tokens")),
        cached=cached,
    )
