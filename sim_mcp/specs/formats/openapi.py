"""OpenAPI 3.0 and 3.1 documents (YAML or JSON): each operation becomes a tool.

The rules, chosen so that an agent sees one flat object of arguments and the simulator sees plain JSON Schema:

- Name: the `operationId`, with each run of characters outside `[A-Za-z0-9_.-]` replaced by `_` and cut to
  128; without one, the method and the path's words: `GET /pets/{petId}` -> `get_pets_petId`. A name already
  taken in the file gets `_2`, `_3`...
- Description: the summary and the description (one when they are the same); `GET /pets` when neither.
- Input schema: one `type: object` whose properties are the parameters, then the request body.
  - Parameters: path, query and header ones, path-level ones included (the operation's win on the same
    name and `in`); path parameters are always required. Cookies are session plumbing, and OpenAPI says
    `Accept`, `Content-Type` and `Authorization` headers are not parameters: those are left out. Two
    parameters of one name in different places: the later one is named `<in>_<name>`. A `{name}` in the
    path that no parameter declares is still a required string argument.
  - Body: the first media type that is JSON (`application/json`, `*/*+json`), else a form
    (`application/x-www-form-urlencoded`, `multipart/form-data`), else the first one listed. An object
    body (also an `allOf` of objects) is spread into the arguments; a body property that a parameter
    already names is renamed `body_<name>`, and says so in its description. Its properties are required
    when the body is required and they are required in it. Any other body (array, scalar, `oneOf`, a map,
    an empty object, raw bytes) is one argument `body` (`request_body` when a parameter is called `body`),
    required when the body is; a non-JSON one says its media type in its description (binary content is a
    string: what an LLM simulator can pass). A body with no content is left out.
- Output schema: that of the first 2xx response, in code order, with JSON content; none when there is none.
  When it is not an object it is wrapped as `{"type": "object", "properties": {"result": <schema>}}`, since
  MCP structured results are objects (see `building`).
- `$ref`s (local ones, `#/...`) are inlined. A ref met again while it is being inlined (a cycle, such as
  `Node.children: [Node]`) becomes `{"$ref": "#/$defs/Node"}`, and `Node` is defined once in the `$defs` at
  the root of the tool's input or output schema. Refs into other files are refused, and a ref to nothing is
  an error naming the ref and where it was met.
- Schemas become JSON Schema 2020-12: 3.0's `nullable: true` turns `type: T` into `[T, "null"]` (adding
  `null` to an `enum`), or without a `type` into `anyOf: [<schema>, {type: null}]`; boolean
  `exclusiveMinimum`/`exclusiveMaximum` become numbers; `example` becomes `examples`; `xml`,
  `externalDocs`, `discriminator`, `$id`, `$schema` and `x-` extensions are dropped; `allOf`/`oneOf`/`anyOf`
  are kept. Properties marked `readOnly` are left out of inputs and `writeOnly` ones out of outputs. 3.1
  schemas already are JSON Schema and go through the same, then idle, conversion.
- Annotations: `readOnlyHint` for HTTP's safe methods (GET, HEAD, OPTIONS, TRACE), `idempotentHint` for
  those and PUT and DELETE, `destructiveHint` for DELETE.
- Swagger 2.0 is refused (convert it to OpenAPI 3 first); webhooks and callbacks are not operations one calls.
"""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import unquote

from jsonpointer import unescape

from sim_mcp.errors import SpecError
from sim_mcp.specs.formats.base import SpecFormat
from sim_mcp.specs.formats.building import ToolDraft, build_environment, join, output_schema
from sim_mcp.specs.formats.walk import map_subschemas
from sim_mcp.specs.model import Environment
from sim_mcp.specs.schema import SchemaChecks, json_path, type_name

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SAFE = frozenset({"get", "head", "options", "trace"})
_IDEMPOTENT = _SAFE | {"put", "delete"}
_LOCATIONS = ("path", "query", "header")  # also the order of the arguments
_NOT_PARAMETERS = frozenset({"accept", "content-type", "authorization"})
_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
_DROPPED = frozenset({"nullable", "xml", "externalDocs", "discriminator", "$id", "$schema"})
_NOT_IN_TOOL_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_MAX_NAME = 128

Direction = Literal["input", "output"]


def looks_openapi(document: Any) -> bool:
    return isinstance(document, dict) and ("openapi" in document or "swagger" in document)


