"""A JSON list computed over the items of an array argument grouped by a field (`GROUPED`, a section of
`library.LIBRARY`), and how the learner finds one: a server that totals records given in the call (holdings
per security from trades, a cart's lines per product, readings per sensor) answers one object per value of a
field of the items, in that value's order, each of the group's key and numbers computed over its items.

Template: `{"$groups": array, "by": [field, name], "order": "sorted" | "first", "item": {name: spec}}`: one object
per distinct text the items give as `field`, sorted or in the order first given, its fields in the item's
order, each a spec:

- `["key"]`: the group's text (shown under `name`);
- `["count"]`: how many items the group has;
- `["sum", steps, digits]`: the sum over the group's items, in the order given, of a formula of the item's
  number fields (postfix: `["field", f, default]`, the default where the item lacks it, `["*"]`, `["+"]` on the
  two numbers before), as a double, rounded to `digits` decimals as Python's `round` does (None: not rounded;
  `[digits, "up"]`: the shortest decimal that reads as the double, Python's `repr`, rounded with a tie away
  from zero, as a server rounding `Decimal(str(x))` with `ROUND_HALF_UP` does);
- `["ratio", first, second, digits]`: the unrounded sum of one field of the object over another's, rounded;
  nothing where the second is 0.

The learner searches that language as FlashFill and PROSE search theirs, pruned by the recorded examples: for
each recorded answer's list of objects (under a field of the answer) and each array argument of objects, the
group field whose distinct texts the objects' one text field shows in order; then for each number field of
the objects, the count, each formula of the grammar below and each rounding that writes it, the one that
writes it in the most answers kept (the simplest of those); then a ratio of two sums. A formula is a field, a
product of two, that plus a third, that times a fourth, a product of three plus a fourth: a quantity times a
price, plus a fee, converted by a rate. A field a formula multiplies by defaults to 1 where the item lacks it,
one it adds to 0. What the server does beyond that (an average that changes as records are taken out in
order) is no such template: the covering keeps it only under a condition that rules those calls out (no item
of that kind: `items.py`).
"""

from __future__ import annotations

import itertools
from typing import Any

from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules.helpers import fixed_text

__all__ = ["GROUPED", "grouped_lists"]

GROUPED = """
def twin_group_value(steps, item):
    stack = []
    for step in steps:
        if step[0] == "field":
            value = item.get(step[1], step[2])
            if type(value) not in ("int", "float"):
                return None
            stack.append(float(value))
        else:
            right = stack.pop()
            left = stack.pop()
            stack.append(left * right if step[0] == "*" else left + right)
    return stack[0]

def twin_group_round(value, digits):
    if digits == None:
        return value
    if type(digits) != "list":
        return float(fixed_text(value, digits))
    # The shortest decimal that reads as the double (JSON writes it so), a tie at the last digit kept away
    # from zero.
    text = json.encode(abs(value))
    places = digits[0]
    if "e" in text or "E" in text or "." not in text or len(text.split(".")[1]) <= places:
        return float(fixed_text(value, places))
    whole, fraction = text.split(".")
    kept = float(whole + "." + fraction[:places]) if places else float(whole)
    if fraction[places] in "56789":
        step = 1.0
        for _ in range(places):
            step /= 10
        kept += step
    return float(fixed_text(kept if value >= 0 else -kept, places))

def twin_render_groups(template, args):
    # One object per distinct text the items give in a field, each of numbers computed over its items.
    items = args.get(template["$groups"])
    if type(items) != "list":
        return None
    field = template["by"][0]
    groups = {}
    for item in items:
        if type(item) != "dict" or type(item.get(field)) != "string":
            return None
        groups.setdefault(item[field], []).append(item)
    names = sorted(groups) if template["order"] == "sorted" else list(groups)
    out = []
    for name in names:
        sums = {}
        for key, spec in template["item"].items():
            if spec[0] == "sum":
                total = 0.0
                for item in groups[name]:
                    value = twin_group_value(spec[1], item)
                    if value == None:
                        return None
                    total += value
                sums[key] = total
        row = {}
        for key, spec in template["item"].items():
            if spec[0] == "key":
                row[key] = name
            elif spec[0] == "count":
                row[key] = len(groups[name])
            elif spec[0] == "sum":
                row[key] = twin_group_round(sums[key], spec[2])
            else:
                if sums[spec[2]] == 0:
                    return None
                row[key] = twin_group_round(sums[spec[1]] / sums[spec[2]], spec[3])
        out.append(row)
    return {"$text": out}
"""

# The roundings tried, after none: whole numbers to a hundredth of a cent, a tie to even (Python's `round`), then
# the shortest decimal's tie away from zero.
_DIGITS: tuple[int | list[Any] | None, ...] = (None, 0, 1, 2, 3, 4, *([d, "up"] for d in range(5)))
# The fewest recorded answers a group's template must write whole: one could be by chance.
_SUPPORT = 2


