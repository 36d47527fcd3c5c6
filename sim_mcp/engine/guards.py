"""Guards of the LLM path that code decides, not the model: a call that names a record the state lacks.

A tool that reads, changes or deletes one record (`get_order`, `update_ticket`, `cancel_transfer`: the
intent read from its name) and is given an id argument (`order_id`, `id`) that is no key of the matching
collection of the state fails with the spec's own not-found error, without asking the model (which tends
to invent the record). The message is the spec's: a not-found example of the tool (or of another), else
the pattern its instructions write (`"ticket <id> not found"`, `"<kind> <id> not found"`), else
`"<noun> <id> not found"`.
"""

from __future__ import annotations

import re
from typing import Any

from sim_mcp.engine.intent import Action, Collection, find_collection, read_intent, split_words
from sim_mcp.specs.model import Environment, ToolSpec

__all__ = ["has_record", "ids_named", "missing_record"]

# The intents that need the record to exist (creations and listings don't).
_NEEDS_RECORD = frozenset({Action.GET, Action.UPDATE, Action.DELETE, Action.SET_STATUS})
_QUOTED = re.compile(r"[\"“]([^\"”\n]{0,80}?<id>[^\"”\n]{0,40}?not found[^\"”\n]{0,20}?)[\"”]", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"<(kind|noun|type|resource|[a-z_]+)>")


def ids_named(tool: ToolSpec, state: Any, arguments: dict[str, Any]) -> list[tuple[str, Any, Collection]]:
    """(argument, id, collection) for each argument of the call that names a record of a collection of the
    state by its id: `transfer_id` -> `transfers`, `id` -> the collection of the tool's own noun."""
    intent = read_intent(tool.name, state)
    named: list[tuple[str, Any, Collection]] = []
    for key, value in arguments.items():
        if isinstance(value, bool) or not isinstance(value, str | int):
            continue
        words = split_words(key)
        if words == ["id"]:
            noun = intent.noun
        elif len(words) > 1 and words[-1] == "id":
            noun = tuple(words[:-1])
        else:
            continue
        collection = find_collection(state, noun)
        if collection is not None:
            named.append((key, value, collection))
    return named


def missing_record(environment: Environment, tool: ToolSpec, state: Any, arguments: dict[str, Any]) -> str | None:
    """The spec's not-found error when the call needs a record that the state does not have (None: no
    such problem, or the tool is not one that needs its record)."""
    if read_intent(tool.name, state).action not in _NEEDS_RECORD:
        return None
    for key, value, collection in ids_named(tool, state, arguments):
        if not has_record(collection, value):
            return not_found_message(environment, tool, key, value, collection.singular)
    return None


def has_record(collection: Collection, value: str | int) -> bool:
    """Whether `collection` holds a record with the id `value` (a key, or an `id` field)."""
    records = collection.records
    if isinstance(records, dict):
        if str(value) in records or value in records:
            return True
        return any(isinstance(record, dict) and record.get("id") == value for record in records.values())
    return any(isinstance(record, dict) and str(record.get("id")) == str(value) for record in records)


def not_found_message(environment: Environment, tool: ToolSpec, key: str, value: str | int, noun: str) -> str:
    """The spec's words for "no record `value`": from an example, else its instructions, else plain."""
    for candidate in [tool, *(other for other in environment.tools if other is not tool)]:
        for example in candidate.examples:
            found = example.arguments.get(key)
            text = example.result if isinstance(example.result, str) else None
            if example.is_error and text and found is not None and str(found) in text and "not found" in text.lower():
                return text.replace(str(found), str(value))
    patterns = _QUOTED.findall(environment.instructions or "")
    word = noun.replace("_", " ")
    for pattern in sorted(patterns, key=lambda p: not p.lower().startswith(word.lower())):
        head = pattern.split("<id>", 1)[0].strip().lower()
        if head in (word.lower(), "") or _PLACEHOLDER.fullmatch(head):
            return _PLACEHOLDER.sub(word, pattern.replace("<id>", str(value)))
    return f"{word} {value} not found"
