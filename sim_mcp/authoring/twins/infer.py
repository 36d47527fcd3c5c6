"""Model-free inference of a twin from recordings: for each tool, the behaviour (`behaviours.py`) that
reproduces what the real server answered, found by replaying every recorded session from the first
world with a candidate plan per tool.

Candidates come from the shapes the spec and the recordings show: a list-of-objects argument may create
records of a collection named after it (keyed by one of its string fields, or whole); an answer object
whose keys are collections may read them all, or filter them by a names or text argument; a constant
answer may delete records named in a list argument, or records equal to items of one. Answers that
depend only on the tool's own calls are solved field by field (`template`). The search is coordinate
ascent: each tool in turn takes the candidate under which most recorded calls (of every tool, since one
tool's effect shows in another's answers) agree, until nothing changes.

A plan is kept only if every recorded call of its tool agrees when all kept plans replay every session
in order; the others are dropped (their calls change nothing) until that holds. `Inference.reasons`
says for each tool without a plan why: the first recorded call no candidate reproduced.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.behaviours import TWIN_KEY, Failure, run_plan
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["Inference", "infer_plans", "replay_plans"]

_T = TypeVar("_T")

_ROUNDS = 4
_MAX_CANDIDATES = 120


@dataclass
class Inference:
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    collections: list[str] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)

    def initial_state(self) -> dict[str, Any]:
        return {collection: [] for collection in self.collections}


@dataclass(frozen=True)
class _Shapes:
    """What a tool's input schema offers the candidates: its argument names by kind."""

    object_lists: dict[str, dict[str, Any]]  # argument -> item properties
    string_lists: list[str]
    strings: list[str]


def infer_plans(tools: list[ToolSpec], sessions: list[list[RecordedCall]]) -> Inference:
    calls = Counter(call.tool for session in sessions for call in session)
    shapes = {tool.name: _shapes(tool) for tool in tools}
    collections = _collections(shapes)
    candidates = {
        tool.name: list(itertools.islice(_candidates(tool.name, shapes, collections, sessions), _MAX_CANDIDATES))
        for tool in tools
        if calls[tool.name]
    }
    for name in candidates:  # last: of plans that explain as much, one with an effect on the world is kept
        if (template := _template(name, sessions)) is not None:
            candidates[name].append(template)
    chosen: dict[str, dict[str, Any] | None] = dict.fromkeys(candidates)
    for _ in range(_ROUNDS):
        changed = False
        for name in candidates:
            best, best_score = chosen[name], _score(chosen, sessions)
            for candidate in candidates[name]:
                score = _score({**chosen, name: candidate}, sessions)
                if score > best_score:
                    best, best_score = candidate, score
            if best is not chosen[name]:
                chosen[name], changed = best, True
        if not changed:
            break
    kept = {name: plan for name, plan in chosen.items() if plan is not None}
    reasons: dict[str, str] = {}
    while True:
        misses = replay_plans(kept, sessions, {})
        wrong = {name for name in kept if misses.get(name)}
        if not wrong:
            break
        for name in wrong:
            reasons[name] = f"its best plan ({kept[name]['family']}) missed {misses[name][0]}"
            del kept[name]
    for name in candidates:
        if name not in kept and name not in reasons:
            first = next(call.where for session in sessions for call in session if call.tool == name)
            reasons[name] = f"no behaviour of a record store reproduces its answers (from {first} on)"
    used = sorted({c for plan in kept.values() for c in _collections_of(plan)})
    return Inference(kept, reasons, used, dict(calls))


def replay_plans(
    plans: dict[str, dict[str, Any]], sessions: list[list[RecordedCall]], initial: dict[str, Any]
) -> dict[str, list[str]]:
    """Replay every session with `plans`: for each tool, the calls whose answer disagrees (file:line: why)."""
    misses: dict[str, list[str]] = {}
    for session in sessions:
        state: dict[str, Any] = {key: list(value) for key, value in initial.items()}
        for call in session:
            plan = plans.get(call.tool)
            if plan is None:
                continue
            verdict = _verdict(plan, call, state)
            if verdict is not None:
                misses.setdefault(call.tool, []).append(f"{call.where}: {verdict}")
    return misses


