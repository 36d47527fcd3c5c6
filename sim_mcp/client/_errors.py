"""Exceptions of the client side: what went wrong talking to a sim-mcp server, and what to do about it.

The tree::

    SimClientError               root: catch this to catch anything the client raises
    ├── ServerUnreachable        nothing answers at the server's URL (not started, wrong port, gone)
    ├── ControlApiError          the control API answered with an error status (status, field, body)
    │   ├── UnauthorizedError    401: the server has a token and ours is missing or wrong
    │   ├── NotFoundError        404: no session (or task) with that name
    │   ├── ConflictError        409: the id is taken, or the simulated user ended the conversation
    │   ├── InvalidRequestError  422: a bad value, e.g. an unknown environment or task (names the field)
    │   └── CapacityError        429: the server holds its maximum number of sessions
    ├── McpError                 the MCP endpoint failed (a protocol error, not a tool's error result)
    ├── ToolCallError            a tool answered with an error result (from `ToolResult.raise_for_error()`)
    └── EpisodeError             misuse of an episode (a step after it ended, a bad action)

A tool's error result (`is_error`) is not an exception by default: an agent should see it and react.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sim_mcp.errors import SimMcpError


class SimClientError(SimMcpError):
    """Root of every exception the sim-mcp client raises on purpose."""


class ServerUnreachable(SimClientError):
    """No sim-mcp server answers at `url`."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(
            f"cannot reach a sim-mcp server at {url} ({reason}): start one with `sim-mcp serve` "
            "(or `sim_mcp.client.LocalServer()`), or pass the right base_url"
        )


class ControlApiError(SimClientError):
    """The control API answered `status` with an error message (`error` in its JSON body)."""

    def __init__(self, status: int, message: str, *, method: str, path: str, body: Any = None) -> None:
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.body = body
        self.field: str | None = body.get("field") if isinstance(body, dict) else None
        super().__init__(f"{method} {path}: HTTP {status}: {message}")


class UnauthorizedError(ControlApiError):
    """401: pass the server's token as `SimClient(token=...)`."""


class NotFoundError(ControlApiError):
    """404: no session or task with that name."""


class ConflictError(ControlApiError):
    """409: the session id is taken, or the simulated user has ended the conversation."""


class InvalidRequestError(ControlApiError):
    """422: a value the server cannot use; `field` names it (`env`, `task`, `state.tickets`, ...)."""


class CapacityError(ControlApiError):
    """429: the server holds `--max-sessions` sessions; delete some, or raise the limit."""


class McpError(SimClientError):
    """The MCP endpoint failed: a JSON-RPC error or a broken connection, not a tool's error result."""

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        super().__init__(f"MCP request to {url} failed: {message}")


class ToolCallError(SimClientError):
    """A tool answered with an error result."""

    def __init__(self, tool: str, message: str) -> None:
        self.tool = tool
        self.message = message
        super().__init__(f"tool {tool!r} answered with an error: {message}")


class EpisodeError(SimClientError):
    """An episode used in a way it cannot be: a step before `reset()` or after the episode ended, a bad action."""


_BY_STATUS: Mapping[int, type[ControlApiError]] = MappingProxyType(
    {
        401: UnauthorizedError,
        404: NotFoundError,
        409: ConflictError,
        422: InvalidRequestError,
        429: CapacityError,
    }
)


def api_error(status: int, message: str, *, method: str, path: str, body: Any = None) -> ControlApiError:
    """The `ControlApiError` subclass for an HTTP status."""
    cls = _BY_STATUS.get(status, ControlApiError)
    if status == 401:
        message += " (pass the server's --token as SimClient(token=...))"
    return cls(status, message, method=method, path=path, body=body)
