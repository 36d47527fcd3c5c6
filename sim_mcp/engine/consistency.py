"""What a session shows, it keeps: the values a result shows about a record are the values the state holds.

The promise, for every outcome no rules program produced (the generic offline engine, a model's patch, a
replayed answer): each record a result shows (an object carrying the id of a record of a collection in the
state) shows the values that record holds in the state after the call, so later reads show the same until a
call changes them; a list or read shows only records the state holds. `findings` says where an outcome
breaks it; `keep_promises` repairs what can be repaired (shown values the patch does not store are stored;
a created record the patch forgot is added) and says why not otherwise, so the backend can be asked again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonpatch
import jsonpointer
from jsonpointer import escape

from sim_mcp.engine.contract import Outcome
from sim_mcp.engine.intent import (
    Action,
    Collection,
    Intent,
    collections_in,
    find_collection,
    singular,
    split_words,
    tool_intent,
)
from sim_mcp.engine.records import id_field, locate, names_collection
from sim_mcp.engine.singletons import shown_fields
from sim_mcp.specs.model import ToolSpec
from sim_mcp.state.patch import apply_patch
from sim_mcp.text import shorten

# How many wrappers deep a result is searched for records ({"data": {"issues": [...]}} is two).
_DEPTH = 3
# Actions whose result may only show records the state holds once the call is done (a create adds the one
# it shows; a delete shows the one it removed).
_READS = (Action.GET, Action.LIST, Action.UPDATE, Action.SET_STATUS)


@dataclass(frozen=True, slots=True)
class Shown:
    """A record a result shows: where in the result, the collection and id it names, and what it shows."""

    where: str
    collection: Collection
    record_id: Any
    fields: dict[str, Any]
    # Whether the record must be in the state after the call (a read of the tool's own collection).
    must_exist: bool


@dataclass(frozen=True, slots=True)
class Finding:
    """One way an outcome breaks the promise; `repair` is the patch that keeps it, None when none can."""

    message: str
    repair: list[dict[str, Any]] | None


def shown_records(result: Any, tool_name: str, before: Any, after: Any, description: str = "") -> list[Shown]:
    """The records `result` shows: objects carrying the id field of the tool's collection (found by the
    tool's name, else by its `description`), or of the collection named by the key they sit under
    (`"issues": [...]`)."""
    return _shown_by(result, _intent(tool_name, description, before, after), before, after)


def _shown_by(result: Any, intent: Intent, before: Any, after: Any) -> list[Shown]:
    """`shown_records` for the tool's intent, read once by the caller."""
    if not isinstance(after, dict):
        return []
    own = find_collection(after, intent.noun) or find_collection(before, intent.noun)
    named = [Collection(path, records, _singular_of(path)) for path, records in collections_in(after)]
    found: list[Shown] = []

    def visit(node: Any, where: str, key: str | None, depth: int) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                visit(item, f"{where}/{index}", key, depth)
            return
        if not isinstance(node, dict) or depth > _DEPTH:
            return
        collection = _collection_for(key, own, named)
        if collection is not None and (field := id_field(collection)) in node:
            record_id = node[field]
            if isinstance(record_id, str | int) and not isinstance(record_id, bool):
                must = own is not None and collection.path == own.path and intent.action in _READS
                found.append(Shown(where or "/", collection, record_id, node, must))
                return
        for name, value in node.items():
            visit(value, f"{where}/{escape(str(name))}", name, depth + 1)

    visit(result, "", None, 0)
    return found


def findings(result: Any, tool: ToolSpec, before: Any, after: Any, arguments: Any = None) -> list[Finding]:
    """Where the outcome's result and the state after it disagree, each with the patch that repairs it.
    A read-only tool (its readOnlyHint, or a get/list verb in its name or description) cannot store what it
    shows, so a shown singleton value the state contradicts has no repair."""
    out: list[Finding] = []
    intent = _intent(tool.name, tool.description, before, after)
    records = _shown_by(result, intent, before, after)
    out.extend(_record_findings(records, intent, before, after))
    hints = tool.annotations
    reads = bool(hints and hints.read_only_hint) or intent.action in (Action.GET, Action.LIST)
    skip = frozenset("" if shown.where == "/" else shown.where for shown in records)
    for field in shown_fields(result, after, tool.name, arguments, skip):
        stored = _value_at(after, field.path)
        if shown_agrees(field.shown, stored):
            continue
        label = "/".join(field.path)
        message = (
            f"the result shows {label}={shorten(repr(field.shown), 60)} but the state holds {shorten(repr(stored), 60)}"
        )
        repair = None if reads else [{"op": "replace", "path": field.pointer, "value": field.shown}]
        out.append(Finding(message, repair))
    return out