def _verdict(plan: dict[str, Any], call: RecordedCall, state: dict[str, Any]) -> str | None:
    try:
        value, is_error = run_plan(plan, call.tool, state, call.arguments)
    except Failure as e:
        return f"the plan cannot answer it ({e})"
    verdict = compare_answers(Answer(call.value, call.is_error), Answer(value, is_error))
    return None if verdict.agree else f"{verdict.kind}: {verdict.detail}"


def _score(plans: dict[str, dict[str, Any] | None], sessions: list[list[RecordedCall]]) -> int:
    score = 0
    for session in sessions:
        state: dict[str, Any] = {}
        for call in session:
            plan = plans.get(call.tool)
            if plan is None:
                continue
            try:
                value, is_error = run_plan(plan, call.tool, state, call.arguments)
            except Failure:
                continue
            score += compare_answers(Answer(call.value, call.is_error), Answer(value, is_error)).agree
    return score


def _shapes(tool: ToolSpec) -> _Shapes:
    properties = tool.input_schema.get("properties") or {}
    object_lists: dict[str, dict[str, Any]] = {}
    string_lists: list[str] = []
    strings: list[str] = []
    for name, schema in properties.items():
        if not isinstance(schema, dict):
            continue
        found = schema.get("items")
        items: dict[str, Any] = found if isinstance(found, dict) else {}
        if schema.get("type") == "array" and items.get("type") == "object":
            object_lists[name] = items.get("properties") or {}
        elif schema.get("type") == "array" and items.get("type") == "string":
            string_lists.append(name)
        elif schema.get("type") == "string":
            strings.append(name)
    return _Shapes(object_lists, string_lists, strings)


def _collections(shapes: dict[str, _Shapes]) -> dict[str, dict[str, Any]]:
    """Collections the tools could create: a list-of-objects argument's name, with its items' properties."""
    found: dict[str, dict[str, Any]] = {}
    for shape in shapes.values():
        for name, properties in shape.object_lists.items():
            found.setdefault(name, properties)
    return found


def _string_fields(properties: dict[str, Any]) -> list[str]:
    return [name for name, schema in properties.items() if isinstance(schema, dict) and schema.get("type") == "string"]


def _list_fields(properties: dict[str, Any]) -> list[str]:
    return [name for name, schema in properties.items() if isinstance(schema, dict) and schema.get("type") == "array"]


def _nested_lists(
    properties: dict[str, Any], keyed: list[tuple[str, str]], collections: dict[str, dict[str, Any]]
) -> Iterator[dict[str, str]]:
    """Each way an item's list (`values`) may go into a list field (`target`) of a keyed collection's records."""
    for values in _list_fields(properties):
        for main, key in keyed:
            for target in _list_fields(collections[main]):
                yield {"values": values, "main": main, "key": key, "target": target}


def _answers(name: str, sessions: list[list[RecordedCall]]) -> list[RecordedCall]:
    return [call for session in sessions for call in session if call.tool == name]


def _candidates(
    name: str, shapes: dict[str, _Shapes], collections: dict[str, dict[str, Any]], sessions: list[list[RecordedCall]]
) -> Iterator[dict[str, Any]]:
    shape = shapes[name]
    calls = _answers(name, sessions)
    good = [call.value for call in calls if not call.is_error]
    errors = [call for call in calls if call.is_error and isinstance(call.value, str)]
    keyed = [(c, k) for c, properties in collections.items() for k in _string_fields(properties)]
    first = good[0] if good else None
    wrap = _wrap(first)
    for field_name, properties in shape.object_lists.items():
        for key in _keys(properties):
            yield {"family": "create", "collection": field_name, "field": field_name, "key": key, "wrap": wrap}
    # A filter before reading everything: where the recordings cannot tell them apart (every record
    # matched), a tool that uses its arguments is likelier than one that ignores them.
    if isinstance(first, dict) and len(first) >= 1:
        yield from _filters(first, shape, collections)
    if isinstance(first, dict) and first and all(key in collections for key in first):
        yield {"family": "read_all", "keys": {key: key for key in first}}
    # The answer that shows the items' shape: the first whose list is not empty.
    shown = next((value for value in good if _items(value)), first)
    for field_name, properties in shape.object_lists.items():
        yield from _nested_adds(field_name, properties, shown, errors, keyed, collections)
    if good:
        value = Counter(_freeze(v) for v in good).most_common(1)[0][0]
        constant = next(v for v in good if _freeze(v) == value)
        for effect in _effects(shape, collections, keyed):
            yield {"family": "const", "value": constant, "effect": effect}


