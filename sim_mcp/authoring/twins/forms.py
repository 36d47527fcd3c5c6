"""An argument's form as a condition (`FORMS`, a section of `library.LIBRARY`): a server that checks the format
of a value (a priority that must be one uppercase letter, a date that must read `YYYY-MM-DD`) answers a value
of another form otherwise, often as a success-shaped `{"error": ...}` that no key or length tells apart.

A string's **form** is its characters' classes, a run of one class written as one character: uppercase
letters `A`, lowercase ones `a`, digits `9`, any other character as itself (`2026-12-06` is `9-9-9`, `high`
and `low` are `a`, `B` is `A`): what a format admits, not how long a value is; a string past
`TWIN_FORM_LIMIT` characters has the form `*`. The condition `["unlike", name,
forms]` holds where the call gives `name` as a string whose form is none of `forms`.

The learner proposes it per string argument (and per list of one string, as that string: `tags/0`) from the
tool's recorded calls grouped by the shape of their answer (an error, or the set of a JSON object's top-level
fields with those it sets true, or a text): where the forms one group's
calls give are none of those the other groups give, and those are few (`_FEW`), the condition that the value
is unlike the others' forms is an atom the covering may ask; and where one group's forms are few and other
groups' calls give values of other forms too, that a value is unlike that group's (a refusal's group mixes
the calls refused for this argument with those refused for another: `next friday` beside `2027-01-15`, where
every success gave a date). The forms are computed by the Starlark below.

A server may check a value against a set instead (a priority of `low`, `med` or `high`, where `medium` has
the same form): `["not_among", name, values]` holds where the call gives `name` as a string none of `values`.
It is proposed where one group's values are few and each a word the tool's own description or schema names
(an enumeration a server documents, not a name the agent chose: a title is never a condition), and other
groups' calls give values outside them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["BRIDGE", "BRIDGE_TOOLS", "FORMS", "form_atoms"]

FORMS = """
TWIN_FORM_LIMIT = 24

def twin_form(value):
    # A string's characters' classes, a run of one as one: A uppercase letters, a lowercase ones, 9 digits,
    # other characters as they are.
    if type(value) != "string":
        return None
    if len(value) > TWIN_FORM_LIMIT:
        return "*"
    out = []
    for char in value.elems():
        if char.isdigit():
            out.append("9")
        elif char.isupper():
            out.append("A")
        elif char.islower():
            out.append("a")
        else:
            out.append(char)
            continue
        if len(out) > 1 and out[-1] == out[-2]:
            out.pop()
    return "".join(out)

TWIN_HEX_DIGITS = "0123456789abcdefABCDEF"

def twin_hex_form(value):
    # A string's form read as hexadecimal: a run of hex digits (either case) as x and its length, other
    # characters as `twin_form` writes them (`#aeb16a` is `#x6`, `#12345` is `#x5`, `#ggg000` is `#ax3`).
    if type(value) != "string":
        return None
    if len(value) > TWIN_FORM_LIMIT:
        return "*"
    runs = []
    for char in value.elems():
        if char in TWIN_HEX_DIGITS:
            kind = "x"
        elif char.isupper():
            kind = "A"
        elif char.islower():
            kind = "a"
        else:
            runs.append([char, 1])
            continue
        if runs and runs[-1][0] == kind:
            runs[-1][1] += 1
        else:
            runs.append([kind, 1])
    return "".join([run[0] + (str(run[1]) if run[0] == "x" else "") for run in runs])

def twin_unlike(atom, args):
    # ["unlike", name, forms]: the argument is a string of none of those forms; ["unlike", name, forms, "hex"]:
    # of none of those hexadecimal forms.
    value = args.get(atom[1])
    form = twin_hex_form(value) if len(atom) > 3 else twin_form(value)
    return form != None and form not in atom[2]

def twin_not_among(atom, args):
    # ["not_among", name, values]: the argument is a string none of those values.
    value = args.get(atom[1])
    return type(value) == "string" and value not in atom[2]
"""

BRIDGE = """
def twin_bridge_forms(state, args):
    read = twin_hex_form if args.get("hex") else twin_form
    return [read(value) for value in args["values"]]