def grouped_lists(calls: list[RecordedCall]) -> dict[int, dict[str, dict[str, Any]]]:
    """For each recorded call (by `id`) whose answer shows a list of objects under a field that a `$groups` over
    an array argument writes, that template by the field. Each template's specs are those that write the most
    recorded answers' lists (`_SUPPORT` at least); a call whose list it does not write gets it all the same
    (the covering tells where it holds)."""
    shapes: dict[tuple[str, str, str, str, str], list[RecordedCall]] = {}
    for call in calls:
        for at, rows in _object_lists(call):
            for array, items in _arrays(call):
                for field, name, order in _keyed(rows, items):
                    shapes.setdefault((at, array, field, name, order), []).append(call)
    found: dict[int, dict[str, dict[str, Any]]] = {}
    for (at, array, field, name, order), group in shapes.items():
        if len(group) < _SUPPORT:
            continue
        spec = _spec(group, at, array, field, name, order)
        if spec is None:
            continue
        for call in calls:
            if isinstance(call.value, dict) and at in call.value and not call.is_error:
                found.setdefault(id(call), {}).setdefault(at, spec)
    return found


def _object_lists(call: RecordedCall) -> list[tuple[str, list[dict[str, Any]]]]:
    value = call.value
    if call.is_error or not isinstance(value, dict):
        return []
    return [
        (at, rows)
        for at, rows in value.items()
        if isinstance(rows, list) and rows and all(isinstance(row, dict) for row in rows)
    ]


def _arrays(call: RecordedCall) -> list[tuple[str, list[dict[str, Any]]]]:
    return [
        (name, items)
        for name, items in call.arguments.items()
        if isinstance(items, list) and items and all(isinstance(item, dict) for item in items)
    ]


