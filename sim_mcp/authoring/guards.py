"""Guard programs inferred from recordings, for tools no record-store behaviour explains: rules that answer
what the recordings show exactly (an error whose text is a template of the call's arguments, a success
that stores an argument under a key) under a condition the recordings bear out, and decline the rest,
which the replay of the recordings or the model then answers (`rules.runtime`, "decline").

**Keys.** A string argument whose value the answers name is a key. When a tool with no arguments answers
one constant naming a root (`{tmp}`, where `sim-mcp record` wrote the server's folder, or an absolute
path), a key is also read as a path relative to that root, as a server with a working folder resolves it
(`name` is `{tmp}/name`; `.`, `..`, doubled and trailing `/` folded). The twin's world holds the keys that
calls stored (`_twin.keys`: resolved key -> the tool that stored it and its other arguments); the root is
in it from the start.

**Templates.** An answer is a JSON value whose strings are literal text and placeholders: an argument as
given (`["arg", name]`) or a key resolved (`["key", name]`). Each recorded answer gives templates (its
argument values, longest first, written as placeholders); a template belongs to every call it renders
exactly. (What a call stored is kept with its key, but no template reads it back yet: a read of a stored
value is declined.)

**Conditions**, what inference already knows about a call, as atoms (one, or two together): always;
optional arguments given; an argument longer than a bound (midway between the lengths the recordings
show with and without that answer, when those are far apart); a key missing from the world, present
(stored by a given tool, or the root), its parent missing or present; a key outside the root.

**Rules** of a tool are learned by sequential covering over its recorded calls, each replayed in the world
its session had reached: the rule (template, condition) that answers most of the calls still uncovered,
and none of them wrongly, first (ties: fewer atoms, then the condition true of fewer recorded calls);
then the next, among the calls left. A success is always a template with placeholders (a recorded
listing is never answered as a constant), and a tool that only reads stores nothing.
What a stored key means for later calls is found by trying, per tool that answers a templated success,
each way it may change the world (none, storing one key, moving one key to another) and keeping the
combination under which the rules of all tools answer most recorded calls.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from sim_mcp.authoring.agreement import Answer, compare_answers
from sim_mcp.authoring.behaviours import TWIN_KEY
from sim_mcp.authoring.record_file import RecordedCall
from sim_mcp.authoring.upstream import TMP_PLACEHOLDER
from sim_mcp.engine.intent import Action, read_intent
from sim_mcp.specs.model import ToolSpec

__all__ = ["ROOT_BY", "GuardInference", "infer_guards", "initial_keys", "run_guard", "view"]

# Who "stored" the root: it is in the world from the start.
ROOT_BY = "_root"
# A value shorter than this is not written as a placeholder when templates are drawn from an answer (" "
# or "a" would be found everywhere); the template drawn from another call still renders it exactly.
_SHORTEST = 3
_MAX_EFFECT_COMBINATIONS = 64
# A rule under no condition must answer at least this many recorded calls (one call would make its answer
# everyone's); a rule under a condition may rest on one, as a success only when built from the arguments.
_SUPPORT = 2
_LENGTH_MARGIN = 32
_WORLD_ATOMS = frozenset({"missing", "present", "parent_missing", "parent_present", "outside"})
_ROOT_TOKEN = re.compile(r"(\{tmp\}|/[^\s'\"]+)")
# Placeholders that write a number from the call: an argument, or two arguments' sum, difference, product.
_NUMBER_PARTS = frozenset({"num", "sum", "difference", "product"})
# The largest integer JavaScript's numbers hold exactly.
_EXACT = 2**53


class _NoAnswer(Exception):
    """A rule cannot be applied to this call (an argument it names is missing or no string)."""


@dataclass
class GuardInference:
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)
    root: str | None = None
    answered: dict[str, int] = field(default_factory=dict)  # by tool, the recorded calls its rules answer

    def answers_all(self, tool: str, calls: int) -> bool:
        """Whether the tool's rules answer all its `calls` recorded calls, some of them with a template."""
        plan = self.plans.get(tool)
        return plan is not None and self.answered.get(tool) == calls and _placeholders(plan["rules"])


def initial_keys(root: str | None) -> dict[str, Any]:
    """The keyed world a twin starts from: the root, if the server named one."""
    return {root: {"by": ROOT_BY}} if root is not None else {}


