"""`sim-mcp rules init`: a spec's rules program scaffolded from the spec, to be finished by hand.

One function per tool. For a tool the offline engine can read (`engine.backends.offline.read_tool`), what
it does today, written as plain Starlark over the rules helpers (`next_id`, `now`, `contains_text`...):
the record looked up, the change, the result; a user edits it to add the rules the engine does not know.
For any other tool, a stub: the tool's description, arguments and result, the state's collections and the
spec's `instructions` quoted as comments, returning an honest "not written yet" error until it is written.
Nothing here runs a model: the program is made of the spec alone.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sim_mcp.engine.backends.offline import Reading, home_of, read_tool
from sim_mcp.engine.intent import Action, collections_in, plural, singular, split_words
from sim_mcp.engine.records import allows_null, enum_of, items, resolved, sample_record
from sim_mcp.rules.program import function_name
from sim_mcp.rules.single import clock_of
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.registry import RULES_SUFFIX

# The error a stub answers; `sim-mcp rules init` reports a tool whose function still answers it as not written.
NOT_WRITTEN = "not written yet"
_TEXT_QUERY_ARGS = ("query", "q", "search", "text", "keyword", "keywords", "term", "search_term")
_LIMIT_ARGS = ("limit", "max_results", "page_size", "per_page", "top")
_TIMESTAMPS = ("created_at", "createdAt", "created", "updated_at", "updatedAt", "modified_at")
_UPDATED = ("updated_at", "updatedAt", "modified_at")


@dataclass(frozen=True)
class Scaffolded:
    """One tool's function: `written` from what the offline engine does, or a `stub` to write."""

    tool: str
    kind: Literal["written", "stub"]
    what: str  # a few words on what the function does (written) or why it is a stub
    source: str


def rules_path(spec: Path) -> Path:
    """The programs file the engine reads for a spec: `library.yaml` -> `library.rules.star`, beside it."""
    return spec.with_name(spec.stem + RULES_SUFFIX)


def scaffold(environment: Environment, spec: Path) -> tuple[str, list[Scaffolded]]:
    """The text of the spec's rules program, and what each tool's function is."""
    functions = [_function(environment, tool, spec) for tool in environment.tools]
    written = [f.tool for f in functions if f.kind == "written"]
    stubs = [f.tool for f in functions if f.kind == "stub"]
    header = [
        f'# The rules program of {spec.name}, scaffolded by `sim-mcp rules init` (docs/formats.md, "Rules',
        "# programs\"; docs/walkthrough.md). One function per tool: it gets a copy of the session's state and",
        "# the call's arguments (already checked against the tool's input schema), changes the state in place",
        '# and returns the result, or `return error("message")` (then no change is kept).',
        "# Helpers: error, next_id, now, today, money, sorted_by, contains_text, random_code, to_seconds.",
    ]
    if written:
        header += _wrapped(f"Written from what the offline engine does today (edit them freely): {', '.join(written)}.")
    if stubs:
        header += _wrapped(f"Stubs to write (each answers {NOT_WRITTEN!r} until you do): {', '.join(stubs)}.")
    clock = clock_of(environment)
    if clock is not None:
        header += ["", f'CLOCK = "{clock}"']
    text = "\n".join(header) + "\n" + "".join(f"\n\n{function.source}" for function in functions)
    return text, functions


def _wrapped(text: str) -> list[str]:
    return ["# " + line for line in textwrap.wrap(text, 106)]


def _function(environment: Environment, tool: ToolSpec, spec: Path) -> Scaffolded:
    reading = read_tool(environment, tool)
    if reading is None:
        return _stub(environment, tool, spec)
    action = reading.intent.action
    if action is Action.LIST and reading.id_argument is not None:
        action = Action.GET  # a search that names one record reads it, as the engine does
    writer = _Writer(environment, tool, reading)
    match action:
        case Action.CREATE:
            body, what = writer.create()
        case Action.GET:
            body, what = writer.get()
        case Action.LIST:
            body, what = writer.listing()
        case Action.UPDATE:
            body, what = writer.update()
        case Action.DELETE:
            body, what = writer.delete()
        case _:
            body, what = writer.set_status()
    said = textwrap.wrap(f"Written from what the offline engine does: {what}. Add the rules it does not know.", 96)
    doc = f'    """{_doc_line(tool)}\n\n' + "\n".join(f"    {line}" for line in said) + '"""'
    source = f"def {function_name(tool.name)}(state, args):\n{doc}\n" + textwrap.indent("\n".join(body), "    ")
    return Scaffolded(tool.name, "written", what, source + "\n")


