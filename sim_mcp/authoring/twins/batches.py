"""Batch tools: a call that takes a list of items and answers for each of them (several records created at once,
several ids read, updated or deleted), learned as the sequence of one-item calls it stands for.

Many servers take their writes and reads in batches: `add_items(items=[{...}, {...}])` answers
`{"added": [4, 5], "total": 2}`, `fetch_items(ids=[4, 99])` answers the records it found and how many. The
keyed world reads a key from a scalar argument, never from inside a list: so it learns nothing of such a tool,
though each item is an ordinary call (a create of one record, a read of one id). A batch is therefore unrolled
before inference: each recorded call becomes one call per item, whose arguments are the item's fields (an
object) or the item itself under the list's name (a scalar: `ids=4`), beside the call's other arguments, and
whose answer is the item's part of the recorded one. The keyed world learns from these one-item calls as from
any (the made-up id of each created record, read back by id later), and the twin answers a batch by running
its items' rules one by one on the same world and joining their answers (`twin_batch`); one item refused or
handed on refuses or hands on the whole call, whose changes are then dropped, as a server that checks a batch
before it writes any item does.

An answer is split only by what it shows: its lists hold one part per item (an element goes to the item whose
value it shows, an id or a field equal to the item's, else, where there are as many elements as items, by
position: the made-up ids of the records created), its counts are the lengths of those lists, and every other
field is the same in every part. A tool is a batch where exactly one list argument is given in every recorded
call and every success splits so. A failure is that of the item whose value its message shows (a priority no
other item gives), kept as that item's one-item call and the other items left out (a server that checks every
item before it writes one wrote none of them); one whose message shows no one item's value is left out, the
recordings not saying which item failed. Whether the twin learns the server's tools so or as they are is decided
by the recordings (`build.py`: whichever answers more recorded calls).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from sim_mcp.state.values import json_type

__all__ = ["BATCHES", "Batch", "find_batches", "unrolled"]

BATCHES = """
def twin_batch(batch, state, args, one):
    # A call over a list of items, answered as its items one by one (`one`: the tool's rules for one item),
    # each on the world the items before it left; their answers joined: the lists one after the other (an
    # item's single element, none where it answered null), the counts their lengths, every other field as
    # the first item answered it.
    items = args.get(batch["array"])
    if type(items) != "list" or not items:
        return decline("a batch with no items to answer one by one")
    rest = {k: v for k, v in args.items() if k != batch["array"]}
    parts = []
    for item in items:
        call = dict(rest)
        if batch["objects"]:
            if type(item) != "dict":
                return decline("an item of a batch that is no object")
            call.update(item)
        else:
            call[batch["array"]] = item
        answer = one(state, call)
        if type(answer) == "dict" and len(answer) == 1 and ("$error" in answer or "$decline" in answer):
            return answer
        if type(answer) != "dict":
            return decline("an item's answer that is no object")
        parts.append(answer)
    joined = dict(parts[0])
    for name in batch["lists"]:
        if name in batch["singles"]:
            joined[name] = [part.get(name) for part in parts if part.get(name) != None]
        else:
            joined[name] = [element for part in parts for element in (part.get(name) or [])]
    for name, listed in batch["counts"].items():
        joined[name] = len(joined[listed])
    return joined
"""


@dataclass(frozen=True)
class Batch:
    """How a tool's calls split into one-item calls: the list argument, whether its items are objects, the
    answer's lists (one part per item) and counts (answer field -> the list whose length it is)."""

    array: str
    objects: bool
    lists: tuple[str, ...]
    counts: tuple[tuple[str, str], ...]
    # By list, how its elements go to the items: by the item itself (""), by one field of the items, or by
    # position (None); the same way in every recorded answer.
    owners: tuple[str | None, ...] = ()
    # The lists that hold at most one element per item, in every recorded answer, none of them null: an item's
    # answer holds that element itself, or null where the item has none (a created record's id, a record read
    # by its id or not found), as a call of one item would answer.
    singles: tuple[str, ...] = ()

    def to_plan(self) -> dict[str, Any]:
        return {
            "array": self.array,
            "objects": self.objects,
            "lists": list(self.lists),
            "counts": dict(self.counts),
            "singles": list(self.singles),
        }


def find_batches(tools: list[ToolSpec], sessions: list[list[RecordedCall]]) -> dict[str, Batch]:
    """By tool, how its calls split, for each tool whose recorded calls all read as batches (module docstring)."""
    calls = [call for session in sessions for call in session]
    found: dict[str, Batch] = {}
    for tool in tools:
        mine = [call for call in calls if call.tool == tool.name and call.rpc_error is None]
        batch = _batch(tool, mine)
        if batch is not None:
            found[tool.name] = batch
    return found