def _effects(
    shape: _Shapes, collections: dict[str, dict[str, Any]], keyed: list[tuple[str, str]]
) -> Iterator[dict[str, Any]]:
    # Effects first and "none" last: where the recordings cannot tell them apart, a tool whose arguments
    # change something is likelier than one that ignores them. Removing values from the records that
    # items name comes before removing records equal to items, when items have a list to remove.
    for field_name in shape.string_lists:
        for main, key in keyed:
            others = [c for c in collections if c != main]
            options = {c: _ref_options(collections[c]) for c in others}
            for refs in _choices(options, 20):
                yield {"kind": "delete_keys", "field": field_name, "main": main, "key": key, "refs": refs}
    for field_name, properties in shape.object_lists.items():
        for ref in _string_fields(properties):
            for nested in _nested_lists(properties, keyed, collections):
                yield {"kind": "nested_remove", "field": field_name, "ref": ref, **nested}
    for field_name in shape.object_lists:
        if field_name in collections:
            yield {"kind": "delete_records", "collection": field_name, "field": field_name}
    yield {"kind": "none"}


def _keys(properties: dict[str, Any]) -> list[list[str]]:
    """Which fields make two records the same, likeliest first: a field named like an identifier, else
    the whole record (a relation is itself), else any other string field."""
    fields = _string_fields(properties)
    named = [f for f in fields if re.search(r"(^|_)(name|id|key|uri|path)$|[a-z](Name|Id|Key)$", f, re.IGNORECASE)]
    return [[f] for f in named] + [[]] + [[f] for f in fields if f not in named]


def _ref_options(properties: dict[str, Any]) -> list[list[str]]:
    fields = _string_fields(properties)
    pairs = [list(pair) for pair in itertools.combinations(fields, 2)]
    return pairs + [[f] for f in fields] + [fields]


def _choices(options: dict[str, list[_T]], most: int) -> Iterator[dict[str, _T]]:
    """Each way of taking one option per key, at most `most` of them, in the order of the options given."""
    for choice in itertools.islice(itertools.product(*options.values()), most):
        yield dict(zip(options, choice, strict=True))