def _doc_line(tool: ToolSpec) -> str:
    first = tool.description.strip().splitlines()[0] if tool.description.strip() else tool.name
    return first.replace('"""', "'''").replace("\\", "\\\\")


def _q(value: Any) -> str:
    """A JSON value as a Starlark literal (JSON's own, but for true, false and null)."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, list):
        return "[" + ", ".join(_q(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_q(key)}: {_q(item)}" for key, item in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


class _Writer:
    """The body of one readable tool's function, line by line (indented once more by the caller)."""

    def __init__(self, environment: Environment, tool: ToolSpec, reading: Reading) -> None:
        self.environment = environment
        self.tool = tool
        self.reading = reading
        self.collection = reading.collection
        self.path = "state" + "".join(f"[{_q(part)}]" for part in self.collection.path)
        self.var = _identifier(self.collection.singular) or "record"
        self.many = _identifier(self.collection.key) or "records"
        if self.many == self.var:
            self.many += "_all"
        properties = tool.input_schema.get("properties")
        self.arguments: dict[str, Any] = properties if isinstance(properties, dict) else {}
        self.mapping = isinstance(self.collection.records, dict)
        self.exists = self._exists()

    def _exists(self) -> bool:
        node: Any = self.environment.initial_state
        for part in self.collection.path:
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
        return True

    # --- finding the record ------------------------------------------------------------------------

    def _lookup(self) -> list[str]:
        """Lines that set `self.var` to the record the arguments name, or return the not-found error."""
        name = self.reading.id_argument
        var = self.var
        if name is None:
            return [
                f"{var} = None",
                f"for candidate in {self._values()}:",
                "    if all([candidate.get(name) == value for name, value in args.items()]):",
                f"        {var} = candidate",
                "        break",
                f"if {var} == None:",
                f'    return error("no {self.collection.singular} matches %s" % json.encode(args))',
            ]
        wanted = f'args["{name}"]'
        if self.mapping:
            kind = self.arguments.get(name, {}).get("type") if isinstance(self.arguments.get(name), dict) else None
            key = wanted if kind == "string" else f"str({wanted})"
            lines = [f"{var} = {self.path}.get({key})"]
        else:
            lines = [
                f"{var} = None",
                f"for candidate in {self.path}:",
                f'    if candidate.get("{self.reading.id_field}") == {wanted}:',
                f"        {var} = candidate",
                "        break",
            ]
        return [*lines, f"if {var} == None:", f'    return error("{self.collection.singular} %s not found" % {wanted})']

    def _values(self) -> str:
        return f"{self.path}.values()" if self.mapping else self.path

    def _result(self, value: str, wrapped_name: str) -> str:
        """The record, or the record under its name when the output schema wants it so."""
        schema = self.tool.output_schema
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(properties, dict) and wrapped_name in properties and self.reading.id_field not in properties:
            return f'{{"{wrapped_name}": {value}}}'
        return value

    def _stamps(self, record_fields: set[str], names: tuple[str, ...]) -> list[str]:
        return [f'{self.var}["{name}"] = now()' for name in names if name in record_fields]

    # --- the actions -------------------------------------------------------------------------------

    def get(self) -> tuple[list[str], str]:
        lines = self._lookup()
        lines.append(f"return {self._result(self.var, self.collection.singular)}")
        return lines, f"reads one record of {self.path}"

    def listing(self) -> tuple[list[str], str]:
        fields = self.reading.fields
        text_fields = [
            name
            for name, sub in fields.items()
            if (isinstance(sub, dict) and sub.get("type") == "string") or isinstance(self._sample().get(name), str)
        ]
        lines = ["found = []", f"for {self.var} in {self._values()}:"]
        for name, sub in self.arguments.items():
            field = _field_named(name, fields)
            default = sub.get("default") if isinstance(sub, dict) else None
            given = f'args.get("{name}", {_q(default)})' if default is not None else f'args["{name}"]'
            check = f'"{name}" in args and ' if default is None else ""
            if field is not None:
                held = self._sample().get(field)
                schema = fields.get(field)
                many = isinstance(held, list) or (isinstance(schema, dict) and schema.get("type") == "array")
                test = (
                    f'{given} not in {self.var}.get("{field}", [])' if many else f'{self.var}.get("{field}") != {given}'
                )
                lines += [f"    if {check}{test}:", "        continue"]
            elif name in _TEXT_QUERY_ARGS:
                lines += [
                    f'    if args.get("{name}") and not contains_text({self.var}, {_q(text_fields)}, args["{name}"]):',
                    "        continue",
                ]
            elif name not in _LIMIT_ARGS:
                lines.append(f'    # args["{name}"]: no field of the records by that name, so it filters nothing')
        lines += [f"    found.append({self.var})", "total = len(found)"]
        for name in _LIMIT_ARGS:
            if name in self.arguments:
                lines += [f'if "{name}" in args:', f'    found = found[:args["{name}"]]']
        lines.append(f"return {self._listing()}")
        return lines, f"lists the records of {self.path} that match the arguments"

    def _listing(self) -> str:
        natural = f'{{"{self.collection.key}": found, "count": len(found), "total": total}}'
        schema = self.tool.output_schema
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if not isinstance(properties, dict) or self.collection.key in properties:
            return natural
        for name in ("items", "results"):
            if name in properties:
                return f'{{"{name}": found, "count": len(found)}}' if "count" in properties else f'{{"{name}": found}}'
        arrays = [name for name, sub in properties.items() if isinstance(sub, dict) and sub.get("type") == "array"]
        return f'{{"{arrays[0]}": found}}' if arrays else natural

    def _sample(self) -> dict[str, Any]:
        return sample_record(self.collection)

    def create(self) -> tuple[list[str], str]:
        id_name = self.reading.id_field
        fields = self.reading.fields
        lines: list[str] = []
        if not self.exists:
            lines += [f'if "{self.collection.key}" not in state:', f"    {self.path} = {{}}"]
        lines.append(f"{self.var} = dict(args)")
        given = next(
            (name for name in (id_name, *self._id_names()) if name in self.arguments),
            None,
        )
        if given is not None:
            lines += [
                f"if {self._contains(f'args[{_q(given)}]')}:",
                f'    return error("{self.collection.singular} %s already exists" % args["{given}"])',
                f'{self.var}["{id_name}"] = args["{given}"]',
            ]
        else:
            lines += self._new_id(id_name)
        record_fields = set(fields)
        for name in record_fields & set(_TIMESTAMPS):
            if name not in self.arguments:
                lines.append(f'{self.var}["{name}"] = now()')
        for name, value in self._defaults().items():
            if name in self.arguments:  # an optional argument left out
                lines.append(f'{self.var}.setdefault("{name}", {_q(value)})')
            else:
                lines.append(f'{self.var}["{name}"] = {_q(value)}')
        if self.mapping:
            lines.append(f'{self.path}[str({self.var}["{id_name}"])] = {self.var}')
        else:
            lines.append(f"{self.path}.append({self.var})")
        lines.append(f"return {self._result(self.var, self.collection.singular)}")
        return lines, f"adds a record to {self.path}, with the next id"

    def _id_names(self) -> list[str]:
        base = self.collection.singular
        return [f"{base}_id", "id", f"{base}Id"]

    def _contains(self, wanted: str) -> str:
        if self.mapping:
            return f"str({wanted}) in {self.path}"
        return f'[r for r in {self.path} if r.get("{self.reading.id_field}") == {wanted}]'

    def _new_id(self, id_name: str) -> list[str]:
        """The next id, in the style of those stored (`T-1006` after `T-1005`), from a counter when the
        state keeps one (and advances it), as the engine makes it."""
        state = self.environment.initial_state
        singular_ = self.collection.singular
        styles = [_split_id(record.get(id_name, key)) for key, record in items(self.collection)]
        styled = [style for style in styles if style is not None and isinstance(style[0], str)]
        integer = bool(styles) and all(style is not None and style[0] is None for style in styles)
        var = self.var
        for counter in (f"next_{singular_}_id", "next_id", f"{singular_}_counter"):
            value = state.get(counter)
            if isinstance(value, int) and not isinstance(value, bool):
                if styled:
                    prefix, width = styled[0][0] or "", styled[0][1]
                    padded = f'"0" * ({width} - len(number)) + number' if width else "number"
                    return [
                        f'number = str(state["{counter}"])',
                        f'{var}["{id_name}"] = {_q(prefix)} + {padded}',
                        f'state["{counter}"] += 1',
                    ]
                return [f'{var}["{id_name}"] = state["{counter}"]', f'state["{counter}"] += 1']
        if integer or (not styled and self._id_is_integer(id_name)):
            ids = f'[r["{id_name}"] for r in {self._values()}]'
            return [f'{var}["{id_name}"] = max([0] + {ids}) + 1']
        prefix = str(styled[0][0]) if styled else f"{singular_}_"
        return [f'{var}["{id_name}"] = next_id({self.path}, {_q(prefix)})']

    def _id_is_integer(self, id_name: str) -> bool:
        sub = resolved(self.reading.fields.get(id_name, {}), self.reading.root)
        return isinstance(sub, dict) and sub.get("type") == "integer"

    def _defaults(self) -> dict[str, Any]:
        """The fields a new record gets beside its arguments, from its schema (as the engine fills them):
        null where it may be null (what happens later has not happened), the first value of an enum."""
        defaults: dict[str, Any] = {}
        root = self.reading.root
        for name, sub in self.reading.fields.items():
            if name in _TIMESTAMPS or name == self.reading.id_field or not sub:
                continue
            if allows_null(sub, root):
                defaults[name] = None
            elif offered := enum_of(sub, root):
                defaults[name] = offered[0]
            elif name in self.reading.required:
                defaults[name] = _plain(resolved(sub, root))
        if "status" in self._sample() and "status" not in defaults and "status" not in self.arguments:
            held = [record.get("status") for _, record in items(self.collection) if "status" in record]
            defaults["status"] = held[0] if held else "active"
        return defaults

    def update(self) -> tuple[list[str], str]:
        lines = self._lookup()
        lines += self._stores(updating=True)
        lines += self._stamps(set(self._sample()), _UPDATED)
        lines.append(f"return {self._result(self.var, self.collection.singular)}")
        return lines, f"stores the arguments in a record of {self.path}"

    def _stores(self, *, updating: bool) -> list[str]:
        """Lines storing each argument where the record keeps it (`comment` appended to `comments`...)."""
        known = list(self.reading.fields)
        ids = {self.reading.id_field, self.reading.id_argument}
        status_field = self.reading.status[0] if self.reading.status else None
        lines: list[str] = []
        for name in self.arguments:
            if name in ids or name == status_field:
                continue
            home = home_of(name, known)
            if name in known or (updating and home is None):
                lines += [f'if "{name}" in args:', f'    {self.var}["{name}"] = args["{name}"]']
            elif home is not None and home == plural(name):
                held = self._sample().get(home)
                schema = self.reading.fields.get(home)
                if isinstance(held, int) and not isinstance(held, bool):
                    lines += [f'if "{name}" in args:', f'    {self.var}["{home}"] = {self.var}.get("{home}", 0) + 1']
                elif isinstance(held, list) or (isinstance(schema, dict) and schema.get("type") == "array"):
                    lines += [
                        f'if "{name}" in args:',
                        f'    {self.var}["{home}"] = {self.var}.get("{home}", []) + [args["{name}"]]',
                    ]
            elif home is not None:
                lines += [f'if "{name}" in args:', f'    {self.var}["{home}"] = args["{name}"]']
            else:
                lines.append(f'# args["{name}"]: no field of the record keeps it, so it is not stored')
        return lines

    def delete(self) -> tuple[list[str], str]:
        lines = self._lookup()
        id_name = self.reading.id_field
        if self.mapping:
            key = f'args["{self.reading.id_argument}"]' if self.reading.id_argument else f'{self.var}["{id_name}"]'
            lines += [f"{self.path}.pop(str({key}))"]
        else:
            lines += [f"{self.path}.remove({self.var})"]
        lines.append(f'return {{"id": {self.var}.get("{id_name}"), "deleted": True}}')
        return lines, f"removes a record of {self.path}"

    def set_status(self) -> tuple[list[str], str]:
        field, value = self.reading.status or ("status", "done")
        lines = self._lookup()
        said = f'"{self.collection.singular} %s is already {value}" % {self.var}.get("{self.reading.id_field}")'
        lines += [f'if {self.var}.get("{field}") == {_q(value)}:', f"    return error({said})"]
        lines += self._stores(updating=False)
        lines.append(f'{self.var}["{field}"] = {_q(value)}')
        known = set(self.reading.fields)
        stamped = (f"{value}_at", _camel(f"{value}_at"))
        lines += [f'{self.var}["{name}"] = now()' for name in stamped if name in known]
        lines += self._stamps(set(self._sample()), _UPDATED)
        lines.append(f"return {self._result(self.var, self.collection.singular)}")
        return lines, f"sets {field} of a record of {self.path} to {value!r}"


