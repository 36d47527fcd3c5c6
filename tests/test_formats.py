"""Foreign spec formats: the shared corpus of real third-party specs, and hand-made edge cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim_mcp.errors import SpecError
from sim_mcp.plugins import SPEC_FORMATS
from sim_mcp.specs.formats import FORMATS, detect_format, parse_document, read_document, read_spec_file, spec_format
from sim_mcp.specs.formats.native import check_tool_schemas
from sim_mcp.specs.model import Environment, ToolAnnotations, ToolSpec
from sim_mcp.specs.registry import load_catalog
from sim_mcp.specs.schema import compile_schema
from tests.servers import CORPUS, CORPUS_MISSING, HAVE_CORPUS


def load(path: Path, format: str | None = None) -> Environment:
    """Read a spec file and hold it to the same schema checks as native files."""
    environment = read_spec_file(path, format)
    check_tool_schemas(environment, str(path))
    return environment


def write(folder: Path, name: str, document: Any) -> Path:
    path = folder / name
    if isinstance(document, str):
        path.write_text(document)
    elif path.suffix in (".yaml", ".yml"):
        path.write_text(yaml.safe_dump(document, sort_keys=False))
    else:
        path.write_text(json.dumps(document))
    return path


def tool(environment: Environment, name: str) -> ToolSpec:
    found = environment.tool(name)
    assert found is not None, f"no tool {name!r} in {[t.name for t in environment.tools]}"
    return found


def openapi(paths: dict[str, Any], schemas: dict[str, Any] | None = None, version: str = "3.0.3") -> dict[str, Any]:
    document: dict[str, Any] = {"openapi": version, "info": {"title": "Test API", "version": "1"}, "paths": paths}
    if schemas is not None:
        document["components"] = {"schemas": schemas}
    return document


def json_body(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {"application/json": {"schema": schema}}}


def ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def schema_types(schema: Any) -> set[str]:
    """Every `type` value in schema positions (property names such as `type` are skipped)."""
    found: set[str] = set()
    if isinstance(schema, dict):
        kind = schema.get("type")
        found.update([kind] if isinstance(kind, str) else kind if isinstance(kind, list) else [])
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    found |= schema_types(sub)
            elif key in ("items", "additionalProperties", "prefixItems", "allOf", "anyOf", "oneOf"):
                for sub in value if isinstance(value, list) else [value]:
                    found |= schema_types(sub)
    return found


# The shared corpus ---------------------------------------------------------------------------------------

# file -> (format, number of tools, {tool: its required arguments})
CORPUS_FILES: dict[str, tuple[str, int, dict[str, list[str]]]] = {
    "openapi/oai_petstore.yaml": (
        "openapi",
        3,
        {"listPets": [], "createPets": ["id", "name"], "showPetById": ["petId"]},
    ),
    "openapi/oai_petstore-expanded.yaml": (
        "openapi",
        4,
        {"findPets": [], "addPet": ["name"], "find_pet_by_id": ["id"], "deletePet": ["id"]},
    ),
    "openapi/swagger-petstore_openapi.yaml": (
        "openapi",
        19,
        {
            "updatePet": ["name", "photoUrls"],
            "getPetById": ["petId"],
            "updatePetWithForm": ["petId"],
            "deletePet": ["petId"],
            "uploadFile": ["petId"],
            "loginUser": [],
            "updateUser": ["username"],
        },
    ),
    "mcp-tools-list/server-memory.json": (
        "mcp",
        9,
        {"create_entities": ["entities"], "read_graph": [], "open_nodes": ["names"]},
    ),
    "mcp-tools-list/server-filesystem.json": (
        "mcp",
        14,
        {"read_text_file": ["path"], "move_file": ["source", "destination"], "list_allowed_directories": []},
    ),
    "mcp-tools-list/mcp-server-fetch.json": ("mcp", 1, {"fetch": ["url"]}),
    "openai-tools/airline_tools.json": (
        "openai",
        14,
        {
            "update_reservation_flights": ["reservation_id", "cabin", "flights", "payment_id"],
            "list_all_airports": [],
            "get_user_details": ["user_id"],
        },
    ),
    "bfcl/gorilla_file_system.json": ("bfcl", 18, {"cd": ["folder"], "mv": ["source", "destination"]}),
    "bfcl/math_api.json": ("bfcl", 17, {"mean": ["numbers"], "add": ["a", "b"]}),
    "bfcl/message_api.json": ("bfcl", 10, {"send_message": ["receiver_id", "message"], "list_users": []}),
    "bfcl/ticket_api.json": ("bfcl", 9, {"close_ticket": ["ticket_id"], "edit_ticket": ["ticket_id", "updates"]}),
}


@pytest.fixture
def corpus() -> Path:
    if not HAVE_CORPUS:
        pytest.skip(CORPUS_MISSING)
    return CORPUS


def test_the_corpus_list_covers_every_corpus_file(corpus: Path) -> None:
    files = {str(path.relative_to(corpus)) for path in corpus.rglob("*") if path.suffix in (".json", ".yaml")}
    assert files == set(CORPUS_FILES)


@pytest.mark.parametrize("name", sorted(CORPUS_FILES))
def test_corpus_file_loads(corpus: Path, name: str) -> None:
    format_, count, required = CORPUS_FILES[name]
    path = corpus / name
    environment = load(path)
    assert detect_format(parse_document(path)) == format_
    assert len(environment.tools) == count
    assert environment.name == path.stem
    assert environment.initial_state == {}
    for tool_name, arguments in required.items():
        assert tool(environment, tool_name).input_schema.get("required", []) == arguments, tool_name
    for spec in environment.tools:
        compile_schema(spec.input_schema)
        if spec.output_schema is not None:
            assert spec.output_schema["type"] == "object"
            compile_schema(spec.output_schema)


@pytest.mark.parametrize("name", sorted(CORPUS_FILES))
def test_corpus_file_is_claimed_by_exactly_one_detector(corpus: Path, name: str) -> None:
    document = parse_document(corpus / name)
    assert [format_ for format_ in SPEC_FORMATS if spec_format(format_).detect(document)] == [CORPUS_FILES[name][0]]


def test_corpus_openapi_details(corpus: Path) -> None:
    petstore = load(corpus / "openapi" / "oai_petstore.yaml")
    assert petstore.description == "Swagger Petstore"
    list_pets = tool(petstore, "listPets")
    assert list_pets.description == "List all pets"
    assert list_pets.annotations is not None
    assert list_pets.annotations.read_only_hint is True
    assert list_pets.output_schema is not None
    assert list_pets.output_schema["required"] == ["result"]  # an array of pets, wrapped
    assert list_pets.output_schema["properties"]["result"]["type"] == "array"
    assert tool(petstore, "createPets").output_schema is None  # 201 with no content

    expanded = load(corpus / "openapi" / "oai_petstore-expanded.yaml")
    add_pet = tool(expanded, "addPet").output_schema
    assert add_pet is not None
    assert add_pet["type"] == "object"
    assert len(add_pet["allOf"]) == 2
    delete_hints = ToolAnnotations(readOnlyHint=False, idempotentHint=True, destructiveHint=True)
    assert tool(expanded, "deletePet").annotations == delete_hints

    swagger = load(corpus / "openapi" / "swagger-petstore_openapi.yaml")
    update_user = tool(swagger, "updateUser").input_schema["properties"]
    assert "username" in update_user
    assert "body_username" in update_user
    assert "renamed" in update_user["body_username"]["description"]
    upload = tool(swagger, "uploadFile").input_schema["properties"]["body"]
    assert upload["type"] == "string"
    assert "application/octet-stream" in upload["description"]
    assert tool(swagger, "createUsersWithListInput").input_schema["properties"]["body"]["type"] == "array"
    assert "api_key" in tool(swagger, "deletePet").input_schema["properties"]  # a header parameter
    inventory = tool(swagger, "getInventory").output_schema
    assert inventory is not None
    assert inventory["additionalProperties"]["type"] == "integer"


def test_corpus_mcp_and_openai_details(corpus: Path) -> None:
    filesystem = load(corpus / "mcp-tools-list" / "server-filesystem.json")
    assert filesystem.description == "MCP server secure-filesystem-server 0.2.0"
    write_file = tool(filesystem, "write_file")
    assert write_file.title == "Write File"
    assert write_file.annotations is not None
    assert write_file.annotations.destructive_hint is True
    assert tool(filesystem, "read_text_file").annotations == ToolAnnotations(readOnlyHint=True)
    memory = load(corpus / "mcp-tools-list" / "server-memory.json")
    assert tool(memory, "create_entities").output_schema is not None

    airline = load(corpus / "openai-tools" / "airline_tools.json")
    assert tool(airline, "book_reservation").input_schema["properties"]["cabin"]["enum"] == [
        "basic_economy",
        "economy",
        "business",
    ]


def test_corpus_bfcl_types_are_json_schema(corpus: Path) -> None:
    for name in ("gorilla_file_system", "math_api", "message_api", "ticket_api"):
        for spec in load(corpus / "bfcl" / f"{name}.json").tools:
            for schema in (spec.input_schema, spec.output_schema):
                assert schema_types(schema) <= {"object", "string", "number", "integer", "boolean", "array"}
    ticket = load(corpus / "bfcl" / "ticket_api.json")
    assert tool(ticket, "edit_ticket").input_schema["properties"]["updates"]["type"] == "object"
    wc = tool(load(corpus / "bfcl" / "gorilla_file_system.json"), "wc").output_schema
    assert wc is not None
    # A property called `type` is data, not a BFCL type to convert.
    assert wc["properties"]["type"] == {
        "type": "string",
        "description": 'The type of unit we are counting. [Enum]: ["lines", "words", "characters"]',
    }


# OpenAPI edge cases --------------------------------------------------------------------------------------


def test_openapi_ref_cycle_becomes_a_def(tmp_path: Path) -> None:
    node = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        },
    }
    paths = {
        "/tree": {
            "get": {"operationId": "getTree", "responses": ok({"$ref": "#/components/schemas/Node"})},
            "post": {"operationId": "putTree", "requestBody": json_body({"$ref": "#/components/schemas/Node"})},
        }
    }
    environment = load(write(tmp_path, "tree.yaml", openapi(paths, {"Node": node})))
    output = tool(environment, "getTree").output_schema
    assert output is not None
    assert output["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert output["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    validator = compile_schema(output)
    assert validator.is_valid({"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]})
    assert not validator.is_valid({"name": "a", "children": [{"name": "b", "children": [{}]}]})  # via $defs

    put_tree = tool(environment, "putTree").input_schema
    assert put_tree["required"] == ["name"]
    assert put_tree["$defs"]["Node"]["required"] == ["name"]  # the body's own cycle lands at the input root
    assert compile_schema(put_tree).is_valid({"name": "a", "children": [{"name": "b"}]})


def test_openapi_mutual_ref_cycle(tmp_path: Path) -> None:
    schemas = {
        "Person": {"type": "object", "properties": {"employer": {"$ref": "#/components/schemas/Company"}}},
        "Company": {
            "type": "object",
            "properties": {"staff": {"type": "array", "items": {"$ref": "#/components/schemas/Person"}}},
        },
    }
    paths = {
        "/people/{id}": {"get": {"operationId": "getPerson", "responses": ok({"$ref": "#/components/schemas/Person"})}}
    }
    output = tool(load(write(tmp_path, "people.json", openapi(paths, schemas))), "getPerson").output_schema
    assert output is not None
    assert set(output["$defs"]) == {"Person"}
    assert output["properties"]["employer"]["properties"]["staff"]["items"] == {"$ref": "#/$defs/Person"}
    assert compile_schema(output).is_valid({"employer": {"staff": [{"employer": {"staff": []}}]}})


def test_openapi_all_of_body_is_spread(tmp_path: Path) -> None:
    schemas = {
        "Base": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "Pet": {
            "allOf": [
                {"$ref": "#/components/schemas/Base"},
                {
                    "type": "object",
                    "required": ["kind"],
                    "properties": {"kind": {"type": "string"}, "age": {"type": "integer"}},
                },
            ]
        },
    }
    paths = {
        "/pets": {
            "post": {
                "operationId": "addPet",
                "requestBody": json_body({"$ref": "#/components/schemas/Pet"}),
                "responses": ok({"$ref": "#/components/schemas/Pet"}),
            }
        }
    }
    add_pet = tool(load(write(tmp_path, "pets.yaml", openapi(paths, schemas))), "addPet")
    assert list(add_pet.input_schema["properties"]) == ["name", "kind", "age"]
    assert add_pet.input_schema["required"] == ["name", "kind"]
    assert add_pet.output_schema is not None
    assert add_pet.output_schema["type"] == "object"
    assert "allOf" in add_pet.output_schema


def test_openapi_names_without_operation_id(tmp_path: Path) -> None:
    paths = {
        "/pets/{petId}": {"get": {"responses": {}}, "delete": {"operationId": "remove pet!", "responses": {}}},
        "/pets": {"get": {"operationId": "get_pets_petId"}},
    }
    environment = load(write(tmp_path, "names.yaml", openapi(paths)))
    assert [spec.name for spec in environment.tools] == ["get_pets_petId", "remove_pet_", "get_pets_petId_2"]
    assert tool(environment, "get_pets_petId").description == "GET /pets/{petId}"
    assert tool(environment, "get_pets_petId").input_schema == {
        "type": "object",
        "properties": {"petId": {"type": "string"}},
        "required": ["petId"],
    }


def test_openapi_non_json_bodies(tmp_path: Path) -> None:
    upload = {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {"file": {"type": "string", "format": "binary"}, "caption": {"type": "string"}},
                }
            }
        },
    }
    note: dict[str, Any] = {"content": {"text/plain": {}}}
    paths = {
        "/photos": {"post": {"operationId": "upload", "requestBody": upload}},
        "/notes": {"post": {"operationId": "note", "requestBody": note}},
        "/xml": {
            "put": {
                "operationId": "xml",
                "requestBody": {
                    "content": {"application/xml": {"schema": {"type": "array", "items": {"type": "string"}}}}
                },
            }
        },
    }
    environment = load(write(tmp_path, "bodies.yaml", openapi(paths)))
    form = tool(environment, "upload").input_schema
    assert form["properties"]["file"] == {"type": "string", "format": "binary"}
    assert form["required"] == ["file"]
    text = tool(environment, "note").input_schema
    assert text["properties"]["body"]["type"] == "string"
    assert "text/plain" in text["properties"]["body"]["description"]
    assert "required" not in text  # the body is optional
    xml = tool(environment, "xml").input_schema["properties"]["body"]
    assert xml["type"] == "array"
    assert "application/xml" in xml["description"]


def test_openapi_parameter_and_body_name_clashes(tmp_path: Path) -> None:
    shared = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}, "description": "shared"}]
    paths = {
        "/things/{id}": {
            "parameters": shared,
            "put": {
                "operationId": "putThing",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": "id", "in": "query", "schema": {"type": "string"}},
                    {"name": "body", "in": "query", "schema": {"type": "string"}},
                    {"name": "Authorization", "in": "header", "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                    {"name": "X-Trace", "in": "header", "required": True, "schema": {"type": "string"}},
                ],
                "requestBody": json_body(
                    {
                        "type": "object",
                        "required": ["id", "label"],
                        "properties": {
                            "id": {"type": "integer"},
                            "label": {"type": "string"},
                            "body": {"type": "string"},
                        },
                    }
                ),
            },
            "patch": {
                "operationId": "patchThing",
                "requestBody": json_body({"type": "array", "items": {"type": "integer"}}),
            },
        }
    }
    environment = load(write(tmp_path, "things.yaml", openapi(paths)))
    put = tool(environment, "putThing").input_schema
    assert list(put["properties"]) == ["id", "query_id", "body", "X-Trace", "body_id", "label", "body_body"]
    assert put["properties"]["id"] == {"type": "string"}  # the operation's parameter wins over the path-level one
    assert put["required"] == ["id", "X-Trace", "body_id", "label"]
    patch = tool(environment, "patchThing").input_schema
    assert patch["properties"]["id"]["description"] == "shared"
    assert patch["properties"]["body"]["type"] == "array"
    assert patch["required"] == ["id", "body"]


def test_openapi_31_type_arrays_and_30_nullable(tmp_path: Path) -> None:
    schemas31 = {
        "Pet": {
            "type": "object",
            "properties": {"tag": {"type": ["string", "null"]}, "age": {"type": "integer", "exclusiveMinimum": 0}},
        }
    }
    paths = {
        "/pets": {
            "post": {
                "operationId": "addPet",
                "requestBody": json_body({"$ref": "#/components/schemas/Pet"}),
                "responses": ok({"type": ["array", "null"], "items": {"$ref": "#/components/schemas/Pet"}}),
            }
        }
    }
    add_pet = tool(load(write(tmp_path, "v31.yaml", openapi(paths, schemas31, "3.1.0"))), "addPet")
    assert add_pet.input_schema["properties"]["tag"]["type"] == ["string", "null"]
    assert add_pet.output_schema is not None
    assert add_pet.output_schema["properties"]["result"]["type"] == [
        "array",
        "null",
    ]
    assert compile_schema(add_pet.output_schema).is_valid({"result": None})

    schemas30 = {
        "Owner": {"type": "object", "properties": {"name": {"type": "string"}}},
        "Pet": {
            "type": "object",
            "properties": {
                "tag": {"type": "string", "nullable": True},
                "size": {"type": "string", "enum": ["s", "m"], "nullable": True},
                "owner": {"allOf": [{"$ref": "#/components/schemas/Owner"}], "nullable": True},
                "age": {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "example": 3},
                "id": {"type": "integer", "readOnly": True},
                "secret": {"type": "string", "writeOnly": True},
                "x-internal": {"type": "string"},
            },
            "required": ["id", "secret"],
            "x-vendor": True,
        },
    }
    paths = {
        "/pets": {
            "post": {
                "operationId": "addPet",
                "requestBody": json_body({"$ref": "#/components/schemas/Pet"}),
                "responses": ok({"$ref": "#/components/schemas/Pet"}),
            }
        }
    }
    add_pet = tool(load(write(tmp_path, "v30.yaml", openapi(paths, schemas30))), "addPet")
    properties = add_pet.input_schema["properties"]
    assert properties["tag"]["type"] == ["string", "null"]
    assert properties["size"]["enum"] == ["s", "m", None]
    assert properties["owner"]["anyOf"][1] == {"type": "null"}
    assert properties["age"] == {"type": "integer", "exclusiveMinimum": 0, "examples": [3]}
    assert "id" not in properties
    assert add_pet.input_schema["required"] == ["secret"]
    assert "x-internal" in properties  # a property name, not an extension
    assert add_pet.output_schema is not None
    assert "secret" not in add_pet.output_schema["properties"]
    assert add_pet.output_schema["required"] == ["id"]
    assert "x-vendor" not in add_pet.output_schema
    assert compile_schema(add_pet.input_schema).is_valid({"tag": None, "size": None, "owner": None, "secret": "s"})


def test_openapi_annotations_follow_the_method(tmp_path: Path) -> None:
    methods = ("get", "head", "put", "post", "patch", "delete")
    paths = {"/x": {method: {"operationId": method} for method in methods}}
    environment = load(write(tmp_path, "methods.yaml", openapi(paths)))
    hints = {
        spec.name: (
            spec.annotations.read_only_hint,
            spec.annotations.idempotent_hint,
            spec.annotations.destructive_hint,
        )
        for spec in environment.tools
        if spec.annotations is not None
    }
    assert hints == {
        "get": (True, True, None),
        "head": (True, True, None),
        "put": (False, True, None),
        "post": (False, False, None),
        "patch": (False, False, None),
        "delete": (False, True, True),
    }


@pytest.mark.parametrize(
    ("document", "place", "words"),
    [
        (
            openapi({"/pets": {"post": {"requestBody": json_body({"$ref": "#/components/schemas/Missing"})}}}, {}),
            "paths./pets.post.requestBody.content.application/json.schema",
            ["#/components/schemas/Missing", "points to nothing"],
        ),
        (
            openapi(
                {"/pets": {"get": {"responses": ok({"$ref": "#/components/schemas/Pet"})}}},
                {"Pet": {"properties": {"owner": {"$ref": "#/components/schemas/Gone"}}}},
            ),
            "components.schemas.Pet.properties.owner",
            ["#/components/schemas/Gone"],
        ),
        (
            openapi({"/pets": {"get": {"parameters": [{"name": "limit", "schema": {"type": "integer"}}]}}}),
            "paths./pets.get.parameters[0]",
            ["`in`"],
        ),
        (
            openapi({"/pets": {"get": {"parameters": [{"$ref": "common.yaml#/limit"}]}}}),
            "paths./pets.get.parameters[0]",
            ["outside this document"],
        ),
        (
            openapi({"/pets": {"get": {"parameters": [{"name": "q", "in": "query", "schema": {"type": "strin"}}]}}}),
            "paths./pets.get.parameters[0]",
            ["not a valid JSON Schema"],
        ),
        ({"swagger": "2.0", "paths": {}}, "swagger", ["Swagger 2.0"]),
        ({"openapi": "4.0.0", "paths": {}}, "openapi", ["unsupported OpenAPI version"]),
    ],
)
def test_openapi_errors_name_the_place(tmp_path: Path, document: dict[str, Any], place: str, words: list[str]) -> None:
    path = write(tmp_path, "broken.yaml", document)
    with pytest.raises(SpecError) as raised:
        read_spec_file(path)
    assert raised.value.path == str(path)
    assert raised.value.place == place
    for word in words:
        assert word in raised.value.reason


# BFCL, MCP, OpenAI, Anthropic ----------------------------------------------------------------------------


def test_bfcl_nested_dicts_and_python_types(tmp_path: Path) -> None:
    functions = [
        {
            "name": "plan",
            "description": "Plan a trip.",
            "parameters": {
                "type": "dict",
                "required": ["trip"],
                "properties": {
                    "trip": {
                        "type": "dict",
                        "properties": {
                            "legs": {
                                "type": "array",
                                "items": {"type": "dict", "properties": {"km": {"type": "float"}}},
                            },
                            "where": {"type": "tuple", "items": [{"type": "float"}, {"type": "float"}]},
                            "note": {"type": "any", "description": "anything"},
                            "type": {"type": "string"},
                        },
                    }
                },
            },
            "response": {"type": "array", "items": {"type": "float"}},
        },
        {"name": "ping", "description": "Ping.", "parameters": {"type": "dict", "properties": {}}},
    ]
    path = write(tmp_path, "trips.json", "\n".join(json.dumps(function) for function in functions) + "\n")
    environment = load(path)
    trip = tool(environment, "plan").input_schema["properties"]["trip"]
    assert trip["type"] == "object"
    assert trip["properties"]["legs"]["items"] == {"type": "object", "properties": {"km": {"type": "number"}}}
    assert trip["properties"]["where"] == {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}
    assert trip["properties"]["note"] == {"description": "anything"}
    assert trip["properties"]["type"] == {"type": "string"}
    output = tool(environment, "plan").output_schema
    assert output is not None
    assert output["properties"]["result"] == {"type": "array", "items": {"type": "number"}}
    assert tool(environment, "ping").output_schema is None
    one = write(tmp_path, "one.json", functions[1])  # one line: plain JSON, one function
    assert [spec.name for spec in load(one).tools] == ["ping"]


def test_mcp_single_tool_and_bare_list(tmp_path: Path) -> None:
    single = {
        "name": "get_weather",
        "title": "Weather",
        "description": "Current weather.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}},
        "annotations": {"readOnlyHint": True, "openWorldHint": True, "someFutureHint": 1},
        "_meta": {"x": 1},
    }
    environment = load(write(tmp_path, "weather tool (v2).json", single))
    assert environment.name == "weather_tool_v2_"
    spec = tool(environment, "get_weather")
    assert spec.title == "Weather"
    assert spec.input_schema["required"] == ["city"]
    assert spec.annotations is not None
    assert spec.annotations.read_only_hint
    assert spec.annotations.open_world_hint
    untyped = {"name": "noop", "inputSchema": {}}
    listed = load(write(tmp_path, "list.json", [single, untyped]))
    assert tool(listed, "noop").input_schema == {"type": "object"}


def test_openai_chat_and_responses_shapes(tmp_path: Path) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "a",
                "description": "A.",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
                "strict": True,
            },
        },
        {"type": "function", "name": "b", "description": "B.", "parameters": {"type": "object", "properties": {}}},
        {"type": "function", "function": {"name": "c"}},
        {"type": "web_search_preview"},
    ]
    environment = load(write(tmp_path, "openai.json", {"tools": tools}))
    assert [spec.name for spec in environment.tools] == ["a", "b", "c"]
    assert tool(environment, "c").input_schema == {"type": "object", "properties": {}}


def test_anthropic_tools_skip_server_tools(tmp_path: Path) -> None:
    tools = [
        {
            "name": "get_stock",
            "description": "Price.",
            "input_schema": {"type": "object", "properties": {"ticker": {"type": "string"}}},
        },
        {
            "type": "custom",
            "name": "calc",
            "input_schema": {"type": "object", "properties": {}},
            "cache_control": {"type": "ephemeral"},
        },
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    ]
    path = write(tmp_path, "claude.yaml", tools)
    assert detect_format(parse_document(path)) == "anthropic"
    assert [spec.name for spec in load(path).tools] == ["get_stock", "calc"]
    # A native file that forgot its name is not taken for Anthropic tools (which have no output_schema).
    nameless = {"tools": [{"name": "t", "input_schema": {"type": "object"}, "output_schema": {"type": "object"}}]}
    assert detect_format(nameless) is None


@pytest.mark.parametrize(
    ("document", "place", "words"),
    [
        (
            {"tools": [{"name": "t", "inputSchema": {"type": "array"}}], "server_info": {}},
            "tools[0].inputSchema.type",
            ['"type": "object"'],
        ),
        ([{"name": "bad name", "inputSchema": {"type": "object"}}], "[0].name", ["pattern"]),
        (
            [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "required": "x"}}}],
            "[0].function.parameters",
            ["not a valid JSON Schema"],
        ),
        (
            [{"name": "f", "parameters": {"type": "dict"}}, {"name": "f", "parameters": {"type": "dict"}}],
            "[1].name",
            ["defined twice", "[0]"],
        ),
        ({"description": "no tools here"}, "", ["unrecognised spec format", "OpenAPI"]),
    ],
)
def test_tool_list_errors_name_the_place(tmp_path: Path, document: Any, place: str, words: list[str]) -> None:
    path = write(tmp_path, "broken.json", document)
    with pytest.raises(SpecError) as raised:
        read_spec_file(path)
    assert raised.value.place == place
    for word in words:
        assert word in raised.value.reason


# Choosing the format -------------------------------------------------------------------------------------


def test_format_override(tmp_path: Path) -> None:
    # Neither `tools` nor `initial_state`: not detected as native (a native spec that lacks its tools, which
    # it says), but readable when named.
    path = write(tmp_path, "bare.yaml", {"name": "bare", "description": "Nothing yet."})
    with pytest.raises(SpecError, match="missing tools"):
        read_spec_file(path)
    assert load(path, "native").description == "Nothing yet."
    with pytest.raises(SpecError, match="expected a tool") as raised:
        read_document([1], "x.json", "mcp")
    assert raised.value.place == "[0]"
    with pytest.raises(SpecError) as raised:
        read_spec_file(path, "swagger")
    assert all(name in raised.value.reason for name in ("native", "mcp", "openai", "anthropic", "openapi", "bfcl"))
    assert set(FORMATS) == {"native", "mcp", "openai", "anthropic", "openapi", "bfcl"}


# tools_from in native files ------------------------------------------------------------------------------


PETSTORE = openapi(
    {
        "/pets": {"get": {"operationId": "listPets", "responses": ok({"type": "array", "items": {"type": "string"}})}},
        "/pets/{id}": {"delete": {"operationId": "deletePet"}},
    }
)


def test_tools_from_adds_foreign_tools_to_a_native_environment(tmp_path: Path) -> None:
    write(tmp_path, "petstore_api.yaml", PETSTORE)
    (tmp_path / "more").mkdir()
    write(tmp_path / "more", "extra.json", [{"name": "count", "parameters": {"type": "dict", "properties": {}}}])
    native = {
        "name": "petstore",
        "instructions": "Pets have unique names.",
        "initial_state": {"pets": []},
        "tools": [{"name": "reset", "description": "Reset."}],
        "tools_from": ["petstore_api.yaml", {"path": "more/extra.json", "format": "bfcl"}],
    }
    environment = load(write(tmp_path, "petstore.yaml", native))
    assert [spec.name for spec in environment.tools] == ["reset", "listPets", "deletePet", "count"]
    assert environment.initial_state == {"pets": []}
    assert environment.instructions == "Pets have unique names."
    assert "tools_from" not in environment.model_dump()

    catalog = load_catalog(tmp_path)
    assert catalog.errors == ()
    assert list(catalog.environments) == ["petstore"]  # the included files are not environments of their own
    assert set(catalog.tools) == {"reset", "listPets", "deletePet", "count"}


def test_tools_from_errors_name_both_files(tmp_path: Path) -> None:
    broken = openapi({"/pets": {"get": {"responses": ok({"$ref": "#/components/schemas/Pet"})}}}, {})
    write(tmp_path, "api.yaml", broken)
    native_path = write(tmp_path, "env.yaml", {"name": "env", "tools": [], "tools_from": ["api.yaml"]})
    with pytest.raises(SpecError) as raised:
        read_spec_file(native_path)
    assert raised.value.path == str(native_path)
    assert raised.value.place == "tools_from[0]"
    assert str(tmp_path / "api.yaml") in raised.value.reason
    assert "#/components/schemas/Pet" in raised.value.reason
    catalog = load_catalog(tmp_path)
    assert [error.path for error in catalog.errors] == [str(native_path)]  # reported once, by the includer


@pytest.mark.parametrize(
    ("tools_from", "extra", "words"),
    [
        (["missing.yaml"], None, ["no such file"]),
        ("api.yaml", {"name": "listPets"}, ["'listPets'", "already defined at tools[0]"]),
        (["inner.yaml"], None, ["cannot have a tools_from"]),
        ([{"file": "api.yaml"}], None, ["unknown field 'file'"]),
        (3, None, ["expected a list"]),
    ],
)
def test_tools_from_problems(tmp_path: Path, tools_from: Any, extra: dict[str, Any] | None, words: list[str]) -> None:
    write(tmp_path, "api.yaml", PETSTORE)
    write(tmp_path, "inner.yaml", {"name": "inner", "tools": [], "tools_from": ["api.yaml"]})
    native = {"name": "env", "tools": [extra] if extra else [], "tools_from": tools_from}
    with pytest.raises(SpecError) as raised:
        read_spec_file(write(tmp_path, "env.yaml", native))
    assert raised.value.place.startswith("tools_from")
    for word in words:
        assert word in raised.value.reason
