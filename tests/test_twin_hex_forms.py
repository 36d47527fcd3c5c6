"""Hexadecimal forms (`forms.py`): a server that checks a value written in hex digits (a colour, a hash, an object
id) refuses one of another form or length, which the forms of letters and digits cannot tell (`#aeb16a` and
`#c0905b` are of different forms there, `#12345` and `#123456` of the same). The twin learns the refusal from the
recordings and answers it for values never seen."""

from __future__ import annotations

import json
import re
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

LOOKUP = ToolSpec(
    name="lookup",
    input_schema={"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]},
)
VALID = [
    "#aeb16a", "#c0905b", "#64740a", "04bcad", "#DA6A46", "#1a0a74", "#bee961", "#664466", "#9367e6", "#e73341",
    "#48A044", "#470036", "#752", "#e90",
]  # fmt: skip
REFUSED = ["#12345", "red", "", "#ggg000", "rgb(1, 2, 3)"]


def server(ref: str) -> dict[str, Any]:
    """Refuses a value that is not 3 or 6 hex digits (after an optional `#`) as a success-shaped error."""
    digits = ref.removeprefix("#")
    if not re.fullmatch(r"[0-9a-fA-F]{3}|[0-9a-fA-F]{6}", digits):
        return {"error": f"Invalid reference: '{ref}'"}
    return {"ref": digits.lower(), "known": len(digits) == 6}


def recorded(number: int, ref: str) -> RecordedCall:
    value = server(ref)
    result = {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value, "isError": False}
    return RecordedCall(f"s{number}", 1, "lookup", {"ref": ref}, result, False)


def test_a_hex_value_of_another_form_or_length_is_refused_as_recorded() -> None:
    sessions = [[recorded(n, ref)] for n, ref in enumerate(VALID + REFUSED)]
    plan = infer_guards([LOOKUP], sessions, ["lookup"]).plans["lookup"]
    for ref in ["#1234", "#abcdefa", "blue", "#zz0000", "hsl(1, 2%, 3%)", "0x12ab"]:
        assert run_guard(plan, "lookup", {}, {"ref": ref}) == (server(ref), False), ref
    # A value of the recorded forms is never refused, whatever its letters and digits.
    for ref in ["#a1b2c3", "#0000ff", "FACADE", "#9f0"]:
        answer = run_guard(plan, "lookup", {}, {"ref": ref})
        assert answer is None or "error" not in answer[0], ref
