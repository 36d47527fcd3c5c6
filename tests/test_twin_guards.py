"""Guards of a twin (`sim-mcp compile --from`): error and success templates of a path-keyed server inferred
from its recordings, answered exactly by the twin through the SDK client, the rest handed on to the replay;
a guard that a recorded session contradicts is dropped; a guard never makes up a success."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sim_mcp.authoring.twins.keyed_world import _Learner, _Tool, as_set, infer_guards, run_guard, unordered, view
from sim_mcp.authoring.twins.library import LIBRARY
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.cli import main
from sim_mcp.rules import CallContext, Limits, run_tool, tool_program
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolAnnotations, ToolSpec
from tests.test_rules import client_on, last_event, text_of

NOTES = {
    "name": "notes",
    "tools": [
        {"name": "list_roots", "input_schema": {"type": "object", "properties": {}}},
        {
            "name": "put_note",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
                "required": ["path", "text"],
            },
        },
        {
            "name": "get_note",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "head": {"type": "integer"}},
                "required": ["path"],
            },
        },
        {
            "name": "read_notes",
            "input_schema": {
                "type": "object",
                "properties": {"paths": {"type": "array", "items": {"type": "string"}}},
                "required": ["paths"],
            },
            "annotations": {"readOnlyHint": True},
        },
    ],
}
ROOTS = "Roots:\n{tmp}"


def resolve(root: str | None, value: str) -> str:
    """A key as the twin reads it (`twin_resolve`, the only reading there is: compile runs it too)."""
    program = tool_program(LIBRARY + PROBE, "probe", "<probe>")
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="probe")
    key: str = run_tool(program, "probe", {}, {"root": root, "value": value}, context, Limits()).result["key"]
    return key


PROBE = """
def probe(state, args):
    return {'key': twin_resolve(args['root'], args['value'])}
