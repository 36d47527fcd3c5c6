"""Operations on texts and sequences the twin computes (`STRINGS`, a section of `library.LIBRARY`), and what
the learner reads of a tool whose answers show them.

A string tool answers with a function of the texts and numbers it was given: where a character or a piece
occurs (the n-th time, every time, how often), a text cut between indices, a stretch replaced by another
text (an insertion and a deletion are such replacements), a text split at indices, the text between two
markers and where it stands, how many characters of a class a text holds. As FlashFill and PROSE search a
language of string programs pruned by the examples, the learner enumerates these operations over the
tool's arguments by their types (a text, another text to look for or put in, integers for indices and
occurrences, a list of integers), computes every one on every recorded call with the twin's own Starlark,
and keeps an operation only where every recorded success it computes shows its value in one place (a JSON
value whole at one field, any list's entries alike; a text of three characters or more, or a number, inside
a text, outside a longer argument written back, which explains it), with two values at least, one of them
no argument as given: a number or a list shown by chance on one call is refuted by another. Indices count
code points and read as Python's do (a negative one from the end).

Placeholders: `["str", op, spec]`, `spec` naming the arguments by role (`text`, `needle`, `n`, `start`,
`end`, `insert`, `at`, `open`, `close`) and how the search steps on (`step`: `one` past where an occurrence
starts, so that occurrences overlap, or `whole` past its end), and ops:

- `find` (where the n-th occurrence of `needle` starts, -1 where there is none; `n` an integer argument,
  its schema's default or 1 where not given), `find_all` (every start, a list), `count` (how many);
  with `char` set, `needle` must be one character;
- `slice` (`text` from `start` up to `end`, or to its end where none is given; with `length` set, how long
  that is), `index` (integer `at` as the text reads it: a negative one from the end, none its end),
  `splice` (`text` with the stretch from `start` up to `end` replaced by `insert`: no `end` inserts, no
  `insert` deletes; with `past_end` set, a negative insertion point counts from past the end, -1 appending);
- `split` (`text` cut at the sorted distinct indices of the list `at`);
- `between` (of the `n`-th opening marker `open` and the first `close` after it: `field` `inner`, the text
  between, or where it starts and ends, `inner_start`, `inner_end`, `outer_start`, `outer_end`; null where
  there is none; the next opening searched after the previous one's opening, `step: open`, or its close);
- `class` (how many characters of `text` are of a class: `alpha`, `digit`, `alnum`, `space`, `special`
  (neither alphanumeric nor space), `upper`, `lower`, `not_space` (other than U+0020), `not_blank`).

A search that finds nothing (-1, null, an empty list, none counted) is worded by many servers apart ("not
found"): such a value need not be shown for its operation to be kept, and `["str_none", part]` holds there, so the
covering may answer that wording under it. A number may also stand whole inside a text (`Found at index
7`).

An operation that cannot take the call's values (an empty needle, a needle of several characters where one
is asked, an occurrence below 1, an index outside the text to split) fails: `["fn_fails", part]` holds
there, so a server's error for it is answered. Another that cannot be computed (an argument missing or of
another type, a text past `TWIN_STR_LIMIT`) writes nothing: the call is handed on.

The items of an array argument of objects (ranges, each a start and maybe an end) may each ask for one:
their integer fields are the roles (`ranges/*/start`, as `library.twin_item` shows an item), the call's
texts the text, and each item's operations are pieces of that item's answer in a list as long
(`read_item_strings`, kept as the call's are).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from sim_mcp.authoring.twins.argument_types import declaring, types_of
from sim_mcp.authoring.twins.expression import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["BRIDGE", "BRIDGE_TOOLS", "STRINGS", "read_item_strings", "read_strings"]

STRINGS = """
# --- operations on texts and sequences (`strings.py`) ---

TWIN_STR_LIMIT = 100000
TWIN_STR_FIELDS = ("inner", "inner_start", "inner_end", "outer_start", "outer_end")

