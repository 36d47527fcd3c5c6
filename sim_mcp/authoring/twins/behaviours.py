"""The behaviours a model-free twin is built from: small, general rules of record stores, each a plan
(plain data) that runs the same way here, in Python, to search for the plan that explains recordings,
and in Starlark, in the twin's programs (`library.LIBRARY`), where `twin-check` proves it.

The world of a twin is a JSON object: one list of records per collection (named after the argument
that creates them, e.g. `entities`) and `_twin`, counters and seen values of tools whose answers depend
only on their own earlier calls. Plans (the `family` key):

- `const`: always the same answer; with an `effect` on the world: none, `delete_keys` (remove the
  records whose key is in a list argument, and records of other collections that name one of them),
  `delete_records` (remove the records equal to items of a list argument), `nested_remove` (remove
  values from a list field of the records the argument's items name).
- `create`: append each item of a list argument whose key no record has yet; answer those appended.
- `nested_add`: for each item of a list argument, find the record it names (else an error, world
  unchanged) and append the values it lacks to one of its list fields; answer what was added per item.
- `read_all`: answer every collection, under the keys the recordings show.
- `filter`: answer the records of the main collection that match (`names`: key in a list argument;
  `search`: the text in any string of the record, ignoring case), and those of other collections whose
  reference fields name a matched record (`any` or `all` of those fields).
- `template`: an object whose every field is a constant, an argument, the larger of two arguments, the
  count of this tool's calls, or the distinct values of an argument seen so far: in the order first seen
  (`seen`), or in the order a JavaScript object lists them as keys (`keys`: integer-like strings first,
  ascending, then the rest as first seen), which is what a server that keeps them as a map's keys answers.
"""

from __future__ import annotations

import copy
from typing import Any

from sim_mcp.authoring.twins.recordings import texts_of

__all__ = ["TWIN_KEY", "Failure", "run_plan"]

TWIN_KEY = "_twin"


class Failure(Exception):
    """The plan cannot answer this call (an argument missing or of another type than it assumes)."""


Answer = tuple[Any, bool]  # (value, is_error)


def run_plan(plan: dict[str, Any], tool: str, state: dict[str, Any], args: dict[str, Any]) -> Answer:
    """Answer one call by `plan`, changing `state` in place (never when the answer is an error)."""
    family = plan["family"]
    try:
        if family == "const":
            work = copy.deepcopy(state)
            _effect(plan["effect"], work, args)
            state.clear()
            state.update(work)
            return plan["value"], False
        if family == "create":
            return _create(plan, state, args), False
        if family == "nested_add":
            return _nested_add(plan, state, args)
        if family == "read_all":
            return {key: list(state.get(collection, [])) for key, collection in plan["keys"].items()}, False
        if family == "filter":
            return _filter(plan, state, args), False
        if family == "template":
            return _template(plan, tool, state, args), False
    except (KeyError, TypeError, AttributeError) as e:
        raise Failure(f"{type(e).__name__}: {e}") from None
    raise Failure(f"unknown family {family!r}")


def _effect(effect: dict[str, Any], state: dict[str, Any], args: dict[str, Any]) -> None:
    kind = effect["kind"]
    if kind == "none":
        return
    if kind == "delete_keys":
        names = _strings(args[effect["field"]])
        main, key = effect["main"], effect["key"]
        for collection in list(state):
            if collection == TWIN_KEY:
                continue
            if collection == main:
                state[collection] = [r for r in state[collection] if r.get(key) not in names]
            else:
                state[collection] = [
                    r
                    for r in state[collection]
                    if not any(_refers(r, f, names) for f in effect["refs"].get(collection, []))
                ]
        return
    if kind == "delete_records":
        gone = args[effect["field"]]
        if not isinstance(gone, list):
            raise TypeError("expected a list")
        state[effect["collection"]] = [r for r in state.get(effect["collection"], []) if r not in gone]
        return
    if kind == "nested_remove":
        for item in args[effect["field"]]:
            record = _find(state, effect["main"], effect["key"], item[effect["ref"]])
            if record is not None:
                drop = item[effect["values"]]
                record[effect["target"]] = [value for value in record[effect["target"]] if value not in drop]
        return
    raise Failure(f"unknown effect {kind!r}")


def _refers(record: dict[str, Any], field: str, names: list[str]) -> bool:
    return record.get(field) in names


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise TypeError("expected a list of names")
    return [item for item in value if isinstance(item, str)]


