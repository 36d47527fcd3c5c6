"""Hypothesis strategies and settings shared by the fuzz tests (tests/test_fuzz_*.py).

`SIM_MCP_FUZZ_EXAMPLES` sets the examples per property (default 40, sized for CI); `benchmarks/reliability.py`
runs the same properties with thousands and records the figures in RELIABILITY.md.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ_EXAMPLES = int(os.environ.get("SIM_MCP_FUZZ_EXAMPLES", "40"))
# Where `record_figures` appends its JSON lines (set by benchmarks/reliability.py); unset: nothing is written.
FIGURES_VARIABLE = "SIM_MCP_RELIABILITY_OUT"


def record_figures(name: str, figures: dict[str, Any]) -> None:
    """Append one run's figures to the file named by `SIM_MCP_RELIABILITY_OUT`, if set."""
    path = os.environ.get(FIGURES_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"name": name, **figures}) + "\n")


fuzz_settings = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
    derandomize=os.environ.get("CI") is not None,  # CI: the same cases every run; locally, new ones each time
)

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
# Any JSON value (NaN and infinities are not JSON).
json_values: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=16,
)

_schema_types = st.sampled_from(["object", "string", "integer", "number", "boolean", "array", "null", "dict", "any"])
# JSON Schema-shaped values, some wrong (unknown types, bad keywords' values), to reach the schema checks.
schemas: st.SearchStrategy[Any] = st.recursive(
    st.fixed_dictionaries({"type": _schema_types}) | json_values,
    lambda children: st.fixed_dictionaries(
        {"type": st.just("object")},
        optional={
            "properties": st.dictionaries(st.text(min_size=1, max_size=6), children, max_size=3),
            "required": st.lists(st.text(max_size=6), max_size=3) | json_values,
            "items": children,
            "enum": st.lists(_scalars, max_size=3),
            "$ref": st.sampled_from(["#/$defs/a", "#/nowhere", "http://example.com/x", "#"]),
            "$defs": st.dictionaries(st.sampled_from(["a", "b"]), children, max_size=2),
        },
    ),
    max_leaves=10,
)

_identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
_names = _identifiers | st.text(alphabet=st.characters(codec="ascii"), max_size=14) | json_values
_object_schemas = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.dictionaries(_identifiers, st.fixed_dictionaries({"type": _schema_types}), max_size=3),
        "required": st.lists(_identifiers, max_size=2),
    },
)
_tools = st.lists(
    st.fixed_dictionaries(
        {"name": _names},
        optional={
            "description": _names,
            "input_schema": _object_schemas | schemas,
            "output_schema": _object_schemas | schemas,
            "inputSchema": schemas,
        },
    ),
    max_size=3,
)
_native = st.fixed_dictionaries(
    {"name": _names, "tools": _tools | json_values},
    optional={"description": _names, "instructions": _names, "initial_state": json_values, "tools_from": json_values},
)
_openapi = st.fixed_dictionaries(
    {
        "openapi": st.sampled_from(["3.0.0", "3.1.0", "2.0", "x"]),
        "info": st.fixed_dictionaries({"title": _names}) | json_values,
        "paths": st.dictionaries(
            st.sampled_from(["/a", "/a/{id}", "/b/{x}/c", "", "no-slash"]),
            st.dictionaries(
                st.sampled_from(["get", "post", "delete", "parameters", "put", "trace"]),
                st.fixed_dictionaries(
                    {},
                    optional={
                        "operationId": _names,
                        "parameters": st.lists(
                            st.fixed_dictionaries({"name": _names, "in": st.sampled_from(["path", "query", "x"])})
                            | json_values,
                            max_size=2,
                        ),
                        "requestBody": json_values,
                        "responses": json_values,
                    },
                )
                | json_values,
                max_size=3,
            ),
            max_size=3,
        )
        | json_values,
    },
    optional={"components": st.fixed_dictionaries({"schemas": st.dictionaries(st.text(max_size=4), schemas)})},
)
_mcp = st.fixed_dictionaries({"tools": _tools | json_values}, optional={"server_info": json_values})
_openai = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("function"),
            "function": st.fixed_dictionaries({"name": _names, "parameters": _object_schemas | schemas}),
        }
    )
    | json_values,
    min_size=1,
    max_size=3,
)
_anthropic = st.lists(
    st.fixed_dictionaries({"name": _names, "input_schema": _object_schemas | schemas}), min_size=1, max_size=3
)
_bfcl = st.lists(
    st.fixed_dictionaries({"name": _names, "description": _names, "parameters": _object_schemas | schemas}),
    min_size=1,
    max_size=3,
)

# Documents shaped like each spec format, and any JSON value at all.
spec_documents: st.SearchStrategy[Any] = st.one_of(_native, _openapi, _mcp, _openai, _anthropic, _bfcl, json_values)

# RFC 6902 operations, many of which do not apply (paths that don't exist, wrong types, bad ops).
_TICKET = "/tickets/T-1001"
_TICKET_PARTS = ["/status", "/tags/0", "/tags/-", "/~1"]
_pointers = st.sampled_from(
    [
        "",
        "/",
        "/tickets",
        "/tickets/-",
        "/new",
        "/x/y/z",
        "/0",
        "~",
        _TICKET,
        *(_TICKET + part for part in _TICKET_PARTS),
    ]
)
patch_operations: st.SearchStrategy[list[dict[str, Any]]] = st.lists(
    st.fixed_dictionaries(
        {"op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test"]), "path": _pointers},
        optional={"value": json_values, "from": _pointers},
    ),
    max_size=4,
)