def twin_str_of(part, args):
    # {"value": JSON value}, {"error": reason}, or None (not computed for this call).
    op, spec = part[1], part[2]
    text = args.get(spec["text"])
    if type(text) != "string" or len(text) > TWIN_STR_LIMIT:
        return None
    if op in ("find", "find_all", "count"):
        return twin_str_search(op, spec, text, args)
    if op == "slice":
        # An end not given is the text's end.
        start = twin_str_int(spec, "start", args)
        end = args.get(spec["end"]) if spec.get("end") != None else None
        if start == None or (end != None and type(end) != "int"):
            return None
        cut = text[start:end] if end != None else text[start:]
        return {"value": len(cut) if spec.get("length") else cut}
    if op == "index":
        # An index as the text reads it: a negative one from the end (none before the start), none given
        # its end.
        at = args.get(spec["at"])
        if at == None:
            return {"value": len(text)}
        if type(at) != "int":
            return None
        return {"value": max(0, len(text) + at) if at < 0 else at}
    if op == "splice":
        start = twin_str_int(spec, "start", args)
        end = start if spec.get("end") == None else twin_str_int(spec, "end", args)
        insert = "" if spec.get("insert") == None else args.get(spec["insert"])
        if start == None or end == None or type(insert) != "string":
            return None
        if spec.get("past_end") and start < 0 and spec.get("end") == None:
            # An insertion point counted from past the end: -1 is the end itself.
            start = max(0, len(text) + start + 1)
            end = start
        return {"value": text[:start] + insert + text[end:]}
    if op == "split":
        return twin_str_split(text, args.get(spec["at"]))
    if op == "between":
        return twin_str_between(spec, text, args)
    if op == "class":
        return {"value": len([c for c in text.elems() if twin_str_in_class(c, spec["class"])])}
    return None

def twin_str_none(atom, args):
    # ["str_none", part]: the operation found nothing on the call (-1, null, an empty list, a count of 0).
    found = twin_str_of(atom[1], args)
    if found == None or "value" not in found:
        return False
    return found["value"] in (-1, None, []) or (found["value"] == 0 and atom[1][1] in ("count", "class"))

def twin_str_int(spec, role, args):
    # An integer argument by role; where not given, its schema's default (`<role>_default`), else None.
    name = spec.get(role)
    if name == None:
        return spec.get(role + "_default")
    value = args.get(name, spec.get(role + "_default"))
    return value if type(value) == "int" else None

def twin_str_occurrences(text, needle, step, limit):
    # Where `needle` starts in `text`, in order, at most `limit` of them (None: all).
    out = []
    start = 0
    for _ in range(len(text) + 1):
        at = text.find(needle, start)
        if at < 0:
            break
        out.append(at)
        if limit != None and len(out) >= limit:
            break
        start = at + (1 if step == "one" else len(needle))
    return out

def twin_str_search(op, spec, text, args):
    needle = args.get(spec["needle"])
    if type(needle) != "string":
        return None
    if needle == "" or (spec.get("char") and len(needle) != 1):
        return {"error": "needle"}
    if op != "find":
        found = twin_str_occurrences(text, needle, spec["step"], None)
        return {"value": found if op == "find_all" else len(found)}
    n = twin_str_int(spec, "n", args)
    if n == None:
        return None
    if n < 1:
        return {"error": "n"}
    found = twin_str_occurrences(text, needle, spec["step"], n)
    return {"value": found[n - 1] if len(found) >= n else -1}

def twin_str_split(text, at):
    if type(at) != "list" or any([type(i) != "int" for i in at]):
        return None
    cuts = sorted({i: True for i in at}.keys())
    if any([i < 0 or i > len(text) for i in cuts]):
        return {"error": "index"}
    out = []
    start = 0
    for i in cuts:
        out.append(text[start:i])
        start = i
    out.append(text[start:])
    return {"value": out}

