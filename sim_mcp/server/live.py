"""Live updates for watchers of the session list (the web UI): which sessions changed, in this process.

`LiveFeed.publish(id)` is cheap and never blocks: it only marks the session as changed for each
watcher. Each watcher keeps a bounded, coalescing queue of session ids (a session that changes ten
times before the watcher catches up is sent once); a watcher that falls further behind than its bound
loses the ids and is told to `resync` (read the whole list again) instead. `close()` ends every watch,
so that open event streams finish before the server waits for its connections on shutdown
(`ShutdownAwareServer` calls it).

Like the resource notifications, the feed stays inside one process: with several replicas on Redis, a
watcher hears about the changes made through the replica it is connected to.
"""

from __future__ import annotations

import socket
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

import anyio
import uvicorn

from sim_mcp.errors import TooManyWatchers

# How long the server keeps an idle HTTP/1.1 connection open. Longer than clients keep theirs (httpx, under
# the MCP SDK, drops an idle pooled connection after 5 s), so a client never sends a request on a connection
# the server is closing at that instant: with both at 5 s, a busy client's POST raced the close and failed
# with a ReadError, a tool call lost. Load balancers are set up the same way (the backend outlasts them).
KEEP_ALIVE_S = 75


@dataclass(frozen=True)
class Update:
    """What a watcher is told next: the sessions that changed, or that it must read everything again."""

    session_ids: tuple[str, ...] = ()
    resync: bool = False
    closed: bool = False


class Watch:
    """One watcher's bounded, coalescing queue of changed session ids; use as `with feed.watch() as w`."""

    def __init__(self, feed: LiveFeed, session_id: str | None, max_pending: int) -> None:
        self._feed = feed
        self.session_id = session_id
        self.max_pending = max_pending
        self._pending: OrderedDict[str, None] = OrderedDict()
        self._resync = False
        self._closed = False
        self._wakeup = anyio.Event()

    def _offer(self, session_id: str) -> None:
        if self._closed or (self.session_id is not None and session_id != self.session_id):
            return
        if not self._resync:
            self._pending.pop(session_id, None)
            self._pending[session_id] = None
            if len(self._pending) > self.max_pending:
                self._pending.clear()
                self._resync = True
        self._wakeup.set()

    def _close(self) -> None:
        self._closed = True
        self._wakeup.set()

    async def next(self, idle_s: float) -> Update | None:
        """The next update, or None when `idle_s` seconds pass without one (time for a heartbeat)."""
        if not (self._pending or self._resync or self._closed):
            with anyio.move_on_after(idle_s):
                await self._wakeup.wait()
        # Re-armed before taking what is pending, with no await in between: no offer can be missed.
        self._wakeup = anyio.Event()
        if self._closed:
            return Update(closed=True)
        if self._resync:
            self._resync = False
            self._pending.clear()
            return Update(resync=True)
        if not self._pending:
            return None
        ids = tuple(self._pending)
        self._pending.clear()
        return Update(session_ids=ids)

    def __enter__(self) -> Watch:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._feed._drop(self)


class LiveFeed:
    """Fans "session X changed" out to the watchers of this process; see the module docstring."""

    def __init__(self, *, max_watchers: int = 64, max_pending: int = 512) -> None:
        self.max_watchers = max_watchers
        self.max_pending = max_pending
        self._watches: list[Watch] = []
        self._closed = False

    @property
    def watchers(self) -> int:
        return len(self._watches)

    @property
    def closed(self) -> bool:
        return self._closed

    def publish(self, session_id: str) -> None:
        """Session `session_id` changed (a call, a reset, a fork, a delete...): tell every watcher."""
        for watch in self._watches:
            watch._offer(session_id)

    def watch(self, session_id: str | None = None) -> Watch:
        """A new watcher, of every session or only `session_id`; raises `TooManyWatchers` when full."""
        if len(self._watches) >= self.max_watchers:
            raise TooManyWatchers(f"the server already streams live updates to {self.max_watchers} watchers")
        watch = Watch(self, session_id, self.max_pending)
        if self._closed:
            watch._close()
        self._watches.append(watch)
        return watch

    def close(self) -> None:
        """End every watch (the server is shutting down); watches made after this end at once."""
        self._closed = True
        for watch in self._watches:
            watch._close()

    def _drop(self, watch: Watch) -> None:
        if watch in self._watches:
            self._watches.remove(watch)


class ShutdownAwareServer(uvicorn.Server):
    """uvicorn's server, which first calls `on_shutdown` (e.g. `LiveFeed.close`) when it shuts down.

    uvicorn waits for open connections to finish before it runs the app's lifespan shutdown, and an
    event stream never finishes on its own; ending the streams first lets the shutdown go ahead.
    """

    def __init__(self, config: uvicorn.Config, on_shutdown: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_shutdown = on_shutdown

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self.on_shutdown()
        await super().shutdown(sockets)
