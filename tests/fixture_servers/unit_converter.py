"""A unit converter MCP server (`python -m tests.fixture_servers.unit_converter`): a tool per quantity, each
unit a number relative to a base unit (length in meters, time in seconds) and temperature through Celsius
with offsets, answered as JSON with the value unrounded, as a server computes it on doubles."""

from __future__ import annotations

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
    "Convert several values at once: each request a value, from_unit, to_unit, conversion_type and request_id.",
    {"requests": {"type": "array", "items": {"type": "object"}}},
    ["requests"],
)
TOOLS = [
    _quantity("length", list(TO_METERS)),
    _quantity("time", list(TO_SECONDS)),
    _quantity("temperature", TEMPERATURES),
    BATCH,
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


def convert_batch(requests: list[dict[str, Any]]) -> tuple[str, bool]:
    """Each request converted as its quantity's tool converts it, beside its id."""
    results = []
    for request in requests:
        name = f"convert_{request['conversion_type']}"
        text, error = convert(name, request)
        answer = {"error": text} if error else json.loads(text)
        results.append({"request_id": request["request_id"], "success": not error, **answer})
    return as_json({"results": results, "total": len(results)}), False


def handle(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    return convert_batch(args["requests"]) if name == "convert_batch" else convert(name, args)


def main() -> None:
    serve("unit-converter", TOOLS, handle)


if __name__ == "__main__":
    main()
