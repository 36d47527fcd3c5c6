"""The keyed world of a twin, learned from recordings: rules that answer what the recordings show (an error
whose text is a template of the call, a success that stores an argument's value or a record under a key,
reads it back, lists what is stored, counts what a call found) under a condition the recordings bear out,
and decline the rest, which the replay of the recordings or the model then answers ("decline").

It is learned as a register automaton is: the world is a map of keys (values the calls gave, compared for
equality) to what was stored under them, and fresh values stand for the ids a server makes up. The
learner searches a small language of operations on that world, pruned by the recorded examples (as
PROSE/FlashFill do), and mines the conditions under which each answer holds. Every rule is evaluated by
the Starlark the twin ships (`library.TwinLibrary`): there is no Python copy of the language.

**Keys.** An argument's type is what its schema allows but null, named as one type, a list of them, or
`anyOf`/`oneOf` options (an optional argument as a Python server declares it, `{"anyOf": [{"type": "string"},
{"type": "null"}]}`: a string), one reading for every learner (`argument_types`). A string argument whose value
the answers name is a key, and so is an integer one; so is an argument whose value names a key another tool
stored before most of the calls that give it, though no
answer writes it (a delete's `id` answered "Task deleted successfully", `_keyed`). When a tool
with no arguments answers one constant naming a root (`{tmp}`, where `sim-mcp record` wrote the server's
folder, or an absolute path), a string key is read as a path relative to that root, as a server with a
working folder resolves it (`name` is `{tmp}/name`; `.`, `..`, doubled and trailing `/` folded). The
world (`_twin.keys`) maps each stored key to the tool that stored it, its other arguments, the record an
answer showed for it (`rec`), when it was first stored (`n`) and its row's number (`at`); the root is in
it from the start, and `_twin.fresh` is the largest integer id made up so far, so that the next made-up id is
one more; an entry under an id the server made up is marked `made`, so that the next id may also be one past
the largest of those stored now (a server that numbers a record max(id) + 1: deleting the newest frees its
id). An id a call gave (an agent's mistaken `id: 99`) moves neither.
A server may hold records no call made (a board's `root` node, a default project, a `main` branch): a value
that the success of a call giving no text showed (a listing, `root [active]`) before any call of its session
gave it, and that a later call then gave, in two sessions at least (`_seeded`; not a value the server made
up, `task-1` or a UUID, a create's answer showing it first too, nor a number), is held from the start as the
root is (`initial_keys`, `GuardInference.seeds`): present, stored by no tool, in no listing. The rules are
learned with and without those keys, and kept with them where they answer as many recorded calls at least.
A key may be named by two string arguments together, a namespace and a name in it (a project and a file): a
plan's `pairs` joins their values by `PAIR` (U+001F: see `library.TWIN_PAIR`) as one more argument named
`first+second`, which every placeholder, condition and effect names as it names one argument; storing under
it stores the namespace too (listed by `all`, missing or present as one argument's key). Pairs are tried
only where one argument explains too little (`infer_guards`); a tool is asked about a pair (present, missing)
where its answers name both arguments, as keys or echoed whole (`$arg`: a delete answering the namespace and
name it was given), as `_effects` offers to store or drop under it. A namespace a call may leave out, an optional
string argument whose schema names a default (`namespace: "default"`), is that default in the joined key
(the plan's `defaults`, `_defaulted`), as the server reads it: a name stored without one is the one read
back without one, and the argument with a default is the namespace, whatever the schema's order.

**Templates.** An answer is a JSON value whose strings are literal text and placeholders: an argument as given
(`["arg", name]`) or as a key (`["key", name]`); a number from the call (an argument, or its schema's default where
the call left it out, `["num", name, default]`, its square root, negation or
absolute value, or the sum, difference, product, quotient, remainder or power of two), as JavaScript computes it
on doubles and `String(x)` writes it (`Infinity`, `NaN`; a power only where it is a double exactly), written
whatever its length where it stands whole in the text; a value stored under the key an argument names (`["stored",
name, field]`: get after set; a field the storing call did not give, from the record kept), or the JSON document a
stored text writes (`{"$parsed": [name, field]}`, `_parsed_documents`: a value given as JSON text, answered
re-written); how many stored keys a predicate picks (`["count", pred]`: all, or those starting with an argument, or
those joined under the namespace an argument names, `["in", name]`, or those one tool stored, `["by", tool]`) and
those keys as a JSON array (`{"$keys": pred, "order": order}`, `_listed_keys`) or joined by
a separator, in the order they were stored or sorted (`["list", pred, order, sep]`; a joined key as its second
part: a project's files, not its project); those records written as text, a line (or block) each from a template
of the record's fields (`["lines", pred, order, line, sep]`, drawn by `listing`: a markdown table, a bullet list,
a status shown as a mark, `~`, a description's presence as one, `$any`; a day alone in a line the twin's today; also
of the records no other is counted under, `["unnested", "t"]`; a block of several lines with the record's place in
the listing, `$i`, its clock as stored, `["made_up", "date", text]`, compared by form, a list of texts joined by
`, ` and lines shown only where the record holds a field, `["when", name, parts]`),
a predicate also picking the records with an argument inside their key or a field (`contains`; `["contains", name,
["*"]]` any field the record holds, an item of a list of texts too; `words`, each word of it a whole word), or whose
stored list of texts holds it as an item (`["has", name, field]`: a tag) and an order also newest first (`reverse`);
the next made-up id (`["fresh"]`, or `["fresh", "stored"]` one past the largest made-up id stored now; only for a tool
whose effect keeps what it made up); the next id counted under a prefix (`["next",
"task-"]`: one past the largest seen under it, `_twin.counters`, in the twin's answers and in those of the calls
it handed on, `sim_mcp_handed_on`, but for an id the call gave; `["next", "TASK-", 3]` padded with zeros to the
width every id under the prefix shows, `_counted_widths`; a prefix may be letters alone before a padded counter,
`s01`); the next id counted under the record an argument names (`["next_under", "parent", "t", 2]`: `s02t01`, a
subtask of `s02`, one past the largest counter stored under it so, `_nested_counters`) and the id an id is counted
under (`["outer", name, "t"]`: `s12` of `s12t03`); a length from the call (`["size", name]`; `["size", name,
"json"]`, the items of the JSON array a text writes; `["total_size", array, field]`, `["mean_size", array,
field]`, `["stored_size", name, field]`) or when a key was stored (`["order", name]`); a document's revision, the
writes of the record a key names (`["writes", name]`, `w` in its entry: each
effect that stores, changes, appends to or moves it counts one), or the one this call makes (`["writes", name,
"next"]`: 1 where nothing is stored), drawn both ways where another number writes the same text; what the store
keeps with a record beside its fields: its id counted across the whole store, every namespace, as a table's
AUTOINCREMENT counts it (`["serial", name]`: one past every record stored before, a dropped one's too; `["serial",
name, "every"]`: one past every store, a store of a record already there using one up, as an upsert does; a record
stored again keeps its id), and how often it was read (`["reads", name]`, kept when it is stored again; `["reads",
name, "write"]`, those since its last write), both also as a record's fields in a listing (`$s`, `$se`, `$r`,
`$rw`), drawn once more before any other number of the same text and from 0 on (a first read's answer shows 0),
that template coming after every other (of two answering the same calls the first is kept); a
stored text as a JSON string writes it, inside its quotes (`["stored", name, field, "json"]`: a record answered as
JSON in a text); a stored list of texts as Python writes it (`["stored", name, field, "repr"]`: `tags=['docs',
'urgent']`); a list or object argument as JSON text (`["dumps", name, style]`, Python's `json.dumps` or the
compact `JSON.stringify`: a note's tags kept as the text `["docs", "urgent"]` in a record answered as JSON text);
the names of the arguments the call gave, in its schema's order but the number naming the record, joined
(`["given_names", order, sep]`: an update's "fields: description, data"). A JSON number may be such a
number (`{"$number": part}`), a JSON list one answer per item of an array argument
(`{"$each": array, "item": template, "cases": [[when, template]]}`; in a text, one line or block per item,
`["each_line", array, parts, separator]`, a block's line of a stored field left out where the record lacks it,
`["opt", parts]`, as a text's clause of an optional argument or a stored field is, `_optional_clauses`: the
item's fields as `array/*/field`, its place as `["index"]`, the second template where the key
an item names is stored, or where the item gives a
field: a request's id, which the server makes up for one that gives none, `speed_3598404652517860456`, a
signed hash after a word, written as the twin's own of that form). A JSON field may be a field
stored under the key an argument names, any JSON value, or the server's default where the record has none
(`{"$stored": [name, field], "else": default}`, the default the tool's answers show most for records without it),
a field named as an argument its value as the call gave it, or the server's default where it gave none
(`{"$arg": name, "else": default}`, also with the items sorted, `"sorted": true`),
and an integer field named as the number argument whose value it shows is that argument (`"id": 1`). A JSON value
may also be the record stored under a key with some fields given anew (`{"$record": name, "set": {...}}`; its
lists of texts shown sorted, `"sorted": [field]`, and the fields named as arguments merged from the call where it
gives them, `"merge": [field]`: a partial update answering the whole record), every
stored record in order (`{"$records": order}`), or a made-up id (`{"$fresh": true}`). A JSON list of objects may
be the stored records a predicate picks (every one, or the one an argument names, `["is", name]`), in an order
(also as last stored, `latest`), each an object built from its fields (`{"$rows": pred, "order": order, "item":
{name: spec}}`: a field, with the value shown where the record has none; a field's length; one value, made-up ones
compared by form; a key of digits as its number, `"id": 3`), every record joined under a namespace
(`["joined"]`: all of a memory's records, its namespaces left out); the JSON list of the stored keys above
(`{"$keys": pred, "order": order}`) filtered by array arguments' items against a list field (`"where"`:
`_filtered_keys`); how many stored records hold each value of a field (`{"$tally": field}`) and how many values
there are (`"size"`); `$at`, a record's number as a server numbers
rows (one past the newest other), is a field too; and a number beside it (or beside every stored record) how many
records it lists (`{"$count": pred}`).
Such a listing may also be filtered by several arguments at once (`"where"`, `filtered.py`): per argument
(optional or required) an equality with a default where it is not given and values that keep every record (a
status `active` unless asked, `all`; a free text's too), a string among a list field's items (a project,
`holds`), a search ignoring case in text fields (a keyword), some or all items of an array argument in a
list field (tags; or in a text field writing a JSON array, tags kept as `json.dumps(tags)`), each chosen alone
and pruned by the recorded examples, drawn in the order stored and in the orders the tool's whole listings follow
most (`_reordered`: newest written first); standing under a field of an object
beside how many records it lists (`{"$size": listing}`), its records shown as another tool's listings show
them where the tool never listed every record; a tool's recorded listing of every kind (a server's
vocabulary: the units of each kind), narrowed to the field a string argument names (`{"$pick": name, "from":
listing}`); sorted by the field an argument's
value names (`"sort"`, nulls last, an enumerated field by its enum's order or the reverse), descending where
another says so, and cut at a limit (`"limit"`, its schema's default where not given); the empty listing is
then this template's too. A string argument that reads as an
arithmetic expression in most of its calls is evaluated (`["expr", name, config]`, its value written in a number
dialect, Python's or JavaScript's, with `^` read as a power or not and the names the server does not know, all
learned: `expression.py`); `["expr_name", name, config]` is the unknown name it stopped at; `["arith", op, names,
"python"]` the call's numbers as Python computes and writes them (`2.0 + 3` is `5.0`). A function of a string
argument (`["fn", f, name]`: a digest, base64, a URL's or HTML's escapes, upper case; `["hmac", algorithm, key,
name]`), a length of one (`["measure", f, name]`: characters, UTF-16 units, bytes, words, lines), the edit
distance of two (`["distance", first, second]`), a value read in one base and written in another (`["radix",
name, base, to]`) and a number converted by a line fitted per value of one or two arguments (`["linear", name,
selector, table, digits]`: a unit pair; `["units", name, [from, to], table, digits]`, one number and offset per
unit through a base unit, shared by every pair, `units.py`, also of an array's items; `["lookup", selector,
table]`, a text that selector tells, a conversion's category) are searched as well, each kept for a call only
where its answer shows the value (`functions.py`); so is each number of a text report as a formula of the
call's numbers (`["formula", steps, format]`: constants fitted, the report's numbers before it as terms, an
annuity, a rate below a cap or above a threshold, a signed sum), written with the decimals and thousands
separator its answers show (`formulas.py`: `$4,155.75`, `70.00%`). A JSON number a server writes as a
double (`3.0`) may be a number the call gave whole (`3`). A day's function (`["date", op, spec, calendar]`,
`dates.py`: its weekday, ISO week, the days between two days, a month's last day; over the named days a
region keeps, which every tool's recorded listings of days and names show, whether it is a business day,
the next or previous one and how many days that stepped, the business days in a range and the named days
in it) is searched likewise, kept only where every success it computes shows its value (a day is compared
by form, so no rule is refuted by the day it writes; a rule of a tool that computes days is held to write
each day alone exactly, `dates.days_agree`); a day the recordings never covered writes nothing.
A JSON value a function computes whole (`{"$value": part}`: a flag, a null, a list of named days, a short
code upper-cased, `"FR"` for `fr`) is a field of its own, each field of an object its own function.
A JSON list of objects may be computed over an array argument's items grouped by a text field (`{"$groups": array,
"by": [field, name], "order": order, "item": {name: spec}}`, `grouped.py`: the group's key, its count, the sum
over its items of a formula of their numbers, rounded, or the ratio of two such sums: holdings per security).
A text the server composes from a record's fields (`["compose", source, segments]`, `composed.py`: a todo.txt
line, `(A) 2026-12-06 Review draft +work @phone`) is its fields each between marks, an array item by item
(sorted where the server sorts it), a flag as its mark, the clock's day, joined by spaces, a part left out
where its field is absent; from the call's arguments (a create) or from the record a key names with the
call's other arguments in their place (a read, an update), its segments merged over the tool's calls and
every record any answer shows with its line. A day alone in a text that no call gave is the server's clock
(`["made_up", "today", day]`): the twin writes its own today there.
Each recorded answer, in the world its session had reached, gives templates (the texts those placeholders write
there, longest first, written as placeholders); a template belongs to every call it renders exactly.

**Effects** of a success: none; store the call's other arguments under a key argument (`put`; for a
joined key also `put_new`, storing only where nothing is: a write that keeps a file already there); move a
key and the keys under it to another (`move`); drop a key (`drop`) or every key a predicate picks
(`drop_matching`); store each item of an array argument under a field of it, or drop each key the items
name (`put_each`, `drop_each`); keep the answer (a record) under the value of one of its fields (`keep`: one
that is an argument, or an id the server made up, a number, one counted under a prefix or a random token,
`task-c7e7c630` or a UUID, `_minted`, a refusal answered as a success, `{"error": ...}`, keying none;
`["keep", "id", "known"]`, tried first for a tool whose answers show fields of their own beside those the
other tools' records show, keeps a stored record's fields only, `_own_fields`: a close's `_next_issue_id`;
`["keep", "id", "merged"]`, tried for a tool that names a key, keeps the fields a record had beside
those the answer shows and the call's other arguments: a task started keeps its title; or the
record nested under a field of most answers, `["keep",
"todo/id"]` for `{"todo": {"id": ...}, "message": ...}`; the twin keeps it under the id it made up itself,
which twin-check and compile's replay send in place of the server's, `rename.IdMap`);
keep the records nested in it (a list of objects each with an id the server made up under a prefix) each under
its id, the parent's key (a field of the answer, or an argument) beside its fields (`keep_children`, with
`keep` as `["and", keep, keep_children]`); keep the call's arguments under the id a text answer announces
(`keep_id`: "Task created successfully with ID: 3", its one whole number no argument gave, also in a text
under one field, `{"result": ...}`; none that names a record whose id was made up and is stored still; one a
call put under its own id is replaced), and change the record an integer argument names where the call gives
one (`["and", ["keep_id"], ["merge", name]]`: a save that creates without an id, updates with one); give a stored
record's fields anew, the call's other arguments replacing them and the tool that changed it last its storer
(`merge`: an update, which stores nothing under a missing key; `present` then tells a task marked done from
one approved); or so, with a text argument the call must give added to the end of the text stored in that field
(`["append", name, field, joiner]`: a document appended to, the joiner a line break, a blank line, a space or
nothing, none after an empty text); for a tool that names no record, key every stored record anew by its place
among them (`["renumber", base]`, from 0 or 1: a reload numbering records by their lines in a file), a field of its
record that showed the old key showing the new one, the tool its storer; replace the text of one argument by
another's in a text field of the record a key names (`["substitute", name, field, old, new]`: an edit of a
record's data, both texts ones the call must give); for a read, count itself on the record the key an argument
names picks (`["touch", name]`: an access count, `library.twin_touch`), learned, as every effect is, from what
later answers about that record show, never from the tool's name. A key is an argument the answers read as one,
else one they echo whole (`$arg`: a store that answers its key), never a text the call adds. Which effect each
tool has is found by coordinate ascent over the tools: each round tries every tool's effects, those that answer
most from where the round starts first, each kept where the rules of all tools then answer more recorded calls,
or as many with fewer rules (`_Outcome.beats`: fewer exceptions, the likelier server), until a round changes
nothing (in the tools' order, a small gain of an early tool could shut out a large one of a later tool that no
single change reaches afterwards); a read that counts itself is also tried together with every tool's likeliest
effect on the key it reads (a store's put, a delete's drop), since it tells only once the records are kept under
that key.

**Conditions**, what is known about a call, as atoms (one, or two together): always; optional arguments given, or
not (`absent`, for a tool whose answers name no key, or, for a tool listing records as text, an argument that names
none, `_unfiltered_atoms`); a required argument absent (a server that does not check its
input answers such a call too); a string argument that is no JSON text where every success gave one (`["not_json",
name]`, `_json_atoms`: a server that parses a value as JSON refuses what it cannot read, a check of the call
alone); an argument longer than a bound (far past every length recorded without that
answer); a key missing from the world, present (stored by a given tool, or the root), its parent missing or
present; a key outside the root; a record counted under the key stored, or none (`["nested_present", name, "t"]`,
`nested_absent`: a task with subtasks); the record under a key holding a value of an enumerated argument of a
storing tool, or not given (`["stored_is", name, field, value]`: a task's status, which tells a `completed_at` time
from null); the text stored in a field of that record holding a required string argument's text (`["holds", name,
field, arg]`: a replace that finds what it is to replace, or says it is not there); for a tool whose answers name
no key, nothing stored or something stored; nothing stored that a predicate of the tool's own listings and counts
picks (`["none", pred]`: a search that finds nothing) some stored record, or none, last stored by a tool that
renumbers (`["some_by", tool]`, `["none_by", tool]`: records a reload read back, which a server may show
otherwise); an expression argument's evaluation failing for a reason (`["expr_fails", name, reason, config]`: a
division by zero, a domain error, an unknown name, a syntax error); an argument's form unlike those the tool's
answers of another shape were given (`["unlike", name, forms]`, `forms.py`: a priority `high` where successes had
one uppercase letter); an optional string argument left at its default, given so or not (`["at_default", name,
default]`, `_default_atoms`: a field the server fills only for a record left to the default owner); for a tool
whose answers show a function's value, the function failing on the call (`["fn_fails", part]`: a text that is no
base64) and an enumerated argument's value (`["is", name, value]`, None where it is not given: the algorithm a
digest is asked by); for a tool whose reports show formulas, the sign of a number argument or of the difference of
two (`["sign", steps, signs]`: an error where a price does not exceed a cost, a word for a rise or a fall); for a
tool whose answers show a day's function, its days all reading as days in order, one reading as none, one after
another (`["days", "read", names]`, `["days", "fails", name]`, `["days", "after", first, second]`: a range that
ends before it starts); for a tool given an array of records, none of its items a filter picks (`["no_items",
array, filter]`, `items.py`: a field's text among the few it takes, or starting with an argument's text: no
sale in the year asked), under which a constant success may be answered, as where nothing is stored.

**Rules** of a tool are learned by sequential covering over its recorded calls, each in the world its session had
reached: the rule (template, condition) that answers most of the calls still uncovered, and none of them wrongly,
first (ties: fewer atoms, then the condition true of fewer recorded calls); then the next, among the calls left.
A lenient rule, which answers most of the calls left rightly and fewer than one in `_LENIENT` of those it fires on
wrongly (`_lenient`), is taken instead where it answers `_BROADER` times as many as the best exact rule, or where
no exact rule is left, after the exact rules for the calls it would answer wrongly: a common answer is not carved
into rules under conditions that only happen to hold of the recorded calls, and a rare variant no condition tells
apart leaves the common answer to the twin, not to a replay that answers an error. A success is built from the
call or the world, or is a constant only where
nothing is stored (at all, under the key the call names, or that the tool's listing picks: `none`) or the call lacks a
required argument (a recorded listing or file content is never answered as a constant), or where it is one line that
acknowledges a call on a stored key, on two calls at least ("Task deleted successfully"), or a JSON object of such lines
and flags (`{"success": true}`), or such a line or object that refuses the call's own arguments under a condition all of
whose atoms check the call alone (`_REFUSING`); a made-up time alone builds nothing (a recorded listing with its
records' creation times is a constant); a tool that only reads stores nothing (it may count itself: `touch`), nor does
one most of whose successes show a number converted from the call or computed by a formula of its numbers (`_converts`;
a report that writes an argument as it is, an id, is no such). An error for arguments the twin's served schema refuses
(a required one missing, a value outside an enum) is answered by that schema before any rule runs: no rule need meet it,
and a success's rule may cover it. A rule whose template writes nothing for a call (a number or key it reads is missing
there, a listing of no records) hands the call on to the next rule, as the twin does: only the calls it writes an answer
for bear on it.

**A JSON document in a text** (`json_texts.py`: a Python server's `json.dumps(record, indent=2,
sort_keys=True)` returned as a string, answered `{"result": "{\n  \"task_ref\": ...}"}`): a field of a
tool's structured successes whose texts are JSON objects or arrays that `json.dumps` writes back exactly
in one style (indent, escaped non-ASCII, keys sorted: a server that keeps its code's order in any has
none) is learned as the values those texts write, so that its records are kept, read back, changed and
listed as a JSON answer's are, and the plan's `documents` names the field and the style the twin writes
it back in (`library.twin_documents`, after the answer's effect). A clock stamp in epoch seconds
(`"created_at": 1796608533.96`), or in epoch milliseconds (`1796684335373`), is compared by form
(`agreement.EPOCH_FORM`, `EPOCH_MS_FORM`), so such a record's times are written as recorded.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, TypeVar

from sim_mcp.authoring.twins.agreement import HEX_FORM, SIGNED_FORM, UUID_FORM, Answer, compare_answers
from sim_mcp.authoring.twins.argument_types import declaring, types_of
from sim_mcp.authoring.twins.catalogue import Catalogue, catalogue_pieces, read_catalogue
from sim_mcp.authoring.twins.composed import Segment, compositions, merge, parse, shown_parses, undated
from sim_mcp.authoring.twins.dates import date_atoms, days_agree, read_calendar, read_dates
from sim_mcp.authoring.twins.expression import Expressions, read_expressions
from sim_mcp.authoring.twins.filtered import filtered_listings, picked_listings
from sim_mcp.authoring.twins.forms import form_atoms
from sim_mcp.authoring.twins.formulas import computed
from sim_mcp.authoring.twins.functions import Functions, read_functions
from sim_mcp.authoring.twins.grouped import grouped_lists
from sim_mcp.authoring.twins.items import item_atoms
from sim_mcp.authoring.twins.json_texts import decoded, key_orders, server_documents, with_documents
from sim_mcp.authoring.twins.library import TwinLibrary
from sim_mcp.authoring.twins.listing import listing_pieces, may_list
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.authoring.twins.served import refuses, served_schema
from sim_mcp.authoring.twins.strings import read_item_strings, read_strings
from sim_mcp.authoring.twins.units import item_conversions
from sim_mcp.authoring.twins.upstream import TMP_PLACEHOLDER
from sim_mcp.engine.intent import Action, read_intent
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec
from sim_mcp.specs.schema import compile_schema
from sim_mcp.state.values import strings_in

_T = TypeVar("_T")
_P = ParamSpec("_P")

__all__ = [
    "EFFECT_TRIALS",
    "ROOT_BY",
    "GuardInference",
    "as_set",
    "infer_guards",
    "initial_keys",
    "refuses",
    "run_guard",
    "unordered",
    "view",
]

# Who "stored" the root: it is in the world from the start.
ROOT_BY = "_root"
# Joins the two parts of a key named by two arguments (`library.TWIN_PAIR`, which says why this one).
PAIR = "\x1f"
# A text shorter than this is not written as a placeholder when templates are drawn from an answer (" "
# or "a" would be found everywhere; a number is, where it stands whole); the template drawn from another
# call still renders it exactly.
_SHORTEST = 3
# The orders of a tool's whole listings (beside the order stored) its filtered listings are read in too.
_REORDERED = 2
# Rounds of the coordinate ascent over the tools' effects.
_EFFECT_ROUNDS = 3
# Choices of the tools' effects the search evaluates at most, each a replay of every recorded session with
# every tool's rules learned anew: past this, it keeps the best choice found so far. A count, not a clock,
# so that a twin compiled twice from the same recordings is the same twin on any machine. Servers with a
# few candidate effects per tool need a few hundred; one with hundreds (records of many fields, each read as
# a possible key) could search for hours.
EFFECT_TRIALS = 1000
# Sessions' worlds the guard search keeps at most (`_Learner.worlds`): past this, it forgets them and plays the
# sessions anew, so that a long search over many effects does not hold every world it ever tried.
_KEPT_WORLDS = 4096
# A rule under no condition must answer at least this many recorded calls (one call would make its answer
# everyone's); a rule under a condition may rest on one, as a success only when built from the arguments.
_SUPPORT = 2
# The decision list's last rule may answer some of the calls it fires on wrongly: at most one in this many
# (`_Learner.cover`).
_LENIENT = 5
# A rule that answers a few of the calls it fires on wrongly (`_lenient`) is taken ahead of the exact rules left
# where it answers at least this many times as many calls rightly as the best of them: the exceptions an exact
# covering would carve out with conditions that only happen to hold are rarer than the rule.
_BROADER = 3
_LENGTH_MARGIN = 32
# Conditions under which a constant success may be answered: nothing stored it could show (nothing at all,
# nothing under the key the call names, nothing a listing's predicate picks, no item of an array argument a
# filter picks); a required argument absent.
_BARE = frozenset({"empty", "missing", "absent", "none", "no_items"})
_WORLD_ATOMS = frozenset(
    {"missing", "present", "parent_missing", "parent_present", "outside", "empty", "nonempty", "none", "holds"}
)
# The folder a server lists as its root: `{tmp}`, a folder in it, or an absolute path; a file (a name with an
# extension: `{tmp}/tasks.db`, where a server says where it keeps its data) is no root.
_ROOT_TOKEN = re.compile(r"(?![^\s'\"]*\.[A-Za-z0-9]{1,4}(?![^\s'\"]))(\{tmp\}|/[^\s'\"]+)")
# Placeholders that write a number: from the call, a count of stored keys, a made-up id.
_NUMBER_PARTS = frozenset(
    {
        *("num", "sum", "difference", "product", "quotient", "remainder", "power", "root", "negation", "absolute"),
        *("count", "fresh", "size", "total_size", "mean_size", "index", "stored_size", "order", "writes"),
        *("reads", "serial"),
        *("expr", "arith", "measure", "linear", "units", "sig", "distance", "radix", "formula", "bits"),
    }
)
# The learner's clock's day (the twin library's `today()` as inference runs it): a day a template makes up.
_LEARNER_TODAY = DEFAULT_CLOCK.date().isoformat()
# How a piece of a value written only whole is marked (`dates.json_piece`): no answer's text holds it.
_WHOLE_VALUE = "\x00"
# What may join a text appended to a stored one (`append`): a line, a space, nothing.
# A blank line is a Markdown document's paragraph break, what a log appended to as a document is joined by.
_JOINERS = ("\n", " ", "", "\n\n")
# What may stand between the blocks of several lines a view of several records writes, one per record.
_BLOCK_SEPARATORS = ("\n\n---\n\n", "\n---\n", "\n\n", "\n")
# What a listing of keys may be joined with.
_SEPARATORS = [", ", "\n", ",", " ", "; ", "\n- ", "\n* ", "\n  "]
# Values a server makes up, inside any text: compared by form (`agreement`), written as placeholders.
_MADE_UP = re.compile(
    rf"(?<![0-9A-Za-z])(?:(?P<uuid>{UUID_FORM})"
    # A signed hash after a word before a hex string, which its digits alone would read as.
    rf"|(?P<signed>{SIGNED_FORM})"
    rf"|(?P<hex>{HEX_FORM})"
    r"|(?P<date>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)"
    # a day alone, not part of a date-time: the server's clock ("today", `library.twin_made_up`)
    r"|(?P<today>\d{4}-\d{2}-\d{2}(?![T ]?\d)))(?![0-9A-Za-z])",
    re.IGNORECASE,
)
# The markers of a JSON value a template builds from the world or the call.
_WHOLE = (
    *("$record", "$records", "$fresh", "$each", "$number", "$stored", "$rows", "$count", "$size", "$pick", "$arg"),
    *("$value", "$groups", "$tally", "$keys", "$parsed"),
)
# Placeholders a JSON number of an answer may be: numbers and lengths from the call, an item's place (a
# count of the world's keys is left to texts: a JSON 0 or 1 is as often a constant).
_LEAF_NUMBERS = frozenset(
    {"num", "sum", "difference", "product", "size", "total_size", "mean_size", "index", "stored_size", "order"}
    | {"measure", "distance", "writes", "count", "reads", "serial", "bits"}
)
# The placeholders whose text a JSON number may be (`_computed_leaf`): a value computed from the call, written
# as the server's language writes it.
_COMPUTED_LEAVES = frozenset({"expr", "arith"})
# The numbers a JSON 0 or 1 is written as: an item's place; also, drawn once more, a record's reads and id
# (`_kept_first`).
_SMALL = frozenset({"index"})
# What joins an optional clause to the text before it (`_optional_clauses`), the longest first.
_CLAUSE_SEPARATORS = ("; ", ", ", " ")
# How a listing of stored keys is filtered by an array argument's items against a list field of the records:
# some of them held, all of them, none (`library.twin_kept`); tried for at most this many array arguments.
_KEY_FILTERS = ("overlaps", "covers", "excludes")
_KEY_FILTER_ARRAYS = 3
_KEPT = frozenset({"index", "reads", "serial"})
# The share of the objects of a JSON listing one reading of a field must show (9 in 10): a server may number
# a record the twin's world numbers otherwise (a record stored again keeps its number or not).
_ROW_FIT = (9, 10)
# A whole number in a text, as `library.twin_made_number` reads one: not part of a word, a counted id or a
# decimal.
_ANNOUNCED = re.compile(r"(?<![0-9A-Za-z._-])([0-9]{1,9})(?![0-9A-Za-z_]|\.[0-9])")
# What follows a record's id in one counted under it: a separator (a few letters or one mark) and a counter.
_NESTED = re.compile(r"([A-Za-z]{1,4}|[-_.:/])([0-9]{1,9})")
# An id a server makes up at random: a UUID or eight hex digits or more (all digits, by chance, for a short
# one: `HEX_FORM` reads such a token as a number inside a text, but a key field that holds ids of this form
# in every other answer is one), after an optional prefix of letters (`task-c7e7c630`).
_MINTED = re.compile(rf"(?:[A-Za-z][A-Za-z_]*[-_:])?(?:{UUID_FORM}|[0-9a-f]{{8,}})", re.IGNORECASE)
# An id a server counts under a prefix of letters: `req-1`, `task-12`, `item_3`; or letters alone before a
# counter padded with zeros (`s01`, `T007`): without the zeros such a token is a word's (`v2`, `h1`).
_COUNTED = re.compile(r"(?<![0-9A-Za-z_])([A-Za-z][A-Za-z_]*[-_]|[A-Za-z]{1,4}(?=0[0-9]))([0-9]{1,9})(?![0-9A-Za-z])")


@dataclass
class GuardInference:
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)
    root: str | None = None
    answered: dict[str, int] = field(default_factory=dict)  # by tool, the recorded calls its rules answer
    # By tool, why its rules could not be learned (the learner failed on its answers): it gets none, its calls
    # are handed on, and the other tools' rules are learned as before.
    failed: dict[str, str] = field(default_factory=dict)
    # The bound the search over the tools' effects stopped at (`EFFECT_TRIALS`); 0 where it ended by itself.
    stopped_at: int = 0
    # The choices of effects the searches evaluated (`_Learner.trial`): the work the inference did.
    tried: int = 0
    # Keys the server holds from the start (`_seeded`: a board's `root` node), in the world as the root is.
    seeds: list[str] = field(default_factory=list)

    def answers_all(self, tool: str, calls: int) -> bool:
        """Whether the tool's rules answer all its `calls` recorded calls, some of them with a template."""
        plan = self.plans.get(tool)
        return plan is not None and self.answered.get(tool) == calls and _placeholders(plan["rules"])


