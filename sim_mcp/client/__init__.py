"""The client side of sim-mcp: drive a running server's sessions from a harness, over HTTP and MCP.

    from sim_mcp.client import SimClient

    async with SimClient("http://127.0.0.1:8765") as sim:
        session = await sim.create_session(task="tickets-close-sso", seed=1)
        await session.call_tool("close_ticket", {"ticket_id": "T-1004", "resolution": "Okta fixed"})
        print((await session.evaluate()).reward)

`SyncSimClient` / `SyncSimSession` are the same with blocking methods; `LocalServer` starts a
`sim-mcp serve` subprocess on 127.0.0.1 for examples and tests. See docs/integrations.md.
"""

from sim_mcp.client._client import DEFAULT_URL, NewSession, SimClient, SimSession, TrajectoryFormat
from sim_mcp.client._errors import (
    CapacityError,
    ConflictError,
    ControlApiError,
    EpisodeError,
    InvalidRequestError,
    McpError,
    NotFoundError,
    ServerUnreachable,
    SimClientError,
    ToolCallError,
    UnauthorizedError,
)
from sim_mcp.client._models import (
    CheckResult,
    Evaluation,
    Event,
    JudgeResult,
    SessionInfo,
    SolutionStep,
    TaskInfo,
    Tokens,
    ToolInfo,
    ToolResult,
    UserReply,
)
from sim_mcp.client._server import LocalServer
from sim_mcp.client._sync import SyncSimClient, SyncSimSession

__all__ = [
    "DEFAULT_URL",
    "CapacityError",
    "CheckResult",
    "ConflictError",
    "ControlApiError",
    "EpisodeError",
    "Evaluation",
    "Event",
    "InvalidRequestError",
    "JudgeResult",
    "LocalServer",
    "McpError",
    "NewSession",
    "NotFoundError",
    "ServerUnreachable",
    "SessionInfo",
    "SimClient",
    "SimClientError",
    "SimSession",
    "SolutionStep",
    "SyncSimClient",
    "SyncSimSession",
    "TaskInfo",
    "Tokens",
    "ToolCallError",
    "ToolInfo",
    "ToolResult",
    "TrajectoryFormat",
    "UnauthorizedError",
    "UserReply",
]
