"""Sending one request to a model: what the providers share, so that each provider module holds only its
client, its keys and its wire format.

A provider module gives a `Wire`: how to send one `Call` in one response form, and how to read that SDK's
errors. `Requester` sends: within the backend's concurrency limit, under the deadline, with retries,
stepping down the response forms a provider refuses, and maps SDK errors to ours (`BackendTimeout`,
`BackendUnreachable`, `BackendHTTPError`, under `BackendError`).

Retries are ours, not the SDK's (its clients are built with `max_retries=0`), so that:
- a request that runs past `--timeout-s` is cancelled (its connection closed, which a local server
  sees) before it is sent again: a single-threaded server never holds two copies of one prompt;
- a refusal of the response form (llama.cpp's server answers `json_schema` with a 500) steps down
  to the next form at once, instead of being retried as a server error first;
- 408, 409, 429, 5xx, timeouts and connection errors are retried `--provider-retries` times, with
  exponential backoff and jitter, honouring `Retry-After` / `retry-after-ms` and `x-should-retry`
  as the SDKs do.
The form a provider took is remembered per base URL in a `FormMemory` (and, given a file, across
processes), so only the first process to meet a server pays for its refusals.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import anyio
import httpx2

from sim_mcp.engine.contract import InvalidOutcome
from sim_mcp.errors import BackendError, BackendHTTPError, BackendTimeout, BackendUnreachable, ConfigError
from sim_mcp.state.session import TokenUsage

if TYPE_CHECKING:
    from sim_mcp.config import LlmConfig

__all__ = [
    "Call",
    "ErrorKinds",
    "FormMemory",
    "Reply",
    "Requester",
    "SchemaBytes",
    "Wire",
    "json_object",
    "json_text",
    "request_url",
    "sdk_options",
    "sdk_timeout_s",
]

# Long enough to explain, short enough for a tool result and a log line.
_MESSAGE_CHARS = 500
_START_TIMEOUT_S = 5.0
# The SDKs' own backoff: 0.5 s doubling to 8 s, less up to 25% jitter; a server's Retry-After up to 60 s.
_INITIAL_DELAY_S = 0.5
_MAX_DELAY_S = 8.0
_MAX_RETRY_AFTER_S = 60.0
_RETRIED_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True, slots=True)
class Call:
    """One request to a model. `purpose` tells the wire whether it simulates a call (the static prompt is
    worth caching, a seed applies) or completes a judge's or user's JSON request."""

    purpose: Literal["simulate", "complete"]
    model: str
    system: str
    # `system` as a JSON string, encoded once per environment version: wires put it into request bodies
    # as it is (the static prompt is most of every request's bytes).
    system_json: bytes
    user: str
    max_tokens: int
    temperature: float
    name: str
    schema: dict[str, Any]
    description: str | None = None
    seed: int | None = None
    # A key stable per environment version, for providers' prompt caches.
    cache_key: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """A provider's reply, read off the wire: its text and/or the input of the forced tool call, its usage;
    `cut_off` when it hit `max_tokens`, `problem` when there is nothing to read (no choices, a refusal)."""

    usage: TokenUsage
    text: str = ""
    tool_input: object = None
    cut_off: bool = False
    problem: str | None = None

    @property
    def written(self) -> str:
        """The reply as the model wrote it: its text, else the forced tool call's input as JSON."""
        if self.text or self.tool_input is None:
            return self.text
        return json.dumps(self.tool_input, ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True)
class ErrorKinds:
    """One SDK's exception classes, so the base can tell its errors apart without importing it."""

    base: type[Exception]
    timeout: type[Exception]
    connection: type[Exception]
    status: type[Exception]


