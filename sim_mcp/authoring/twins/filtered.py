"""A JSON listing of stored records filtered by several arguments at once, sorted and cut, learned from
recordings: the templates `keyed_world` tries for a tool whose answers list stored records but not all of
them (`library.twin_filtered_rows` evaluates them).

A listing tool takes optional arguments that each narrow what it lists, and lists what all of them keep (a
conjunction): an enumerated argument picks the records whose field of that name (or another field showing its
values) equals it, or equals a default where it is not given (a status that is `active` unless asked), some of
its values keeping every record (`all`), or each of its words stands for one flag of a field
(`open`: `done` false); a free text argument picks the records with it in one of their text fields, ignoring
case (a keyword), or those whose field lies strictly before or after it (a due day); an array argument the
records whose list field holds some (or all) of its items (tags). Each argument's filter is chosen alone,
pruned by the recorded examples: it must keep every record a recorded answer lists, and it must leave out some
record an answer leaves out (else it is no filter the recordings show). An argument whose values name the
records' fields sorts them by that field (nulls last, an enumerated field also by its enum's order or the
reverse), another argument saying ascending or descending; an integer argument no answer lists more records
than is the limit (its schema's default where it is not given). Each such reading is a candidate template;
which of them answers the recorded calls is for the covering to tell (`keyed_world`), as for every other
template.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from sim_mcp.authoring.twins.argument_types import types_of
from sim_mcp.authoring.twins.library import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

__all__ = ["filtered_listings", "picked_listings"]

# What a sort direction argument's value for descending is written as.
_DESCENDING = ("desc", "descending")


class _Call:
    """One recorded listing: its arguments, every stored record as the listing shows it (by key), and the
    keys it listed, in order."""

    def __init__(self, args: dict[str, Any], shown: list[tuple[str, dict[str, Any]]], listed: list[str]) -> None:
        self.args = args
        self.rows = dict(shown)
        self.order = [code for code, _ in shown]
        self.listed = listed
        self.cut = False  # whether a limit may have left records out: what it left out is no evidence

    def answered(self) -> list[dict[str, Any]]:
        return [self.rows[code] for code in self.listed]

    def left_out(self) -> list[dict[str, Any]]:
        return [] if self.cut else [row for code, row in self.rows.items() if code not in set(self.listed)]


def filtered_listings(
    library: TwinLibrary,
    root: str | None,
    spec: ToolSpec,
    calls: list[RecordedCall],
    worlds: list[dict[str, Any]],
    template: dict[str, Any],
    enums: dict[str, list[str]],
    kinds: dict[str, set[str]],
) -> list[dict[str, Any]]:
    """The filtered listings `calls` may be, as templates built on `template` (a `$rows` of every stored
    record, its item drawn from the recorded listings); none where no argument filters. `enums` are the
    values of the fields a storing tool takes from an enum, in its schema's order; `kinds` the JSON types
    each argument's schema names."""
    template = {**template, "item": _stored_fields(template["item"], worlds)}
    payload = {
        "root": root,
        "template": template,
        "cases": [{"args": call.arguments, "world": world} for call, world in zip(calls, worlds, strict=True)],
    }
    shown: list[list[list[Any]]] = library.call("twin_bridge_shown", payload)
    field = _key_field(template["item"], shown)
    if field is None:
        return []
    listings = _listings(calls, shown, field)
    if not listings:
        return []
    properties = spec.input_schema.get("properties") or {}
    # Every argument may narrow the listing: an optional one where it is given, a required one always (a
    # tool that lists the records of the priority it is asked for).
    optional = {
        name: {**schema, "$types": kinds.get(name, set())}
        for name, schema in properties.items()
        if isinstance(schema, dict)
    }
    limit = _limit(optional, listings)
    sorts = list(_sorts(optional, template["item"], enums))
    used = (
        {limit[0] if limit else None}
        | {sort["by"][0] for sort in sorts}
        | {sort["dir"][0] for sort in sorts if "dir" in sort}
    )
    chosen = {name: schema for name, schema in optional.items() if name not in used}
    where = _where(library, chosen, listings, template, enums)
    if not where:
        return []
    base = {**template, "where": where} | ({"limit": limit} if limit else {})
    return [{**base, "sort": sort} for sort in sorts] + [base]