def _filters(first: dict[str, Any], shape: _Shapes, collections: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    keys = [key for key in first if key in collections]
    if not keys or len(keys) != len(first):
        return
    for main_key in keys:
        others = [key for key in keys if key != main_key]
        for key in _string_fields(collections[main_key]):
            for mode, fields in (("names", shape.string_lists), ("search", shape.strings)):
                for field_name in fields:
                    options = {
                        other: [
                            {"collection": other, "refs": refs, "link": link}
                            for refs in _ref_options(collections[other])
                            for link in ("any", "all")
                        ]
                        for other in others
                    }
                    for choice in _choices(options, 30):
                        yield {
                            "family": "filter",
                            "mode": mode,
                            "field": field_name,
                            "main": main_key,
                            "main_key": main_key,
                            "key": key,
                            "others": choice,
                        }


def _nested_adds(
    field_name: str,
    properties: dict[str, Any],
    first: Any,
    errors: list[RecordedCall],
    keyed: list[tuple[str, str]],
    collections: dict[str, dict[str, Any]],
) -> Iterator[dict[str, Any]]:
    wrap = _wrap(first)
    items = first.get(wrap) if isinstance(first, dict) and wrap else first
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return
    for ref in _string_fields(properties):
        added = [key for key in items[0] if key != ref]
        if ref not in items[0] or len(added) != 1:
            continue
        template = _error_template(errors, field_name, ref)
        for nested in _nested_lists(properties, keyed, collections):
            yield {
                "family": "nested_add",
                "field": field_name,
                "ref": ref,
                **nested,
                "wrap": wrap,
                "added": added[0],
                "error": template,
            }


def _error_template(errors: list[RecordedCall], field_name: str, ref: str) -> str:
    """The recorded error text with the name it was about as `{}`: "Entity with name {} not found"."""
    for call in errors:
        text = str(call.value)
        for item in call.arguments.get(field_name) or []:
            name = item.get(ref) if isinstance(item, dict) else None
            if isinstance(name, str) and name and name in text:
                return text.replace(name, "{}")
    return "{} not found"


def _template(name: str, sessions: list[list[RecordedCall]]) -> dict[str, Any] | None:
    """A plan of a tool whose answers are objects built from its arguments and its own earlier calls."""
    calls = _answers(name, sessions)
    good = [call for call in calls if not call.is_error]
    if not good or len(good) != len(calls) or not all(isinstance(call.value, dict) for call in good):
        return None
    fields = list(good[0].value)
    if not fields or any(list(call.value) != fields for call in good):
        return None
    plan: dict[str, Any] = {"family": "template", "fields": {}}
    for field_name in fields:
        for expression in _expressions(field_name, good):
            trial = {"family": "template", "fields": {field_name: expression}}
            if not _field_misses(name, trial, field_name, sessions):
                plan["fields"][field_name] = expression
                break
        else:
            return None
    return plan


def _field_misses(name: str, plan: dict[str, Any], field_name: str, sessions: list[list[RecordedCall]]) -> bool:
    for session in sessions:
        state: dict[str, Any] = {}
        for call in session:
            if call.tool != name:
                continue
            try:
                value, _ = run_plan(plan, name, state, call.arguments)
            except Failure:
                return True
            if not compare_answers(Answer(call.value[field_name], False), Answer(value[field_name], False)).agree:
                return True
    return False


def _expressions(field_name: str, good: list[RecordedCall]) -> Iterator[list[Any]]:
    values = [call.value[field_name] for call in good]
    if all(value == values[0] for value in values):
        yield ["const", values[0]]
    arguments = sorted({key for call in good for key in call.arguments})
    for argument in arguments:
        yield ["arg", argument]
    numeric = [a for a in arguments if all(isinstance(call.arguments.get(a), int | float) for call in good)]
    for first, second in itertools.permutations(numeric, 2):
        yield ["max", first, second]
    yield ["count"]
    # Distinct values seen, in the order first seen, else as a map's keys: the recordings decide when an
    # integer-like value came after another; when none did, both answer the same.
    for order in ("seen", "keys"):
        for argument in arguments:
            yield [order, argument]
        for argument, condition in itertools.permutations(arguments, 2):
            yield [order, argument, condition]  # non-empty values of an argument given with another


def _items(value: Any) -> list[Any]:
    wrap = _wrap(value)
    items = value.get(wrap) if isinstance(value, dict) and wrap else value
    return items if isinstance(items, list) else []


def _wrap(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if isinstance(inner, list):
            return str(key)
    return None


def _freeze(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, default=str)


def _collections_of(plan: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for key in ("collection", "main"):
        if isinstance(plan.get(key), str):
            found.append(plan[key])
    if isinstance(plan.get("keys"), dict):
        found += list(plan["keys"].values())
    effect = plan.get("effect") or {}
    for key in ("collection", "main"):
        if isinstance(effect.get(key), str):
            found.append(effect[key])
    found += [other["collection"] for other in (plan.get("others") or {}).values()]
    return [name for name in found if name != TWIN_KEY]
