"""`SimClient` and `SimSession`: a sim-mcp server seen from a harness, over its control API and MCP.

    async with SimClient("http://127.0.0.1:8765") as sim:
        session = await sim.create_session(task="tickets-close-sso", seed=7)
        result = await session.call_tool("get_ticket", {"ticket_id": "T-1004"})
        evaluation = await session.evaluate()          # reward and per-check breakdown

The control API (create, reset, fork, evaluate, ...) goes over plain HTTP with httpx; tool calls go over
MCP with the SDK's `Client`, at the session's `mcp_url`. A session opens one MCP connection per call,
or keeps one open inside `async with session:`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from types import TracebackType
from typing import Literal, TypedDict, Unpack

import httpx
import httpx2
from mcp import MCPError
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult, TextContent

from sim_mcp.client._errors import McpError, ServerUnreachable, SimClientError, api_error
from sim_mcp.client._facts import SessionFacts
from sim_mcp.client._models import JSON, Evaluation, Event, SessionInfo, TaskInfo, ToolInfo, ToolResult, UserReply

DEFAULT_URL = "http://127.0.0.1:8765"
TrajectoryFormat = Literal["events", "openai"]


class NewSession(TypedDict, total=False):
    """What `create_session` may be given (each optional): `env` binds the session to one environment; `task`
    starts it from a task (its env and initial state); `seed`; `state`, a merge patch over the environment's
    initial state (or the whole state with `state_mode="replace"`); `id`, the session's id."""

    env: str | None
    task: str | None
    seed: int | None
    state: JSON
    state_mode: Literal["merge", "replace"] | None
    id: str | None


