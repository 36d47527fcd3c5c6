"""Compiling a rules program: Starlark source -> a frozen module with one function per tool.

A program is parsed and evaluated once, when its spec loads; the helpers of `helpers.PRELUDE` and the
Python helpers are in its module first, and a small entry point (`sim_mcp_call`) after it, which decodes
the state and the arguments, calls the tool's function and encodes its answer. Values cross between
Python and Starlark as JSON text: one string each way is far cheaper than converting a state value by value.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

import starlark

from sim_mcp.errors import RulesError
from sim_mcp.rules.helpers import (
    DEFAULT_CLOCK,
    PRELUDE,
    ContextSlot,
    parse_clock,
    python_helpers,
)

ENTRY = "sim_mcp_call"
# A program may define this function, `sim_mcp_handed_on(state, call)`: run after a call that the program
# did not answer (its tool's function declined it, or the tool has none) was answered by the backend, with
# `call` = {"tool", "arguments", "result"} of that success, so that the program's state sees what the answer
# showed (an id the server made up, which the program's own next id must not repeat). Called as a tool.
HANDED_ON = "sim_mcp_handed_on"
_DEF = re.compile(r"^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
_LOCATION = re.compile(r"-->\s*(?P<file>[^\n]*?):(?P<line>\d+):\d+")
_MESSAGE = re.compile(r"^error:\s*(?P<message>.+)$", re.MULTILINE)
# Starlark quotes keys in backticks and double quotes (Key `"id"` was not found): read as 'id'; and a parse
# error's list of the tokens it expected (noise beside the line number) is left out.
_KEY_QUOTES = re.compile(r'`"([^"`]*)"`')
_EXPECTED_TOKENS = re.compile(r",\s*expected one of .*$")
_CLOCK = re.compile(r"^CLOCK\s*=\s*[\"']([^\"'\n]+)[\"']", re.MULTILINE)

# The entry point: runs one tool's function on a decoded copy of the state and answers with JSON text
# holding the result and only what changed (found by comparing with a second, untouched copy, natively):
# the records changed or added in a changed mapping and those removed; any other changed value whole.
_ENTRY_SOURCE = f"""
def {ENTRY}(name, state_text, arguments_text):
    state = json.decode(state_text)
    result = SIM_MCP_TOOLS[name](state, json.decode(arguments_text))
    if type(result) == "dict" and len(result) == 1 and "$error" in result:
        return json.encode({{"error": result["$error"]}})
    if type(result) == "dict" and len(result) == 1 and "$decline" in result:
        return json.encode({{"declined": result["$decline"]}})
    if type(state) != "dict":
        return json.encode({{"result": result, "replaced": True}})
    before = json.decode(state_text)
    if state == before:
        return json.encode({{"result": result}})
    changed = {{}}
    for key, value in state.items():
        old = before.get(key)
        if key in before and old == value:
            continue
        if key in before and type(old) == "dict" and type(value) == "dict":
            records = {{k: v for k, v in value.items() if k not in old or old[k] != v}}
            changed[key] = {{"records": records, "removed": [k for k in old if k not in value]}}
        else:
            changed[key] = {{"value": value}}
    removed = [key for key in before if key not in state]
    return json.encode({{"result": result, "changed": changed, "removed": removed}})
"""


@dataclass(frozen=True, eq=False)
class Program:
    """One environment's compiled rules: the tools it has a function for, and where each is defined."""

    source: str
    functions: dict[str, int]  # tool name -> line of its `def`
    clock: datetime
    module: starlark.FrozenModule = field(repr=False)
    slot: ContextSlot = field(repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def has(self, tool: str) -> bool:
        return tool in self.functions


def function_name(tool: str) -> str:
    """The Starlark function of a tool: its name, with `.` and `-` (allowed in tool names) as `_`."""
    return re.sub(r"[^A-Za-z0-9_]", "_", tool)


def compile_program(text: str, source: str, tools: Iterable[str]) -> Program:
    """Parse and evaluate `text` (a program for the tools named `tools`); raises `RulesError` with the line."""
    defined = {match.group(1): text.count("\n", 0, match.start()) + 1 for match in _DEF.finditer(text)}
    functions = {tool: defined[function_name(tool)] for tool in tools if function_name(tool) in defined}
    if HANDED_ON in defined:
        functions[HANDED_ON] = defined[HANDED_ON]
    clock = _clock(text, source)
    slot = ContextSlot()
    module = starlark.Module()
    for name, helper in python_helpers(slot).items():
        module.add_callable(name, helper)
    dialect = starlark.Dialect.standard()
    table = ", ".join(f"{tool!r}: {function_name(tool)}" for tool in functions)
    parts = [
        ("<rules helpers>", PRELUDE),
        (source, text),
        ("<rules entry>", _ENTRY_SOURCE + f"SIM_MCP_TOOLS = {{{table}}}\n"),
    ]
    for filename, part in parts:
        try:
            ast = starlark.parse(filename, part, dialect)
            starlark.eval(module, ast, _globals())
        except starlark.StarlarkError as e:
            raise located_error(e, source) from None
    return Program(source, functions, clock, module.freeze(), slot)


def located_error(error: starlark.StarlarkError, source: str, tool: str | None = None) -> RulesError:
    """A Starlark error as a `RulesError`: its message, and the line of `source` it points at (the last one,
    which for an error at run time is the innermost frame of the program's own code)."""
    text = str(error)
    lines = [int(match.group("line")) for match in _LOCATION.finditer(text) if match.group("file") == source]
    found = _MESSAGE.findall(text)
    reason = found[-1].strip() if found else text.strip().splitlines()[-1] if text.strip() else "failed"
    reason = _KEY_QUOTES.sub(r"'\1'", _EXPECTED_TOKENS.sub("", reason))
    return RulesError(source, reason, lines[-1] if lines else None, tool)


def _clock(text: str, source: str) -> datetime:
    """The time of the session's first call: the program's `CLOCK = "2025-03-14T10:00:00Z"`, if it sets one."""
    match = _CLOCK.search(text)
    if match is None:
        return DEFAULT_CLOCK
    try:
        return parse_clock(match.group(1))
    except ValueError:
        line = text.count("\n", 0, match.start()) + 1
        raise RulesError(source, f"CLOCK: expected an ISO 8601 date-time, got {match.group(1)!r}", line) from None


def _globals() -> starlark.Globals:
    # The standard library (no I/O, no clock, no randomness) and `json`; nothing else.
    return starlark.Globals.extended_by([starlark.LibraryExtension.Json])
