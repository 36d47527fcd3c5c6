"""sim-mcp's own kinds of checks, each a `CheckKind` named in the table of check kinds (`sim_mcp.plugins`).

- `equals`: the same JSON value (numbers compare with a 1e-9 tolerance, `true` is not `1`);
- `contains`: a substring, case-insensitive; an item of an array; an object's subset or key;
- `count`: the number of JSONPath matches, or of the items of the array or object at a JSON Pointer (0 when
  absent), exactly or within bounds;
- `exists` and `absent`: whether anything is at the path.

With a JSONPath, `equals` and `contains` need at least one match and hold for every match (`match: all`,
the default) or for one (`match: any`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim_mcp.episodes.checks import CheckKind, Found, json_matches, show
from sim_mcp.episodes.tasks import CountBounds
from sim_mcp.specs.schema import type_name
from sim_mcp.state.values import json_equal

__all__ = ["ABSENT", "CONTAINS", "COUNT", "EQUALS", "EXISTS"]


def _compares(name: str, verb: str, test: Callable[[Any, Any], bool]) -> Callable[[Any, Found], tuple[bool, str]]:
    """The evaluation of a kind that holds the values found to `expected` by `test`."""

    def evaluate(expected: Any, found: Found) -> tuple[bool, str]:
        values = found.values
        if not values:
            return False, f"{found.missing or 'nothing found'}; expected a value that {name} {show(expected)}"
        if not found.many:
            value = values[0]
            if test(value, expected):
                return True, f"found {show(value)}"
            return False, f"found {show(value)}, expected a value that {name} {show(expected)}"
        failing = [value for value in values if not test(value, expected)]
        if found.match == "any":
            if len(failing) < len(values):
                return True, f"{len(values) - len(failing)} of {len(values)} values {verb} {show(expected)}"
            return False, f"none of {len(values)} values {verb} {show(expected)}, e.g. found {show(values[0])}"
        if not failing:
            return True, f"all {len(values)} values {verb} {show(expected)}"
        return False, (
            f"{len(failing)} of {len(values)} values do not {verb} {show(expected)}, e.g. found {show(failing[0])}"
        )

    return evaluate


def _contains(value: Any, expected: Any) -> bool:
    if isinstance(value, str):
        return isinstance(expected, str) and expected.casefold() in value.casefold()
    if isinstance(value, list):
        return any(json_matches(item, expected) for item in value)
    if isinstance(value, dict):
        return expected in value if isinstance(expected, str) else json_matches(value, expected)
    return False


def _bounds(condition: Any) -> CountBounds:
    # `count: 3` is `count: {equals: 3}`.
    if isinstance(condition, CountBounds):
        return condition
    if isinstance(condition, int) and not isinstance(condition, bool):
        return CountBounds(equals=condition)
    if isinstance(condition, dict):
        return CountBounds.model_validate(condition)
    raise ValueError(f"expected a number or {{equals | min | max: number}}, got {type_name(condition)}")


def _count(bounds: Any, found: Found) -> tuple[bool, str]:
    values = found.values
    if found.many or not values:
        number = len(values)
    elif isinstance(values[0], dict | list):
        number = len(values[0])
    else:
        return False, f"found {show(values[0])} at {found.path or '/'}, expected an array or object to count"
    limits = _bounds(bounds)
    ok = (
        (limits.equals is None or number == limits.equals)
        and (limits.min is None or number >= limits.min)
        and (limits.max is None or number <= limits.max)
    )
    return ok, f"counted {number}, expected {limits.describe()}"


def _flag(condition: Any) -> bool:
    if not isinstance(condition, bool):
        raise ValueError(f"expected true or false, got {type_name(condition)}")
    return condition


def _presence(wanted: Callable[[bool], bool]) -> Callable[[Any, Found], tuple[bool, str]]:
    def evaluate(condition: bool, found: Found) -> tuple[bool, str]:
        return bool(found.values) == wanted(condition), found.described()

    return evaluate


def _presence_label(present: Callable[[bool], bool]) -> Callable[[Any], str]:
    return lambda condition: "exists" if present(condition) else "is absent"


EQUALS = CheckKind(
    "equals",
    _compares("equals", "equal", lambda value, expected: json_equal(value, expected, close_numbers=True)),
    prompt='"equals": value',
    quotes=True,
)
CONTAINS = CheckKind("contains", _compares("contains", "contain", _contains), prompt='"contains": value', quotes=True)
COUNT = CheckKind(
    "count",
    _count,
    prompt='"count": number or {"min": n, "max": m}',
    parse=_bounds,
    label=lambda bounds: f"count {_bounds(bounds).describe()}",
)
EXISTS = CheckKind(
    "exists",
    _presence(lambda condition: condition),
    prompt='"exists": true',
    parse=_flag,
    label=_presence_label(lambda condition: condition),
    holds_when_absent=lambda condition: condition is False,
)
ABSENT = CheckKind(
    "absent",
    _presence(lambda condition: not condition),
    prompt='"absent": true',
    parse=_flag,
    label=_presence_label(lambda condition: not condition),
    holds_when_absent=lambda condition: True,
)
