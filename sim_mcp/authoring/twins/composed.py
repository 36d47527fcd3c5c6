"""A text a server composes from a record's fields (`COMPOSED`, a section of `library.LIBRARY`), and how the
learner reads one from recorded answers.

A record store often answers a record with a line built from its fields: a todo.txt line (`(A) 2026-12-06
Review draft +work @phone`: a priority in parentheses, the day it was made, the text, each project marked `+`,
each context `@`), a log line, a card's title with its tags. Such a line is a sequence of **segments**, each a
field written between two marks (`["priority", "(", ")"]`), an array field written item by item, each between
the marks (`["projects", "+", ""]`), a flag written as its mark where it holds (`["done", "x", ""]`), or the
server's clock's day (`["$today", "", ""]`: a day no field holds), joined by spaces; a segment whose field is
absent, null, empty or false is left out, with its marks.

The learner reads each recorded text against the fields it may be built from (the call's arguments, the record
stored under the key an argument names, a listed record's fields): the text split at its spaces is parsed as
segments, every word consumed, each field used once, marks at most two characters that are neither letters,
digits nor spaces (a flag's mark is any word of one or two characters). A parse of two segments at least is a
composition; the parses of one source over all of a tool's calls are merged into one order of segments (each
field with the marks most calls show it with), so that a call without a priority and one with it give one
template. Whether that template holds is for the covering to tell: it is evaluated by the Starlark below.

Placeholders: `["compose", source, segments]`, `source` `["args"]` (the call's arguments) or `["stored", name]`
(the fields of the record under the key argument `name` names: what it was stored with, the record an answer
showed for it, the call's other arguments in their place, as an update leaves it); in a JSON listing's item,
`["compose", segments]` over the listed record's fields.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

__all__ = ["COMPOSED", "Segment", "compositions", "merge", "parse", "shown_parses", "undated"]

COMPOSED = """
def twin_compose_part(part, root, keys, args):
    # ["compose", source, segments]: a text composed from the call's arguments or a stored record's fields.
    if part[1][0] == "args":
        return twin_composed(part[2], args)
    key = twin_key(root, args.get(part[1][1]))
    if key == None or key not in keys:
        return None
    # The record as the call leaves it: an update's arguments in place of its fields.
    fields = twin_fields(key, keys[key])
    fields.update({k: v for k, v in args.items() if k != part[1][1] and "/" not in k})
    return twin_composed(part[2], fields)

def twin_composed(segments, fields):
    # Each segment's field between its marks (an array's items each so, a flag as its mark), the clock's
    # day for "$today"; a field absent, null, empty or false leaves its segment out. Joined by spaces.
    out = []
    for segment in segments:
        name, before, after = segment[0], segment[1], segment[2]
        if name == "$today":
            out.append(before + today() + after)
            continue
        value = fields.get(name)
        if value == None or value == "" or value == [] or value == False:
            continue
        if value == True:
            out.append(before + after)
        elif type(value) == "list":
            # An array the server sorts (tags shown in order whatever order they were given in).
            texts = [twin_compose_text(item) for item in (sorted(value) if segment[3] == "sorted" else value)]
            if None in texts:
                return None
            out.append(" ".join([before + text + after for text in texts]))
        else:
            text = twin_compose_text(value)
            if text == None:
                return None
            out.append(before + text + after)
    return " ".join(out)

def twin_compose_text(value):
    if type(value) == "string":
        return value
    if type(value) == "int":
        return str(value)
    return None