"""


def missing(path: str) -> str:
    return f"ENOENT: no note at '{resolve('{tmp}', path)}'"


# Sessions as a real notes server answers them: notes stored under a path relative to its folder.
SESSIONS: list[list[tuple[str, dict[str, Any], str, bool]]] = [
    [
        ("list_roots", {}, ROOTS, False),
        ("get_note", {"path": "alpha"}, missing("alpha"), True),
        ("put_note", {"path": "alpha", "text": "one"}, "Saved alpha", False),
        ("get_note", {"path": "beta/gamma"}, missing("beta/gamma"), True),
        ("read_notes", {"paths": ["delta"]}, "delta: failed: " + missing("delta"), False),
    ],
    [
        ("put_note", {"path": "{tmp}/kappa", "text": "two"}, "Saved {tmp}/kappa", False),
        ("get_note", {"path": "lambda/"}, missing("lambda"), True),
        ("get_note", {"path": "mu", "head": 3}, "head is not supported", True),
        ("read_notes", {"paths": ["nu"]}, "nu: failed: " + missing("nu"), False),
    ],
    [
        ("get_note", {"path": "xi", "head": 1}, "head is not supported", True),
        ("put_note", {"path": "omicron", "text": "three"}, "Saved omicron", False),
    ],
]


def write_recordings(folder: Path, sessions: list[list[tuple[str, dict[str, Any], str, bool]]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.yaml").write_text(yaml.safe_dump(NOTES))
    lines = []
    for number, session in enumerate(sessions):
        for seq, (tool, arguments, text, is_error) in enumerate(session, start=1):
            result = {"content": [{"type": "text", "text": text}], "isError": is_error}
            entry = {"session": f"s{number}", "seq": seq, "tool": tool, "arguments": arguments, "result": result}
            lines.append(json.dumps(entry | {"is_error": is_error, "latency_ms": 1.0}))
    lines.insert(2, '{"session": "s0", "seq": ')  # a torn line: named by file and line, the rest used
    refused = {"session": "s9", "seq": 1, "tool": "get_note", "arguments": {"path": "pi"}, "is_error": True}
    lines.append(json.dumps(refused | {"rpc_error": {"code": -32602, "message": "Invalid params"}}))
    (folder / "recordings.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def compile_twin(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    report = folder / "compile.json"
    status = main(["compile", str(folder / "spec.yaml"), "--from", str(folder), "--report", str(report)])
    assert status == 1  # some tools are guarded or left: not every call has a program that answers it
    return json.loads(report.read_text()), capsys.readouterr().err


def test_resolve_reads_a_key_as_a_path_under_the_root() -> None:
    assert resolve("{tmp}", "a/./b//c/") == "{tmp}/a/b/c"
    assert resolve("{tmp}", "") == "{tmp}"
    assert resolve("{tmp}", "{tmp}/x/../y") == "{tmp}/y"
    assert resolve("{tmp}", "/etc/passwd") == "/etc/passwd"
    assert resolve(None, "a//b") == "a//b"
    assert view({"paths": ["a"], "n": 1}) == {"paths": ["a"], "n": 1, "paths/0": "a"}
    assert view({"paths": ["a", "b"]}) == {"paths": ["a", "b"]}


def test_guards_answer_what_the_recordings_show_exactly_and_hand_the_rest_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_recordings(tmp_path / "notes", SESSIONS)
    report, err = compile_twin(folder, capsys)
    assert f"{folder / 'recordings.jsonl'}:3: not JSON" in err
    # The call the server refused with a JSON-RPC error is met by the guard's error (an error meets an error).
    assert report["tools"]["get_note"]["reason"].startswith("its rules answer 6 of its 6 recorded calls exactly")
    assert report["tools"]["list_roots"]["status"] == "exact"
    for tool in ("put_note", "get_note", "read_notes"):
        assert report["tools"][tool]["status"] == "guarded", report["tools"][tool]
    anyio.run(served_twin_answers, folder)


async def served_twin_answers(folder: Path) -> None:
    async with client_on(folder, backend="replay", cassette=folder / "recordings.jsonl") as (client, runtime):
        # Errors of argument values never recorded, exactly: the key resolved under the root in the text.
        unseen = await client.call_tool("get_note", {"path": "zeta/eta"})
        assert unseen.is_error
        assert text_of(unseen) == missing("zeta/eta")
        assert (await last_event(runtime)).backend == "rules"
        refused = await client.call_tool("get_note", {"path": "theta", "head": 9})
        assert text_of(refused) == "head is not supported"
        listed = await client.call_tool("read_notes", {"paths": ["iota"]})
        assert not listed.is_error
        assert text_of(listed) == "iota: failed: " + missing("iota")
        # A success built from the call, which stores the key: a later read of it is no longer "missing".
        saved = await client.call_tool("put_note", {"path": "rho", "text": "hello"})
        assert text_of(saved) == "Saved rho"
        world = (await runtime.store.get("memory")).worlds["notes"]  # type: ignore[union-attr]
        # Written once (`w`: a document's revision counts its writes); the first record of the store (`s`, `se`).
        stored = {"by": "put_note", "args": {"text": "hello"}, "n": 1, "at": 1, "w": 1, "s": 1, "se": 1}
        assert world["_twin"]["keys"]["{tmp}/rho"] == stored
        # ... so the guard declines it, and the replay, which never saw it, says so: never a made-up success.
        read = await client.call_tool("get_note", {"path": "rho"})
        assert read.is_error
        assert "'get_note'" in text_of(read)
        event = await last_event(runtime)
        assert event.backend == "replay"
        assert event.failed
        assert "handed on" not in text_of(read)
        # A call a recorded session answered the same way is replayed when the guard declines it.
        many = await client.call_tool("read_notes", {"paths": ["a", "b"]})
        assert many.is_error  # two items: no rule of the recordings holds, and none was recorded


def test_a_guards_rule_a_recorded_session_contradicts_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # put_note's success and its refusal happen in calls alike in every condition a guard knows, so it gets no
    # rule and the twin never stores "alpha"; get_note's rule ("missing -> the error"), learned in the world
    # the recordings show, would then answer the recorded read of "alpha" wrongly in the replay: that rule is
    # dropped, and only it (its rule "present -> the stored text" no recorded call contradicts).
    sessions: list[list[tuple[str, dict[str, Any], str, bool]]] = [
        [
            ("list_roots", {}, ROOTS, False),
            ("put_note", {"path": "alpha", "text": "one"}, "Saved alpha", False),
            ("get_note", {"path": "alpha"}, "one", False),
        ],
        [
            ("put_note", {"path": "beta", "text": "two"}, "Disk full", True),
            ("get_note", {"path": "gamma"}, missing("gamma"), True),
            ("get_note", {"path": "d"}, missing("d"), True),
        ],
    ]
    folder = write_recordings(tmp_path / "notes", sessions)
    report, _ = compile_twin(folder, capsys)
    assert report["tools"]["put_note"]["status"] == "llm"
    get_note = report["tools"]["get_note"]
    assert get_note["status"] == "guarded"
    assert "a rule of its program in the rules runtime missed" in get_note["reason"]
    assert [rule["when"] for rule in get_note["plan"]["rules"]] == [[["present", "path", None]]]
    program = (folder / "spec.rules.star").read_text().split("# --- compiled")
    assert not any("ENOENT" in function for function in program[1:])  # the error rule is in no function


def test_run_guard_declines_rather_than_guessing() -> None:
    plan = {
        "family": "guard",
        "root": "{tmp}",
        "rules": [
            {
                "when": [["missing", "path"]],
                "answer": {"$parts": ["gone: ", ["key", "path"]]},
                "error": True,
            }
        ],
    }
    state: dict[str, Any] = {"_twin": {"keys": {"{tmp}": {"by": "_root"}, "{tmp}/a": {"by": "put"}}}}
    assert run_guard(plan, "get", state, {"path": "b"}) == ("gone: {tmp}/b", True)
    assert run_guard(plan, "get", state, {"path": "a"}) is None  # present: no rule holds
    assert run_guard(plan, "get", state, {"path": 7}) is None  # no string key: no rule can be applied


# A server that writes numbers from the call into its text: an argument, and the sum of two.
ADDER = ToolSpec(
    name="add",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "note": {"type": "string"}},
        "required": ["a", "b"],
    },
)


def adder_call(session: int, a: Any, b: Any) -> RecordedCall:
    text = f"The sum of {a} and {b} is {a + b}."
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    return RecordedCall(f"s{session}", 1, "add", {"a": a, "b": b}, result, False)


def test_a_number_the_answer_computes_from_the_call_is_learned_whole() -> None:
    sessions = [[adder_call(n, a, b)] for n, (a, b) in enumerate([(2, 2), (3, 15), (10, 5), (7, 70)])]
    inference = infer_guards([ADDER], sessions, ["add"])
    plan = inference.plans["add"]
    # (2, 2) alone could be a product or a doubling: the calls after it leave the sum.
    assert run_guard(plan, "add", {}, {"a": 40, "b": 2}) == ("The sum of 40 and 2 is 42.", False)
    assert run_guard(plan, "add", {}, {"a": -3, "b": 1}) == ("The sum of -3 and 1 is -2.", False)
    # Numbers as JavaScript writes them, whatever their JSON kind: 10.0 is "10", and a float sum keeps its digits.
    assert run_guard(plan, "add", {}, {"a": 19.1, "b": 62.66}) == (
        "The sum of 19.1 and 62.66 is 81.75999999999999.",
        False,
    )
    assert run_guard(plan, "add", {}, {"a": 10.0, "b": 1}) == ("The sum of 10 and 1 is 11.", False)
    # No number to write (a string): handed on, not guessed.
    assert run_guard(plan, "add", {}, {"a": "2", "b": 1}) is None


def test_a_number_inside_another_is_no_placeholder() -> None:
    # 5 is in "15", "2.5" and "v5" but stands whole only once: only that one is the argument.
    call = RecordedCall(
        "s0", 1, "add", {"a": 5, "b": 1}, {"content": [{"type": "text", "text": "5: 15, 2.5, v5"}]}, False
    )
    tool = _Tool(ADDER, [call])
    learner = _Learner({"add": tool}, [[call]], None)
    (template, _), *_ = learner.templates(tool, learner.worlds({})).values()
    assert template == {"$parts": [["num", "a"], ": 15, 2.5, v5"]}


JS_SAMPLES = [81.75999999999999, 24.73, 10.0, 1e21, 1e-7, 0.1 + 0.2, 123456789.125, 1.5e300, 5e-324, 1e16, 0.000001]
JS_SAMPLES += [0.0001, 123e-20, -2.5, 100.0, 1e20, 1.5e-6, 0.5, -0.0, 12345678901234567.0, 2**53 + 2.0, 7, -40]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**70), 2**70), max_size=40))
def test_numbers_are_written_as_javascript_writes_them(drawn: list[float | int]) -> None:
    values = JS_SAMPLES + drawn
    script = "console.log(JSON.stringify(JSON.parse(process.argv[1]).map(String)))"
    written = subprocess.run(["node", "-e", script, json.dumps(values)], capture_output=True, text=True, check=True)
    program = tool_program(LIBRARY + NUMBER_PROBE, "probe", "<probe>")
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="probe")
    ran = run_tool(program, "probe", {}, {"values": values}, context, Limits())
    assert ran.result == json.loads(written.stdout)


NUMBER_PROBE = """
def probe(state, args):
    template = {"$parts": [["num", "a"]]}
    return [twin_plain(twin_render(template, None, {}, {"a": value})) for value in args["values"]]