class Wire(ABC):
    """One provider's wire format: what `openai.py` and `anthropic.py` each implement."""

    # How an error names the provider when no base URL is given ("the OpenAI API").
    provider: str
    # How the start-up check names a server at a base URL, and where that URL comes from.
    server: str
    url_source: str
    errors: ErrorKinds
    # What an API key looks like, so an echo of one in an error body is cut out too.
    secret: re.Pattern[str]
    # The response forms the provider may take, best first; a refused one steps down to the next.
    forms: tuple[str, ...] = ("default",)

    @abstractmethod
    async def send(self, call: Call, form: str) -> Reply:
        """Send `call` in response form `form`; SDK errors propagate as they are."""

    def form_rejected(self, error: Exception) -> bool:
        """Whether `error` refuses the response form (and nothing else about the request)."""
        return False

    def __init__(self, client: _Closable | None) -> None:
        self._sdk = client

    @abstractmethod
    async def probe(self, timeout_s: float) -> None:
        """One cheap request (a model listing) that proves the base URL answers."""

    async def aclose(self) -> None:
        if self._sdk is not None:
            await self._sdk.close()


class _Closable(Protocol):
    async def close(self) -> None: ...


class FormMemory:
    """The response form each base URL took, kept in this object and, given `path`, in a JSON file that
    the next process reads (written atomically; a file that cannot be read or written is ignored)."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._forms: dict[str, str] = self._read() if path is not None else {}

    def get(self, base_url: str) -> str | None:
        return self._forms.get(base_url)

    def set(self, base_url: str, form: str) -> None:
        if self._forms.get(base_url) == form:
            return
        self._forms[base_url] = form
        if self._path is not None:
            self._write(self._path)

    def _read(self) -> dict[str, str]:
        assert self._path is not None
        try:
            value = json.loads(self._path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(value, dict):
            return {}
        return {str(url): form for url, form in value.items() if isinstance(form, str)}

    def _write(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Another process may have learned another URL meanwhile: keep its entries too.
            merged = {**self._read(), **self._forms}
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
            temporary.replace(path)
        except OSError:
            pass


class Requester:
    """One provider's requests, sent: within the concurrency limit, under the deadline, retried, stepping
    down the response forms a provider refuses (remembered per base URL), SDK errors made ours."""

    def __init__(
        self, backend: str, config: LlmConfig, wire: Wire, *, base_url: str | None, api_key: str | None
    ) -> None:
        self._backend = backend
        self._config = config
        self._wire = wire
        self._base_url = base_url
        self._api_key = api_key
        self._limiter = anyio.CapacityLimiter(config.backend_concurrency)
        self._memory = FormMemory(config.response_format_memory)
        self._memory_key = base_url or wire.provider
        remembered = self._memory.get(self._memory_key)
        self._form = remembered if remembered in wire.forms else wire.forms[0]
        self._random = random.Random()

    async def probe(self) -> None:
        """Prove the base URL answers (a model listing); `ConfigError` naming the URL when nothing does."""
        if self._base_url is None:
            return
        where = f"{self._wire.server} at {self._base_url} ({self._wire.url_source})"
        try:
            await self._wire.probe(_START_TIMEOUT_S)
        except self._wire.errors.status:
            pass  # a server without the probed route, or one that wants a key there, still answered
        except self._wire.errors.connection as e:
            await self.aclose()  # its connection pool, which nobody else will close once start has failed
            raise ConfigError(f"cannot reach {where}: {_describe_cause(e)}") from e

    async def aclose(self) -> None:
        await self._wire.aclose()

    async def ask(self, call: Call, *, shorter: str) -> Reply:
        """The reply to `call`, within the concurrency limit; `InvalidOutcome` for an unusable reply (one cut
        off at `max_tokens` asks for `shorter`, what the reply should be instead)."""
        async with self._limiter:
            reply = await self._send_with_retries(call)
        if reply.cut_off:
            reason = f"the reply was cut off at {call.max_tokens} tokens; answer with {shorter}"
            raise InvalidOutcome(self._backend, reason, model=call.model, usage=reply.usage, answer=reply.written)
        if reply.problem is not None:
            raise InvalidOutcome(
                self._backend, reply.problem, model=call.model, usage=reply.usage, answer=reply.written
            )
        return reply

    async def _send_with_retries(self, call: Call) -> Reply:
        forms = self._wire.forms
        index = forms.index(self._form)
        retries_left = self._config.provider_retries
        for attempt in range(1 + self._config.provider_retries + len(forms)):
            try:
                reply = await self._send_once(call, forms[index])
            except (self._wire.errors.base, _Timeout) as e:
                if index + 1 < len(forms) and self._wire.form_rejected(e):
                    index += 1
                    continue
                delay = self._retry_delay(e, attempt) if retries_left > 0 else None
                if delay is None:
                    raise self._translate(e, call.model) from e
                retries_left -= 1
                await anyio.sleep(delay)
                continue
            if forms[index] != self._form:
                # Later calls, and (through the memory) later processes, start from the form that worked.
                self._form = forms[index]
                self._memory.set(self._memory_key, self._form)
            return reply
        raise BackendError(self._backend, "gave up after stepping through every response form", model=call.model)

    async def _send_once(self, call: Call, form: str) -> Reply:
        """One request under the deadline: past it, the request is cancelled (its connection closed)."""
        with anyio.move_on_after(self._config.timeout_s) as scope:
            return await self._wire.send(call, form)
        assert scope.cancelled_caught
        raise _Timeout(f"no reply within {self._config.timeout_s:g}s")

    def _retry_delay(self, error: Exception, attempt: int) -> float | None:
        """Seconds to wait before trying `error`'s request again, or None when it is not worth trying."""
        kinds = self._wire.errors
        if isinstance(error, _Timeout | kinds.timeout | kinds.connection):
            return self._backoff(attempt)
        if not isinstance(error, kinds.status):
            return None
        response = getattr(error, "response", None)
        headers = getattr(response, "headers", None) or {}
        should = str(headers.get("x-should-retry", "")).lower()
        if should == "false" or (should != "true" and not _retryable_status(getattr(error, "status_code", 0))):
            return None
        after = _retry_after(headers)
        return after if after is not None else self._backoff(attempt)

    def _backoff(self, attempt: int) -> float:
        return min(_INITIAL_DELAY_S * 2.0**attempt, _MAX_DELAY_S) * (1 - 0.25 * self._random.random())

    def _translate(self, error: Exception, model: str) -> BackendError:
        """The SDK's error as ours (timeout, unreachable, HTTP status, or plain), never carrying the API key
        (nor anything shaped like one)."""
        kinds = self._wire.errors
        status: int | None = None
        kind: type[BackendError] = BackendError
        if isinstance(error, _Timeout):
            message, kind = str(error), BackendTimeout
        elif isinstance(error, kinds.timeout) and not _refused(error):
            message, kind = f"no reply within {self._config.timeout_s:g}s", BackendTimeout
        elif isinstance(error, kinds.connection):
            message = f"cannot reach {self._base_url or self._wire.provider}: {_describe_cause(error)}"
            kind = BackendUnreachable
        elif isinstance(error, kinds.status):
            message, kind = _status_message(error), BackendHTTPError
            status = getattr(error, "status_code", None)
        else:
            message = str(error)
        if self._api_key:
            message = message.replace(self._api_key, "***")
        message = self._wire.secret.sub(r"\1***", message)[:_MESSAGE_CHARS]
        return kind(self._backend, message, model=model, status=status)


