"""A connection to a real MCP server, kept open by a task of its own: for the recording proxy and for
`twin-check`, which both call one server many times and must survive it crashing or hanging.

`Upstream.start` connects (starting a stdio command, or opening a Streamable HTTP endpoint) and lists
its tools; `call` forwards one `tools/call` under a time limit. A server that exits, hangs past the limit
or answers with something that is not MCP makes `call` raise `UpstreamFailure`, which names the server
and the call; the JSON-RPC error of a server that refused a call is an `MCPError`, passed on as it is.

`fresh_server(template, folder)` is the same server to start in a new temporary folder: `{tmp}` in its
arguments and in the values of its environment is replaced by that folder, which is also its working
folder, so that a server that keeps its world in files starts each session from the same world.
"""

from __future__ import annotations

import logging
import tempfile
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO, cast

import anyio
import httpx2
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp import StdioServerParameters
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from sim_mcp.errors import UpstreamFailure
from sim_mcp.specs.capture import HttpServer, LiveServer, StdioServer

__all__ = ["TMP_PLACEHOLDER", "Upstream", "UpstreamFailure", "fresh_server", "with_folder", "without_folder"]

logger = logging.getLogger("sim_mcp")

TMP_PLACEHOLDER = "{tmp}"
_STDERR_TAIL = 10


def fresh_server(template: LiveServer, folder: Path) -> LiveServer:
    """`template` to start in `folder`: `{tmp}` in its arguments and environment values becomes the folder."""
    if not isinstance(template, StdioServer):
        return template
    text = str(folder)
    env = {key: value.replace(TMP_PLACEHOLDER, text) for key, value in (template.env or {}).items()}
    command = [part.replace(TMP_PLACEHOLDER, text) for part in template.command]
    return replace(template, command=command, env=env if template.env is not None else None, cwd=folder)


def without_folder(value: Any, folder: Path) -> Any:
    """`value` with the session's temporary folder written as `{tmp}`: sessions started in different folders
    are recorded alike, two servers started in two folders agree on it, and a twin answers `{tmp}` where the
    real server named its folder."""
    names = sorted({str(folder), str(folder.resolve())}, key=len, reverse=True)
    if isinstance(value, str):
        for name in names:
            value = value.replace(name, TMP_PLACEHOLDER)
        return value
    if isinstance(value, dict):
        return {key: without_folder(item, folder) for key, item in value.items()}
    if isinstance(value, list):
        return [without_folder(item, folder) for item in value]
    return value


def with_folder(value: Any, folder: Path) -> Any:
    """`value` with `{tmp}` written as `folder` (the inverse of `without_folder`): arguments recorded or drawn
    with the placeholder, sent to a server that runs in `folder`."""
    if isinstance(value, str):
        return value.replace(TMP_PLACEHOLDER, str(folder))
    if isinstance(value, dict):
        return {key: with_folder(item, folder) for key, item in value.items()}
    if isinstance(value, list):
        return [with_folder(item, folder) for item in value]
    return value


