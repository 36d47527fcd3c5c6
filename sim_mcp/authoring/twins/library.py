"""The Starlark side of the model-free twin: `LIBRARY`, the behaviours of `behaviours.py` written once in
the rules language, and `program_text(plans)`, a programs file whose function per tool calls it with
that tool's plan. The twin's programs run in the engine's hermetic runtime like any compiled program;
`infer` keeps a plan only when this text, run there, gives every recorded answer.
"""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins import (
    batches,
    composed,
    dates,
    exact,
    expression,
    forms,
    functions,
    grouped,
    items,
    strings,
    wrapped,
)
from sim_mcp.rules import HANDED_ON, CallContext, Limits, compile_program, function_name, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK

__all__ = ["LIBRARY", "SECTION", "TwinLibrary", "program_text", "starlark_literal"]

SECTION = "# --- twin library (sim-mcp compile --from: inferred from recordings, no model) ---"

LIBRARY = """
def twin_run(plan, tool, state, args):
    family = plan["family"]
    if family == "const":
        twin_effect(plan["effect"], state, args)
        return plan["value"]
    if family == "create":
        return twin_create(plan, state, args)
    if family == "nested_add":
        return twin_nested_add(plan, state, args)
    if family == "read_all":
        return {key: list(state.get(collection, [])) for key, collection in plan["keys"].items()}
    if family == "filter":
        return twin_filter(plan, state, args)
    if family == "template":
        return twin_template(plan, tool, state, args)
    if family == "guard":
        return twin_guard(plan, tool, state, args)
    return error("twin: no behaviour " + family)

def twin_resolve(root, value):
    if type(value) != "string":
        return None
    if root == None:
        return value
    path = value
    if not (value == root or value.startswith(root + "/") or value.startswith("/")):
        path = root + "/" + value
    segments = []
    for segment in path.split("/"):
        if segment == "" or segment == ".":
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    return ("/" if path.startswith("/") else "") + "/".join(segments)

def twin_key(root, value):
    # The key a value names: a string read as a path under the root (if any), an integer as its digits.
    if type(value) == "int":
        return str(value)
    return twin_resolve(root, value)

def twin_parent(root, key):
    if key == root or "/" not in key:
        return None
    return key.rsplit("/", 1)[0] or "/"

def twin_stored(keys):
    # The keys calls stored, in the order they were first stored (`n`: JSON objects cross into Starlark
    # with their keys sorted, so the order is kept in the entries). A key joined from two arguments is
    # listed under its namespace (`twin_inside`), not among these.
    pairs = sorted([
        [entry.get("n", 0), k] for k, entry in keys.items() if entry["by"] != "_root" and TWIN_PAIR not in k
    ])
    return [pair[1] for pair in pairs]

# The separator of a key joined from two string arguments, a namespace and a name in it (a project and a
# file, a collection and an id): ASCII's unit separator, a control character no recorded value holds (the
# learner joins no two arguments where one does). So a joined key equals no one-argument key, is no path
# (no `/` is added: a joined key has no parent), and two pairs give one key only when both parts agree.
TWIN_PAIR = "\x1f"

def twin_paired(args, pairs, defaults = {}):
    # The arguments and, for each pair [first, second] the plan joins, both values joined as one argument
    # (`first+second`), which every placeholder, condition and effect may name as it names one argument. A
    # part not given is the value its schema defaults to (`defaults`: a namespace `default`), as the server
    # resolves it: a name stored without a namespace is the one read back without one.
    if not pairs:
        return args
    viewed = dict(args)
    for pair in pairs:
        first, second = args.get(pair[0], defaults.get(pair[0])), args.get(pair[1], defaults.get(pair[1]))
        if type(first) == "string" and type(second) == "string":
            viewed[pair[0] + "+" + pair[1]] = first + TWIN_PAIR + second
    return viewed

def twin_label(key):
    # What a listing shows of a stored key: a joined key's second part (a file of its project), else the key.
    return key.split(TWIN_PAIR, 1)[1] if TWIN_PAIR in key else key

def twin_inside(root, keys, value):
    # The joined keys whose first part (the namespace) is the key `value` names, in the order they were stored.
    space = twin_key(root, value)
    if space == None:
        return None
    pairs = sorted([[entry.get("n", 0), k] for k, entry in keys.items() if k.startswith(space + TWIN_PAIR)])
    return [pair[1] for pair in pairs]

def twin_joined(keys):
    # ["joined"]: every key joined from two arguments, in every namespace, in the order they were stored (a
    # memory's every record, not its namespaces).
    pairs = sorted([[entry.get("n", 0), k] for k, entry in keys.items() if TWIN_PAIR in k])
    return [pair[1] for pair in pairs]

def twin_dropped(keys, key):
    # What dropping a key drops: the key, the keys under it as a path, and the keys joined under it as a namespace.
    return [
        k for k, entry in keys.items()
        if entry["by"] != "_root" and (k == key or k.startswith(key + "/") or k.startswith(key + TWIN_PAIR))
    ]

def twin_matching(pred, keys, args):
    # The stored keys a predicate picks: all of them, or those starting with an argument's text.
    found = twin_stored(keys)
    if pred[0] == "prefix":
        prefix = args.get(pred[1])
        if type(prefix) != "string":
            return None
        found = [k for k in found if k.startswith(prefix)]
    elif pred[0] in ("contains", "words"):
        found = twin_containing(pred, keys, args, found)
    elif pred[0] == "has":
        found = twin_having(pred, keys, args, found)
    elif pred[0] == "by":
        # ["by", tool]: the keys that tool's calls stored (a cache's keys apart from its series).
        found = [k for k in found if keys[k].get("by") == pred[1]]
    return found

def twin_ordered(found, order):
    if order == "reverse":
        # Not `list(...)`: a twin's program names each tool's function after the tool, and a tool may be
        # called `list`.
        return [k for k in reversed(found)]
    return sorted(found) if order == "sorted" else found

def twin_fields(key, entry):
    # What a listing may show of one stored record: its key (and, for a key under another, its last part),
    # the arguments stored with it, the record an answer showed for it.
    fields = {"$key": twin_label(key)}
    if TWIN_PAIR in key:
        fields["$in"] = key.split(TWIN_PAIR, 1)[0]
    elif "/" in key.strip("/"):
        fields["$name"] = key.rstrip("/").rsplit("/", 1)[1]
    fields.update(entry.get("args", {}))
    if type(entry.get("rec")) == "dict":
        fields.update(entry["rec"])
    return fields

def twin_containing(pred, keys, args, found):
    # ["contains", name, fields]: the records with the argument's text in one of those fields, ignoring case
    # (as a search does).
    query = args.get(pred[1])
    if type(query) != "string":
        return None
    query = query.lower()
    picked = []
    for k in found:
        fields = twin_fields(k, keys[k])
        texts = []
        names = [name for name in fields if not name.startswith("$")] if pred[2] == ["*"] else pred[2]
        for name in names:
            value = fields.get(name)
            texts += [twin_text(item) for item in value] if type(value) == "list" else [twin_text(value)]
        if pred[0] == "words":
            held = {}
            for text in texts:
                for word in twin_words(text or ""):
                    held[word] = True
            wanted = twin_words(query)
            if wanted and all([word in held for word in wanted]):
                picked.append(k)
        elif any([text != None and query in text.lower() for text in texts]):
            picked.append(k)
    return picked

def twin_words(text):
    # A text's words, lower case: runs of letters and digits, as a full-text index splits it.
    words = []
    word = ""
    for c in text.lower().elems():
        if c.isalnum():
            word += c
        elif word:
            words.append(word)
            word = ""
    return words + [word] if word else words

def twin_having(pred, keys, args, found):
    # ["has", name, field]: the records whose stored list of texts holds the argument's value as an item (a
    # listing filtered by a tag).
    value = args.get(pred[1])
    if type(value) != "string":
        return None
    return [k for k in found if value in (twin_fields(k, keys[k]).get(pred[2]) or [])]

def twin_picked(pred, root, keys, args):
    # The stored keys a listing shows: those a predicate picks, or (["under", name]) the keys right under
    # the key an argument names, as a folder's entries or a request's tasks, or (["in", name]) the keys
    # joined under the namespace an argument names, as a project's files.
    if pred[0] == "in":
        return twin_inside(root, keys, args.get(pred[1]))
    if pred[0] == "joined":
        return twin_joined(keys)
    if pred[0] == "unnested":
        # ["unnested", separator]: the records no other is counted under as `s02t01` is under `s02` (the
        # top-level tasks, not their subtasks).
        stored = twin_stored(keys)
        return [k for k in stored if not twin_outer(["outer", "k", pred[1]], {"k": k}) in stored]
    if pred[0] != "under":
        return twin_matching(pred, keys, args)
    parent = twin_key(root, args.get(pred[1]))
    if parent == None:
        return None
    return [k for k in twin_stored(keys) if twin_parent(root, k) == parent]

def twin_lines(part, root, keys, args):
    # ["lines", pred, order, line, sep]: the records a predicate picks, in an order, each written through a
    # line template, joined by a separator. No record, no listing: the empty answer is a rule of its own.
    found = twin_picked(part[1], root, keys, args)
    if not found:
        return None
    lines = []
    for k in twin_ordered(found, part[2]):
        fields = twin_fields(k, keys[k])
        # A record's place in the listing, from 1 (a numbered block, `[2] #7`).
        fields["$i"] = len(lines) + 1
        text = twin_line_text(part[3], fields)
        if text == None:
            return None
        lines.append(text)
    return part[4].join(lines)

def twin_line_text(pieces, fields):
    # One record's line (or block) of a listing, or None where a piece cannot be written.
    out = []
    for piece in pieces:
        if type(piece) == "string":
            text = piece
        elif piece[0] == "made_up":
            # A day alone in the line: the server's clock, so the twin's own today (`listing._dated`); a time
            # with its day, the record's clock, compared by form.
            text = piece[2] if piece[1] == "date" else today()
        elif piece[0] == "when":
            # ["when", name, pieces]: a line the server shows only where the record holds that field.
            value = fields.get(piece[1])
            text = "" if value == None or value == "" or value == [] else twin_line_text(piece[2], fields)
        else:
            text = twin_shown(fields, piece)
        if text == None:
            return None
        out.append(text)
    return "".join(out)

def twin_shown(fields, piece):
    # ["field", name, map]: a field's value written through a map keyed by its JSON (absent is null), else as it is.
    value = fields.get(piece[1])
    mapped = piece[2] if len(piece) > 2 else {}
    code = json.encode(value)
    if code in mapped:
        return mapped[code]
    if value != None and "$any" in mapped:
        # A mark that a field is there, whatever it holds (a description shown as " (...)").
        return mapped["$any"]
    if type(value) == "list" and value and all([type(item) == "string" for item in value]):
        # A list of texts joined as a server's `", ".join(files)` writes them (`listing._ITEM_JOIN`).
        return ", ".join(value)
    return twin_text(value)

def twin_tallies(keys):
    # By field of the stored records, how many records hold each value of it (a text, or an item of a list
    # of texts: a tag counted once per record that has it), as a server answers "how many per tag".
    tallies = {}
    for k in twin_stored(keys):
        for name, value in twin_fields(k, keys[k]).items():
            if name.startswith("$"):
                continue
            if type(value) == "string":
                values = [value]
            elif type(value) == "list" and all([type(item) == "string" for item in value]):
                values = {item: True for item in value}.keys()
            else:
                continue
            tally = tallies.setdefault(name, {})
            for item in values:
                tally[item] = tally.get(item, 0) + 1
    return tallies

def twin_key_list(template, root, keys, args):
    # {"$keys": pred, "order": order, "where": [filter]}: a JSON list of the stored keys a predicate picks (as
    # their labels: a term's lemma, a file's name), in the order stored or sorted, those whose records every
    # filter keeps (`twin_kept`: tags asked for, tags left out). Empty where none is: it is a listing.
    found = twin_picked(template["$keys"], root, keys, args)
    if found == None:
        return None
    where = template.get("where", [])
    return [
        twin_label(k)
        for k in twin_ordered(found, template["order"])
        if not where or twin_kept(where, twin_row_fields(k, keys[k]), args)
    ]

def twin_records(keys, order):
    return [keys[k]["rec"] for k in twin_ordered(twin_stored(keys), order) if "rec" in keys[k]]

def twin_row_keys(pred, root, keys, args):
    # The stored keys a JSON listing shows: the one an argument names (["is", name]: a read of one record
    # answered as a listing of it), or those a predicate picks.
    if pred[0] == "is":
        key = twin_key(root, args.get(pred[1]))
        return [key] if key != None and key in keys and keys[key]["by"] != "_root" else None
    return twin_picked(pred, root, keys, args)

def twin_row_order(found, keys, order):
    # "latest": in the order each was last stored, as a server that replaces a row stored again lists it
    # last (`at`, counted over every store); "latest_reverse" newest first.
    if order in ("latest", "latest_reverse"):
        pairs = sorted([[keys[k].get("at", keys[k].get("n", 0)), k] for k in found])
        ordered = [pair[1] for pair in pairs]
        return [k for k in reversed(ordered)] if order == "latest_reverse" else ordered
    return twin_ordered(found, order)

def twin_latest(keys, key):
    # When the newest record but `key` was stored (`at`): a record stored is one past it, as a server numbers
    # a row MAX(sequence) + 1 over the rows it holds, a row stored again replacing its old row (a row dropped
    # frees its number).
    return max([entry.get("at", 0) for k, entry in keys.items() if k != key] + [0])

def twin_row_fields(k, entry):
    # A record's fields, and when it was first (`$n`) and last (`$at`) stored: a row's sequence number.
    fields = twin_fields(k, entry)
    fields["$n"] = entry.get("n", 0)
    fields["$at"] = entry.get("at", entry.get("n", 0))
    # What the store keeps with a record beside its fields: its id counted across the store, its reads.
    for name, kept in (("$s", "s"), ("$se", "se"), ("$r", "r"), ("$rw", "rw")):
        if kept in entry or (kept in ("r", "rw") and "s" in entry):
            fields[name] = entry.get(kept, 0)
    return fields

def twin_row_value(spec, fields):
    # ["field", name, absent]: a field's value (`absent` where the record has none: a server's default);
    # ["size", name]: its length; ["size", name, others, constant, per_item]: that plus the lengths of other
    # fields as text (`twin_text_length`) and a constant, the record's size as the server writes it down;
    # ["number", name]: its digits as a number; ["const", value].
    if spec[0] == "field":
        return fields[spec[1]] if spec[1] in fields else spec[2]
    if spec[0] == "size":
        value = fields.get(spec[1])
        if type(value) != "string":
            return None
        size = len(value)
        if len(spec) > 2:
            for other in spec[2]:
                length = twin_text_length(fields.get(other), spec[4])
                if length == None:
                    return None
                size += length
            size += spec[3]
        return size
    if spec[0] == "if":
        # ["if", flag, name, otherwise]: a field shown only where the record's flag is true, `otherwise` elsewhere.
        return fields.get(spec[2]) if fields.get(spec[1]) == True else spec[3]
    if spec[0] == "number":
        # ["number", name]: the field's digits as a JSON number (a key a server announced as an id, `"id": 3`).
        value = fields.get(spec[1])
        return int(value) if type(value) == "string" and value.isdigit() else None
    if spec[0] == "compose":
        # ["compose", segments]: a line the server composes from the record's fields (`composed.py`).
        return twin_composed(spec[1], fields)
    return spec[1]

def twin_text_length(value, per_item):
    # The length of a value written as text: a text's, a number's digits, a boolean's `true` or `false`, a
    # list of texts' items each with `per_item` characters more; None for any other.
    if type(value) == "bool":
        return 4 if value else 5
    if type(value) == "string":
        return len(value)
    if type(value) == "int":
        return len(str(value))
    if type(value) == "list" and all([type(item) == "string" for item in value]):
        return sum([len(item) + per_item for item in value])
    return None

def twin_rows(template, root, keys, args):
    # {"$rows": pred, "order": order, "item": {name: spec}}: a JSON list of the records a predicate picks,
    # each an object built from its fields. No record, no listing: the empty answer is a rule of its own.
    if "where" in template:
        return twin_filtered_rows(template, root, keys, args)
    found = twin_row_keys(template["$rows"], root, keys, args)
    if not found:
        return None
    rows = []
    for k in twin_row_order(found, keys, template["order"]):
        fields = twin_row_fields(k, keys[k])
        rows.append({name: twin_row_value(spec, fields) for name, spec in template["item"].items()})
    return rows

def twin_shown_rows(template, root, keys, args):
    # Each record the predicate picks, in its order, as [key, the object the listing shows for it].
    found = twin_row_keys(template["$rows"], root, keys, args)
    if found == None:
        return None
    rows = []
    for k in twin_row_order(found, keys, template["order"]):
        fields = twin_row_fields(k, keys[k])
        rows.append([k, {name: twin_row_value(spec, fields) for name, spec in template["item"].items()}])
    return rows

def twin_filtered_rows(template, root, keys, args):
    # {"$rows": pred, "order": order, "item": {...}, "where": [filter], "sort": sort, "limit": [name, default]}:
    # the records as the listing shows them, those every filter keeps (`twin_kept`), sorted (`twin_sorted`),
    # the first `limit` of them. Where the filters keep none the listing is empty: it is the filters, not an
    # empty world, that say so, so the empty answer is this rule's too.
    shown = twin_shown_rows(template, root, keys, args)
    if shown == None:
        return None
    rows = [row for _, row in shown if twin_kept(template["where"], row, args)]
    rows = twin_sorted(rows, template.get("sort"), args)
    limit = template.get("limit")
    if limit != None:
        count = args.get(limit[0])
        # Not given (or given as null or 0, which a server reads as not given): the schema's default.
        count = count if type(count) == "int" and count > 0 else limit[1]
        if type(count) == "int" and count >= 0:
            rows = rows[:count]
    return rows

def twin_lowered(value):
    # A text, or each text of a list, in lower case: what a server that normalises a value (tags) keeps.
    if type(value) == "string":
        return value.lower()
    if type(value) == "list":
        return [item.lower() if type(item) == "string" else item for item in value]
    return value

def twin_kept(where, row, args):
    # Whether every filter keeps the row. ["eq", name, field, default, every]: the field equal to the argument,
    # or to `default` where it is not given (a status `active` unless asked; no filter for a null default), a
    # value in `every` keeping every row (status `all`); a sixth element maps the argument's values to the
    # field's (`{"open": false, "done": true}`: a status asked as a word, kept as a flag); ["has", name,
    # fields]: the argument's text in one of those fields, ignoring case (a keyword); ["overlaps", name, field]
    # / ["covers", name, field]: some / every item of an array argument among the items of the row's list
    # field (tags); ["holds", name, field]: a string argument among them; ["below", name, field] / ["above",
    # name, field]: the field strictly before / after the argument (a due date before a day; a row without
    # one is left out).
    for rule in where:
        value = args.get(rule[1])
        kind = rule[0]
        if kind == "eq":
            if value == None:
                value = rule[3]
            if value == None or value in rule[4]:
                continue
            if len(rule) > 5 and type(value) == "string" and value in rule[5]:
                value = rule[5][value]
            if row.get(rule[2]) != value:
                return False
        elif value == None:
            continue
        elif kind in ("below", "above"):
            held = row.get(rule[2])
            numbers = ("int", "float")
            texts = type(held) == "string" and type(value) == "string"
            if not (texts or (type(held) in numbers and type(value) in numbers)):
                return False
            if not (held < value if kind == "below" else held > value):
                return False
        elif kind == "has":
            if type(value) != "string":
                return False
            text = value.lower()
            if not any([type(row.get(f)) == "string" and text in row.get(f).lower() for f in rule[2]]):
                return False
        elif kind == "holds":
            # ["holds", name, field]: the argument's value one of the items of the row's list field (a project).
            held = twin_listed(row.get(rule[2]))
            if type(held) != "list" or value not in held:
                return False
        elif kind in ("overlaps", "covers"):
            if type(value) != "list" or not value:
                continue
            held = twin_listed(row.get(rule[2]))
            if type(held) != "list":
                return False
            inside = [item in held for item in value]
            if not (any(inside) if kind == "overlaps" else all(inside)):
                return False
        elif kind == "excludes":
            # ["excludes", name, field]: no item of an array argument among the items of the row's list field
            # (the records without the tags a call leaves out).
            held = twin_listed(row.get(rule[2]))
            if type(value) == "list" and type(held) == "list" and any([item in held for item in value]):
                return False
    return True

def twin_sort_key(value, rank):
    # Nulls after every value; a value ranked by its place in `rank` (JSON texts: an enum's order), else by
    # itself, values of one type compared with each other.
    if value == None:
        return [1]
    if rank != None:
        code = json.encode(value)
        return [0, "int", rank.index(code) if code in rank else len(rank)]
    return [0, type(value), value]

def twin_sorted(rows, sort, args):
    # {"by": [name, default, {value: field}], "dir": [name, default, descending], "rank": {field: [json]}}: the
    # rows sorted by the field the argument `name` (or the default) names, nulls last, descending where the
    # direction argument says so; rows that tie keep their order both ways, as a stable sort keeps them.
    if sort == None:
        return rows
    by = sort["by"]
    chosen = args.get(by[0]) if by[0] != None else None
    chosen = by[1] if chosen == None else chosen
    field = by[2].get(chosen) if type(chosen) == "string" else None
    if field == None:
        return rows
    rank = sort.get("rank", {}).get(field)
    # "$stored": a time the server made up as it stored each record, so the order they were stored in.
    keys = [[0, "int", i] if field == "$stored" else twin_sort_key(rows[i].get(field), rank) for i in range(len(rows))]
    way = sort.get("dir")
    given = None if way == None else args.get(way[0])
    descending = way != None and (way[1] if given == None else given) == way[2]
    if descending:
        pairs = sorted([[keys[i], -i] for i in range(len(rows))])
        return [rows[-pair[1]] for pair in reversed(pairs)]
    return [rows[pair[1]] for pair in sorted([[keys[i], i] for i in range(len(rows))])]

def twin_text(value):
    if type(value) == "string":
        return value
    if type(value) in ("int", "float"):
        return twin_number_text(value)
    return None

def twin_holds(atom, root, keys, args):
    kind = atom[0]
    if kind == "always":
        return True
    if kind == "given":
        return all([name in args for name in atom[1:]])
    if kind == "absent":
        return atom[1] not in args
    if kind == "longer":
        return type(args.get(atom[1])) == "string" and len(args[atom[1]]) > atom[2]
    if kind == "empty":
        return len(twin_stored(keys)) == 0
    if kind == "nonempty":
        return len(twin_stored(keys)) > 0
    if kind == "expr_fails":
        return twin_expr_fails(atom, args)
    if kind == "expr_is":
        return twin_expr_is(atom, args)
    if kind == "expr_cmp":
        return twin_expr_compares(atom, args)
    if kind == "fn_fails":
        return twin_fn_fails(atom, args)
    if kind == "str_none":
        return twin_str_none(atom, args)
    if kind == "days":
        return twin_date_holds(atom, args)
    if kind == "sign":
        return twin_formula_sign(atom, args)
    if kind == "bits_sign":
        return twin_bits_sign(atom, args)
    if kind == "unlike":
        return twin_unlike(atom, args)
    if kind == "not_json":
        # A string argument that is no JSON text: refused by a server that reads it as JSON.
        return type(args.get(atom[1])) == "string" and not is_json(args[atom[1]])
    if kind == "not_among":
        return twin_not_among(atom, args)
    if kind == "no_items":
        return twin_items_hold(atom, args)
    if kind == "is":
        return args.get(atom[1]) == atom[2]
    if kind in ("some_by", "none_by"):
        # ["some_by", tool] / ["none_by", tool]: some stored record / none last stored by that tool (records
        # a tool renumbered, which the recordings may show otherwise than as they were stored).
        some = any([keys[k]["by"] == atom[1] for k in twin_stored(keys)])
        return some if kind == "some_by" else not some
    if kind == "at_default":
        # An argument left at its default, given so or not (`keyed_world._default_atoms`).
        return args.get(atom[1], atom[2]) == atom[2]
    if kind == "none":
        # ["none", pred]: no stored record the predicate picks (a search that finds nothing).
        found = twin_picked(atom[1], root, keys, args)
        return None if found == None else len(found) == 0
    if kind in ("nested_present", "nested_absent"):
        # ["nested_present", name, separator]: some record is stored under an id counted under the one the
        # argument names (a task's subtask, `s02t01` of `s02`); ["nested_absent", ...]: none is.
        value = args.get(atom[1])
        if type(value) != "string" or not value:
            return None
        prefix = value + atom[2]
        return (kind == "nested_present") == any([
            type(k) == "string" and k.startswith(prefix) and k[len(prefix):].isdigit() for k in twin_stored(keys)
        ])
    key = twin_key(root, args.get(atom[1]))
    if key == None:
        return None
    if kind == "outside":
        return type(args.get(atom[1])) == "string" and root != None and key != root and not key.startswith(root + "/")
    if kind == "missing":
        return key not in keys
    if kind == "present":
        return key in keys and (atom[2] == None or keys[key]["by"] == atom[2])
    if kind == "stored_is":
        # ["stored_is", name, field, value]: the record under the key holds that value (None: not given).
        return key in keys and keys[key].get("args", {}).get(atom[2]) == atom[3]
    if kind == "holds":
        # ["holds", name, field, arg]: the text stored in the field holds the argument's text (a replace
        # finds what it is to replace). None where either is no text.
        stored = keys[key].get("args", {}).get(atom[2]) if key in keys else None
        text = args.get(atom[3])
        if type(stored) != "string" or type(text) != "string":
            return None
        return text in stored
    parent = twin_parent(root, key)
    if kind == "parent_missing":
        return parent != None and parent not in keys
    if kind == "parent_present":
        return parent != None and parent in keys and (atom[2] == None or keys[parent]["by"] == atom[2])
    return None

def twin_entry(root, keys, args, name):
    key = twin_key(root, args.get(name))
    return keys.get(key) if key != None else None

def twin_part(part, root, keys, args, twin):
    # The text one placeholder writes, or None: it cannot be written for this call in this world.
    kind = part[0]
    if kind in ("expr", "expr_name"):
        return twin_expr_part(part, args)
    if kind in ("fn", "measure", "radix", "hmac", "linear", "units", "distance", "lookup", "formula", "date", "str"):
        return twin_fn_part(part, args)
    if kind == "sig":
        # A number part's value written with a number of significant digits (`functions.py`).
        return twin_fn_part(part, args)
    if kind == "bits":
        # A number in a positional form computed bit by bit (`positional.py`).
        return twin_fn_part(part, args)
    if kind == "arith":
        return twin_arith_part(part, args)
    if kind in TWIN_ARITHMETIC:
        number = twin_number(part, args)
        return None if number == None else twin_number_text(number)
    if kind == "given_names":
        return twin_given_names(part, args)
    if kind == "dumps":
        # ["dumps", name, style]: a list or object argument as JSON text (`twin_dumps`).
        return twin_dumps(args.get(part[1]), part[2])
    if kind == "arg" or kind == "key":
        value = args.get(part[1])
        if type(value) != "string":
            return None
        return twin_resolve(root, value) if kind == "key" else value
    if kind == "stored":
        entry = twin_entry(root, keys, args, part[1])
        # A field the call that stored it did not give is read from the record its answer showed (a title
        # a create stored, read after an update of the priority).
        stored = None if entry == None else entry.get("args", {}).get(part[2])
        if stored == None and entry != None and type(entry.get("rec")) == "dict":
            stored = entry["rec"].get(part[2])
        if len(part) > 3 and part[3] == "repr":
            return twin_repr(stored)
        text = None if stored == None else twin_text(stored)
        # ["stored", name, field, "json"]: as a JSON string writes it, inside its quotes (a text answer that
        # is JSON shows a stored document so).
        return twin_json_text(text) if len(part) > 3 and text != None else text
    if kind == "count" or kind == "list":
        found = twin_picked(part[1], root, keys, args)
        if found == None:
            return None
        if kind == "count":
            return str(len(found))
        return part[3].join([twin_label(k) for k in twin_ordered(found, part[2])])
    if kind == "lines":
        return twin_lines(part, root, keys, args)
    if kind == "compose":
        return twin_compose_part(part, root, keys, args)
    if kind == "fresh":
        return str(twin_fresh(part[1] if len(part) > 1 else None, keys, twin))
    if kind == "made_up":
        return twin_made_up(part, keys, args, twin)
    if kind == "next":
        digits = str(twin_next(part[1], args, twin))
        # ["next", prefix, width]: a server that pads its counter with zeros (`TASK-007`).
        width = part[2] if len(part) > 2 else 0
        return part[1] + "0" * (width - len(digits)) + digits
    if kind == "opt":
        return twin_optional(part, root, keys, args, twin)
    if kind == "next_under":
        return twin_next_under(part, keys, args)
    if kind == "outer":
        return twin_outer(part, args)
    if kind == "each_line":
        return twin_each_line(part, root, keys, args, twin)
    if kind in ("size", "total_size", "mean_size", "index"):
        number = twin_size(part, args)
        return None if number == None else str(number)
    if kind in ("stored_size", "order"):
        number = twin_stored_number(part, root, keys, args)
        return None if number == None else str(number)
    if kind == "writes":
        number = twin_writes(part, root, keys, args)
        return None if number == None else str(number)
    if kind in ("reads", "serial"):
        number = twin_record_number(part, root, keys, args)
        return None if number == None else str(number)
    return None

def twin_record_number(part, root, keys, args):
    # A number the store keeps with a record: its reads (`twin_reads`) or its id (`twin_serial`); none for
    # a namespace made on the way, which is no record.
    if part[0] == "reads":
        return twin_reads(part, root, keys, args)
    entry = twin_entry(root, keys, args, part[1])
    return None if entry == None else entry.get("se" if len(part) > 2 else "s")

def twin_writes(part, root, keys, args):
    # ["writes", name]: the writes the record under the key an argument names has had (`w`: each success
    # whose effect stores, changes or moves it counts one; one for an entry stored before they were counted),
    # a document's revision as a read shows it; ["writes", name, "next"]: the revision this call makes of it,
    # one past those, 1 where nothing is stored yet (a document's first write).
    entry = twin_entry(root, keys, args, part[1])
    if len(part) > 2:
        return 1 if entry == None else entry.get("w", 1) + 1
    return None if entry == None else entry.get("w", 1)

def twin_json_text(text):
    return json.encode(text)[1:-1]

def twin_listed(value):
    # A list field's items: the list, or the JSON array a text writes (a record keeping its tags as
    # `json.dumps(tags)`, which a filter by tags reads as the list it writes); a text that writes none as it is.
    if type(value) == "string" and value.startswith("["):
        found = json_document(value)
        return found if type(found) == "list" else value
    return value

def twin_dumps(value, style):
    # A list or object argument written as JSON text, as a server keeps it in a record's text field (a
    # note's tags stored as `json.dumps(tags)`): "python", as `json.dumps` writes it by default (`", "` and
    # `": "` between items, non-ASCII escaped); "compact", as JavaScript's `JSON.stringify` does. None for
    # any other value.
    if type(value) not in ("list", "dict"):
        return None
    return json_text(value, None, False, True) if style == "python" else json.encode(value)

def twin_stored_number(part, root, keys, args):
    # Of the entry under the key an argument names: the length of a stored value (now, or once the call adds
    # a text to it), or its place among the keys stored now, in the order they were first stored (1 the first).
    entry = twin_entry(root, keys, args, part[1])
    if entry == None:
        return None
    if part[0] == "order":
        stored = twin_stored(keys)
        key = twin_key(root, args.get(part[1]))
        return stored.index(key) + 1 if key in stored else None
    value = entry.get("args", {}).get(part[2])
    if type(value) != "string":
        return None
    if len(part) > 3:
        # ["stored_size", name, field, added, joiner]: its length once the text argument `added` is added
        # to it after a joiner of that many characters, none after an empty text.
        added = args.get(part[3])
        if type(added) != "string":
            return None
        return len(value) + (part[4] if value else 0) + len(added)
    return len(value)

def twin_each_line(part, root, keys, args, twin):
    # One line per item of an array argument, each written by the same parts as that item sees the call.
    items = args.get(part[1])
    if type(items) != "list":
        return None
    lines = []
    for index in range(len(items)):
        viewed = twin_item(args, part[1], index)
        out = []
        for piece in part[2]:
            text = piece if type(piece) == "string" else twin_part(piece, root, keys, viewed, twin)
            if text == None:
                return None
            out.append(text)
        lines.append("".join(out))
    # ["each_line", array, parts, separator]: blocks of several lines each (a view of several records),
    # joined by what the server puts between them.
    return (part[3] if len(part) > 3 else "\\n").join(lines)

def twin_record_fields(entry):
    # The fields of the record an answer showed for an entry that its storer did not give.
    rec = entry.get("rec")
    return [f for f in rec.keys() if f not in entry.get("args", {})] if type(rec) == "dict" else []

def twin_optional(part, root, keys, args, twin):
    # ["opt", parts]: a line of a record's block that the server leaves out where its field is absent (a
    # description, a parent): its parts, or nothing where one of them cannot be written.
    out = []
    for piece in part[1]:
        text = piece if type(piece) == "string" else twin_part(piece, root, keys, args, twin)
        if text == None:
            return ""
        out.append(text)
    return "".join(out)

def twin_next(prefix, args, twin):
    # The next id a server counts under a prefix (`task-3`): one past the largest seen, the i-th item of
    # an array argument taking the i-th after it.
    return twin.get("counters", {}).get(prefix, 0) + 1 + args.get("$index", 0)

def twin_next_under(part, keys, args):
    # ["next_under", name, separator, width]: the next id a server counts under the record an argument
    # names (a subtask `s02t03` of `s02`): the argument's value, the separator, and one past the largest
    # counter of the ids stored under it so, padded with zeros to the width its ids show.
    value = args.get(part[1])
    if type(value) != "string" or not value:
        return None
    prefix = value + part[2]
    largest = 0
    for key in keys:
        rest = key[len(prefix):] if type(key) == "string" and key.startswith(prefix) else ""
        if rest and rest.isdigit() and len(rest) < 10:
            largest = max(largest, int(rest))
    digits = str(largest + 1)
    return prefix + "0" * (part[3] - len(digits)) + digits

def twin_outer(part, args):
    # ["outer", name, separator]: the id an argument's id is counted under (`s12` of `s12t03`), which a
    # server names where that one is missing.
    value = args.get(part[1])
    if type(value) != "string":
        return None
    rest = value.rstrip("0123456789")
    if rest == value or not rest.endswith(part[2]) or len(rest) == len(part[2]):
        return None
    return rest[:len(rest) - len(part[2])]

def twin_size(part, args):
    # A length from the call: of a string or array argument (`size`), the sum of the lengths of a field
    # of an array's items (`total_size`) and their mean as JavaScript rounds it (`mean_size`), or the
    # place of the item a per-item template writes (`index`).
    kind = part[0]
    if kind == "index":
        return args.get("$index")
    value = args.get(part[1])
    if kind == "size" and len(part) > 2:
        # ["size", name, "json"]: how many items the JSON array (or object) a text argument writes holds
        # (observations given as JSON text, "stored 3 observations").
        value = json_document(value) if type(value) == "string" else None
        return None if value == None else len(value)
    if kind == "size":
        return len(value) if type(value) in ("string", "list") else None
    if type(value) != "list" or not value:
        return None
    total = 0
    for item in value:
        text = item.get(part[2]) if type(item) == "dict" else None
        if type(text) != "string":
            return None
        total += len(text)
    if kind == "total_size":
        return total
    return (2 * total + len(value)) // (2 * len(value))

def twin_item(args, name, index):
    # The arguments as one item of array argument `name` sees them: the item as `name/*` (a string) or
    # its fields as `name/*/field`, and its place as `$index`.
    viewed = dict(args)
    item = args[name][index]
    if type(item) == "dict":
        for field, value in item.items():
            viewed[name + "/*/" + field] = value
    else:
        viewed[name + "/*"] = item
    viewed["$index"] = index
    return viewed

def twin_counted(prefixes, value, twin, given = None):
    # Raise each prefix's counter to the largest id under it that an answer shows (`req-2`, `task-5`), but
    # for one the call gave (`given`, its arguments): "Not found: 'task-99'" for an agent's mistaken id
    # moves no counter, as a made-up id the call gave moves nothing (`twin_fresh`).
    if not prefixes:
        return
    counters = twin.setdefault("counters", {})
    asked = twin_texts(given) if given != None else []
    for text in twin_texts(value):
        for prefix in prefixes:
            chunks = text.split(prefix)
            for at in range(1, len(chunks)):
                before, after = chunks[at - 1], chunks[at]
                if before and (before[-1].isalnum() or before[-1] == "_"):
                    continue
                digits = after[:len(after) - len(after.lstrip("0123456789"))]
                if digits and not (len(after) > len(digits) and after[len(digits)].isalnum()) and len(digits) < 10:
                    if any([prefix + digits in text for text in asked]):
                        continue
                    counters[prefix] = max(counters.get(prefix, 0), int(digits))

def twin_numbered(numbered, value, twin, given = None):
    # Raise the largest made-up id (`fresh`) to the largest number a record of a numbered kind shows
    # (`[field, fields]`: an object with exactly those fields, numbered by `field`), but for a number the call
    # gave: a server that numbers its records from one sequence makes some up beside the one a call keeps
    # (the subtasks a split shows), and the next one it makes up is past them all.
    if not numbered:
        return
    asked = [v for v in (given or {}).values() if type(v) == "int"]
    top = twin.get("fresh", 0)
    for item in twin_nodes(value):
        if type(item) == "dict":
            for field, fields in numbered:
                number = item.get(field)
                if type(number) == "int" and number > top and number not in asked and sorted(item.keys()) == fields:
                    top = number
    if top > twin.get("fresh", 0):
        twin["fresh"] = top

def twin_made_up(part, keys, args, twin):
    # A value the server makes up (a hash, a UUID, a time), of the form recorded: compared by form, never
    # by value. Hex digits drawn from the call and the world, so that two calls get two values.
    if part[1] == "date":
        return part[2]
    if part[1] == "today":
        # A day alone that no call gave: the server's clock, so the twin's own (the session's) today.
        return today()
    seed = hash(json.encode(args)) + 31 * len(keys) + 7919 * twin.get("stored", 0)
    digits = ""
    for step in range(12):
        if len(digits) >= 32 + part[2]:
            break
        word = "%x" % ((seed * 2654435761 + step * 40503) % 4294967296)
        digits += "0" * (8 - len(word)) + word
    if part[1] == "uuid":
        return digits[0:8] + "-" + digits[8:12] + "-4" + digits[13:16] + "-8" + digits[17:20] + "-" + digits[20:32]
    if part[1] == "signed":
        # A hash after a word (`speed_3598404652517860456`): decimal digits, as long as the one recorded.
        number = str(int(digits[:15], 16))
        return ("9" + number * 2)[:part[2]]
    text = digits[:part[2]]
    if part[2] < 16 and text.lstrip("0123456789") == "":
        # A short made-up id reads as one only holding a letter and a digit (agreement's HEX_FORM).
        text = "a" + text[1:]
    if part[2] < 16 and text.lstrip("abcdef") == "":
        text = text[:-1] + "7"
    return text

def twin_fresh(kind, keys, twin):
    # The next id a server makes up: one past the largest it made up so far (a counter that never goes
    # back), or ("stored") one past the largest made-up id stored now (a server that numbers a new record
    # max(id) + 1 over the records it holds: deleting the newest frees its id). An id a call gave (an
    # agent's mistaken `id: 99`) moves neither.
    if kind == "stored":
        made = [int(k) for k, entry in keys.items() if entry.get("made") and k.isdigit()]
        return max(made + [0]) + 1
    return twin.get("fresh", 0) + 1

def twin_repr(value):
    # A stored list of texts as Python writes it (`['docs', 'urgent']`, a server's f-string of a list); None
    # for any other value, or one whose quotes Python would write otherwise.
    if type(value) != "list" or not value:
        return None
    if any([type(item) != "string" or "'" in item or "\\\\" in item for item in value]):
        return None
    return "[" + ", ".join(["'" + item + "'" for item in value]) + "]"

def twin_given_names(part, args):
    # ["given_names", order, sep]: the names of the arguments the call gave, in the server's order (its
    # schema's, but the argument that names the record), joined: the fields an update reports it changed
    # ("fields: description, tags"). None where it gave none of them.
    names = [name for name in part[1] if name in args]
    return part[2].join(names) if names else None

def twin_text_of(answer):
    # The text an answer is: a string, or the one string under one field (`{"result": "Created: ..."}`, as a
    # server's framework wraps a tool that returns a text); None for any other answer.
    if type(answer) == "dict" and len(answer) == 1 and type(answer.values()[0]) == "string":
        return answer.values()[0]
    return answer if type(answer) == "string" else None

def twin_made_number(answer, args):
    # The id a text answer announces ("Task created successfully with ID: 3"): its one whole number that
    # no argument of the call gave, or None where it shows none or several.
    answer = twin_text_of(answer)
    if answer == None:
        return None
    given = [v for v in args.values() if type(v) == "int"]
    found = []
    digits = ""
    for at in range(len(answer) + 1):
        char = answer[at] if at < len(answer) else " "
        if char.isdigit():
            digits += char
            continue
        start = at - len(digits)
        decimal = char == "." and at + 1 < len(answer) and answer[at + 1].isdigit()
        whole = digits and len(digits) < 10 and not char.isalpha() and char != "_" and not decimal
        if whole and start > 0 and (answer[start - 1].isalpha() or answer[start - 1] in "._-"):
            whole = False
        if whole and int(digits) not in given and int(digits) not in found:
            found.append(int(digits))
        digits = ""
    return found[0] if len(found) == 1 else None

def twin_plain(rendered):
    return rendered["$text"] if type(rendered) == "dict" and "$text" in rendered else rendered

def twin_render(template, root, keys, args, twin = {}):
    if type(template) == "dict" and "$parts" in template:
        out = []
        for part in template["$parts"]:
            text = part if type(part) == "string" else twin_part(part, root, keys, args, twin)
            if text == None:
                return None
            out.append(text)
        return {"$text": "".join(out)}
    if type(template) == "dict" and "$record" in template:
        entry = twin_entry(root, keys, args, template["$record"])
        if entry == None or type(entry.get("rec")) != "dict":
            return None
        record = dict(entry["rec"])
        for name in template.get("sorted", []):
            # A list of texts the server keeps sorted, whatever order it was stored in.
            if type(record.get(name)) == "list" and all([type(item) == "string" for item in record[name]]):
                record[name] = sorted(record[name])
        for name in template.get("merge", []):
            # A field named as an argument (or [field, argument]: one it shows under another name): the call's
            # value where it gives one, else as stored (an update).
            # [field, argument, "lower"]: the argument's texts kept in lower case (tags a server normalises);
            # [field, argument, "blank"]: an empty text clears the field (null).
            field, argument = (name[0], name[1]) if type(name) == "list" else (name, name)
            how = name[2] if type(name) == "list" and len(name) > 2 else None
            if args.get(argument) != None:
                value = args[argument]
                if how == "lower":
                    value = twin_lowered(value)
                elif how == "blank" and value == "":
                    value = None
                record[field] = value
        for name, item in template["set"].items():
            rendered = twin_render(item, root, keys, args, twin)
            if rendered == None:
                return None
            record[name] = twin_plain(rendered)
        return record
    if type(template) == "dict" and "$records" in template:
        return twin_records(keys, template["$records"])
    if type(template) == "dict" and "$keys" in template:
        return twin_key_list(template, root, keys, args)
    if type(template) == "dict" and "$tally" in template:
        # {"$tally": field}: how many stored records hold each value of the field; with "size", how many
        # values there are.
        tally = twin_tallies(keys).get(template["$tally"], {})
        return len(tally) if template.get("size") else tally
    if type(template) == "dict" and "$rows" in template:
        return twin_rows(template, root, keys, args)
    if type(template) == "dict" and "$count" in template:
        found = twin_row_keys(template["$count"], root, keys, args)
        return len(found) if found else None
    if type(template) == "dict" and "$pick" in template:
        # {"$pick": name, "from": listing}: the listing's field the argument names, alone (`filtered.py`).
        kind = args.get(template["$pick"])
        if type(kind) != "string" or kind not in template["from"]:
            return None
        return {kind: template["from"][kind]}
    if type(template) == "dict" and "$size" in template:
        # How many records a listing beside it shows (a filtered one: those its filters keep, none too).
        rows = twin_render(template["$size"], root, keys, args, twin)
        return len(rows) if type(rows) == "list" else None
    if type(template) == "dict" and "$fresh" in template:
        return twin_fresh(template["$fresh"], keys, twin)
    if type(template) == "dict" and "$each" in template:
        return twin_render_each(template, root, keys, args, twin)
    if type(template) == "dict" and "$groups" in template:
        return twin_render_groups(template, args)
    if type(template) == "dict" and "$stored" in template:
        # A field stored under the key an argument names, or what the server shows where it was not given.
        entry = twin_entry(root, keys, args, template["$stored"][0])
        if entry == None:
            return None
        stored = entry.get("args", {})
        field = template["$stored"][1]
        if field not in stored and type(entry.get("rec")) == "dict" and field in entry["rec"]:
            # Not given by the call that stored it: as the record its answer showed has it.
            return {"$text": entry["rec"][field]}
        return {"$text": stored[field] if field in stored else template["else"]}
    if type(template) == "dict" and "$parsed" in template:
        return twin_parsed(template, root, keys, args)
    if type(template) == "dict" and "$number" in template:
        return twin_number_of(template["$number"], root, keys, args, twin)
    if type(template) == "dict" and "$value" in template:
        # Any JSON value a function computes (a flag, a null, a list of named days), as it is.
        found = twin_fn_of(template["$value"], args)
        return None if found == None or "value" not in found else {"$text": found["value"]}
    if type(template) == "dict" and "$arg" in template:
        # An argument's JSON value as the call gave it (a list of tags, a priority), or the server's default
        # where the call gave none.
        name = template["$arg"]
        value = args[name] if name in args else template["else"]
        if template.get("lower"):
            value = twin_lowered(value)
        if template.get("blank") and value == "":
            value = None  # an empty text that clears the field ("pass an empty string to clear")
        if template.get("sorted") and type(value) == "list":
            value = sorted(value)
        return {"$text": value}
    if type(template) == "dict":
        answer = {}
        for name, item in template.items():
            # A JSON null is a value of the answer, not a placeholder that cannot be written.
            rendered = None if item == None else twin_render(item, root, keys, args, twin)
            if rendered == None and item != None:
                return None
            answer[name] = twin_plain(rendered)
        return answer
    if type(template) == "list":
        items = []
        for item in template:
            rendered = None if item == None else twin_render(item, root, keys, args, twin)
            if rendered == None and item != None:
                return None
            items.append(twin_plain(rendered))
        return items
    return template

def twin_parsed(template, root, keys, args):
    # The JSON document a text stored under the key an argument names writes (a value given as JSON text,
    # answered as the document it holds, which the server may write back in a style of its own); a stored
    # text that writes none, as it is. With the style the server writes the answer's documents in
    # (`json_texts.py`), written so here, its keys in the stored text's order: the learned orders of keys are
    # those of the server's records, not of a document an agent wrote.
    entry = twin_entry(root, keys, args, template["$parsed"][0])
    if entry == None:
        return None
    field = template["$parsed"][1]
    stored = entry.get("args", {}).get(field)
    if stored == None and type(entry.get("rec")) == "dict":
        stored = entry["rec"].get(field)
    if type(stored) != "string":
        return None
    value = json_document(stored)
    if value == None:
        return {"$text": stored}
    style = template.get("style")
    return {"$text": value if style == None else json_text(value, style[0], style[1], style[2])}

def twin_render_each(template, root, keys, args, twin):
    # One answer per item of an array argument, each rendered as that item sees the call.
    items = args.get(template["$each"])
    if type(items) != "list":
        return None
    out = []
    for index in range(len(items)):
        viewed = twin_item(args, template["$each"], index)
        chosen = template["item"]
        for case in template.get("cases", []):
            if all([twin_holds(atom, root, keys, viewed) == True for atom in case[0]]):
                chosen = case[1]
                break
        rendered = twin_render(chosen, root, keys, viewed, twin)
        if rendered == None:
            return None
        out.append(twin_plain(rendered))
    return out

def twin_number_of(part, root, keys, args, twin):
    # A JSON number a placeholder writes: the number itself, not its text.
    if part[0] in ("num", "sum", "difference", "product"):
        return twin_number(part, args)
    if part[0] in ("size", "total_size", "mean_size", "index"):
        return twin_size(part, args)
    if part[0] in ("stored_size", "order"):
        return twin_stored_number(part, root, keys, args)
    if part[0] in ("linear", "units"):
        return twin_fn_number(part, args)
    if part[0] == "writes":
        return twin_writes(part, root, keys, args)
    if part[0] in ("reads", "serial"):
        return twin_record_number(part, root, keys, args)
    text = twin_part(part, root, keys, args, twin)
    if part[0] in ("expr", "arith"):
        return twin_json_number(text)
    return None if text == None or not text.isdigit() else int(text)

def twin_json_number(text):
    # The number a computed value's text writes, as JSON reads it: an int's digits, a double's with a point or
    # an exponent (`keyed_world._json_number` reads the same grammar at compile time); None for any other text
    # (`inf`, `nan`, `3/8`, `1.2.3`), never an error.
    if text == None:
        return None
    body = text[1:] if text.startswith("-") else text
    end = twin_digits_end(body, 0)
    if end == 0:
        return None
    if end == len(body):
        return int(text)
    whole, fraction = body[:end].lstrip("0"), ""
    if body[end] == ".":
        after = twin_digits_end(body, end + 1)
        if after == end + 1:
            return None
        fraction = body[end + 1:after]
        end = after
    exponent = 0
    if end < len(body) and body[end] == "e":
        start = end + 2 if end + 1 < len(body) and body[end + 1] in "+-" else end + 1
        after = twin_digits_end(body, start)
        if after == start:
            return None
        exponent = int(body[end + 1:after])
        end = after
    if end != len(body):
        return None
    # The power of ten of its first significant digit: a double holds no number of 1e308 or more, and float()
    # refuses one (`keyed_world._DOUBLE_MAGNITUDE`).
    significant = fraction.lstrip("0")
    if whole != "":
        magnitude = len(whole) - 1 + exponent
    elif significant != "":
        magnitude = exponent - (len(fraction) - len(significant)) - 1
    else:
        magnitude = 0
    return float(text) if magnitude < 308 else None

def twin_digits_end(text, start):
    # Where the run of ASCII digits from `start` ends.
    for at in range(start, len(text)):
        if text[at] not in "0123456789":
            return at
    return len(text)

def twin_apply_each(effect, tool, root, keys, args, twin):
    # Store each item of an array argument under its field `effect[2]` (the item itself, for a string),
    # its other fields as what is stored; or drop each key the items name.
    items = args.get(effect[1])
    if type(items) != "list":
        return
    for item in items:
        value = item.get(effect[2]) if type(item) == "dict" and effect[2] != None else item
        key = twin_key(root, value)
        if key == None:
            continue
        if effect[0] == "drop_each":
            for k in twin_dropped(keys, key):
                keys.pop(k)
            continue
        stored = {f: v for f, v in item.items() if f != effect[2]} if type(item) == "dict" else {}
        twin_store(keys, key, {"by": tool, "args": stored}, twin)

def twin_serial(entry, before, twin):
    # The id a store numbers a record by across the whole store, as a table's AUTOINCREMENT does: one past
    # every record stored before, in any namespace, a dropped one's too (`s`: `["serial", name]`), or one
    # past every store before, a record stored again using one up too (`se`: `["serial", name, "every"]`,
    # an upsert that takes a number from the sequence before it finds the row); a record stored again keeps
    # its id. A namespace made on the way is no record and takes none.
    twin["serial_every"] = twin.get("serial_every", 0) + 1
    if before != None and "s" in before:
        entry["s"], entry["se"] = before["s"], before.get("se")
    else:
        twin["serial"] = twin.get("serial", 0) + 1
        entry["s"], entry["se"] = twin["serial"], twin["serial_every"]

def twin_touch(root, keys, args, name):
    # ["touch", name]: a read that counts itself on the record it reads (an access count): where the key
    # an argument names is stored, its reads (`r`, kept when stored again) and its reads since it was last
    # written (`rw`) go one up. Learned from successive answers about one record, never from a tool's name.
    key = twin_key(root, args.get(name))
    if key == None or key not in keys or keys[key]["by"] == "_root":
        return
    entry = dict(keys[key])
    entry["r"] = entry.get("r", 0) + 1
    entry["rw"] = entry.get("rw", 0) + 1
    keys[key] = entry

def twin_reads(part, root, keys, args):
    # ["reads", name]: the reads the record under the key an argument names has had before this call
    # (`twin_touch`), 0 where none; ["reads", name, "write"]: those since it was last written (a counter a
    # write resets).
    entry = twin_entry(root, keys, args, part[1])
    if entry == None or entry["by"] == "_root" or entry.get("space"):
        return None
    return entry.get("rw", 0) if len(part) > 2 else entry.get("r", 0)

def twin_store(keys, key, entry, twin):
    # An entry stored under a key: when it was first stored (`n`, kept when stored again) and its row
    # number (`at`, one past the highest among the other keys, as a table that replaces a row numbers it).
    if key in keys and keys[key].get("made"):
        entry["made"] = True  # the id stays one the server made up, whatever is stored under it again
    # Its writes, counted on (`twin_writes`): a document written again is its next revision.
    entry["w"] = keys[key].get("w", 1) + 1 if key in keys else 1
    if key in keys and "n" in keys[key]:
        entry["n"] = keys[key]["n"]
    else:
        twin["stored"] = twin.get("stored", 0) + 1
        entry["n"] = twin["stored"]
    if key in keys and "r" in keys[key]:
        # What reads counted stays with the record stored again (an upsert keeps its row's counter).
        entry["r"] = keys[key]["r"]
    entry["at"] = twin_latest(keys, key) + 1
    keys[key] = entry

def twin_nested(answer, field):
    # The record a field's path names in an answer: the answer itself, or the object under its first part.
    if "/" not in field:
        return answer
    return answer.get(field.split("/", 1)[0]) if type(answer) == "dict" else None

def twin_apply(effect, tool, root, keys, args, answer, twin):
    # What a success changes in the keyed world.
    if effect == None:
        return
    kind = effect[0]
    if kind == "keep":
        # ["keep", "todo/id"]: the record nested in the answer under a field (`{"todo": {...}, "message": ...}`).
        answer = twin_nested(answer, effect[1])
    if kind == "put" or kind == "keep" or kind == "put_new":
        field = effect[1].rsplit("/", 1)[-1] if kind == "keep" else effect[1]
        value = args.get(field) if kind != "keep" else (answer.get(field) if type(answer) == "dict" else None)
        key = twin_key(root, value)
        if key == None:
            return
        if kind == "put_new" and key in keys:
            # A create that keeps what is stored (a file written only where none is, `INSERT OR IGNORE`),
            # answering as if it stored: an update is what replaces it.
            return
        entry = {"by": tool, "args": {name: v for name, v in args.items() if name != effect[1]}}
        if kind == "keep":
            entry["rec"] = answer
            before = keys.get(key, {}).get("rec")
            if len(effect) > 2 and type(answer) == "dict" and type(before) == "dict":
                # ["keep", field, "known"]: a write that answers the record with fields of its own beside it
                # (a close's `_next_issue_id`, never read back): the record keeps only the fields it had.
                entry["rec"] = {name: v for name, v in answer.items() if name in before}
            if len(effect) > 2 and effect[2] == "merged" and key in keys and type(answer) == "dict":
                # ["keep", field, "merged"]: a move of a stored record through its lifecycle (started, done)
                # that answers part of it: the fields it had stay, those the answer shows are its own now,
                # and the call's other arguments replace theirs (the one that names it is no field).
                entry["args"] = dict(keys[key].get("args", {}))
                entry["args"].update({n: v for n, v in args.items() if n != effect[1] and v != value and "/" not in n})
                if type(before) == "dict":
                    entry["rec"] = dict(before)
                    entry["rec"].update(answer)
            # An id no argument gave as that integer (a float 3.0 beside it, an estimate, is no id).
            if type(value) == "int" and not any([type(v) == "int" and v == value for v in args.values()]):
                entry["made"] = True
            if type(value) == "int" and value > twin.get("fresh", 0):
                twin["fresh"] = value
        space = key.split(TWIN_PAIR, 1)[0]
        if space != key and space not in keys:
            # A name stored in a namespace makes the namespace (a file its project's folder), left when
            # its names are dropped.
            twin_store(keys, space, {"by": tool, "args": {}, "space": True}, twin)
        before = keys.get(key)
        twin_store(keys, key, entry, twin)
        twin_serial(keys[key], before, twin)
    elif kind == "touch":
        twin_touch(root, keys, args, effect[1])
    elif kind == "keep_id":
        # The call's arguments kept under the id its text answer announces (made up by the server).
        value = twin_made_number(answer, args)
        if value == None or keys.get(str(value), {}).get("made"):
            # None announced, or one the server made up before and still holds (a refusal that names the
            # record in the way): nothing made up. A record a call put under that id itself (an update of
            # an id the server had not made up yet) was the twin's guess, which the announcement overrides.
            return
        if value > twin.get("fresh", 0):
            twin["fresh"] = value
        stored = {name: v for name, v in args.items() if "/" not in name}
        twin_store(keys, str(value), {"by": tool, "args": stored, "made": True}, twin)
    elif kind == "merge":
        twin_merge(effect, tool, root, keys, args)
    elif kind == "append":
        twin_append(effect, tool, root, keys, args)
    elif kind == "substitute":
        twin_substitute(effect, tool, root, keys, args)
    elif kind == "move":
        source = twin_resolve(root, args.get(effect[1]))
        target = twin_resolve(root, args.get(effect[2]))
        if source == None or target == None:
            return
        for key in [k for k in keys if k == source or k.startswith(source + "/")]:
            keys[target + key[len(source):]] = keys.pop(key)
        if target in keys and source != target:
            # A rename is a write of what it moved (a document's next revision), not of what lies under it.
            keys[target] = dict(keys[target], w = keys[target].get("w", 1) + 1)
    elif kind == "drop":
        key = twin_key(root, args.get(effect[1]))
        if key == None:
            return
        for k in twin_dropped(keys, key):
            keys.pop(k)
    elif kind == "drop_matching":
        for k in twin_matching(effect[1], keys, args) or []:
            keys.pop(k)
    elif kind == "renumber":
        twin_renumber(effect[1], tool, keys)
    elif kind in ("put_each", "drop_each"):
        twin_apply_each(effect, tool, root, keys, args, twin)
    elif kind == "and":
        for each in effect[1:]:
            twin_apply(each, tool, root, keys, args, answer, twin)
    elif kind == "keep_children":
        twin_keep_children(effect, tool, root, keys, args, answer, twin)

def twin_renumber(base, tool, keys):
    # ["renumber", base]: every stored record keyed anew by its place among them (`base` the first's), as a
    # server that reads its records back from a file numbers them by line; a field of the record that showed
    # its old key shows the new one. This tool is their storer now: a record so renumbered is one the
    # recordings may show otherwise (`some_by`, `none_by`).
    stored = twin_stored(keys)
    entries = [keys.pop(k) for k in stored]
    for i in range(len(stored)):
        entry = {name: value for name, value in entries[i].items() if name != "made"}
        entry["by"] = tool
        key = str(base + i)
        record = entry.get("rec")
        if type(record) == "dict":
            entry["rec"] = {name: key if value == stored[i] else value for name, value in record.items()}
        keys[key] = entry

def twin_keep_children(effect, tool, root, keys, args, answer, twin):
    # Records nested in a record: each object of the answer's list `effect[1]` kept under its made-up id
    # (its field `effect[2]`), its other fields as what is stored, and beside them the key of its parent
    # (`effect[3]`: the answer's field of that name, else the argument), under that name. A child is read,
    # changed and listed as any stored record; its parent's key is one of its fields.
    listed = answer.get(effect[1]) if type(answer) == "dict" else None
    if type(listed) != "list":
        return
    parent = answer.get(effect[3]) if effect[3] in answer else args.get(effect[3])
    for item in listed:
        key = twin_key(root, item.get(effect[2])) if type(item) == "dict" else None
        if key == None:
            continue
        stored = {name: v for name, v in item.items() if name != effect[2]}
        if parent != None:
            stored[effect[3]] = parent
        twin_store(keys, key, {"by": tool, "args": stored, "rec": item}, twin)

def twin_merge(effect, tool, root, keys, args):
    # A stored record changed by a call (an update): the call's other arguments replace those fields, the
    # rest stay, and so do when it was stored, its row and whether its id was made up; the tool that changed
    # it last is who stored it (`present` asks about that: done, then approved). A key nothing stored stays
    # missing (a server's "not found").
    key = twin_key(root, args.get(effect[1]))
    if key == None or key not in keys or keys[key]["by"] == "_root":
        return
    entry = dict(keys[key])
    stored = dict(entry.get("args", {}))
    for name, value in args.items():
        if name != effect[1] and "/" not in name:
            stored[name] = value
    entry["args"] = stored
    entry["by"] = tool
    entry["w"] = entry.get("w", 1) + 1
    # A write: the reads counted since the last one start again (`twin_reads`).
    entry.pop("rw", None)
    keys[key] = entry

def twin_substitute(effect, tool, root, keys, args):
    # ["substitute", name, field, old, new]: the stored text in `field` of the record a key names, with the
    # text of argument `old` replaced by that of `new` everywhere (an edit of a record's data); a record
    # whose text does not hold it stays as it is, and so does a key nothing stored.
    key = twin_key(root, args.get(effect[1]))
    if key == None or key not in keys or keys[key]["by"] == "_root":
        return
    stored = keys[key].get("args", {}).get(effect[2])
    old, new = args.get(effect[3]), args.get(effect[4])
    if type(stored) != "string" or type(old) != "string" or type(new) != "string" or not old or old not in stored:
        return
    entry = dict(keys[key])
    entry["args"] = dict(entry.get("args", {}))
    entry["args"][effect[2]] = stored.replace(old, new)
    entry["w"] = entry.get("w", 1) + 1
    keys[key] = entry

def twin_append(effect, tool, root, keys, args):
    # ["append", name, field, joiner]: a stored text added to (a document appended to): the call's `field`
    # after the text stored in that field, `joiner` between them (none after an empty text); the call's other
    # arguments replace theirs, as a merge's do. A key nothing stored stays missing.
    key = twin_key(root, args.get(effect[1]))
    if key == None or key not in keys or keys[key]["by"] == "_root":
        return
    before = keys[key].get("args", {}).get(effect[2])
    twin_merge(effect, tool, root, keys, args)
    added = args.get(effect[2])
    if type(before) == "string" and type(added) == "string":
        keys[key]["args"][effect[2]] = before + effect[3] + added if before else added

# The numbers a placeholder may compute from the call's number arguments, as JavaScript computes them on
# doubles (`a / b`, `a % b`, `a ** b`, `Math.sqrt(a)`, `-a`, `Math.abs(a)`), written as `String(x)` writes them.
TWIN_ARITHMETIC = ("num", "sum", "difference", "product", "quotient", "remainder", "power", "root", "negation",
                   "absolute")

def twin_number(part, args):
    if part[0] == "num" and len(part) > 2:
        # ["num", name, default]: the argument, or the value its schema defaults to where the call gave none.
        if part[1] not in args:
            args = dict(args)
            args[part[1]] = part[2]
        part = part[:2]
    values = []
    for name in part[1:]:
        value = args.get(name)
        if type(value) not in ("int", "float") or (type(value) == "float" and not twin_finite(value)):
            return None
        values.append(twin_as_javascript(value))
    kind = part[0]
    if kind == "num":
        number = values[0]
    elif kind == "sum":
        number = values[0] + values[1]
    elif kind == "difference":
        number = values[0] - values[1]
    elif kind == "product":
        number = values[0] * values[1]
    elif kind == "quotient":
        number = twin_quotient(values[0], values[1])
    elif kind == "remainder":
        number = twin_remainder(values[0], values[1])
    elif kind == "power":
        number = twin_power(values[0], values[1])
    elif kind == "root":
        number = twin_root(values[0])
    elif kind == "negation":
        number = -values[0]
    else:
        number = abs(values[0])
    return None if number == None else twin_as_javascript(number)

def twin_as_javascript(value):
    if type(value) == "int" and (value > 9007199254740992 or value < -9007199254740992):
        return float(value)
    return value

def twin_finite(value):
    return value - value == 0.0

def twin_nan(value):
    # Starlark's NaN equals itself: it is told by its text.
    return type(value) == "float" and str(value).endswith("nan")

def twin_negative(value):
    # Whether a number is below zero or is the double -0 (whose sign a quotient by it keeps).
    return value < 0 or (value == 0 and type(value) == "float" and str(value).startswith("-"))

def twin_quotient(a, b):
    if twin_nan(a) or twin_nan(b):
        return float("nan")
    if b == 0:
        if a == 0:
            return float("nan")
        return float("-inf") if twin_negative(a) != twin_negative(b) else float("inf")
    return float(a) / float(b)

def twin_remainder(a, b):
    # JavaScript's `%` keeps the dividend's sign (Starlark's, the divisor's): the remainder of the magnitudes,
    # which is exact, given the dividend's sign.
    if b == 0:
        return float("nan")
    found = abs(a) % abs(b)
    return twin_signed_zero(-found, True) if twin_negative(a) else found

def twin_signed_zero(value, negative):
    # A double's zero keeps a sign (`-5 % 5` and `0 * -1` are -0, and `1 / -0` is -Infinity): a zero the
    # operation gives from operands of that sign is -0.0, whatever type Starlark's arithmetic left it.
    return -0.0 if value == 0 and negative else value

def twin_power(a, b):
    # `a ** b` for a whole exponent where the power is a double exactly, `a ** 0.5` the square root (fdlibm's
    # pow, which V8 runs, has both cases so); any other power of a positive number is declined (None). NaN
    # and the infinities as ECMAScript's Number::exponentiate gives them (`NaN ** 0` is 1).
    if twin_nan(b):
        return b
    if b == 0:
        return 1
    if twin_nan(a):
        return a
    if not twin_finite(b):
        size = abs(a)
        if size == 1:
            return float("nan")
        return float("inf") if (size > 1) == (b > 0) else 0
    if not twin_finite(a):
        odd = b == int(b) and int(b) % 2 != 0
        if a > 0:
            return a if b > 0 else 0
        if b > 0:
            return a if odd else -a
        return -0.0 if odd else 0
    if b != int(b):
        if a == 0:
            return 0 if b > 0 else float("inf")
        if a < 0:
            return float("nan")
        return twin_root(a) if b == 0.5 else None
    exponent = int(b)
    if exponent == 0:
        return 1
    odd = exponent % 2 == 1
    if a == 0:
        if exponent > 0:
            return -0.0 if odd and twin_negative(a) else 0
        return float("-inf") if odd and twin_negative(a) else float("inf")
    sign = -1 if a < 0 and odd else 1
    mantissa, shift = twin_dyadic(abs(a))
    if mantissa == 1 and shift == 0:
        return sign
    # |a| lies in [2^(size-1-shift), 2^(size-shift)): past these bounds the answer is surely Infinity or 0.
    size = twin_bits(mantissa)
    low, high = (size - 1 - shift) * exponent, (size - shift) * exponent
    if low > high:
        low, high = high, low
    if low > 1100:
        return sign * float("inf")
    if high < -1100:
        return sign * 0.0
    if exponent > 2200 or exponent < -2200:
        return None
    magnitude = exponent if exponent > 0 else -exponent
    top, base, left = 1, mantissa, magnitude
    for _ in range(64):
        if left == 0:
            break
        if left % 2 == 1:
            top *= base
        base *= base
        left //= 2
    scale = shift * magnitude
    if exponent > 0:
        found = twin_exactly(top, twin_two(scale))
    else:
        found = twin_exactly(twin_two(scale), top)
    return None if found == None else sign * found

def twin_exactly(top, bottom):
    # top / bottom where that is a double exactly, else None: V8's pow is not correctly rounded (10 ** -4 is
    # 0.00009999999999999999), but gives a power a double holds exactly.
    found = twin_rounded(top, bottom)
    if not twin_finite(found):
        return found  # past the largest double: Infinity, however it is rounded
    if found == 0:
        return None
    mantissa, shift = twin_dyadic(found)
    return found if mantissa * bottom == top * twin_two(shift) else None

def twin_root(a):
    # `Math.sqrt(a)`, correctly rounded: the integer square root of the exact value, scaled to 56 bits and
    # more, with a last bit set when it is inexact so that one rounding to a double is the right one. NaN and
    # Infinity are their own roots, as a zero is (-0 too).
    if a < 0:
        return float("nan")
    if a == 0 or twin_nan(a) or not twin_finite(a):
        return a
    mantissa, shift = twin_dyadic(a)
    if shift % 2 == 1:
        mantissa, shift = mantissa * 2, shift + 1
    extra = max(0, (113 - twin_bits(mantissa)) // 2 + 1)
    scaled = mantissa * twin_two(2 * extra)
    root = twin_isqrt(scaled)
    scale = shift // 2 + extra
    if root * root != scaled:
        root, scale = 2 * root + 1, scale + 1
    return twin_scaled(float(root), scale)

def twin_dyadic(value):
    # A positive number as [m, k], m an integer: the value is exactly m / 2^k.
    if type(value) == "int":
        return [value, 0]
    shift = 0
    for _ in range(1100):
        if value == float(int(value)):
            break
        value, shift = value * 2, shift + 1
    return [int(value), shift]

def twin_two(k):
    # 2^k, by products: `<<` on a small integer wraps around in this Starlark (`2 << 31` is 0).
    n = 1
    for _ in range(k // 30):
        n *= 1073741824
    for _ in range(k % 30):
        n *= 2
    return n

def twin_bits(n):
    # How many bits the positive integer n has.
    digits = "%x" % n
    first = int(digits[0], 16)
    return 4 * (len(digits) - 1) + (4 if first >= 8 else 3 if first >= 4 else 2 if first >= 2 else 1)

def twin_isqrt(n):
    guess = twin_two((twin_bits(n) + 1) // 2)
    for _ in range(10000):
        better = (guess + n // guess) // 2
        if better >= guess:
            break
        guess = better
    return guess

def twin_rounded(top, bottom):
    # The double nearest top / bottom (positive integers): a quotient of 56 bits and more, its last bit set
    # when the division leaves a remainder, rounds to a double once, to the right one.
    shift = 57 - (twin_bits(top) - twin_bits(bottom))
    if shift >= 0:
        top *= twin_two(shift)
    else:
        bottom *= twin_two(-shift)
    quotient, left = top // bottom, top % bottom
    if left != 0:
        quotient, shift = 2 * quotient + 1, shift + 1
    return twin_scaled(float(quotient), shift)

def twin_scaled(value, shift):
    # value / 2^shift, in steps a double holds (exact while the answer is neither subnormal nor too large).
    for _ in range(4):
        step = max(-1000, min(1000, shift))
        if step == 0:
            break
        value = value / float(twin_two(step)) if step > 0 else value * float(twin_two(-step))
        shift -= step
    return value

def twin_number_text(value):
    if type(value) == "int":
        return str(value)
    if twin_nan(value):
        return "NaN"
    if not twin_finite(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    text = json.encode(abs(value))
    mantissa, exponent = (text.split("e") + ["0"])[:2]
    parts = (mantissa.split(".") + [""])[:2]
    whole, fraction = parts[0], parts[1]
    raw = whole + fraction
    point = len(whole) + int(exponent) - (len(raw) - len(raw.lstrip("0")))
    digits = raw.strip("0")
    k, n = len(digits), point
    if k <= n and n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n and n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n and n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return ("-" if value < 0 else "") + text

def twin_view(args):
    viewed = dict(args)
    for name, value in args.items():
        if type(value) == "list" and len(value) == 1 and type(value[0]) == "string":
            viewed[name + "/0"] = value[0]
    return viewed

def twin_guard(plan, tool, state, args):
    root = plan["root"]
    twin = state.setdefault("_twin", {})
    keys = twin.setdefault("keys", {})
    args = twin_paired(twin_view(args), plan.get("pairs"), plan.get("defaults", {}))
    for rule in plan["rules"]:
        if not all([twin_holds(atom, root, keys, args) == True for atom in rule["when"]]):
            continue
        rendered = twin_render(rule["answer"], root, keys, args, twin)
        if rendered == None:
            continue
        value = twin_plain(rendered)
        if rule["error"]:
            return error(value)
        twin_apply(rule.get("effect"), tool, root, keys, args, value, twin)
        twin_counted(plan.get("counters"), value, twin, args)
        twin_numbered(plan.get("numbered"), value, twin, args)
        return twin_documents(value, plan.get("documents"))
    return decline("no rule of the recordings holds for this call")

def twin_handed_on(effects, call, twin):
    # A success the twin handed on (to the replay, the model) changes its world as the tool's own successes
    # do: its effect applied to the answer it got, as inference played every recorded success.
    plan = effects.get(call["tool"])
    if plan == None:
        return
    keys = twin.setdefault("keys", {})
    given = call.get("arguments") or {}
    if plan.get("wrapper"):
        given = twin_unwrapped(plan["wrapper"], given)
    args = twin_paired(twin_view(given), plan.get("pairs"), plan.get("defaults", {}))
    twin_apply(plan["effect"], call["tool"], plan["root"], keys, args, call["result"], twin)

def twin_documents(value, documents):
    # The fields a server writes a JSON document into as text (`json_texts.py`): learned and kept in the
    # world as the values they write, answered as the server's `json.dumps` writes them.
    if not documents or type(value) != "dict":
        return value
    # A document whose keys keep the server's order carries the orders learned for them (`key_orders`).
    written = dict(value)
    for entry in documents:
        name = entry[0]
        if type(written.get(name)) in ("dict", "list"):
            written[name] = json_text(written[name], entry[1], entry[2], entry[3], entry[4] if len(entry) > 4 else None)
    return written

def twin_effect(effect, state, args):
    kind = effect["kind"]
    if kind == "delete_keys":
        names = [n for n in args[effect["field"]] if type(n) == "string"]
        for collection in list(state.keys()):
            if collection == "_twin":
                continue
            if collection == effect["main"]:
                state[collection] = [r for r in state[collection] if r.get(effect["key"]) not in names]
            else:
                refs = effect["refs"].get(collection, [])
                state[collection] = [r for r in state[collection] if not any([r.get(f) in names for f in refs])]
    elif kind == "delete_records":
        gone = args[effect["field"]]
        state[effect["collection"]] = [r for r in state.get(effect["collection"], []) if r not in gone]
    elif kind == "nested_remove":
        for item in args[effect["field"]]:
            record = twin_find(state, effect["main"], effect["key"], item[effect["ref"]])
            if record != None:
                drop = item[effect["values"]]
                record[effect["target"]] = [v for v in record[effect["target"]] if v not in drop]

def twin_same(record, item, key):
    if not key:
        return record == item
    return all([record.get(f) == item.get(f) for f in key])

def twin_create(plan, state, args):
    records = state.setdefault(plan["collection"], [])
    added = []
    for item in args[plan["field"]]:
        if not any([twin_same(r, item, plan["key"]) for r in records]):
            records.append(item)
            added.append(item)
    return {plan["wrap"]: added} if plan["wrap"] else added

def twin_find(state, collection, key, value):
    for r in state.get(collection, []):
        if r.get(key) == value:
            return r
    return None

def twin_nested_add(plan, state, args):
    results = []
    for item in args[plan["field"]]:
        name = item[plan["ref"]]
        record = twin_find(state, plan["main"], plan["key"], name)
        if record == None:
            return error(plan["error"].replace("{}", str(name)))
        target = record.setdefault(plan["target"], [])
        new = [v for v in item[plan["values"]] if v not in target]
        target.extend(new)
        results.append({plan["ref"]: name, plan["added"]: new})
    return {plan["wrap"]: results} if plan["wrap"] else results

def twin_nodes(value):
    # Every value inside `value`, itself first, depth first (Starlark has no recursion).
    found = []
    stack = [value]
    for _ in range(100000):
        if not stack:
            break
        item = stack.pop()
        found.append(item)
        if type(item) == "list":
            stack.extend(item)
        elif type(item) == "dict":
            stack.extend(list(item.values()))
    return found

def twin_texts(value):
    return [item for item in twin_nodes(value) if type(item) == "string"]

def twin_filter(plan, state, args):
    given = args[plan["field"]]
    records = state.get(plan["main"], [])
    if plan["mode"] == "names":
        matched = [r for r in records if r.get(plan["key"]) in given]
    else:
        query = given.lower()
        matched = [r for r in records if any([query in t.lower() for t in twin_texts(r)])]
    keys = [r.get(plan["key"]) for r in matched]
    answer = {plan["main_key"]: matched}
    for answer_key, other in plan["others"].items():
        fields = other["refs"]
        found = []
        for r in state.get(other["collection"], []):
            links = [r.get(f) in keys for f in fields]
            if (other["link"] == "all" and all(links)) or (other["link"] != "all" and any(links)):
                found.append(r)
        answer[answer_key] = found
    return answer

def twin_template(plan, tool, state, args):
    twin = state.setdefault("_twin", {})
    counts = twin.setdefault("calls", {})
    counts[tool] = counts.get(tool, 0) + 1
    seen = twin.setdefault("seen", {})
    for expression in plan["fields"].values():
        if expression[0] in ("seen", "keys") and expression[1] in args and (
            len(expression) < 3 or (args.get(expression[1]) and args.get(expression[2]))
        ):
            values = seen.setdefault(tool + "/" + expression[1], [])
            if args[expression[1]] not in values:
                values.append(args[expression[1]])
    answer = {}
    for field, expression in plan["fields"].items():
        kind = expression[0]
        if kind == "const":
            answer[field] = expression[1]
        elif kind == "arg":
            answer[field] = args[expression[1]]
        elif kind == "max":
            answer[field] = max(args[expression[1]], args[expression[2]])
        elif kind == "count":
            answer[field] = counts[tool]
        elif kind == "seen":
            answer[field] = list(seen.get(tool + "/" + expression[1], []))
        elif kind == "keys":
            answer[field] = twin_key_order(seen.get(tool + "/" + expression[1], []))
    return answer

def twin_key_order(values):
    indices = [v for v in values if twin_array_index(v)]
    return sorted(indices, key = int) + [v for v in values if not twin_array_index(v)]

def twin_array_index(value):
    if type(value) != "string" or not value.isdigit() or len(value) > 10:
        return False
    return (value == "0" or not value.startswith("0")) and int(value) < 4294967295
"""
# Expressions in a string argument, a section of their own.
LIBRARY += expression.EXPRESSION
# Exact arithmetic, the expressions' exact dialect, a section of its own.
LIBRARY += exact.EXACT
# Functions of a string and of a number, a section of their own.
LIBRARY += functions.FUNCTIONS
# Dates over a calendar of named days, a section of its own.
LIBRARY += dates.DATES
# Operations on texts and sequences, a section of their own.
LIBRARY += strings.STRINGS
# A text composed from a record's fields, a section of its own.
LIBRARY += composed.COMPOSED
# An argument's form as a condition, a section of its own.
LIBRARY += forms.FORMS
# Conditions on the items of an array argument, a section of their own.
LIBRARY += items.ITEMS
# Lists computed over an array argument's items grouped by a field, a section of their own.
LIBRARY += grouped.GROUPED
# A call over a list of items answered as its items one by one, a section of its own.
LIBRARY += batches.BATCHES
# The fields of an object a tool's arguments come wrapped in, read as its arguments, a section of its own.
LIBRARY += wrapped.WRAPPED