# --- running a guard plan (the Starlark twin is `twin_program.LIBRARY`'s `twin_guard`) -------------------


def resolve(root: str | None, value: Any) -> str:
    if not isinstance(value, str):
        raise _NoAnswer("not a string")
    if root is None:
        return value
    inside = value == root or value.startswith(root + "/") or value.startswith("/")
    path = value if inside else root + "/" + value
    segments: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            continue
        segments.append(segment)
    return ("/" if path.startswith("/") else "") + "/".join(segments)


def _parent(root: str | None, key: str) -> str | None:
    if key == root or "/" not in key:
        return None
    return key.rsplit("/", 1)[0] or "/"


def _holds(atom: list[Any], root: str | None, keys: dict[str, Any], args: dict[str, Any]) -> bool:
    kind = atom[0]
    if kind == "always":
        return True
    if kind == "given":
        return all(name in args for name in atom[1:])
    if kind == "longer":
        return isinstance(args.get(atom[1]), str) and len(args[atom[1]]) > atom[2]
    key = resolve(root, args.get(atom[1]))
    if kind == "outside":
        return root is not None and key != root and not key.startswith(root + "/")
    if kind == "missing":
        return key not in keys
    if kind == "present":
        return key in keys and (atom[2] is None or keys[key]["by"] == atom[2])
    parent = _parent(root, key)
    if kind == "parent_missing":
        return parent is not None and parent not in keys
    if kind == "parent_present":
        return parent is not None and parent in keys and (atom[2] is None or keys[parent]["by"] == atom[2])
    raise _NoAnswer(f"unknown condition {kind!r}")


def render(template: Any, root: str | None, keys: dict[str, Any], args: dict[str, Any]) -> Any:
    if isinstance(template, dict) and "$parts" in template:
        return "".join(_part(part, root, keys, args) for part in template["$parts"])
    if isinstance(template, dict):
        return {name: render(value, root, keys, args) for name, value in template.items()}
    if isinstance(template, list):
        return [render(item, root, keys, args) for item in template]
    return template


def _part(part: Any, root: str | None, keys: dict[str, Any], args: dict[str, Any]) -> str:
    if isinstance(part, str):
        return part
    if part[0] in _NUMBER_PARTS:
        return number_text(_number(part, args))
    if part[0] == "arg":
        value = args.get(part[1])
        if not isinstance(value, str):
            raise _NoAnswer(f"no string {part[1]!r}")
        return value
    return resolve(root, args.get(part[1]))


def _apply(effect: list[Any] | None, tool: str, root: str | None, keys: dict[str, Any], args: dict[str, Any]) -> None:
    if effect is None:
        return
    if effect[0] == "put":
        key = resolve(root, args.get(effect[1]))
        keys[key] = {"by": tool, "args": {name: value for name, value in args.items() if name != effect[1]}}
    elif effect[0] == "move":
        source, target = resolve(root, args.get(effect[1])), resolve(root, args.get(effect[2]))
        for key in [k for k in keys if k == source or k.startswith(source + "/")]:
            keys[target + key[len(source) :]] = keys.pop(key)


def run_guard(plan: dict[str, Any], tool: str, state: dict[str, Any], args: dict[str, Any]) -> tuple[Any, bool] | None:
    """The answer of the first rule that holds (changing `state`'s keys for a success that stores), or None:
    the guard declines the call."""
    root = plan["root"]
    keys = state.setdefault(TWIN_KEY, {}).setdefault("keys", {})
    args = view(args)
    for rule in plan["rules"]:
        try:
            if not all(_holds(atom, root, keys, args) for atom in rule["when"]):
                continue
            value = render(rule["answer"], root, keys, args)
        except _NoAnswer:
            continue
        if not rule["error"]:
            _apply(rule.get("effect"), tool, root, keys, args)
        return value, rule["error"]
    return None


# --- inference ------------------------------------------------------------------------------------------


