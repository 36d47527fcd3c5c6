"""Capture a live MCP server's tools as an environment: the start of a simulated twin.

`capture(server)` connects to a server, over Streamable HTTP (`HttpServer`) or by starting a stdio command
(`StdioServer`), lists every tool (following `nextCursor`), and reads them with the MCP reader, so a
captured server's tools are checked exactly as an MCP `tools/list` file would be. The environment is named
after the server (or `name`), described by its server info, and takes the server's `instructions`; its
`initial_state` is empty, for the user to fill in.

Every failure (no connection, a command that cannot start or exits, an HTTP error, no answer in time, tools
that do not read as a spec) is a `CaptureError` naming the URL or command and what was expected.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, cast

import anyio
import httpx2
from mcp import StdioServerParameters
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation, Tool

from sim_mcp.errors import CaptureError, SpecError
from sim_mcp.specs.formats import read_document
from sim_mcp.specs.model import Environment

__all__ = [
    "CaptureError",
    "HttpServer",
    "LiveServer",
    "StdioServer",
    "capture",
    "environment_name_for",
    "tools_environment",
]

_MAX_PAGES = 1000
"""Most `tools/list` pages followed: a server whose cursors never end cannot hang a capture."""
_STDERR_TAIL_LINES = 15
"""Lines of a failed command's stderr quoted in the error."""
_NAME_LIMIT = 64