def read_openapi(document: Any, source: str, checks: SchemaChecks | None = None) -> Environment:
    if not isinstance(document, dict):
        raise SpecError(source, f"expected an OpenAPI document (an object), got {type_name(document)}")
    if "swagger" in document:
        reason = "Swagger 2.0 is not supported: convert it to OpenAPI 3 first (e.g. with swagger2openapi)"
        raise SpecError(source, reason, "swagger")
    version = str(document.get("openapi", ""))
    if not re.fullmatch(r"3\.[01](\.\d+)?(-\S+)?", version):
        raise SpecError(source, f"unsupported OpenAPI version {version!r} (expected 3.0 or 3.1)", "openapi")
    doc = _Document(document, source, checks if checks is not None else SchemaChecks())
    paths = document.get("paths") or {}
    if not isinstance(paths, dict):
        raise SpecError(source, f"expected an object of paths, got {type_name(paths)}", "paths")
    taken: set[str] = set()
    drafts = []
    for path, raw_item in paths.items():
        item, item_place = doc.deref(raw_item, join("paths", str(path)))
        if not isinstance(item, dict):
            raise SpecError(source, f"expected a path item (an object), got {type_name(item)}", item_place)
        for method in _METHODS:
            if method in item:
                drafts.append(_operation(doc, str(path), method, item, item_place, taken))
    return build_environment(source, drafts, _description(document), doc.checks)


def _description(document: dict[str, Any]) -> str:
    info = document.get("info")
    if not isinstance(info, dict):
        return ""
    parts = [text.strip() for text in (info.get("title"), info.get("description")) if isinstance(text, str)]
    return "\n\n".join(part for part in parts if part)


def _operation(
    doc: _Document, path: str, method: str, item: dict[str, Any], item_place: str, taken: set[str]
) -> ToolDraft:
    place = join(item_place, method)
    operation = item[method]
    if not isinstance(operation, dict):
        raise SpecError(doc.source, f"expected an operation (an object), got {type_name(operation)}", place)
    inputs = _Schemas(doc, "input")
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter, parameter_place in _parameters(doc, path, item, item_place, operation, place):
        name, location = parameter["name"], parameter["in"]
        key = _free_key(properties, name, f"{location}_{name}")
        properties[key] = _parameter_schema(inputs, parameter, parameter_place)
        if location == "path" or parameter.get("required") is True:
            required.append(key)
    if "requestBody" in operation:
        _add_body(doc, inputs, operation["requestBody"], join(place, "requestBody"), properties, required)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if definitions := inputs.definitions():
        schema["$defs"] = definitions
    fields: dict[str, Any] = {
        "name": _tool_name(operation.get("operationId"), method, path, taken),
        "description": _tool_description(operation, method, path),
        "input_schema": schema,
        "annotations": _annotations(method),
    }
    if (output := _output(doc, operation.get("responses"), join(place, "responses"))) is not None:
        fields["output_schema"] = output
    origins = {"name": join(place, "operationId"), "input_schema": place, "output_schema": join(place, "responses")}
    return ToolDraft(place, fields, origins)


def _tool_name(operation_id: Any, method: str, path: str, taken: set[str]) -> str:
    base = _NOT_IN_TOOL_NAME.sub("_", operation_id)[:_MAX_NAME] if isinstance(operation_id, str) else ""
    if not base:
        base = "_".join([method, *re.findall(r"[A-Za-z0-9]+", path)])[:_MAX_NAME]
    name, number = base, 2
    while name in taken:
        suffix = f"_{number}"
        name, number = base[: _MAX_NAME - len(suffix)] + suffix, number + 1
    taken.add(name)
    return name


def _tool_description(operation: dict[str, Any], method: str, path: str) -> str:
    parts: list[str] = []
    for text in (operation.get("summary"), operation.get("description")):
        if isinstance(text, str) and text.strip() and text.strip() not in parts:
            parts.append(text.strip())
    description = "\n\n".join(parts) or f"{method.upper()} {path}"
    return description + "\n\nDeprecated." if operation.get("deprecated") is True else description


def _annotations(method: str) -> dict[str, bool]:
    hints = {"readOnlyHint": method in _SAFE, "idempotentHint": method in _IDEMPOTENT}
    if method == "delete":
        hints["destructiveHint"] = True
    return hints