class Upstream:
    """One live connection to `server`; `timeout` bounds connecting and each call, in seconds."""

    def __init__(self, server: LiveServer, timeout: float = 60.0, connect_timeout: float = 60.0) -> None:
        self.server = server
        self.timeout = timeout
        self.connect_timeout = max(timeout, connect_timeout)
        self.tools: list[types.Tool] = []
        self.server_info: types.Implementation | None = None
        self.instructions = ""
        self.exit_reason: str | None = None  # why the connection ended, once it has
        self._client: Client | None = None
        self._stop = anyio.Event()
        self._ended = anyio.Event()
        # Kept open for the connection's life, to quote a failed command's last stderr lines in its errors.
        self._stderr = cast(TextIO, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))  # noqa: SIM115

    @property
    def target(self) -> str:
        return self.server.target

    @property
    def alive(self) -> bool:
        return self._client is not None and self.exit_reason is None

    async def start(self, tasks: TaskGroup) -> None:
        """Connect in a task of `tasks` and list the tools; `UpstreamFailure` if that does not work in time."""
        try:
            with anyio.fail_after(self.connect_timeout):
                await tasks.start(self._hold)
                assert self._client is not None
                self.tools = await self._all_tools(self._client)
        except TimeoutError:
            await self.stop()
            raise UpstreamFailure(
                self.target,
                "connect and tools/list",
                f"no answer within {self.connect_timeout:g} s{self.stderr_tail()}",
            ) from None
        except UpstreamFailure:
            await self.stop()
            raise
        except MCPError as e:
            await self.stop()
            raise UpstreamFailure(self.target, "tools/list", f"the server answered an error: {e}") from e

    async def _hold(self, *, task_status: TaskStatus[None]) -> None:
        # The client is entered and left in this one task (anyio's cancel scopes demand it); a failure of
        # the connection ends this task, never the task group that serves other sessions.
        started = False
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(self._connect(stack))
                self._client = client
                self.server_info = client.server_info
                self.instructions = client.instructions or ""
                started = True
                task_status.started()
                await self._stop.wait()
            self.exit_reason = self.exit_reason or "stopped by the proxy"
        except Exception as e:
            self.exit_reason = f"the connection ended ({_leaf(e)}){self.stderr_tail()}"
            logger.debug("upstream %s ended", self.target, exc_info=True)
            if not started:
                raise UpstreamFailure(self.target, "connect", self.exit_reason) from None
        finally:
            self._ended.set()

    def _connect(self, stack: AsyncExitStack) -> Client:
        if isinstance(self.server, HttpServer):
            http = httpx2.AsyncClient(headers=dict(self.server.headers), timeout=httpx2.Timeout(self.timeout))
            stack.push_async_callback(http.aclose)
            return Client(streamable_http_client(self.server.url, http_client=http), cache=None)
        parameters = StdioServerParameters(
            command=self.server.command[0],
            args=list(self.server.command[1:]),
            env=dict(self.server.env) if self.server.env is not None else None,
            cwd=self.server.cwd,
        )
        return Client(stdio_client(parameters, errlog=self._stderr), cache=None)

    async def _all_tools(self, client: Client) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(1000):
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                return tools
        raise UpstreamFailure(self.target, "tools/list", "its cursors did not end within 1000 pages")

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Forward one call; the server's own JSON-RPC error is raised as the `MCPError` it is."""
        call = f"tools/call {name!r}"
        if self._client is None or self.exit_reason is not None:
            raise UpstreamFailure(self.target, call, self.exit_reason or "not connected")
        try:
            with anyio.fail_after(self.timeout):
                return await self._client.call_tool(name, arguments)
        except TimeoutError:
            self.exit_reason = f"no answer to {call} within {self.timeout:g} s"
            raise UpstreamFailure(self.target, call, f"no answer within {self.timeout:g} s (a hung server?)") from None
        except MCPError as e:
            if self._ended.is_set() or _is_closed(e):
                self.exit_reason = self.exit_reason or f"the connection closed ({e})"
                raise UpstreamFailure(
                    self.target, call, f"the server exited or closed the connection{self.stderr_tail()}"
                ) from e
            raise
        except Exception as e:  # a reply that is no MCP (garbage on stdout, a broken HTTP answer)
            self.exit_reason = f"{type(e).__name__}: {e}"
            raise UpstreamFailure(self.target, call, f"no usable answer ({_leaf(e)}){self.stderr_tail()}") from e

    async def stop(self) -> None:
        self._stop.set()
        with anyio.move_on_after(5):
            await self._ended.wait()

    def stderr_tail(self) -> str:
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            lines = [line.rstrip() for line in self._stderr.read().splitlines() if line.strip()]
            self._stderr.seek(0, 2)
        except (OSError, ValueError):
            return ""
        if not lines:
            return ""
        return "; its stderr ended with: " + " | ".join(lines[-_STDERR_TAIL:])


def _is_closed(error: MCPError) -> bool:
    text = str(error).lower()
    return "closed" in text or ("connection" in text and "lost" in text)


def _leaf(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