def initial_keys(root: str | None, seeds: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """The keyed world a twin starts from: the root, if the server named one, and the keys it holds from the
    start (`_seeded`), each present as the root is: no call stored it, no listing shows it as stored."""
    keys = {seed: {"by": ROOT_BY} for seed in seeds}
    return {**keys, root: {"by": ROOT_BY}} if root is not None else keys


def run_guard(
    plan: dict[str, Any], tool: str, state: dict[str, Any], args: dict[str, Any], library: TwinLibrary | None = None
) -> tuple[Any, bool] | None:
    """The answer of the first rule that holds (changing `state` for a success that stores), or None: the
    guard declines the call. Run by the twin's own Starlark."""
    answer, after = (library or TwinLibrary()).guard(plan, tool, state, args)
    if answer is not None and not answer[1]:
        state.clear()
        state.update(after)
    return answer


def view(
    args: dict[str, Any], pairs: tuple[tuple[str, str], ...] = (), defaults: dict[str, str] | None = None
) -> dict[str, Any]:
    """The arguments a guard reads: as given, a list of one string also as that item (`paths/0`), and two
    string arguments a plan joins as one key (`first+second`: `library.twin_paired`), a part not given as
    the value its schema defaults to (`defaults`, `_defaulted`)."""
    if defaults:
        given = {**defaults, **args}
        joined = view(given, pairs)
        return {**view(args), **{name: joined[name] for name in joined if name not in given}}
    items = {
        f"{name}/0": value[0]
        for name, value in args.items()
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str)
    }
    items |= {
        _pair_name(first, second): args[first] + PAIR + args[second]
        for first, second in pairs
        if isinstance(args.get(first), str) and isinstance(args.get(second), str)
    }
    return {**args, **items} if items else args


def _pair_name(first: str, second: str) -> str:
    return f"{first}+{second}"


# --- inference ------------------------------------------------------------------------------------------


@dataclass
class _Tool:
    """What inference knows of one tool: its spec, its recorded calls, its candidate effects."""

    spec: ToolSpec
    calls: list[RecordedCall]
    effects: list[list[Any] | None] = field(default_factory=list)
    # Arguments whose values name keys the world holds though no answer writes them (`_keyed`).
    keyed: list[str] = field(default_factory=list)
    # Its recorded errors that the twin's served schema answers (by place among `calls`), once found.
    invalid: frozenset[int] | None = None
    # Whether its record answers show fields of their own, beside those other tools' records show (`_own_fields`).
    own: bool = False


@dataclass
class _Outcome:
    score: int
    plans: dict[str, dict[str, Any]]
    answered: dict[str, int]

    def beats(self, other: _Outcome) -> bool:
        """Whether this outcome answers more recorded calls than `other`, or as many with fewer rules: effects
        that explain the same calls with fewer exceptions are likelier the server's (an edit that changes the
        stored text, where a merge needs a condition per later edit)."""
        rules = sum(len(plan["rules"]) for plan in self.plans.values())
        theirs = sum(len(plan["rules"]) for plan in other.plans.values())
        return self.score > other.score or (self.score == other.score and rules < theirs)


# A condition as one template tries it: its atoms, the calls it holds for where the template writes an answer,
# those of them the template answers wrongly (unless covered already), its rank after how many calls it
# answers, and whether it must answer two calls at least.
_Option = tuple[list[list[Any]], int, int, tuple[int, int, int, int, int], bool]


@dataclass(frozen=True)
class _Condition:
    """A condition the covering tries: its atoms, the recorded calls it holds for (bits), and what of it
    tells whether it may answer a template's calls and how it ranks among those that answer as many."""

    when: list[list[Any]]
    hit: int
    always: bool
    bare: bool
    present: bool
    # Every atom a check of the call's own arguments (`_REFUSING`): a value the server refuses by its format or
    # set, whatever is stored.
    checked: bool
    # Of conditions that answer as many calls: the fewest atoms, then none about the whole world (whether
    # anything is stored: recordings often show one side only), then no record's field (a status that
    # recorded calls happen to share is no reason to decline a record of another), then the narrowest (true
    # of the fewest recorded calls of the tool: a call unlike those is declined, not answered), then one that
    # asks about the world.
    atoms: int
    coarse: bool
    lifecycle: bool
    asks: bool

    @classmethod
    def of(cls, when: list[list[Any]], hit: int) -> _Condition:
        kinds = {atom[0] for atom in when}
        return cls(
            when,
            hit,
            always=when[0][0] == "always",
            bare=bool(kinds & _BARE),
            present="present" in kinds,
            checked=kinds <= _REFUSING,
            atoms=len(when),
            # About the whole world: whether anything is stored, or anything a tool renumbered.
            coarse=bool(kinds & _COARSE),
            lifecycle="stored_is" in kinds,
            asks=bool(kinds & _WORLD_ATOMS),
        )

    def same(self) -> tuple[int, bool, bool, bool, bool, int, bool, bool, bool]:
        """What of it the covering reads: two conditions alike in it are alike for every template, on every
        round."""
        return (
            *(self.hit, self.always, self.bare, self.present, self.checked),
            *(self.atoms, self.coarse, self.lifecycle, self.asks),
        )

    def option(
        self, writes: int, fits: int, refused: int, error: bool, built: bool, acknowledging: bool
    ) -> _Option | None:
        """This condition as a template tries it (None where it never may answer with it): `writes`, the
        calls the template writes an answer for, `fits` those it answers rightly, `refused` those the server
        refused with a JSON-RPC error; whether the template is an `error`, `built` from the call or the world,
        and only `acknowledging` a call on a stored record (`_acknowledging`)."""
        hit = self.hit & writes
        if not hit or (not error and hit & refused):
            return None
        # A guard never answers a success it cannot build from the call or the world: a recorded constant
        # success (a listing, a file's bytes) depends on more than it knows, unless nothing is stored at all,
        # nothing under the key the call names (a "not found" that a server answers as a success), or the call
        # lacks what the answer would be built from; or it only acknowledges what the call did to the record
        # its key names, or says why the call's own arguments are refused (a value of another form, outside a
        # set: `{"error": "steps must be one of ..."}` answered as a success), on two calls at least
        # (`_acknowledging`).
        constant = not error and not built and not self.bare
        if constant and not (acknowledging and (self.present or self.checked)):
            return None
        rank = (-self.atoms, -int(self.coarse), -int(self.lifecycle), -hit.bit_count(), int(self.asks))
        return self.when, hit, hit & ~fits & ~refused, rank, self.always or constant


# The atoms of a check of the call's own arguments, under which a constant refusal may be answered as a success
# (`_Condition.option`): a value of a form the tool's successes were never given, outside a documented set, a
# text that is no JSON.
_REFUSING = frozenset({"unlike", "not_among", "not_json"})
# About the whole world: whether anything is stored, or anything a tool renumbered (`_Condition.coarse`).
_COARSE = frozenset({"empty", "nonempty", "some_by", "none_by"})


def _conditions(holding: list[tuple[list[Any], int]]) -> list[_Condition]:
    """The conditions the covering tries, from the atoms that hold for some recorded call and the calls each
    holds for (`holding`): each atom, then each two (but `always`) that hold together somewhere, the first of
    each set alike for the covering (`_Condition.same`): a later one could only tie with it, and a tie keeps
    the first, so trying it once gives the same rules. What makes two alike is read off each atom once, and a
    pair is made a condition only where it is the first of its set: a tool with many atoms (a record of many
    fields) has pairs by the thousand, most of them alike."""

    def traits(atom: list[Any]) -> int:
        kind = atom[0]
        # A pair is a check of the call (`_Condition.checked`) only where both atoms are: the last flag.
        flags = (
            *(kind in _BARE, kind == "present", kind in _COARSE, kind == "stored_is", kind in _WORLD_ATOMS),
            kind not in _REFUSING,
        )
        return sum(1 << place for place, flag in enumerate(flags) if flag)

    seen: set[tuple[int, bool, int, int]] = set()
    kept = []
    for atom, hit in holding:
        same = (hit, atom[0] == "always", traits(atom), 1)
        if same not in seen:
            seen.add(same)
            kept.append(_Condition.of([atom], hit))
    paired = [(atom, hit, traits(atom)) for atom, hit in holding if atom[0] != "always"]
    for (first, first_hit, first_traits), (second, second_hit, second_traits) in itertools.combinations(paired, 2):
        hit = first_hit & second_hit
        if not hit:
            continue
        same = (hit, False, first_traits | second_traits, 2)
        if same not in seen:
            seen.add(same)
            kept.append(_Condition.of([first, second], hit))
    return kept


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _bits(indices: Iterator[int] | frozenset[int]) -> int:
    """A set of recorded calls (by place) as a bitset."""
    bits = 0
    for i in indices:
        bits |= 1 << i
    return bits


def _members(bits: int) -> list[int]:
    """The places of a bitset's calls, in order."""
    return [i for i in range(bits.bit_length()) if bits >> i & 1]


