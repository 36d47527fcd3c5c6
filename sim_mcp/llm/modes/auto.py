"""`--llm-output auto`: each call answered in the mode that suits it, patch or program.

A program earns its cost where a call changes the state: the interpreter copies the arguments into the
record, counts, adds and stamps exactly, where a model writing a patch misses a field or a number. A read
changes nothing, and there a program is only slower: on the bundled scenarios (BENCHMARKS.md, "Choosing
the mode per call") the local model's programs and patches met the same share of reads, the programs at
about 1.4 times the time, while on calls that change the state programs got the state right more often.
So a call goes to program mode unless its tool reads (its name's intent is a get or a list, or the tool is
marked read-only); reads go to patch mode. The choice reads the tool's name, annotations and the state's
collections only, so all calls of a tool are answered one way, and its static prompt is built once.
"""

from __future__ import annotations

from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.engine.intent import Action, read_intent
from sim_mcp.specs.model import LlmOutput, ToolSpec

__all__ = ["chosen_mode", "reads"]


def chosen_mode(request: SimulationRequest) -> LlmOutput:
    """`patch` for a call of a tool that reads, `program` for any other."""
    return "patch" if reads(request.tool, request.state) else "program"


def reads(tool: ToolSpec, state: object) -> bool:
    """Whether `tool` only reads: marked read-only, or its name's intent is a get or a list."""
    if tool.annotations is not None and tool.annotations.read_only_hint:
        return True
    return read_intent(tool.name, state).action in (Action.GET, Action.LIST)