class SimClient:
    """A sim-mcp server's control API and MCP endpoint, for a harness; use `async with` or `aclose()`.

    `base_url` is the server's root (`http://HOST:PORT`, not `/mcp`); `token` its `--token`, if any.
    `mcp_mode` is the SDK client's `mode` ("auto", "legacy" for the handshake era, or a protocol version).
    """

    def __init__(
        self, base_url: str = DEFAULT_URL, *, token: str | None = None, timeout: float = 60.0, mcp_mode: str = "auto"
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.mcp_mode = mcp_mode
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=self._headers, timeout=timeout)

    async def __aenter__(self) -> SimClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connections; sessions on the server live on."""
        await self._http.aclose()

    # -- the control API -------------------------------------------------------------------------------

    async def health(self) -> dict[str, JSON]:
        """`GET /healthz`: `{"status": "ok", "version": ...}`; raises `ServerUnreachable` if nothing answers."""
        answer: dict[str, JSON] = (await self.request("GET", "/healthz")).json()
        return answer

    async def tasks(self) -> list[TaskInfo]:
        """The tasks the server loaded (summaries: name, env, difficulty, description)."""
        answer = (await self.request("GET", "/tasks")).json()
        return [TaskInfo.model_validate(task) for task in answer["tasks"]]

    async def task(self, name: str) -> TaskInfo:
        """One task as written, with its checks and reference `solution`; `NotFoundError` if there is none."""
        return TaskInfo.model_validate((await self.request("GET", f"/tasks/{name}")).json())

    async def create_session(self, **given: Unpack[NewSession]) -> SimSession:
        """A fresh session (its own world): bound to `env`, or started from `task` (its env and initial state);
        the options are `NewSession`'s. An unknown `env` or `task` raises `InvalidRequestError` naming the ones
        the server has.
        """
        body = {key: value for key, value in given.items() if value is not None}
        response = await self.request("POST", "/sessions", json=body)
        return SimSession(self, SessionInfo.model_validate(response.json()))

    async def session(self, id: str) -> SimSession:
        """An existing session by id (one a client opened implicitly with `?session=` too)."""
        answer = (await self.request("GET", f"/sessions/{id}")).json()
        answer.pop("state", None)
        return SimSession(self, SessionInfo.model_validate(answer))

    async def sessions(self) -> list[SessionInfo]:
        """Every session the server holds, oldest first."""
        answer = (await self.request("GET", "/sessions")).json()
        return [SessionInfo.model_validate(session) for session in answer["sessions"]]

    async def request(
        self, method: str, path: str, *, json: JSON = None, params: dict[str, str] | None = None
    ) -> httpx.Response:
        """One control-API request; an error status raises the matching `ControlApiError`."""
        try:
            response = await self._http.request(method, path, json=json, params=params)
        except httpx.TimeoutException as e:
            raise SimClientError(
                f"{method} {self.base_url}{path} timed out after {self.timeout}s: "
                "a slow LLM backend or judge may need SimClient(timeout=...)"
            ) from e
        except httpx.TransportError as e:
            raise ServerUnreachable(self.base_url, str(e) or type(e).__name__) from e
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = response.text
            message = body.get("error", response.text) if isinstance(body, dict) else response.text
            raise api_error(response.status_code, str(message), method=method, path=path, body=body)
        return response

    # -- MCP ---------------------------------------------------------------------------------------------

    @asynccontextmanager
    async def mcp(self, url: str) -> AsyncIterator[Client]:
        """The MCP SDK's `Client` connected to `url` (a session's `mcp_url`), sending our token if any."""
        if self._headers:
            http = create_mcp_http_client(headers=self._headers)
            client = Client(streamable_http_client(url, http_client=http), mode=self.mcp_mode)
        else:
            client = Client(url, mode=self.mcp_mode)
        with mcp_errors(url):
            async with client:
                yield client


class SimSession(SessionFacts):
    """One session on a sim-mcp server: its own world state, event log, tools and reward.

    Made by `SimClient.create_session()` (or `.session(id)`, `.fork()`). Each `call_tool` opens an MCP
    connection unless the session is entered (`async with session:`), which keeps one open.
    """

    def __init__(self, client: SimClient, info: SessionInfo) -> None:
        self.client = client
        self.info = info
        self._mcp: Client | None = None
        self._stack: AsyncExitStack | None = None

    def _latest(self) -> SessionInfo:
        return self.info

    async def __aenter__(self) -> SimSession:
        stack = AsyncExitStack()
        self._mcp = await stack.enter_async_context(self.client.mcp(self.mcp_url))
        self._stack = stack
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        stack, self._stack, self._mcp = self._stack, None, None
        if stack is not None:
            await stack.aclose()

    # -- tools (MCP) ---------------------------------------------------------------------------------------

    async def list_tools(self) -> list[ToolInfo]:
        """The tools this session's agent is offered."""
        tools: list[ToolInfo] = []
        async with self._connection() as mcp:
            cursor: str | None = None
            while True:
                with mcp_errors(self.mcp_url):
                    page = await mcp.list_tools(cursor=cursor)
                tools += [
                    ToolInfo(
                        name=tool.name,
                        description=tool.description or "",
                        input_schema=dict(tool.input_schema),
                        output_schema=dict(tool.output_schema) if tool.output_schema is not None else None,
                    )
                    for tool in page.tools
                ]
                cursor = page.next_cursor
                if not cursor:
                    return tools

    async def call_tool(self, name: str, arguments: dict[str, JSON] | None = None) -> ToolResult:
        """Call a tool; its error answers (unknown tool, bad arguments, not found...) come back `is_error`."""
        async with self._connection() as mcp:
            with mcp_errors(self.mcp_url):
                result = await mcp.call_tool(name, arguments or {})
        return tool_result(name, result)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[Client]:
        if self._mcp is not None:
            yield self._mcp
        else:
            async with self.client.mcp(self.mcp_url) as mcp:
                yield mcp

    # -- the control API ----------------------------------------------------------------------------------

    async def refresh(self) -> SessionInfo:
        """The session's summary now (events, errors, tokens, reward...)."""
        await self.state()
        return self.info

    async def state(self) -> JSON:
        """The world state now: the environment's state for a bound session, else keyed by environment."""
        answer = (await self.client.request("GET", f"/sessions/{self.id}")).json()
        return self._update(answer)

    async def events(self, last: int | None = None) -> list[Event]:
        """The event log (the `last` N events only, if given)."""
        params = {"last": str(last)} if last is not None else None
        answer = (await self.client.request("GET", f"/sessions/{self.id}/events", params=params)).json()
        return [Event.model_validate(event) for event in answer["events"]]

    async def trajectory(self, format: TrajectoryFormat = "events") -> list[dict[str, JSON]]:
        """The episode as JSON Lines, parsed: one dict per event, or one OpenAI chat example (`"openai"`)."""
        response = await self.client.request("GET", f"/sessions/{self.id}/trajectory", params={"format": format})
        return [json.loads(line) for line in response.text.splitlines() if line.strip()]

    async def reset(self, snapshot: str | None = None) -> JSON:
        """Back to the creation state (or to `snapshot`); returns the state."""
        body = {"snapshot": snapshot} if snapshot is not None else {}
        answer = (await self.client.request("POST", f"/sessions/{self.id}/reset", json=body)).json()
        return self._update(answer)

    async def snapshot(self, name: str) -> SessionInfo:
        """Save the worlds, counters and event log under `name`, for `reset(snapshot=name)`."""
        answer = (await self.client.request("POST", f"/sessions/{self.id}/snapshots", json={"name": name})).json()
        answer.pop("snapshot", None)
        self._update(answer)
        return self.info

    async def fork(self, id: str | None = None) -> SimSession:
        """A copy of this session under a new id, that lives on its own from now on."""
        body = {"id": id} if id is not None else {}
        answer = (await self.client.request("POST", f"/sessions/{self.id}/fork", json=body)).json()
        return SimSession(self.client, SessionInfo.model_validate(answer))

    async def delete(self) -> None:
        """Delete the session on the server."""
        await self.client.request("DELETE", f"/sessions/{self.id}")

    async def evaluate(
        self, task: str | dict[str, JSON] | None = None, *, curriculum: bool | None = None
    ) -> Evaluation:
        """Score the final state against the session's task (or `task`: a name or a task inline)."""
        body: dict[str, JSON] = {}
        if task is not None:
            body["task"] = task
        if curriculum is not None:
            body["curriculum"] = curriculum
        answer = (await self.client.request("POST", f"/sessions/{self.id}/evaluate", json=body)).json()
        evaluation = Evaluation.model_validate(answer)
        self.info = self.info.model_copy(update={"reward": evaluation.reward})
        return evaluation

    async def say(self, message: str) -> UserReply:
        """Send the agent's `message` to the task's simulated user; returns the user's reply."""
        answer = (await self.client.request("POST", f"/sessions/{self.id}/user", json={"message": message})).json()
        return UserReply.model_validate(answer)

    def _update(self, answer: dict[str, JSON]) -> JSON:
        state = answer.pop("state", None)
        self.info = SessionInfo.model_validate(answer)
        return state


def tool_result(name: str, result: CallToolResult) -> ToolResult:
    """Our `ToolResult` from the SDK's `CallToolResult`."""
    text = "\n".join(part.text for part in result.content if isinstance(part, TextContent))
    return ToolResult(tool=name, is_error=bool(result.is_error), text=text, structured=result.structured_content)


@contextmanager
def mcp_errors(url: str) -> Iterator[None]:
    """Translate the MCP SDK's failures (connection errors, JSON-RPC errors) into ours, once, at the edge."""
    try:
        yield
    except Exception as e:
        leaves = _leaves(e)
        for leaf in leaves:
            if isinstance(leaf, httpx2.ConnectError | httpx.ConnectError):
                raise ServerUnreachable(url, str(leaf) or type(leaf).__name__) from e
        for leaf in leaves:
            if isinstance(leaf, MCPError | httpx2.HTTPError | httpx.HTTPError):
                raise McpError(url, str(leaf) or type(leaf).__name__) from e
        raise


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]
