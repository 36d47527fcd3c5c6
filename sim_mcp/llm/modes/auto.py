"""`--llm-output auto`: each call answered in the mode that suits it, patch or program.

A program earns its cost where a call changes the state: the interpreter copies the arguments into the
record, counts, adds and stamps exactly, where a model writing a patch misses a field or a number. A read
changes nothing, and there a program is only slower: on the bundled scenarios (BENCHMARKS.md, "Choosing
the mode per call") the local model's programs and patches met the same share of reads, the programs at
about 1.4 times the time, while on calls that change the state programs got the state right more often.
So a call goes to program mode unless its tool reads (its name's intent is a get or a list, or the tool is
marked read-only); reads go to patch mode. The choice reads the tool's name, annotations and the state's
collections only, so all calls of a tool are answered one way, and its static prompt is built once.

A program can also give no valid answer at all: it does not parse, fails when run, is cut off, or returns
the wrong shape. Program mode then ends the call in the simulator's error; auto falls back to patch mode
for the call's last attempt instead (`program_attempts`), asked afresh: the program's errors are about
code the patch prompt never shows. (So a tool that changes the state has two static prompts.)
"""

from __future__ import annotations

from dataclasses import replace

from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.engine.intent import Action, read_intent
from sim_mcp.llm.modes.base import Answering, ModeChooser
from sim_mcp.llm.modes.patch import PATCH
from sim_mcp.llm.modes.program import PROGRAM
from sim_mcp.specs.model import LlmOutput, ToolSpec

__all__ = ["AUTO", "AutoMode", "chosen_mode", "falls_back", "program_attempts", "reads"]


class AutoMode(ModeChooser):
    name: LlmOutput = "auto"

    def answering(self, request: SimulationRequest) -> Answering:
        if falls_back(request):
            # Its one attempt is asked afresh: the feedback so far is about programs.
            return Answering(PATCH, replace(request, feedback=[]), fallback=True)
        return Answering(PATCH if chosen_mode(request) == "patch" else PROGRAM, request)


def program_attempts(attempts: int) -> int:
    """How many of a call's `attempts` (`--max-attempts`) program mode gets before auto falls back to patch
    mode: all but the last, and at least one.

    Why the split leans to programs: on the bundled scenarios (BENCHMARKS.md, "Program mode against patch
    mode, call by call"; 167 calls, 2 attempts a mode) a patch was valid at its first attempt on 159 calls
    and at its second on the other 8, so a patch needs one attempt; a program's second attempt gave a valid
    answer on 18 of the 48 writes whose first failed, 3 of them exact state changes, which are what program
    mode is for. At the default 3 attempts, program 2 + patch 1 met 41.3% of results, 66.5% of states and
    17 of 55 exact changes (1 call left without an answer) at 62.6 s a call; program 1 + patch 2 met 41.3%,
    64.7%, 14 of 55 at 51.8 s; no fallback 35.3%, 67.7%, 17 of 55 at 57.0 s (30 calls without an answer).
    """
    return max(1, attempts - 1)


def falls_back(request: SimulationRequest) -> bool:
    """Whether this attempt of a call that auto answers with a program is patch mode's instead: the call
    changes the state, and program mode has had its attempts (none valid, or there would be no retry)."""
    return not reads(request.tool, request.state) and request.attempt >= program_attempts(request.attempts)


def chosen_mode(request: SimulationRequest) -> LlmOutput:
    """`patch` for a call of a tool that reads, `program` for any other, `patch` once that fell back."""
    return "patch" if reads(request.tool, request.state) or falls_back(request) else "program"


def reads(tool: ToolSpec, state: object) -> bool:
    """Whether `tool` only reads: marked read-only, or its name's intent is a get or a list."""
    if tool.annotations is not None and tool.annotations.read_only_hint:
        return True
    return read_intent(tool.name, state).action in (Action.GET, Action.LIST)


AUTO = AutoMode()
"""The mode, as the table of output modes names it."""