def picked_listings(spec: ToolSpec, calls: list[RecordedCall]) -> list[dict[str, Any]]:
    """`{"$pick": name, "from": listing}`: a tool that, asked for nothing, answers a listing of the server's
    own vocabulary grouped by kind (an object of the units of each kind) and, asked for one kind by a string
    argument, the listing's field of that name alone (`{"time": [...]}`): the recorded listing, narrowed as
    the argument asks. Its field that no call asked for is answered as the listing shows it."""
    properties = spec.input_schema.get("properties") or {}
    answers = [(call.arguments, call.value) for call in calls if not call.is_error and call.rpc_error is None]
    whole = [value for args, value in answers if not args and isinstance(value, dict) and len(value) >= 2]
    if not whole:
        return []
    listing = whole[0]
    found = []
    for name, schema in properties.items():
        if not isinstance(schema, dict) or "string" not in types_of(schema):
            continue
        asked = [(args[name], value) for args, value in answers if isinstance(args.get(name), str)]
        if asked and all(value == {kind: listing.get(kind)} and kind in listing for kind, value in asked):
            found.append({"$pick": name, "from": listing})
    return found


def _stored_fields(item: dict[str, list[Any]], worlds: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The item with a field every recorded listing showed as one value but that records store (a status
    `active` in every record listed unless asked) read from the record, that value its default: a filter
    on the field tells records apart by what they store."""
    stored = {
        name
        for world in worlds
        for entry in world.get("keys", {}).values()
        for part in ("args", "rec")
        if isinstance(entry.get(part), dict)
        for name in entry[part]
    }
    return {
        name: ["field", name, spec[1]] if spec[0] == "const" and name in stored else spec for name, spec in item.items()
    }


def _key_field(item: dict[str, list[Any]], shown: list[list[list[Any]]]) -> str | None:
    """The field of the listed objects that shows each record's key, in every recorded world."""
    rows = [(key, row) for case in shown for key, row in case]
    for name in item:
        # A key of digits may be shown as its number (`keyed_world._shows_key`).
        if rows and all(str(row.get(name)) == str(key) for key, row in rows):
            return name
    return None


def _listings(calls: list[RecordedCall], shown: list[list[list[Any]]], field: str) -> list[_Call]:
    """The recorded calls that listed stored records (or none) as objects showing their keys."""
    found = []
    for call, case in zip(calls, shown, strict=True):
        value = call.value
        if call.is_error or not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            continue
        rows = [(json.dumps(row[field]), row) for _, row in case]
        listed = [json.dumps(item.get(field)) for item in value]
        codes = {code for code, _ in rows}
        if all(code in codes for code in listed) and len(set(listed)) == len(listed):
            found.append(_Call(call.arguments, rows, listed))
    return found


def _limit(optional: dict[str, Any], listings: list[_Call]) -> list[Any] | None:
    """[name, default]: an integer argument that no recorded answer lists more records than, given in some
    call, its default the schema's. The calls a limit may have cut are marked: what they leave out is no
    evidence of a filter."""
    for name, schema in optional.items():
        if "integer" not in schema["$types"]:
            continue
        default = schema.get("default") if isinstance(schema.get("default"), int) else None
        given = [call for call in listings if isinstance(call.args.get(name), int) and call.args[name] > 0]
        if not given or any(len(call.listed) > call.args[name] for call in given):
            continue
        if default is not None and any(len(call.listed) > default for call in listings):
            default = None
        for call in listings:
            count = call.args.get(name)
            bound = count if isinstance(count, int) and count > 0 else default
            call.cut = bound is not None and len(call.listed) >= bound
        return [name, default]
    return None


def _where(
    library: TwinLibrary,
    optional: dict[str, Any],
    listings: list[_Call],
    template: dict[str, Any],
    enums: dict[str, list[str]],
) -> list[list[Any]]:
    """One filter per argument that the recordings show filtering: the equalities first; then each text or
    list filter on the rows the others keep (a row another filter left out is no evidence against this one),
    found twice, the second time beside the others found the first."""
    where: list[list[Any]] = []
    for name, schema in optional.items():
        values = _enum(schema)
        # A free text too, where every row listed shows it whole in one field (a priority `A` given as text).
        if "string" in schema["$types"] and "array" not in schema["$types"]:
            found = _equality(name, values, schema.get("default"), listings) or _mapped(
                name, schema.get("default"), listings
            )
            if found is not None:
                where.append(found)
    equal = {rule[1] for rule in where}
    others: dict[str, list[Any]] = {}
    for _ in range(2):
        for name, schema in optional.items():
            kinds = schema["$types"]
            if name in equal or ("array" not in kinds and ("string" not in kinds or _enum(schema))):
                continue
            kept = _kept(library, listings, where + [rule for other, rule in others.items() if other != name])
            if "array" in kinds:
                rule = _membership(name, kept)
            else:
                # An item of a list field (a project) before a keyword in a text (which a line showing the
                # project, `+garden`, would also hold).
                texts = [f for f, spec in template["item"].items() if spec[0] != "const" and f not in enums]
                rule = _holding(name, kept) or _search(name, texts, kept) or _compared(name, kept)
            if rule is None:
                others.pop(name, None)
            else:
                others[name] = rule
    return where + list(others.values())


class _Kept:
    """A recorded listing's answered rows, and the rows it left out that the other filters keep."""

    def __init__(self, call: _Call, left_out: list[dict[str, Any]]) -> None:
        self.args = call.args
        self.answered = call.answered()
        self.left_out = left_out


def _kept(library: TwinLibrary, listings: list[_Call], where: list[list[Any]]) -> list[_Kept]:
    """Each listing with the rows it left out that `where` keeps, as the twin's own filters keep them."""
    left = [call.left_out() for call in listings]
    cases = [{"args": call.args, "rows": rows} for call, rows in zip(listings, left, strict=True)]
    kept: list[list[bool]] = library.call("twin_bridge_kept", {"where": where, "cases": cases})
    return [
        _Kept(call, [row for row, keep in zip(rows, flags, strict=True) if keep])
        for call, rows, flags in zip(listings, left, kept, strict=True)
    ]


def _equal(rule: list[Any], row: dict[str, Any], args: dict[str, Any]) -> bool:
    """`library.twin_kept`'s equality, to score a default by what it leaves out: Python's, as the candidates
    are many and each is a small test (the filters found are applied by the library, `_kept`)."""
    _, name, field, default, every, *mapped = rule
    value = args.get(name, default)
    if value is None or value in every:
        return True
    target = mapped[0].get(value, value) if mapped and isinstance(value, str) else value
    return bool(row.get(field) == target)


def _equality(name: str, values: list[Any], declared: Any, listings: list[_Call]) -> list[Any] | None:
    """["eq", name, field, default, every]: the field (the argument's namesake first) every answered row of a
    call giving the argument shows its value in; `every` the values whose calls listed rows of other values;
    the default the one that leaves out most of what the calls without the argument left out."""
    names = {f for call in listings for row in call.rows.values() for f in row}
    fields = sorted(names, key=lambda f: f != name)
    for field in fields:
        every = sorted(
            {
                call.args[name]
                for call in listings
                if call.args.get(name) is not None and any(row.get(field) != call.args[name] for row in call.answered())
            },
            key=str,
        )
        given = [call for call in listings if call.args.get(name) is not None and call.args[name] not in every]
        # A free text keeps every record for no value: every call that gives it lists only rows showing it.
        # Calls that listed nothing show no equality: any field "equals" a value no row is listed for.
        if not any(call.answered() for call in given) or (every and not values):
            continue
        bare = [call for call in listings if call.args.get(name) is None]
        best: tuple[int, int, Any] | None = None
        for default in [None, *([declared] if declared in values else []), *values]:
            answered = [row for call in bare for row in call.answered()]
            if default is not None and default not in every and any(row.get(field) != default for row in answered):
                continue
            rule = ["eq", name, field, default, every]
            score = sum(not _equal(rule, row, call.args) for call in listings for row in call.left_out())
            shown = [row.get(field) for call in bare for row in call.answered()]
            # Where the recordings cannot tell, the one value every record listed without the argument shows.
            agrees = int(len(shown) >= 2 and default is not None and set(shown) == {default})
            if best is None or (score, agrees) > best[:2]:
                best = (score, agrees, default)
        if best is not None and best[0] > 0:
            return ["eq", name, field, best[2], every]
    return None


def _mapped(name: str, declared: Any, listings: list[_Call]) -> list[Any] | None:
    """["eq", name, field, default, every, map]: a word the argument takes that picks the records whose field
    shows one flag (a status `open` listing the records whose `done` is false, `done` those whose
    `done` is true): each value of the argument whose answered rows all show one value of the field maps to
    it, two values at least, no two to the same value; a value whose answers showed several (`all`) keeps
    every record. Kept where it leaves out some record a recorded answer left out."""
    given = [call for call in listings if isinstance(call.args.get(name), str)]
    if all(_shows(row, call.args[name]) for call in given for row in call.answered()):
        return None  # every row listed shows the word itself: an item of a list (a tag) or a keyword
    names = sorted({f for call in given for row in call.rows.values() for f in row})
    for field in names:
        shown: dict[str, set[str]] = {}
        for call in given:
            for row in call.answered():
                shown.setdefault(call.args[name], set()).add(json.dumps(row.get(field), sort_keys=True))
        every = sorted(value for value, seen in shown.items() if len(seen) > 1)
        mapping = {value: next(iter(seen)) for value, seen in shown.items() if len(seen) == 1}
        images = list(mapping.values())
        if len(mapping) < 2 or len(set(images)) != len(images):
            continue
        targets = {value: json.loads(image) for value, image in mapping.items()}
        # A flag the word stands for: a text or a number it maps to is as often a coincidence of few
        # answers (a keyword's one matching note, a tag's one record's id), which a search or a list reads.
        if not all(isinstance(target, bool) for target in targets.values()):
            continue
        default = declared if declared in every or declared in targets else None
        rule = ["eq", name, field, default, every, targets]
        if any(not _equal(rule, row, call.args) for call in listings for row in call.answered()):
            continue
        if any(not _equal(rule, row, call.args) for call in listings for row in call.left_out()):
            return rule
    return None


def _listed(value: Any) -> Any:
    """A list field's items: the list, or the JSON array a text writes (tags kept as `json.dumps(tags)` in a
    record: `library.twin_listed`); any other value as it is."""
    if isinstance(value, str) and value.startswith("["):
        try:
            found = json.loads(value)
        except ValueError:
            return value
        return found if isinstance(found, list) else value
    return value


def _membership(name: str, kept: list[_Kept]) -> list[Any] | None:
    """["overlaps" or "covers", name, field]: the list field whose items hold some (or all) of the array
    argument's items in every answered row, and not in some row left out."""
    calls = [call for call in kept if isinstance(call.args.get(name), list) and call.args[name]]
    rows = [row for call in calls for row in call.answered + call.left_out]
    fields = sorted({f for row in rows for f, v in row.items() if isinstance(_listed(v), list)})
    for field in fields:
        for kind, test in (("overlaps", any), ("covers", all)):

            def holds(row: dict[str, Any], items: list[Any], test: Any = test, field: str = field) -> bool:
                held = _listed(row.get(field))
                return isinstance(held, list) and test(item in held for item in items)

            if all(holds(row, call.args[name]) for call in calls for row in call.answered) and any(
                not holds(row, call.args[name]) for call in calls for row in call.left_out
            ):
                return [kind, name, field]
    return None


def _holding(name: str, kept: list[_Kept]) -> list[Any] | None:
    """["holds", name, field]: the list field holding the string argument among its items in every answered
    row, and not in some row left out."""
    calls = [call for call in kept if isinstance(call.args.get(name), str)]
    rows = [row for call in calls for row in call.answered + call.left_out]
    fields = sorted({f for row in rows for f, v in row.items() if isinstance(v, list)})
    for field in fields:

        def holds(row: dict[str, Any], value: str, field: str = field) -> bool:
            held = row.get(field)
            return isinstance(held, list) and value in held

        if all(holds(row, call.args[name]) for call in calls for row in call.answered) and any(
            not holds(row, call.args[name]) for call in calls for row in call.left_out
        ):
            return ["holds", name, field]
    return None


def _search(name: str, texts: list[str], kept: list[_Kept]) -> list[Any] | None:
    """["has", name, fields]: the text fields none of which holds the argument in a row left out, one of
    which holds it in every answered row (ignoring case)."""
    calls = [call for call in kept if isinstance(call.args.get(name), str)]

    def holds(row: dict[str, Any], field: str, text: str) -> bool:
        value = row.get(field)
        return isinstance(value, str) and text.lower() in value.lower()

    rows = [row for call in kept for row in call.answered + call.left_out]
    # A field that holds text in some record (not an id or a list of tags), and none the calls rule out.
    texts = [f for f in texts if any(isinstance(row.get(f), str) for row in rows)]
    fields = [f for f in texts if not any(holds(row, f, call.args[name]) for call in calls for row in call.left_out)]
    if not fields or not any(call.left_out for call in calls):
        return None
    if all(any(holds(row, f, call.args[name]) for f in fields) for call in calls for row in call.answered):
        return ["has", name, fields]
    return None


def _shows(row: dict[str, Any], word: str) -> bool:
    """Whether a row shows the word: as an item of a list field, or inside a text field, ignoring case."""
    return any(
        (isinstance(value, list) and word in value) or (isinstance(value, str) and word.lower() in value.lower())
        for value in row.values()
    )


def _compared(name: str, kept: list[_Kept]) -> list[Any] | None:
    """["below", name, field] / ["above", name, field]: the field whose value in every answered row is
    strictly before (after) the argument's, as texts (ISO days, which sort as the days do) or numbers, and
    in some row left out is not, or is missing (a due date before a day: a record without one is left out)."""
    calls = [call for call in kept if isinstance(call.args.get(name), str | int | float)]
    rows = [row for call in calls for row in call.answered + call.left_out]
    fields = sorted({f for row in rows for f, v in row.items() if isinstance(v, str | int | float)})
    for field in fields:
        for kind in ("below", "above"):

            def holds(row: dict[str, Any], value: Any, kind: str = kind, field: str = field) -> bool:
                held = row.get(field)
                if isinstance(held, str) != isinstance(value, str) or held is None or isinstance(held, bool):
                    return False
                return bool(held < value) if kind == "below" else bool(held > value)

            answered = [row for call in calls for row in call.answered]
            if (
                answered
                and all(holds(row, call.args[name]) for call in calls for row in call.answered)
                and any(not holds(row, call.args[name]) for call in calls for row in call.left_out)
            ):
                return [kind, name, field]
    return None


def _sorts(
    optional: dict[str, Any], item: dict[str, list[Any]], enums: dict[str, list[str]]
) -> Iterator[dict[str, Any]]:
    """The sorts a listing may follow: by the field an argument's value names (`due-date`: `due_date`), its
    schema's default where not given, in the direction another argument names; an enumerated field by its
    values, by their order in the enum, or by the reverse."""
    named = {_normal(f): f for f, spec in item.items() if spec[0] != "const"}
    # A time the server made up when it stored the record (`created_at`) sorts as the records were stored.
    named |= {_normal(f): "$stored" for f, spec in item.items() if spec[0] == "const" and _made_time(spec[1])}
    by = way = None
    for name, schema in optional.items():
        values = [v for v in _enum(schema) if isinstance(v, str)]
        fields = {v: named[_normal(v)] for v in values if _normal(v) in named}
        lowered = {v.lower() for v in values}
        if by is None and len(fields) >= 2:
            by = [name, schema.get("default"), fields]
        elif way is None and len(values) == 2 and lowered & set(_DESCENDING):
            descending = next(v for v in values if v.lower() in _DESCENDING)
            ascending = next(v for v in values if v != descending)
            way = [name, schema.get("default", ascending), descending]
    if by is None:
        return
    sort: dict[str, Any] = {"by": by} | ({"dir": way} if way else {})
    # An enumerated field by its enum's order (or the reverse) first: where the recordings cannot tell, a
    # priority sorts as its values rank, seldom as their texts do.
    ranked = {f: values for f, values in enums.items() if f in by[2].values()}
    if ranked:
        yield {**sort, "rank": {f: [json.dumps(v) for v in values] for f, values in ranked.items()}}
        yield {**sort, "rank": {f: [json.dumps(v) for v in reversed(values)] for f, values in ranked.items()}}
    yield sort


def _made_time(value: Any) -> bool:
    return isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", value) is not None


def _normal(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def _enum(schema: dict[str, Any]) -> list[Any]:
    options = [schema, *(o for o in schema.get("anyOf", []) if isinstance(o, dict))]
    return [value for option in options for value in option.get("enum", [])]
