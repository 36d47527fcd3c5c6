"""Conditions on the items of an array argument (`ITEMS`, a section of `library.LIBRARY`): a server that computes
its answer over records given in the call (trades, line items, measurements) answers a call none of whose items
a filter picks otherwise (a report of sales in a year that finds none answers its empty report, whatever else
the call holds), and that emptiness is no argument's value, length or form.

A **filter** is a list of tests an item must all pass: `[field, "is", value]`, the item's field is that text (a
record's kind, `sell`); `[field, "starts", name]`, the item's field is a text that starts with the text of the
call's argument `name` (a number written as its digits: a day `2025-03-01` in the year `2025`, a period). The
condition `["no_items", array, filter]` holds where the call gives `array` as a list none of whose items the
filter picks. (Its converse, some item picked, is left out: it tells a call whose answer the twin cannot compute
from others only by chance, and a rule resting on one such call answers the next one wrongly.)

The learner proposes them per array argument of objects from the tool's recorded calls: each text a field of
the items takes, where a field takes few (`_FEW`: a kind, not a name), and each argument whose text starts a
field's text in some item; alone and one of each together. The covering keeps one only where the recorded
answers bear it out; the tests are evaluated by the Starlark below.
"""

from __future__ import annotations

from typing import Any

from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["ITEMS", "item_atoms"]

ITEMS = """
def twin_item_passes(item, test, args):
    value = item.get(test[0])
    if type(value) != "string":
        return False
    if test[1] == "is":
        return value == test[2]
    if test[1] == "starts":
        given = args.get(test[2])
        prefix = given if type(given) == "string" else (str(given) if type(given) == "int" else "")
        return prefix != "" and value.startswith(prefix)
    return False

def twin_items_hold(atom, args):
    # ["no_items", array, filter]: none of the array's items passes every test of the filter. None where the
    # call gives no list there.
    items = args.get(atom[1])
    if type(items) != "list":
        return None
    some = any([
        type(item) == "dict" and all([twin_item_passes(item, test, args) for test in atom[2]]) for item in items
    ])
    return not some
"""

# The most texts a field of the items may take for a test of its value: a kind of record takes few; a name or a
# day, many.
_FEW = 4


def item_atoms(tool: ToolSpec, calls: list[RecordedCall]) -> list[list[Any]]:
    """`["no_items", array, filter]` for each array argument of objects the tool's calls give: its filters are
    each text a field of few values takes (`is`), each argument whose text starts a field's text in some item
    (`starts`), and one of each together."""
    atoms: list[list[Any]] = []
    for array in tool.input_schema.get("properties") or {}:
        given = [call for call in calls if isinstance(call.arguments.get(array), list)]
        items = [item for call in given for item in call.arguments[array] if isinstance(item, dict)]
        if not items:
            continue
        texts: dict[str, set[str]] = {}
        for item in items:
            for name, value in item.items():
                if isinstance(value, str):
                    texts.setdefault(name, set()).add(value)
        kinds = [
            [name, "is", value] for name in sorted(texts) if len(texts[name]) <= _FEW for value in sorted(texts[name])
        ]
        starts = [[name, "starts", other] for name in sorted(texts) for other in _starting(array, name, given)]
        filters = [[test] for test in kinds + starts] + [[kind, start] for kind in kinds for start in starts]
        atoms += [["no_items", array, tests] for tests in filters]
    return atoms


def _starting(array: str, field: str, calls: list[RecordedCall]) -> list[str]:
    """The other arguments whose text (a number's digits) starts the field's text in some item of a call."""
    found: set[str] = set()
    for call in calls:
        for name, value in call.arguments.items():
            text = _text(value) if name != array else None
            if text and any(
                isinstance(item, dict) and isinstance(item.get(field), str) and item[field].startswith(text)
                for item in call.arguments[array]
            ):
                found.add(name)
    return sorted(found)


def _text(value: Any) -> str | None:
    # As the Starlark reads an argument's text: a text as it is, a whole number as its digits (a double is
    # left out: its digits would start a day only by chance).
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None