# Entry points through which inference evaluates the library above (`TwinLibrary`): whole batches of calls
# at once, each a function of the rules runtime taking its payload as arguments and answering data.
BRIDGE = """
def twin_bridge_worlds(state, args):
    root = args["root"]
    worlds = []
    for session in args["sessions"]:
        twin = {"keys": dict(args["initial"])}
        before = []
        for call in session:
            before.append(json.decode(json.encode(twin)))
            effect = args["effects"].get(call["tool"])
            if call["ok"] and effect != None:
                twin_apply(effect, call["tool"], root, twin["keys"], call["args"], call["answer"], twin)
            if call["ok"]:
                twin_counted(args.get("counters"), call["answer"], twin, call["args"])
                twin_numbered(args.get("numbered"), call["answer"], twin, call["args"])
        worlds.append(before)
    return worlds

def twin_bridge_pieces(state, args):
    root = args["root"]
    out = []
    for case in args["cases"]:
        keys, call = case["world"]["keys"], case["args"]
        pieces = []
        for name in args["names"]:
            value = call.get(name)
            if type(value) != "string":
                continue
            if root != None:
                pieces.append([twin_resolve(root, value), ["key", name]])
            pieces.append([value, ["arg", name]])
        # A list or object argument the answer shows as JSON text (tags kept as `json.dumps(tags)`): not an
        # empty one, whose `[]` is as often any empty listing's.
        for name in args.get("fields", []):
            value = call.get(name)
            if type(value) not in ("list", "dict") or not value:
                continue
            written = {}
            for style in ("python", "compact"):
                text = twin_dumps(value, style)
                if text not in written:
                    written[text] = True
                    pieces.append([text, ["dumps", name, style]])
        for name in args["names"] + args["numbers"]:
            entry = twin_entry(root, keys, call, name)
            if entry == None:
                continue
            stored = dict(entry.get("args", {}))
            if type(entry.get("rec")) == "dict":
                # The record's fields its storer did not give, as `twin_part` reads them.
                stored.update({f: v for f, v in entry["rec"].items() if f not in stored and type(v) == "string"})
            for field, value in stored.items():
                text = twin_text(value)
                if text != None and type(value) == "string":
                    pieces.append([text, ["stored", name, field]])
                    if twin_json_text(text) != text:
                        pieces.append([twin_json_text(text), ["stored", name, field, "json"]])
                elif twin_repr(value) != None:
                    pieces.append([twin_repr(value), ["stored", name, field, "repr"]])
        numbers = []
        given = [n for n in args["numbers"] if type(call.get(n)) in ("int", "float")]
        for name in given:
            numbers.append(["num", name])
        # A number argument the call left out, as the value its schema defaults to, which the server used (an
        # answer that says the time to live it kept: "for 300s"); a given value stands for it (`twin_number`).
        for name, default in args.get("number_defaults", {}).items():
            if name not in call:
                numbers.append(["num", name, default])
        for first in given:
            for second in given:
                if first != second:
                    numbers.append(["difference", first, second])
                    if first < second:
                        numbers.append(["sum", first, second])
                        numbers.append(["product", first, second])
        searches = twin_contains_preds([n for n in args["names"] if type(call.get(n)) == "string"], keys)
        for pred in args["preds"] + twin_counted_preds(searches, case.get("listed")):
            numbers.append(["count", pred])
        # The next made-up id, as a counter and as one past the largest stored (`twin_fresh`).
        numbers += [["fresh"], ["fresh", "stored"]]
        # The names of the arguments the call gave (but the number naming the record), as an update lists
        # the fields it changed: two of them at least, as one name alone is as often a word of the text
        # ("expression rejected: ...").
        for skip in [None] + given:
            order = [name for name in args.get("fields", []) if name != skip]
            if len([name for name in order if name in call]) < 2:
                continue
            for sep in args["separators"]:
                text = twin_given_names(["given_names", order, sep], call)
                if text != None and not text.isdigit():
                    numbers.append(["given_names", order, sep])
        # After the plainer readings: a text two of them write is taken as the first (the 4 of 2 + 2 is a sum).
        for first in given:
            numbers += [["root", first], ["negation", first], ["absolute", first]]
            for second in given:
                if first != second:
                    numbers += [["quotient", first, second], ["remainder", first, second], ["power", first, second]]
        seen = {}
        for part in numbers:
            text = twin_part(part, root, keys, call, case["world"])
            if text != None and text not in seen:
                seen[text] = True
                pieces.append([text, part])
        # The revision of the record a key names, as a read shows it and as this call makes it: kept where an
        # earlier number writes the same text (a count of 3 notes, a document's third revision), since only
        # another call tells them apart (`keyed_world` draws the template both ways). From 2 on: a first
        # revision's 1 is as often a constant, or a count, and a later write's template renders it too.
        for name in args["names"] + args["numbers"]:
            for part in (["writes", name], ["writes", name, "next"]):
                number = twin_writes(part, root, keys, call)
                if number != None and number >= 2:
                    pieces.append([str(number), part])
        for pred in args["preds"]:
            found = twin_picked(pred, root, keys, call)
            if not found:
                continue
            for order in ("added", "sorted"):
                for sep in args["separators"]:
                    labels = [twin_label(k) for k in twin_ordered(found, order)]
                    pieces.append([sep.join(labels), ["list", pred, order, sep]])
        records = {}
        for name in args["names"] + args["numbers"]:
            entry = twin_entry(root, keys, call, name)
            if entry != None and type(entry.get("rec")) == "dict":
                records[name] = entry["rec"]
        lists = {order: twin_records(keys, order) for order in ("added", "sorted")}
        listings = []
        if case.get("listed"):
            unders = [["under", n] for n in args["names"] if type(call.get(n)) == "string"]
            listings = twin_listings(args["preds"] + searches + unders, root, keys, call)
        out.append({
            "pieces": pieces,
            "records": records,
            "lists": lists,
            "tallies": twin_tallies(keys),
            "labels": {
                order: twin_key_list({"$keys": ["all"], "order": order}, root, keys, call)
                for order in ("added", "sorted")
            },
            "listings": listings,
            "fresh": case["world"].get("fresh", 0) + 1,
            "fresh_stored": twin_fresh("stored", keys, case["world"]),
        })
    return out

def twin_contains_preds(names, keys):
    # What a search may match: a string argument inside the key, or inside the key or one stored text field
    # (or list of texts), or inside any of them (a search across a record's every field); and, for a filter,
    # a string argument that is one of the items of a stored list of texts (["has", name, field]: a tag).
    fields = {}
    lists = {}
    for k in twin_stored(keys):
        for name, value in twin_fields(k, keys[k]).items():
            if name != "$key" and type(value) == "string":
                fields[name] = True
            elif type(value) == "list" and value and all([type(item) == "string" for item in value]):
                fields[name] = True
                lists[name] = True
    sets = [["$key"]] + [["$key", name] for name in sorted(fields.keys())]
    if len(fields) > 1:
        # Every field the record holds, whichever this world's records happen to hold (`twin_containing`).
        sets.append(["*"])
    plain = [name for name in names if "/" not in name]
    found = [["contains", name, chosen] for name in plain for chosen in sets]
    # A full-text search: every word of the argument a whole word of some field, ignoring case.
    found += [["words", name, chosen] for name in plain for chosen in sets[1:]]
    return found + [["has", name, field] for name in plain for field in sorted(lists.keys())]

def twin_counted_preds(searches, listed):
    # The searches whose counts an answer may show. The wider ones (every field, whole words) only where the
    # answer lists records as text, as the listing they count: an answer of JSON lists its records as rows,
    # filtered by `filtered`'s conditions, and a count by such a search there is one more reading of a small
    # number (a priority's `A` is a whole word of one record), whose conditions (`["none", pred]`) fit the
    # recorded calls in worlds that keep what a tool should drop.
    if listed:
        return searches
    return [pred for pred in searches if pred[0] != "words" and pred[2] != ["*"]]

def twin_listings(preds, root, keys, call):
    # The records the predicates pick, in each order, as the fields a listing line may show: each list of
    # records once, with the (predicate, order) pairs that pick it.
    out = []
    at = {}
    for pred in preds:
        found = twin_picked(pred, root, keys, call)
        if not found:
            continue
        for order in ("added", "sorted", "reverse") if len(found) > 1 else ("added",):
            ordered = twin_ordered(found, order)
            seen = "\x00".join(ordered)
            if seen not in at:
                at[seen] = len(out)
                out.append([[], [twin_fields(k, keys[k]) for k in ordered]])
            out[at[seen]][0].append([pred, order])
    return out

def twin_bridge_items(state, args):
    # What a call's answer may show beside `twin_bridge_pieces`: the next id under each counted prefix,
    # lengths from the call, and, for each array argument, the pieces each of its items gives.
    out = []
    for case in args["cases"]:
        call, twin = case["args"], case["world"]
        pieces = twin_item_pieces(args, call, twin, args["names"], args["arrays"])
        for name in args["names"]:
            entry = twin_entry(args["root"], twin["keys"], call, name)
            if entry == None:
                continue
            parts = [["order", name]] + [["stored_size", name, f] for f in entry.get("args", {})]
            # The length a stored text will have once the call adds a text argument to it, joined by nothing,
            # a line break or a blank line (`append`): a server that answers a document's new length.
            parts += [
                ["stored_size", name, f, added, joiner]
                for f in sorted(entry.get("args", {}).keys())
                if type(entry["args"][f]) == "string"
                for added in sorted(call.keys())
                if added != name and type(call[added]) == "string"
                for joiner in (0, 1, 2)
            ]
            for part in parts:
                number = twin_stored_number(part, args["root"], twin["keys"], call)
                if number != None:
                    pieces.append([str(number), part])
            for part in (["serial", name], ["serial", name, "every"], ["reads", name], ["reads", name, "write"]):
                number = twin_record_number(part, args["root"], twin["keys"], call)
                if number != None:
                    pieces.append([str(number), part])
        items = {}
        for name in args["arrays"]:
            if type(call.get(name)) != "list":
                continue
            items[name] = []
            for index in range(len(call[name])):
                viewed = twin_item(call, name, index)
                own = [n for n in viewed if n.startswith(name + "/*")]
                found = twin_item_pieces(args, viewed, twin, own, {})
                for n in own:
                    # The fields stored under the key the item names (a view of several records).
                    if not n.endswith("/*") or type(viewed.get(n)) != "string":
                        continue
                    entry = twin_entry(args["root"], twin["keys"], viewed, n)
                    if entry != None:
                        for f in sorted(entry.get("args", {}).keys()) + sorted(twin_record_fields(entry)):
                            text = twin_part(["stored", n, f], args["root"], twin["keys"], viewed, twin)
                            if text != None and len(text) > 0:
                                found.append([text, ["stored", n, f]])
                held = [twin_holds(["present", n, None], args["root"], twin["keys"], viewed) for n in own]
                present = [n for n, hold in zip(own, held) if hold == True]
                # Its place first: of the numbers an item shows, the likeliest to be meant.
                items[name].append({"pieces": [[str(index), ["index"]]] + found, "present": present})
        entries = {}
        for name in args["names"] + args["numbers"]:
            entry = twin_entry(args["root"], twin["keys"], call, name)
            if entry != None:
                stored = entry.get("args", {})
                shown = dict(stored)
                if type(entry.get("rec")) == "dict":
                    # The record's fields its storer did not give (a queue, a creation time), as `$stored`
                    # reads them; `fields` stays what the call gave. Not one that shows the key itself (a
                    # task's `id`, stored under `taskId`): the key writes that, and a later write keeps it.
                    shown.update({
                        f: v
                        for f, v in entry["rec"].items()
                        if f not in stored and f != name and v != call.get(name)
                    })
                entries[name] = {"by": entry["by"], "fields": sorted(stored.keys()), "args": shown}
        out.append({"pieces": pieces, "items": items, "entries": entries})
    return out

def twin_item_pieces(args, call, twin, names, arrays):
    pieces = []
    for prefix in args["prefixes"]:
        width = args.get("widths", {}).get(prefix)
        part = ["next", prefix, width] if width else ["next", prefix]
        pieces.append([twin_part(part, None, {}, call, twin), part])
    for name in names:
        for separator, _ in args.get("nested", []):
            text = twin_outer(["outer", name, separator], call)
            if text != None:
                pieces.append([text, ["outer", name, separator]])
        # Only under a record the argument names: a title is no parent.
        if type(call.get(name)) != "string" or call[name] not in twin.get("keys", {}):
            continue
        for separator, width in args.get("nested", []):
            part = ["next_under", name, separator, width]
            text = twin_next_under(part, twin.get("keys", {}), call)
            if text != None:
                pieces.append([text, part])
    sizes = []
    for name in names:
        value = call.get(name)
        if type(value) == "string":
            pieces.append([value, ["arg", name]])
            sizes.append(["size", name])
            sizes.append(["size", name, "json"])
    for name, fields in arrays.items():
        sizes.append(["size", name])
        for field in fields:
            sizes.append(["total_size", name, field])
            sizes.append(["mean_size", name, field])
    for part in sizes:
        number = twin_size(part, call)
        if number != None:
            pieces.append([str(number), part])
    return pieces

def twin_bridge_table(state, args):
    root = args["root"]
    out = []
    for case in args["cases"]:
        keys, call, twin = case["world"]["keys"], case["args"], case["world"]
        holds = [twin_holds(atom, root, keys, call) == True for atom in args["atoms"]]
        renders = []
        for template in args["templates"]:
            rendered = twin_render(template, root, keys, call, twin)
            renders.append(None if rendered == None else [twin_plain(rendered)])
        out.append({"holds": holds, "renders": renders})
    return out

def twin_bridge_rows(state, args):
    # For each case, the records each (predicate, order) picks, as their fields: what a JSON listing of
    # stored records may show.
    root = args["root"]
    out = []
    for case in args["cases"]:
        keys, call = case["world"]["keys"], case["args"]
        preds = [["is", n] for n in args["names"] if type(call.get(n)) == "string"] + args["preds"]
        found = []
        for pred in preds:
            picked = twin_row_keys(pred, root, keys, call)
            if not picked:
                continue
            for order in ("added", "latest", "sorted", "reverse", "latest_reverse"):
                ordered = twin_row_order(picked, keys, order)
                found.append([pred, order, [twin_row_fields(k, keys[k]) for k in ordered]])
        out.append(found)
    return out

def twin_bridge_shown(state, args):
    # For each case, every stored record as a listing of `template` shows it: [key, object], in stored order.
    root = args["root"]
    return [twin_shown_rows(args["template"], root, c["world"]["keys"], c["args"]) or [] for c in args["cases"]]

def twin_bridge_kept(state, args):
    # For each case, whether the filters `where` keep each of its rows (`twin_kept`).
    return [[twin_kept(args["where"], row, c["args"]) for row in c["rows"]] for c in args["cases"]]

def twin_bridge_guard(state, args):
    world = args["state"]
    answer = twin_guard(args["plan"], args["tool"], world, args["args"])
    return {"answer": answer, "state": world}
"""
_BRIDGE_TOOLS = (
    "twin_bridge_worlds",
    "twin_bridge_pieces",
    "twin_bridge_items",
    "twin_bridge_table",
    "twin_bridge_rows",
    "twin_bridge_shown",
    "twin_bridge_kept",
    "twin_bridge_guard",
    *expression.BRIDGE_TOOLS,
    *functions.BRIDGE_TOOLS,
    *forms.BRIDGE_TOOLS,
    *dates.BRIDGE_TOOLS,
    *strings.BRIDGE_TOOLS,
)
# A batch is the whole of the recordings: far past what one call of a served twin may take.
_BRIDGE_LIMITS = Limits(max_steps=10**12, timeout_s=600.0, max_state_bytes=1 << 30)