def twin_str_between(spec, text, args):
    opening, closing = args.get(spec["open"]), args.get(spec["close"])
    n = twin_str_int(spec, "n", args)
    if type(opening) != "string" or type(closing) != "string" or n == None:
        return None
    if opening == "" or closing == "":
        return {"error": "marker"}
    if n < 1:
        return {"error": "n"}
    search, count = 0, 0
    for _ in range(len(text) + 1):
        start = text.find(opening, search)
        if start < 0:
            break
        inner = start + len(opening)
        end = text.find(closing, inner)
        if end < 0:
            break
        count += 1
        if count == n:
            found = {"inner": text[inner:end], "inner_start": inner, "inner_end": end, "outer_start": start,
                     "outer_end": end + len(closing)}
            return {"value": found[spec["field"]]}
        search = inner if spec["step"] == "open" else end + len(closing)
    return {"value": None}

def twin_str_in_class(c, name):
    if name == "alpha":
        return c.isalpha()
    if name == "digit":
        return c.isdigit()
    if name == "alnum":
        return c.isalnum()
    if name == "space":
        return c.isspace()
    if name == "special":
        return not c.isalnum() and not c.isspace()
    if name == "upper":
        return c.isupper()
    if name == "lower":
        return c.islower()
    if name == "not_space":
        return c != " "
    if name == "not_blank":
        return not c.isspace()
    return False
"""

BRIDGE = """
def twin_bridge_strings(state, args):
    # Per case, each part's value, or None where it fails (`["value", v]` or `["error"]`); a part not
    # computed for the case is left out.
    out = []
    for call in args["cases"]:
        found = []
        for i, part in enumerate(args["parts"]):
            result = twin_str_of(part, call)
            if result == None:
                continue
            found.append([i, result["value"]] if "value" in result else [i])
        out.append(found)
    return out
"""
BRIDGE_TOOLS = ("twin_bridge_strings",)

_CLASSES = ("alpha", "digit", "alnum", "space", "special", "upper", "lower", "not_space", "not_blank")
_FIELDS = ("inner", "inner_start", "inner_end", "outer_start", "outer_end")
_STEPS = ("one", "whole")
# A text shorter than this is shown only as a whole JSON value: inside a longer text it is found by chance.
_SHORTEST_TEXT = 3
# More string arguments than this and the pairs and triples of them are not searched: the cost grows as
# their cube, and string tools take a text and one or two more.
_MOST_TEXTS = 5
_WHOLE = "\x00"
# A number standing whole in a text: not part of a longer number.
_WHOLE_NUMBER = re.compile(r"(?<![0-9.])(-?[0-9]+)(?![0-9]|\.[0-9])")


def read_strings(
    library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall]
) -> tuple[dict[int, list[list[Any]]], list[list[Any]]]:
    """Every operation of `STRINGS` over the tool's arguments, computed on every recorded call, kept where
    every success it computes shows its value: per call (by id), `[written, part]` (a text as it is, any
    other JSON value after a NUL, matched only whole: `keyed_world._computed_values`), and the conditions
    of a kept operation failing on a recorded error's call (`["fn_fails", part]`)."""
    parts = _parts(tool, [call for call in calls if not call.is_error])
    if not parts:
        return {}, []
    found: list[list[list[Any]]] = library.call(
        "twin_bridge_strings", {"parts": parts, "cases": [call.arguments for call in calls]}
    )
    kept = _kept(
        parts,
        [
            (call.value, call.arguments, computed)
            for call, computed in zip(calls, found, strict=True)
            if not call.is_error
        ],
    )
    pieces: dict[int, list[list[Any]]] = {}
    atoms: dict[str, list[Any]] = {}
    for call, computed in zip(calls, found, strict=True):
        for entry in computed:
            if entry[0] not in kept:
                continue
            part = parts[entry[0]]
            if len(entry) == 1:
                if call.is_error:
                    atom = ["fn_fails", part]
                    atoms.setdefault(json.dumps(atom, sort_keys=True), atom)
                continue
            if _nothing(part, entry[1]):
                atom = ["str_none", part]
                atoms.setdefault(json.dumps(atom, sort_keys=True), atom)
            if not call.is_error:
                pieces.setdefault(id(call), []).extend([written, part] for written in _written(entry[1]))
    return pieces, list(atoms.values())