class _Timeout(Exception):
    """Our deadline passed (the SDK's own timeout is set past it, so this is the one that fires)."""


class SchemaBytes:
    """The request-body bytes a wire makes of a call's schema (its response format, its forced tool), kept per
    schema object: the backend hands the same schema object for every call of one environment version, tool
    and mode, and encoding it was most of a request body's encoding once the static prompt was encoded once.
    Kept only while that object is the one passed (the cache holds it, so its id is not reused meanwhile)."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._kept: dict[tuple[Any, ...], tuple[dict[str, Any], bytes]] = {}

    def get(self, key: tuple[Any, ...], schema: dict[str, Any], encode: Callable[[], bytes]) -> bytes:
        """`encode()`'s bytes for `schema` under `key` (what else the bytes depend on: form, names)."""
        full = (*key, id(schema))
        found = self._kept.get(full)
        if found is not None and found[0] is schema:
            return found[1]
        encoded = encode()
        if len(self._kept) >= self._size:
            self._kept.pop(next(iter(self._kept)))
        self._kept[full] = (schema, encoded)
        return encoded


def json_text(value: Any) -> bytes:
    """`value` as compact UTF-8 JSON, as the SDKs encode request bodies."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def json_object(head: bytes, fields: dict[str, Any]) -> bytes:
    """A JSON object whose first members are `head` (encoded already, e.g. `b'"messages":[...]'`), then `fields`."""
    rest = json_text(fields)
    return b"{" + head + (b"," + rest[1:] if len(rest) > 2 else b"}")


def request_url(base_url: httpx2.URL, path: str) -> str:
    """`path` joined to an SDK client's `base_url` as the SDKs join a relative path (httpx's rule: the base's
    path, then `path` without its leading slash), once: given a relative path, the SDK copies and re-checks
    the base URL on every request (0.03-0.06 ms a call); an absolute URL it takes as it is."""
    return str(base_url.copy_with(raw_path=base_url.raw_path + path.lstrip("/").encode()))


def reply_body(raw: bytes) -> dict[str, Any] | str:
    """A provider's 200 body, parsed (once, with no model classes): the object, or what is wrong with it."""
    try:
        body = json.loads(raw)
    except ValueError as e:
        return f"the provider's reply was not JSON ({e}): {raw[:200]!r}"
    return body if isinstance(body, dict) else f"the provider's reply was JSON but not an object: {raw[:200]!r}"


