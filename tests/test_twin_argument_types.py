"""One reading of the JSON types an argument's schema allows (`argument_types`): a server declares an optional
argument as a type list, as `anyOf` or `oneOf` options with null, or as one type, and the learner, which reads
keys, numbers, strings and lists through that one reading, learns the same rules from the same sessions
whichever way the tools were declared."""

from __future__ import annotations

from typing import Any

import pytest

from sim_mcp.authoring.twins.argument_types import declaring, types_of
from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.specs.model import ToolSpec
from tests.test_twin_ids import NAMES, TOOLS, recorded

_LIST = {"type": "array", "items": {"type": "string"}}


@pytest.mark.parametrize(
    ("schema", "types"),
    [
        ({"type": "integer"}, {"integer"}),
        ({"type": ["string", "null"]}, {"string", "null"}),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, {"string", "null"}),
        ({"oneOf": [{"type": "number"}, {"type": "null"}]}, {"number", "null"}),
        ({"anyOf": [{"anyOf": [{"type": "integer"}]}, {"type": ["null", 3]}]}, {"integer", "null"}),
        ({"description": "anything"}, set()),
        (True, set()),
    ],
)
def test_the_types_a_schema_allows_are_read_in_every_form(schema: Any, types: set[str]) -> None:
    assert types_of(schema) == types


def test_the_part_declaring_a_list_is_where_its_items_are() -> None:
    assert declaring({"anyOf": [_LIST, {"type": "null"}]}, "array") == _LIST
    assert declaring({"type": ["array", "null"], "items": {"type": "string"}}, "array") == {
        "type": ["array", "null"],
        "items": {"type": "string"},
    }
    assert declaring({"anyOf": [{"type": "string"}, {"type": "null"}]}, "array") is None


def _declared(optional: Any) -> list[ToolSpec]:
    """The task tools with every optional argument (`desc`, `tags`, `priority`, the update's `status`) declared
    as `optional(schema)` says, and the integer id as optional too."""

    def schema(property_schema: dict[str, Any]) -> Any:
        options = property_schema.get("anyOf")
        return optional(options[0]) if isinstance(options, list) else optional(property_schema)

    tools = []
    for tool in TOOLS:
        properties = tool.input_schema["properties"]
        declared = {name: schema(inner) for name, inner in properties.items()}
        tools.append(tool.model_copy(update={"input_schema": {**tool.input_schema, "properties": declared}}))
    return tools


def _listed(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema["type"]
    return {**schema, "type": [kind, "null"]}


@pytest.fixture(scope="module")
def plain() -> dict[str, Any]:
    """The rules learned with every optional argument declared by its one type."""
    return infer_guards(_declared(lambda schema: schema), recorded(0, 10, NAMES), [tool.name for tool in TOOLS]).plans


@pytest.mark.parametrize(
    "optional",
    [
        _listed,
        lambda schema: {"anyOf": [schema, {"type": "null"}]},
        lambda schema: {"oneOf": [schema, {"type": "null"}]},
    ],
    ids=["type-list", "anyOf", "oneOf"],
)
def test_every_way_of_declaring_an_optional_argument_learns_the_same_rules(
    optional: Any, plain: dict[str, Any]
) -> None:
    names = [tool.name for tool in TOOLS]
    assert set(plain) == set(names)
    assert infer_guards(_declared(optional), recorded(0, 10, NAMES), names).plans == plain
