"""Probe calls for checking a rules program: valid arguments drawn from a tool's input schema.

Each draw comes in variants: as drawn, with its required arguments only, and for each argument that
names a record by id (`account_id`) once with an id that exists in the state and once with one that
doesn't. Only variants that fit the input schema are kept (the simulator would refuse the others before
any program ran).
"""

from __future__ import annotations

import random
from typing import Any

from sim_mcp.engine.guards import ids_named
from sim_mcp.engine.schema_data import SchemaDataGenerator
from sim_mcp.specs.model import ToolSpec
from sim_mcp.specs.schema import compile_schema

__all__ = ["missing_id", "probe_arguments"]


def probe_arguments(tool: ToolSpec, state: Any, draws: int = 4) -> list[dict[str, Any]]:
    """Distinct valid argument sets for `tool` in `state`, the same ones every time."""
    validator = compile_schema(tool.input_schema)
    required = set(tool.input_schema.get("required", []))
    probes: list[dict[str, Any]] = []
    for draw in range(draws):
        generator = SchemaDataGenerator(tool.input_schema, random.Random(f"probe\x00{tool.name}\x00{draw}"))
        drawn = generator.generate(tool.input_schema)
        if not isinstance(drawn, dict):
            continue
        variants = [drawn, {key: value for key, value in drawn.items() if key in required}]
        for key, value, collection in ids_named(tool, state, drawn):
            ids = (
                list(collection.records)
                if isinstance(collection.records, dict)
                else [record.get("id") for record in collection.records if isinstance(record, dict)]
            )
            existing = [found for found in ids if isinstance(found, str | int) and not isinstance(found, bool)]
            if existing:
                variants.append({**drawn, key: existing[draw % len(existing)]})
            variants.append({**drawn, key: missing_id(existing[0] if existing else value)})
        for variant in variants:
            if variant not in probes and validator.is_valid(variant):
                probes.append(variant)
    return probes


def missing_id(existing: Any) -> Any:
    """An id shaped like `existing` that is very likely in no collection: "ACC-1001" -> "ACC-1001999"."""
    if isinstance(existing, int):
        return existing * 1000 + 999
    text = str(existing)
    return text + "999" if text[-1:].isdigit() else text + "-missing"