def read_item_strings(library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall]) -> dict[int, dict[str, Any]]:
    """The operations each item of an array argument of objects asks for, over the call's texts and the
    item's integer fields (`slice`, its length, `index`): per call (by id), per array, each item's pieces
    (`[written, part]`), where the answer holds a list as long; kept where every item of a success that it
    computes shows its value in its own entry of that list, and two at least."""
    properties = tool.input_schema.get("properties") or {}
    texts = [name for name, schema in properties.items() if "string" in types_of(schema)]
    successes = [call for call in calls if not call.is_error]
    if not texts or len(texts) > _MOST_TEXTS:
        return {}
    out: dict[int, dict[str, Any]] = {}
    for array, fields in _item_integers(successes).items():
        paths: list[str | None] = [f"{array}/*/{field}" for field in fields]
        parts: list[list[Any]] = []
        for text in texts:
            parts += [["str", "index", {"text": text, "at": path}] for path in paths]
            for start, end in itertools.product(paths, [*paths, None]):
                if start != end:
                    spec = {"text": text, "start": start, "end": end}
                    parts += [["str", "slice", spec], ["str", "slice", spec | {"length": True}]]
        views: list[tuple[RecordedCall, int, dict[str, Any], Any]] = []
        for call in successes:
            items = call.arguments.get(array)
            answer = _list_as_long(call.value, len(items)) if isinstance(items, list) else None
            if not isinstance(items, list) or answer is None:
                continue
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    view = call.arguments | {f"{array}/*/{field}": value for field, value in item.items()}
                    views.append((call, index, view, answer[index]))
        if not views:
            continue
        found: list[list[list[Any]]] = library.call(
            "twin_bridge_strings", {"parts": parts, "cases": [view for _, _, view, _ in views]}
        )
        kept = _kept(
            parts,
            [(answered, view, computed) for (_, _, view, answered), computed in zip(views, found, strict=True)],
            telling_only=False,
        )
        for (call, index, _, _), computed in zip(views, found, strict=True):
            per_item = out.setdefault(id(call), {}).setdefault(array, [[] for _ in call.arguments[array]])
            for entry in computed:
                if entry[0] in kept and len(entry) == 2:
                    per_item[index] += [[written, parts[entry[0]]] for written in _written(entry[1], numbers=False)]
    return out


def _kept(
    parts: list[list[Any]], successes: list[tuple[Any, dict[str, Any], list[list[Any]]]], telling_only: bool = True
) -> set[int]:
    """The operations (by index) that every success they compute shows (its answer, its arguments, what was
    computed), on two successes at least, with two values at least, one of them no argument as given: a
    value shown alike in every answer (a 0 beside each record), or that only writes an argument back (a text
    cut from its start to an offset always 0), tells nothing of a computation, and would make a store look
    as if it computed its answers. An item's operation need not tell (`telling_only`): an entry per item
    already shows a computation, and its start may be the item's own."""
    wrong: set[int] = set()
    values: dict[int, set[str]] = {}
    places: dict[int, set[str]] = {}
    telling: set[int] = set()
    for answer, arguments, computed in successes:
        shown = _shown(answer)
        given = {json.dumps(value, sort_keys=True) for value in arguments.values()}
        written_back = [value for value in arguments.values() if isinstance(value, str)]
        for entry in computed:
            where = _places(shown, entry[1], written_back) if len(entry) == 2 else set()
            if len(entry) == 2 and _nothing(parts[entry[0]], entry[1]) and not where:
                continue  # nothing found, worded apart: `str_none` tells it
            # Shown, and in one place of every answer (a field, or inside a text): a small number a listing
            # shows somewhere in each answer is shown by chance.
            known = places.get(entry[0])
            where = where if known is None else where & known
            if not where:
                wrong.add(entry[0])
                continue
            places[entry[0]] = where
            written = json.dumps(entry[1], sort_keys=True)
            values.setdefault(entry[0], set()).add(written)
            if written not in given:
                telling.add(entry[0])
    return {i for i, seen in values.items() if len(seen) >= 2 and (i in telling or not telling_only) and i not in wrong}