def view(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments a guard reads: as given, and a list of one string also as that item (`paths/0`)."""
    items = {
        f"{name}/0": value[0]
        for name, value in args.items()
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str)
    }
    return {**args, **items} if items else args


def infer_guards(tools: list[ToolSpec], sessions: list[list[RecordedCall]], left: list[str]) -> GuardInference:
    """Guard plans for the tools named in `left` (those no behaviour explains), from every recorded session."""
    root = _root(sessions)
    sessions = [[replace(call, arguments=view(call.arguments)) for call in session] for session in sessions]
    specs = {tool.name: tool for tool in tools if tool.name in left}
    calls = {name: [c for s in sessions for c in s if c.tool == name] for name in specs}
    templates = {name: _templates(specs[name], calls[name], root) for name in specs if calls[name]}
    creators = {
        name: _effects(specs[name], found)
        for name, found in templates.items()
        if any(not error for _, error in found.values()) and not _reads_only(specs[name])
    }
    best: tuple[int, dict[str, dict[str, Any]], dict[str, int]] = (-1, {}, {})
    options = [[(name, effect) for effect in effects] for name, effects in creators.items()]
    for choice in itertools.islice(itertools.product(*options), _MAX_EFFECT_COMBINATIONS):
        effects = dict(choice)
        worlds = _worlds(sessions, effects, templates, root)
        plans: dict[str, dict[str, Any]] = {}
        answered: dict[str, int] = {}
        stores = sorted(name for name, effect in effects.items() if effect is not None)
        for name, found in templates.items():
            rules, count = _cover(specs[name], calls[name], worlds, found, effects.get(name), root, stores)
            if rules:
                plans[name] = {"family": "guard", "root": root, "rules": rules}
                answered[name] = count
        if sum(answered.values()) > best[0]:
            best = (sum(answered.values()), plans, answered)
    return GuardInference(best[1], root, best[2])


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
        items = schema.get("items")
        if schema.get("type") == "string":
            names.append(name)
        elif schema.get("type") == "array" and isinstance(items, dict) and items.get("type") == "string":
            names.append(f"{name}/0")
    return names


def _templates(tool: ToolSpec, calls: list[RecordedCall], root: str | None) -> dict[str, tuple[Any, bool]]:
    """Candidate templates of a tool's answers (by their JSON text), each with whether it is an error."""
    names = _strings(tool)
    numbers = _numbers(tool)
    found: dict[str, tuple[Any, bool]] = {}
    for call in calls:
        if call.rpc_error is not None:
            continue
        pieces: list[tuple[str, list[str]]] = []
        for name in names:
            value = call.arguments.get(name)
            if not isinstance(value, str):
                continue
            if root is not None:
                pieces.append((resolve(root, value), ["key", name]))
            pieces.append((value, ["arg", name]))
        pieces = [(text, part) for text, part in pieces if len(text.strip()) >= _SHORTEST]
        # Numbers are written as placeholders however short: they are matched as whole numbers only.
        pieces += _number_pieces(numbers, call.arguments)
        pieces.sort(key=lambda piece: -len(piece[0]))
        template = _template_of(call.value, pieces)
        found.setdefault(json.dumps(template, sort_keys=True), (template, call.is_error))
    return found


def _template_of(value: Any, pieces: list[tuple[str, list[str]]]) -> Any:
    if isinstance(value, str):
        parts: list[Any] = [value]
        for text, placeholder in pieces:
            split: list[Any] = []
            # A number only where it stands whole: the 5 of "5 items" and "5s", not of "15", "2.5" or "v5".
            numeric = placeholder[0] in _NUMBER_PARTS
            whole = re.compile(rf"(?<![\w.]){re.escape(text)}(?!\.?[0-9])") if numeric else None
            for part in parts:
                if not isinstance(part, str) or text not in part:
                    split.append(part)
                    continue
                chunks = whole.split(part) if whole is not None else part.split(text)
                for index, chunk in enumerate(chunks):
                    if index:
                        split.append(placeholder)
                    split.append(chunk)
            parts = split
        parts = [part for part in parts if part != ""]
        return {"$parts": parts} if any(not isinstance(part, str) for part in parts) else value
    if isinstance(value, dict):
        return {name: _template_of(item, pieces) for name, item in value.items()}
    if isinstance(value, list):
        return [_template_of(item, pieces) for item in value]
    return value


def _numbers(tool: ToolSpec) -> list[str]:
    """The arguments the input schema types as numbers."""
    properties = tool.input_schema.get("properties") or {}
    return [
        name
        for name, schema in properties.items()
        if isinstance(schema, dict) and schema.get("type") in ("integer", "number")
    ]


def _number_pieces(names: list[str], arguments: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The numbers an answer may write from the call: each number argument, and the sum, difference and
    product of each two (a tool that adds its arguments); a piece another renders too is kept once."""
    given = [(name, arguments[name]) for name in names if _is_number(arguments.get(name))]
    candidates: list[list[str]] = [["num", name] for name, _ in given]
    for (first, _), (second, _) in itertools.permutations(given, 2):
        candidates += [["difference", first, second]]
        if first < second:
            candidates += [["sum", first, second], ["product", first, second]]
    pieces: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for candidate in candidates:
        try:
            text = number_text(_number(candidate, arguments))
        except _NoAnswer:
            continue
        if text not in seen:
            seen.add(text)
            pieces.append((text, candidate))
    return pieces


def _number(part: list[Any], args: dict[str, Any]) -> int | float:
    """The number a number placeholder writes (`_NoAnswer` when an argument it names is no number)."""
    values: list[int | float] = []
    for name in part[1:]:
        value = args.get(name)
        if not _is_number(value):
            raise _NoAnswer("no number")
        values.append(_as_javascript(value))
    match part[0]:
        case "num":
            number = values[0]
        case "sum":
            number = values[0] + values[1]
        case "difference":
            number = values[0] - values[1]
        case _:
            number = values[0] * values[1]
    number = _as_javascript(number)
    if not math.isfinite(number):
        raise _NoAnswer("no finite number")
    return number


def _as_javascript(value: int | float) -> int | float:
    """`value` as JavaScript holds it: an integer past 2**53 is a float (rounded), as a JavaScript server
    reads it from JSON and as its arithmetic gives it."""
    return float(value) if type(value) is int and abs(value) > _EXACT else value


def _is_number(value: Any) -> TypeGuard[int | float]:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def number_text(value: int | float) -> str:
    """`value` as JavaScript writes a number (`String(x)`, the ECMAScript algorithm), from Python's shortest
    round-trip digits: `10` for 10.0, `0.1` for 0.1, `1e+21`, `1e-7`. Most servers are JavaScript, and a JSON
    number has no integer or float kind there; the twin's Starlark writes it the same way (`twin_number_text`)."""
    if type(value) is int:
        return str(value)
    if value == 0:
        return "0"
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    point = len(whole) + int(exponent or 0) - (len(raw) - len(raw.lstrip("0")))
    digits = raw.strip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return ("-" if value < 0 else "") + text


def _placeholders(template: Any) -> bool:
    return "$parts" in json.dumps(template)


def _keys_named(template: Any) -> list[str]:
    text = json.dumps(template)
    return sorted(set(re.findall(r'\["(?:key|arg)", "([^"]+)"\]', text)))


def _effects(tool: ToolSpec, found: dict[str, tuple[Any, bool]]) -> list[list[Any] | None]:
    named = sorted({name for template, error in found.values() if not error for name in _keys_named(template)})
    options: list[list[Any] | None] = [["put", name] for name in named]
    options += [["move", a, b] for a, b in itertools.permutations(named, 2)]
    return [*options, None]


def _worlds(
    sessions: list[list[RecordedCall]],
    effects: dict[str, list[Any] | None],
    templates: dict[str, dict[str, tuple[Any, bool]]],
    root: str | None,
) -> dict[int, dict[str, Any]]:
    """The keyed world before each recorded call (by id), with `effects` applied on every recorded success."""
    worlds: dict[int, dict[str, Any]] = {}
    for session in sessions:
        keys = initial_keys(root)
        for call in session:
            worlds[id(call)] = json.loads(json.dumps(keys))
            if not call.is_error and call.tool in effects:
                with contextlib.suppress(_NoAnswer):  # a success without the key: it stored nothing we know
                    _apply(effects[call.tool], call.tool, root, keys, call.arguments)
    return worlds


def _atoms(tool: ToolSpec, root: str | None, named: list[str], stores: list[str]) -> Iterator[list[Any]]:
    yield ["always"]
    required = set(tool.input_schema.get("required") or [])
    optional = [name for name in (tool.input_schema.get("properties") or {}) if name not in required]
    for name in optional:
        yield ["given", name]
    for first, second in itertools.combinations(optional, 2):
        yield ["given", first, second]
    for name in named:
        yield ["missing", name]
        yield ["parent_missing", name]
        for by in (None, ROOT_BY, *stores):
            yield ["present", name, by]
            yield ["parent_present", name, by]
        if root is not None:
            yield ["outside", name]


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


def _cover(
    tool: ToolSpec,
    calls: list[RecordedCall],
    worlds: dict[int, dict[str, Any]],
    found: dict[str, tuple[Any, bool]],
    effect: list[Any] | None,
    root: str | None,
    stores: list[str],
) -> tuple[list[dict[str, Any]], int]:
    """Sequential covering: the rules of one tool, and how many recorded calls they answer."""
    named = sorted({name for template, _ in found.values() for name in _keys_named(template)})
    usable = calls
    everyone = frozenset(range(len(usable)))
    # Calls the server refused with a JSON-RPC error: no template renders them; an error may meet them (an
    # error agrees with an error), a success never.
    refused = frozenset(i for i, c in enumerate(usable) if c.rpc_error is not None)
    holds = {
        json.dumps(atom): (atom, frozenset(i for i, c in enumerate(usable) if _all_hold([atom], c, worlds, root)))
        for atom in _atoms(tool, root, named, stores)
    }
    atoms = [entry for entry in holds.values() if entry[1]]
    conditions: list[tuple[list[list[Any]], frozenset[int]]] = [([atom], hit) for atom, hit in atoms]
    pairs = itertools.combinations([(atom, hit) for atom, hit in atoms if atom[0] != "always"], 2)
    conditions += [([a, b], ha & hb) for (a, ha), (b, hb) in pairs if ha & hb]
    fits = {
        key: frozenset(i for i, c in enumerate(usable) if c.is_error == error and _renders(template, c, worlds, root))
        for key, (template, error) in found.items()
    }
    remaining = everyone - refused
    rules: list[dict[str, Any]] = []
    covered = 0
    while remaining:
        best: tuple[tuple[int, int, int, int], dict[str, Any], frozenset[int]] | None = None
        for key, (template, error) in found.items():
            fit = fits[key] & remaining
            if not error and not _placeholders(template):
                # A guard never answers a success it cannot build from the call: a recorded constant success
                # (a listing, a file's bytes) depends on more than the guard knows.
                continue
            group = [usable[i] for i in fit]
            others = [usable[i] for i in everyone - fits[key]]
            bounds = [bound for name in named if (bound := _longer(name, group, others)) is not None]
            options = conditions + [
                ([bound], frozenset(i for i in everyone if _all_hold([bound], usable[i], worlds, root)))
                for bound in bounds
            ]
            for when, hit in options:
                hits = (hit & remaining) - refused
                if not hits or not hits <= fit or (not error and hit & refused):
                    continue
                if len(hits) < _SUPPORT and when[0][0] == "always":
                    continue
                # Of conditions that answer as many calls: the fewest atoms, then the narrowest (true of the
                # fewest recorded calls of the tool: a call unlike those is declined, not answered), then one
                # that asks about the world.
                asks = any(atom[0] in _WORLD_ATOMS for atom in when)
                score = (len(hits), -len(when), -len(hit), int(asks))
                if best is None or score > best[0]:
                    rule: dict[str, Any] = {"when": when, "answer": template, "error": error}
                    if not error:
                        rule["effect"] = effect
                    best = (score, rule, hits)
        if best is None:
            break
        rules.append(best[1])
        covered += len(best[2])
        remaining = remaining - best[2]
    return rules, covered


def _all_hold(when: list[list[Any]], call: RecordedCall, worlds: dict[int, dict[str, Any]], root: str | None) -> bool:
    try:
        return all(_holds(atom, root, worlds[id(call)], call.arguments) for atom in when)
    except _NoAnswer:
        return False


def _renders(template: Any, call: RecordedCall, worlds: dict[int, dict[str, Any]], root: str | None) -> bool:
    try:
        value = render(template, root, worlds[id(call)], call.arguments)
    except _NoAnswer:
        return False
    verdict = compare_answers(Answer(call.value, call.is_error), Answer(value, call.is_error))
    return verdict.agree and verdict.error_text
