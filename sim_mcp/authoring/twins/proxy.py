"""The recording proxy behind `sim-mcp record`: serves a real MCP server's tools, forwards every call to
it, answers with the real result unchanged, and appends each answered call to the recordings file.

Sessions: over stdio the process is one session (named by `--session`, else `stdio-<random>`); over HTTP
a request names its session with `?session=NAME` or the `sim-mcp-session` header, else the handshake-era
`Mcp-Session-Id`, else it goes to `default`. By default every session talks to one running server (a real
server has one world); with `fresh` each session gets a server of its own, started in a new temporary
folder (`upstream.fresh_server`), so recorded sessions all start from the same world; `{tmp}` in a call's
arguments is that folder (the recordings write it so), and the answers keep the real folder.

When the server fails a call (it exits, hangs past the time limit, answers no MCP) the client gets a
JSON-RPC error naming the server and the call, nothing is recorded for that call, and the proxy either
starts the server again (`on_failure="restart"`: a `restarted` line in the recordings says that the
session's world starts anew there) or stops forwarding (`"stop"`: later calls get the same error). The
log says which, once per failure.

When the proxy stops, every server it started is stopped, whatever it does with EOF: its stdin is closed,
then it is waited for, terminated and killed (the SDK's own escalation, every session's at once), and
any process of its group still alive after that is killed with the group; then the sessions' folders
are removed.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from uuid import uuid4

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from starlette.requests import Request

from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME, RecordingsWriter
from sim_mcp.authoring.twins.upstream import Upstream, UpstreamFailure, fresh_server, with_folder, without_folder
from sim_mcp.errors import ConfigError, SimMcpError
from sim_mcp.specs.capture import LiveServer, tools_environment
from sim_mcp.specs.writer import environment_yaml

__all__ = ["SPEC_NAME", "OnFailure", "ProxySettings", "RecordingProxy"]

logger = logging.getLogger("sim_mcp")

SPEC_NAME = "spec.yaml"
_INTERNAL_ERROR = -32603
OnFailure = Literal["restart", "stop"]
_POLL = 0.05  # seconds between looks at a process group being stopped


@dataclass(frozen=True)
class ProxySettings:
    server: LiveServer
    output: Path
    fresh: bool = False
    redact: list[str] = field(default_factory=list)
    timeout: float = 60.0
    on_failure: OnFailure = "restart"
    name: str | None = None


@dataclass
class _Live:
    """The server a session (or all of them) talks to, and the temporary folder it runs in."""

    upstream: Upstream
    folder: Path | None
    restarts: int = 0
    group: int | None = None  # the server's process group (a command's), to kill what outlives its stop


class RecordingProxy:
    """Use as `async with proxy.running():`, then serve `proxy.mcp_server()` over stdio or HTTP."""

    def __init__(self, settings: ProxySettings) -> None:
        self.settings = settings
        self.writer = RecordingsWriter(settings.output / RECORDINGS_NAME, settings.redact)
        self.tools: list[types.Tool] = []
        self.stopped: str | None = None  # why forwarding stopped (on_failure="stop")
        self.calls = 0
        self._tasks: TaskGroup | None = None
        self._shared: _Live | None = None
        self._sessions: dict[str, _Live] = {}
        self._sequence: dict[str, int] = {}
        self._locks: dict[str, anyio.Lock] = {}
        self._starting = anyio.Lock()  # one server starts at a time, so that its process is known

    @asynccontextmanager
    async def running(self) -> AsyncIterator[RecordingProxy]:
        """Start the server (its tools become the spec, written to the output folder), keep it and every
        session's server running, stop them all at the end."""
        self.writer.open()
        try:
            async with _plain_errors(), anyio.create_task_group() as tasks:
                self._tasks = tasks
                first = await self._start_live()
                self.tools = first.upstream.tools
                self._write_spec(first.upstream)
                if self.settings.fresh:
                    await self._end(first)  # each session will have its own
                else:
                    self._shared = first
                try:
                    yield self
                finally:
                    with anyio.CancelScope(shield=True):
                        async with anyio.create_task_group() as ending:
                            for live in [*self._sessions.values(), *([self._shared] if self._shared else [])]:
                                ending.start_soon(self._end, live)
                    tasks.cancel_scope.cancel()
        finally:
            self.writer.close()

    def mcp_server(self, stdio_session: str | None = None) -> Server[Any]:
        """The MCP server clients talk to; `stdio_session` names the one session of a stdio process."""
        process_session = stdio_session or f"stdio-{uuid4().hex[:12]}"

        async def list_tools(
            ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.tools)

        async def call_tool(
            ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            return await self.call(_session_of(ctx, process_session), params.name, params.arguments)

        return Server("sim-mcp-record", on_list_tools=list_tools, on_call_tool=call_tool)

    async def call(self, session: str, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """Forward one call of `session`, record what the server answered, and answer it unchanged."""
        lock = self._locks.setdefault(session, anyio.Lock())
        async with lock:  # a session's calls are recorded in the order the server answered them
            if self.stopped is not None:
                raise MCPError(_INTERNAL_ERROR, f"sim-mcp record stopped forwarding: {self.stopped}")
            live = await self._live_for(session)
            started = time.perf_counter()
            sent = with_folder(arguments, live.folder) if live.folder is not None else arguments
            try:
                result = await live.upstream.call(name, sent)
            except UpstreamFailure as e:
                raise MCPError(_INTERNAL_ERROR, await self._failed(session, live, e)) from None
            except MCPError as e:
                error = {"code": e.code, "message": e.message}
                self._record(session, live.folder, name, arguments, started, rpc_error=error)
                raise
            self._record(session, live.folder, name, arguments, started, result=result)
            return result

    def _record(
        self,
        session: str,
        folder: Path | None,
        name: str,
        arguments: dict[str, Any] | None,
        started: float,
        result: types.CallToolResult | None = None,
        rpc_error: dict[str, Any] | None = None,
    ) -> None:
        seq = self._sequence.get(session, 0) + 1
        self._sequence[session] = seq
        entry: dict[str, Any] = {"session": session, "seq": seq, "tool": name, "arguments": arguments or {}}
        if result is not None:
            entry["result"] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            entry["is_error"] = bool(result.is_error)
        else:
            entry["rpc_error"] = rpc_error
            entry["is_error"] = True
        entry["latency_ms"] = round((time.perf_counter() - started) * 1000, 3)
        self.writer.write(without_folder(entry, folder) if folder is not None else entry)
        self.calls += 1

    async def _failed(self, session: str, live: _Live, failure: UpstreamFailure) -> str:
        """Restart or stop after a failed call; the message the client gets says which."""
        await self._end(live, keep_folder=False)
        if self.settings.on_failure == "stop":
            self.stopped = str(failure)
            logger.error("record: %s; stopped forwarding (--on-failure stop): later calls get this error", failure)
            return f"{failure}; sim-mcp record stopped forwarding calls (--on-failure stop)"
        try:
            replacement = await self._start_live()
        except UpstreamFailure as e:
            self.stopped = f"{failure}; restarting it failed too: {e}"
            logger.error("record: %s; stopped forwarding", self.stopped)
            return f"{self.stopped}; sim-mcp record stopped forwarding calls"
        replacement.restarts = live.restarts + 1
        sessions = [session] if self.settings.fresh else sorted(self._sequence)
        for name in sessions:
            self.writer.write({"session": name, "restarted": str(failure)})
        if self.settings.fresh:
            self._sessions[session] = replacement
        else:
            self._shared = replacement
        logger.warning(
            "record: %s; restarted the server (a new world from here on for %s)", failure, ", ".join(sessions) or "all"
        )
        return f"{failure}; sim-mcp record restarted the server, whose world starts anew"

    async def _live_for(self, session: str) -> _Live:
        if not self.settings.fresh:
            if self._shared is None:
                raise MCPError(_INTERNAL_ERROR, "sim-mcp record: the server is not running")
            return self._shared
        live = self._sessions.get(session)
        if live is None:
            try:
                live = await self._start_live()
            except UpstreamFailure as e:
                raise MCPError(_INTERNAL_ERROR, f"{e} (starting a fresh server for session {session!r})") from None
            self._sessions[session] = live
        return live

    async def _start_live(self) -> _Live:
        assert self._tasks is not None, "use `async with proxy.running()`"
        folder = Path(tempfile.mkdtemp(prefix="sim-mcp-record-")) if self.settings.fresh else None
        server = fresh_server(self.settings.server, folder) if folder is not None else self.settings.server
        upstream = Upstream(server, self.settings.timeout)
        async with self._starting:
            before = _groups_started_here()
            try:
                await upstream.start(self._tasks)
            except UpstreamFailure:
                if folder is not None:
                    shutil.rmtree(folder, ignore_errors=True)
                raise
            started = sorted(_groups_started_here() - before)
        return _Live(upstream, folder, group=started[0] if len(started) == 1 else None)

    async def _end(self, live: _Live, keep_folder: bool = False) -> None:
        """Stop a server (close, wait, terminate, kill: `Upstream.stop`), kill what is left of its process
        group, remove its folder."""
        with anyio.CancelScope(shield=True):
            await live.upstream.stop()
            if live.group is not None:
                await _kill_group(live.group)
        if live.folder is not None and not keep_folder:
            shutil.rmtree(live.folder, ignore_errors=True)

    def _write_spec(self, upstream: Upstream) -> None:
        environment = tools_environment(
            self.settings.server, upstream.tools, upstream.server_info, upstream.instructions, self.settings.name
        )
        header = f"Captured from {self.settings.server.target} by sim-mcp record."
        path = self.settings.output / SPEC_NAME
        try:
            path.write_text(environment_yaml(environment, header=header), encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"-o {self.settings.output}: cannot write {path}: {e.strerror or e}") from e


@asynccontextmanager
async def _plain_errors() -> AsyncIterator[None]:
    """A failure to start the server as the one error it is, not wrapped in the task group's exception group."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = [leaf for leaf in _leaves(group) if isinstance(leaf, SimMcpError)]
        if leaves:
            raise leaves[0] from group
        raise


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _groups_started_here() -> set[int]:
    """The process groups led by a child of this process (a server started with a session of its own, as
    the SDK's stdio client starts one): Linux's /proc, else nothing (the SDK's own stop is all there is)."""
    me = os.getpid()
    groups: set[int] = set()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return groups
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and int(fields[2]) == int(entry):  # ppid, pgrp
            groups.add(int(entry))
    return groups


async def _kill_group(group: int, grace: float = 2.0) -> None:
    """Terminate what is left of a process group, then kill it if it outlives `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            return
        for _ in range(int(grace / _POLL)):
            if not _group_alive(group):
                return
            await anyio.sleep(_POLL)
    logger.warning("record: process group %d is still alive after SIGKILL", group)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _session_of(ctx: ServerRequestContext[Any], process_session: str) -> str:
    request = ctx.request
    if not isinstance(request, Request):
        return process_session
    named = request.query_params.get("session") or request.headers.get("sim-mcp-session")
    return named or request.headers.get("mcp-session-id") or "default"