def _item_integers(successes: list[RecordedCall]) -> dict[str, list[str]]:
    """Per array argument of objects, the fields its items give as integers only (in the order first given)."""
    found: dict[str, dict[str, bool]] = {}
    for call in successes:
        for name, value in call.arguments.items():
            if not isinstance(value, list) or not value or not all(isinstance(item, dict) for item in value):
                continue
            fields = found.setdefault(name, {})
            for item in value:
                for field, inner in item.items():
                    fields[field] = fields.get(field, True) and type(inner) is int
    return {name: [field for field, whole in fields.items() if whole] for name, fields in found.items()}


def _list_as_long(value: Any, length: int) -> list[Any] | None:
    """The first list of `length` entries in an answer (itself, or a field's value, depth first)."""
    if isinstance(value, list):
        if len(value) == length:
            return value
        inner = value
    elif isinstance(value, dict):
        inner = list(value.values())
    else:
        return None
    for item in inner:
        if (found := _list_as_long(item, length)) is not None:
            return found
    return None


def _parts(tool: ToolSpec, successes: list[RecordedCall]) -> list[list[Any]]:
    """The operations over the tool's arguments by their types (`STRINGS`' roles)."""
    properties = tool.input_schema.get("properties") or {}
    texts = [name for name, schema in properties.items() if "string" in types_of(schema)]
    integers = [name for name, schema in properties.items() if "integer" in types_of(schema)]
    lists = [name for name, schema in properties.items() if _integer_list(schema)]
    if not texts or len(texts) > _MOST_TEXTS:
        return []
    defaults = {name: properties[name].get("default") for name in integers if isinstance(properties[name], dict)}
    counts: list[str | None] = [*integers, None]

    def counted(role: str, name: str | None) -> dict[str, Any]:
        # An occurrence not given is the schema's default, else the first.
        default = defaults.get(name) if name is not None else None
        return {role: name, f"{role}_default": default if isinstance(default, int) else 1}

    def one_character(name: str) -> bool:
        values = [call.arguments.get(name) for call in successes]
        return bool(values) and all(isinstance(value, str) and len(value) == 1 for value in values)

    def within(inner: str, outer: str) -> bool:
        # A needle or a marker is no longer than the text it is looked for in, in every success that gives
        # both: a pair that is not so is not searched, which keeps a tool of many texts cheap.
        pairs = [(call.arguments.get(inner), call.arguments.get(outer)) for call in successes]
        given = [(a, b) for a, b in pairs if isinstance(a, str) and isinstance(b, str)]
        return bool(given) and all(len(a) <= len(b) for a, b in given)

    parts: list[list[Any]] = []
    for text in texts:
        parts += [["str", "split", {"text": text, "at": at}] for at in lists]
        for start in integers:
            parts += [["str", "slice", {"text": text, "start": start, "end": end}] for end in integers if end != start]
            parts.append(["str", "slice", {"text": text, "start": start, "end": None}])
            inserts: list[str | None] = [name for name in texts if name != text] + [None]
            for end, insert in itertools.product([*integers, None], inserts):
                if end != start and (end is not None or insert is not None):
                    parts.append(["str", "splice", {"text": text, "start": start, "end": end, "insert": insert}])
                if end is None and insert is not None:
                    # An insertion whose negative point counts from past the end (-1 appends).
                    spec = {"text": text, "start": start, "end": None, "insert": insert, "past_end": True}
                    parts.append(["str", "splice", spec])
        for needle in texts:
            if needle == text or not within(needle, text):
                continue
            chars = (False, True) if one_character(needle) else (False,)
            for step, char in itertools.product(_STEPS, chars):
                spec = {"text": text, "needle": needle, "step": step, "char": char}
                parts += [["str", op, spec] for op in ("find_all", "count")]
                parts += [["str", "find", spec | counted("n", n)] for n in counts]
            for closing in texts:
                if closing in (text, needle) or not within(closing, text):
                    continue
                for n, step, field in itertools.product(counts, ("open", "close"), _FIELDS):
                    spec = {"text": text, "open": needle, "close": closing, "step": step, "field": field}
                    parts.append(["str", "between", spec | counted("n", n)])
    # A count of a class last: of two operations writing the same number, the one that reads more of the
    # call (where a piece occurs) is drawn first.
    parts += [["str", "class", {"text": text, "class": name}] for text in texts for name in _CLASSES]
    return parts