"""
BRIDGE_TOOLS = ("twin_bridge_forms",)

# The most forms the other calls may give for a condition on them: a server's format admits few.
_FEW = 4
# How many distinct values, per form, a group of calls must give for its forms to be read as a format.
_SHARED = 3
_HEX = re.compile(r"[^0-9A-Za-z]?[0-9a-fA-F]+")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_]|[A-Za-z0-9_]")


def form_atoms(library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall]) -> list[list[Any]]:
    """`["unlike", name, forms]` for each argument given as a string whose values' forms tell one shape of the tool's
    answers from the others'."""
    # Any argument given as a string (a schema may say so through `anyOf`, or not at all), and a list of one
    # string as that string (`tags/0`, as `keyed_world.view` writes it: a tag a server refuses for its form).
    names = list(tool.input_schema.get("properties") or {})
    names += sorted({name for call in calls for name in call.arguments if name.endswith("/0")} - set(names))
    given = [(name, call) for name in names for call in calls if isinstance(call.arguments.get(name), str)]
    if not given:
        return []
    values = [call.arguments[name] for name, call in given]
    forms = library.call("twin_bridge_forms", {"values": values})
    named = _named_words(tool)
    atoms: list[list[Any]] = []
    for name in names:
        atoms += _form_atoms(name, given, forms, [])
        values_by = _values_by_shape(name, given)
        for shape, mine in values_by.items():
            others = set().union(*(seen for other, seen in values_by.items() if other != shape))
            if len(mine) <= _FEW and mine <= named and others - mine:
                atoms.append(["not_among", name, sorted(mine)])
    # Hexadecimal values (a colour, a hash, an object id) read as runs of hex digits and their lengths too: a
    # letter a-f and a digit are one class there (`#aeb16a` and `#c0905b` one form, which the reading above
    # tells apart), and `#12345` is told from `#123456`.
    hexadecimal = [
        name for name in names if _hexadecimal([v for (n, _), v in zip(given, values, strict=True) if n == name])
    ]
    if hexadecimal:
        hexed = [(name, call) for name, call in given if name in hexadecimal]
        read = library.call(
            "twin_bridge_forms", {"values": [call.arguments[name] for name, call in hexed], "hex": True}
        )
        for name in hexadecimal:
            atoms += _form_atoms(name, hexed, read, ["hex"])
    return atoms


def _form_atoms(
    name: str, given: list[tuple[str, RecordedCall]], forms: list[str], reading: list[str]
) -> list[list[Any]]:
    """`["unlike", name, forms, *reading]` where the argument's forms (one per call of `given`) tell one shape of
    the tool's answers from the others'."""
    atoms: list[list[Any]] = []
    by_shape: dict[str, set[str]] = {}
    for (named, call), form in zip(given, forms, strict=True):
        if named == name:
            by_shape.setdefault(_shape(call), set()).add(form)
    values = _values_by_shape(name, given)
    for shape, mine in by_shape.items():
        others = set().union(*(seen for other, seen in by_shape.items() if other != shape))
        if others and len(others) <= _FEW and not mine & others and "*" not in others:
            atoms.append(["unlike", name, sorted(others), *reading])
        # A group's own forms tell a format only where many values share them: a few calls of a rare shape
        # (two refusals) give few forms by chance, and a condition on them would refuse a free text's
        # unseen forms.
        shown = len(values[shape]) >= _SHARED * len(mine)
        if (
            len(mine) <= _FEW
            and "*" not in mine
            and others - mine
            and shown
            and ["unlike", name, sorted(mine), *reading] not in atoms
        ):
            atoms.append(["unlike", name, sorted(mine), *reading])
    return atoms


def _values_by_shape(name: str, given: list[tuple[str, RecordedCall]]) -> dict[str, set[str]]:
    """The values `name` was given, grouped by the shape of the answer each call got (`_shape`)."""
    grouped: dict[str, set[str]] = {}
    for named, call in given:
        if named == name:
            grouped.setdefault(_shape(call), set()).add(call.arguments[name])
    return grouped


def _hexadecimal(values: list[str]) -> bool:
    """Whether an argument's values read as hexadecimal: most of them (a mark before them aside, `#`) hex digits
    only, a letter a-f and a digit among them (a word, a decimal number or a name is no such value)."""
    distinct = {value for value in values if value}
    hexed = [value for value in distinct if _HEX.fullmatch(value) and re.search(r"[0-9]", value)]
    return len(hexed) * 2 > len(distinct) and any(re.search(r"[a-fA-F]", value) for value in hexed)


def _named_words(tool: ToolSpec) -> set[str]:
    """The words the tool's description and input schema name: the values it documents."""
    text = (tool.description or "") + " " + json.dumps(tool.input_schema)
    return set(_WORD.findall(text))


def _shape(call: RecordedCall) -> str:
    """What kind of answer a call got: an error, a text, or an object by its fields and the flags it sets (a
    refusal a server answers as a success, `{"ok": false, "error": ..., "entry": null}`, has the fields of
    its successes but not their `ok`)."""
    if call.is_error or call.rpc_error is not None:
        return "error"
    value = call.value
    if not isinstance(value, dict):
        return type(value).__name__
    return json.dumps([sorted(value), sorted(name for name, item in value.items() if item is True)])
