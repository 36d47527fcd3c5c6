"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1: agent SDKs run against sim-mcp with no model.

    with ScriptedModel.from_solution(task.solution) as model:     # the task's reference solution
        client = AsyncOpenAI(base_url=model.base_url, api_key="scripted")
        ...                                                      # an agent whose model is `client`

It answers `POST /v1/chat/completions` (plain or streamed) with the script's tool calls, one per turn:
the n-th call when the conversation so far holds n tool results, then a final text message. A call's
tool name is matched against the request's `tools` (exactly, or by a `prefix_` / `prefix__` that an SDK
added), so the script need not know how the agent names its MCP tools. Every request is kept in
`requests`, for tests. It is a stand-in for a model in offline runs, not a model.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from sim_mcp.client import SimClientError, SolutionStep
from sim_mcp.client._background import Background


@dataclass(frozen=True)
class ScriptedCall:
    """One tool call of the script."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


class ScriptedModel(Background):
    """Serve `calls` as an OpenAI-compatible model named `model`, then answer `final`; see the module's docstring."""

    def __init__(self, calls: Sequence[ScriptedCall], *, final: str = "Done.", model: str = "scripted") -> None:
        self.calls = list(calls)
        self.final = final
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    @classmethod
    def from_solution(cls, steps: Sequence[SolutionStep] | None, **kwargs: Any) -> ScriptedModel:
        """A script that plays a task's reference solution (`SimClient.task(name).solution`)."""
        if not steps:
            raise SimClientError("the task has no reference solution to script: give ScriptedModel its calls")
        return cls([ScriptedCall(step.tool, dict(step.arguments)) for step in steps], **kwargs)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, `http://127.0.0.1:PORT/v1`."""
        if self._server is None:
            raise SimClientError("ScriptedModel is not running: use `with ScriptedModel(...) as model:`")
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> ScriptedModel:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._completions, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise SimClientError("the scripted model's server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        server, thread, self._server, self._thread = self._server, self._thread, None, None
        if server is not None and thread is not None:
            server.should_exit = True
            thread.join(timeout=10)

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for a chat-completions request: the next scripted call, or the final text."""
        done = sum(1 for message in request.get("messages", []) if message.get("role") == "tool")
        if done >= len(self.calls):
            return {"role": "assistant", "content": self.final}
        call = self.calls[done]
        name = _tool_name(call.tool, request.get("tools") or [])
        function = {"name": name, "arguments": json.dumps(call.arguments)}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"call_{done + 1}", "type": "function", "function": function}],
        }

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        message = self.reply(body)
        reason = "tool_calls" if message.get("tool_calls") else "stop"
        n = len(self.requests)
        if body.get("stream"):
            return StreamingResponse(self._chunks(n, message, reason), media_type="text/event-stream")
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        return JSONResponse(
            {
                "id": f"chatcmpl-scripted-{n}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", self.model),
                "choices": [{"index": 0, "message": message, "finish_reason": reason, "logprobs": None}],
                "usage": usage,
            }
        )

    async def _chunks(self, n: int, message: dict[str, Any], reason: str) -> AsyncIterator[str]:
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": 0, **call} for call in message["tool_calls"]]
        for choice in ({"index": 0, "delta": delta}, {"index": 0, "delta": {}, "finish_reason": reason}):
            chunk = {"id": f"chatcmpl-scripted-{n}", "object": "chat.completion.chunk", "created": int(time.time())}
            yield f"data: {json.dumps({**chunk, 'model': self.model, 'choices': [choice]})}\n\n"
        yield "data: [DONE]\n\n"

    async def _models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "sim-mcp"}]})


def _tool_name(tool: str, offered: list[dict[str, Any]]) -> str:
    names = [str(entry.get("function", {}).get("name", "")) for entry in offered]
    if tool in names:
        return tool
    for name in names:
        if name.endswith(("_" + tool, "__" + tool, "." + tool)):
            return name
    return tool