def _integer_list(schema: Any) -> bool:
    """Whether a property is a list of integers (indices to cut a text at)."""
    declared = declaring(schema, "array")
    return declared is not None and "integer" in types_of(declared.get("items"))


def _shown(value: Any) -> tuple[dict[str, set[str]], list[str]]:
    """An answer's JSON values whole (as `_written` writes a non-text one), each with the places it stands
    (a JSON pointer, any list's entries as `*`), and its texts."""
    whole: dict[str, set[str]] = {}
    texts: list[str] = []

    def walk(item: Any, at: str) -> None:
        whole.setdefault(_WHOLE + json.dumps(item, sort_keys=True), set()).add(at)
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict):
            for name, inner in item.items():
                walk(inner, f"{at}/{name}")
        elif isinstance(item, list):
            for inner in item:
                walk(inner, f"{at}/*")

    walk(value, "")
    return whole, texts


def _places(shown: tuple[dict[str, set[str]], list[str]], value: Any, given: list[str]) -> set[str]:
    """Where an answer shows an operation's value: the places of its JSON values equal to it, and `text`
    where a text long enough to mean something stands inside one of its texts, or a number stands whole in
    one, other than within a longer text the call gave (`given`) that the answer writes back as it is: a
    piece of an argument written back is explained by the argument, not by an operation that cut it there
    (a title's tail from an index that is a record's id)."""
    whole, texts = shown
    found = set(whole.get(_WHOLE + json.dumps(value, sort_keys=True), set()))
    if _counted(value):
        inside = any(_standing(text, _WHOLE_NUMBER, str(value), given) for text in texts)
    elif isinstance(value, str) and len(value) >= _SHORTEST_TEXT:
        inside = any(_standing(text, re.compile(f"(?={re.escape(value)})"), value, given) for text in texts)
    else:
        inside = False
    return found | ({"text"} if inside else set())


def _standing(text: str, pattern: re.Pattern[str], value: str, given: list[str]) -> bool:
    """Whether `value` stands in `text` (where `pattern` finds it, its first group or the match's start)
    outside every stretch of `text` that is a longer argument holding it, written back."""
    covers = [
        (at, at + len(outer))
        for outer in given
        if len(outer) > len(value) and value in outer
        for at in _occurrences(text, outer)
    ]
    for match in pattern.finditer(text):
        if match.re.groups and match.group(1) != value:
            continue
        start = match.start(1) if match.re.groups else match.start()
        if not any(low <= start and start + len(value) <= high for low, high in covers):
            return True
    return False


def _occurrences(text: str, piece: str) -> list[int]:
    """Where `piece` starts in `text`, overlapping occurrences too."""
    found: list[int] = []
    at = text.find(piece)
    while at >= 0:
        found.append(at)
        at = text.find(piece, at + 1)
    return found


def _nothing(part: list[Any], value: Any) -> bool:
    """Whether an operation found nothing (`twin_str_none`): no index, no text, no list, or none counted."""
    if type(value) is int and value == 0:
        return bool(part[1] in ("count", "class"))
    return value is None or value == [] or (type(value) is int and value == -1)


def _counted(value: Any) -> bool:
    """A number that may stand inside a text: any whole number (an operation is kept only where every
    success shows its value, so a 0 or a 1 shown by chance is refuted by the calls beside it)."""
    return type(value) is int


def _written(value: Any, numbers: bool = True) -> list[str]:
    """How a value is a piece: a text as it is where long enough, a number's digits (a template writes either
    inside a text; not for an item's entry, a JSON object whose numbers are its fields), and any value whole
    (a JSON field that is the value itself)."""
    whole = _WHOLE + json.dumps(value, sort_keys=True)
    if isinstance(value, str) and len(value) >= _SHORTEST_TEXT:
        return [value, whole]
    return [str(value), whole] if numbers and _counted(value) else [whole]
