"""Twin inference over numbers written in positional forms (`positional.py`): an address of four decimal
bytes, the same number as binary groups, a colour of three hex bytes behind `#`, read from the call and
computed bit by bit (a prefix length's mask, `and`, `or`, the complement, one more or less, a block's size),
so that arguments never recorded are answered as the server answers them."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees

TOOLS = [
    ToolSpec(
        name="block_of",
        description="The block of addresses a host lies in.",
        input_schema={
            "type": "object",
            "properties": {
                "host": {"type": "string"},
                "width": {"type": "integer"},
                "with_bits": {"type": "boolean"},
            },
            "required": ["host", "width"],
        },
    ),
    ToolSpec(
        name="nth_of",
        description="The address at a place in a block.",
        input_schema={
            "type": "object",
            "properties": {"block": {"type": "string"}, "place": {"type": "integer"}},
            "required": ["block", "place"],
        },
    ),
    ToolSpec(
        name="invert",
        description="A shade's inverse.",
        input_schema={"type": "object", "properties": {"shade": {"type": "string"}}, "required": ["shade"]},
    ),
]
NAMES = [tool.name for tool in TOOLS]


def dotted(value: int) -> str:
    return ".".join(str((value >> shift) & 255) for shift in (24, 16, 8, 0))


def answer(tool: str, arguments: dict[str, Any]) -> tuple[Any, bool]:
    """The fixture server: a block's first and last address, its size and its mask in binary groups (unless
    `with_bits` is false); a shade's complement, written in lower case behind `#` however it was given."""
    if tool == "block_of":
        parts = [int(p) for p in arguments["host"].split(".")]
        host = (parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]
        mask = (0xFFFFFFFF << (32 - arguments["width"])) & 0xFFFFFFFF
        binary = ".".join(format((mask >> shift) & 255, "08b") for shift in (24, 16, 8, 0))
        value = {"first": dotted(host & mask), "last": dotted(host | (~mask & 0xFFFFFFFF))}
        value["size"] = (~mask & 0xFFFFFFFF) + 1
        return value | ({"mask_bits": binary} if arguments.get("with_bits", True) else {}), False
    if tool == "nth_of":
        address, width = arguments["block"].split("/")
        parts = [int(p) for p in address.split(".")]
        usable = (1 << (32 - int(width))) - 2
        at = ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) + arguments["place"]
        return {"address": dotted(at), "usable": usable, "is_last": arguments["place"] == usable}, False
    shade = int(arguments["shade"].lstrip("#"), 16)
    return {"inverse": "#" + format(shade ^ 0xFFFFFF, "06x")}, False


def recorded(session: int, seq: int, tool: str, arguments: dict[str, Any]) -> RecordedCall:
    value, error = answer(tool, arguments)
    result = {"content": [{"type": "text", "text": json.dumps(value)}], "isError": error}
    return RecordedCall(f"s{session}", seq, tool, arguments, result, error)


def calls(rng: random.Random, count: int) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for _ in range(count):
        host = ".".join(str(rng.randrange(1, 255)) for _ in range(4))
        flag = rng.choice([{}, {"with_bits": True}, {"with_bits": False}])
        out.append(("block_of", {"host": host, "width": rng.randrange(8, 31)} | flag))
        width = rng.randrange(24, 30)
        block = ".".join(str(rng.randrange(1, 255)) for _ in range(3)) + f".0/{width}"
        usable = (1 << (32 - width)) - 2
        out.append(("nth_of", {"block": block, "place": rng.choice([1, 2, rng.randrange(1, usable), usable])}))
        shade = format(rng.randrange(1 << 24), "06x")
        out.append(("invert", {"shade": rng.choice(["#", ""]) + rng.choice([shade, shade.upper()])}))
    return out


def plans() -> dict[str, Any]:
    rng = random.Random(7)
    sessions = [
        [recorded(number, seq, tool, arguments) for seq, (tool, arguments) in enumerate(calls(rng, 5), start=1)]
        for number in range(4)
    ]
    return infer_guards(TOOLS, sessions, NAMES).plans


def test_addresses_and_colours_never_recorded_are_computed_bit_by_bit() -> None:
    learned = plans()
    state: dict[str, Any] = {}
    for tool, arguments in calls(random.Random(99), 6):
        assert_guard_agrees(learned, tool, state, arguments, answer(tool, arguments)[0])


def test_a_flag_the_call_sets_chooses_what_the_answer_shows() -> None:
    learned = plans()
    for flag in ({"with_bits": False}, {"with_bits": True}, {}):
        arguments = {"host": "203.0.113.77", "width": 27} | flag
        assert_guard_agrees(learned, "block_of", {}, arguments, answer("block_of", arguments)[0])


def test_an_answer_that_differs_where_a_place_reaches_the_blocks_end() -> None:
    learned = plans()
    for arguments in ({"block": "198.51.100.0/28", "place": 14}, {"block": "198.51.100.0/28", "place": 5}):
        assert_guard_agrees(learned, "nth_of", {}, arguments, answer("nth_of", arguments)[0])


def test_a_text_in_no_form_the_tool_reads_is_handed_on() -> None:
    learned = plans()
    assert run_guard(learned["block_of"], "block_of", {}, {"host": "10.0.300.1", "width": 24}) is None
    assert run_guard(learned["invert"], "invert", {}, {"shade": "#12345g"}) is None