def unrolled(
    tools: list[ToolSpec], sessions: list[list[RecordedCall]], batches: dict[str, Batch]
) -> tuple[list[ToolSpec], list[list[RecordedCall]]]:
    """The tools and sessions as one-item calls: each batch tool with the schema of one item's call, each of its
    recorded calls replaced by its items' calls (module docstring); the other tools and calls as they are."""
    calls = [call for session in sessions for call in session]
    view_tools = [
        _item_tool(tool, batches[tool.name], [call for call in calls if call.tool == tool.name])
        if tool.name in batches
        else tool
        for tool in tools
    ]
    view_sessions: list[list[RecordedCall]] = []
    for session in sessions:
        view: list[RecordedCall] = []
        for call in session:
            if call.tool in batches:
                view += _split(call, batches[call.tool]) or []
            else:
                view.append(call)
        view_sessions.append(view)
    return view_tools, view_sessions


def _batch(tool: ToolSpec, calls: list[RecordedCall]) -> Batch | None:
    properties: dict[str, Any] = tool.input_schema.get("properties") or {}
    successes = [call for call in calls if not call.is_error]
    if not successes:
        return None
    arrays = [
        name
        for name, schema in properties.items()
        if "array" in types_of(schema) and all(isinstance(call.arguments.get(name), list) for call in calls)
    ]
    if len(arrays) != 1:
        return None
    array = arrays[0]
    items = [item for call in calls for item in call.arguments[array]]
    if not items:
        return None
    objects = all(isinstance(item, dict) for item in items)
    if not objects and not all(_scalar(item) for item in items):
        return None
    others = set(properties) - {array}
    if objects and any(set(item) & others for item in items):
        return None  # an item's field named as one of the call's own arguments: the two would be confused
    answers = [call.value for call in successes]
    if not all(isinstance(answer, dict) for answer in answers):
        return None
    lists = tuple(name for name, value in answers[0].items() if all(isinstance(a.get(name), list) for a in answers))
    if not lists:
        return None
    counts = []
    for name, value in answers[0].items():
        if not _whole(value):
            continue
        listed = next((L for L in lists if all(_whole(a.get(name)) and a[name] == len(a[L]) for a in answers)), None)
        if listed is not None:
            counts.append((name, listed))
    ways: list[str | None] = [*(dict.fromkeys(name for item in items for name in item) if objects else [""]), None]
    owners = []
    for name in lists:
        way = next(
            (way for way in ways if all(_share(call.value[name], call.arguments[array], way) for call in successes)),
            "-",
        )
        if way == "-":
            return None
        owners.append(way)
    batch = Batch(array, objects, lists, tuple(counts), tuple(owners))
    shares = [share for call in successes for share in [_shares(call, batch)] if share is not None]
    singles = tuple(
        name for name in lists if all(len(part) <= 1 and None not in part for share in shares for part in share[name])
    )
    return replace(batch, singles=singles)


def _split(call: RecordedCall, batch: Batch) -> list[RecordedCall] | None:
    """The one-item calls a recorded call stands for; None where its answer does not split so."""
    items = call.arguments.get(batch.array)
    if not isinstance(items, list) or not items:
        return None
    if call.is_error or call.rpc_error is not None:
        # A failed batch failed on the item whose value its message shows, which alone would fail so (a server
        # that checks every item before it writes one); where none or several do, on which the recordings do
        # not say, but for a batch of one.
        at = _failing(items, call.value) if len(items) > 1 else 0
        return None if at is None else [_one(call, batch, items[at], call.result, 0)]
    parts = _parts(call, batch)
    if parts is None:
        return None
    return [
        _one(call, batch, item, _result(part), at) for at, (item, part) in enumerate(zip(items, parts, strict=True))
    ]


def _failing(items: list[Any], message: Any) -> int | None:
    """The one item a failure's text shows a value of (a word or more, no other item's), if exactly one."""
    if not isinstance(message, str):
        return None
    shown = []
    for at, item in enumerate(items):
        others = [value for other in items[:at] + items[at + 1 :] for value in _values(other)]
        if any(len(value) > 2 and value in message and value not in others for value in _values(item)):
            shown.append(at)
    return shown[0] if len(shown) == 1 else None


def _values(item: Any) -> list[str]:
    """The texts an item holds: itself, its fields' texts and the texts of its fields' lists."""
    fields = list(item.values()) if isinstance(item, dict) else [item]
    flat = [
        value for field_value in fields for value in (field_value if isinstance(field_value, list) else [field_value])
    ]
    return [value for value in flat if isinstance(value, str)]


def _one(call: RecordedCall, batch: Batch, item: Any, result: dict[str, Any] | None, at: int) -> RecordedCall:
    arguments = {name: value for name, value in call.arguments.items() if name != batch.array}
    if batch.objects and isinstance(item, dict):
        arguments.update(item)
    else:
        arguments[batch.array] = item
    return replace(call, seq=call.seq * 1000 + at, arguments=arguments, result=result)


def _result(part: dict[str, Any]) -> dict[str, Any]:
    """A one-item answer in the wire form a recording keeps (`answer_value` reads it back as `part`)."""
    return {"content": [{"type": "text", "text": json.dumps(part)}], "structuredContent": part, "isError": False}