"""


# The arithmetic of placeholders against node: each operation, as JavaScript computes and writes it.
ARITHMETIC = {
    "quotient": "a / b",
    "remainder": "a % b",
    "power": "a ** b",
    "root": "Math.sqrt(a)",
    "negation": "-a",
    "absolute": "Math.abs(a)",
}
ARITHMETIC_SAMPLES: list[tuple[str, float | int, float | int]] = [
    ("quotient", -52, 0),  # -Infinity
    ("quotient", 0, 0),  # NaN
    ("quotient", 7, -0.0),  # -Infinity: the sign of a zero divisor counts
    ("quotient", 1, 3),
    ("remainder", 5878.4, 8.9),  # 4.399999999999402
    ("remainder", -7, 3),  # -1: the dividend's sign, not the divisor's
    ("remainder", 7.5, -2),
    ("remainder", 5, 0),  # NaN
    ("power", 2, 10),
    ("power", 1.5, 3),
    ("power", 2, -3),
    ("power", -2, 1025),  # -Infinity
    ("power", 2, 1024),  # Infinity, just past the largest double
    ("power", 10, 309),
    ("power", 2, -1074),  # the least double
    ("power", 0, -1),  # Infinity
    ("power", 2, 0.5),
    ("power", -8, 0.5),  # NaN
    ("root", 52, 0),  # 7.211102550927978
    ("root", 2, 0),
    ("root", -4, 0),  # NaN
    ("root", 1e-300, 0),
    ("root", 2**70, 0),
    ("negation", 0, 0),  # "0", not "-0"
    ("absolute", -2.5, 0),
]
NUMBERS = (
    st.integers(-1000, 1000)
    | st.floats(-1e6, 1e6).map(lambda x: round(x, 2))
    | st.floats(allow_nan=False, allow_infinity=False)
)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(ARITHMETIC)), NUMBERS, NUMBERS | st.integers(-40, 40)), max_size=40))
def test_arithmetic_is_computed_and_written_as_javascript_does(
    drawn: list[tuple[str, float | int, float | int]],
) -> None:
    cases = ARITHMETIC_SAMPLES + drawn
    functions = ", ".join(f"{name}: (a, b) => {expression}" for name, expression in ARITHMETIC.items())
    script = f"const f = {{{functions}}}; const cases = JSON.parse(process.argv[1]);"
    script += "console.log(JSON.stringify(cases.map(([op, a, b]) => String(f[op](a, b)))))"
    # node reads -0.0 as 0: it is sent as a number that rounds to -0.
    sent = re.sub(r"-0\.0(?![0-9e])", "-1e-400", json.dumps(cases))
    written = json.loads(
        subprocess.run(["node", "-e", script, sent], capture_output=True, text=True, check=True).stdout
    )
    program = tool_program(LIBRARY + ARITHMETIC_PROBE, "probe", "<probe>")
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="probe")
    ran = run_tool(program, "probe", {}, {"cases": cases}, context, Limits(max_steps=10**9, timeout_s=60.0))
    for index, ((operation, a, b), got, expected) in enumerate(zip(cases, ran.result, written, strict=True)):
        if got is None:
            # Declined, never guessed: only a power that is no double exactly (V8 rounds those its own way).
            assert operation == "power", (operation, a, b)
            assert index >= len(ARITHMETIC_SAMPLES), (operation, a, b)
            continue
        assert got == expected, (operation, a, b)


ARITHMETIC_PROBE = """
def probe(state, args):
    out = []
    for operation, a, b in args["cases"]:
        part = [operation, "a", "b"] if operation in ("quotient", "remainder", "power") else [operation, "a"]
        template = {"$parts": [part]}
        rendered = twin_render(template, None, {}, {"a": a, "b": b})
        out.append(None if rendered == None else twin_plain(rendered))
    return out