@dataclass(frozen=True)
class HttpServer:
    """A server at a Streamable HTTP endpoint, e.g. `http://127.0.0.1:8000/mcp`; `headers` go on every request."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def target(self) -> str:
        return self.url


@dataclass(frozen=True)
class StdioServer:
    """A server started as `command` (program and arguments), spoken to over its stdin and stdout.

    `env` is the whole environment of the command (None: the MCP SDK's default, a few safe variables).
    """

    command: Sequence[str]
    env: Mapping[str, str] | None = None
    cwd: Path | None = None

    @property
    def target(self) -> str:
        return f"command `{shlex.join(self.command)}`"


LiveServer = HttpServer | StdioServer


# `timeout` rather than the caller's `fail_after` (ASYNC109): the error for a server that never answers
# must name the server and quote a stdio command's stderr, which only this function holds.
async def capture(server: LiveServer, *, name: str | None = None, timeout: float = 30.0) -> Environment:  # noqa: ASYNC109
    """Connect to `server`, list all its tools, and return them as an environment.

    `name` names the environment (default: the server's name, cut down to the allowed characters).
    The whole capture, from start or connection to the last page of tools, must end within `timeout`
    seconds. Raises `CaptureError` naming the server on any failure.
    """
    if isinstance(server, StdioServer) and not server.command:
        raise CaptureError("a command", "no command given: expected a program and its arguments")
    if name is not None and not re.fullmatch(r"[A-Za-z0-9_\-]{1,64}", name):
        raise CaptureError(server.target, f"{name!r} is not an environment name: expected 1-64 of A-Z a-z 0-9 _ -")
    if timeout <= 0:
        raise CaptureError(server.target, f"timeout must be a positive number of seconds, got {timeout}")
    with _stderr_file() as stderr:
        statuses: list[str] = []
        try:
            with anyio.fail_after(timeout):
                async with AsyncExitStack() as stack:
                    client = await stack.enter_async_context(_client(server, stack, stderr, statuses, timeout))
                    tools = await _all_tools(client, server)
                    info = client.server_info
                    instructions = client.instructions or ""
        except CaptureError:
            raise
        except TimeoutError as e:
            reason = f"no complete answer within {timeout:g} s: expected an MCP server that lists its tools"
            raise CaptureError(server.target, reason + _stderr_tail(stderr)) from e
        except Exception as e:
            raise CaptureError(server.target, _reason(e, server, statuses) + _stderr_tail(stderr)) from e
    return tools_environment(server, tools, info, instructions, name)


def environment_name_for(server_name: str) -> str:
    """`server_name` cut down to an environment name: runs of other characters become `_`, ends trimmed.

    `@modelcontextprotocol/server-memory` -> `modelcontextprotocol_server-memory`.
    """
    name = re.sub(r"[^A-Za-z0-9_\-]+", "_", server_name).strip("_-")[:_NAME_LIMIT].strip("_-")
    return name or "captured"


def _client(server: LiveServer, stack: AsyncExitStack, stderr: TextIO, statuses: list[str], timeout: float) -> Client:
    if isinstance(server, HttpServer):

        async def note_status(response: httpx2.Response) -> None:
            if response.status_code >= 400:
                statuses.append(f"HTTP {response.status_code} {response.reason_phrase}".rstrip())

        http = httpx2.AsyncClient(
            headers=dict(server.headers), timeout=httpx2.Timeout(timeout), event_hooks={"response": [note_status]}
        )
        stack.push_async_callback(http.aclose)
        transport = streamable_http_client(server.url, http_client=http)
    else:
        parameters = StdioServerParameters(
            command=server.command[0],
            args=list(server.command[1:]),
            env=dict(server.env) if server.env is not None else None,
            cwd=server.cwd,
        )
        transport = stdio_client(parameters, errlog=stderr)
    # No response cache: a capture reads every page once, fresh.
    return Client(transport, cache=None)


async def _all_tools(client: Client, server: LiveServer) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            return tools
        if cursor in seen:
            reason = f"tools/list returned the cursor {cursor!r} twice: expected each page to lead to a new one"
            raise CaptureError(server.target, reason)
        seen.add(cursor)
    raise CaptureError(server.target, f"tools/list did not end within {_MAX_PAGES} pages")


def tools_environment(
    server: LiveServer, tools: list[Tool], info: Implementation | None, instructions: str, name: str | None
) -> Environment:
    """Tools listed by a live server as an environment, checked as an MCP `tools/list` file would be."""
    # Read as the MCP `tools/list` file it would be, so captured tools are checked like any other spec.
    document: dict[str, Any] = {
        "tools": [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    }
    if info is not None:
        document["serverInfo"] = info.model_dump(mode="json", by_alias=True, exclude_none=True)
    try:
        environment = read_document(document, server.target, "mcp")
    except SpecError as e:
        reason = f"the server's tools do not make a valid spec: {e.place + ': ' if e.place else ''}{e.reason}"
        raise CaptureError(server.target, reason) from e
    server_name = (info.name if info is not None else "") or _fallback_name(server)
    return environment.model_copy(
        update={"name": name or environment_name_for(server_name), "instructions": instructions, "source": ""}
    )


def _fallback_name(server: LiveServer) -> str:
    """For a server that does not name itself: the URL's host, or the command's program name."""
    if isinstance(server, HttpServer):
        return httpx2.URL(server.url).host or "captured"
    return Path(server.command[0]).name


def _reason(error: BaseException, server: LiveServer, statuses: list[str]) -> str:
    """What went wrong, from the innermost errors of the SDK's exception groups, in a user's words."""
    leaves = list(_leaves(error))
    for leaf in leaves:
        if isinstance(leaf, CaptureError):
            return leaf.reason
    status = f" ({statuses[-1]})" if statuses else ""
    for leaf in leaves:
        if isinstance(leaf, httpx2.InvalidURL | httpx2.UnsupportedProtocol):
            return f"not a usable URL ({leaf}): expected an http:// or https:// MCP endpoint"
        if isinstance(leaf, httpx2.ConnectError | httpx2.ConnectTimeout):
            return f"cannot connect ({leaf or type(leaf).__name__}): is the server running at that URL?"
        if isinstance(leaf, httpx2.HTTPError):
            return f"HTTP request failed ({type(leaf).__name__}: {leaf}){status}"
        if isinstance(leaf, FileNotFoundError | PermissionError) and isinstance(server, StdioServer):
            return f"cannot start the command ({leaf.strerror}: {server.command[0]}): expected an executable"
        if isinstance(leaf, OSError):
            return f"{type(leaf).__name__}: {leaf}"
    for leaf in leaves:
        if isinstance(leaf, MCPError):
            if isinstance(server, StdioServer) and "closed" in str(leaf).lower():
                return "the command exited or closed its stdout before answering: expected an MCP server on stdio"
            if statuses:
                return f"the server answered {statuses[-1]}: expected an MCP endpoint (check the URL and headers)"
            return f"the server answered with an MCP error: {leaf}"
    first = leaves[0] if leaves else error
    return f"{type(first).__name__}: {first}{status}"


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _stderr_file() -> TextIO:
    """Where a stdio command's stderr goes: kept, to quote its last lines if the capture fails."""
    return cast(TextIO, tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))


def _stderr_tail(stderr: TextIO) -> str:
    """The last lines a failed stdio command wrote to stderr, to quote in the error ('' when none)."""
    try:
        stderr.flush()
        stderr.seek(0)
        lines = [line.rstrip() for line in stderr.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    if not lines:
        return ""
    tail = "\n".join(f"  {line}" for line in lines[-_STDERR_TAIL_LINES:])
    return f"\nits stderr ended with:\n{tail}"