def _same(record: dict[str, Any], item: dict[str, Any], key: list[str]) -> bool:
    if not key:
        return record == item
    return all(record.get(field) == item.get(field) for field in key)


def _create(plan: dict[str, Any], state: dict[str, Any], args: dict[str, Any]) -> Any:
    items = args[plan["field"]]
    if not isinstance(items, list):
        raise TypeError("expected a list")
    records = state.setdefault(plan["collection"], [])
    added = []
    for item in items:
        if not isinstance(item, dict):
            raise TypeError("expected objects")
        if not any(_same(record, item, plan["key"]) for record in records):
            records.append(copy.deepcopy(item))
            added.append(copy.deepcopy(item))
    return {plan["wrap"]: added} if plan["wrap"] else added


def _find(state: dict[str, Any], collection: str, key: str, value: Any) -> dict[str, Any] | None:
    return next((r for r in state.get(collection, []) if r.get(key) == value), None)


def _nested_add(plan: dict[str, Any], state: dict[str, Any], args: dict[str, Any]) -> Answer:
    work = copy.deepcopy(state)
    results = []
    for item in args[plan["field"]]:
        name = item[plan["ref"]]
        record = _find(work, plan["main"], plan["key"], name)
        if record is None:
            return plan["error"].replace("{}", str(name)), True
        target = record.setdefault(plan["target"], [])
        new = [value for value in item[plan["values"]] if value not in target]
        target.extend(new)
        results.append({plan["ref"]: name, plan["added"]: new})
    state.clear()
    state.update(work)
    return ({plan["wrap"]: results} if plan["wrap"] else results), False


def _filter(plan: dict[str, Any], state: dict[str, Any], args: dict[str, Any]) -> Any:
    given = args[plan["field"]]
    records = state.get(plan["main"], [])
    if plan["mode"] == "names":
        names = _strings(given)
        matched = [r for r in records if r.get(plan["key"]) in names]
    else:
        if not isinstance(given, str):
            raise TypeError("expected a string")
        query = given.lower()
        matched = [r for r in records if any(query in text.lower() for text in texts_of(r))]
    keys = [r.get(plan["key"]) for r in matched]
    answer: dict[str, Any] = {plan["main_key"]: matched}
    for answer_key, other in plan["others"].items():
        fields = other["refs"]
        test = all if other["link"] == "all" else any
        answer[answer_key] = [r for r in state.get(other["collection"], []) if test(r.get(f) in keys for f in fields)]
    return answer


def _template(plan: dict[str, Any], tool: str, state: dict[str, Any], args: dict[str, Any]) -> Any:
    twin = state.setdefault(TWIN_KEY, {})
    counts = twin.setdefault("calls", {})
    counts[tool] = counts.get(tool, 0) + 1
    seen = twin.setdefault("seen", {})
    for expression in plan["fields"].values():
        if (
            expression[0] in ("seen", "keys")
            and expression[1] in args
            and (len(expression) < 3 or (args.get(expression[1]) and args.get(expression[2])))
        ):
            values = seen.setdefault(f"{tool}/{expression[1]}", [])
            if args[expression[1]] not in values:
                values.append(args[expression[1]])
    answer: dict[str, Any] = {}
    for field, expression in plan["fields"].items():
        match expression[0]:
            case "const":
                answer[field] = expression[1]
            case "arg":
                answer[field] = args[expression[1]]
            case "max":
                answer[field] = max(args[expression[1]], args[expression[2]])
            case "count":
                answer[field] = counts[tool]
            case "seen":
                answer[field] = list(seen.get(f"{tool}/{expression[1]}", []))
            case "keys":
                answer[field] = key_order(seen.get(f"{tool}/{expression[1]}", []))
    return answer


def key_order(values: list[Any]) -> list[Any]:
    """`values` as a JavaScript object orders its keys: array indices (canonical integer strings below
    2**32 - 1) first, ascending, then the others in insertion order."""
    indices = [v for v in values if _array_index(v)]
    return sorted(indices, key=int) + [v for v in values if not _array_index(v)]


def _array_index(value: Any) -> bool:
    return (
        isinstance(value, str)
        and value.isascii()
        and value.isdigit()
        and (value == "0" or not value.startswith("0"))
        and int(value) < 2**32 - 1
    )
