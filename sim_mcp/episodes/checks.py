"""A task's checks, run on a JSON document (a final state, or a benchmark step's result).

A check reads the values at a JSON Pointer (one value, or none) or a JSONPath (every match), then its kind
decides: a `CheckKind` from the table of check kinds (`sim_mcp.plugins.CHECK_KINDS`; sim-mcp's own are in
`check_kinds.py`: `equals`, `contains`, `count`, `exists`, `absent`). A kind is its condition's parsing, its
evaluation on what was found, its label, and its line in task generation's prompt; adding one is a module
with a `CheckKind` and its entry in the table (or `register_check_kind`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from jsonpath_ng import JSONPath
from jsonpointer import escape
from pydantic import BaseModel, Field

from sim_mcp.errors import ConfigError
from sim_mcp.plugins import CHECK_KINDS
from sim_mcp.specs.schema import type_name
from sim_mcp.state.values import json_equal, pointer_parts
from sim_mcp.text import clip, shown

__all__ = [
    "CheckKind",
    "CheckResult",
    "Checked",
    "Found",
    "check_kind",
    "json_matches",
    "keys_of",
    "resolve_pointer",
    "run_check",
    "show",
]


class CheckResult(BaseModel):
    name: str
    passed: bool
    detail: str = Field(description="What was found, against what was expected.")
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class Found:
    """What a check's path found: `values` (one at most for a JSON Pointer, every match for a JSONPath),
    `missing` (why there are none), the `path`, whether it is a JSONPath (`many`) and its `match` rule."""

    values: list[Any]
    missing: str | None
    path: str
    many: bool
    match: Literal["all", "any"] = "all"

    def described(self) -> str:
        """What was found, in a few words (`found 'open'`, `3 matches, e.g. ...`)."""
        if not self.values:
            return self.missing or "nothing found"
        if self.many:
            return f"{len(self.values)} match{'es' if len(self.values) != 1 else ''}, e.g. {show(self.values[0])}"
        return f"found {show(self.values[0])}"


def _plain_label(name: str) -> Callable[[Any], str]:
    return lambda condition: f"{name} {clip(repr(condition), 60)}"


@dataclass(frozen=True, slots=True)
class CheckKind:
    """One kind of check: the key a check names it by (`name`), what it holds its values to.

    `evaluate(condition, found) -> (passed, detail)`; `prompt`: how task generation's prompt writes it
    (`"equals": value`); `parse(condition)`: the condition as written, checked (a `ValueError` says what is
    wrong) and made the value kept; `label(condition)`: the words after the path in results (`equals 'x'`);
    `holds_when_absent(condition)`: it passes when nothing is at the path (task validation lets such a
    path leave the starting state); `quotes`: its condition is a value the task names (task validation
    looks for ids in it).
    """

    name: str
    evaluate: Callable[[Any, Found], tuple[bool, str]]
    prompt: str
    parse: Callable[[Any], Any] = lambda condition: condition
    label: Callable[[Any], str] | None = None
    holds_when_absent: Callable[[Any], bool] = lambda condition: False
    quotes: bool = False
    _label: Callable[[Any], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_label", self.label or _plain_label(self.name))

    def labelled(self, condition: Any) -> str:
        return self._label(condition)


def check_kind(name: str) -> CheckKind:
    """The kind `name` of the table of check kinds (`NotRegistered` naming them when it has none)."""
    found = CHECK_KINDS.load(name)
    if not isinstance(found, CheckKind):
        raise ConfigError(f"check kind {name!r}: {found!r} is not a CheckKind")
    return found


class Checked(Protocol):
    """What running a check reads of it (`episodes.tasks.Check`)."""

    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def condition(self) -> Any: ...
    @property
    def label(self) -> str: ...
    @property
    def weight(self) -> float: ...
    @property
    def match(self) -> Literal["all", "any"]: ...
    @property
    def jsonpath(self) -> JSONPath | None: ...


def run_check(check: Checked, document: Any) -> CheckResult:
    """One check (`episodes.tasks.Check`) on `document` (a final state, or a result)."""
    passed, detail = check_kind(check.kind).evaluate(check.condition, found_at(check, document))
    return CheckResult(name=check.label, passed=passed, detail=detail, weight=check.weight)


def found_at(check: Checked, document: Any) -> Found:
    """The values at the check's path in `document`, and (when there are none) why."""
    if check.jsonpath is not None:
        values = [match.value for match in check.jsonpath.find(document)]
        return Found(values, None if values else f"nothing matches {check.path}", check.path, True, check.match)
    present, value, missing = resolve_pointer(document, check.path)
    return Found([value] if present else [], None if present else missing, check.path, False, check.match)


def resolve_pointer(document: Any, pointer: str) -> tuple[bool, Any, str]:
    """(found, value, why not) for an RFC 6901 JSON Pointer."""
    node = document
    walked = ""
    for part in pointer_parts(pointer):
        here = f"{walked}/{escape(part)}"
        if isinstance(node, dict):
            if part not in node:
                return False, None, f"no {part!r} in {walked or 'the state'} ({keys_of(node)})"
            node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                return False, None, f"no item {part!r} in {walked or 'the state'} (an array of {len(node)})"
            node = node[int(part)]
        else:
            kind = type_name(node)
            return False, None, f"nothing at {here}: {walked or 'the state'} is {kind}, not an object or array"
        walked = here
    return True, node, ""


def json_matches(actual: Any, expected: Any) -> bool:
    """`expected` is a subset of `actual`: objects match on the keys `expected` names (recursively),
    arrays item by item, anything else by `json_equal`."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and json_matches(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(json_matches, actual, expected))
    return json_equal(actual, expected, close_numbers=True)


def keys_of(node: dict[str, Any]) -> str:
    """`it has a, b and 3 more`: an object's keys, for a message."""
    keys = sorted(map(str, node))
    if not keys:
        return "it is empty"
    listed = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
    return f"it has {listed}"


def show(value: Any, limit: int = 80) -> str:
    """A value in a check's detail, cut to `limit` characters."""
    return shown(value, limit)