"""

# A segment: the field (or "$today"), the mark before it and the mark after it, and for an array its items'
# order: as given (""), sorted, or either (`"any"`, items given in sorted order: `merge` settles it).
Segment = tuple[str, str, str, str]

_MARK = re.compile(r"[^\w\s]{0,2}")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# A flag's mark: a word of one or two characters (todo.txt's `x` of a completed task).
_FLAG_MARK = 2
# Parses tried per text at most: the fields of a record are few, and a text that parses at all parses soon.
_BUDGET = 2000


def parse(text: str, fields: dict[str, Any]) -> list[Segment] | None:
    """`text` as segments over `fields` (every word consumed, each field used once, two segments at least),
    or None. Longer values are tried first, then the day, then flags: a word is read as the field that
    explains most of it."""
    words = text.split(" ")
    if len(words) < 2 or "" in words:
        return None
    # `$key`, `$at`: what the twin knows of a record, not its fields; `projects/0`: an item of an array argument.
    usable = {name: value for name, value in fields.items() if name[:1] != "$" and "/" not in name and _usable(value)}
    order = sorted(usable, key=lambda name: (-len(_written(usable[name])), name))
    budget = [_BUDGET]

    def walk(at: int, used: frozenset[str]) -> list[Segment] | None:
        if at == len(words):
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        for name, segment, width in _candidates(words, at, usable, order, used):
            rest = walk(at + width, used | {name})
            if rest is not None:
                return [segment, *rest]
        return None

    found = walk(0, frozenset())
    return found if found is not None and len(found) >= 2 else None


def _candidates(
    words: list[str], at: int, fields: dict[str, Any], order: list[str], used: frozenset[str]
) -> Iterator[tuple[str, Segment, int]]:
    for name in order:
        if name in used:
            continue
        value = fields[name]
        if isinstance(value, bool):
            continue
        if isinstance(value, list):
            width = len(value)
            orders = [order for order, items in (("", value), ("sorted", sorted(value))) if _listed(words[at:], items)]
            if orders:
                marks = _marks(words[at], value[0] if orders[0] == "" else min(value))
                assert marks is not None
                yield name, (name, *marks, orders[0] if len(orders) == 1 else "any"), width
            continue
        written = _written(value)
        width = len(written.split(" "))
        if at + width <= len(words) and (marks := _marks(" ".join(words[at : at + width]), written)) is not None:
            yield name, (name, *marks, ""), width
    if "$today" not in used and _DAY.fullmatch(words[at]):
        yield "$today", ("$today", "", "", ""), 1
    if len(words[at]) <= _FLAG_MARK:
        for name in order:
            if name not in used and fields[name] is True:
                yield name, (name, words[at], "", ""), 1


def _listed(words: list[str], items: list[str]) -> bool:
    """Whether the words start with the items in this order, each between the same marks."""
    if len(words) < len(items):
        return False
    marks = _marks(words[0], items[0])
    return marks is not None and all(_marks(word, item) == marks for word, item in zip(words, items, strict=False))


def _usable(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, list):
        return bool(value) and all(isinstance(item, str) and _plain(item) and " " not in item for item in value)
    if type(value) is int:
        return True
    return isinstance(value, str) and _plain(value)


def _plain(text: str) -> bool:
    return bool(text) and text == text.strip() and "  " not in text and "\n" not in text


def _written(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(value)
    return str(value)


def _marks(chunk: str, value: str) -> tuple[str, str] | None:
    at = chunk.find(value)
    if at < 0:
        return None
    before, after = chunk[:at], chunk[at + len(value) :]
    return (before, after) if _MARK.fullmatch(before) and _MARK.fullmatch(after) else None


def merge(parses: list[list[Segment]]) -> list[Segment] | None:
    """One order of segments that the parses follow: each field with the marks most parses show it with (a
    parse that shows a field with other marks is left out: a word two fields could write, read as the
    other), an array's items sorted where a parse shows them so though they were given otherwise (and none
    the other way round), one field before another where more parses put it there, fields first seen earlier
    first where nothing orders them; None where the order goes round."""
    marks: dict[str, Counter[tuple[str, str]]] = {}
    orders: dict[str, Counter[str]] = {}
    for segments in parses:
        for name, opening, closing, order in segments:
            marks.setdefault(name, Counter())[(opening, closing)] += 1
            orders.setdefault(name, Counter())[order] += 1
    chosen = {name: count.most_common(1)[0][0] for name, count in marks.items()}
    sort = {name: "sorted" if count["sorted"] > count[""] else "" for name, count in orders.items()}
    kept = [segments for segments in parses if all(chosen[name] == (b, a) for name, b, a, _ in segments)]
    first: dict[str, int] = {}
    before: Counter[tuple[str, str]] = Counter()
    for segments in kept:
        for index, (name, _, _, _) in enumerate(segments):
            first.setdefault(name, len(first))
            before.update((name, later) for later, _, _, _ in segments[index + 1 :])
    ordered: list[str] = []
    left = sorted(first, key=first.__getitem__)
    while left:
        free = [name for name in left if not any(before[(o, name)] > before[(name, o)] for o in left if o != name)]
        if not free:
            return None
        ordered.append(free[0])
        left.remove(free[0])
    return [(name, *chosen[name], sort[name]) for name in ordered]


def compositions(texts: list[tuple[str, dict[str, Any]]]) -> list[Segment] | None:
    """The segments that compose the texts from their fields, merged over those that parse (`parse`, `merge`);
    None where none does."""
    parses = [found for text, fields in texts if (found := parse(text, fields)) is not None]
    return merge(parses) if parses else None


def shown_parses(values: list[Any]) -> list[list[Segment]]:
    """How the records the answers show compose a text of theirs: each JSON object's text fields parsed
    against its other fields (a record shown with its own line, wherever it is shown: added, read, listed,
    updated), to be merged with a source's own parses. A day it holds is read as the clock's, which
    twin-check compares by form."""
    texts: list[tuple[str, dict[str, Any]]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                if isinstance(item, str) and " " in item:
                    texts.append((item, undated({k: v for k, v in value.items() if k != name})))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for value in values:
        walk(value)
    return [found for text, fields in texts if (found := parse(text, fields)) is not None]


def undated(fields: dict[str, Any]) -> dict[str, Any]:
    """A record's fields but the days it holds: a day in its line is read as the clock's (`$today`), so that
    a line composed at a create (from the call, the day the server's today) and one composed from the stored
    record read as one composition; twin-check compares days by form."""
    return {name: value for name, value in fields.items() if not (isinstance(value, str) and _DAY.fullmatch(value))}