def _stub(environment: Environment, tool: ToolSpec, spec: Path) -> Scaffolded:
    lines = [f"def {function_name(tool.name)}(state, args):"]
    comment = ["# " + NOT_WRITTEN.capitalize() + ": the offline engine cannot tell what this tool does."]
    if tool.description.strip():
        comment += ["#", "# What it does (its description):"]
        comment += ["#   " + line for line in textwrap.wrap(" ".join(tool.description.split()), 100)]
    comment += ["#", "# Its arguments (args):"]
    properties = tool.input_schema.get("properties")
    required = set(tool.input_schema.get("required") or [])
    for name, sub in properties.items() if isinstance(properties, dict) else []:
        kind = sub.get("type", "any") if isinstance(sub, dict) else "any"
        said = f" ({'required' if name in required else 'optional'})"
        about = f": {sub['description']}" if isinstance(sub, dict) and sub.get("description") else ""
        comment.append(f"#   args[{_q(name)}]: {kind}{said}{about}")
    if not isinstance(properties, dict) or not properties:
        comment.append("#   none")
    if tool.output_schema is not None:
        comment += ["#", f"# It returns: {json.dumps(tool.output_schema, ensure_ascii=False)[:300]}"]
    comment += ["#", "# The state's collections:"]
    collections = collections_in(environment.initial_state) if isinstance(environment.initial_state, dict) else []
    for path, records in collections:
        where = "state" + "".join(f"[{_q(part)}]" for part in path)
        sample = next(iter(records.values() if isinstance(records, dict) else records), None)
        fields = f": records with {', '.join(sample)}" if isinstance(sample, dict) else ": empty"
        keyed = " (a mapping by id)" if isinstance(records, dict) else " (a list)"
        comment.append(f"#   {where}{keyed}{fields}")
    others = [key for key in environment.initial_state if (key,) not in {path[:1] for path, _ in collections}]
    for key in others:
        comment.append(f"#   state[{_q(key)}] = {json.dumps(environment.initial_state[key], ensure_ascii=False)[:100]}")
    if not environment.initial_state:
        comment.append("#   none yet: give the spec an initial_state")
    if environment.instructions.strip():
        comment += ["#", "# The rules of this world (the spec's instructions):"]
        for line in environment.instructions.strip().splitlines():
            comment += ["#   " + part for part in textwrap.wrap(line, 100)] or ["#"]
    comment += [
        "#",
        "# Write it as a clerk would: look the records up, check each rule in order with its own error",
        '# (return error("...")), change the state, return the result. Or delete the function: a tool with',
        "# none is answered by the backend (an LLM's, with --backend openai or anthropic).",
    ]
    message = (
        f"{tool.name}: {NOT_WRITTEN}: its function in {rules_path(spec).name} is a stub of `sim-mcp rules init`; "
        "write it there, or delete it to leave the tool to an LLM backend"
    )
    body = [*comment, f"return error({_q(message)})"]
    source = lines[0] + "\n" + textwrap.indent("\n".join(body), "    ") + "\n"
    return Scaffolded(tool.name, "stub", "cannot read what it does", source)