class TwinLibrary:
    """The library, compiled once, as inference calls it: the guards' conditions, templates and effects
    are evaluated here by the very Starlark the twin ships, never by a Python copy of it."""

    def __init__(self) -> None:
        self._program = compile_program(
            LIBRARY + BRIDGE + expression.BRIDGE + functions.BRIDGE + forms.BRIDGE + dates.BRIDGE + strings.BRIDGE,
            "<twin library>",
            _BRIDGE_TOOLS,
        )

    def call(self, function: str, payload: dict[str, Any]) -> Any:
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool=function)
        return run_tool(self._program, function, {}, payload, context, _BRIDGE_LIMITS).result

    def guard(
        self, plan: dict[str, Any], tool: str, state: dict[str, Any], args: dict[str, Any]
    ) -> tuple[tuple[Any, bool] | None, dict[str, Any]]:
        """One call answered by a guard plan: (answer, is_error) or None (declined), and the state after."""
        found = self.call("twin_bridge_guard", {"plan": plan, "tool": tool, "state": state, "args": args})
        answer = found["answer"]
        if isinstance(answer, dict) and len(answer) == 1 and "$decline" in answer:
            return None, state
        if isinstance(answer, dict) and len(answer) == 1 and "$error" in answer:
            return (answer["$error"], True), state
        return (answer, False), found["state"]


