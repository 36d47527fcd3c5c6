"""A JSON document a server writes into a text (`json.dumps(record, indent=2, sort_keys=True)` returned as
a tool's string, which an MCP server answers as `{"result": "{\n  \"id\": ...}"}`): read as the JSON value
it writes, so that the keyed world learns its records, listings and fields as it learns those of any JSON
answer, and written back as the server writes it.

A field of a success's structured answer is such a document where its text is a JSON object or array that
Python's `json.dumps` writes back exactly in one style (`Style`: its indent, whether non-ASCII letters are
escaped, whether its keys are sorted). A tool's successes are read so at a field where every one whose text
there is a document is written in one style (`documents`); the answers are then learned decoded (`decoded`),
and the plan names those fields and their style (`plan["documents"]`), which `library.twin_documents` writes
back as text after the answer's effect: the keyed world keeps the records, the caller sees the text.

Most servers write a record's keys in the order their code put them (`json.dumps(row)`), not sorted. The
twin's records keep no order of their fields (JSON objects cross into Starlark with their keys sorted), so
the order is learned apart (`key_orders`): every sequence of keys an object of the server's documents showed,
the tool's own first. Written back, an object takes the sequence of exactly its keys, else the one that holds
most of them (its other keys after, sorted): a record read, listed or saved shows its fields as the server
wrote them. A server one of whose texts fits no sorted style keeps its own order everywhere, so that a text
sorted by chance (`{"count": 0, "results": []}`) is not read as sorted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, NamedTuple

from sim_mcp.authoring.twins.recordings import RecordedCall

__all__ = ["Style", "decoded", "documents", "key_orders", "server_documents", "styles_of", "with_documents"]


class Style(NamedTuple):
    """How Python's `json.dumps` wrote a document: `indent` (None: on one line), `sort_keys`, `ensure_ascii`."""

    indent: int | None
    sort_keys: bool
    ensure_ascii: bool


# The styles tried, likeliest first: Python's with an indent of 2, 4 or none, its keys sorted, then the same
# with its keys in the order the server's code put them (written back in the orders `key_orders` learns).
_STYLES = tuple(
    Style(indent, sort_keys, ascii) for sort_keys in (True, False) for indent in (2, None, 4) for ascii in (True, False)
)
# At most this many sequences of keys are kept per tool: a server's records come in a few shapes.
_ORDERS = 200


def styles_of(text: str) -> list[Style]:
    """The styles in which `json.dumps` writes `text`'s JSON object or array back exactly (more than one for a
    document with no object of two keys, `[]`), likeliest first; none for any other text."""
    if text[:1] not in ("{", "["):
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return [
        style
        for style in _STYLES
        if json.dumps(value, indent=style.indent, sort_keys=style.sort_keys, ensure_ascii=style.ensure_ascii) == text
    ]


def documents(calls: list[RecordedCall], own_order: bool = False) -> dict[str, Style]:
    """By field of the structured answer, the style of the documents one tool's successes write there: one
    that every text there that opens as a JSON object or array is written in (`own_order`: one that keeps
    the server's order of keys, for a server that sorts none)."""
    found: dict[str, list[Style]] = {}
    for name, text in _opening_texts(calls):
        styles = [style for style in styles_of(text) if not (own_order and style.sort_keys)]
        found[name] = [style for style in found.get(name, styles) if style in styles]
    return {name: styles[0] for name, styles in found.items() if styles}


def server_documents(calls: list[RecordedCall]) -> dict[str, dict[str, Style]]:
    """By tool, its documents (`documents`); none at all where any success of any tool writes a JSON object
    or array into a text in no style the twin writes back (JavaScript's compact `JSON.stringify`). Where one
    fits no sorted style, the server keeps its keys in its own order everywhere: every tool's documents are
    read so, a text sorted by chance too."""
    texts = list(_opening_texts(calls))
    if any(_json(text) and not styles_of(text) for _, text in texts):
        return {}
    own_order = any(_json(text) and not any(style.sort_keys for style in styles_of(text)) for _, text in texts)
    tools = sorted({call.tool for call in calls})
    found = {tool: documents([call for call in calls if call.tool == tool], own_order) for tool in tools}
    return {tool: fields for tool, fields in found.items() if fields}


def key_orders(calls: list[RecordedCall], tool: str) -> list[list[str]]:
    """Every sequence of two keys or more that an object of the successes' documents showed (`calls`: the
    server's), `tool`'s own first, each once: the orders its records' fields are written back in."""
    found: dict[tuple[str, ...], None] = {}
    for own in (True, False):
        for call in calls:
            if (call.tool == tool) != own:
                continue
            for _, text in _opening_texts([call]):
                if _json(text):
                    for keys in _key_sequences(json.loads(text)):
                        found.setdefault(keys, None)
    return [list(keys) for keys in list(found)[:_ORDERS]]


def _key_sequences(value: Any) -> Iterator[tuple[str, ...]]:
    if isinstance(value, dict):
        if len(value) > 1:
            yield tuple(value)
        for item in value.values():
            yield from _key_sequences(item)
    elif isinstance(value, list):
        for item in value:
            yield from _key_sequences(item)


def _opening_texts(calls: list[RecordedCall]) -> Iterator[tuple[str, str]]:
    """Each field and text of the successes' structured answers that opens as a JSON object or array."""
    for call in calls:
        value = call.value
        if call.is_error or call.rpc_error is not None or not isinstance(value, dict):
            continue
        for name, text in value.items():
            if isinstance(text, str) and text[:1] in ("{", "["):
                yield name, text


def _json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def decoded(call: RecordedCall, fields: dict[str, Style]) -> RecordedCall:
    """`call` with the documents at `fields` of its structured answer read as the JSON values they write."""
    value = call.value
    if not fields or call.is_error or call.result is None or not isinstance(value, dict):
        return call
    read = {
        name: json.loads(text) if name in fields and isinstance(text, str) and fields[name] in styles_of(text) else text
        for name, text in value.items()
    }
    if read == value:
        return call
    result = dict(call.result)
    result["structured_content" if "structured_content" in result else "structuredContent"] = read
    return replace(call, result=result)


def with_documents(plan: dict[str, Any], fields: dict[str, Style], orders: list[list[str]]) -> dict[str, Any]:
    """A guard plan learned from decoded answers that writes the documents at `fields` back as text; those
    whose keys keep the server's order, in `orders` (`key_orders`)."""
    if not fields:
        return plan
    written = [[name, *style] if style.sort_keys else [name, *style, orders] for name, style in sorted(fields.items())]
    rules = [_styled(rule, fields) for rule in plan.get("rules", [])]
    return {**plan, "rules": rules, "documents": written} if "rules" in plan else {**plan, "documents": written}


def _styled(rule: dict[str, Any], fields: dict[str, Style]) -> dict[str, Any]:
    """`rule` with each stored document it answers whole at a field of `fields` (`{"$parsed": ...}`) written in
    that field's style, its keys in the order the stored text gave them: the keys of a document an agent wrote
    follow none of the orders learned from the server's records."""
    answer = rule.get("answer")
    if rule.get("error") or not isinstance(answer, dict):
        return rule
    styled = {
        name: {**item, "style": list(fields[name])}
        if name in fields and isinstance(item, dict) and "$parsed" in item
        else item
        for name, item in answer.items()
    }
    return {**rule, "answer": styled} if styled != answer else rule
