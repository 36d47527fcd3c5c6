"""Drive one server with generated sessions: how recordings are made without an agent (through the
recording proxy, `sim-mcp record`, which writes what the server answers) for tests and benchmarks."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import anyio
from mcp.shared.exceptions import MCPError

from sim_mcp.authoring.twins.session_gen import CallGenerator, session_rng
from sim_mcp.authoring.twins.targets import Target
from sim_mcp.authoring.twins.upstream import Upstream, UpstreamFailure
from sim_mcp.state.compare import answer_value

__all__ = ["SessionDriver", "drive_generated"]


class SessionDriver(Protocol):
    """What draws a session's calls: `session_gen.CallGenerator`, or a scripted agent of a benchmark."""

    def next_call(self) -> tuple[str, dict[str, Any]]: ...

    def observe(self, value: Any) -> None: ...


async def drive_generated(
    target: Target,
    sessions: int,
    calls: int,
    seed: int,
    prefix: str = "gen",
    seconds: float = 60.0,
    progress: Callable[[str], None] = lambda line: None,
    driver: Callable[[list[tuple[str, dict[str, Any]]], int], SessionDriver] | None = None,
) -> int:
    """Run `sessions` generated sessions of `calls` calls each against `target` (ready to drive); the
    number of calls answered. Session i is named `{prefix}-{seed}-{i}` and drawn from (seed, i): by
    `driver(tools, i)` when given, else by a `CallGenerator` on the tools' schemas."""
    answered = 0
    tools: list[tuple[str, dict[str, Any]]] | None = None
    for number in range(sessions):
        folder = Path(tempfile.mkdtemp(prefix="sim-mcp-drive-"))
        try:
            async with anyio.create_task_group() as tasks:
                upstream = Upstream(target.for_session(f"{prefix}-{seed}-{number}", folder), seconds)
                await upstream.start(tasks)
                tools = tools or [(tool.name, dict(tool.input_schema)) for tool in upstream.tools]
                generator = (
                    driver(tools, number) if driver is not None else CallGenerator(tools, session_rng(seed, number))
                )
                for _ in range(calls):
                    name, arguments = generator.next_call()
                    try:
                        result = await upstream.call(name, arguments)
                    except MCPError:
                        continue
                    except UpstreamFailure:
                        break
                    answered += 1
                    generator.observe(answer_value(result.model_dump(mode="json", by_alias=True, exclude_none=True)))
                await upstream.stop()
                tasks.cancel_scope.cancel()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        progress(f"session {number + 1}/{sessions}: {prefix}-{seed}-{number}")
    return answered