def _keyed(rows: list[dict[str, Any]], items: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(item field, object field, order) where the objects' field shows the items' distinct texts in order."""
    found = []
    names = [name for name in rows[0] if all(isinstance(row.get(name), str) for row in rows)]
    fields = {field for item in items for field, value in item.items() if isinstance(value, str)}
    for field in sorted(fields):
        if not all(isinstance(item.get(field), str) for item in items):
            continue
        first = list(dict.fromkeys(item[field] for item in items))
        for name in names:
            shown = [row[name] for row in rows]
            for order, expected in (("sorted", sorted(first)), ("first", first)):
                if shown == expected:
                    found.append((field, name, order))
                    break
    return found


def _formulas(fields: list[str]) -> list[list[list[Any]]]:
    """The grammar's formulas over the items' number fields, simplest first."""
    out: list[list[list[Any]]] = [[["field", f, 0]] for f in fields]
    products = [(a, b) for a, b in itertools.combinations(fields, 2)]
    out += [[["field", a, 1], ["field", b, 1], ["*"]] for a, b in products]
    for a, b in products:
        for c in fields:
            if c not in (a, b):
                out.append([["field", a, 1], ["field", b, 1], ["*"], ["field", c, 0], ["+"]])
    for a, b in products:
        for c, d in itertools.permutations([f for f in fields if f not in (a, b)], 2):
            out.append([["field", a, 1], ["field", b, 1], ["*"], ["field", c, 0], ["+"], ["field", d, 1], ["*"]])
            out.append([["field", a, 1], ["field", b, 1], ["*"], ["field", d, 1], ["*"], ["field", c, 0], ["+"]])
    return out


def _value(steps: list[list[Any]], item: dict[str, Any]) -> float | None:
    # As `twin_group_value` computes it, to search with; the twin's own Starlark renders what is kept.
    stack: list[float] = []
    for step in steps:
        if step[0] == "field":
            value = item.get(step[1], step[2])
            if not isinstance(value, int | float) or isinstance(value, bool):
                return None
            stack.append(float(value))
        else:
            right, left = stack.pop(), stack.pop()
            stack.append(left * right if step[0] == "*" else left + right)
    return stack[0]


def _rounded(value: float, digits: int | list[Any] | None) -> float:
    # As `twin_group_round` rounds, to search with.
    if digits is None:
        return value
    if not isinstance(digits, list):
        return float(fixed_text(value, digits))
    text, places = repr(abs(value)), digits[0]
    if "e" in text or "." not in text or len(text.split(".")[1]) <= places:
        return float(fixed_text(value, places))
    whole, fraction = text.split(".")
    kept = float(whole + "." + fraction[:places]) if places else float(whole)
    if fraction[places] in "56789":
        step = 1.0
        for _ in range(places):
            step /= 10
        kept += step
    return float(fixed_text(kept if value >= 0 else -kept, places))


def _groups(items: list[dict[str, Any]], field: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(item[field], []).append(item)
    return groups


def _sums(steps: list[list[Any]], groups: dict[str, list[dict[str, Any]]]) -> dict[str, float] | None:
    sums: dict[str, float] = {}
    for name, members in groups.items():
        total = 0.0
        for item in members:
            value = _value(steps, item)
            if value is None:
                return None
            total += value
        sums[name] = total
    return sums


def _spec(calls: list[RecordedCall], at: str, array: str, field: str, name: str, order: str) -> dict[str, Any] | None:
    """The `$groups` template that writes the most of these calls' lists at `at`, or None where it writes fewer
    than `_SUPPORT` of them whole. Field by field in the objects' order, the reading that keeps the most calls
    written whole so far (the simplest of those): a number that a single item's field also writes (a price,
    where a group holds one purchase) is read as the ratio the other calls bear out."""
    cases = [(call.value[at], _groups(call.arguments[array], field)) for call in calls]
    numbers = sorted({f for _, groups in cases for g in groups.values() for i in g for f, v in i.items() if _num(v)})
    formulas = _formulas(numbers)
    item: dict[str, list[Any]] = {}
    raw: dict[str, list[dict[str, float] | None]] = {}  # per chosen sum, its unrounded sums per case
    standing = set(range(len(cases)))  # the cases every field so far writes
    for out in cases[0][0][0]:
        if out == name:
            item[out] = ["key"]
            continue
        # Each reading with its unrounded sums per case (a count and a ratio have none) and the cases it writes.
        readings: list[tuple[list[Any], list[dict[str, float] | None]]] = [(["count"], [])]
        for steps in formulas:
            sums = [_sums(steps, groups) for _, groups in cases]
            readings += [(["sum", steps, digits], sums) for digits in _DIGITS]
        readings += [
            (["ratio", first, second, digits], [])
            for first, second in itertools.permutations(raw, 2)
            for digits in _DIGITS
        ]
        best: tuple[int, list[Any], list[dict[str, float] | None], set[int]] | None = None
        for spec, sums in readings:
            hits = {i for i in standing if _writes(spec, sums, raw, cases[i], name, out, i)}
            if hits and (best is None or len(hits) > best[0]):
                best = (len(hits), spec, sums, hits)
        if best is None:
            return None
        item[out] = best[1]
        standing = best[3]
        if best[1][0] == "sum":
            raw[out] = best[2]
    template = {"$groups": array, "by": [field, name], "order": order, "item": item}
    return template if _written(template, cases) >= _SUPPORT else None


def _writes(
    spec: list[Any],
    sums: list[dict[str, float] | None],
    raw: dict[str, list[dict[str, float] | None]],
    case: tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]],
    name: str,
    out: str,
    index: int,
) -> bool:
    """Whether a reading writes the field `out` of every object of a case's list."""
    rows, groups = case
    for row in rows:
        key, shown = row[name], row.get(out)
        if not _num(shown):
            return False
        if spec[0] == "count":
            if shown != len(groups[key]):
                return False
        elif spec[0] == "sum":
            total = sums[index]
            if total is None or shown != _rounded(total[key], spec[2]):
                return False
        else:
            first, second = raw[spec[1]][index], raw[spec[2]][index]
            if first is None or second is None or second[key] == 0:
                return False
            if shown != _rounded(first[key] / second[key], spec[3]):
                return False
    return True


def _written(
    template: dict[str, Any], cases: list[tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]]
) -> int:
    """How many cases' lists the template writes whole (every field of every object)."""
    written = 0
    for rows, groups in cases:
        if [row[template["by"][1]] for row in rows] != list(_ordered(groups, template["order"])):
            continue
        sums = {out: _sums(spec[1], groups) for out, spec in template["item"].items() if spec[0] == "sum"}
        ok = True
        for row in rows:
            members = groups[row[template["by"][1]]]
            for out, spec in template["item"].items():
                key = row[template["by"][1]]
                if spec[0] == "key":
                    want: Any = key
                elif spec[0] == "count":
                    want = len(members)
                elif spec[0] == "sum":
                    total = sums[out]
                    want = None if total is None else _rounded(total[key], spec[2])
                else:
                    a, b = sums[spec[1]], sums[spec[2]]
                    want = None if a is None or b is None or b[key] == 0 else _rounded(a[key] / b[key], spec[3])
                if want is None or row.get(out) != want or list(row) != list(template["item"]):
                    ok = False
        written += ok
    return written


def _ordered(groups: dict[str, list[dict[str, Any]]], order: str) -> list[str]:
    return sorted(groups) if order == "sorted" else list(groups)


def _num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
