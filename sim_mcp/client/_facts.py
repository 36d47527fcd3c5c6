"""What a session handle tells of its session (`SimSession`, `SyncSimSession`)."""

from __future__ import annotations

from sim_mcp.client._models import SessionInfo


class SessionFacts:
    """What a session handle tells of its session, from the latest `SessionInfo` it has: shared by `SimSession`
    and `SyncSimSession`, so that the blocking handle can never tell something else."""

    def _latest(self) -> SessionInfo:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, env={self.env!r}, task={self.task!r})"

    @property
    def id(self) -> str:
        return self._latest().id

    @property
    def mcp_url(self) -> str:
        """The session's MCP endpoint (`.../mcp[/ENV]?session=ID`): give it to any MCP client or agent SDK."""
        return self._latest().mcp_url

    @property
    def env(self) -> str | None:
        return self._latest().env

    @property
    def task(self) -> str | None:
        return self._latest().task
