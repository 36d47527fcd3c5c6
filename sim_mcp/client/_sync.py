"""`SyncSimClient` and `SyncSimSession`: the async client for code without an event loop (Gymnasium, notebooks).

Each `SyncSimClient` runs an event loop in a thread of its own (an anyio blocking portal) and runs the
async client's methods there, so its sessions may be used from any thread, but not from inside that
loop. Close it (`with SyncSimClient(...) as sim:` or `close()`) to stop the thread.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, ExitStack
from functools import partial
from types import TracebackType
from typing import TypeVar, Unpack

from anyio.from_thread import BlockingPortal, start_blocking_portal

from sim_mcp.client._client import DEFAULT_URL, NewSession, SimClient, SimSession, TrajectoryFormat
from sim_mcp.client._errors import SimClientError
from sim_mcp.client._facts import SessionFacts
from sim_mcp.client._models import JSON, Evaluation, Event, SessionInfo, TaskInfo, ToolInfo, ToolResult, UserReply

_T = TypeVar("_T")


class SyncSimClient:
    """`SimClient` with blocking methods; the same arguments, the same answers and errors."""

    def __init__(
        self, base_url: str = DEFAULT_URL, *, token: str | None = None, timeout: float = 60.0, mcp_mode: str = "auto"
    ) -> None:
        self._stack = ExitStack()
        self._portal: BlockingPortal = self._stack.enter_context(start_blocking_portal())
        self.client = SimClient(base_url, token=token, timeout=timeout, mcp_mode=mcp_mode)
        self._closed = False

    @property
    def base_url(self) -> str:
        return self.client.base_url

    def __enter__(self) -> SyncSimClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connections and stop the client's thread; sessions on the server live on."""
        if not self._closed:
            self._closed = True
            try:
                self._portal.call(self.client.aclose)
            finally:
                self._stack.close()

    def run(self, fn: Callable[[], Awaitable[_T]]) -> _T:
        """Run an async function of ours (`lambda: session.call_tool(...)`) in the client's loop."""
        if self._closed:
            raise SimClientError("this SyncSimClient is closed: make a new one")
        return self._portal.call(fn)

    def health(self) -> dict[str, JSON]:
        return self.run(self.client.health)

    def tasks(self) -> list[TaskInfo]:
        return self.run(self.client.tasks)

    def task(self, name: str) -> TaskInfo:
        return self.run(partial(self.client.task, name))

    def create_session(self, **given: Unpack[NewSession]) -> SyncSimSession:
        """See `SimClient.create_session`."""
        return SyncSimSession(self, self.run(partial(self.client.create_session, **given)))

    def session(self, id: str) -> SyncSimSession:
        return SyncSimSession(self, self.run(partial(self.client.session, id)))

    def sessions(self) -> list[SessionInfo]:
        return self.run(self.client.sessions)

    def portal(self) -> BlockingPortal:
        """The portal running the client's event loop (to enter async context managers from sync code)."""
        return self._portal


class SyncSimSession(SessionFacts):
    """`SimSession` with blocking methods. `with session:` keeps one MCP connection open for its calls."""

    def __init__(self, sim: SyncSimClient, session: SimSession) -> None:
        self.sim = sim
        self.session = session
        self._connection: AbstractContextManager[SimSession] | None = None

    def _latest(self) -> SessionInfo:
        return self.session.info

    @property
    def info(self) -> SessionInfo:
        return self.session.info

    def __enter__(self) -> SyncSimSession:
        connection = self.sim.portal().wrap_async_context_manager(self.session)
        connection.__enter__()
        self._connection = connection
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.__exit__(exc_type, exc, tb)

    def list_tools(self) -> list[ToolInfo]:
        return self.sim.run(self.session.list_tools)

    def call_tool(self, name: str, arguments: dict[str, JSON] | None = None) -> ToolResult:
        return self.sim.run(partial(self.session.call_tool, name, arguments))

    def refresh(self) -> SessionInfo:
        return self.sim.run(self.session.refresh)

    def state(self) -> JSON:
        return self.sim.run(self.session.state)

    def events(self, last: int | None = None) -> list[Event]:
        return self.sim.run(partial(self.session.events, last))

    def trajectory(self, format: TrajectoryFormat = "events") -> list[dict[str, JSON]]:
        return self.sim.run(partial(self.session.trajectory, format))

    def reset(self, snapshot: str | None = None) -> JSON:
        return self.sim.run(partial(self.session.reset, snapshot))

    def snapshot(self, name: str) -> SessionInfo:
        return self.sim.run(partial(self.session.snapshot, name))

    def fork(self, id: str | None = None) -> SyncSimSession:
        return SyncSimSession(self.sim, self.sim.run(partial(self.session.fork, id)))

    def delete(self) -> None:
        self.sim.run(self.session.delete)

    def evaluate(self, task: str | dict[str, JSON] | None = None, *, curriculum: bool | None = None) -> Evaluation:
        return self.sim.run(partial(self.session.evaluate, task, curriculum=curriculum))

    def say(self, message: str) -> UserReply:
        return self.sim.run(partial(self.session.say, message))
