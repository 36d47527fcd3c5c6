"""A fake LLM provider on 127.0.0.1 speaking the OpenAI Chat Completions and Anthropic Messages wire formats.

Tests point the real `openai` / `anthropic` SDK clients at it with `base_url`, script its replies
(outcomes, text, malformed JSON, error statuses, slow replies) and read back every request body.

    with FakeProvider() as fake:
        fake.script(reply_outcome({"id": 1}), reply_status(429), ...)
        ... OpenAIBackend(Settings(base_url=fake.openai_url, ...)) ...
        fake.requests[0].body["messages"]
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

__all__ = ["FakeProvider", "Recorded", "Reply", "reply_outcome", "reply_status", "reply_text"]


@dataclass(frozen=True)
class Reply:
    """One scripted reply. `tool_input` is an Anthropic tool call's input (OpenAI: the content, as JSON)."""

    text: str | None = None
    tool_input: Any = None
    status: int = 200
    error: str = ""
    delay_s: float = 0.0
    finish: str | None = None
    input_tokens: int = 100
    output_tokens: int = 20
    cached_tokens: int = 0
    cache_creation_tokens: int = 0
    headers: dict[str, str] = field(default_factory=dict)


def reply_outcome(result: Any, *, is_error: bool = False, state_patch: list[Any] | None = None, **kw: Any) -> Reply:
    outcome = {"result": result, "is_error": is_error, "state_patch": state_patch or []}
    return Reply(tool_input=outcome, **kw)


def reply_text(text: str, **kw: Any) -> Reply:
    return Reply(text=text, **kw)


def reply_status(status: int, error: str = "scripted failure", **kw: Any) -> Reply:
    # A 1 ms Retry-After keeps the SDKs' backoff (which honours it) out of the tests' time.
    return Reply(status=status, error=error, headers={"retry-after-ms": "1", **kw.pop("headers", {})}, **kw)


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeProvider:
    """The server: start with `with`, or `start()` / `stop()`. Thread-safe; runs its own event loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replies: deque[Reply] = deque()
        # Answers a request (its JSON body) when no scripted reply is left: a provider whose reply depends on
        # the prompt (e.g. one that repeats a secret whenever the prompt holds it).
        self.responder: Callable[[Any], Reply] | None = None
        self._ids = itertools.count(1)
        self.requests: list[Recorded] = []
        # Response-format types the OpenAI endpoint refuses with 400 (as servers without them do).
        self.reject_response_formats: set[str] = set()
        self.reject_status = 400
        self.disconnected = threading.Event()
        self.received = threading.Event()
        self.in_flight = 0
        self.max_in_flight = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- scripting ---------------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self.requests.clear()
            self.responder = None
            self.reject_response_formats = set()
            self.reject_status = 400
            self.disconnected.clear()
            self.received.clear()
            self.in_flight = 0
            self.max_in_flight = 0

    def wait_idle(self, timeout_s: float = 60.0) -> None:
        """Return once no request is being answered (bounded: `RuntimeError` past `timeout_s`)."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self._lock:
                if self.in_flight <= 0:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the fake provider still answers {self.in_flight} request(s) after {timeout_s}s")
            time.sleep(0.01)

    def posts(self, path_end: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path.endswith(path_end)]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        return self.url

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/{path:path}", self._not_found, methods=["GET", "POST"]),
            ]
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(target=server.run, name="fake-provider", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 180  # ends when it starts; generous for a busy machine
        while not server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the fake provider did not start")
            time.sleep(0.01)
        self.port = server.servers[0].sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)

    def __enter__(self) -> FakeProvider:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- endpoints ---------------------------------------------------------------------------------

    async def _models(self, request: Request) -> Response:
        await self._record(request)
        model = {"id": "fake-model", "object": "model", "type": "model", "display_name": "Fake", "created": 0}
        return JSONResponse({"object": "list", "data": [model], "has_more": False})

    async def _not_found(self, request: Request) -> Response:
        await self._record(request)
        return JSONResponse({"error": {"message": f"no route {request.url.path}", "type": "not_found"}}, 404)

    async def _chat_completions(self, request: Request) -> Response:
        body = await self._record(request)
        response_format = body.get("response_format") or {}
        if response_format.get("type") in self.reject_response_formats:
            error = {"message": f"response_format {response_format['type']!r} is not supported", "type": "invalid"}
            headers = {"retry-after-ms": "1"}
            return JSONResponse({"error": error}, status_code=self.reject_status, headers=headers)
        return await self._answer(request, body, _openai_body)

    async def _messages(self, request: Request) -> Response:
        body = await self._record(request)
        return await self._answer(request, body, _anthropic_body)

    async def _answer(self, request: Request, body: Any, render: Any) -> Response:
        with self._lock:
            responder = self.responder
            reply = self._replies.popleft() if self._replies else None
        if reply is None and responder is not None:
            reply = responder(body)
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if reply is None:
                missing = {"message": "fake provider: no scripted reply left", "type": "api_error"}
                return JSONResponse({"error": missing}, status_code=500, headers={"x-should-retry": "false"})
            if reply.delay_s and not await self._wait_unless_disconnected(request, reply.delay_s):
                return Response(status_code=499)
            if reply.status != 200:
                failure = {"type": "error", "error": {"message": reply.error, "type": "api_error"}}
                return JSONResponse(failure, status_code=reply.status, headers=reply.headers)
            return JSONResponse(render(reply, body, next(self._ids)), headers=reply.headers)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _wait_unless_disconnected(self, request: Request, delay_s: float) -> bool:
        """Sleep `delay_s`; False (and `disconnected` set) if the client went away first."""
        deadline = time.monotonic() + delay_s
        while time.monotonic() < deadline:
            if await request.is_disconnected():
                self.disconnected.set()
                return False
            await asyncio.sleep(0.01)
        return True

    async def _record(self, request: Request) -> Any:
        raw = await request.body()
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode(errors="replace")
        with self._lock:
            self.requests.append(Recorded(request.method, request.url.path, dict(request.headers), body))
        self.received.set()
        return body


def _openai_body(reply: Reply, request: Any, number: int) -> dict[str, Any]:
    content = reply.text if reply.text is not None else json.dumps(reply.tool_input)
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "fake-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": reply.finish or "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        },
    }


def _anthropic_body(reply: Reply, request: Any, number: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text is not None:
        content.append({"type": "text", "text": reply.text})
    if reply.tool_input is not None:
        name = (request.get("tool_choice") or {}).get("name", "simulate_outcome")
        content.append({"type": "tool_use", "id": f"toolu_fake_{number}", "name": name, "input": reply.tool_input})
    return {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "fake-model"),
        "content": content,
        "stop_reason": reply.finish or ("tool_use" if reply.tool_input is not None else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": reply.input_tokens,
            "output_tokens": reply.output_tokens,
            "cache_read_input_tokens": reply.cached_tokens,
            "cache_creation_input_tokens": reply.cache_creation_tokens,
        },
    }
