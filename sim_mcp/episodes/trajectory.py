"""A session's events as trajectories, in JSON Lines: our own event schema, or OpenAI chat messages for SFT.

Pure functions, no I/O. Two formats (see docs/training.md):

- **events**: one line per event, `{"session": ID, **Event}`: everything the log holds (arguments, result,
  is_error, state_patch, backend, tokens, latency, note, fault).
- **openai**: one line per session (an episode), `{"messages": [...], "tools": [...]}`, the shape of
  OpenAI's chat fine-tuning files. Each tool call becomes an assistant message with one `tool_calls`
  entry (`id` "call_SEQ", the arguments as a JSON string) followed by a `tool` message whose content is the
  result text the agent got (JSON for non-text results, an error's message for an error). `tools` are the
  tools the session's agent was offered, as OpenAI functions (`parameters` is the input schema).

Events of other kinds (a simulated user's or the agent's own messages, when the log holds them) become
`user` and `assistant` messages in log order: `{"role", "content": the event's result as text}`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sim_mcp.engine.contract import result_text
from sim_mcp.specs.model import ToolSpec
from sim_mcp.specs.registry import Catalog
from sim_mcp.state.session import Event

__all__ = [
    "TRAJECTORY_FORMATS",
    "AgentTool",
    "TrajectoryFormat",
    "agent_tools",
    "event_line",
    "events_lines",
    "openai_episode",
    "openai_tool",
    "to_jsonl",
    "trajectory_format",
    "trajectory_lines",
]

TrajectoryFormat = Literal["events", "openai"]
TRAJECTORY_FORMATS: tuple[TrajectoryFormat, ...] = ("events", "openai")


@dataclass(frozen=True, slots=True)
class AgentTool:
    """A tool as the agent saw it: the name it was served under, its environment and its spec."""

    name: str
    environment: str
    spec: ToolSpec


def trajectory_format(name: str) -> TrajectoryFormat | None:
    """`name` as a trajectory format, or None when it is not one of `TRAJECTORY_FORMATS`."""
    for format in TRAJECTORY_FORMATS:
        if name == format:
            return format
    return None


def agent_tools(catalog: Catalog, environment: str | None) -> list[AgentTool]:
    """The tools a session's agent is offered: one environment's (plain names) or all of them (names as on `/mcp`)."""
    return [
        AgentTool(tool.served_name(environment), tool.environment.name, tool.spec)
        for tool in catalog.tools_of(environment)
    ]


def trajectory_lines(
    format: TrajectoryFormat, session_id: str, events: Sequence[Event], tools: Sequence[AgentTool]
) -> list[dict[str, Any]]:
    """A session's lines in `format`: one per event (`events`), or one for the whole episode (`openai`)."""
    if format == "events":
        return events_lines(session_id, events)
    return [openai_episode(events, tools)]


def event_line(session_id: str, event: Event) -> dict[str, Any]:
    """One event in our schema, with the session it belongs to."""
    return {"session": session_id, **event.model_dump(mode="json")}


def events_lines(session_id: str, events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event_line(session_id, event) for event in events]


def openai_tool(tool: AgentTool) -> dict[str, Any]:
    """A tool in OpenAI's function form."""
    function: dict[str, Any] = {"name": tool.name}
    description = tool.spec.description or tool.spec.title
    if description:
        function["description"] = description
    function["parameters"] = tool.spec.input_schema
    return {"type": "function", "function": function}


def openai_episode(events: Iterable[Event], tools: Sequence[AgentTool]) -> dict[str, Any]:
    """One session as an OpenAI chat fine-tuning example: `{"messages": [...], "tools": [...]}`."""
    served = {(tool.environment, tool.spec.name): tool.name for tool in tools}
    messages: list[dict[str, Any]] = []
    for event in events:
        messages.extend(_messages(event, served))
    return {"messages": messages, "tools": [openai_tool(tool) for tool in tools]}


def to_jsonl(lines: Iterable[dict[str, Any]]) -> str:
    """JSON Lines: one compact JSON object per line, each ending with a newline."""
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


def _messages(event: Event, served: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    role = _message_role(event.kind)
    if role is not None:
        return [{"role": role, "content": result_text(event.result)}]
    call_id = f"call_{event.seq}"
    name = served.get((event.environment, event.tool), event.tool)
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(event.arguments, ensure_ascii=False)},
    }
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": result_text(event.result)},
    ]


def _message_role(kind: str) -> Literal["user", "assistant"] | None:
    """The chat role of an event that is a message rather than a tool call."""
    match kind:
        case "user_message":
            return "user"
        case "agent_message" | "assistant_message":
            return "assistant"
        case _:
            return None
