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


SHADE = ToolSpec(
    name="shade",
    description="Shades a reference. mode: one of light, dark.",
    input_schema={
        "type": "object",
        "properties": {"ref": {"type": "string"}, "mode": {"type": "string"}},
        "required": ["ref", "mode"],
    },
)


SAVE = ToolSpec(
    name="save",
    input_schema={"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]},
)


def shading(ref: str, mode: str) -> dict[str, Any]:
    """Refuses, by a fixed message answered as a success, a reference that is not 6 hex digits or a mode
    outside the documented two; answers the rest with what no rule of the twin computes."""
    if not re.fullmatch(r"#?[0-9a-fA-F]{6}", ref):
        return {"error": "Reference must be 6 hex digits"}
    if mode not in ("light", "dark"):
        return {"error": "Mode must be in ['light', 'dark']"}
    return {"ref": ref, "shade": f"#{(int(ref.removeprefix('#'), 16) * 7 + len(mode)) % 2**24:06x}"}


def test_a_fixed_refusal_of_the_call_s_own_arguments_is_answered_as_a_success() -> None:
    """A constant success is no answer the twin gives where the world could be what it shows, but a refusal of
    a value by its form or outside a documented set depends on the call alone."""
    # Sessions as an agent runs them: a mode refused for a reference the session used before, a reference
    # refused twice; nothing the world holds tells a refusal.
    sessions_given = [
        [("#aeb16a", "light"), ("#aeb16a", "dim"), ("#12345", "dark"), ("#12345", "light")],
        [("#c0905b", "dark"), ("#c0905b", "bright"), ("red", "light"), ("red", "dark")],
        [("04bcad", "light"), ("04bcad", "grey"), ("#ggg000", "dark"), ("#ggg000", "light")],
        [("#DA6A46", "dark"), ("#DA6A46", "pale"), ("", "light"), ("", "dark")],
        [("#1a0a74", "light"), ("#bee961", "dark"), ("#664466", "light"), ("#9367e6", "dark")],
        [("#e73341", "light"), ("#48A044", "dark"), ("#470036", "light"), ("#64740a", "dark")],
    ]

    def call(session: int, seq: int, ref: str, mode: str) -> RecordedCall:
        value = shading(ref, mode)
        result = {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}
        arguments = {"ref": ref, "mode": mode}
        return RecordedCall(f"s{session}", seq, "shade", arguments, result | {"isError": False}, False)

    def saved(session: int, seq: int, ref: str) -> RecordedCall:
        result = {"content": [{"type": "text", "text": f"Saved '{ref}'"}], "isError": False}
        return RecordedCall(f"s{session}", seq, "save", {"ref": ref}, result, False)

    # Each session saves its references first (a store keeps any text): the world holds every one of them.
    sessions = []
    for n, one in enumerate(sessions_given):
        refs = list(dict.fromkeys(ref for ref, _ in one))
        sessions.append([saved(n, seq, ref) for seq, ref in enumerate(refs, 1)])
        sessions[-1] += [call(n, seq, *given) for seq, given in enumerate(one, len(refs) + 1)]
    plan = infer_guards([SHADE, SAVE], sessions, ["shade", "save"]).plans["shade"]
    refusing = [rule for rule in plan["rules"] if "error" in rule["answer"]]
    # Each refusal under a check of the call alone, not under what the world happens to hold (nothing stored,
    # an effect chosen so that nothing is).
    assert len(refusing) == 2, plan
    assert all(atom[0] in ("unlike", "not_among") for rule in refusing for atom in rule["when"]), plan
    for ref, mode in [("#1234", "light"), ("blue", "dark"), ("#a1b2c3", "pale"), ("#0000ff", "medium")]:
        assert run_guard(plan, "shade", {}, {"ref": ref, "mode": mode}) == (shading(ref, mode), False), (ref, mode)
