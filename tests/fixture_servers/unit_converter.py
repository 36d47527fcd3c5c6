"""A unit converter MCP server (`python -m tests.fixture_servers.unit_converter`): a tool per quantity, each
unit a number relative to a base unit (length in meters, time in seconds) and temperature through Celsius
with offsets, answered as JSON with the value unrounded, as a server computes it on doubles; and the units it
knows, of every kind or of one."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

TO_METERS = {
    **{"meter": 1.0, "kilometer": 1000.0, "foot": 0.3048, "inch": 0.0254, "mile": 1609.344, "yard": 0.9144},
    **{"furlong": 201.168, "chain": 20.1168},
}
TO_SECONDS = {"seconds": 1.0, "minutes": 60.0, "hours": 3600.0, "days": 86400.0, "weeks": 604800.0}
TEMPERATURES = ["celsius", "fahrenheit", "kelvin"]


def _quantity(name: str, units: list[str]) -> Any:
    unit = {"type": "string", "enum": units}
    properties = {"value": {"type": "number"}, "from_unit": unit, "to_unit": unit}
    return tool(f"convert_{name}", f"Convert {name} between units.", properties, ["value", "from_unit", "to_unit"])


BATCH = tool(
    "convert_batch",
    "Convert several values at once: each request a value, from_unit, to_unit, conversion_type and request_id"
    " (one made up where it gives none).",
    {"requests": {"type": "array", "items": {"type": "object"}}},
    ["requests"],
)
UNITS = tool(
    "list_supported_units",
    "The units of every kind, or of the kind asked for.",
    {"unit_type": {"type": "string"}},
    [],
)
TOOLS = [
    _quantity("length", list(TO_METERS)),
    _quantity("time", list(TO_SECONDS)),
    _quantity("temperature", TEMPERATURES),
    BATCH,
    UNITS,
]


def _to_celsius(value: float, unit: str) -> float:
    if unit == "fahrenheit":
        return (value - 32) * 5 / 9
    return value - 273.15 if unit == "kelvin" else value


def _from_celsius(value: float, unit: str) -> float:
    if unit == "fahrenheit":
        return value * 9 / 5 + 32
    return value + 273.15 if unit == "kelvin" else value


def convert(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    """The text a call is answered with, and whether it is an error."""
    value, first, second = float(args["value"]), str(args["from_unit"]), str(args["to_unit"])
    quantity = name.removeprefix("convert_")
    if quantity == "temperature":
        if first not in TEMPERATURES or second not in TEMPERATURES:
            return f"Unknown temperature unit: {first if first not in TEMPERATURES else second}", True
        converted = _from_celsius(_to_celsius(value, first), second)
    else:
        table = TO_METERS if quantity == "length" else TO_SECONDS
        if first not in table or second not in table:
            return f"Unknown {quantity} unit: {first if first not in table else second}", True
        converted = value * table[first] / table[second]
    answer = {"original_value": value, "original_unit": first, "converted_value": converted}
    return as_json(answer | {"converted_unit": second, "conversion_type": quantity}), False


def _made_up_id(request: dict[str, Any]) -> str:
    """The id a request that gives none gets: its kind and a signed 64-bit hash (`speed_-6875897924734963130`),
    from a digest so that a session answers the same each time."""
    digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).digest()
    return f"{request['conversion_type']}_{int.from_bytes(digest[:8], 'big', signed=True)}"


def convert_batch(requests: list[dict[str, Any]]) -> tuple[str, bool]:
    """Each request converted as its quantity's tool converts it, beside its id."""
    results = []
    for request in requests:
        name = f"convert_{request['conversion_type']}"
        text, error = convert(name, request)
        answer = {"error": text} if error else json.loads(text)
        request_id = request.get("request_id") or _made_up_id(request)
        results.append({"request_id": request_id, "success": not error, **answer})
    return as_json({"results": results, "total": len(results)}), False


def supported(args: dict[str, Any]) -> tuple[str, bool]:
    """Every kind's units, or those of the kind `unit_type` names."""
    kinds = {"length": list(TO_METERS), "time": list(TO_SECONDS), "temperature": TEMPERATURES}
    kind = args.get("unit_type")
    if kind is None:
        return as_json(kinds), False
    if kind not in kinds:
        return f"Unknown unit type: {kind}", True
    return as_json({kind: kinds[kind]}), False


def handle(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    if name == "list_supported_units":
        return supported(args)
    return convert_batch(args["requests"]) if name == "convert_batch" else convert(name, args)


def main() -> None:
    serve("unit-converter", TOOLS, handle)


if __name__ == "__main__":
    main()