def _record_findings(records: list[Shown], intent: Intent, before: Any, after: Any) -> list[Finding]:
    action = intent.action
    out: list[Finding] = []
    for shown in records:
        collection = find_collection_at(after, shown.collection.path)
        located = locate(collection, shown.record_id) if collection is not None else None
        label = f"{shown.collection.singular} {shown.record_id!r}"
        if located is None:
            was = find_collection_at(before, shown.collection.path)
            if was is not None and locate(was, shown.record_id) is not None:
                continue  # the call removed it and shows what it removed
            if (
                action is Action.CREATE
                and collection is not None
                and shown.collection.singular == _own_singular(intent, after)
                and not _grew(before, collection)
            ):
                message = f"the result shows the new {label} but the state does not hold it"
                out.append(Finding(message, _add(collection, shown)))
            elif shown.must_exist or action is Action.CREATE:
                out.append(Finding(f"the result at {shown.where} shows {label}, which the state does not hold", None))
            continue
        key, record = located
        base = f"{collection.pointer}/{escape(key)}" if collection is not None else ""
        for name, value in shown.fields.items():
            stored = record.get(name)
            if name == id_field(shown.collection) and str(stored) == str(value):
                continue
            if name in record and shown_agrees(value, stored):
                continue
            merged = _merged(stored, value)
            op = "replace" if name in record else "add"
            message = f"the result shows {label} with {name}={shorten(repr(value), 60)} but the state holds " + (
                shorten(repr(stored), 60) if name in record else "no such field"
            )
            out.append(Finding(message, [{"op": op, "path": f"{base}/{escape(name)}", "value": merged}]))
    return out


def keep_promises(
    outcome: Outcome, tool: ToolSpec, before: Any, after: Any, arguments: Any = None
) -> tuple[Outcome, Any] | str:
    """The outcome with its patch completed so that the state after it holds every value its result shows,
    and that state; or why it cannot be (a shown record the state does not hold, or a read showing a value
    the state contradicts)."""
    if outcome.is_error:
        return outcome, after
    found = findings(outcome.result, tool, before, after, arguments)
    if not found:
        return outcome, after
    broken = [finding.message for finding in found if finding.repair is None]
    if broken:
        return (
            "the result shows what the state does not hold: "
            + "; ".join(broken[:3])
            + " (show only what the state holds, or change it with state_patch)"
        )
    repair = [op for finding in found for op in finding.repair or []]
    try:
        repaired_state = apply_patch(after, repair)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, KeyError, IndexError) as e:
        return f"the result shows values the patch does not store, and storing them failed: {e}"
    note = f"consistency: stored {len(repair)} value(s) the result showed: " + "; ".join(
        finding.message for finding in found[:3]
    )
    updated = outcome.model_copy(
        update={
            "state_patch": [*outcome.state_patch, *repair],
            "note": f"{outcome.note}; {note}" if outcome.note else note,
        }
    )
    return updated, repaired_state


def _value_at(state: Any, path: tuple[str, ...]) -> Any:
    node = state
    for part in path:
        node = node[part]
    return node


def find_collection_at(state: Any, path: tuple[str, ...]) -> Collection | None:
    node = state
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    if not isinstance(node, dict | list):
        return None
    return Collection(path, node, _singular_of(path))


def _singular_of(path: tuple[str, ...]) -> str:
    return singular("_".join(split_words(path[-1])))


def _intent(tool_name: str, description: str, before: Any, after: Any) -> Intent:
    """What the tool does, as the offline engine reads it: its name, else its description."""
    return tool_intent(tool_name, description, before if isinstance(before, dict) else after)


def _own_singular(intent: Intent, after: Any) -> str | None:
    own = find_collection(after, intent.noun)
    return own.singular if own is not None else None


def _grew(before: Any, collection: Collection) -> bool:
    """Whether the call added a record to the collection (then a created record shown beside it, with another
    id, is a contradiction, not a record the patch forgot)."""
    was = find_collection_at(before, collection.path)
    return len(collection.records) > (len(was.records) if was is not None else 0)


def _collection_for(key: str | None, own: Collection | None, named: list[Collection]) -> Collection | None:
    if key is not None:
        for collection in named:
            if names_collection(key, collection):
                return collection
    return own


def _add(collection: Collection, shown: Shown) -> list[dict[str, Any]]:
    if isinstance(collection.records, dict):
        return [{"op": "add", "path": f"{collection.pointer}/{escape(str(shown.record_id))}", "value": shown.fields}]
    return [{"op": "add", "path": f"{collection.pointer}/-", "value": shown.fields}]


def shown_agrees(shown: Any, stored: Any) -> bool:
    """Whether `shown` says nothing `stored` contradicts: equal, or an object whose keys all agree (a result
    may show part of a nested object)."""
    if isinstance(shown, dict) and isinstance(stored, dict):
        return all(key in stored and shown_agrees(value, stored[key]) for key, value in shown.items())
    if isinstance(shown, bool) or isinstance(stored, bool):
        return shown is stored
    return bool(shown == stored)


def _merged(stored: Any, shown: Any) -> Any:
    """`stored` with what `shown` says written over it (nested objects merged, anything else replaced)."""
    if isinstance(stored, dict) and isinstance(shown, dict):
        return {**stored, **{key: _merged(stored.get(key), value) for key, value in shown.items()}}
    return shown