def _shares(call: RecordedCall, batch: Batch) -> dict[str, list[list[Any]]] | None:
    """By list of a success's answer, each item's elements; None where the answer does not split so."""
    items = call.arguments.get(batch.array)
    answer = call.value
    if not isinstance(items, list) or not items or not isinstance(answer, dict):
        return None
    shares: dict[str, list[list[Any]]] = {}
    for name, way in zip(batch.lists, batch.owners, strict=True):
        share = _share(answer.get(name), items, way)
        if share is None:
            return None
        shares[name] = share
    return shares


def _parts(call: RecordedCall, batch: Batch) -> list[dict[str, Any]] | None:
    """Each item's part of a success's answer, or None where it does not split (module docstring): its lists'
    elements (a single one itself, or null), the other fields but the counts, which the twin counts anew."""
    shares = _shares(call, batch)
    items = call.arguments.get(batch.array)
    if shares is None or not isinstance(items, list) or not isinstance(call.value, dict):
        return None
    counts = dict(batch.counts)
    parts: list[dict[str, Any]] = []
    for at in range(len(items)):
        part: dict[str, Any] = {}
        for name, value in call.value.items():
            if name in batch.singles:
                part[name] = shares[name][at][0] if shares[name][at] else None
            elif name in shares:
                part[name] = shares[name][at]
            elif name not in counts:
                part[name] = value
        parts.append(part)
    return parts


def _share(elements: Any, items: list[Any], way: str | None) -> list[list[Any]] | None:
    """Which elements of an answer's list belong to which item, the one `way`: each to the item whose value
    (itself, or its field `way`) the element shows; or by position (None), as many as the items."""
    if not isinstance(elements, list):
        return None
    if way is None:
        return [[element] for element in elements] if len(elements) == len(items) else None
    values = [item if way == "" else (item.get(way) if isinstance(item, dict) else None) for item in items]
    share: list[list[Any]] = [[] for _ in items]
    last = 0
    for element in elements:
        found = [at for at, value in enumerate(values) if _scalar(value) and _shows(element, value)]
        if len(found) > 1:
            # The same value in several items (an id updated twice in one batch): the answer goes in the
            # items' order, so the element is the next of those items not answered yet.
            found = [at for at in found if at >= last and not share[at]][:1]
        if len(found) != 1:
            return None
        last = found[0]
        share[last].append(element)
    return share


def _shows(element: Any, value: Any) -> bool:
    """Whether an answer's element is the value, or an object with a field equal to it (a record by its id)."""
    if _same(element, value):
        return True
    return isinstance(element, dict) and any(_same(field_value, value) for field_value in element.values())


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _item_tool(tool: ToolSpec, batch: Batch, calls: list[RecordedCall]) -> ToolSpec:
    """The tool as a call of one item: the call's other arguments, and the item's fields (their schema as the
    list's `items` declares them, else as the recorded items show them) or the item under the list's name."""
    properties: dict[str, Any] = dict(tool.input_schema.get("properties") or {})
    declared = properties.pop(batch.array)
    required = [name for name in tool.input_schema.get("required") or [] if name != batch.array]
    items = [item for call in calls for item in call.arguments.get(batch.array) or []]
    item_schema = _items_schema(declared)
    if not batch.objects:
        properties[batch.array] = item_schema or _observed(items)
        required.append(batch.array)
    else:
        given: dict[str, Any] = (item_schema or {}).get("properties") or {}
        names = list(dict.fromkeys([*given, *(name for item in items for name in item)]))
        for name in names:
            seen = [item[name] for item in items if name in item]
            properties[name] = given.get(name) or _observed(seen)
            if seen and len(seen) == len(items):
                required.append(name)
    schema = {**tool.input_schema, "properties": properties, "required": required}
    # What the list's own description says of its items (the values a field may take) is the one-item call's
    # documentation, as the tool's description is.
    said = declared.get("description") if isinstance(declared, dict) else None
    description = "\n\n".join(text for text in (tool.description, said) if isinstance(text, str) and text)
    return tool.model_copy(update={"input_schema": schema, "description": description or tool.description})


def _items_schema(declared: Any) -> dict[str, Any] | None:
    if not isinstance(declared, dict):
        return None
    for part in [declared, *(declared.get("anyOf") or []), *(declared.get("oneOf") or [])]:
        if isinstance(part, dict) and isinstance(part.get("items"), dict) and part["items"].get("type"):
            return dict(part["items"])
    return None


def _observed(values: list[Any]) -> dict[str, Any]:
    """A schema of the JSON types the values show (a number where some are whole and some not)."""
    kinds = sorted({json_type(value) for value in values})
    if "integer" in kinds and "number" in kinds:
        kinds.remove("integer")
    if not kinds:
        return {}
    schema: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
    if "array" in kinds:
        inner = [element for value in values if isinstance(value, list) for element in value]
        if inner:
            schema["items"] = _observed(inner)
    return schema