def program_text(plans: dict[str, dict[str, Any]]) -> str:
    """The library and one function per tool of `plans`, each calling it with its plan; and, where the plans
    count ids under prefixes, `sim_mcp_handed_on`, which counts those a handed-on call's answer shows."""
    parts = [SECTION, LIBRARY.strip(), ""]
    for tool, plan in sorted(plans.items()):
        batch = plan.get("batch")
        literal = starlark_literal({name: value for name, value in plan.items() if name not in ("batch", "wrapper")})
        # A tool whose arguments come wrapped in one object (`wrapped.py`) is answered on that object's fields.
        unwrap = [f"    args = twin_unwrapped({json.dumps(plan['wrapper'])}, args)"] if plan.get("wrapper") else []
        if batch is None:
            parts += [
                f"# --- compiled: {tool} ---",
                f"def {function_name(tool)}(state, args):",
                *unwrap,
                f"    return twin_run({literal}, {json.dumps(tool)}, state, args)",
                "",
            ]
            continue
        # A batch tool (`batches.py`): its plan answers one item's call; the tool runs it on each item.
        one = f"{function_name(tool)}__one_item"
        parts += [
            f"# --- compiled: {tool}, a batch ---",
            f"def {function_name(tool)}(state, args):",
            *unwrap,
            f"    return twin_batch({starlark_literal(batch)}, state, args, {one})",
            "",
            f"def {one}(state, args):",
            f"    return twin_run({literal}, {json.dumps(tool)}, state, args)",
            "",
        ]
    prefixes = sorted({prefix for plan in plans.values() for prefix in plan.get("counters") or []})
    numbered: list[Any] = next((plan["numbered"] for plan in plans.values() if plan.get("numbered")), [])
    effects = _handed_on_effects(plans)
    if prefixes or numbered or effects:
        # A call handed on (to the replay, the model) may store, change or drop records, make up ids under
        # these prefixes, or number records, too: the twin's world takes what its answer shows as its own
        # answers' do (`twin_handed_on`), and its next id must be past them (`twin_next`, `twin_fresh`).
        parts += [
            "# --- what a handed-on call's answer shows ---",
            f"def {HANDED_ON}(state, call):",
            '    twin = state.setdefault("_twin", {})',
            f"    twin_handed_on({starlark_literal(effects)}, call, twin)",
            f'    twin_counted({starlark_literal(prefixes)}, call["result"], twin, call.get("arguments"))',
            f'    twin_numbered({starlark_literal(numbered)}, call["result"], twin, call.get("arguments"))',
            "",
        ]
    return "\n".join(parts) + "\n"


def _handed_on_effects(plans: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """By tool, the effect a guard plan's success has and what it needs to apply it (`twin_handed_on`): inference
    learned every tool's rules in worlds where each recorded success had it, those its rules decline too. A
    batch's effect is its items', and a plan writing documents as text would first have to read them back:
    their handed-on calls change nothing, as before."""
    return {
        tool: {
            "effect": plan["effect"],
            "root": plan.get("root"),
            "pairs": plan.get("pairs"),
            "defaults": plan.get("defaults", {}),
            "wrapper": plan.get("wrapper"),
        }
        for tool, plan in plans.items()
        if plan.get("family") == "guard" and plan.get("effect") and not plan.get("batch") and not plan.get("documents")
    }


def starlark_literal(value: Any) -> str:
    """`value` (JSON) written as a Starlark expression."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(starlark_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (
            f"{json.dumps(str(key), ensure_ascii=False)}: {starlark_literal(item)}"
            for key, item in sorted(value.items())
        )
        return "{" + ", ".join(items) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")