def count(value: object) -> int:
    """A token count from a reply body: an int, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def aiohttp_client(kind: Callable[..., httpx2.AsyncClient], config: LlmConfig) -> httpx2.AsyncClient:
    """An SDK's `DefaultAioHttpClient` (`kind`) with as many pooled connections as requests in flight."""
    connections = config.backend_concurrency
    limits = httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)
    return kind(limits=limits, timeout=sdk_timeout_s(config))


def sdk_options(kind: Callable[..., httpx2.AsyncClient], config: LlmConfig) -> dict[str, Any]:
    """An SDK client's options: its timeout past ours, no retries of its own (ours retry), pooled aiohttp."""
    return {"timeout": sdk_timeout_s(config), "max_retries": 0, "http_client": aiohttp_client(kind, config)}


def sdk_timeout_s(config: LlmConfig) -> float:
    """The SDK client's timeout: past our own deadline, so that ours cancels the request first."""
    return config.timeout_s + 5.0


def _retryable_status(status: int) -> bool:
    return status in _RETRIED_STATUSES or status >= 500


def _retry_after(headers: Any) -> float | None:
    """A server's `retry-after-ms` or `Retry-After` (seconds or an HTTP date), when within 0-60 s."""
    seconds: float | None = None
    try:
        if "retry-after-ms" in headers:
            seconds = float(headers["retry-after-ms"]) / 1000
        elif "retry-after" in headers:
            raw = str(headers["retry-after"])
            try:
                seconds = float(raw)
            except ValueError:
                parsed = email.utils.parsedate_tz(raw)
                seconds = email.utils.mktime_tz(parsed) - time.time() if parsed is not None else None
    except (TypeError, ValueError):
        return None
    return seconds if seconds is not None and 0 <= seconds <= _MAX_RETRY_AFTER_S else None


def _status_message(error: Any) -> str:
    """The provider's own explanation from an error body (`{"error": {"message": ...}}`), else the SDK's."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        detail = inner.get("message") if isinstance(inner, dict) else inner
        if detail:
            return str(detail)
    return str(getattr(error, "message", error))


def _refused(error: BaseException) -> bool:
    """Whether a connection was refused somewhere under `error` (the SDKs' aiohttp transport reports a
    refused connection as a timeout: it is no slow reply, but no server)."""
    seen: BaseException | None = error
    for _ in range(10):  # a cause chain is short; a cycle must not hold us
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _describe_cause(error: BaseException) -> str:
    cause = error.__cause__ or error.__context__
    return f"{error} ({cause})" if cause is not None and str(cause) else str(error)
