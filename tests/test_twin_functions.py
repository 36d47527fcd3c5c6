"""Functions of a string and of a number (`functions.py`): twins of computing tools learned from recordings
by the real learner and answered by the twin's Starlark, on calls never recorded: digests and base64 chosen
by an enumerated argument, a decode that fails, lengths, a number in another base, and a unit converted by a
line fitted per unit pair. Each server here is written with Python's own libraries, not the twin's helpers."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules.helpers import base64_decode, url_decode, url_encode
from sim_mcp.specs.model import ToolSpec


def tool(name: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    return ToolSpec(name=name, input_schema={"type": "object", "properties": properties, "required": required})


def recorded(server: Callable[[dict[str, Any]], tuple[str, bool]], name: str, calls: list[dict[str, Any]]) -> Any:
    sessions = []
    for number, arguments in enumerate(calls):
        text, is_error = server(arguments)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        sessions.append([RecordedCall(f"s{number}", 1, name, arguments, result, is_error)])
    return sessions


HASH = tool(
    "hash",
    {"input": {"type": "string"}, "algorithm": {"type": "string", "enum": ["md5", "sha1", "sha256", "sha512"]}},
    ["input", "algorithm"],
)


def hash_server(arguments: dict[str, Any]) -> tuple[str, bool]:
    found: dict[str, str] = {"hash": hashlib.new(arguments["algorithm"], arguments["input"].encode()).hexdigest()}
    if arguments["algorithm"] in ("md5", "sha1"):
        found["warning"] = f"{arguments['algorithm'].upper()} is broken"
    return json.dumps(found), False


def test_a_digest_chosen_by_an_enumerated_argument_is_computed_for_any_text() -> None:
    texts = ["hello world", "naïve café", "a b&c=d"]
    calls = [{"input": t, "algorithm": a} for t in texts for a in ("md5", "sha1", "sha256", "sha512")]
    inference = infer_guards([HASH], recorded(hash_server, "hash", calls), ["hash"])
    assert inference.answered["hash"] == len(calls)
    plan = inference.plans["hash"]
    for arguments in ({"input": "never recorded", "algorithm": "sha256"}, {"input": "Grüße", "algorithm": "sha1"}):
        assert run_guard(plan, "hash", {}, arguments) == (json.loads(hash_server(arguments)[0]), False)


BASE64 = tool(
    "base64",
    {"input": {"type": "string"}, "action": {"type": "string", "enum": ["encode", "decode"]}},
    ["input", "action"],
)


def base64_server(arguments: dict[str, Any]) -> tuple[str, bool]:
    """A Python server: b64encode, and b64decode(validate=True).decode(), whose failure is an error."""
    text = arguments["input"]
    if arguments["action"] == "encode":
        return base64.b64encode(text.encode()).decode(), False
    try:
        return base64.b64decode(text, validate=True).decode(), False
    except (binascii.Error, UnicodeDecodeError):
        return f"Error: not base64: {text}", True


def test_base64_both_ways_and_a_decode_that_fails_as_an_error() -> None:
    texts = ["use postgres for storage", "Grüße aus Köln", "naïve café"]
    calls = [{"input": t, "action": "encode"} for t in texts]
    calls += [{"input": base64.b64encode(t.encode()).decode(), "action": "decode"} for t in texts]
    calls += [{"input": "%%not base64%%", "action": "decode"}, {"input": "abc", "action": "decode"}]
    inference = infer_guards([BASE64], recorded(base64_server, "base64", calls), ["base64"])
    assert inference.answered["base64"] == len(calls)
    plan = inference.plans["base64"]
    for arguments in (
        {"input": "ship on friday", "action": "encode"},
        {"input": "c2hpcCBvbiBmcmlkYXk=", "action": "decode"},
        {"input": "***", "action": "decode"},
    ):
        assert run_guard(plan, "base64", {}, arguments) == base64_server(arguments)


def test_the_text_helpers_read_as_javascript_and_python_do() -> None:
    # Node's Buffer.from(text, "base64") skips what is not base64 and reads bad UTF-8 as U+FFFD.
    assert base64_decode("%%not base64%%", "loose") == "\ufffd\ufffd[j\u01fa"
    assert base64_decode("%%not base64%%") is None
    assert base64_decode("R3LDvMOfZQ") == "Grüße"  # unpadded
    assert url_encode("a b&c=d!'()*") == "a%20b%26c%3Dd!'()*"  # encodeURIComponent
    assert url_encode("a b&c", "form") == "a+b%26c"
    assert url_decode("%E0%A4%A") is None  # decodeURIComponent throws
    assert url_decode("%E0%A4%A", "python") == "\ufffd%A"  # unquote reads bad UTF-8 as U+FFFD


COUNT = tool("count", {"text": {"type": "string"}}, ["text"])


def count_server(arguments: dict[str, Any]) -> tuple[str, bool]:
    text = arguments["text"]
    found = {"characters": len(text), "words": len(text.split()), "lines": text.count("\n") + 1}
    return json.dumps(found | {"bytes": len(text.encode())}, indent=2), False


def test_lengths_in_characters_bytes_words_and_lines() -> None:
    texts = ["Grüße aus Köln", "naïve café\nuse postgres for storage", "hello world\nwrite the migration\nfirst"]
    inference = infer_guards([COUNT], recorded(count_server, "count", [{"text": t} for t in texts]), ["count"])
    assert inference.answered["count"] == len(texts)
    arguments = {"text": "日本語 text\nwith\nthree newlines\n"}
    assert run_guard(inference.plans["count"], "count", {}, arguments) == (
        json.loads(count_server(arguments)[0]),
        False,
    )


BASE = tool(
    "base",
    {
        "value": {"anyOf": [{"type": "string"}, {"type": "number"}]},
        "from": {"type": "integer"},
        "to": {"type": "integer"},
    },
    ["value", "from", "to"],
)


def base_server(arguments: dict[str, Any]) -> tuple[str, bool]:
    value, base, to = str(arguments["value"]), arguments["from"], arguments["to"]
    try:
        number = int(value, base)
    except ValueError:
        return f'Error: Cannot parse "{value}" as base {base}', True
    digits = ""
    while True:
        number, digit = divmod(number, to)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not number:
            break
    return json.dumps({"input": value, "result": digits, "decimal": str(int(value, base))}), False


def test_a_number_written_in_the_base_an_argument_names() -> None:
    calls: list[dict[str, Any]] = [
        {"value": 1000000, "from": 10, "to": 2}, {"value": "ff", "from": 16, "to": 8},
        {"value": 1000000, "from": 10, "to": 36}, {"value": "777", "from": 8, "to": 16},
        {"value": "12z", "from": 10, "to": 2}, {"value": "g", "from": 16, "to": 10},
    ]  # fmt: skip
    inference = infer_guards([BASE], recorded(base_server, "base", calls), ["base"])
    assert inference.answered["base"] == len(calls)
    plan = inference.plans["base"]
    for arguments in (
        {"value": "zz", "from": 36, "to": 3},
        {"value": 255, "from": 10, "to": 16},
        {"value": "9", "from": 8, "to": 2},
    ):
        expected, is_error = base_server(arguments)
        assert run_guard(plan, "base", {}, arguments) == (
            (expected, True) if is_error else (json.loads(expected), False)
        )


CONVERT = tool(
    "convert",
    {"value": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}, "category": {"type": "string"}},
    ["value", "from", "to"],
)
LINES = {("C", "F"): (1.8, 32.0), ("l", "gal"): (0.264172052, 0.0), ("kg", "lb"): (2.20462262, 0.0)}


CATEGORIES = {"C": "temperature", "l": "volume", "kg": "weight"}


def convert_server(arguments: dict[str, Any]) -> tuple[str, bool]:
    a, b = LINES[(arguments["from"], arguments["to"])]
    result = round(a * arguments["value"] + b, 6)
    written = int(result) if result.is_integer() else result
    return json.dumps(
        {"value": arguments["value"], "result": written, "category": CATEGORIES[arguments["from"]]}
    ), False


def test_a_unit_converted_by_a_line_fitted_per_unit_pair() -> None:
    # The category is given in some calls, and told by the unit pair in the others.
    calls = [{"value": v, "from": f, "to": t} for (f, t) in LINES for v in (1.5, 3, 100)]
    calls[0]["category"], calls[4]["category"] = "temperature", "volume"
    inference = infer_guards([CONVERT], recorded(convert_server, "convert", calls), ["convert"])
    assert inference.answered["convert"] == len(calls)
    plan = inference.plans["convert"]
    for arguments in (
        {"value": 37, "from": "C", "to": "F"},
        {"value": 2.25, "from": "l", "to": "gal"},
        {"value": 70, "from": "kg", "to": "lb"},
    ):
        assert run_guard(plan, "convert", {}, arguments) == (json.loads(convert_server(arguments)[0]), False)
    # A pair never recorded has no line: the call is handed on, not answered by another pair's.
    assert run_guard(plan, "convert", {}, {"value": 1, "from": "ft", "to": "m"}) is None


DISTANCE = tool("diff", {"text1": {"type": "string"}, "text2": {"type": "string"}}, ["text1", "text2"])


def distance_server(arguments: dict[str, Any]) -> tuple[str, bool]:
    first, second = arguments["text1"], arguments["text2"]
    row = list(range(len(second) + 1))
    for i, a in enumerate(first):
        row = _next_row(row, i, a, second)
    return json.dumps({"distance": row[-1], "text1Length": len(first), "text2Length": len(second)}), False


def _next_row(row: list[int], i: int, a: str, second: str) -> list[int]:
    out = [i + 1]
    for j, b in enumerate(second):
        out.append(min(row[j + 1] + 1, out[j] + 1, row[j] + (a != b)))
    return out


def test_the_edit_distance_of_two_texts() -> None:
    pairs = [("kitten", "sitting"), ("ship on friday", "write the migration first"), ("naïve café", "naive cafe")]
    calls = [{"text1": a, "text2": b} for a, b in pairs]
    inference = infer_guards([DISTANCE], recorded(distance_server, "diff", calls), ["diff"])
    assert inference.answered["diff"] == len(calls)
    arguments = {"text1": "cache for ten minutes", "text2": "keep the old endpoint"}
    assert run_guard(inference.plans["diff"], "diff", {}, arguments) == (
        json.loads(distance_server(arguments)[0]),
        False,
    )
