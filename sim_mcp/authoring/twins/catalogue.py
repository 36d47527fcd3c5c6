"""A bundled catalogue: what a server's answers show beside the names of the entries it was shipped with.

Many servers answer from a list they carry (practice problems, products, countries, units): an agent names an
entry, and the answer shows facts the call did not give (`Logged: Reorder List (Linked List, Medium)`). No rule of
the keyed world can write those facts from the call or from what calls stored, and rules that write them as
literal text answer the recorded calls alone. But the answers of every tool show the same facts beside the same
names, in listings too (`- Reorder List [Linked List, Medium] — not_started`): read together, they are a table
from an entry's name to its facts, and a call naming an entry any training answer showed can be answered.

The table is read from text lines. A string argument whose value a success answer shows (ignoring case) names an
entry; where such a name starts after a prefix and is followed by a separator (a run of punctuation and
spaces: ` (`, ` [`), that prefix and separator are a **line shape**, kept where names of two entries at least
show it. Every line of every answer in a shape names an entry, the text between prefix and separator, listed or
not, and the rest of the line after the separator, split at punctuation (brackets, commas, bars, dashes between
spaces), are its facts by place. A place is a fact of the catalogue only where no entry shows two values at it (a
status that changes is no fact), and only the entries that show it have it. Each place is a table
`["lookup", [argument], table]` (`functions.py`'s lookup, keyed by the value given and by its lower case), as is
the name as the server writes it where an answer spelled a name otherwise than its call (a name given in
another case, answered as the catalogue spells it); a call
naming no entry of the table writes no such piece, and the keyed world hands it on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.recordings import RecordedCall, texts_of
from sim_mcp.specs.model import ToolSpec

__all__ = ["Catalogue", "catalogue_pieces", "read_catalogue"]

# An entry's name: a short one-line text (longer ones are documents, not names).
_SHORTEST_NAME, _LONGEST_NAME = 3, 100
# Where a line's facts are split: brackets, commas, semicolons, bars, and dashes standing between spaces.
_FACT_BREAK = re.compile(r"\s*[()\[\]{},;|]+\s*|\s+[-\u2013\u2014]+\s+")
# The separator after a name: the punctuation and spaces that follow it, one non-space at least.
_SEPARATOR = re.compile(r"[\s()\[\]{},;:|\-\u2013\u2014]*")
# A fact too short to mean something (a lone letter) is no piece, as a function's value is not.
_SHORTEST_FACT = 2


@dataclass
class Catalogue:
    """Entries by name as the server writes it: `names` from a name's lower case to that spelling, `facts` by
    spelling, the fact at each place of a line after the name."""

    names: dict[str, str] = field(default_factory=dict)
    facts: dict[str, dict[int, str]] = field(default_factory=dict)
    respelled: bool = False  # whether an answer spelled a name otherwise than the call that gave it

    def tables(self) -> list[tuple[str, dict[str, str]]]:
        """The lookup tables a call's argument may choose from: the name as written (only where an answer
        spelled a name otherwise than its call gave it: elsewhere the name given is the one answered, and a table
        of the names seen would answer no name a later call makes up), then each place's facts, keyed by the
        name as written and by its lower case; only tables of two values or more (one value is a constant)."""
        found: list[tuple[str, dict[str, str]]] = []
        if self.respelled:
            spelled = {key: spelling for spelling in self.names.values() for key in {spelling, spelling.lower()}}
            found.append(("name", spelled))
        places = sorted({place for facts in self.facts.values() for place in facts})
        for place in places:
            table = {
                key: facts[place]
                for spelling, facts in self.facts.items()
                if place in facts
                for key in {spelling, spelling.lower()}
            }
            found.append((str(place), table))
        return [(label, table) for label, table in found if len(set(table.values())) > 1]


def read_catalogue(tools: Iterable[tuple[ToolSpec, list[RecordedCall]]]) -> Catalogue:
    """The catalogue the success answers of every tool show (module docstring); empty where no line shape is
    shown by two names."""
    lines: list[str] = []
    known: set[str] = set()  # names as the answers spell them
    respelled = False
    for spec, calls in tools:
        properties = spec.input_schema.get("properties") or {}
        texts = [name for name, schema in properties.items() if "string" in types_of(schema)]
        for call in calls:
            if call.is_error or call.rpc_error is not None:
                continue
            own = [line for text in texts_of(call.value) for line in text.split("\n")]
            lines += own
            for name in texts:
                value = call.arguments.get(name)
                if isinstance(value, str) and _SHORTEST_NAME <= len(value) <= _LONGEST_NAME and "\n" not in value:
                    for line in own:
                        if (found := _named(line, value)) is not None:
                            known.add(line[found[1] : found[2]])
                            respelled = respelled or line[found[1] : found[2]] != value
    # Where any answer names an entry some call named: a listing shows the names a later call gives.
    distinct = list(dict.fromkeys(lines))
    occurrences = [found for name in sorted(known) for line in distinct if (found := _named(line, name)) is not None]
    shapes = _shapes(occurrences)
    catalogue = Catalogue(respelled=respelled)
    if not shapes:
        return catalogue
    seen: dict[tuple[str, str], dict[str, dict[int, set[str]]]] = {shape: {} for shape in shapes}
    for line in distinct:
        for shape in shapes:
            prefix, separator = shape
            if not line.startswith(prefix):
                continue
            end = line.find(separator, len(prefix))
            name = line[len(prefix) : end] if end > len(prefix) else ""
            if not _SHORTEST_NAME <= len(name) <= _LONGEST_NAME or not any(c.isalnum() for c in name):
                continue
            catalogue.names.setdefault(name.lower(), name)
            places = seen[shape].setdefault(name, {})
            for place, fact in enumerate(_facts(line[end + len(separator) :])):
                places.setdefault(place, set()).add(fact)
            break
    merged: dict[str, dict[int, set[str]]] = {}
    for named in seen.values():
        # A place of a shape where any entry shows two values holds a state, not a fact (a status, a count).
        changing = {place for places in named.values() for place, values in places.items() if len(values) > 1}
        for name, places in named.items():
            for place, values in places.items():
                if place not in changing:
                    merged.setdefault(name, {}).setdefault(place, set()).update(values)
    for name, places in merged.items():
        # Two shapes that show an entry differently at one place tell nothing of it there.
        facts = {place: min(values) for place, values in places.items() if len(values) == 1}
        facts = {place: fact for place, fact in facts.items() if len(fact) >= _SHORTEST_FACT}
        if facts:
            catalogue.facts[name] = facts
    return catalogue


def catalogue_pieces(catalogue: Catalogue, tool: ToolSpec, calls: list[RecordedCall]) -> dict[int, list[list[Any]]]:
    """Per call (by id), the catalogue's facts its answer shows of the entry a string argument names, as
    `[text, ["lookup", [argument], table]]` pieces of its templates."""
    tables = catalogue.tables()
    if not tables:
        return {}
    properties = tool.input_schema.get("properties") or {}
    texts = [name for name, schema in properties.items() if "string" in types_of(schema)]
    found: dict[int, list[list[Any]]] = {}
    for call in calls:
        if call.is_error or call.rpc_error is not None:
            continue
        shown = texts_of(call.value)
        for name in texts:
            value = call.arguments.get(name)
            if not isinstance(value, str):
                continue
            for _, table in tables:
                fact = table.get(value)
                if fact is not None and any(fact in text for text in shown):
                    found.setdefault(id(call), []).append([fact, ["lookup", [name], table]])
    return found


def _named(line: str, value: str) -> tuple[str, int, int] | None:
    """Where `line` names `value` (ignoring case) as a whole: not inside a longer word."""
    at = line.lower().find(value.lower())
    if at < 0:
        return None
    end = at + len(value)
    if (at > 0 and line[at - 1].isalnum()) or (end < len(line) and line[end].isalnum()):
        return None
    return line, at, end


def _shapes(occurrences: list[tuple[str, int, int]]) -> list[tuple[str, str]]:
    """The (prefix, separator) pairs that names of two entries at least show, longest prefix first."""
    names: dict[tuple[str, str], set[str]] = {}
    for line, start, end in occurrences:
        match = _SEPARATOR.match(line, end)
        separator = match.group(0) if match else ""
        if not separator.strip() or end + len(separator) >= len(line):
            continue  # a name at a line's end, or followed by spaces alone, is told from what follows by nothing
        prefix = line[:start]
        names.setdefault((prefix, separator), set()).add(line[start:end].lower())
    kept = [shape for shape, named in names.items() if len(named) >= 2]
    return sorted(kept, key=lambda shape: (-len(shape[0]), shape))


def _facts(rest: str) -> list[str]:
    return [part.strip() for part in _FACT_BREAK.split(rest) if part.strip()]