class _Learner:
    def __init__(
        self,
        tools: dict[str, _Tool],
        sessions: list[list[RecordedCall]],
        root: str | None,
        prefixes: tuple[str, ...] = (),
        pairs: tuple[tuple[str, str], ...] = (),
        trials: int = EFFECT_TRIALS,
        seeds: tuple[str, ...] = (),
    ) -> None:
        self.tools = tools
        self.sessions = sessions
        self.root = root
        self.seeds = seeds  # the keys the server holds from the start (`_seeded`)
        self.prefixes = list(prefixes)  # of the ids the server counts (`_counted_prefixes`)
        self.widths = _counted_widths(sessions, self.prefixes)  # of those it pads with zeros
        self.nested = _nested_counters(sessions)  # ids counted under a record's own (`_nested_counters`)
        self.numbered = _numbered_records(sessions)  # records numbered from one sequence (`_numbered_records`)
        self.pairs = pairs  # the arguments joined as one key (`_pair_candidates`), each a namespace and a name
        self.library = TwinLibrary()
        self.cache: dict[str, _Outcome] = {}
        self.trials = trials  # choices of effects the search may still evaluate (`trial`)
        self.stopped = False  # whether a trial was refused for want of them
        self.rules: dict[str, tuple[list[dict[str, Any]], int]] = {}  # by tool (`learned`)
        self.answers: dict[str, Any] = {}  # by case (`each`)
        # By call and world (`table`): whether each atom holds (by its JSON text), what each template writes.
        self.tables: dict[str, tuple[dict[str, bool], dict[str, Any]]] = {}
        # By call, its case's digest and template (`cover`): whether the template answers the call rightly.
        # Templates by their place in `templates_seen`, so that a key holds a template's text once.
        self.fitted: dict[tuple[int, str, int], bool] = {}
        self.templates_seen: dict[str, int] = {}
        self.read: dict[str, Expressions] = {}
        self.computed: dict[str, Functions] = {}
        self.calendar: dict[str, Any] | None = None
        self.catalogue: Catalogue | None = None
        self.converted: dict[str, dict[int, dict[str, list[list[Any]]]]] = {}
        self.cut: dict[str, dict[int, dict[str, Any]]] = {}
        self.formed: dict[str, list[list[Any]]] = {}
        self.groups: dict[str, dict[int, dict[str, dict[str, Any]]]] = {}  # by tool (`grouped.grouped_lists`)
        # How the server composes a record's line, read from every record any answer shows (`composed.py`).
        self.shown = shown_parses([call.value for session in sessions for call in session if _succeeded(call)])
        self.failed: dict[str, str] = {}  # by tool, why learning its rules failed (`isolated`)
        # Each session's calls as the library plays them, the tools that succeed in it, and its worlds by the
        # effects of those tools (`worlds`), each world's digest by its id (kept worlds live as long as this).
        self.played = [
            [{"tool": c.tool, "args": c.arguments, "ok": _succeeded(c), "answer": c.value} for c in session]
            for session in sessions
        ]
        self.succeeding = [sorted({c.tool for c in session if _succeeded(c)}) for session in sessions]
        self.kept_worlds: dict[str, list[dict[str, Any]]] = {}
        self.digests: dict[int, str] = {}
        self.storers: list[str] | None = None  # the tools that may store a key (`stored_by`)

    def isolated(self, name: str, fallback: _T, learn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """`learn(*args, **kwargs)` for the tool `name`, or `fallback` where it fails: a server's answers of a
        shape the learner did not expect must cost that tool its rules (the reason kept in `failed`), never
        the whole twin."""
        if name in self.failed:
            return fallback
        try:
            return learn(*args, **kwargs)
        except Exception as e:  # any failure while learning one tool is that tool's alone
            self.failed[name] = f"learning its rules failed: {type(e).__name__}: {e}"
            return fallback

    def defaults(self, tool: ToolSpec) -> dict[str, str]:
        """The defaults of this tool's paired arguments that a call may leave out (`_defaulted`)."""
        joined = {name for pair in self.tool_pairs(tool) for name in pair}
        return {name: value for name, value in _defaulted(tool).items() if name in joined}

    def tool_pairs(self, tool: ToolSpec) -> list[list[str]]:
        """The pairs this tool takes both arguments of: joined in its calls (`library.twin_paired`)."""
        properties = tool.input_schema.get("properties") or {}
        return [[first, second] for first, second in self.pairs if first in properties and second in properties]

    def names(self, tool: ToolSpec) -> list[str]:
        """The string arguments a template may write or read a key by: one, or a pair joined (`first+second`)."""
        return _strings(tool) + [_pair_name(first, second) for first, second in self.tool_pairs(tool)]

    def preds(self, tool: ToolSpec) -> list[list[Any]]:
        """`_preds`, and the names joined under the namespace an argument names (`["in", name]`): a tool
        that takes only the namespace (a project) lists what is stored in it (its files)."""
        spaces = sorted({first for first, _ in self.pairs} & set(_strings(tool)))
        # Where names are joined to their namespaces, every joined record too (`["joined"]`): all of a
        # memory's records, the namespace left out. Records not counted under another (top-level tasks, not
        # their subtasks), where ids are so counted.
        joined = [["joined"]] if self.pairs else []
        nested = [["unnested", sep] for sep, _ in self.nested]
        return _preds(tool) + [["in", name] for name in spaces] + joined + nested + self.stored_by()

    def stored_by(self) -> list[list[Any]]:
        """`["by", tool]` for each tool that may store something under a key (one that may write, a string
        argument and another beside it, some success) and shares no string argument with any other such
        tool, where two kinds are so stored: the keys one kind of call stored, as a server keeps each kind in
        a table of its own (a cache's keys apart from its series: each listed and counted alone). Tools that
        share an argument (a save and an update of a memory's `task`) write one kind of record: which of them
        wrote a record last tells nothing of it. Not a tool that takes a key alone (a delete): what it leaves
        is no kind of record."""
        if self.storers is None:
            writers = {
                name: set(_strings(tool.spec))
                for name, tool in self.tools.items()
                if not _reads_only(tool.spec)
                and _strings(tool.spec)
                and len(tool.spec.input_schema.get("properties") or {}) >= 2
                and any(_succeeded(c) for c in tool.calls)
            }
            self.storers = sorted(
                name
                for name, strings in writers.items()
                if not any(strings & other for them, other in writers.items() if them != name)
            )
        return [["by", name] for name in self.storers] if len(self.storers) >= 2 else []

    def worlds(self, effects: dict[str, list[Any] | None]) -> dict[int, dict[str, Any]]:
        """The world before each recorded call (by id), with `effects` applied on every recorded success.
        A session's worlds follow from the effects of the tools that succeed in it alone, so they are worked
        out once per such choice over the whole inference (`kept_worlds`): a choice that changes one tool's
        effect asks anew only for the sessions that call it. The worlds are shared: read, never changed."""
        given = {name: effect for name, effect in effects.items() if effect is not None}
        keys = [
            json.dumps([place, {name: given[name] for name in tools if name in given}], sort_keys=True)
            for place, tools in enumerate(self.succeeding)
        ]
        if len(self.kept_worlds) + len(keys) > _KEPT_WORLDS:
            self.kept_worlds.clear()
            self.digests.clear()
        missing = [place for place, key in enumerate(keys) if key not in self.kept_worlds]
        if missing:
            payload = {
                "root": self.root,
                "initial": initial_keys(self.root, self.seeds),
                "effects": given,
                "counters": self.prefixes,
                "numbered": self.numbered,
                "sessions": [self.played[place] for place in missing],
            }
            found = self.library.call("twin_bridge_worlds", payload)
            for place, before in zip(missing, found, strict=True):
                self.kept_worlds[keys[place]] = before
                for world in before:
                    self.digests[id(world)] = _digest(world)
        return {
            id(call): world
            for session, key in zip(self.sessions, keys, strict=True)
            for call, world in zip(session, self.kept_worlds[key], strict=True)
        }

    def digest(self, world: dict[str, Any]) -> str:
        """A world's digest, taken once for a world `worlds` keeps: what the caches of the inference are keyed
        by, where its JSON text would be written out again for each choice tried."""
        return self.digests.get(id(world)) or _digest(world)

    def trial(self, effects: dict[str, list[Any] | None]) -> _Outcome | None:
        """`evaluate` for a choice the search tries, None where it was not evaluated before and the search has
        evaluated as many choices as it may: the search then goes on with what it knows, and ends soon."""
        key = json.dumps(effects, sort_keys=True)
        if key in self.cache:
            return self.cache[key]
        if self.trials <= 0:
            self.stopped = True
            return None
        self.trials -= 1
        return self._evaluated(key, effects)

    def evaluate(self, effects: dict[str, list[Any] | None]) -> _Outcome:
        key = json.dumps(effects, sort_keys=True)
        return self.cache[key] if key in self.cache else self._evaluated(key, effects)

    def _evaluated(self, key: str, effects: dict[str, list[Any] | None]) -> _Outcome:
        """The rules each tool is answered by where `effects` change the world, cached under `key` (the
        effects' JSON): a choice the search tries again costs nothing."""
        worlds = self.worlds(effects)
        stores = sorted(name for name, effect in effects.items() if effect is not None)
        # Tools that renumber every record: whether one did tells a world whose records the recordings may
        # show otherwise (`["none_by", tool]`).
        renumbering = sorted(name for name, effect in effects.items() if effect is not None and effect[0] == "renumber")
        plans: dict[str, dict[str, Any]] = {}
        answered: dict[str, int] = {}
        for name, tool in self.tools.items():
            if not tool.calls:
                continue
            rules, count = self.isolated(
                name, ([], 0), self.learned, tool, worlds, effects.get(name), stores, renumbering
            )
            if rules:
                plans[name] = {"family": "guard", "root": self.root, "rules": rules}
                if self.prefixes:
                    plans[name]["counters"] = self.prefixes
                if self.numbered:
                    plans[name]["numbered"] = self.numbered
                if self.tool_pairs(tool.spec):
                    plans[name]["pairs"] = self.tool_pairs(tool.spec)
                if self.defaults(tool.spec):
                    plans[name]["defaults"] = self.defaults(tool.spec)
                if effects.get(name) is not None:
                    # The worlds above apply it on every recorded success, those its rules decline too: so
                    # does the twin on a success it hands on (`library.twin_handed_on`).
                    plans[name]["effect"] = effects[name]
                answered[name] = count
        outcome = _Outcome(sum(answered.values()), plans, answered)
        self.cache[key] = outcome
        return outcome

    def learned(
        self,
        tool: _Tool,
        worlds: dict[int, dict[str, Any]],
        effect: list[Any] | None,
        stores: list[str],
        renumbering: list[str] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """The rules of one tool (`templates`, then `cover`), learned once for what they depend on: whether
        its effect keeps a record under an id it makes up (`_keeps_made_up`), which tools store, the keys it
        names, and the worlds before its calls. The ascent over the effects tries many choices that leave a
        tool's worlds as they were (a tool's effect that stores nothing any recorded call reads back; a tool
        whose calls all come first), and many effects of one tool that leave its own calls' worlds alike (an
        append and a change of a text no later call of it reads): its effect is only the label its success
        rules carry, so the rules learned for one such effect are those of the others, relabelled."""
        worlds_before = [worlds[id(call)] for call in tool.calls]
        renumbering = renumbering or []
        made_up = _keeps_made_up(effect)
        digests = [self.digest(world) for world in worlds_before]
        text = json.dumps([tool.spec.name, made_up, stores, tool.keyed, digests, renumbering], sort_keys=True)
        # By digest: the worlds of every call of a tool, for each choice tried, would take much memory.
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in self.rules:
            found = self.templates(tool, worlds, effect)
            self.rules[key] = self.cover(tool, worlds, found, effect, stores, renumbering)
        rules, count = self.rules[key]
        return [{**rule, "effect": effect} if "effect" in rule else rule for rule in rules], count

    def templates(
        self, tool: _Tool, worlds: dict[int, dict[str, Any]], effect: list[Any] | None = None
    ) -> dict[str, tuple[Any, bool]]:
        """Candidate templates of a tool's answers (by their JSON text), each with whether it is an error.
        The next made-up id is one only for a tool whose `effect` keeps a record under the id it makes up."""
        calls = [call for call in tool.calls if call.rpc_error is None]
        names, numbers = self.names(tool.spec), _numbers(tool.spec)
        payload = {
            "fresh": _keeps_made_up(effect),
            "root": self.root,
            "names": names,
            "numbers": numbers,
            "number_defaults": _number_defaults(tool.spec),
            "preds": self.preds(tool.spec),
            "fields": list(tool.spec.input_schema.get("properties") or {}),
            "separators": _SEPARATORS,
            "cases": [
                {
                    "args": call.arguments,
                    "world": worlds[id(call)],
                    "listed": not call.is_error and may_list(call.value),
                }
                for call in calls
            ],
        }
        extra = {**payload, "arrays": _arrays(tool.spec), "prefixes": self.prefixes, "widths": self.widths}
        extra["nested"] = self.nested
        found: dict[str, tuple[Any, bool]] = {}
        counted: dict[str, tuple[Any, bool]] = {}
        every = self.each("twin_bridge_pieces", payload)
        items_all = self.each("twin_bridge_items", extra)
        listings = listing_pieces([(c.value, c.arguments, d["listings"]) for c, d in zip(calls, every, strict=True)])
        rows = self.rows(tool, calls, worlds)
        evaluated = self.expressions(tool).pieces
        computed = self.functions(tool).pieces
        shown = _shown_defaults(calls, [more["entries"] for more in items_all], self.tools)
        keys = self.names(tool.spec) + _integers(tool.spec)
        composed = _composed(calls, [worlds[id(call)] for call in calls], keys, self.root, self.shown)
        aliases = _field_aliases(tool.spec, calls)
        given = _given_defaults(tool.spec, calls, aliases)
        required = set(tool.spec.input_schema.get("required") or [])
        if tool.spec.name not in self.groups:
            self.groups[tool.spec.name] = grouped_lists(calls)
        grouped = self.groups[tool.spec.name]
        for call, drawn, more, listed, picked, lines in zip(
            calls, every, items_all, listings, rows, composed, strict=True
        ):
            # An expression's value after the call's other pieces: a text both write is read as theirs.
            # A function's value after those: a text an argument or a number already writes is read as theirs.
            mine = more["pieces"] + drawn["pieces"] + evaluated.get(id(call), []) + computed.get(id(call), [])
            pieces = _usable(mine) + listed
            pieces.sort(key=lambda piece: -len(piece[0]))
            whole = {
                "records": drawn["records"],
                "tallies": drawn["tallies"],
                "labels": drawn["labels"],
                "lists": drawn["lists"],
                "fresh": drawn["fresh"],
                "fresh_stored": drawn["fresh_stored"],
                "rows": picked,
                "parsed": _parsed_documents(drawn["pieces"]),
                "keys": _listed_keys(drawn["pieces"]),
            }
            if not call.is_error:
                # Each item's own pieces first, then the call's (but its next id: an item counts its own).
                outer = [piece for piece in pieces if piece[1][0] != "next"]
                whole["items"] = {
                    name: [(_usable(own["pieces"]) + outer, own["present"]) for own in per_item]
                    for name, per_item in more["items"].items()
                }
                # An item's own operation on the call's text first (a substring by its range).
                for name, cut in self.item_strings(tool).get(id(call), {}).items():
                    if len(whole["items"].get(name, [])) == len(cut):
                        whole["items"][name] = [
                            (_usable(own) + drawn_pieces, present)
                            for own, (drawn_pieces, present) in zip(cut, whole["items"][name], strict=True)
                        ]
                # An item's conversion first: a number its answer shows is read as the item's own.
                for name, converted in self.conversions(tool).get(id(call), {}).items():
                    if len(whole["items"].get(name, [])) == len(converted):
                        whole["items"][name] = [
                            (_usable(own) + drawn_pieces, present)
                            for own, (drawn_pieces, present) in zip(converted, whole["items"][name], strict=True)
                        ]
                whole["defaults"] = _defaults(more["entries"], self.tools, shown)
                whole["given"] = {"args": call.arguments, "defaults": given, "fields": payload["fields"]}
                whole["given"]["aliases"] = aliases
            template = _template_of(call.value, pieces, whole if not call.is_error else None)
            found.setdefault(json.dumps(template, sort_keys=True), (template, call.is_error))
            if call.is_error and isinstance(call.value, str):
                # A refusal's small numbers are as often its own text ("1 validation error") as a count of the
                # world or the call: read so too, for the covering to weigh against the counts.
                literal = [piece for piece in pieces if not (piece[0].isdigit() and piece[1][0] not in ("num", "arg"))]
                plain = _template_of(call.value, literal, None)
                found.setdefault(json.dumps(plain, sort_keys=True), (plain, True))
            if not call.is_error and whole["fresh"] == whole["fresh_stored"] and _FRESH in json.dumps(template):
                # The counter and one past the largest id stored agree here: both readings are the covering's
                # to weigh (a later create after deleting the newest record tells them apart).
                stored = json.loads(json.dumps(template).replace(_FRESH, '"$fresh": "stored"'))
                found.setdefault(json.dumps(stored, sort_keys=True), (stored, False))
            if isinstance(template, dict) and (groups := grouped.get(id(call))):
                # A list of objects computed over the items of an array argument grouped by a field: after the
                # reading as the call's pieces, which the covering keeps where both answer as many calls.
                other = {**template, **groups}
                found.setdefault(json.dumps(other, sort_keys=True), (other, False))
            if not call.is_error and (clauses := _optional_clauses(template, required)) != template:
                # A text whose clauses of optional arguments and stored fields the server leaves out, with
                # their separator, where the value is absent: beside the reading that asks for each.
                found.setdefault(json.dumps(clauses, sort_keys=True), (clauses, False))
            if not call.is_error and isinstance(template, dict):
                # A record read back with the call's arguments merged into it (a partial update): beside the
                # reading that resets the fields a call leaves out, for the covering to weigh.
                other = _template_of(call.value, pieces, {**whole, "merge": True})
                found.setdefault(json.dumps(other, sort_keys=True), (other, False))
            if lines and not call.is_error:
                # The texts composed from fields as such too: which reading holds is for the covering to tell.
                other = _template_of(call.value, pieces, {**whole, "composed": lines})
                found.setdefault(json.dumps(other, sort_keys=True), (other, False))
            if (revisions := _revisions_first(pieces)) is not None:
                other = _template_of(call.value, revisions, whole if not call.is_error else None)
                found.setdefault(json.dumps(other, sort_keys=True), (other, call.is_error))
            if (kept := _kept_first(pieces)) is not None:
                # A record's reads and id are written from 0 and 1 on too: a read's first answers show them so.
                # After every other reading: of two that answer the same calls, the covering keeps the first,
                # and a 1 that is a record's id may as well be how many records a listing holds.
                other = _template_of(call.value, kept, {**whole, "small": _KEPT} if not call.is_error else None)
                counted.setdefault(json.dumps(other, sort_keys=True), (other, call.is_error))
            for readings in whole["keys"].values() if not call.is_error else []:
                # Every (predicate, order) a JSON list of keys follows here: the covering tells which holds.
                for reading in readings[1:]:
                    alone = {text: [reading] for text in whole["keys"]}
                    other = _template_of(call.value, pieces, {**whole, "keys": alone})
                    found.setdefault(json.dumps(other, sort_keys=True), (other, call.is_error))
            for reading in picked[1:]:
                # Every (predicate, order) the listing follows here: which of them holds elsewhere (stored
                # order or last stored, all records or the one named) is for the covering to tell.
                other = _template_of(call.value, pieces, {**whole, "rows": [reading]})
                found.setdefault(json.dumps(other, sort_keys=True), (other, False))
        for template in self.filtered(tool, calls, worlds, rows, found):
            found.setdefault(json.dumps(template, sort_keys=True), (template, False))
        for template in _filtered_keys(tool.spec, found, [worlds[id(call)] for call in calls]):
            found.setdefault(json.dumps(template, sort_keys=True), (template, False))
        for template in picked_listings(tool.spec, calls):
            found.setdefault(json.dumps(template, sort_keys=True), (template, False))
        for key, drawn_kept in counted.items():
            found.setdefault(key, drawn_kept)
        return found

    def filtered(
        self,
        tool: _Tool,
        calls: list[RecordedCall],
        worlds: dict[int, dict[str, Any]],
        rows: list[list[Any]],
        found: dict[str, tuple[Any, bool]],
    ) -> list[dict[str, Any]]:
        """The JSON listings of stored records filtered, sorted and cut by the call's arguments
        (`filtered.filtered_listings`), their objects built as the tool's recorded listings build them (the
        item most of them follow); where the answers hold the listing under a field of an object (`{"todos":
        [...], "count": 2, "priority": "A"}`), that object as the tool's other templates write it, the listing
        in its place and a field that always shows how many it lists as their number (`{"$size": listing}`)."""
        items = Counter(json.dumps(item, sort_keys=True) for picked in rows for _, _, _, item in picked)
        if not items:
            items = self.borrowed_items(tool, calls, worlds)
        if not items:
            return []
        before = [worlds[id(call)] for call in calls]
        # The orders the tool's whole listings follow beside the order stored (newest written first: a
        # listing by its update time), each a reading of the filtered listings too, for the covering to weigh.
        orders = Counter(order for picked in rows for _, order, _, _ in picked if order != "added")
        nested = _nested_listing(calls)
        if nested is None:
            return _reordered(self.filtered_rows(tool, calls, before, items), orders)
        name, counted = nested
        inner = [replace(call, result=_nested_result(call, name)) for call in calls]
        listings = _reordered(self.filtered_rows(tool, inner, before, items), orders)
        wrapped: dict[str, dict[str, Any]] = {}
        for listing in listings:
            for template, error in found.values():
                if error or not isinstance(template, dict) or name not in template:
                    continue
                whole = {
                    field: listing if field == name else {"$size": listing} if field in counted else item
                    for field, item in template.items()
                }
                wrapped.setdefault(json.dumps(whole, sort_keys=True), whole)
        return list(wrapped.values())

    def borrowed_items(self, tool: _Tool, calls: list[RecordedCall], worlds: dict[int, dict[str, Any]]) -> Counter[str]:
        """Where no recorded listing of the tool shows every record it could (a filter that always left some
        out), the item templates of the other tools' listings of objects with the same fields (a listing of
        every record): the same records, shown alike."""
        shapes = {
            tuple(sorted(item)) for c in calls if _succeeded(c) for found in _object_lists(c.value) for item in found
        }
        items: Counter[str] = Counter()
        for other in self.tools.values():
            theirs = [c for c in other.calls if c.rpc_error is None]
            if other is tool or not any(_succeeded(c) and _object_lists(c.value) for c in theirs):
                continue
            for picked in self.rows(other, theirs, worlds):
                for _, _, objects, item in picked:
                    if tuple(sorted(objects[0])) in shapes:
                        items[json.dumps(item, sort_keys=True)] += 1
        return items

    def filtered_rows(
        self, tool: _Tool, calls: list[RecordedCall], worlds: list[dict[str, Any]], items: Counter[str]
    ) -> list[dict[str, Any]]:
        """The filtered listings of `calls` (in the `worlds` before each) whose answers are the listing itself."""
        template = {"$rows": ["all"], "order": "added", "item": json.loads(items.most_common(1)[0][0])}
        enums: dict[str, list[str]] = {}
        for name, value in _stored_choices(self.tools, sorted(self.tools)):
            if value is not None:
                enums.setdefault(name, []).append(value)
        properties = tool.spec.input_schema.get("properties") or {}
        kinds = {name: types_of(schema) for name, schema in properties.items()}
        return filtered_listings(self.library, self.root, tool.spec, calls, worlds, template, enums, kinds)

    def expressions(self, tool: _Tool) -> Expressions:
        """What the tool's expression arguments give (`expression.read_expressions`), read once: the world
        has no part in it."""
        name = tool.spec.name
        if name not in self.read:
            # The server's tools share one evaluator: what one documents (how it rounds) holds for the others.
            described = " ".join(other.spec.description or "" for other in self.tools.values())
            self.read[name] = read_expressions(self.library, tool.spec, tool.calls, described)
        return self.read[name]

    def conversions(self, tool: _Tool) -> dict[int, dict[str, list[list[Any]]]]:
        """The conversions the items of an array argument ask for (`units.item_conversions`), read once."""
        name = tool.spec.name
        if name not in self.converted:
            self.converted[name] = item_conversions(self.library, tool.calls)
        return self.converted[name]

    def item_strings(self, tool: _Tool) -> dict[int, dict[str, Any]]:
        """The operations on the call's texts the items of an array argument ask for
        (`strings.read_item_strings`), read once."""
        name = tool.spec.name
        if name not in self.cut:
            calls = [call for call in tool.calls if call.rpc_error is None]
            self.cut[name] = read_item_strings(self.library, tool.spec, calls)
        return self.cut[name]

    def functions(self, tool: _Tool) -> Functions:
        """What functions of the tool's arguments its answers show (`functions.read_functions`), read once:
        the world has no part in it."""
        name = tool.spec.name
        if name not in self.computed:
            calls = [call for call in tool.calls if call.rpc_error is None]
            # An expression argument's value is a number a report's formulas may start from.
            sources = {
                json.dumps(part, sort_keys=True): part
                for pieces in self.expressions(tool).pieces.values()
                for _, part in pieces
                if part[0] == "expr"
            }
            self.computed[name] = read_functions(self.library, tool.spec, calls, list(sources.values()))
            # The dates its answers show, over the named days every tool's answers list.
            if self.calendar is None:
                self.calendar = read_calendar([(other.spec, other.calls) for other in self.tools.values()])
            days = read_dates(self.library, tool.spec, calls, self.calendar)
            for at, dated in days.items():
                self.computed[name].pieces.setdefault(at, []).extend(dated)
            if days:
                self.computed[name].atoms += date_atoms(tool.spec, calls)
            # The operations on texts and sequences its answers show (where a piece occurs, a text cut or
            # spliced at indices, the text between markers, counts of a class of characters).
            cut, failing = read_strings(self.library, tool.spec, calls)
            for at, pieces in cut.items():
                self.computed[name].pieces.setdefault(at, []).extend(pieces)
            self.computed[name].atoms += failing
            # The facts of a bundled catalogue's entry its answers show beside the name a call gives, read from
            # every tool's answers (`catalogue.py`).
            if self.catalogue is None:
                self.catalogue = read_catalogue((other.spec, other.calls) for other in self.tools.values())
            for at, pieces in catalogue_pieces(self.catalogue, tool.spec, calls).items():
                self.computed[name].pieces.setdefault(at, []).extend(pieces)
        return self.computed[name]

    def forms(self, tool: _Tool) -> list[list[Any]]:
        """Conditions on an argument's form that tell the shapes of the tool's answers apart
        (`forms.form_atoms`), read once: the world has no part in them."""
        name = tool.spec.name
        if name not in self.formed:
            calls = [call for call in tool.calls if call.rpc_error is None]
            self.formed[name] = form_atoms(self.library, tool.spec, calls)
        return self.formed[name]

    def rows(self, tool: _Tool, calls: list[RecordedCall], worlds: dict[int, dict[str, Any]]) -> list[list[Any]]:
        """For each call, the JSON listings of stored records its answer may be (`_rows`): (predicate, order,
        item template) where the records they pick line up with a list of objects in the answer by key. One
        item template is drawn from the rows of every call (a default shows only where a field is absent)."""
        listing = [not call.is_error and _object_lists(call.value) for call in calls]
        if not any(listing):
            return [[] for _ in calls]
        payload = {
            "root": self.root,
            "names": self.names(tool.spec),
            "preds": self.preds(tool.spec),
            "cases": [
                {"args": call.arguments, "world": worlds[id(call)] if listed else {"keys": {}}}
                for call, listed in zip(calls, listing, strict=True)
            ],
        }
        found: list[list[Any]] = self.each("twin_bridge_rows", payload)
        lined = [
            [(pred, order, lists, records) for pred, order, records in picked for lists in _lined(call.value, records)]
            for call, picked in zip(calls, found, strict=True)
        ]
        pairs: dict[tuple[str, ...], list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        for candidates in lined:
            if candidates:
                # The reading of each call whose records hold the most (the first of those): the readings of
                # a call pair its objects with the same records, but where names are joined to namespaces a
                # namespace's entry may line up with an object that shows it, beside the record it holds.
                _, _, objects, records = max(candidates, key=lambda found: sum(len(record) for record in found[3]))
                shape = tuple(sorted(objects[0]))
                pairs.setdefault(shape, []).extend(zip(objects, records, strict=True))
        items = {shape: _row_item(shown) for shape, shown in pairs.items()}
        return [
            [
                (pred, order, objects, items[shape])
                for pred, order, objects, _ in candidates
                if (shape := tuple(sorted(objects[0]))) in items and items[shape] is not None
            ]
            for candidates in lined
        ]

    def each(self, function: str, payload: dict[str, Any]) -> list[Any]:
        """`library.call` of a bridge function that answers each of the payload's `cases` on its own (a call's
        arguments and the world before it), each case asked once over the whole inference: the ascent over
        the effects asks again for the many calls whose worlds a choice leaves as they were, and identical
        calls recur across sessions. The answers are kept by digest, and shared: read, never changed."""
        shared = {name: value for name, value in payload.items() if name != "cases"}
        prefix = json.dumps([function, shared], sort_keys=True)
        keys = [self.case_key(prefix, case) for case in payload["cases"]]
        asked: dict[str, Any] = {}
        for key, case in zip(keys, payload["cases"], strict=True):
            if key not in self.answers:
                asked.setdefault(key, case)
        if asked:
            found = self.library.call(function, {**shared, "cases": list(asked.values())})
            self.answers.update(zip(asked, found, strict=True))
        return [self.answers[key] for key in keys]

    def case_key(self, prefix: str, case: dict[str, Any]) -> str:
        """The digest a case (a call's arguments, the world before it, what else a bridge function reads of
        it) is kept under, after `prefix`: its world by its digest (`digest`)."""
        rest = json.dumps({name: value for name, value in case.items() if name != "world"}, sort_keys=True)
        world = case.get("world")
        text = f"{prefix}\x00{rest}\x00{'' if world is None else self.digest(world)}"
        return hashlib.sha256(text.encode()).hexdigest()

    def table(
        self, tool: _Tool, worlds: dict[int, dict[str, Any]], atoms: list[list[Any]], templates: list[Any]
    ) -> list[dict[str, Any]]:
        """For each of the tool's calls, whether each atom holds there and what each template writes there
        (`twin_bridge_table`), each atom and template evaluated once per call and world over the whole
        inference: the ascent over the effects covers a tool again and again, with its calls' worlds, its
        atoms and its templates mostly as they were. Calls asked the same atoms and templates are asked
        together."""
        return self.cased_table(tool, worlds, atoms, templates)[0]

    def cased_table(
        self, tool: _Tool, worlds: dict[int, dict[str, Any]], atoms: list[list[Any]], templates: list[Any]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """`table`, and each call's case (its arguments and world) by the digest the table keeps it under."""
        cases = [{"args": call.arguments, "world": worlds[id(call)]} for call in tool.calls]
        keys = [self.case_key("", case) for case in cases]
        atom_texts = [json.dumps(atom, sort_keys=True) for atom in atoms]
        template_texts = [json.dumps(template, sort_keys=True) for template in templates]
        asked: dict[tuple[tuple[int, ...], tuple[int, ...]], dict[str, dict[str, Any]]] = {}
        for key, case in zip(keys, cases, strict=True):
            held, rendered = self.tables.setdefault(key, ({}, {}))
            new_atoms = tuple(a for a, text in enumerate(atom_texts) if text not in held)
            new_templates = tuple(t for t, text in enumerate(template_texts) if text not in rendered)
            if new_atoms or new_templates:
                asked.setdefault((new_atoms, new_templates), {}).setdefault(key, case)
        for (new_atoms, new_templates), group in asked.items():
            payload = {
                "root": self.root,
                "atoms": [atoms[a] for a in new_atoms],
                "templates": [templates[t] for t in new_templates],
                "cases": list(group.values()),
            }
            found: list[dict[str, Any]] = self.library.call("twin_bridge_table", payload)
            for key, row in zip(group, found, strict=True):
                held, rendered = self.tables[key]
                held.update(zip((atom_texts[a] for a in new_atoms), row["holds"], strict=True))
                rendered.update(zip((template_texts[t] for t in new_templates), row["renders"], strict=True))
        rows = [
            {
                "holds": [self.tables[key][0][text] for text in atom_texts],
                "renders": [self.tables[key][1][text] for text in template_texts],
            }
            for key in keys
        ]
        return rows, keys

    def cover(
        self,
        tool: _Tool,
        worlds: dict[int, dict[str, Any]],
        found: dict[str, tuple[Any, bool]],
        effect: list[Any] | None,
        stores: list[str],
        renumbering: list[str] | None = None,
    ) -> tuple[list[dict[str, Any]], int]:
        """Sequential covering: the rules of one tool, and how many recorded calls they answer.

        Sets of recorded calls are bitsets (bit i: the tool's call i): the covering intersects them for every
        template with every condition on every round."""
        usable = tool.calls
        every = {name for template, _ in found.values() for name in _keys_named(template, tool.spec)}
        # An item an answer names (`keys/*`) is asked about where a list of one is (`keys/0`, `view`).
        single = {name.replace("/*", "/0") for name in every if name.endswith("/*")} & set(_strings(tool.spec))
        # A pair whose two arguments the answers name is asked about as one key (a file of a project stored or not),
        # those they echo whole too (`$arg`: a delete answering the namespace and name it was given), as
        # `_effects` offers to store or drop under them: a delete that drops a joined key is told from one that
        # finds nothing only by asking about that key.
        echoed = {name for template, error in found.values() if not error for name in _args_written(template)}
        joined = {_pair_name(a, b) for a, b in self.tool_pairs(tool.spec) if {a, b} <= every | echoed}
        named = sorted({name for name in every if "/*" not in name} | single | joined | set(tool.keyed))
        atoms = list(_atoms(tool.spec, self.root, named, stores)) + self.expressions(tool).atoms
        atoms += self.functions(tool).atoms
        atoms += self.forms(tool)
        atoms += item_atoms(tool.spec, [call for call in tool.calls if call.rpc_error is None])
        atoms += _default_atoms(tool.spec, tool.calls)
        atoms += _json_atoms(tool.spec, tool.calls)
        choices = _stored_choices(self.tools, stores)
        atoms += [["stored_is", name, *choice] for name in named for choice in choices]
        atoms += _holding_atoms(self.tools, stores, tool.spec, named)
        atoms += [["none", pred] for pred in _listed_preds(template for template, _ in found.values())]
        atoms += _unfiltered_atoms(tool.spec, named, found)
        atoms += [[kind, name] for name in renumbering or [] for kind in ("none_by", "some_by")]
        # A record with records counted under it (a task with subtasks), which a server may treat otherwise.
        atoms += [
            [kind, name, sep]
            for name in named
            for sep, _ in self.nested
            for kind in ("nested_present", "nested_absent")
            if "/*" not in name
        ]
        entries = list(found.items())
        table, cases = self.cased_table(tool, worlds, atoms, [template for _, (template, _) in entries])
        everyone = (1 << len(usable)) - 1
        # Calls the server refused with a JSON-RPC error: no template renders them; an error may meet them (an
        # error agrees with an error), a success never.
        refused = _bits(i for i, c in enumerate(usable) if c.rpc_error is not None)
        # Errors for arguments the twin's schema refuses (a required one missing, a value outside an enum): the
        # twin answers them so before any rule runs, so no rule need meet them, and a success may cover them.
        if tool.invalid is None:
            schema = compile_schema(served_schema(tool.spec, usable)[0])
            tool.invalid = frozenset(i for i, c in enumerate(usable) if c.is_error and refuses(schema, c.arguments))
        invalid = _bits(tool.invalid) & ~refused
        holding = [(atom, _bits(i for i in range(len(usable)) if table[i]["holds"][a])) for a, atom in enumerate(atoms)]
        holding = [(atom, hit) for atom, hit in holding if hit]
        tried = _conditions(holding)
        unordered_at = {key: _unordered_in(template) for key, (template, _) in entries}
        # Each recorded answer read once (a call's value is parsed from its result each time it is asked).
        recorded = [c.value for c in usable]
        # A tool that computes days is held to write each day exactly (`dates.days_agree`).
        dated = any(part[0] == "date" for found in self.functions(tool).pieces.values() for _, part in found)

        def fitting(i: int, t: int, key: str, error: bool) -> bool:
            # Whether template `key` answers call i rightly in its world, compared once per call, world and
            # template over the whole inference (`fitted`), as the table renders each once.
            asked = (id(usable[i]), cases[i], self.templates_seen.setdefault(key, len(self.templates_seen)))
            if asked not in self.fitted:
                rendered = table[i]["renders"][t]
                self.fitted[asked] = _renders_value(rendered, recorded[i], error, unordered_at[key]) and (
                    not dated or error or days_agree(recorded[i], rendered[0], _LEARNER_TODAY)
                )
            return self.fitted[asked]

        fits = {
            key: _bits(i for i, c in enumerate(usable) if c.is_error == error and fitting(i, t, key, error))
            for t, (key, (template, error)) in enumerate(entries)
        }
        # A template that writes nothing for a call (a number or a key it reads is missing there) hands the call
        # on to the next rule, as the twin's guard does: only the calls it writes an answer for bear on its rule.
        writes = {
            key: _bits(i for i in range(len(usable)) if table[i]["renders"][t] is not None)
            for t, (key, _) in enumerate(entries)
        }
        # Whether each template builds its answer from the call or the world, and whether it only acknowledges
        # (`_acknowledging`): read once per template, not per condition tried.
        built = {key: _placeholders(_unmade(template)) for key, (template, _) in entries}
        acknowledging = {key: _acknowledging(template) for key, (template, _) in entries}

        # Each condition as each template tries it, worked out once (what holds whatever calls are left): a round
        # only intersects it with the calls left.
        def tried_by(key: str, error: bool, conditions: list[_Condition]) -> list[_Option]:
            standing = (writes[key], fits[key], refused, error, built[key], acknowledging[key])
            return [option for condition in conditions if (option := condition.option(*standing))]

        options = {key: tried_by(key, error, tried) for key, (_, error) in entries}
        bounds: dict[str, int] = {}
        remaining = everyone & ~refused & ~invalid
        rules: list[dict[str, Any]] = []
        # Refusals of a value outside a documented set (`_CHECKS`) whose condition holds on no recorded
        # success: checks of the call alone, which a server makes before anything else. They are
        # covered first and go first, so that the successes' rules need not leave the refused calls out by
        # conditions that only happen to (a success that met a new refusal would store what the server did not).
        checks: list[dict[str, Any]] = []
        successes = _bits(i for i, c in enumerate(usable) if not c.is_error and c.rpc_error is None)
        checking = True
        covered = 0

        def exact(among: int) -> tuple[tuple[int, int, int, int, int, int], dict[str, Any], int, bool] | None:
            # The rule that answers most of the calls left in `among` rightly and none of the calls left wrongly.
            best: tuple[tuple[int, int, int, int, int, int], dict[str, Any], int, bool] | None = None
            for key, (template, error) in found.items():
                if checking and not error:
                    continue
                fit = fits[key] & remaining
                if not fit & among or (best is not None and (fit & among).bit_count() < best[0][0]):
                    # No call left to answer, or fewer than the best rule so far answers: it cannot be chosen.
                    continue
                group = [usable[i] for i in _members(fit)]
                others = [usable[i] for i in _members(everyone & ~fits[key])]
                longer = [bound for name in named if (bound := _longer(name, group, others)) is not None]
                past = tried_by(key, error, self.bounded(tool, worlds, longer, bounds))
                for when, hit, bad, rank, on_two in options[key] + past:
                    hits = hit & remaining & ~refused
                    if not hits & among or bad & remaining:
                        continue
                    if checking and (hit & successes or not all(atom[0] in _CHECKS for atom in when)):
                        continue
                    if hits.bit_count() < _SUPPORT and on_two:
                        continue
                    # Of conditions that answer as many calls: the fewest atoms, then none about the whole
                    # world, then no record's field, then the narrowest, then one that asks about the world
                    # (`_Condition`).
                    score = ((hits & among).bit_count(), *rank)
                    if best is None or score > best[0]:
                        rule: dict[str, Any] = {"when": when, "answer": template, "error": error}
                        if not error:
                            rule["effect"] = effect
                        best = (score, rule, hits, checking)
            return best

        while remaining:
            best = exact(everyone)
            if best is None and checking:
                checking = False
                continue
            needed = _BROADER * (best[0][0] if best else 0)
            # A lenient rule answers rightly no more calls than its template fits: where no template fits as many
            # as it would need, the search over every condition is not made.
            reach = max(((fits[key] & remaining & ~refused).bit_count() for key in found), default=0)
            searched = not checking and reach >= needed
            broad = _lenient(found, options, fits, remaining & ~refused, effect) if searched else None
            if broad is not None and broad[1] >= needed:
                # A rule that answers many times as many calls as any exact one, but a few wrongly: the exact
                # rules for those few go ahead of it (a refusal of a value the server checks), then it.
                rule, _, fired, wrong = broad
                while wrong and (exception := exact(wrong)) is not None:
                    rules.append(exception[1])
                    covered += exception[2].bit_count()
                    remaining &= ~exception[2]
                    wrong &= ~exception[2]
                rules.append(rule)
                covered += (fired & ~wrong & remaining).bit_count()
                remaining &= ~fired
                continue
            if best is None:
                break
            (checks if best[3] else rules).append(best[1])
            covered += best[2].bit_count()
            remaining &= ~best[2]
        rules = checks + rules
        return rules, covered + invalid.bit_count() if rules else 0

    def bounded(
        self, tool: _Tool, worlds: dict[int, dict[str, Any]], longer: list[list[Any]], known: dict[str, int]
    ) -> list[_Condition]:
        """Conditions `longer` (an argument past a length), each evaluated once per covering: `known` keeps
        the calls each holds for, by its JSON text."""
        texts = [json.dumps(bound) for bound in longer]
        new = [bound for bound, text in zip(longer, texts, strict=True) if text not in known]
        if new:
            table = self.table(tool, worlds, new, [])
            for b, bound in enumerate(new):
                known[json.dumps(bound)] = _bits(i for i in range(len(tool.calls)) if table[i]["holds"][b])
        return [_Condition.of([bound], known[text]) for bound, text in zip(longer, texts, strict=True)]


def _lenient(
    found: dict[str, tuple[Any, bool]],
    options: dict[str, list[_Option]],
    fits: dict[str, int],
    left: int,
    effect: list[Any] | None,
) -> tuple[dict[str, Any], int, int, int] | None:
    """A lenient rule for the calls left (`left`): of every template and condition, the one that answers most
    of them rightly, where it answers at least two so and fewer than one in `_LENIENT` of those it fires on
    wrongly, marked `lenient` (compile's check bears its wrong answers). A rare variant that no condition tells
    apart (a flag a server adds to a duplicate, a refusal of a value it does not know) would otherwise leave
    every call of the tool to the replay, which answers an error where the common answer was right. With the
    rule: how many calls it answers rightly, the calls it fires on and those it answers wrongly (bits)."""
    best: tuple[tuple[int, tuple[int, int, int, int, int]], dict[str, Any], int, int, int] | None = None
    for key, (template, error) in found.items():
        for when, hit, bad, rank, _ in options[key]:
            right = (hit & fits[key] & left).bit_count()
            wrong = (bad & left).bit_count()
            if right < _SUPPORT or wrong * _LENIENT >= right + wrong:
                continue
            score = (right - wrong, rank)
            if best is None or score > best[0]:
                rule: dict[str, Any] = {"when": when, "answer": template, "error": error, "lenient": True}
                if not error:
                    rule["effect"] = effect
                best = (score, rule, right, hit & left, bad & left)
    return None if best is None else (best[1], best[2], best[3], best[4])


def infer_guards(
    tools: list[ToolSpec], sessions: list[list[RecordedCall]], left: list[str], trials: int = EFFECT_TRIALS
) -> GuardInference:
    """Guard plans for the tools named in `left` (those no behaviour explains), from every recorded session.
    Keys joined from two arguments are tried only where one argument explains too little: a tool that takes
    both is left with recorded calls its rules do not answer; and kept only where they answer more. A JSON
    document a tool's successes write into a text is learned as the value it writes, and written back as
    text (`json_texts`). Each search over the tools' effects evaluates at most `trials` choices of them."""
    every = [c for s in sessions for c in s]
    written = server_documents(every)
    if written:
        sessions = [[decoded(call, written.get(call.tool, {})) for call in session] for session in sessions]
        found = _infer_guards(tools, sessions, left, trials)
        plans = {
            name: with_documents(plan, written.get(name, {}), key_orders(every, name))
            for name, plan in found.plans.items()
        }
        return replace(found, plans=plans)
    return _infer_guards(tools, sessions, left, trials)


def _infer_guards(
    tools: list[ToolSpec], sessions: list[list[RecordedCall]], left: list[str], trials: int
) -> GuardInference:
    root = _root(sessions)
    found = _infer(tools, sessions, left, root, (), trials)
    seeds = _seeded(sessions) if root is None else ()
    if seeds:
        # Kept where the rules then answer as many recorded calls at least: a value the mining took for a key
        # held from the start that is none costs nothing; where both answer alike, the world that holds it
        # explains with what is stored what the other explains by conditions that only happen to hold (the
        # form of a name never made).
        seeded = _infer(tools, sessions, left, root, (), trials, seeds)
        if sum(seeded.answered.values()) >= sum(found.answered.values()):
            found = replace(seeded, tried=found.tried + seeded.tried)
        else:
            found = replace(found, tried=found.tried + seeded.tried)
        seeds = tuple(found.seeds)
    pairs = _pair_candidates(tools, sessions, left)
    calls = Counter(call.tool for session in sessions for call in session)
    unexplained = [
        tool.name
        for tool in tools
        if tool.name in left
        and any(a in _strings(tool) and b in _strings(tool) for a, b in pairs)
        and found.answered.get(tool.name, 0) < calls[tool.name]
    ]
    if not unexplained:
        return found
    joined = _infer(tools, sessions, left, root, pairs, trials, seeds)
    chosen = joined if sum(joined.answered.values()) > sum(found.answered.values()) else found
    return replace(chosen, stopped_at=max(found.stopped_at, joined.stopped_at), tried=found.tried + joined.tried)


def _infer(
    tools: list[ToolSpec],
    sessions: list[list[RecordedCall]],
    left: list[str],
    root: str | None,
    pairs: tuple[tuple[str, str], ...],
    trials: int,
    seeds: tuple[str, ...] = (),
) -> GuardInference:
    defaults = {tool.name: _defaulted(tool) for tool in tools}
    sessions = [
        [replace(call, arguments=view(call.arguments, pairs, defaults.get(call.tool))) for call in session]
        for session in sessions
    ]
    known = {
        tool.name: _Tool(tool, [c for s in sessions for c in s if c.tool == tool.name])
        for tool in tools
        if tool.name in left
    }
    for tool in known.values():
        tool.own = _own_fields(tool, known)
    learner = _Learner(known, sessions, root, _counted_prefixes(sessions), pairs, trials, seeds)
    # The text fields another tool may store: those a call may change a stretch of (`substitute`).
    texts = sorted({name for tool in known.values() for name in _strings(tool.spec) if "/" not in name})
    # The templates each tool's answers give in the first world (nothing stored) name its candidate effects.
    first: dict[str, list[Any] | None] = dict.fromkeys(known)
    worlds = learner.worlds(first)
    for tool in known.values():
        if tool.calls and not all(c.is_error for c in tool.calls):
            tool.effects = learner.isolated(tool.spec.name, [], _first_effects, learner, tool, worlds, texts)
    choice: dict[str, list[Any] | None] = {
        name: tool.effects[0] if tool.effects else None for name, tool in known.items()
    }
    best = learner.evaluate(choice)
    # Arguments whose values name keys that the effects chosen so far store, though no answer writes them (a
    # delete's `id` answered "Task deleted successfully"): keys too, asked about, dropped or stored under.
    # Found in the worlds where nothing is dropped: which tool drops what is for the ascent to find.
    storing = {
        name: e if e is not None and e[0] in ("keep", "keep_id", "put", "put_new", "put_each") else None
        for name, e in choice.items()
    }
    worlds = learner.worlds(storing)
    keyed = {name: _keyed(tool, worlds, learner.root) for name, tool in known.items()}
    if any(keyed.values()):
        for name, tool in known.items():
            tool.keyed = keyed[name]
            if tool.keyed and tool.effects:
                tool.effects = learner.isolated(name, [], _keyed_effects, learner, tool, worlds, texts)
        learner.cache.clear()
        best = learner.evaluate(choice)
    best, choice = _ascend(learner, known, choice, best)
    # A read that counts itself on a record tells only once the records are kept under the key it reads (a
    # store that keeps its answer under one of its fields keys them otherwise, and ties with one that does
    # until the read counts): each such read is tried together with every tool's likeliest effect on that
    # key (a store's put, a delete's drop), and the ascent goes on from there.
    for name, tool in known.items():
        for touch in tool.effects:
            if touch is None or touch[0] != "touch":
                continue
            move = {
                other: next(e for e in store.effects if e is not None and e[1] == touch[1])
                for other, store in known.items()
                if other != name and any(e is not None and e[0] != "touch" and e[1] == touch[1] for e in store.effects)
            }
            # Taken where the ascent from there ends better: other tools' rules may need their own effects
            # changed once the records are kept so.
            moved: dict[str, list[Any] | None] = {**choice, **move, name: touch}
            if (start := learner.trial(moved)) is None:
                continue
            trial, tried = _ascend(learner, known, moved, start)
            if trial.beats(best):
                best, choice = trial, tried
    stopped = trials if learner.stopped else 0
    return GuardInference(
        best.plans, root, best.answered, dict(learner.failed), stopped, trials - learner.trials, list(seeds)
    )


def _seeded(sessions: list[list[RecordedCall]]) -> tuple[str, ...]:
    """The keys a server holds from the start (a board's `root` node, a default project, a `main` branch):
    values that a success of a call giving no text showed (a listing, `root [active]`) before any call of
    the session gave them (whole or inside a text), and that a later call then gave, in two sessions at
    least. Not a value the server made up (a UUID, `task-1`: a create's answer shows it first too, but a
    create gives texts), nor one of under three letters, nor a number."""
    places: dict[str, set[int]] = {}
    for place, session in enumerate(sessions):
        given: set[str] = set()
        shown: list[str] = []  # the texts of the successes of calls that gave no text, so far
        for call in session:
            values = [v for value in call.arguments.values() for v in _string_values(value)]
            for value in values:
                # New to the session: no call gave it, whole or inside a text (a word of a todo's text, shown
                # by a listing before a call gives it as a project, is the session's own).
                fresh = not any(_shown_whole(value, text) for text in given)
                if fresh and any(_shown_whole(value, text) for text in shown):
                    places.setdefault(value, set()).add(place)
            given |= set(values)
            if not values and _succeeded(call):
                shown.append(json.dumps(call.value, ensure_ascii=False))
    return tuple(
        sorted(
            value
            for value, found in places.items()
            if len(found) >= 2
            and len(value) >= _SHORTEST
            and not value.isdigit()
            and not _MINTED.fullmatch(value)
            and not _COUNTED.fullmatch(value)
        )
    )


def _shown_whole(value: str, text: str) -> bool:
    """Whether `text` shows `value` as a whole word (not inside a longer name: `root` in `root-2` is none)."""
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text) is not None


def _string_values(value: Any) -> list[str]:
    """The strings an argument gives: itself, or the items of a list (a node's `parents`)."""
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _reordered(listings: list[dict[str, Any]], orders: Counter[str]) -> list[dict[str, Any]]:
    """`listings`, then each in the `_REORDERED` orders the tool's whole listings follow most (beside the order
    stored), an argument's sort still first where it has one."""
    chosen = [order for order, _ in orders.most_common(_REORDERED)]
    return listings + [{**listing, "order": order} for order in chosen for listing in listings]


def _keeps_made_up(effect: list[Any] | None) -> bool:
    """Whether `effect` keeps a record under the id the call makes up: the next made-up id is one only for a
    tool whose effect does (`_Learner.templates`), the one way a tool's effect bears on its own rules beyond
    the worlds it leaves."""
    return effect is not None and (effect[0] in ("keep", "keep_id") or effect[:2] == ["and", ["keep_id"]])


def _first_effects(
    learner: _Learner, tool: _Tool, worlds: dict[int, dict[str, Any]], texts: list[str]
) -> list[list[Any] | None]:
    """A tool's candidate effects from the templates its answers give in the first world: a read's touches, a
    conversion's none, any other tool's stores, drops and changes (`_effects`), none first for a tool that
    computes texts (`_computed_first`)."""
    if _reads_only(tool.spec):
        return _touches(tool, learner.templates(tool, worlds), learner.tool_pairs(tool.spec))
    if _converts(tool, learner.functions(tool), {}, texts=False):
        return tool.effects
    found = learner.templates(tool, worlds)
    return _computed_first(learner, tool, _effects(tool, found, learner.tool_pairs(tool.spec), texts))


def _keyed_effects(
    learner: _Learner, tool: _Tool, worlds: dict[int, dict[str, Any]], texts: list[str]
) -> list[list[Any] | None]:
    """A tool's candidate effects again, once the arguments that name stored keys are known (`_keyed`)."""
    found, joinable = learner.templates(tool, worlds), learner.tool_pairs(tool.spec)
    if _reads_only(tool.spec):
        return _touches(tool, found, joinable)
    return _computed_first(learner, tool, _effects(tool, found, joinable, texts))


def _computed_first(learner: _Learner, tool: _Tool, effects: list[list[Any] | None]) -> list[list[Any] | None]:
    """`effects` with none first where most of the tool's successes show a text an operation on texts computed
    (`strings.py`): such a tool stores nothing to begin with, and a store stays a candidate that the ascent
    takes only where the rules of all tools then answer more recorded calls. An operation may explain a
    store's answer by chance (a title's tail, the server having written the title back in its own case): a
    read-back of what the store kept, elsewhere, then tells the store, and the operation takes no behaviour
    away."""
    if not _converts(tool, learner.functions(tool), learner.item_strings(tool)):
        return effects
    return [None, *(effect for effect in effects if effect is not None)]


def _ascend(
    learner: _Learner, known: dict[str, _Tool], choice: dict[str, list[Any] | None], best: _Outcome
) -> tuple[_Outcome, dict[str, list[Any] | None]]:
    """Coordinate ascent over the tools' effects from `choice`: each round tries every tool's effects in the
    order of what each answers from where the round starts, most first, a change kept where the rules of all
    tools then answer more recorded calls, until a round changes nothing. Tried in the tools' order instead,
    an early tool's small gain (a write read as a merge) may shut out a later tool's large one (an append)
    that no single change reaches afterwards. Where the search may evaluate no more choices (`_Learner.trial`),
    a move not evaluated yet is not taken: the ascent keeps the best of what it evaluated."""
    for _ in range(_EFFECT_ROUNDS):
        moves = [(name, effect) for name, tool in known.items() for effect in tool.effects if effect != choice[name]]
        start = choice
        scores = [learner.trial({**start, name: effect}) for name, effect in moves]
        order = sorted(range(len(moves)), key=lambda at: -(found.score if (found := scores[at]) else -1))
        changed = False
        for name, effect in (moves[at] for at in order):
            if effect == choice[name]:
                continue
            trial = learner.trial({**choice, name: effect})
            if trial is not None and trial.beats(best):
                best, choice, changed = trial, {**choice, name: effect}, True
        if not changed:
            break
    return best, choice


def _pair_candidates(
    tools: list[ToolSpec], sessions: list[list[RecordedCall]], left: list[str]
) -> tuple[tuple[str, str], ...]:
    """The pairs of arguments that may name a key together (a namespace, then a name in it): two required
    string arguments of one tool, whose recorded values are one line each (a name, not a text stored under
    it); none where a recorded value holds the separator (a joined key could then collide)."""
    values: dict[str, list[str]] = {}
    for session in sessions:
        for call in session:
            for name, value in call.arguments.items():
                if isinstance(value, str):
                    if PAIR in value:
                        return ()
                    values.setdefault(f"{call.tool}/{name}", []).append(value)
    found: set[tuple[str, str]] = set()
    for tool in tools:
        if tool.name not in left:
            continue
        required = set(tool.input_schema.get("required") or [])
        names = [
            name
            for name in _strings(tool)
            if name in required
            and values.get(f"{tool.name}/{name}")
            and not any("\n" in value for value in values[f"{tool.name}/{name}"])
        ]
        # In the order the schema declares them: a namespace before the names in it, as a path reads
        # (`projectName`, `fileName`; `collection`, `id`).
        found.update(itertools.combinations(names, 2))
        # A name's namespace may be left out, the server reading its default (`namespace: "default"`): the
        # argument with a default is the namespace, whatever the schema's order.
        found.update((space, name) for space in _defaulted(tool) for name in names)
    return tuple(sorted(found))


def _defaulted(tool: ToolSpec) -> dict[str, str]:
    """The optional string arguments whose schema names a text default: the value a call that leaves one
    out is read with, a namespace (`default`); none for an empty default, which names no key."""
    properties = tool.input_schema.get("properties") or {}
    required = set(tool.input_schema.get("required") or [])
    return {
        name: schema["default"]
        for name, schema in properties.items()
        if name not in required
        and isinstance(schema, dict)
        and schema.get("type") == "string"
        and isinstance(schema.get("default"), str)
        and schema["default"]
    }


def _keyed(tool: _Tool, worlds: dict[int, dict[str, Any]], root: str | None) -> list[str]:
    """The integer arguments (and string ones, where keys are not paths under a root) whose value names a
    stored key in the world before most of the tool's calls that give one (a number that names a record
    now and then by chance, a `limit` of 5, is no key), two calls at least."""
    found = []
    for name, schema in (tool.spec.input_schema.get("properties") or {}).items():
        kinds = types_of(schema)
        if "integer" not in kinds and ("string" not in kinds or root is not None):
            continue
        given = [(c, c.arguments[name]) for c in tool.calls if type(c.arguments.get(name)) in (int, str)]
        held = sum(
            (entry := worlds[id(c)]["keys"].get(str(value))) is not None and entry["by"] != ROOT_BY
            for c, value in given
        )
        if held >= 2 and 2 * held >= len(given):
            found.append(name)
    return found


def _root(sessions: list[list[RecordedCall]]) -> str | None:
    """The root a tool with no arguments names in its one constant answer (`{tmp}` first), if any."""
    answers: dict[str, set[str]] = {}
    for session in sessions:
        for call in session:
            if not call.is_error and not call.arguments:
                answers.setdefault(call.tool, set()).add(json.dumps(call.value, sort_keys=True))
    for texts in answers.values():
        if len(texts) != 1:
            continue
        found = _ROOT_TOKEN.findall(next(iter(texts)))
        if TMP_PLACEHOLDER in found:
            return TMP_PLACEHOLDER
        if found:
            return str(found[0]).rstrip("/") or "/"
    return None


def _converts(tool: _Tool, functions: Functions, cut: dict[int, dict[str, Any]], texts: bool = True) -> bool:
    """Whether most of a tool's successes show a number converted or computed from the call (a line or a
    table per unit, a report's formula that computes, `functions`), or (`texts`) a text computed from it: a
    converter stores nothing, though its answers name values (a unit) another call may name after it, which
    would make a store look as good as none, and tell a call from its session's past."""
    successes = [call for call in tool.calls if _succeeded(call)]
    converted = sum(
        any(
            part[0] in ("linear", "units", "date", "bits") or computed(part) or (texts and _computed_text(text, part))
            for text, part in functions.pieces.get(id(call), [])
        )
        # An item's operation on the call's text (a substring per range).
        or any(
            _computed_text(text, part)
            for items in cut.get(id(call), {}).values()
            for own in items
            for text, part in own
        )
        for call in successes
    )
    return bool(successes) and 2 * converted > len(successes)


def _computed_text(text: str, part: list[Any]) -> bool:
    """Whether a piece is a text, a list or a null an operation on texts computed (`strings.py`): a number one
    writes (a count, a position) may be any small number of a store's answer."""
    return part[0] == "str" and not text.lstrip(_WHOLE_VALUE).lstrip("-").isdigit()


def _reads_only(tool: ToolSpec) -> bool:
    """A tool that says it changes nothing (`readOnlyHint`), else whose name reads as a get or a list, stores
    no key: recordings few enough can make a read's success look as if it stored one."""
    hint = tool.annotations.read_only_hint if tool.annotations is not None else None
    if hint is not None:
        return bool(hint)
    return read_intent(tool.name).action in (Action.GET, Action.LIST)


def _strings(tool: ToolSpec) -> list[str]:
    """The string arguments, and each list of strings as its one item (`view`)."""
    properties = tool.input_schema.get("properties") or {}
    names: list[str] = []
    for name, schema in properties.items():
        if not isinstance(schema, dict):
            continue
        # An optional one may be typed `anyOf: [string, null]` (a default of null): a string all the same.
        kinds = types_of(schema) - {"null"}
        array = declaring(schema, "array")
        items = array.get("items") if array else None
        if kinds == {"string"}:
            names.append(name)
        elif kinds == {"array"} and isinstance(items, dict) and items.get("type") == "string":
            names.append(f"{name}/0")
    return names


def _numbers(tool: ToolSpec) -> list[str]:
    """The arguments the input schema types as numbers."""
    properties = tool.input_schema.get("properties") or {}
    kinds = {name: types_of(schema) - {"null"} for name, schema in properties.items()}
    return [name for name, found in kinds.items() if found and found <= {"integer", "number"}]


def _number_defaults(tool: ToolSpec) -> dict[str, int | float]:
    """The number arguments whose schema names a default, with it: the value the server uses where a call
    leaves one out (`["num", name, default]`)."""
    properties = tool.input_schema.get("properties") or {}
    return {
        name: properties[name]["default"]
        for name in _numbers(tool)
        if isinstance(properties[name], dict) and type(properties[name].get("default")) in (int, float)
    }


def _preds(tool: ToolSpec) -> list[list[Any]]:
    """What a count or a listing of stored keys may pick: every key, or those starting with a string argument."""
    return [["all"], *(["prefix", name] for name in _strings(tool) if "/" not in name)]


def _template_of(value: Any, pieces: list[tuple[str, list[Any]]], whole: dict[str, Any] | None) -> Any:
    """`value` with the texts of `pieces` written as their placeholders; with `whole` (what the world held
    before the call), a list equal to the stored records, an object equal to a stored record but for some
    fields, and a number that is the next made-up id, written as those."""
    if (
        whole is not None
        and isinstance(value, dict | list)
        and value
        and (named := whole.get("parsed", {}).get(json.dumps(value, sort_keys=True))) is not None
    ):
        # The document a JSON text stored under a key writes (`_parsed_documents`).
        return {"$parsed": named}
    if (
        whole is not None
        and isinstance(value, list)
        and value
        and (readings := whole.get("keys", {}).get(json.dumps(value))) is not None
    ):
        # The stored keys a predicate picks, as a JSON list (`_listed_keys`): the first reading here, the
        # others drawn beside it (`templates`).
        return {"$keys": readings[0][0], "order": readings[0][1]}
    if whole is not None and isinstance(value, list) and (each := _each(value, whole.get("items", {}))) is not None:
        return each
    if type(value) in (int, float) and (line := _line_leaf(value, pieces)) is not None:
        return line
    small = whole.get("small", _SMALL) if whole is not None else _SMALL
    if type(value) is int and (number := _number_leaf(value, pieces, small)) is not None:
        return number
    if type(value) in (int, float) and (computed := _computed_leaf(value, pieces)) is not None:
        return computed
    if whole is not None and (tally := _tally_of(value, whole.get("tallies", {}))) is not None:
        return tally
    if whole is not None and isinstance(value, list) and value:
        # An empty list is as often a constant (`"errors": []`) as an empty listing: a template drawn where
        # something is stored tells which.
        for order in ("added", "sorted"):
            if value == whole["lists"][order]:
                return {"$records": order}
        for order in ("added", "sorted"):
            if value == whole.get("labels", {}).get(order):
                return {"$keys": ["all"], "order": order}
        for pred, order, objects, item in whole.get("rows", []):
            if value == objects:
                return {"$rows": pred, "order": order, "item": item}
        if value and _same_items(value, whole["lists"]["added"]):
            # The stored records in an order that follows neither their storing nor their keys: the twin
            # lists them as stored, and the plan says that this listing is to be compared as a set.
            return {"$records": "unordered"}
    if whole is not None and isinstance(value, dict):
        for name, record in whole["records"].items():
            if isinstance(record, dict) and set(record) == set(value):
                return _record_read(name, record, value, pieces, whole)
    if whole is not None and isinstance(value, str) and value in whole.get("composed", {}):
        return {"$parts": [whole["composed"][value]]}
    if whole is not None and isinstance(value, str) and (lines := _item_lines(value, pieces, whole)) is not None:
        return lines
    if isinstance(value, str):
        # A made-up value inside a listing the answer shows is the listing's to write (its line's clock).
        regions = [text for text, placeholder in pieces if placeholder[0] == "lines" and text in value]
        parts: list[Any] = _made_up(value, {text for text, _ in pieces}, regions)
        for text, placeholder in pieces:
            if not any(isinstance(part, str) and text in part for part in parts):
                continue  # nothing to split (and no pattern to compile: most pieces are in no answer)
            split: list[Any] = []
            # A number only where it stands whole: the 5 of "5 items" and "5s", not of "15", "2.5" or "v5".
            numeric = _numeric(text, placeholder)
            whole_number = re.compile(rf"(?<![\w.]){re.escape(text)}(?!\.?[0-9])") if numeric else None
            if placeholder[0] == "formula":
                # A number a formula writes may be grouped by thousands: not the tail of a longer one.
                whole_number = re.compile(rf"(?<![\w.,]){re.escape(text)}(?![\w]|[.,][0-9])")
            if placeholder[0] == "expr_name":
                # A name an expression holds, however short (`pi`, `e`), only where it stands as a word.
                whole_number = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(text)}(?![A-Za-z0-9_])")
            for part in parts:
                if not isinstance(part, str) or text not in part:
                    split.append(part)
                    continue
                chunks = whole_number.split(part) if whole_number is not None else part.split(text)
                for index, chunk in enumerate(chunks):
                    if index:
                        split.append(placeholder)
                    split.append(chunk)
            parts = split
        parts = [part for part in parts if part != ""]
        return {"$parts": parts} if any(not isinstance(part, str) for part in parts) else value
    if isinstance(value, dict):
        defaults = whole.get("defaults", {}) if whole is not None else {}
        computed = _computed_values(value, pieces)
        drawn = {
            name: same
            if (same := _same_named(name, item, pieces)) is not None
            else argument
            if whole is not None and (argument := _given(name, item, whole.get("given"))) is not None
            else computed[name]
            if name in computed
            else _stored_field(defaults[name])
            if name in defaults and "$shown" in defaults[name] and _same(item, defaults[name]["$shown"])
            else defaults[name] | {"else": item}
            if name in defaults and "$shown" not in defaults[name] and not isinstance(item, dict | list)
            else {"$fresh": True}
            if whole is not None
            and type(item) is int
            and item == whole["fresh"] >= 2  # a JSON 1 is as often a constant: a later id tells
            and _number_leaf(item, pieces, small) is None  # a number of the call first
            # One past the largest made-up id stored now, where the counter tells it apart (a server that
            # numbers a record max(id) + 1: a create after deleting the newest record).
            else {"$fresh": "stored"}
            if whole is not None
            and type(item) is int
            and item == whole.get("fresh_stored", 0) >= 2
            and _number_leaf(item, pieces, small) is None
            else _template_of(item, pieces, whole)
            for name, item in value.items()
        }
        return _counted_rows(value, drawn)
    if isinstance(value, list):
        # Records listed inside may show stored fields' defaults; nothing else of the world reaches in.
        defaults = whole.get("defaults") if whole is not None else None
        inner: dict[str, Any] = {"records": {}, "lists": {"added": [], "sorted": []}, "fresh": 0, "defaults": defaults}
        return [_template_of(item, pieces, inner if defaults else None) for item in value]
    return value


def _filtered_keys(
    spec: ToolSpec, found: dict[str, tuple[Any, bool]], worlds: list[dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """The listings of stored keys drawn (`{"$keys": ...}`) filtered by the tool's array arguments: each one
    the records whose list field holds some, all or none of its items (tags asked for, tags left out), or no
    filter, every combination a candidate the covering weighs against the recorded calls."""
    arrays = [name for name in _strings(spec) if name.endswith("/0")]
    arrays = [name.removesuffix("/0") for name in arrays]
    fields = sorted(
        {
            field
            for world in worlds
            for entry in world.get("keys", {}).values()
            for field, value in {**entry.get("args", {}), **(entry.get("rec") or {})}.items()
            if isinstance(value, list) and value and all(isinstance(item, str) for item in value)
        }
    )
    if not arrays or not fields or len(arrays) > _KEY_FILTER_ARRAYS:
        return
    options = [[None, *([kind, name, field] for kind in _KEY_FILTERS for field in fields)] for name in arrays]
    for template, error in list(found.values()):
        if error:
            continue
        for listing in _key_listings(template):
            for chosen in itertools.product(*options):
                where = [rule for rule in chosen if rule is not None]
                if where:
                    yield _replaced(template, listing, {**listing, "where": where})


def _key_listings(template: Any) -> Iterator[dict[str, Any]]:
    """The unfiltered listings of stored keys inside a template."""
    if isinstance(template, dict) and "$keys" in template and "where" not in template:
        yield template
    elif isinstance(template, dict) and not any(marker in template for marker in ("$parts", *_WHOLE)):
        for item in template.values():
            yield from _key_listings(item)


def _replaced(template: Any, old: dict[str, Any], new: dict[str, Any]) -> Any:
    """`template` with the part `old` (the very object) replaced by `new`."""
    if template is old:
        return new
    if isinstance(template, dict) and not any(marker in template for marker in ("$parts", *_WHOLE)):
        return {name: _replaced(item, old, new) for name, item in template.items()}
    return template


def _optional_clauses(template: Any, required: set[str]) -> Any:
    """`template` with each placeholder of an optional argument or a stored field that follows a separator
    (`" "`, `", "`, `"; "`) in a text made a clause left out with it where it cannot be written (`["opt",
    [sep, part]]`): "Deprecated; use *x*. <reason> <notes>" where a reason was not given and notes are null."""
    if isinstance(template, list):
        return [_optional_clauses(item, required) for item in template]
    if not isinstance(template, dict):
        return template
    if "$record" in template:
        # A record read back with some fields given anew: its fields' texts too.
        return {**template, "set": {name: _optional_clauses(item, required) for name, item in template["set"].items()}}
    if "$parts" not in template:
        if any(marker in template for marker in _WHOLE):
            return template
        return {name: _optional_clauses(item, required) for name, item in template.items()}
    parts: list[Any] = []
    for part in template["$parts"]:
        optional = isinstance(part, list) and (
            (part[0] == "arg" and part[1] not in required) or (part[0] == "stored" and len(part) == 3)
        )
        before = parts[-1] if parts and isinstance(parts[-1], str) else None
        sep = next((sep for sep in _CLAUSE_SEPARATORS if before is not None and before.endswith(sep)), None)
        if optional and before is not None and sep is not None:
            rest = before[: -len(sep)]
            parts[-1:] = [rest] if rest else []
            parts.append(["opt", [sep, part]])
        else:
            parts.append(part)
    return {**template, "$parts": parts}


def _tally_of(value: Any, tallies: dict[str, dict[str, int]]) -> dict[str, Any] | None:
    """`value` as a tally of a field over the stored records (`library.twin_tallies`): an object of how many
    records hold each value (`{"$tally": field}`: tags and how many terms have each), or, a number from 2,
    how many values there are (`"size"`: a 1 is as often a constant). None where no field's tally is it."""
    for name, tally in sorted(tallies.items()):
        if isinstance(value, dict) and value and value == tally:
            return {"$tally": name}
        if type(value) is int and value >= 2 and value == len(tally):
            return {"$tally": name, "size": True}
    return None


def _record_read(
    name: str, record: dict[str, Any], value: dict[str, Any], pieces: list[tuple[str, list[Any]]], whole: dict[str, Any]
) -> dict[str, Any]:
    """The record stored under the key argument `name` names, as `value` shows it: its lists of texts the
    server keeps sorted shown sorted (`"sorted"`: tags given in any order, read back in order), and the fields
    that differ given anew (`"set"`). With `whole["merge"]`, the record's fields named as the tool's arguments
    are those arguments where the call gives them and stay as stored where it does not (`"merge"`: a partial
    update answering the whole record), where this answer bears that out for each of them."""
    kept = sorted(f for f, item in value.items() if _sorted_texts(record[f], item))
    shown = {f: sorted(item) if f in kept else item for f, item in record.items()}
    merged: list[str] = []
    given = whole.get("given")
    # Each field with the argument it shows: its namesake, or the argument it shows under another name.
    pairs = [(f, f) for f in (given or {}).get("fields", []) if f in value and f != name]
    pairs += [(f, arg) for f, arg in (given or {}).get("aliases", {}).items() if f in value and name not in (f, arg)]
    lower: set[str] = set()
    blank: set[str] = set()
    if whole.get("merge") and given is not None:
        args = given["args"]
        # The argument's texts in lower case where only so they are what the answer shows.
        lower = {
            f
            for f, arg in pairs
            if args.get(arg) is not None
            and not _same(args[arg], value[f])
            and (lowered := _lowered(args[arg])) is not None
            and _same(lowered, value[f])
        }
        # An empty text the answer shows as null: it clears the field.
        blank = {f for f, arg in pairs if args.get(arg) == "" and value[f] is None}
        if all(
            f in lower or f in blank or _same(args[arg], value[f])
            if args.get(arg) is not None
            else _same(shown.get(f), value[f])
            for f, arg in pairs
        ):
            merged = [f for f, arg in pairs if args.get(arg) is not None]
    composing = {"composed": whole.get("composed", {}), "given": given}
    changed = {
        f: _composed_or(item, pieces, composing, f) for f, item in value.items() if item != shown[f] and f not in merged
    }
    read: dict[str, Any] = {"$record": name, "set": changed}
    if kept:
        read["sorted"] = kept
    if merged:
        read["merge"] = [
            [f, arg, "lower"] if f in lower else [f, arg, "blank"] if f in blank else f if f == arg else [f, arg]
            for f, arg in pairs
        ]
    return read


def _sorted_texts(stored: Any, shown: Any) -> bool:
    """Whether `shown` is the stored list of texts in sorted order, which it was not stored in."""
    return (
        isinstance(stored, list)
        and all(isinstance(item, str) for item in stored)
        and shown != stored
        and shown == sorted(stored)
    )


def _parsed_documents(pieces: list[list[Any]]) -> dict[str, list[Any]]:
    """By its JSON text (keys sorted), each document a text stored under a key the call names writes, with the
    key's argument and the field (`{"$parsed": [name, field]}`): a value an agent gave as JSON text, which a
    server keeps as the document and answers re-written (`json.loads`, then `json.dumps`: its own spacing), or
    as a JSON value of its structured answer. An empty one is left out: `[]` is as often an empty listing."""
    found: dict[str, list[Any]] = {}
    for text, placeholder in pieces:
        if placeholder[0] != "stored" or len(placeholder) != 3 or text.strip()[:1] not in ("{", "["):
            continue
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict | list) and value:
            found.setdefault(json.dumps(value, sort_keys=True), placeholder[1:3])
    return found


def _listed_keys(pieces: list[list[Any]]) -> dict[str, list[list[Any]]]:
    """By its JSON text, each list of stored keys a predicate picks in an order, with every (predicate, order)
    that lists it so (`{"$keys": pred, "order": order}`): a store's listing of its keys answered as a JSON
    array. Read from the listings joined by a line (`["list", pred, order, "\n"]`), which no key holds."""
    found: dict[str, list[list[Any]]] = {}
    for text, placeholder in pieces:
        if placeholder[0] != "list" or placeholder[3] != "\n" or not text:
            continue
        reading = [placeholder[1], placeholder[2]]
        readings = found.setdefault(json.dumps(text.split("\n")), [])
        if reading not in readings:
            readings.append(reading)
    return found


def _computed_values(value: dict[str, Any], pieces: list[tuple[str, list[Any]]]) -> dict[str, dict[str, Any]]:
    """The fields of a JSON object that a function computes whole (`{"$value": part}`: a flag, a null, a day
    count, a list of named days, a short text such as a code upper-cased), each field its own function: of
    the functions of equal value, the first no field before it took (`is_weekend` and `is_holiday` are
    both false on most days, and are two functions)."""
    found: dict[str, dict[str, Any]] = {}
    taken: list[list[Any]] = []
    for name, item in value.items():
        if isinstance(item, dict) or (isinstance(item, str) and len(item.strip()) >= _SHORTEST):
            continue
        written = _WHOLE_VALUE + json.dumps(item, sort_keys=True)
        part = next((p for text, p in pieces if text == written and p not in taken), None)
        if part is not None:
            found[name] = {"$value": part}
            taken.append(part)
    return found


def _acknowledging(template: Any) -> bool:
    """Whether a constant success may only acknowledge a call on the record its key names ("Task deleted
    successfully"): a line of text, or a JSON object of such lines and flags (`{"success": true}`, `_flags`).
    It may be answered under the condition that the key is stored, on two calls at least (a record's content
    would differ between them: `_Condition.option`)."""
    template = _unmade(template)
    one_line = isinstance(template, str) and not may_list(template)
    return one_line or _flags(template)


def _flags(template: Any) -> bool:
    """A JSON object that only says how a call went: its leaves booleans, nulls and one-line texts, also in
    an object inside it (`{"success": true, "boundaries": {"story_completed": false}}`); no number or list,
    which could count or list what is stored."""
    if not isinstance(template, dict) or not template:
        return False
    return all(
        item is None
        or isinstance(item, bool)
        or (isinstance(item, str) and not may_list(item))
        or (isinstance(item, dict) and _flags(item))
        for item in template.values()
    )


# The atoms of a check of the call alone: a value outside a set the tool documents, a text the server cannot
# read as JSON where it reads every success's so. (Not a value's form: a
# name's form may only happen to tell the recorded calls whose key was missing, `nothing-here` beside `north-1`,
# which a condition on the world explains.)
_CHECKS = frozenset({"not_among", "not_json"})
# A made-up id as a JSON leaf, as `json.dumps` writes it inside a template.
_FRESH = '"$fresh": true'


def _same_named(name: str, item: Any, pieces: list[tuple[str, list[Any]]]) -> dict[str, Any] | None:
    """A JSON integer field named as the number argument whose value it shows (`"id": 1` of a call with
    `id: 1`): that argument, even where it is 1 (a constant 1 would not be named so)."""
    if type(item) is not int:
        return None
    return {"$number": ["num", name]} if (str(item), ["num", name]) in pieces else None


def _composed_or(item: Any, pieces: list[tuple[str, list[Any]]], inner: dict[str, Any], name: str) -> Any:
    """A changed field of a record read back: a text composed from its fields as such, an argument of its
    name as given (`_given`: an update's), else as drawn."""
    if isinstance(item, str) and item in inner["composed"]:
        return {"$parts": [inner["composed"][item]]}
    if (argument := _given(name, item, inner["given"])) is not None:
        return argument
    return _template_of(item, pieces, None)


def _given(name: str, item: Any, given: dict[str, Any] | None) -> dict[str, Any] | None:
    """A JSON field named as an argument that shows its value as the call gave it (a list of tags, a
    priority; an array's items sorted, `"sorted": true`), or where the call gave none the value the tool's
    answers show most then (the server's default): `{"$arg": name, "else": default}`. Numbers are left to
    the numbers of the call (`_same_named`)."""
    if given is None or isinstance(item, dict) or type(item) in (int, float):
        return None
    args, defaults = given["args"], given["defaults"]
    name = given.get("aliases", {}).get(name, name)
    if name in args and _same(args[name], item):
        return {"$arg": name, "else": defaults.get(name)}
    if name in args and (lowered := _lowered(args[name])) is not None and _same(lowered, item):
        # A server that keeps the texts in lower case (tags `BACKEND` kept as `backend`).
        return {"$arg": name, "else": defaults.get(name), "lower": True}
    if args.get(name) == "" and item is None:
        # An empty text that clears the field: "pass an empty string to clear the due date".
        return {"$arg": name, "else": defaults.get(name), "blank": True}
    value = args.get(name)
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and _same(sorted(value), item):
        # Items the server sorts (tags shown in order whatever order they were given in).
        return {"$arg": name, "else": defaults.get(name), "sorted": True}
    if name in args:
        return None
    if name in defaults and _same(defaults[name], item):
        return {"$arg": name, "else": item}
    return None


def _lowered(value: Any) -> Any:
    """A text, or a list of texts, in lower case where that changes it; else None."""
    if isinstance(value, str) and value.lower() != value:
        return value.lower()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        lowered = [item.lower() for item in value]
        return lowered if lowered != value else None
    return None


def _given_defaults(tool: ToolSpec, calls: list[RecordedCall], aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """By argument, the value a JSON field of its name (or the field that shows it under another name,
    `aliases`) shows most often in the tool's successes that did not give it (a null priority, an empty list
    of tags): the server's default for it."""
    properties = tool.input_schema.get("properties") or {}
    seen: dict[str, Counter[str]] = {}

    def walk(value: Any, args: dict[str, Any]) -> None:
        if isinstance(value, dict):
            for shown_as, item in value.items():
                name: str = (aliases or {}).get(shown_as) or shown_as
                if name in properties and name not in args and not isinstance(item, dict):
                    seen.setdefault(name, Counter())[json.dumps(item, sort_keys=True)] += 1
                walk(item, args)

    for call in calls:
        if _succeeded(call):
            walk(call.value, call.arguments)
    return {name: json.loads(count.most_common(1)[0][0]) for name, count in seen.items()}


def _field_aliases(tool: ToolSpec, calls: list[RecordedCall]) -> dict[str, str]:
    """By JSON field, the argument it shows under another name (`prio` showing `priority`, `body` showing
    `content`): a field named as no argument, in every success that gives the argument equal to its value,
    two different values at least, and the argument shown by no field of its own name. Fields that show
    numbers are left out (a count equal to a limit is as often a coincidence: `_same_named` reads the
    call's numbers), and a number argument shown as text is no alias of it."""
    properties = tool.input_schema.get("properties") or {}
    answers = [(call.arguments, call.value) for call in calls if _succeeded(call) and isinstance(call.value, dict)]
    named = {field for _, value in answers for field, _ in _object_fields(value)}
    agree: dict[tuple[str, str], set[str]] = {}
    differ: set[tuple[str, str]] = set()
    for args, value in answers:
        for shown_as, item in _object_fields(value):
            if shown_as in properties or isinstance(item, dict) or type(item) in (int, float):
                continue
            for name, given in args.items():
                # A number given and shown as text (`"input": "255"` for 255) differs: written whole, the
                # argument would be the number.
                if name in named or given is None or isinstance(given, dict):
                    continue
                if _same(given, item):
                    agree.setdefault((shown_as, name), set()).add(json.dumps(item, sort_keys=True))
                else:
                    differ.add((shown_as, name))
    found = {pair: len(values) for pair, values in agree.items() if pair not in differ and len(values) >= 2}
    aliases: dict[str, str] = {}
    for shown_as, name in sorted(found, key=lambda pair: -found[pair]):
        if shown_as not in aliases and name not in aliases.values():
            aliases[shown_as] = name
    return aliases


def _composed(
    calls: list[RecordedCall],
    worlds: list[dict[str, Any]],
    names: list[str],
    root: str | None,
    shown: list[list[Segment]],
) -> list[dict[str, list[Any]]]:
    """Per call, its answer's texts that a server composes from fields (`composed.py`), each with the
    placeholder that writes it: from the call's arguments, or from the record stored under the key an
    argument names. The segments of each source are merged over every call of the tool and every record any
    answer shows with its line (`shown`)."""
    sources: dict[str, list[Any]] = {"args": ["args"], **{name: ["stored", name] for name in names}}
    texts: dict[str, list[tuple[int, str, list[Segment]]]] = {}
    for index, (call, world) in enumerate(zip(calls, worlds, strict=True)):
        if not _succeeded(call):
            continue
        fields_of: dict[str, dict[str, Any]] = {}
        if root is None:
            for name in names:
                value = call.arguments.get(name)
                entry = world["keys"].get(str(value)) if isinstance(value, str | int) else None
                if isinstance(entry, dict):
                    # The record as the call leaves it: an update's arguments in place of its fields.
                    rec = entry.get("rec")
                    given = {k: v for k, v in call.arguments.items() if k != name and "/" not in k}
                    stored = {**entry.get("args", {}), **(rec if isinstance(rec, dict) else {}), **given}
                    fields_of[name] = undated(stored)
        # The record a key names first (as the call leaves it: an update's line), else the call's arguments.
        fields_of["args"] = call.arguments
        for leaf, text in _named_texts(call.value):
            for source, fields in fields_of.items():
                # Not the field itself: a stored record's old line is no part of its new one.
                if (segments := parse(text, {k: v for k, v in fields.items() if k != leaf})) is not None:
                    texts.setdefault(source, []).append((index, text, segments))
                    break
    found: list[dict[str, list[Any]]] = [{} for _ in calls]
    for source, parsed in texts.items():
        merged = merge(shown + [segments for _, _, segments in parsed])
        if merged is None:
            continue
        for index, text, _ in parsed:
            found[index][text] = ["compose", sources[source], [list(segment) for segment in merged]]
    return found


def _named_texts(value: Any, name: str = "") -> Iterator[tuple[str, str]]:
    """Each text of more than one word in a JSON value, with the name of the field that holds it."""
    if isinstance(value, str) and " " in value:
        yield name, value
    elif isinstance(value, dict):
        for field_name, item in value.items():
            yield from _named_texts(item, field_name)
    elif isinstance(value, list):
        for item in value:
            yield from _named_texts(item, name)


def _stored_field(spec: dict[str, Any]) -> dict[str, Any]:
    return {"$stored": spec["$stored"], "else": spec["else"]}


def _same(first: Any, second: Any) -> bool:
    return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def _revisions_first(pieces: list[tuple[str, list[Any]]]) -> list[tuple[str, list[Any]]] | None:
    """The pieces with a record's revision (`writes`) before every other number of the same text, where one
    comes before it (a count of 3 notes and a third revision): a text is written as the first piece that
    writes it, so the template is drawn again this way and the covering tells which holds; else None."""
    revisions = {text for text, part in pieces if part[0] == "writes"}
    first: dict[str, str] = {}
    for text, part in pieces:
        first.setdefault(text, part[0])
    if all(first[text] == "writes" for text in revisions):
        return None
    return sorted(pieces, key=lambda piece: (-len(piece[0]), piece[1][0] != "writes"))


def _kept_first(pieces: list[tuple[str, list[Any]]]) -> list[tuple[str, list[Any]]] | None:
    """The pieces with the numbers a store keeps with a record (its reads, then its id: `library.twin_reads`,
    `twin_serial`) before every other number of the same text (a record's 2 reads and a count of 2), where
    the call shows any: drawn again so, 0 and 1 written as them too, the covering tells which holds; else
    None."""
    rank = {"reads": 0, "serial": 1}
    if not any(part[0] in rank for _, part in pieces):
        return None
    return sorted(pieces, key=lambda piece: (-len(piece[0]), rank.get(piece[1][0], 2)))


def _numeric(text: str, part: list[Any]) -> bool:
    """Whether a piece is a number (written only where it stands whole): a number's placeholder, or an
    operation on texts whose value is one (`strings.py`: where a piece occurs, how many)."""
    return part[0] in _NUMBER_PARTS or (part[0] == "str" and text.lstrip("-").isdigit())


def _usable(pieces: list[list[Any]]) -> list[tuple[str, list[Any]]]:
    """Pieces a template may write, longest text first (ties: as given): a number whole, other text only
    when long enough to mean something."""
    found = [
        (text, part)
        for text, part in pieces
        if _numeric(text, part)
        or part[0] == "expr_name"
        or len(text.strip()) >= _SHORTEST
        or text.startswith(_WHOLE_VALUE)
    ]
    found.sort(key=lambda piece: -len(piece[0]))
    return found


def _each(value: list[Any], items: dict[str, list[tuple[list[tuple[str, list[Any]]], list[str]]]]) -> Any:
    """A list as one answer per item of an array argument as long, where every item's answer, drawn from
    that item's pieces, is one template that writes something of the call; or two, one of them where a
    key the item names is stored (`created` or `updated`, `deleted` or not), or where the item gives a field
    (a request's id, which the server makes up for an item that gives none)."""
    if not value:
        return None
    for name, per_item in items.items():
        if len(per_item) != len(value):
            continue
        drawn = [_template_of(item, pieces, None) for item, (pieces, _) in zip(value, per_item, strict=True)]
        texts = [json.dumps(d, sort_keys=True) for d in drawn]
        if not any(_placeholders(d) for d in drawn) or len(set(texts)) > 2:
            continue
        if len(set(texts)) == 1:
            return {"$each": name, "item": drawn[0]}
        stored = texts[0]
        for key in sorted({key for _, present in per_item for key in present} | {"?"}):
            if all((key in present) == (text == stored) for (_, present), text in zip(per_item, texts, strict=True)):
                other = drawn[texts.index(next(t for t in texts if t != stored))]
                return {"$each": name, "item": other, "cases": [[[["present", key, None]], drawn[0]]]}
            if all((key in present) == (text != stored) for (_, present), text in zip(per_item, texts, strict=True)):
                other = drawn[texts.index(next(t for t in texts if t != stored))]
                return {"$each": name, "item": drawn[0], "cases": [[[["present", key, None]], other]]}
        # Or one where the item gives a field (a request's id as given; made up where it gives none).
        given = [{piece[1] for _, piece in pieces if piece[0] == "arg"} for pieces, _ in per_item]
        for part in sorted(set().union(*given)):
            if all((part in names) == (text == stored) for names, text in zip(given, texts, strict=True)):
                other = drawn[texts.index(next(t for t in texts if t != stored))]
                return {"$each": name, "item": other, "cases": [[[["given", part]], drawn[0]]]}
            if all((part in names) == (text != stored) for names, text in zip(given, texts, strict=True)):
                other = drawn[texts.index(next(t for t in texts if t != stored))]
                return {"$each": name, "item": drawn[0], "cases": [[[["given", part]], other]]}
    return None


def _defaults(
    entries: dict[str, Any], tools: dict[str, _Tool], shown: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """By field name: the stored field an answer's field of that name shows (`{"$stored": [key argument,
    field]}`), for each argument of the storing tool that this entry was stored without (what the answer
    shows there is the server's default); and for each field it was stored with, any JSON value (a list of
    tags, a field an update gave), with the default `shown` (`_shown_defaults`) for records without it
    and the value stored (`$shown`: the answer shows that field only where it shows this value)."""
    found: dict[str, dict[str, Any]] = {}
    # A record a pair of arguments names before its namespace (`first+second` before `first`): the namespace
    # is no record, and what it lacks is no default of the server's.
    for name, entry in sorted(entries.items(), key=lambda item: "+" not in item[0]):
        tool = tools.get(entry["by"])
        properties = tool.spec.input_schema.get("properties") or {} if tool is not None else {}
        for field_name in properties:
            if field_name not in entry["fields"] and field_name != name:
                found.setdefault(field_name, {"$stored": [name, field_name]})
        if shown is None:
            continue
        for field_name, value in entry.get("args", {}).items():
            if field_name != name and "/" not in field_name:
                spec = {"$stored": [name, field_name], "else": shown.get(field_name), "$shown": value}
                found.setdefault(field_name, spec)
    return found


def _shown_defaults(
    calls: list[RecordedCall], entries: list[dict[str, Any]], tools: dict[str, _Tool]
) -> dict[str, Any]:
    """By field name, the value a tool's record answers show most often for a stored record without that
    field (an argument of the storing tool, or a field another call stored): the server's default."""
    seen: dict[str, Counter[str]] = {}
    stored = {name for found in entries for entry in found.values() for name in entry["fields"]}
    for call, found in zip(calls, entries, strict=True):
        if call.is_error or not isinstance(call.value, dict):
            continue
        for name, entry in found.items():
            tool = tools.get(entry["by"])
            properties = tool.spec.input_schema.get("properties") or {} if tool is not None else {}
            for field_name, value in _object_fields(call.value):
                if field_name in entry["fields"] or field_name == name or isinstance(value, dict):
                    continue
                if field_name in properties or field_name in stored:
                    seen.setdefault(field_name, Counter())[json.dumps(value, sort_keys=True)] += 1
    return {name: json.loads(count.most_common(1)[0][0]) for name, count in seen.items()}


def _object_fields(value: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The fields of a JSON object and of the objects nested in it, depth first: a record an answer shows
    under a field of its own (`{"task": {"id": 4, "task": {...}}}`) shows its defaults there."""
    for name, item in value.items():
        yield name, item
        if isinstance(item, dict):
            yield from _object_fields(item)


def _item_lines(text: str, pieces: list[tuple[str, list[Any]]], whole: dict[str, Any]) -> dict[str, Any] | None:
    """A text with one line per item of an array argument (a table's rows, a bulleted list), each line one
    template over its item, written as `["each_line", array, parts]` between the text before and after."""
    lines = text.split("\n")
    for name, per_item in whole.get("items", {}).items():
        count = len(per_item)
        if count == 0:
            continue  # an empty array (`tags: []`, a list cleared) writes no line to read a template from
        # What each item's own fields write: a line of the item holds one of them (checked before drawing).
        own = [
            [written for written, part in pieces if len(part) > 1 and str(part[1]).startswith(name + "/*")]
            for pieces, _ in per_item
        ]
        for separator in _BLOCK_SEPARATORS if count > 1 else ():
            # A block of several lines per item (a view of several records), between separators.
            blocks = text.split(separator)
            if len(blocks) != count:
                continue
            rows = [
                _optional_lines(_template_of(block, item_pieces, None))
                for block, (item_pieces, _) in zip(blocks, per_item, strict=True)
            ]
            first = json.dumps(rows[0], sort_keys=True)
            if f'"{name}/*' in first and all(json.dumps(row, sort_keys=True) == first for row in rows[1:]):
                return {"$parts": [["each_line", name, rows[0], separator]]}
        for start in range(len(lines) - count + 1):
            window = lines[start : start + count]
            if not all(any(written in line for written in texts) for line, texts in zip(window, own, strict=True)):
                continue
            drawn = [
                _template_of(line, item_pieces, None)
                for line, (item_pieces, _) in zip(lines[start : start + count], per_item, strict=True)
            ]
            first = json.dumps(drawn[0], sort_keys=True)
            if f'"{name}/*' not in first or any(json.dumps(d, sort_keys=True) != first for d in drawn[1:]):
                continue
            row = drawn[0]["$parts"] if isinstance(drawn[0], dict) else [drawn[0]]
            before = "".join(line + "\n" for line in lines[:start])
            after = "".join("\n" + line for line in lines[start + count :])
            parts: list[Any] = []
            for side in (before, None, after):
                drawn_side = (
                    _template_of(side, pieces, None) if side is not None else {"$parts": [["each_line", name, row]]}
                )
                parts += drawn_side["$parts"] if isinstance(drawn_side, dict) else [drawn_side]
            return {"$parts": [part for part in parts if part != ""]}
    return None


def _optional_lines(template: Any) -> list[Any]:
    """A block's parts with each line that writes a stored field, or the record an id is counted under, made
    optional (`["opt", parts]`): a record's view leaves out the line of a field it lacks (a description, a
    parent), so that blocks with and without it are one template."""
    parts = template["$parts"] if isinstance(template, dict) and "$parts" in template else [template]
    out: list[Any] = []
    for at, part in enumerate(parts):
        before = out[-1] if out else None
        if (
            isinstance(part, list)
            and part[0] in ("stored", "outer")
            and isinstance(before, str)
            and before.startswith("\n")
            and (at + 1 == len(parts) or (isinstance(parts[at + 1], str) and parts[at + 1].startswith("\n")))
        ):
            out[-1] = ["opt", [before, part]]
        else:
            out.append(part)
    return out


def _number_leaf(
    value: int, pieces: list[tuple[str, list[Any]]], small: frozenset[str] = _SMALL
) -> dict[str, Any] | None:
    """A JSON integer as the first number or length of the call that writes it: from 2 on, or one of the
    kinds `small` (an item's place; a JSON 0 or 1 is as often a constant, `"total": 1`; a call with more
    tells); a 1 that is how many records are stored, too: where something is stored, a constant success is no
    answer the twin may give, and the covering tells the count from a constant 1 by the calls of more
    records."""
    text = str(value)
    for written, part in pieces:
        if written == text and part[0] in _LEAF_NUMBERS and (value >= 2 or part[0] in small):
            return {"$number": part}
    for written, part in pieces:
        if written == text and part[0] == "count" and value == 1:
            return {"$number": part}
    return None


def _computed_leaf(value: float, pieces: list[tuple[str, list[Any]]]) -> dict[str, Any] | None:
    """A JSON number as the value an expression or the call's arithmetic computes (`{"result": 9.75}` of
    `"(36 + 3) / 4"`): the number the piece's text reads as in JSON, of the same kind (an int written `35`, a
    double `7.0`), so that a server answering its computation as a JSON number is answered as one written in a
    text is."""
    for written, part in pieces:
        number = _json_number(written) if part[0] in _COMPUTED_LEAVES else None
        if number is not None and type(number) is type(value) and number == value:
            return {"$number": part}
    return None


def _json_number(text: str) -> int | float | None:
    """The number a text writes as JSON reads it (an int's digits, a double's with a point or an exponent), as
    the library's `twin_json_number` reads it at run time (tests/test_twin_json_number.py holds the two to one
    grammar: inference reads a computed text here, where no library call is at hand); None for any other text
    (`inf`, `nan`, `3/8`)."""
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    found = re.fullmatch(r"-?([0-9]+)(?:\.([0-9]+))?(?:e([+-]?[0-9]+))?", text)
    if found is None:
        return None
    whole, fraction, exponent = found[1].lstrip("0"), found[2] or "", int(found[3] or 0)
    significant = fraction.lstrip("0")
    # The power of ten of its first significant digit: a double holds no number of 1e308 or more.
    if whole:
        magnitude = len(whole) - 1 + exponent
    else:
        magnitude = exponent - (len(fraction) - len(significant)) - 1 if significant else 0
    return float(text) if magnitude < _DOUBLE_MAGNITUDE else None


# No number of this power of ten or more is read as a double: Python would read it as infinity, which JSON cannot
# write, and Starlark refuses it (`twin_json_number` reads the same bound).
_DOUBLE_MAGNITUDE = 308


def _line_leaf(value: float, pieces: list[tuple[str, list[Any]]]) -> dict[str, Any] | None:
    """A JSON number as the number a line converts (`functions`: a whole one or not)."""
    for written, part in pieces:
        if part[0] in ("linear", "units") and float(written) == value:
            return {"$number": part}
    # A server that reads its numbers as doubles writes a whole number it was given as one (`3` as `3.0`); a
    # 0 or 1 is as often a constant.
    if type(value) is float and value not in (0.0, 1.0):
        for written, part in pieces:
            if part[0] == "num" and re.fullmatch(r"-?[0-9.e+-]+", written) and float(written) == value:
                return {"$number": part}
    return None


def _arrays(tool: ToolSpec) -> dict[str, list[str]]:
    """The array arguments, each with the string fields of its items (none: items that are strings)."""
    properties = tool.input_schema.get("properties") or {}
    found: dict[str, list[str]] = {}
    for name, schema in properties.items():
        array = declaring(schema, "array") if types_of(schema) - {"null"} == {"array"} else None
        items = array.get("items") if array else None
        if not isinstance(items, dict):
            continue
        fields = items.get("properties") or {}
        found[name] = sorted(f for f, s in fields.items() if isinstance(s, dict) and s.get("type") == "string")
    return found


def _counted_prefixes(sessions: list[list[RecordedCall]]) -> tuple[str, ...]:
    """Prefixes under which a server counts the ids it makes up (`task-` of `task-3`): those of ids a success
    shows before any call of its session gave them. A name the agent chose (`delta-86`, a folder) is given
    first and shown after; a server's id is shown first and given after."""
    found: set[str] = set()
    for session in sessions:
        given: set[str] = set()  # what the session's calls gave so far, as counted-id-like tokens
        for call in session:
            for text in strings_in(call.arguments):
                given.update(m.group(0) for m in _COUNTED.finditer(text))
            shown = [
                m
                for text in (strings_in(call.value) if _succeeded(call) else [])
                # a UUID's `becd-4123` is no counted id
                for m in _COUNTED.finditer(_MADE_UP.sub(" ", text))
            ]
            found.update(m.group(1) for m in shown if m.group(0) not in given)
    return tuple(sorted(found))


def _numbered_records(sessions: list[list[RecordedCall]]) -> list[list[Any]]:
    """Records a server numbers from one sequence, wherever an answer shows them: `[field, fields]`, an object
    of exactly `fields` (three at least, shown by two tools at least) whose integer `field` differs between the
    records one answer shows (some answer showing several: a listing's count is no record's number), names a
    record in a later call of its session (an id, not a priority), and is
    sometimes shown though no call gave it (made up: a split's subtasks, beside the task it was given). The
    twin's next made-up id is then past every such number an answer showed (`library.twin_numbered`)."""
    shown: dict[tuple[str, ...], set[str]] = {}  # by fields: the tools whose successes show such records
    candidates: dict[tuple[str, ...], set[str]] = {}  # by fields: the integer fields that may number them
    for call in (call for session in sessions for call in session if _succeeded(call)):
        for record in _objects_in(call.value):
            fields = tuple(sorted(record))
            if len(fields) < 3:
                continue
            shown.setdefault(fields, set()).add(call.tool)
            numbers = {name for name, value in record.items() if type(value) is int}
            candidates[fields] = candidates.get(fields, numbers) & numbers
    found: list[list[Any]] = []
    for fields, names in sorted(candidates.items()):
        if len(shown[fields]) < 2:
            continue
        for name in sorted(names):
            if _numbers_records(sessions, fields, name):
                found.append([name, list(fields)])
    return found


def _numbers_records(sessions: list[list[RecordedCall]], fields: tuple[str, ...], name: str) -> bool:
    """Whether the integer field `name` of records of `fields` numbers them (`_numbered_records`)."""
    named = made = listed = False
    for session in sessions:
        seen: set[int] = set()
        for call in session:
            given = {value for value in call.arguments.values() if type(value) is int}
            named = named or bool(given & seen)
            if not _succeeded(call):
                continue
            numbers = [r[name] for r in _objects_in(call.value) if tuple(sorted(r)) == fields]
            if len(set(numbers)) < len(numbers):
                return False
            made = made or any(number not in given for number in numbers)
            listed = listed or len(numbers) > 1
            seen.update(numbers)
    return named and made and listed


def _objects_in(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in `value`, itself and those nested in it."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects_in(item)


def _counted_widths(sessions: list[list[RecordedCall]], prefixes: list[str]) -> dict[str, int]:
    """The width to which a server pads the counter under each prefix with zeros (`TASK-007`: 3): where every
    id a success shows under it has digits of one length, and some begin with a zero (a counter that merely
    reached the same length, `task-12`, `task-31`, is not padded)."""
    lengths: dict[str, set[int]] = {prefix: set() for prefix in prefixes}
    padded: set[str] = set()
    for call in (call for session in sessions for call in session if _succeeded(call)):
        for text in strings_in(call.value):
            for m in _COUNTED.finditer(_MADE_UP.sub(" ", text)):
                if m.group(1) in lengths:
                    lengths[m.group(1)].add(len(m.group(2)))
                    if m.group(2).startswith("0"):
                        padded.add(m.group(1))
    return {prefix: lengths[prefix].pop() for prefix in sorted(padded) if len(lengths[prefix]) == 1}


def _nested_counters(sessions: list[list[RecordedCall]]) -> list[list[Any]]:
    """The (separator, width) of ids a server counts under a record the call names (`s02t01`, a subtask of
    `s02`: `t`, 2): a success shows a whole string that is an argument's value, a separator (a few letters or
    one mark) and a counter, the counter padded with zeros to a width where one shows a leading zero, and
    that value of a counter-free form first (no counted id itself: `s02` under `s`, never `s02t01` under it),
    so that the argument names a record."""
    found: dict[str, set[int]] = {}
    padded: set[str] = set()
    for call in (call for session in sessions for call in session if _succeeded(call)):
        given = {v for v in call.arguments.values() if isinstance(v, str) and v}
        for text in strings_in(call.value):
            for value in given:
                m = _NESTED.fullmatch(text[len(value) :]) if text.startswith(value) else None
                if m is not None:
                    found.setdefault(m.group(1), set()).add(len(m.group(2)))
                    if m.group(2).startswith("0"):
                        padded.add(m.group(1))
    return [
        [separator, widths.pop() if separator in padded and len(widths) == 1 else 0]
        for separator, widths in sorted(found.items())
    ]


def _counted_id(value: Any) -> bool:
    """Whether a string reads as an id a server counts: under a prefix (`task-3`, `s01`), or under another
    such id (`s02t01`)."""
    if not isinstance(value, str):
        return False
    return _COUNTED.fullmatch(value) is not None or any(
        _COUNTED.fullmatch(value[:at]) and _NESTED.fullmatch(value[at:]) for at in range(2, len(value) - 1)
    )


def _made_up(text: str, given: set[str], regions: list[str] | None = None) -> list[Any]:
    """`text` split around the values a server makes up (a UUID, a hex string of `HEX_FORM`, a signed hash
    after a word, an ISO 8601 time, also with a space for the `T`, a day alone: its clock's today) that the
    call did not give, nor lie inside one of `regions` of the text (a listing, which writes its own): each
    is written as a placeholder of its form."""
    spans = [(at, at + len(region)) for region in regions or [] if (at := text.find(region)) >= 0]
    parts: list[Any] = []
    last = 0
    for match in _MADE_UP.finditer(text):
        token = match.group(0)
        if token in given or (match.group("hex") and not re.search(r"[a-f]", token, re.IGNORECASE)):
            continue
        if any(start <= match.start() and match.end() <= end for start, end in spans):
            continue
        kind = next(kind for kind in ("uuid", "hex", "signed", "date", "today") if match.group(kind))
        size = len(token) if kind in ("uuid", "hex", "signed") else token
        parts += [text[last : match.start()], ["made_up", kind, size]]
        last = match.end()
    return [part for part in [*parts, text[last:]] if part != ""] or [text]


def _same_items(first: list[Any], second: list[Any]) -> bool:
    key = lambda item: json.dumps(item, sort_keys=True)  # noqa: E731
    return sorted(map(key, first)) == sorted(map(key, second))


def unordered(plan: dict[str, Any]) -> list[str]:
    """Where a guard plan's answers list records in an order nothing learnable explains (JSON pointers into
    the answer, `/` the whole): such a listing is to be compared as a set."""
    found: list[str] = []
    for rule in plan.get("rules", []):
        if not rule["error"]:
            found += _unordered_in(rule["answer"])
    return sorted(set(found))


def as_set(value: Any, paths: list[str]) -> Any:
    """`value` with the lists at `paths` (JSON pointers, `/` the whole) in one canonical order: how a listing
    whose order nothing explains is compared."""
    for path in paths:
        parts = [part for part in path.split("/") if part]
        value = _sorted_at(value, parts)
    return value


def _sorted_at(value: Any, parts: list[str]) -> Any:
    if not parts:
        return sorted(value, key=lambda item: json.dumps(item, sort_keys=True)) if isinstance(value, list) else value
    if isinstance(value, dict) and parts[0] in value:
        return {**value, parts[0]: _sorted_at(value[parts[0]], parts[1:])}
    return value


def _unordered_in(template: Any) -> list[str]:
    found: list[str] = []

    def walk(template: Any, at: str) -> None:
        if isinstance(template, dict) and template.get("$records") == "unordered":
            found.append(at or "/")
        elif isinstance(template, dict) and not any(marker in template for marker in ("$parts", *_WHOLE)):
            for name, item in template.items():
                walk(item, f"{at}/{name}")

    walk(template, "")
    return found


def _unmade(template: Any) -> Any:
    """`template` with the values a server makes up written as their recorded text: a success whose only
    placeholders are those (a listing with its records' creation times) is as constant as any other."""
    if isinstance(template, dict) and "$parts" in template:
        dated = ("date", "today")
        parts = [part[2] if part[0] == "made_up" and part[1] in dated else part for part in template["$parts"]]
        if all(isinstance(part, str) for part in parts):
            return "".join(parts)
        return {"$parts": parts}
    if isinstance(template, dict):
        return {name: _unmade(item) for name, item in template.items()}
    if isinstance(template, list):
        return [_unmade(item) for item in template]
    return template


def _placeholders(template: Any) -> bool:
    text = json.dumps(template)
    return "$parts" in text or any(f'"{marker}"' in text for marker in _WHOLE)


def _keys_named(template: Any, tool: ToolSpec) -> list[str]:
    """The arguments a template reads as keys: the strings and integers it writes (a number of another kind
    is a quantity, never a key), and those whose stored value or record it shows."""
    text = json.dumps(template)
    named = re.findall(r'\["(?:key|arg|stored|writes)", "([^"]+)"', text)
    named += [name for name in re.findall(r'\["num", "([^"]+)"', text) if name in _integers(tool)]
    named += re.findall(r'"\$record": "([^"]+)"', text)
    named += re.findall(r'"\$(?:rows|count)": \["is", "([^"]+)"\]', text)  # the record one argument names
    return sorted(set(named))


def _integers(tool: ToolSpec) -> list[str]:
    properties = tool.input_schema.get("properties") or {}
    return [name for name, schema in properties.items() if types_of(schema) - {"null"} == {"integer"}]


def _effects(
    tool: _Tool,
    found: dict[str, tuple[Any, bool]],
    pairs: list[list[str]] | None = None,
    stored_texts: list[str] | None = None,
) -> list[list[Any] | None]:
    """The effects a tool's successes may have, likeliest first: keep the record an answer shows under one
    of its fields that names a key or was made up; store, move or drop a key its answers name (a key
    joined from two arguments its answers both name first: tried only where one argument explained too
    little); drop the keys a predicate picks; nothing."""
    every = {name for template, error in found.values() if not error for name in _keys_named(template, tool.spec)}
    # An argument the answer writes back as given (`$arg`: a store that echoes its key) may name the key too,
    # tried after those the answers read as keys; never a text the call adds (`append` below).
    echoed = {name for template, error in found.values() if not error for name in _args_written(template)}
    joined = [_pair_name(a, b) for a, b in pairs or [] if {a, b} <= every | echoed]
    named = sorted({name for name in every if "/*" not in name} | set(tool.keyed))
    also = sorted(name for name in echoed - set(named) if "/" not in name and name in _strings(tool.spec))
    # An item's field an answer names (`items/*/key`), or the item itself (`keys/*`): each item is a key.
    each = sorted({(name.split("/*")[0], name.partition("/*/")[2]) for name in every - set(named)})
    kept = _record_keys(tool)
    children = _children(tool)
    # A record whose answer lists records nested in it (a request's tasks, each with an id made up): kept with
    # each child under its id, its parent's key beside its fields; or the children alone, under the key an
    # argument names (tasks added to a request).
    options: list[list[Any] | None] = [
        ["and", ["keep", field], ["keep_children", listed, key, field]] for field in kept for listed, key in children
    ]
    # A write whose answers show fields of their own beside the record's keeps the record without them, first.
    options += [["keep", field, "known"] for field in kept if tool.own]
    options += [["keep", field] for field in kept]
    # A record the call names and answers in part (its id and new status), kept with the fields it had: taken
    # only where a later read shows it (a record store whose update answers the whole record reads the same).
    options += [["keep", field, "merged"] for field in kept if named]
    if _announces_ids(tool):
        options.append(["keep_id"])
        # A save that creates a record under the id it makes up, or, given the id of one stored, changes it.
        options += [["and", ["keep_id"], ["merge", name]] for name in named if name in _integers(tool.spec)]
    parents = [name for name in _strings(tool.spec) if "/" not in name]
    options += [["keep_children", listed, key, name] for listed, key in children for name in parents]
    options += [["put_each", array, item or None] for array, item in each]
    options += [[kind, name] for name in joined for kind in ("put", "put_new")]
    options += [["put", name] for name in named + also]
    # A stored record some of whose fields the call changes (a task marked done, renamed).
    options += [["merge", name] for name in named + also]
    # A stored text the call adds to (a document appended to), with what joins them: only a later read tells
    # this from a merge, which is likelier where none does. The text is one the call must give.
    required = set(tool.spec.input_schema.get("required") or [])
    texts = [name for name in _strings(tool.spec) if name in required and name not in named and "/" not in name]
    options += [["append", name, text, joiner] for name in named for text in texts for joiner in _JOINERS]
    # A stretch of a stored text replaced by another, both texts the call must give (an edit of a record's
    # data by old and new string), in a field another tool stores: only a later read or edit tells it.
    edits = [(old, new) for old, new in itertools.permutations(texts, 2)]
    options += [
        ["substitute", name, field, old, new]
        for name in named
        for field in stored_texts or []
        if field not in tool.spec.input_schema.get("properties", {})
        for old, new in edits
    ]
    options += [["move", a, b] for a, b in itertools.permutations(named, 2)]
    if not named and not each and not children and not _given_keys(tool, kept):
        # A tool that names no record may read every record back anew, numbering them by their place (a
        # reload from a file, its lines numbered from 0 or 1): only later calls naming them so tell it. One
        # whose answers show the record an argument names (a write's `{"name": ...}`) names it: no reload
        # (its renumbering's small gain could shut out a later tool's larger one in the ascent).
        options += [["renumber", 0], ["renumber", 1]]
    drops: list[list[Any] | None] = [["drop", name] for name in joined + named + also]
    drops += [["drop_each", array, item or None] for array, item in each]
    drops += [["drop_matching", pred] for pred in _preds(tool.spec)]
    # Where the recordings cannot tell storing from dropping (a deleted key never read again), a tool named
    # as a delete drops.
    if read_intent(tool.spec.name).action is Action.DELETE:
        return [*drops, *options, None]
    return [*options, *drops, None]


def _given_keys(tool: _Tool, fields: list[str]) -> list[str]:
    """The fields of `fields` (`_record_keys`; `todo/id` under an object's field) whose value, in every
    success that shows it, one of the call's arguments gave: the record the call names."""
    found = []
    for name in fields:
        values = []
        for call in tool.calls:
            value: Any = call.value if _succeeded(call) else None
            for part in name.split("/"):
                value = value.get(part) if isinstance(value, dict) else None
            if value is not None:
                values.append(
                    isinstance(value, str | int) and not isinstance(value, bool) and value in call.arguments.values()
                )
        if values and all(values):
            found.append(name)
    return found


def _touches(
    tool: _Tool, found: dict[str, tuple[Any, bool]], pairs: list[list[str]] | None = None
) -> list[list[Any] | None]:
    """The effects a read may have: none first, then counting itself on the record a key its answers name
    picks (`["touch", name]`, an access count), which only later answers about that record bear out."""
    if not _counts_up(tool):
        return [None]
    every = {name for template, error in found.values() if not error for name in _keys_named(template, tool.spec)}
    # An argument the answer writes as given (`$arg`: the key a read echoes) names the record it reads too.
    every |= {name for template, error in found.values() if not error for name in _args_written(template)}
    joined = [_pair_name(a, b) for a, b in pairs or [] if {a, b} <= every]
    named = sorted(name for name in every if "/" not in name)
    return [None, *(["touch", name] for name in joined + named)]


def _args_written(template: Any) -> list[str]:
    """The arguments a template writes whole as the call gave them (`{"$arg": name}`)."""
    return sorted(set(re.findall(r'"\$arg": "([^"]+)"', json.dumps(template))))


def _counts_up(tool: _Tool) -> bool:
    """Whether a read's answers ever show it counting: two successes of one session with the same arguments
    whose answers differ only in whole numbers, each greater the second time (an access count); a read
    whose answers never do so is not tried as one that counts itself."""
    last: dict[tuple[str, str], dict[str, Any]] = {}
    for call in tool.calls:
        if not _succeeded(call):
            continue
        at = (call.session, json.dumps(call.arguments, sort_keys=True))
        leaves = dict(_leaves(call.value, ""))
        before = last.get(at)
        last[at] = leaves
        if before is None or before.keys() != leaves.keys() or before == leaves:
            continue
        changed = [path for path in leaves if before[path] != leaves[path]]
        if all(type(before[p]) is int and type(leaves[p]) is int and leaves[p] > before[p] for p in changed):
            return True
    return False


def _leaves(value: Any, at: str) -> Iterator[tuple[str, Any]]:
    """Each leaf of a JSON value with its JSON pointer."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _leaves(item, f"{at}/{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{at}/{index}")
    else:
        yield at, value


def _announces_ids(tool: _Tool) -> bool:
    """Whether a tool's text successes announce ids it made up ("Task created successfully with ID: 3"):
    each shows at most one whole number that no argument gave (`library.twin_made_number`), and they show
    more than one such number."""
    shown: set[int] = set()
    for call in tool.calls:
        text = _text_of(call.value) if _succeeded(call) else None
        if text is None:
            continue
        given = {value for value in call.arguments.values() if type(value) is int}
        found = {int(text) for text in _ANNOUNCED.findall(text)} - given
        if len(found) > 1:
            return False
        shown |= found
    return len(shown) > 1


def _text_of(value: Any) -> str | None:
    """The text an answer is: a string, or the one string under one field (`{"result": "Created: ..."}`, as a
    server's framework wraps a tool that returns a text), as `library.twin_text_of` reads it."""
    if isinstance(value, str):
        return value
    return next(iter(value.values())) if _refusal(value) else None


def _record_keys(tool: _Tool) -> list[str]:
    """Fields of the objects a tool answers that may key them: in every success, a string or integer that
    is one of the call's arguments, or none of them (an id the server made up: an integer, one counted
    under a prefix, or a random one, `_minted`). A success that is one text under one field (`{"error":
    "Not found: 'TASK-099'"}`, a refusal answered as a success) is no record, and keys nothing."""
    answers = [(c.value, c.arguments) for c in tool.calls if not c.is_error and c.rpc_error is None]
    records = [(value, args) for value, args in answers if not _refusal(value)]
    answers = records if any(len(value) > 1 for value, _ in records if isinstance(value, dict)) else answers
    if not answers or not all(isinstance(value, dict) and value for value, _ in answers):
        return []
    fields = set.intersection(*(set(value) for value, _ in answers))
    found = []
    for name in sorted(fields):
        values = [(value[name], args) for value, args in answers]
        given = all(isinstance(v, str | int) and not isinstance(v, bool) and v in args.values() for v, args in values)
        made_up = all(type(v) is int and v not in args.values() for v, args in values) or all(
            _counted_id(v) and v not in args.values() for v, args in values
        )
        if given or made_up or _minted(values):
            found.append(name)
    # A record nested under one field of most answers (`{"todo": {...}, "message": ...}`; a success-shaped
    # `{"error": ...}` holds none): its fields too, as `todo/id`, from the answers that hold it.
    for name in sorted({name for value, _ in answers for name in value}):
        holding = [c for c in tool.calls if _succeeded(c) and isinstance(c.value.get(name), dict) and c.value[name]]
        if 2 * len(holding) > len(answers):
            inner = _Tool(tool.spec, [replace(c, result=_nested_result(c, name)) for c in holding])
            found += [f"{name}/{field}" for field in _record_keys(inner) if "/" not in field]
    return found


def _nested_listing(calls: list[RecordedCall]) -> tuple[str, set[str]] | None:
    """Where a tool's successes are objects that hold a list of objects (or none) under one field: that field,
    and the fields beside it that show in every such answer how many it lists (`count`)."""
    answers = [c.value for c in calls if _succeeded(c) and isinstance(c.value, dict)]

    def objects(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(item, dict) for item in value)

    # Of most answers: a success-shaped `{"error": ...}` holds no listing.
    listed = [
        name
        for name in sorted({name for value in answers for name in value})
        if 2 * len(holding := [value for value in answers if name in value]) > len(answers)
        and all(objects(value[name]) for value in holding)
        and any(value[name] for value in holding)
    ]
    if len(listed) != 1:
        return None
    name = listed[0]
    holding = [value for value in answers if name in value]
    fields = set.intersection(*(set(value) for value in holding)) - {name}
    counted = {
        other
        for other in fields
        if all(type(value[other]) is int and value[other] == len(value[name]) for value in holding)
    }
    return name, counted


def _nested_result(call: RecordedCall, name: str) -> dict[str, Any] | None:
    """A recorded call's result as if it answered only the object under `name` (its structured content). An
    answer without it is kept whole: a success-shaped refusal (`{"ok": false, "error": ...}`) among a tool's
    listings is no listing, and no listing template answers it."""
    if call.is_error or call.rpc_error is not None or not isinstance(call.value, dict) or name not in call.value:
        return call.result
    return {"content": [], "structuredContent": call.value[name], "isError": False}


def _minted(values: list[tuple[Any, dict[str, Any]]]) -> bool:
    """Whether a field's values are ids a server makes up at random (`task-c7e7c630`, a UUID): each a string
    no argument gave, a token of random digits (`_MINTED`: hex, whose short form may happen to hold no letter,
    or a UUID) after an optional prefix, and no two alike, on two answers at least (one value could be a
    name that merely reads as hex)."""
    texts = [v for v, args in values if isinstance(v, str) and v not in strings_in(args)]
    return len(texts) == len(values) >= 2 and len(set(texts)) == len(texts) and all(map(_MINTED.fullmatch, texts))


def _refusal(value: Any) -> bool:
    """Whether a success is one text under one field, as a server answers a refusal it does not mark as an
    error (`{"error": "Not found: 'TASK-099'"}`)."""
    return isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str)


def _own_fields(tool: _Tool, tools: dict[str, _Tool]) -> bool:
    """Whether a tool's record answers show fields of their own, in none of the records the other tools
    answer, beside fields those do show (a close's `_next_issue_id`, never read back): a record then kept
    without them (`["keep", field, "known"]`) is what a later read shows. The field a record is kept under
    is none of them (a create's `task_id`, its key, where a read shows `id`): the record keeps it."""
    mine = {name for c in tool.calls if _succeeded(c) and not _refusal(c.value) for name in _fields_of(c.value)}
    mine -= set(_record_keys(tool))
    others = {
        name for other in tools.values() if other is not tool for c in other.calls for name in _fields_of(c.value)
    }
    return bool(mine & others) and bool(mine - others)


def _fields_of(value: Any) -> set[str]:
    """The fields of a record an answer shows: of the answer, and of each record nested one level in it."""
    found = set(value) if isinstance(value, dict) else set()
    for item in value.values() if isinstance(value, dict) else ():
        found |= set(item) if isinstance(item, dict) else set()
    return found


def _children(tool: _Tool) -> list[tuple[str, str]]:
    """Lists of records nested in the objects a tool answers, as (field of the list, field of each record's
    id): in every success that has it, a list of objects each with an id the server made up (counted under a
    prefix, never given by the call)."""
    answers = [(c.value, c.arguments) for c in tool.calls if not c.is_error and c.rpc_error is None]
    found: dict[tuple[str, str], bool] = {}
    for value, args in answers:
        if not isinstance(value, dict):
            continue
        given = set(strings_in(args))
        for listed, items in value.items():
            if not isinstance(items, list) or not items or not all(isinstance(item, dict) for item in items):
                continue
            for key in set.intersection(*(set(item) for item in items)):
                made_up = all(_counted_id(item[key]) and item[key] not in given for item in items)
                found[(listed, key)] = found.get((listed, key), True) and made_up
    return sorted(pair for pair, made_up in found.items() if made_up)


def _atoms(tool: ToolSpec, root: str | None, named: list[str], stores: list[str]) -> Iterator[list[Any]]:
    yield ["always"]
    if not named:
        # Whether anything is stored at all, only for a tool whose answers name no key: one that does is
        # asked about its keys (the recordings would otherwise let the whole world's emptiness, by chance,
        # tell calls apart that differ in something else).
        yield ["empty"]
        yield ["nonempty"]
    required = set(tool.input_schema.get("required") or [])
    optional = [name for name in (tool.input_schema.get("properties") or {}) if name not in required]
    for name in optional:
        yield ["given", name]
        if not named:
            # Not given, only for a tool whose answers name no key (a listing of every record unless a filter
            # is asked for): one that does is asked about its keys, which tell its calls apart likelier.
            yield ["absent", name]
    for name in sorted(required):
        # A server that does not check its input answers a call without a required argument all the same.
        yield ["absent", name]
    for first, second in itertools.combinations(optional, 2):
        yield ["given", first, second]
    for name, schema in (tool.input_schema.get("properties") or {}).items():
        if isinstance(schema, dict) and types_of(schema) - {"null"} == {"boolean"}:
            # A flag the call sets may choose what the answer shows (a field left out where it is false).
            yield ["is", name, True]
            yield ["is", name, False]
    for name in named:
        yield ["missing", name]
        yield ["parent_missing", name]
        for by in (None, ROOT_BY, *stores):
            yield ["present", name, by]
            yield ["parent_present", name, by]
        if root is not None:
            yield ["outside", name]


def _unfiltered_atoms(tool: ToolSpec, named: list[str], found: dict[str, tuple[Any, bool]]) -> list[list[Any]]:
    """An optional argument not given, for a tool that lists records as text and whose answers also name a
    key (`_atoms` asks others): a listing of every record unless a filter is asked for, in a tool whose other
    argument (a limit) happens to read as a key."""
    if not named or not any('"lines"' in key for key in found):
        return []
    required = set(tool.input_schema.get("required") or [])
    optional = [name for name in (tool.input_schema.get("properties") or {}) if name not in required]
    return [["absent", name] for name in optional if name not in named]


def _listed_preds(templates: Iterator[Any]) -> list[list[Any]]:
    """The predicates the tool's listings and counts pick records by (`["none", pred]`: where a search finds
    nothing, a server answers its constant "no results", which the listing itself cannot write)."""
    found: dict[str, list[Any]] = {}

    def walk(template: Any) -> None:
        if isinstance(template, list):
            if len(template) > 1 and template[0] in ("count", "list", "lines") and isinstance(template[1], list):
                found.setdefault(json.dumps(template[1], sort_keys=True), template[1])
            for item in template:
                walk(item)
        elif isinstance(template, dict):
            for marker in ("$rows", "$count", "$keys"):
                if isinstance(template.get(marker), list):
                    found.setdefault(json.dumps(template[marker], sort_keys=True), template[marker])
            for item in template.values():
                walk(item)

    for template in templates:
        walk(template)
    # Not every record (that is `empty`, asked only where answers name no key) nor the one a key names
    # (`missing`).
    return [found[text] for text in sorted(found) if found[text][0] not in ("all", "is")]


def _default_atoms(tool: ToolSpec, calls: list[RecordedCall]) -> list[list[Any]]:
    """`["at_default", name, default]` for each optional string argument with a default (its schema's, else
    the value its answers show where no call gave it, `_given_defaults`): a call that leaves it at its
    default, given so or not. A server may fill other fields only then (a queue for a task left to the
    default owner, none for one given to a person)."""
    required = set(tool.input_schema.get("required") or [])
    shown = _given_defaults(tool, calls)
    found: list[list[Any]] = []
    for name, schema in (tool.input_schema.get("properties") or {}).items():
        default = schema.get("default", shown.get(name)) if isinstance(schema, dict) else None
        if name not in required and isinstance(default, str) and name in _strings(tool):
            found.append(["at_default", name, default])
    return found


def _json_atoms(tool: ToolSpec, calls: list[RecordedCall]) -> list[list[Any]]:
    """`["not_json", name]` for each string argument that every success giving it (two at least) gives as a
    JSON text and some refusal gives as another text: a server that reads a value as JSON (a document to
    keep, observations to store) refuses what it cannot parse, whatever its world holds."""
    found: list[list[Any]] = []
    for name in _strings(tool):
        given = [(call, call.arguments[name]) for call in calls if isinstance(call.arguments.get(name), str)]
        good = [_is_json(value) for call, value in given if _succeeded(call)]
        refused = [not _is_json(value) for call, value in given if call.is_error]
        if len(good) >= 2 and all(good) and any(refused):
            found.append(["not_json", name])
    return found


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _holding_atoms(tools: dict[str, _Tool], stores: list[str], tool: ToolSpec, named: list[str]) -> list[list[Any]]:
    """`["holds", key, field, argument]` for each string field a storing tool stores and each required
    string argument of this tool that names no key: the text stored in the record's field holds the
    argument's text (a replace that finds what it is to replace, or says it is not there)."""
    fields = sorted(
        {field for name in stores if name in tools for field in _strings(tools[name].spec) if "/" not in field}
    )
    required = set(tool.input_schema.get("required") or [])
    texts = [name for name in _strings(tool) if name in required and name not in named and "/" not in name]
    return [["holds", key, field, text] for key in named for field in fields for text in texts]


def _stored_choices(tools: dict[str, _Tool], stores: list[str]) -> list[list[Any]]:
    """What a stored record's field may be asked for (`["stored_is", key, field, value]`): each value of an
    enumerated argument of a tool that stores (a status, a priority), and its absence (None), so that a
    record's lifecycle can tell answers apart ("completed_at" shown once its status is "completed")."""
    found: list[list[Any]] = []
    seen: set[tuple[str, str | None]] = set()  # those in `found`: an enum may have many values
    for name in stores:
        tool = tools.get(name)
        for field_name, schema in (tool.spec.input_schema.get("properties") or {}).items() if tool else []:
            options = [schema, *schema.get("anyOf", [])] if isinstance(schema, dict) else []
            values = [v for option in options if isinstance(option, dict) for v in option.get("enum", [])]
            for value in [None, *values]:
                if isinstance(value, str | None) and (field_name, value) not in seen:
                    seen.add((field_name, value))
                    found.append([field_name, value])
    return found


def _longer(name: str, group: list[RecordedCall], others: list[RecordedCall]) -> list[Any] | None:
    """`longer` with the bound midway between the longest value without the answer and the shortest with it,
    when the shortest with it is far longer (twice, and by `_LENGTH_MARGIN` characters)."""
    inside = [len(c.arguments[name]) for c in group if isinstance(c.arguments.get(name), str)]
    outside = [len(c.arguments[name]) for c in others if isinstance(c.arguments.get(name), str)]
    if len(inside) != len(group) or not inside or not outside:
        return None
    if min(inside) < 2 * max(outside) or min(inside) - max(outside) < _LENGTH_MARGIN:
        return None  # lengths that differ by chance, not a limit the server enforces
    return ["longer", name, (min(inside) + max(outside)) // 2]


def _succeeded(call: RecordedCall) -> bool:
    return not call.is_error and call.rpc_error is None


def _renders_value(rendered: list[Any] | None, expected: Any, is_error: bool, unordered_at: list[str]) -> bool:
    """Whether a template's rendering (`[value]`, or None: it renders nothing) is the recorded answer
    `expected` exactly (the listings at `unordered_at` as sets)."""
    if rendered is None:
        return False
    wanted, actual = as_set(expected, unordered_at), as_set(rendered[0], unordered_at)
    verdict = compare_answers(Answer(wanted, is_error), Answer(actual, is_error))
    return verdict.agree and verdict.error_text


# --- JSON listings of stored records -------------------------------------------------------------------------


def _object_lists(value: Any) -> list[list[dict[str, Any]]]:
    """The non-empty lists of objects in an answer: what may be a JSON listing of stored records."""
    if isinstance(value, dict):
        return [found for item in value.values() for found in _object_lists(item)]
    if isinstance(value, list):
        if value and all(isinstance(item, dict) for item in value):
            return [value]
        return [found for item in value for found in _object_lists(item)]
    return []


def _lined(value: Any, records: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The lists of objects in `value` that show `records` one each, in that order: one field of every
    object is its record's key, and the objects are alike (the same fields)."""
    found = []
    for objects in _object_lists(value):
        if len(objects) != len(records) or any(set(item) != set(objects[0]) for item in objects):
            continue
        if any(
            all(_shows_key(item[name], record["$key"]) for item, record in zip(objects, records, strict=True))
            for name in objects[0]
        ):
            found.append(objects)
    return found


def _shows_key(value: Any, key: Any) -> bool:
    """Whether a listed object's field shows a record's key: as it is, or a key of digits as its number (an id
    a text announced, `keep_id`, listed as `"id": 3`)."""
    return bool(value == key or (type(value) is int and isinstance(key, str) and str(value) == key))


def _row_item(shown: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, list[Any]] | None:
    """One template of the objects that show stored records, a spec per field (`library.twin_row_value`),
    or None where a field is none of them. Each field takes the reading that shows it in most objects (a
    server's numbering may depart from the twin's in a few), in this order where they tie: the record's
    field of the same name, its key, a field's length, when it was stored, another field (each with the
    value shown where the record has none: the server's default); one value, the same in every object or
    made up (an id, a date, compared by form)."""
    item: dict[str, list[Any]] = {}
    for name in shown[0][0]:
        values = [(json.dumps(obj[name], sort_keys=True), obj[name], record) for obj, record in shown]
        spec = _row_spec(name, values)
        if spec is None:
            return None
        item[name] = spec
    return item


def _row_spec(name: str, values: list[tuple[str, Any, dict[str, Any]]]) -> list[Any] | None:
    others = sorted({known for _, _, record in values for known in record} - {name, "$key", "$at", "$n"})
    readings: list[tuple[int, list[Any]]] = []
    for known in (name, "$key"):
        readings += _field_reading(known, values)
    if all(type(shown) is int for _, shown, _ in values):
        # A key that is an id the server announced in a text (`keep_id`) is shown as the number it is.
        readings.append((sum(str(shown) == record.get("$key") for _, shown, record in values), ["number", "$key"]))
    if all(type(shown) is int for _, shown, _ in values):
        for known in others:
            fits = sum(isinstance(rec.get(known), str) and len(rec[known]) == shown for _, shown, rec in values)
            readings.append((fits, ["size", known]))
    for known in ("$at", "$n", *others):
        readings += _field_reading(known, values)
    if all(type(shown) is int for _, shown, _ in values):
        readings += _serialised_sizes(others, values)
    readings += _flagged_readings([name, *others], values)
    if all(isinstance(shown, str) for _, shown, _ in values):
        # A line the server composes from the record's fields (`composed.py`): after a field that shows it
        # whole, which a record kept as answered holds.
        parsed = [(shown, record) for _, shown, record in values if parse(shown, record) is not None]
        if parsed and (segments := compositions(parsed)) is not None:
            readings.append((len(parsed), ["compose", [list(segment) for segment in segments]]))
    code, count = Counter(code for code, _, _ in values).most_common(1)[0]
    if all(isinstance(shown, str) and _MADE_UP.fullmatch(shown) for _, shown, _ in values):
        count = len(values)
    readings.append((count, ["const", json.loads(code)]))
    fits, best = max(readings, key=lambda reading: reading[0])  # the first of those that fit most
    return best if fits * _ROW_FIT[1] >= len(values) * _ROW_FIT[0] else None


def _flagged_readings(known: list[str], values: list[tuple[str, Any, dict[str, Any]]]) -> list[tuple[int, list[Any]]]:
    """A field shown only where a flag of the record is true, one value in its place elsewhere (a document's body
    listed for a core document alone, `null` for the others): `["if", flag, field, otherwise]`, for each flag
    (a field every record holds as true or false, both seen) and each other field some record holds."""
    flags = [
        flag
        for flag in known
        if all(isinstance(record.get(flag), bool) for _, _, record in values)
        and len({record[flag] for _, _, record in values}) == 2
    ]
    readings: list[tuple[int, list[Any]]] = []
    for flag in flags:
        unset = [code for code, _, record in values if not record[flag]]
        otherwise = Counter(unset).most_common(1)[0][0]
        for field_name in known:
            if field_name == flag or not any(field_name in record for _, _, record in values):
                continue
            fits = sum(
                json.dumps(record.get(field_name), sort_keys=True) == code if record[flag] else code == otherwise
                for code, _, record in values
            )
            readings.append((fits, ["if", flag, field_name, json.loads(otherwise)]))
    return readings


def _serialised_sizes(others: list[str], values: list[tuple[str, Any, dict[str, Any]]]) -> list[tuple[int, list[Any]]]:
    """A number that is a text field's length plus the lengths of one or two other fields as text (a list of
    texts' items each with a few characters of its own: a header listing them a line each, `- a`) plus a
    constant: the size of the record as the server writes it down, a file's body after a header of its fields
    (`["size", field, others, constant, per_item]`). Only where those lengths differ between the records it
    fits: a constant number is no size."""
    readings: list[tuple[int, list[Any]]] = []
    for known in others:
        rest = [other for other in others if other != known]
        for extras in [[], *([other] for other in rest), *(list(pair) for pair in itertools.combinations(rest, 2))]:
            lists = any(isinstance(rec.get(extra), list) for extra in extras for _, _, rec in values)
            for per_item in range(_PER_ITEM + 1) if lists else (0,):
                sizes = [
                    (shown, len(rec[known]) + added)
                    for _, shown, rec in values
                    if isinstance(rec.get(known), str)
                    and (added := _lengths([rec.get(extra) for extra in extras], per_item)) is not None
                ]
                if not sizes:
                    continue
                offset, fits = Counter(shown - length for shown, length in sizes).most_common(1)[0]
                if (offset or extras) and len({length for shown, length in sizes if shown - length == offset}) > 1:
                    readings.append((fits, ["size", known, extras, offset, per_item]))
    return readings


# The most characters a serialisation writes beside each item of a list it writes (`- ` and a line break).
_PER_ITEM = 4


def _lengths(values: list[Any], per_item: int) -> int | None:
    """The lengths of `values` written as text, summed; None where one is no text (`_text_length`)."""
    total = 0
    for value in values:
        if (length := _text_length(value, per_item)) is None:
            return None
        total += length
    return total


def _text_length(value: Any, per_item: int) -> int | None:
    """The length of a value written as text (`library.twin_text_length`): a text's, a number's digits, a
    boolean's `true` or `false`, a list of texts' items each with `per_item` characters more; None for any
    other (not there, an object)."""
    if isinstance(value, bool):
        return 4 if value else 5
    if isinstance(value, str):
        return len(value)
    if isinstance(value, int):
        return len(str(value))
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return sum(len(item) + per_item for item in value)
    return None


def _field_reading(known: str, values: list[tuple[str, Any, dict[str, Any]]]) -> list[tuple[int, list[Any]]]:
    """`["field", known, absent]` and how many objects it shows, `absent` the value most objects of records
    without the field show; none where no record has the field (that is a constant)."""
    if not any(known in record for _, _, record in values):
        return []
    absent = Counter(code for code, _, record in values if known not in record).most_common(1)
    default = absent[0][0] if absent else "null"
    fits = sum(
        (json.dumps(record[known], sort_keys=True) == code) if known in record else code == default
        for code, _, record in values
    )
    return [(fits, ["field", known, json.loads(default)])]


def _counted_rows(value: dict[str, Any], drawn: dict[str, Any]) -> dict[str, Any]:
    """An object holding a JSON listing of stored records with its number beside it (`"total": 3`, in a
    sibling object too), that number written as how many records the listing's predicate picks."""
    listing = next((item for item in drawn.values() if isinstance(item, dict) and "$rows" in item), None)
    # Every stored record in order (`$records`) is counted as every stored key is.
    listing = listing or next((item for item in drawn.values() if isinstance(item, dict) and "$records" in item), None)
    if listing is None:
        return drawn
    name = next(name for name, item in drawn.items() if item is listing)
    count = len(value[name])
    pred = listing.get("$rows", ["all"])

    def counted(item: Any) -> Any:
        if type(item) is int and item == count:
            return {"$count": pred}
        if isinstance(item, dict) and not any(marker in item for marker in ("$parts", *_WHOLE)):
            return {key: counted(inner) for key, inner in item.items()}
        return item

    return {key: item if item is listing else counted(item) for key, item in drawn.items()}