"""


# A calculator server as JavaScript writes it: short numbers, a quotient by zero, a remainder, a root; and it
# answers a call that lacks a required argument as well ("undefined").
CALCULATOR = [
    ToolSpec(
        name=name,
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    )
    for name in ("div", "mod")
] + [
    ToolSpec(
        name="sqrt",
        input_schema={"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
    )
]
CALCULATOR_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("div", {"a": 99, "b": 4}, "The division of 99 and 4 is 24.75"),
    ("div", {"a": -52, "b": 0}, "The division of -52 and 0 is -Infinity"),
    ("div", {"a": 7, "b": 2}, "The division of 7 and 2 is 3.5"),
    ("div", {"b": 0}, "The division of undefined and 0 is NaN"),
    ("mod", {"a": 5878.4, "b": 8.9}, "The modulo of 5878.4 and 8.9 is 4.399999999999402"),
    ("mod", {"a": -7, "b": 3}, "The modulo of -7 and 3 is -1"),
    ("mod", {"a": 9, "b": 4}, "The modulo of 9 and 4 is 1"),
    ("sqrt", {"a": 52}, "The square root of 52 is 7.211102550927978"),
    ("sqrt", {"a": 3}, "The square root of 3 is 1.7320508075688772"),
    ("sqrt", {"a": 0}, "The square root of 0 is 0"),
]


def test_quotients_remainders_and_roots_are_learned_as_javascript_computes_them() -> None:
    def call(number: int, tool: str, arguments: dict[str, Any], text: str) -> RecordedCall:
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        return RecordedCall(f"s{number}", 1, tool, arguments, result, False)

    sessions = [[call(n, *recorded)] for n, recorded in enumerate(CALCULATOR_CALLS)]
    inference = infer_guards(CALCULATOR, sessions, ["div", "mod", "sqrt"])
    # Every recorded call, the one without `a` too: a template that cannot write it hands it on to the next rule.
    assert inference.answered == {"div": 4, "mod": 3, "sqrt": 3}
    plans = inference.plans
    assert run_guard(plans["div"], "div", {}, {"a": 1, "b": 3}) == (
        "The division of 1 and 3 is 0.3333333333333333",
        False,
    )
    assert run_guard(plans["div"], "div", {}, {"a": 0, "b": 0}) == ("The division of 0 and 0 is NaN", False)
    assert run_guard(plans["div"], "div", {}, {"b": 8}) == ("The division of undefined and 8 is NaN", False)
    assert run_guard(plans["mod"], "mod", {}, {"a": -10, "b": 4}) == ("The modulo of -10 and 4 is -2", False)
    assert run_guard(plans["sqrt"], "sqrt", {}, {"a": 2}) == ("The square root of 2 is 1.4142135623730951", False)
    assert run_guard(plans["sqrt"], "sqrt", {}, {"a": -1}) == ("The square root of -1 is NaN", False)


# A notes server that lists its notes newest first: an order the language has no word for.
NOTE_TOOLS = [
    ToolSpec(
        name="add_note",
        input_schema={"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    ),
    ToolSpec(name="list_notes", input_schema={"type": "object", "properties": {}}),
]


def notes_session(number: int, titles: list[str]) -> list[RecordedCall]:
    def answered(seq: int, tool: str, arguments: dict[str, Any], value: Any) -> RecordedCall:
        result = {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False}
        return RecordedCall(f"s{number}", seq, tool, arguments, result, False)

    calls: list[RecordedCall] = []
    notes: list[dict[str, Any]] = []
    for title in titles:
        notes.append({"id": len(notes) + 1, "title": title})
        calls.append(answered(len(calls) + 1, "add_note", {"title": title}, notes[-1]))
        # By title, last first: an order neither storing nor keys explain (newest first is `reverse`).
        listed = sorted(notes, key=lambda note: note["title"], reverse=True)
        calls.append(answered(len(calls) + 1, "list_notes", {}, {"notes": listed}))
    return calls


def test_a_listing_in_an_order_nothing_explains_is_marked_to_be_compared_as_a_set() -> None:
    sessions = [notes_session(0, ["milk", "eggs", "flour"]), notes_session(1, ["tea", "rice"])]
    inference = infer_guards(NOTE_TOOLS, sessions, ["add_note", "list_notes"])
    assert inference.answered == {"add_note": 5, "list_notes": 5}
    plan = inference.plans["list_notes"]
    assert unordered(plan) == ["/notes"]
    state: dict[str, Any] = {}
    for title in ("x1", "y2"):
        run_guard(inference.plans["add_note"], "add_note", state, {"title": title})
    answer = run_guard(plan, "list_notes", state, {})
    assert answer is not None
    # As stored, which as a set is what the server lists (by title, last first).
    by_title = {"notes": [{"id": 2, "title": "y2"}, {"id": 1, "title": "x1"}]}
    assert as_set(answer[0], ["/notes"]) == as_set(by_title, ["/notes"])


# A version-control server's answers: a template of arguments never seen, and a hash it makes up.
BRANCHES = [
    ToolSpec(
        name="create_branch",
        input_schema={
            "type": "object",
            "properties": {"name": {"type": "string"}, "base": {"type": "string"}},
            "required": ["name", "base"],
        },
    ),
    ToolSpec(
        name="commit",
        input_schema={"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
    ),
]


def branch_call(session: int, seq: int, tool: str, arguments: dict[str, Any], text: str) -> RecordedCall:
    return RecordedCall(f"s{session}", seq, tool, arguments, {"content": [{"type": "text", "text": text}]}, False)


def test_a_success_of_arguments_never_seen_is_a_template_and_a_made_up_hash_a_placeholder() -> None:
    sessions = [
        [branch_call(n, 1, "create_branch", {"name": name, "base": base}, f"Created branch '{name}' from '{base}'")]
        for n, (name, base) in enumerate([("fix-login", "main"), ("docs", "develop"), ("spike", "main")])
    ]
    plan = infer_guards(BRANCHES, sessions, ["create_branch"]).plans["create_branch"]
    answer = run_guard(plan, "create_branch", {}, {"name": "feature-x", "base": "trunk"})
    assert answer == ("Created branch 'feature-x' from 'trunk'", False)
    commit = branch_call(0, 2, "commit", {"message": "first"}, "Committed with hash " + "3f2b1c9e" * 5)
    tool = _Tool(BRANCHES[1], [commit])
    learner = _Learner({"commit": tool}, [[commit]], None)
    (template, _), *_ = learner.templates(tool, learner.worlds({})).values()
    assert template == {"$parts": ["Committed with hash ", ["made_up", "hex", 40]]}
    rules = [{"when": [["always"]], "answer": template, "error": False}]
    made = run_guard({"family": "guard", "root": None, "rules": rules}, "commit", {}, {"message": "second"})
    assert made is not None
    assert re.fullmatch(r"Committed with hash [0-9a-f]{40}", made[0])


def test_a_listing_shows_what_the_session_stored_in_the_order_stored() -> None:
    listing = ToolSpec(name="list_branches", input_schema={"type": "object", "properties": {}})
    tools = [BRANCHES[0], listing]

    def session(number: int, names: list[str], list_first: bool) -> list[RecordedCall]:
        calls: list[RecordedCall] = []
        made: list[str] = []
        if list_first:
            calls.append(branch_call(number, 1, "list_branches", {}, "Branches:\n- main"))
        for name in names:
            made.append(name)
            text = f"Created branch '{name}' from 'main'"
            calls.append(branch_call(number, len(calls) + 1, "create_branch", {"name": name, "base": "main"}, text))
            shown = "".join(f"\n- {branch}" for branch in ["main", *made])
            calls.append(branch_call(number, len(calls) + 1, "list_branches", {}, "Branches:" + shown))
        return calls

    sessions = [session(0, ["fix-login", "docs"], False), session(1, ["spike", "alpha"], True)]
    plans = infer_guards(tools, sessions, ["create_branch", "list_branches"]).plans
    state: dict[str, Any] = {}
    assert run_guard(plans["list_branches"], "list_branches", state, {}) == ("Branches:\n- main", False)
    for name in ("zeta", "feature-x"):
        run_guard(plans["create_branch"], "create_branch", state, {"name": name, "base": "main"})
    listed = run_guard(plans["list_branches"], "list_branches", state, {})
    assert listed == ("Branches:\n- main\n- zeta\n- feature-x", False)


# A task server whose search answers a markdown table, one row per task it finds: a missing tag written
# "none", a done flag as "✅ Done" or "🔄 Open", the query found in a task's name or its note.
TASK_TOOLS = [
    ToolSpec(
        name="add_task",
        input_schema={
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "note": {"type": "string"},
                "tag": {"type": "string"},
                "done": {"type": "boolean"},
            },
            "required": ["name", "note"],
        },
    ),
    ToolSpec(
        name="find_tasks",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        annotations=ToolAnnotations(readOnlyHint=True),
    ),
]


def task_server(
    session: int, steps: list[tuple[str, dict[str, Any]]], tasks: dict[str, dict[str, Any]] | None = None
) -> list[RecordedCall]:
    """What the task server answers to `steps` (its own behaviour, written plainly), as recorded calls."""
    tasks = {} if tasks is None else tasks
    calls: list[RecordedCall] = []
    for tool, arguments in steps:
        if tool == "add_task":
            tasks[arguments["name"]] = arguments
            text = f"Added {arguments['name']}"
        else:
            query = arguments["query"].lower()
            found = [t for t in tasks.values() if query in t["name"].lower() or query in t["note"].lower()]
            rows = [
                f"| {t['name']} | {t['note']} | {t.get('tag', 'none')} | {'✅ Done' if t.get('done') else '🔄 Open'} |"
                for t in found
            ]
            head = f"Found {len(found)} tasks:\n\n| Task | Note | Tag | Status |\n|---|---|---|---|\n"
            text = head + "\n".join(rows) if found else f'No task matches "{arguments["query"]}"'
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        calls.append(RecordedCall(f"s{session}", len(calls) + 1, tool, arguments, result, False))
    return calls


def add_task(name: str, note: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "add_task", {"name": name, "note": note, **more}


def find_tasks(query: str) -> tuple[str, dict[str, Any]]:
    return "find_tasks", {"query": query}


def task_sessions() -> list[list[RecordedCall]]:
    """Two recorded sessions of the task server: tasks added, then found by a word of their names or notes."""
    return [
        task_server(
            0,
            [
                add_task("docs-update", "write the guide", tag="writing"),
                find_tasks("docs"),
                add_task("docs-review", "read the guide", done=True),
                find_tasks("docs"),
                find_tasks("guide"),
                find_tasks("nothing"),
            ],
        ),
        task_server(
            1,
            [
                add_task("book-venue", "call the hotel", done=False),
                add_task("send-invites", "email the team", tag="events", done=True),
                find_tasks("venue"),
                find_tasks("the"),
                add_task("hotel-deposit", "pay the venue"),
                find_tasks("venue"),
                find_tasks("zzz"),
            ],
        ),
    ]


def test_a_listing_of_records_is_learned_as_a_line_per_record_with_values_written_through_a_map() -> None:
    sessions = task_sessions()
    inference = infer_guards(TASK_TOOLS, sessions, ["add_task", "find_tasks"])
    assert inference.answered["find_tasks"] == 8
    plans = inference.plans
    state: dict[str, Any] = {}
    tasks: dict[str, dict[str, Any]] = {}
    steps = [
        add_task("plan-trip", "pick the dates", tag="travel"),
        add_task("pack-bags", "the trip is long", done=True),
        add_task("file-taxes", "before april"),
        find_tasks("trip"),
        find_tasks("APRIL"),
        find_tasks("walrus"),
    ]
    # Names, notes and queries never recorded: each answer is what the server itself would say.
    for call in task_server(9, steps, tasks):
        assert run_guard(plans[call.tool], call.tool, state, call.arguments) == (call.value, False)


# A notes server that keeps notes under folders ("work/plan") and lists one folder's notes by name, a
# pinned one marked at the end of its line.
FOLDER_TOOLS = [
    ToolSpec(
        name="put_note",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}, "pinned": {"type": "boolean"}},
            "required": ["path", "text"],
        },
    ),
    ToolSpec(
        name="list_folder",
        input_schema={"type": "object", "properties": {"folder": {"type": "string"}}, "required": ["folder"]},
        annotations=ToolAnnotations(readOnlyHint=True),
    ),
]


def folder_server(session: int, steps: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    notes: dict[str, dict[str, Any]] = {}
    calls: list[RecordedCall] = []
    for tool, arguments in steps:
        if tool == "put_note":
            notes[arguments["path"]] = arguments
            text = f"Saved {arguments['path']}"
        else:
            folder = arguments["folder"]
            inside = [n for path, n in notes.items() if path.rsplit("/", 1)[0] == folder]
            rows = [f"* {n['path'].rsplit('/', 1)[1]} — {n['text']}{' 📌' if n.get('pinned') else ''}" for n in inside]
            text = f"Folder {folder}:\n" + "\n".join(rows) if inside else f"No notes in {folder}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        calls.append(RecordedCall(f"s{session}", len(calls) + 1, tool, arguments, result, False))
    return calls


def test_a_listing_shows_the_records_under_the_key_an_argument_names() -> None:
    def put(path: str, text: str, **more: Any) -> tuple[str, dict[str, Any]]:
        return "put_note", {"path": path, "text": text, **more}

    def show(folder: str) -> tuple[str, dict[str, Any]]:
        return "list_folder", {"folder": folder}

    sessions = [
        folder_server(0, [put("work/plan", "ship it"), put("home/shop", "buy milk", pinned=True), show("work")]),
        folder_server(
            1,
            [
                put("work/plan", "draft"),
                put("work/deep/old", "archived"),
                put("work/todo", "call bob", pinned=True),
                show("work"),
                show("home"),
                put("home/shop", "eggs", pinned=False),
                show("home"),
            ],
        ),
    ]
    plans = infer_guards(FOLDER_TOOLS, sessions, ["put_note", "list_folder"]).plans
    steps = [
        put("trip/pack", "socks", pinned=True),
        put("trip/book", "train"),
        put("trip/day1/walk", "hills"),
        put("garden/seed", "beans"),
        show("trip"),
        show("garden"),
        show("attic"),
    ]
    state: dict[str, Any] = {}
    for call in folder_server(9, steps):
        assert run_guard(plans[call.tool], call.tool, state, call.arguments) == (call.value, False)