def _parameters(
    doc: _Document, path: str, item: dict[str, Any], item_place: str, operation: dict[str, Any], place: str
) -> list[tuple[dict[str, Any], str]]:
    """Path-level then operation-level parameters (the latter win), in path, query, header order."""
    by_key: dict[tuple[str, str], tuple[dict[str, Any], str]] = {}
    for owner, owner_place in ((item, item_place), (operation, place)):
        listed = owner.get("parameters") or []
        if not isinstance(listed, list):
            raise SpecError(doc.source, f"expected a list, got {type_name(listed)}", join(owner_place, "parameters"))
        for index, raw in enumerate(listed):
            parameter, parameter_place = doc.deref(raw, join(owner_place, f"parameters[{index}]"))
            if not isinstance(parameter, dict):
                reason = f"expected a parameter (an object), got {type_name(parameter)}"
                raise SpecError(doc.source, reason, parameter_place)
            name, location = parameter.get("name"), parameter.get("in")
            if not isinstance(name, str) or not name or not isinstance(location, str):
                reason = "a parameter needs a `name` and an `in` (path, query, header or cookie)"
                raise SpecError(doc.source, reason, parameter_place)
            if location not in (*_LOCATIONS, "cookie"):
                reason = f"unknown parameter location {location!r} (expected path, query, header or cookie)"
                raise SpecError(doc.source, reason, join(parameter_place, "in"))
            by_key[(name, location)] = (parameter, parameter_place)
    for name in re.findall(r"\{([^}/]+)\}", path):
        if (name, "path") not in by_key:  # undeclared, though OpenAPI says to declare it: still an argument
            by_key[(name, "path")] = ({"name": name, "in": "path", "schema": {"type": "string"}}, item_place)
    kept = [
        entry
        for (name, location), entry in by_key.items()
        if location in _LOCATIONS and not (location == "header" and name.lower() in _NOT_PARAMETERS)
    ]
    return sorted(kept, key=lambda entry: _LOCATIONS.index(entry[0]["in"]))


def _parameter_schema(inputs: _Schemas, parameter: dict[str, Any], place: str) -> Any:
    if "schema" in parameter:
        schema = inputs.convert(parameter["schema"], join(place, "schema"))
    elif isinstance(content := parameter.get("content"), dict) and content:
        media, media_object = next(iter(content.items()))
        media_schema = media_object.get("schema", {}) if isinstance(media_object, dict) else {}
        schema = inputs.convert(media_schema, join(place, f"content.{media}.schema"))
    else:
        schema = {}
    inputs.check(schema, place)
    if not isinstance(schema, dict):
        return schema
    if isinstance(description := parameter.get("description"), str) and description:
        schema["description"] = description
    if parameter.get("deprecated") is True:
        schema["deprecated"] = True
    if "example" in parameter and "examples" not in schema:
        schema["examples"] = [parameter["example"]]
    return schema


def _add_body(
    doc: _Document, inputs: _Schemas, raw: Any, place: str, properties: dict[str, Any], required: list[str]
) -> None:
    body, place = doc.deref(raw, place)
    if not isinstance(body, dict):
        raise SpecError(doc.source, f"expected a request body (an object), got {type_name(body)}", place)
    content = body.get("content")
    if not isinstance(content, dict) or not content:
        return
    media = _body_media(content)
    media_place = join(place, f"content.{media}")
    media_object = content[media] if isinstance(content[media], dict) else {}
    is_json = _is_json(media)
    if "schema" in media_object:
        schema = inputs.convert(media_object["schema"], join(media_place, "schema"))
    else:
        schema = {} if is_json else {"type": "string"}
    inputs.check(schema, media_place)
    body_required = body.get("required") is True
    if (spread := _spread(schema)) is not None:
        fields, fields_required = spread
        for name, field_schema in fields.items():
            key = _free_key(properties, name, f"body_{name}")
            properties[key] = field_schema if key == name else _renamed(field_schema, name)
            if body_required and name in fields_required:
                required.append(key)
        return
    key = _free_key(properties, "body", "request_body")
    if isinstance(schema, dict):
        notes = [body.get("description") or schema.get("description") or "The request body."]
        if not is_json and media not in _FORMS:
            notes.append(f"Sent as {media}.")
        schema = {**schema, "description": " ".join(str(note) for note in notes)}
    properties[key] = schema
    if body_required:
        required.append(key)


def _body_media(content: dict[str, Any]) -> str:
    media_types = [str(media) for media in content]
    return next(
        (media for media in media_types if _is_json(media)),
        next((media for media in media_types if _base_media(media) in _FORMS), media_types[0]),
    )


