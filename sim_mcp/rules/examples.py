"""A spec's own examples as tests of its rules program: each example runs on a fresh initial state.

An example passes when the function's answer is what the example says: an error with the same message,
or a result with the example's keys and values (objects: the keys the example gives; lists: item by
item). A timestamp in an example (an ISO 8601 date-time) is compared by form only: the session's clock
writes its own. An example the function declines (`decline()`) is not its to answer, so it cannot fail it.
"""

from __future__ import annotations

import re
from typing import Any

from sim_mcp.errors import RulesError
from sim_mcp.rules.helpers import CallContext
from sim_mcp.rules.program import Program
from sim_mcp.rules.runtime import Limits, run_tool
from sim_mcp.specs.model import ToolExample, ToolSpec
from sim_mcp.text import shown

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")


def example_problem(
    program: Program, tool: ToolSpec, index: int, initial_state: Any, limits: Limits
) -> RulesError | None:
    """Why `tool`'s example number `index` fails against its function (None: it passes)."""
    example = tool.examples[index]
    label = f"example {index + 1}" + (f" ({example.description})" if example.description else "")
    line = program.functions.get(tool.name)
    context = CallContext.of(program.clock, seed=0, sequence=0, tool=tool.name)
    try:
        outcome = run_tool(program, tool.name, initial_state, example.arguments, context, limits, handing_on=True)
    except RulesError as e:
        return RulesError(program.source, f"{label}: the function failed: {e.reason}", e.line or line, tool.name)
    if outcome.declined is not None:
        return None  # the function does not answer this call (the backend will), so it cannot answer it wrong
    mismatch = _mismatch(example, outcome.result, outcome.is_error)
    if mismatch is None:
        return None
    return RulesError(program.source, f"{label}: {mismatch}", line, tool.name)


def _mismatch(example: ToolExample, result: Any, is_error: bool) -> str | None:
    if example.is_error != is_error:
        wanted = f"the error {_show(example.result)}" if example.is_error else f"the result {_show(example.result)}"
        got = f"the error {_show(result)}" if is_error else f"the result {_show(result)}"
        return f"expected {wanted}, got {got}"
    where = _difference(example.result, result, "result")
    return None if where is None else f"expected {where}"


def _difference(expected: Any, actual: Any, path: str) -> str | None:
    """Where `actual` is not what `expected` says, as "<path> = <expected>, got <actual>" (None: it is)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path} to be an object, got {_show(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key} = {_show(value)}, got no {key!r}"
            if (found := _difference(value, actual[key], f"{path}.{key}")) is not None:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path} = {_show(expected)}, got {_show(actual)}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            if (found := _difference(want, got, f"{path}[{index}]")) is not None:
                return found
        return None
    if isinstance(expected, str) and _DATE_TIME.match(expected):
        return (
            None
            if isinstance(actual, str) and _DATE_TIME.match(actual)
            else f"{path}: a date-time, got {_show(actual)}"
        )
    same = expected == actual and isinstance(expected, bool) == isinstance(actual, bool)
    return None if same else f"{path} = {_show(expected)}, got {_show(actual)}"


def _show(value: Any, limit: int = 120) -> str:
    return shown(value, limit)
