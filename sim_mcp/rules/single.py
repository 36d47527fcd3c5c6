"""A program for one tool, as a model writes it (`--llm-output program`, `sim-mcp compile`).

The model is asked for the tool's function (`def create_transfer(state, args):`); a program that names its
one public function otherwise (`def run(state, args):`) gets the tool's function added, calling it.
"""

from __future__ import annotations

import re

from sim_mcp.errors import RulesError
from sim_mcp.rules.program import Program, compile_program, function_name
from sim_mcp.specs.model import Environment

_DEF = re.compile(r"^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
_TODAY = re.compile(
    r"(?:current date|current time|today|the date|the time)\s+is\s+(?:around\s+|about\s+)?(\d{4}-\d{2}-\d{2})"
    r"(?:\D{0,30}?(\d{2}):(\d{2}))?",
    re.IGNORECASE,
)


def tool_program(text: str, tool: str, source: str) -> Program:
    """Compile `text` as the program of `tool`; `RulesError` (with the line) when it does not compile or
    defines no function that could be the tool's (what a model's profile rewrites is rewritten already)."""
    name = function_name(tool)
    defined = _DEF.findall(text)
    if name not in defined:
        public = [found for found in defined if not found.startswith("_")]
        if len(public) != 1:
            found = f"it defines {', '.join(defined)}" if defined else "it defines no function"
            raise RulesError(source, f"expected a function def {name}(state, args): ({found})", tool=tool)
        text += f"\n\ndef {name}(state, args):\n    return {public[0]}(state, args)\n"
    return compile_program(text, source, [tool])


def clock_of(environment: Environment) -> str | None:
    """The session clock the environment names, as a program's CLOCK: its `now`, else the current date its
    instructions name ("The current date is 2025-03-14 (around 10:00 UTC)"); None when it names none."""
    if environment.now is not None:
        return environment.now
    match = _TODAY.search(environment.instructions or "")
    if match is None:
        return None
    hour, minute = match.group(2) or "09", match.group(3) or "00"
    return f"{match.group(1)}T{hour}:{minute}:00Z"