def _spread(schema: Any) -> tuple[dict[str, Any], list[str]] | None:
    """The properties and required names of an object body, or None when it is no plain object."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return None
    if any(key in schema for key in ("$ref", "anyOf", "oneOf", "not", "if", "patternProperties")):
        return None
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        return None  # a map: its keys are data, not argument names
    properties = dict(schema.get("properties") or {})
    required = [name for name in schema.get("required") or [] if isinstance(name, str)]
    for part in schema.get("allOf") or []:
        if (spread := _spread(part)) is None:
            return None
        for name, part_schema in spread[0].items():
            same = name not in properties or properties[name] == part_schema
            properties[name] = part_schema if same else {"allOf": [properties[name], part_schema]}
        required += [name for name in spread[1] if name not in required]
    return (properties, required) if properties else None


def _renamed(schema: Any, name: str) -> dict[str, Any]:
    note = f"(Request body field `{name}`, renamed: a parameter has the same name.)"
    base = schema if isinstance(schema, dict) else {}
    description = base.get("description")
    return {**base, "description": f"{description} {note}" if description else note}


def _free_key(taken: dict[str, Any], *candidates: str) -> str:
    """The first candidate not taken, else the last one with `_2`, `_3`..."""
    for candidate in candidates:
        if candidate not in taken:
            return candidate
    number = 2
    while f"{candidates[-1]}_{number}" in taken:
        number += 1
    return f"{candidates[-1]}_{number}"


def _output(doc: _Document, responses: Any, place: str) -> dict[str, Any] | None:
    if responses is None:
        return None
    if not isinstance(responses, dict):
        raise SpecError(doc.source, f"expected an object of responses, got {type_name(responses)}", place)
    outputs = _Schemas(doc, "output")
    for code, key in sorted((str(key), key) for key in responses):
        if not code.startswith("2"):
            continue
        response, response_place = doc.deref(responses[key], join(place, code))
        content = response.get("content") if isinstance(response, dict) else None
        if not isinstance(content, dict):
            continue
        if (media := next((str(media) for media in content if _is_json(str(media))), None)) is None:
            continue
        media_object = content[media] if isinstance(content[media], dict) else {}
        if "schema" not in media_object:
            return None
        schema_place = join(response_place, f"content.{media}.schema")
        schema = outputs.convert(media_object["schema"], schema_place)
        outputs.check(schema, schema_place)
        schema = {} if schema is True else schema
        if not isinstance(schema, dict):
            return None  # `false`: no result can be valid; better no schema than an impossible one
        description = response.get("description")
        if isinstance(description, str) and description and "description" not in schema:
            schema = {**schema, "description": description}
        result = output_schema(schema)
        if definitions := outputs.definitions():
            result = {**result, "$defs": {**result.get("$defs", {}), **definitions}}
        return result
    return None


def _is_json(media: str) -> bool:
    base = _base_media(media)
    return base == "application/json" or base.endswith("+json")


def _base_media(media: str) -> str:
    return media.split(";", 1)[0].strip().lower()


class _Document:
    """An OpenAPI document, for following `$ref`s in it."""

    def __init__(self, document: dict[str, Any], source: str, checks: SchemaChecks) -> None:
        self.document = document
        self.source = source
        self.checks = checks  # the loader's: each distinct schema checked once

    def lookup(self, ref: Any, place: str) -> tuple[Any, str]:
        """What `ref` points to, and its place; errors name the ref and the place it was met."""
        if not isinstance(ref, str):
            raise SpecError(self.source, f"expected $ref to be a string, got {type_name(ref)}", place)
        if not ref.startswith("#"):
            reason = f"$ref {ref!r} points outside this document; only refs within it (#/...) are supported"
            raise SpecError(self.source, reason, place)
        pointer = unquote(ref[1:])
        if pointer and not pointer.startswith("/"):
            raise SpecError(self.source, f"$ref {ref!r} is not a JSON pointer (#/components/...)", place)
        node: Any = self.document
        walked: list[str] = []
        for raw in pointer.split("/")[1:]:
            part = unescape(raw)
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, dict) and part.isdigit() and int(part) in node:
                node = node[int(part)]  # YAML reads unquoted status codes as integers
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                where = json_path(walked) or "the document root"
                reason = f"$ref {ref!r} points to nothing in this document (no {part!r} in {where})"
                raise SpecError(self.source, reason, place)
            walked.append(part)
        return node, json_path(walked)

    def deref(self, node: Any, place: str) -> tuple[Any, str]:
        """`node`, or what its `$ref` (chain) points to, for objects other than schemas."""
        seen: list[str] = []
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise SpecError(self.source, f"$ref cycle: {' -> '.join([*seen, ref])}", place)
            seen.append(ref)
            node, place = self.lookup(ref, place)
        return node, place


class _Schemas:
    """Converts the schemas of one tool's input (or output) to JSON Schema, with one `$defs` for cycles."""

    def __init__(self, doc: _Document, direction: Direction) -> None:
        self._doc = doc
        self._hidden = "readOnly" if direction == "input" else "writeOnly"
        self._definitions: dict[str, str] = {}  # ref -> its name under $defs

    def convert(self, schema: Any, place: str, stack: tuple[str, ...] = ()) -> Any:
        """`schema` as JSON Schema 2020-12, `$ref`s inlined; `stack` holds the refs being inlined."""
        if isinstance(schema, bool):
            return schema
        if not isinstance(schema, dict):
            raise SpecError(self._doc.source, f"expected a schema (an object), got {type_name(schema)}", place)
        if "$ref" in schema:
            return self._ref(schema, place, stack)
        kept = {key: value for key, value in schema.items() if key not in _DROPPED and not key.startswith("x-")}
        out = map_subschemas(kept, lambda sub, where: self.convert(sub, join(place, where), stack))
        if "example" in out:
            out.setdefault("examples", [out.pop("example")])
        for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if isinstance(flag := out.get(bound), bool):
                del out[bound]
                if flag and limit in out:
                    out[bound] = out.pop(limit)
        self._hide(out)
        return _nullable(out) if schema.get("nullable") is True else out

    def check(self, schema: Any, place: str) -> None:
        if problem := self._doc.checks.problem(schema if not isinstance(schema, bool) else {}):
            raise SpecError(self._doc.source, problem, place)

    def definitions(self) -> dict[str, Any]:
        """The `$defs` for the refs found cyclic so far (defining one may find more)."""
        defined: dict[str, Any] = {}
        while pending := [ref for ref, name in self._definitions.items() if name not in defined]:
            for ref in pending:
                target, place = self._doc.lookup(ref, "$defs")
                defined[self._definitions[ref]] = self.convert(target, place, (ref,))
        return defined

    def _ref(self, schema: dict[str, Any], place: str, stack: tuple[str, ...]) -> Any:
        ref = schema["$ref"]
        out: Any
        if ref in stack:
            out = {"$ref": f"#/$defs/{self._definition_name(ref)}"}
        else:
            target, target_place = self._doc.lookup(ref, place)
            out = self.convert(target, target_place, (*stack, ref))
        siblings = {key: value for key, value in schema.items() if key not in ("$ref", "nullable")}
        if siblings and isinstance(out, dict):  # 3.1 allows e.g. a description next to a $ref
            out = {**out, **self.convert(siblings, place, stack)}
        return _nullable(out) if schema.get("nullable") is True and isinstance(out, dict) else out

    def _definition_name(self, ref: str) -> str:
        if (name := self._definitions.get(ref)) is not None:
            return name
        last = unescape(ref.rsplit("/", 1)[-1])
        base = _NOT_IN_TOOL_NAME.sub("_", last) or "schema"
        name, number = base, 2
        while name in self._definitions.values():
            name, number = f"{base}_{number}", number + 1
        self._definitions[ref] = name
        return name

    def _hide(self, schema: dict[str, Any]) -> None:
        """Drop `readOnly` properties from inputs (`writeOnly` from outputs): the other side sets them."""
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return
        hidden = [name for name, sub in properties.items() if isinstance(sub, dict) and sub.get(self._hidden) is True]
        for name in hidden:
            del properties[name]
        if hidden and isinstance(required := schema.get("required"), list):
            schema["required"] = [name for name in required if name not in hidden]


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.0's `nullable: true` as JSON Schema: `null` added to the type (and enum)."""
    kind = schema.get("type")
    if kind is None:
        return {"anyOf": [schema, {"type": "null"}]}
    out = dict(schema)
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if isinstance(enum := out.get("enum"), list) and None not in enum:
        out["enum"] = [*enum, None]
    return out


FORMAT = SpecFormat("openapi", looks_openapi, read_openapi, "an OpenAPI document")
