"""A JSON document a server writes into a text (`json.dumps(record, indent=2, sort_keys=True)` returned as
a tool's string, which an MCP server answers as `{"result": "{\n  \"id\": ...}"}`): read as the JSON value
it writes, so that the keyed world learns its records, listings and fields as it learns those of any JSON
answer, and written back as the server writes it.

A field of a success's structured answer is such a document where its text is a JSON object or array that
Python's `json.dumps` writes back exactly in one style (`Style`: its indent, whether non-ASCII letters are
escaped; its keys sorted, `sort_keys=True`, since the twin keeps no order of a record's fields). A tool's
successes are read so at a field where every one whose text there is
a document is written in one style (`documents`); the answers are then learned decoded (`decoded`), and the plan
names those fields and their style (`plan["documents"]`), which `library.twin_documents` writes back as text
after the answer's effect: the keyed world keeps the records, the caller sees the text.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, NamedTuple

from sim_mcp.authoring.twins.recordings import RecordedCall

__all__ = ["Style", "decoded", "documents", "server_documents", "styles_of", "with_documents"]


class Style(NamedTuple):
    """How Python's `json.dumps` wrote a document: `indent` (None: on one line), `sort_keys`, `ensure_ascii`."""

    indent: int | None
    sort_keys: bool
    ensure_ascii: bool


# The styles tried, likeliest first: Python's with an indent of 2, 4 or none, its keys sorted. A document
# whose keys stand in the order the server's code put them is none: the twin's records keep no order of
# their fields (JSON objects cross into Starlark with their keys sorted), so it could not write it back.
_STYLES = tuple(Style(indent, True, ascii) for indent in (2, None, 4) for ascii in (True, False))


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


def documents(calls: list[RecordedCall]) -> dict[str, Style]:
    """By field of the structured answer, the style of the documents one tool's successes write there: one
    that every text there that opens as a JSON object or array is written in."""
    found: dict[str, list[Style]] = {}
    for name, text in _opening_texts(calls):
        styles = styles_of(text)
        found[name] = [style for style in found.get(name, styles) if style in styles]
    return {name: styles[0] for name, styles in found.items() if styles}


def server_documents(calls: list[RecordedCall]) -> dict[str, dict[str, Style]]:
    """By tool, its documents (`documents`); none at all where any success of any tool writes a JSON object
    or array into a text in no style the twin writes back (its keys in the order the server's code put them):
    a server that sorts its keys does so everywhere, and one whose texts sort by chance is none."""
    if any(_json(text) and not styles_of(text) for _, text in _opening_texts(calls)):
        return {}
    tools = sorted({call.tool for call in calls})
    found = {tool: documents([call for call in calls if call.tool == tool]) for tool in tools}
    return {tool: fields for tool, fields in found.items() if fields}


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


def with_documents(plan: dict[str, Any], fields: dict[str, Style]) -> dict[str, Any]:
    """A guard plan learned from decoded answers that writes the documents at `fields` back as text."""
    if not fields:
        return plan
    return {**plan, "documents": [[name, *style] for name, style in sorted(fields.items())]}