def _identifier(word: str) -> str:
    name = "_".join(split_words(word))
    return name if name.isidentifier() and name not in _RESERVED else ""


# Names a function's own variable must not take: Starlark's keywords and the helpers it calls.
_RESERVED = frozenset(
    {"and", "break", "continue", "def", "elif", "else", "for", "if", "in", "lambda", "load", "not", "or", "pass"}
    | {"return", "state", "args", "error", "now", "json", "found", "total", "number", "candidate"}
)


def _field_named(name: str, fields: dict[str, Any]) -> str | None:
    for candidate in (name, plural(name), singular(name)):
        if candidate in fields:
            return candidate
    return None


def _split_id(value: Any) -> tuple[str | None, int] | None:
    """(prefix, zero-padded width) of an id: (None, 0) for an integer."""
    if isinstance(value, int) and not isinstance(value, bool):
        return None, 0
    if isinstance(value, str):
        digits = len(value) - len(value.rstrip("0123456789"))
        if digits:
            tail = value[-digits:]
            return value[:-digits], len(tail) if tail.startswith("0") else 0
    return None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _plain(schema: Any) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, list):
        kind = next((item for item in kind if item != "null"), None)
    plain: dict[str, Any] = {"integer": 0, "number": 0, "boolean": False, "array": [], "object": {}, "string": ""}
    return plain.get(kind) if isinstance(kind, str) else None
