"""`sim-mcp compile` and the program mode of the LLM path, against the scripted local provider through the
real OpenAI and Anthropic SDKs: good programs, broken ones that must be repaired, programs that loop or
exceed limits, and programs that disagree with a recording."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from sim_mcp.authoring.programs.compile import CompileReport, compile_environment, programs_path
from sim_mcp.authoring.programs.transitions import read_recordings
from sim_mcp.cli import main
from sim_mcp.config import Settings
from sim_mcp.engine.backends import load_backend
from sim_mcp.errors import ConfigError
from sim_mcp.llm.profiles import profile_for
from sim_mcp.rules import compile_rules
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.registry import load_catalog
from sim_mcp.testing import FakeProvider, Reply, reply_outcome
from tests.servers import free_port

WALLET = """\
name: wallet
description: One wallet per person.
instructions: |
  The current date is 2025-03-14. Wallets live in `wallets`, keyed by id. deposit adds amount to the
  balance; amount must be positive ("amount must be positive"); an unknown wallet fails with
  "wallet <id> not found".
initial_state:
  wallets:
    W-1: {id: W-1, owner: ada, balance: 5}
    W-2: {id: W-2, owner: bob, balance: 0}
tools:
  - name: get_wallet
    description: Read one wallet.
    input_schema:
      type: object
      properties: {wallet_id: {type: string}}
      required: [wallet_id]
    output_schema:
      type: object
      properties: {id: {type: string}, owner: {type: string}, balance: {type: number}}
      required: [id, balance]
    examples:
      - arguments: {wallet_id: W-1}
        result: {id: W-1, owner: ada, balance: 5}
  - name: deposit
    description: Add money to a wallet.
    input_schema:
      type: object
      properties: {wallet_id: {type: string}, amount: {type: number}}
      required: [wallet_id, amount]
    output_schema:
      type: object
      properties: {id: {type: string}, balance: {type: number}}
      required: [id, balance]
    examples:
      - arguments: {wallet_id: W-1, amount: 10}
        result: {id: W-1, balance: 15}
      - arguments: {wallet_id: W-1, amount: -1}
        result: amount must be positive
        is_error: true
"""

GET_WALLET = """\
def get_wallet(state, args):
    wallet = state["wallets"].get(args["wallet_id"])
    if wallet == None:
        return error("wallet %s not found" % args["wallet_id"])
    return wallet
"""

DEPOSIT = """\
def _wallet(state, wallet_id):
    return state["wallets"].get(wallet_id)

def deposit(state, args):
    if args["amount"] <= 0:
        return error("amount must be positive")
    wallet = _wallet(state, args["wallet_id"])
    if wallet == None:
        return error("wallet %s not found" % args["wallet_id"])
    wallet["balance"] = wallet["balance"] + args["amount"]
    return {"id": wallet["id"], "balance": wallet["balance"]}
"""


def program(text: str) -> Reply:
    """A model's answer with a program (OpenAI: the content; Anthropic: the forced tool's input)."""
    return Reply(tool_input={"program": text})


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "wallet.yaml"
    path.write_text(WALLET)
    return path


def settings_for(fake: FakeProvider, backend: str = "openai", **overrides: Any) -> Settings:
    url = fake.openai_url if backend == "openai" else fake.anthropic_url
    values: dict[str, Any] = {"backend": backend, "model": "fake-model", "base_url": url, "provider_retries": 0}
    return Settings(**(values | overrides))


async def compile_spec(
    fake: FakeProvider, spec: Path, *, backend: str = "openai", recordings_from: Path | None = None, **kw: Any
) -> CompileReport:
    environment = read_spec_file(spec)
    recordings = read_recordings(recordings_from, environment) if recordings_from is not None else []
    model = load_backend(settings_for(fake, backend))
    lines: list[str] = []
    try:
        report = await compile_environment(environment, spec, model, recordings=recordings, progress=lines.append, **kw)
    finally:
        await model.aclose()
    assert [line for line in lines if not line.split(": ", 1)[1].startswith("round ")] == [
        tool.line() for tool in report.tools
    ], "one progress line per tool"
    return report


def text_of(path: Path) -> str:
    return path.read_text()


def write(path: Path, text: str) -> None:
    path.write_text(text)


def statuses(report: CompileReport) -> dict[str, str]:
    return {tool.tool: tool.status for tool in report.tools}


def prompts(fake: FakeProvider, backend: str = "openai") -> list[str]:
    path = "/chat/completions" if backend == "openai" else "/messages"
    return [json.dumps(request.body) for request in fake.posts(path)]


# -- compile -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
async def test_good_programs_are_written_beside_the_spec_and_answer_the_tools(
    fake: FakeProvider, spec: Path, backend: str
) -> None:
    fake.script(program(GET_WALLET), program(DEPOSIT))
    report = await compile_spec(fake, spec, backend=backend)
    assert statuses(report) == {"get_wallet": "compiled", "deposit": "compiled"}
    assert report.written
    assert report.programs == programs_path(spec) == spec.with_name("wallet.rules.star")
    assert text_of(spec) == WALLET, "the spec file itself is never changed"
    text = report.programs.read_text()
    assert "# --- compiled: deposit ---" in text
    assert 'CLOCK = "2025-03-14T09:00:00Z"' in text, "the clock the instructions name"
    assert "_deposit__wallet(" in text, "a helper is renamed after its tool, so sections never clash"
    # The registry loads the file; the rules answer, with no model.
    catalog = load_catalog(spec.parent)
    assert catalog.errors == ()
    assert compile_rules(catalog).errors == ()
    async with Runtime(Settings(specs=[spec.parent]), catalog=catalog) as runtime:
        moved = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-2", "amount": 2.5})
        record = await runtime.sessions.get("s")
    assert moved.result == {"id": "W-2", "balance": 2.5}
    assert moved.event is not None
    assert moved.event.backend == "rules"
    assert runtime.simulator.world_of(record, "wallet")["wallets"]["W-2"]["balance"] == 2.5
    # What the model was shown: the instructions, its tool in full, the others by name, the initial state.
    first = prompts(fake, backend)[0]
    assert "wallet <id> not found" in first
    assert "def get_wallet(state, args)" in first
    assert "W-1" in first


async def test_a_broken_program_goes_back_with_its_failure_until_it_is_repaired(fake: FakeProvider, spec: Path) -> None:
    wrong_sum = DEPOSIT.replace('wallet["balance"] + args["amount"]', 'args["amount"]')
    fake.script(
        program(GET_WALLET),
        program("def deposit(state, args):\n    return {'id': args['wallet_id']\n"),  # does not parse
        program(wrong_sum),  # parses, but 10 added to 5 gives 10
        program(DEPOSIT),
    )
    report = await compile_spec(fake, spec, rounds=3)
    deposit = report.tools[1]
    assert (deposit.status, deposit.rounds) == ("compiled", 3)
    asked = prompts(fake)
    assert "Your previous program failed" in asked[2]
    assert "does not compile" in asked[2]
    # The call, expected vs got.
    assert "W-1" in asked[3]
    assert "balance = 15, got 10" in asked[3]
    assert deposit.tokens.input == 300
    # The rounds that failed are in the report, with what the model wrote, for whoever finishes the job.
    rejected = report.to_json()["tools"][1]["rejected"]
    assert [entry["program"] for entry in rejected] == [
        "def deposit(state, args):\n    return {'id': args['wallet_id']\n",
        wrong_sum,
    ]
    assert "balance = 15, got 10" in rejected[1]["problem"]


async def test_python_habits_a_model_writes_are_read_as_starlark_and_written_as_such(
    fake: FakeProvider, spec: Path
) -> None:
    habits = DEPOSIT.replace("if wallet == None:", "if wallet is None:").replace(
        'wallet["balance"] + args["amount"]', 'sum(x for x in [wallet["balance"], args["amount"]])'
    )
    fake.script(program(GET_WALLET.replace("if wallet == None:", "if wallet is None:")), program(habits))
    # The rewrites of a model that writes Python's `is None` and generator expressions (llm/profiles/qwen.py).
    report = await compile_spec(fake, spec, profile=profile_for("fake-model", "qwen2.5-coder"))
    assert statuses(report) == {"get_wallet": "compiled", "deposit": "compiled"}
    written = report.programs.read_text()
    assert " is None" not in written
    assert 'sum([x for x in [wallet["balance"], args["amount"]]])' in written
    async with Runtime(Settings(specs=[spec.parent])) as runtime:
        missing = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-9", "amount": 1})
        added = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 2})
    assert missing.result == "wallet W-9 not found"
    assert (added.kind, added.result) == ("ok", {"id": "W-1", "balance": 7})


async def test_a_program_that_says_a_record_the_state_has_is_not_found_is_sent_back(
    fake: FakeProvider, tmp_path: Path
) -> None:
    """deposit without examples: the probes alone must catch a function that reads its ids wrong (it says
    every wallet is missing), although a write may rightly refuse every probe for its rules."""
    spec = tmp_path / "wallet.yaml"
    spec.write_text(WALLET.split("    examples:\n      - arguments: {wallet_id: W-1, amount: 10}")[0])
    misreads = DEPOSIT.replace('_wallet(state, args["wallet_id"])', '_wallet(state, "W-" + args["wallet_id"])')
    fake.script(program(GET_WALLET), program(misreads), program(DEPOSIT))
    report = await compile_spec(fake, spec, rounds=2)
    deposit = report.tools[1]
    assert (deposit.status, deposit.rounds) == ("compiled", 2)
    assert "wallet W-1 not found" in deposit.rejected[0][1]
    assert 'wallet_id "W-1" is in the state (/wallets)' in deposit.rejected[0][1]


async def test_programs_that_loop_or_exceed_limits_are_left_to_the_llm(fake: FakeProvider, spec: Path) -> None:
    loops = "def deposit(state, args):\n    for i in range(100000000):\n        pass\n    return {}\n"
    grows = (
        "def deposit(state, args):\n    state['junk'] = ['x' * 1000 for i in range(5000)]\n"
        "    return {'id': args['wallet_id'], 'balance': 1}\n"
    )
    fake.script(program(GET_WALLET), program(loops), program(grows))
    report = await compile_spec(fake, spec, rounds=2)
    deposit = report.tools[1]
    assert deposit.status == "failed"
    assert "state would grow" in (deposit.reason or "")
    assert "left to the LLM" in deposit.line()
    assert "ran past its budget" in prompts(fake)[2]
    text = report.programs.read_text()
    assert "def get_wallet" in text
    assert "def deposit" not in text.replace("failed", "")
    # The tool left to the LLM has no program when the spec loads.
    catalog = load_catalog(spec.parent)
    tool = catalog.tool("deposit", "wallet")
    assert tool is not None
    assert compile_rules(catalog).program(tool) is None


async def test_a_program_that_disagrees_with_a_recording_is_sent_back(fake: FakeProvider, spec: Path) -> None:
    # A cassette of the real tool: depositing 7 into W-2 made it 7, and reading it back said so.
    cassette = spec.parent / "calls.jsonl"
    entries = [
        {
            "key": "k1",
            "environment": "wallet",
            "version": "v",
            "tool": "deposit",
            "session": "s1",
            "arguments": {"wallet_id": "W-2", "amount": 7},
            "outcome": {
                "result": {"id": "W-2", "balance": 7},
                "is_error": False,
                "state_patch": [{"op": "replace", "path": "/wallets/W-2/balance", "value": 7}],
            },
        },
        {
            "key": "k2",
            "environment": "wallet",
            "version": "v",
            "tool": "get_wallet",
            "session": "s1",
            "arguments": {"wallet_id": "W-2"},
            "outcome": {"result": {"id": "W-2", "owner": "bob", "balance": 7}, "is_error": False, "state_patch": []},
        },
    ]
    cassette.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    # Right on the examples (W-1 holds 5), wrong on the recording: it also records a log line in the state.
    logs = DEPOSIT.replace("    return {", "    state['log'] = 'deposit'\n    return {")
    fake.script(program(GET_WALLET), program(logs), program(DEPOSIT))
    report = await compile_spec(fake, spec, recordings_from=cassette)
    assert statuses(report) == {"get_wallet": "compiled", "deposit": "compiled"}
    assert report.tools[1].rounds == 2
    asked = prompts(fake)
    assert "Recorded calls of this tool" in asked[1]
    assert "recorded call 1" in asked[2]
    assert "the state after it differs at /log" in asked[2]


def test_compile_is_idempotent_and_force_compiles_again(fake: FakeProvider, spec: Path, capsys: Any) -> None:
    flags = ["--backend", "openai", "--base-url", fake.openai_url, "--model", "fake-model", "--provider-retries", "0"]
    fake.script(program(GET_WALLET), program(DEPOSIT))
    assert main(["compile", str(spec), *flags]) == 0
    out = capsys.readouterr().out
    assert "get_wallet: compiled in 1 round" in out
    assert "deposit: compiled in 1 round" in out
    written = programs_path(spec).read_text()
    # Again: both pass, nothing is asked, the file is the same bytes.
    assert main(["compile", str(spec), *flags]) == 0
    assert "get_wallet: kept" in capsys.readouterr().out
    assert programs_path(spec).read_text() == written
    assert len(fake.posts("/chat/completions")) == 2
    # --force asks again; a model that now fails keeps nothing worse: the passing function stays.
    fake.script(program(GET_WALLET), program("def deposit(state, args):\n    return error('')\n"))
    report = spec.parent / ".report.json"
    assert main(["compile", str(spec), *flags, "--force", "--rounds", "1", "--report", str(report)]) == 1
    assert [tool["status"] for tool in json.loads(report.read_text())["tools"]] == ["compiled", "failed"]
    assert "deposit(" in programs_path(spec).read_text()
    catalog = load_catalog(spec.parent)
    tool = catalog.tool("deposit", "wallet")
    assert catalog.errors == ()
    assert compile_rules(catalog).errors == ()
    assert tool is not None
    assert compile_rules(catalog).program(tool) is not None


async def test_a_hand_written_function_that_passes_is_kept(fake: FakeProvider, spec: Path) -> None:
    programs_path(spec).write_text("# Written by hand.\n" + GET_WALLET)
    fake.script(program(DEPOSIT))
    report = await compile_spec(fake, spec)
    assert statuses(report) == {"get_wallet": "kept", "deposit": "compiled"}
    text = programs_path(spec).read_text()
    assert "# Written by hand.\n" + GET_WALLET in text
    assert len(fake.posts("/chat/completions")) == 1


def test_compile_against_a_model_server_that_is_not_there_is_one_line(spec: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    flags = ["--backend", "openai", "--base-url", dead, "--model", "m", "--provider-retries", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "sim_mcp.cli", "compile", str(spec), *flags], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()  # no "Unclosed client session" after it: the pool was closed
    assert line.startswith(f"sim-mcp: error: cannot reach the OpenAI-compatible server at {dead}")
    assert not programs_path(spec).exists()


def test_compile_needs_a_model(spec: Path, capsys: Any) -> None:
    assert main(["compile", str(spec)]) == 2
    assert "compile needs a model" in capsys.readouterr().err


# -- program mode of the LLM path ----------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
async def test_program_mode_runs_the_models_program_on_the_state(fake: FakeProvider, spec: Path, backend: str) -> None:
    settings = settings_for(fake, backend, specs=[spec.parent], llm_output="program")
    fake.script(program(DEPOSIT.replace("def deposit", "def run").replace("_wallet(", "_w(")))
    async with Runtime(settings) as runtime:
        moved = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 0.1})
        record = await runtime.sessions.get("s")
    # The interpreter did the arithmetic: 5 + 0.1, exactly as Python adds.
    assert (moved.is_error, moved.result) == (False, {"id": "W-1", "balance": 5.1})
    assert runtime.simulator.world_of(record, "wallet")["wallets"]["W-1"]["balance"] == 5.1
    assert moved.event is not None
    assert moved.event.state_patch == [{"op": "replace", "path": "/wallets/W-1/balance", "value": 5.1}]
    sent = fake.posts("/chat/completions" if backend == "openai" else "/messages")[0].body
    schema = (
        sent["response_format"]["json_schema"]["schema"] if backend == "openai" else sent["tools"][0]["input_schema"]
    )
    assert schema["required"] == ["program"]
    assert "def deposit(state, args)" in json.dumps(sent)


async def test_program_mode_reads_the_worlds_clock_the_prompt_states(fake: FakeProvider, tmp_path: Path) -> None:
    path = tmp_path / "wallet.yaml"
    # No current date in its instructions: the clock comes from the world's records.
    path.write_text(
        WALLET.replace("The current date is 2025-03-14. ", "").replace(
            "W-1: {id: W-1, owner: ada, balance: 5}",
            "W-1: {id: W-1, owner: ada, balance: 5, opened: '2030-06-01T08:15:00Z'}",
        )
    )
    settings = settings_for(fake, specs=[tmp_path], llm_output="program")
    fake.script(program("def deposit(state, args):\n    return {'id': now(), 'balance': 1}\n"))
    async with Runtime(settings) as runtime:
        moved = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 1})
    # The session's clock starts after its world's newest timestamp, in the prompt and in the program alike.
    assert not moved.is_error
    assert isinstance(moved.result, dict)
    assert moved.result["id"].startswith("2030-06-01T09:0")
    assert "Time now (timestamps this call writes): 2030-06-01T09:01:00Z" in json.dumps(
        fake.posts("/chat/completions")[0].body
    )


@pytest.mark.parametrize(
    ("model", "profile", "rewritten"),
    [
        ("Qwen2.5-Coder-1.5B-Instruct", "auto", True),  # its family's profile, chosen by the model's name
        ("Qwen2.5-Coder-1.5B-Instruct", "none", False),  # switched off
        ("fake-model", "auto", False),  # the default profile: nothing
        ("fake-model", "qwen2.5-coder", True),  # named
    ],
)
async def test_program_mode_applies_the_models_profile_only(
    fake: FakeProvider, spec: Path, model: str, profile: str, rewritten: bool
) -> None:
    # Python where Starlark has none: `is None` and a generator expression. With the profile the program
    # runs; without, the interpreter's error goes back.
    python = DEPOSIT.replace("if wallet == None:", "if wallet is None:").replace(
        'wallet["balance"] + args["amount"]', 'sum(x for x in [wallet["balance"], args["amount"]])'
    )
    settings = settings_for(
        fake, specs=[spec.parent], llm_output="program", max_attempts=1, model=model, model_profile=profile
    )
    fake.script(program(python))
    async with Runtime(settings) as runtime:
        missing = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-9", "amount": 1})
    assert missing.event is not None
    if rewritten:
        assert (missing.kind, missing.result) == ("error", "wallet W-9 not found")
    else:
        assert missing.kind == "failed"
        assert "your program failed" in missing.event.rejected[0]
    _, user = (message["content"] for message in fake.posts("/chat/completions")[0].body["messages"])
    system = fake.posts("/chat/completions")[0].body["messages"][0]["content"]
    assert ("Strings in single quotes" in system) is rewritten
    assert "def deposit(state, args)" in user


async def test_auto_mode_asks_for_a_program_where_the_call_computes_and_a_patch_elsewhere(
    fake: FakeProvider, spec: Path
) -> None:
    settings = settings_for(fake, specs=[spec.parent], llm_output="auto")
    read = {"result": {"id": "W-1", "owner": "ann", "balance": 5}, "is_error": False, "state_patch": []}
    fake.script(program(DEPOSIT), Reply(tool_input=read))
    async with Runtime(settings) as runtime:
        moved = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 0.1})
        got = await runtime.simulator.call("s", "get_wallet", {"wallet_id": "W-1"})
    # deposit changes the state and takes a number: a program, run by the engine; get_wallet reads: a patch.
    assert (moved.kind, moved.result) == ("ok", {"id": "W-1", "balance": 5.1})
    assert (got.kind, got.result) == ("ok", read["result"])
    schemas = [post.body["response_format"]["json_schema"]["schema"] for post in fake.posts("/chat/completions")]
    assert [schema["required"] for schema in schemas] == [["program"], ["result", "is_error", "state_patch"]]


def asked(fake: FakeProvider, backend: str) -> list[tuple[list[str], str, str]]:
    """Each request sent to the provider: the reply's required keys (the mode asked for), and its system and
    user prompts."""
    if backend == "openai":
        bodies = [post.body for post in fake.posts("/chat/completions")]
        return [
            (
                body["response_format"]["json_schema"]["schema"]["required"],
                body["messages"][0]["content"],
                body["messages"][1]["content"],
            )
            for body in bodies
        ]
    return [
        (
            body["tools"][0]["input_schema"]["required"],
            "".join(part["text"] for part in body["system"]) if isinstance(body["system"], list) else body["system"],
            body["messages"][0]["content"]
            if isinstance(body["messages"][0]["content"], str)
            else "".join(part["text"] for part in body["messages"][0]["content"]),
        )
        for body in (post.body for post in fake.posts("/messages"))
    ]


PROGRAM, PATCH = ["program"], ["result", "is_error", "state_patch"]
# Two ways a program gives no valid answer: it does not parse, and it fails when run.
UNPARSED = "def deposit(state, args)\n    return {}\n"
FAILING = "def deposit(state, args):\n    return state['wallets'][args['wallet_id']]['missing']\n"


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
async def test_auto_mode_falls_back_to_a_patch_when_the_programs_give_no_valid_answer(
    fake: FakeProvider, spec: Path, backend: str
) -> None:
    trajectories = spec.parent / "trajectories"
    settings = settings_for(fake, backend, specs=[spec.parent], llm_output="auto", trajectories=trajectories)
    patch = [{"op": "replace", "path": "/wallets/W-1/balance", "value": 6}]
    fake.script(program(UNPARSED), program(FAILING), reply_outcome({"id": "W-1", "balance": 6}, state_patch=patch))
    async with Runtime(settings) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="s"))
        async with Client(server) as client:
            moved = await client.call_tool("deposit", {"wallet_id": "W-1", "amount": 1})
        record = await runtime.sessions.get("s")
        (event,) = await runtime.store.events("s")
    # The default 3 attempts: two programs, then the last attempt in patch mode, whose outcome is committed.
    assert not moved.is_error
    assert moved.structured_content == {"id": "W-1", "balance": 6}
    assert runtime.simulator.world_of(record, "wallet")["wallets"]["W-1"]["balance"] == 6
    requests = asked(fake, backend)
    assert [required for required, _, _ in requests] == [PROGRAM, PROGRAM, PATCH]
    assert event.fallback
    assert len(event.rejected) == 2
    assert all("your program failed" in reason for reason in event.rejected)
    # The second program was shown the first one's error; the patch is asked afresh, in patch mode's prompt.
    _, _, second = requests[1]
    _, system, last = requests[2]
    assert "previous answer was rejected" in second
    assert "previous answer was rejected" not in last
    assert "RFC 6902" in system
    assert "Starlark" not in system
    (line,) = (trajectories / "s.jsonl").read_text().splitlines()
    assert json.loads(line)["fallback"] is True


async def test_a_program_cut_off_counts_as_no_valid_answer_and_a_call_answered_by_its_program_is_no_fallback(
    fake: FakeProvider, spec: Path
) -> None:
    settings = settings_for(fake, specs=[spec.parent], llm_output="auto", max_attempts=2)
    patch = [{"op": "replace", "path": "/wallets/W-1/balance", "value": 6}]
    fake.script(
        Reply(text='{"program": "def deposit(state, args):\\n    # First', finish="length"),
        reply_outcome({"id": "W-1", "balance": 6}, state_patch=patch),
        program(DEPOSIT),
    )
    async with Runtime(settings) as runtime:
        first = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 1})
        second = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 2})
    # Two attempts: one program, then the patch; a program valid at the first try is the call's answer.
    assert [required for required, _, _ in asked(fake, "openai")] == [PROGRAM, PATCH, PROGRAM]
    assert first.event is not None
    assert second.event is not None
    assert (first.kind, first.result, first.event.fallback) == ("ok", {"id": "W-1", "balance": 6}, True)
    assert "cut off" in first.event.rejected[0]
    assert (second.kind, second.result, second.event.fallback) == ("ok", {"id": "W-1", "balance": 8}, False)


async def test_plain_program_mode_never_falls_back(fake: FakeProvider, spec: Path) -> None:
    settings = settings_for(fake, specs=[spec.parent], llm_output="program")
    fake.script(program(UNPARSED), program(FAILING), program(UNPARSED))
    async with Runtime(settings) as runtime:
        failed = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 1})
        record = await runtime.sessions.get("s")
    assert failed.kind == "failed"
    assert [required for required, _, _ in asked(fake, "openai")] == [PROGRAM, PROGRAM, PROGRAM]
    assert failed.event is not None
    assert not failed.event.fallback
    assert len(failed.event.rejected) == 3
    assert runtime.simulator.world_of(record, "wallet") == read_spec_file(spec).initial_state


async def test_auto_mode_with_one_attempt_has_none_to_fall_back_on(fake: FakeProvider, spec: Path) -> None:
    settings = settings_for(fake, specs=[spec.parent], llm_output="auto", max_attempts=1)
    fake.script(program(FAILING))
    async with Runtime(settings) as runtime:
        failed = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 1})
    assert failed.kind == "failed"
    assert [required for required, _, _ in asked(fake, "openai")] == [PROGRAM]
    assert failed.event is not None
    assert not failed.event.fallback


async def test_when_the_programs_and_the_fallback_patch_all_fail_the_state_is_untouched(
    fake: FakeProvider, spec: Path
) -> None:
    trajectories = spec.parent / "trajectories"
    settings = settings_for(fake, specs=[spec.parent], llm_output="auto", trajectories=trajectories)
    # The patch names a wallet the state lacks: it does not apply.
    stray = [{"op": "replace", "path": "/wallets/W-7/balance", "value": 6}]
    fake.script(program(FAILING), program(UNPARSED), reply_outcome({"id": "W-1", "balance": 6}, state_patch=stray))
    async with Runtime(settings) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="s"))
        async with Client(server) as client:
            failed = await client.call_tool("deposit", {"wallet_id": "W-1", "amount": 1})
        record = await runtime.sessions.get("s")
        (event,) = await runtime.store.events("s")
    assert failed.is_error
    assert "could not produce a valid result" in failed.content[0].text  # type: ignore[union-attr]
    assert [required for required, _, _ in asked(fake, "openai")] == [PROGRAM, PROGRAM, PATCH]
    assert runtime.simulator.world_of(record, "wallet") == read_spec_file(spec).initial_state
    assert event.fallback
    assert event.failed
    assert event.state_patch == []
    rejected = event.rejected
    assert len(rejected) == 3
    assert "your program failed" in rejected[0]
    assert "state_patch does not apply" in rejected[2]
    assert json.loads(event.rejected_answers[2])["state_patch"] == stray
    (line,) = (trajectories / "s.jsonl").read_text().splitlines()
    assert (json.loads(line)["fallback"], json.loads(line)["failed"]) == (True, True)


async def test_an_unknown_model_profile_stops_the_backend_before_it_serves(fake: FakeProvider) -> None:
    with pytest.raises(ConfigError, match=r"unknown model profile 'qwen-coder' \(--model-profile"):
        load_backend(settings_for(fake, model_profile="qwen-coder"))


async def test_program_mode_feeds_failures_back_then_gives_an_honest_error(fake: FakeProvider, spec: Path) -> None:
    settings = settings_for(fake, specs=[spec.parent], llm_output="program", max_attempts=3)
    fake.script(
        program("def deposit(state, args):\n    return state['wallets'][args['wallet_id']]['missing']\n"),
        program("def deposit(state, args):\n    for i in range(100000000):\n        pass\n"),
        program("def deposit(state, args):\n    return error('')\n"),
    )
    async with Runtime(settings) as runtime:
        answered = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 1})
        record = await runtime.sessions.get("s")
    assert answered.is_error
    assert answered.kind == "failed"
    assert runtime.simulator.world_of(record, "wallet") == read_spec_file(spec).initial_state
    assert answered.event is not None
    rejected = answered.event.rejected
    assert len(rejected) == 3
    assert "your program failed" in rejected[0]
    assert "missing" in rejected[0]
    assert "ran past its budget" in rejected[1]
    assert "needs its message" in rejected[2]
    # Beside each reason, the program it was found in, as the model wrote it.
    assert [answer.splitlines()[1].strip() for answer in answered.event.rejected_answers] == [
        "return state['wallets'][args['wallet_id']]['missing']",
        "for i in range(100000000):",
        "return error('')",
    ]
    _, second = (message["content"] for message in fake.posts("/chat/completions")[1].body["messages"])
    assert "previous answer was rejected" in second
    assert "missing" in second


async def test_a_program_cut_off_is_asked_for_a_shorter_program(fake: FakeProvider, spec: Path) -> None:
    settings = settings_for(fake, specs=[spec.parent], llm_output="program", max_attempts=2)
    fake.script(Reply(text='{"program": "def deposit(state, args):\\n    # First', finish="length"), program(DEPOSIT))
    async with Runtime(settings) as runtime:
        moved = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": 1})
    assert (moved.is_error, moved.result) == (False, {"id": "W-1", "balance": 6})
    assert moved.event is not None
    (reason,) = moved.event.rejected
    assert (
        reason
        == "the reply was cut off at 2048 tokens; answer with a shorter program: only this tool's checks, no comments"
    )
    assert moved.event.rejected_answers == ['{"program": "def deposit(state, args):\\n    # First']


# -- the LLM path's guards -------------------------------------------------------------------------


async def test_a_record_the_state_lacks_is_not_found_without_asking_the_model(fake: FakeProvider, spec: Path) -> None:
    async with Runtime(settings_for(fake, specs=[spec.parent], run_rules=False)) as runtime:
        missing = await runtime.simulator.call("s", "get_wallet", {"wallet_id": "W-9"})
    assert (missing.is_error, missing.result) == (True, "wallet W-9 not found")
    assert fake.posts("/chat/completions") == []


async def test_an_empty_error_is_asked_again_and_the_rejection_is_kept(fake: FakeProvider, spec: Path) -> None:
    trajectories = spec.parent / "trajectories"
    settings = settings_for(fake, specs=[spec.parent], run_rules=False, trajectories=trajectories)
    fake.script(reply_outcome(None, is_error=True), reply_outcome("amount must be positive", is_error=True))
    async with Runtime(settings) as runtime:
        refused = await runtime.simulator.call("s", "deposit", {"wallet_id": "W-1", "amount": -3})
    assert (refused.is_error, refused.result, refused.kind) == (True, "amount must be positive", "error")
    assert refused.event is not None
    (reason,) = refused.event.rejected
    assert "an error result needs its message" in reason
    # The trajectory keeps it too, though the retry succeeded.
    (line,) = (trajectories / "s.jsonl").read_text().splitlines()
    assert json.loads(line)["rejected"] == [reason]
    (answer,) = json.loads(line)["rejected_answers"]
    assert json.loads(answer) == {"result": None, "is_error": True, "state_patch": []}


async def test_a_tool_without_output_schema_is_shown_the_shape_of_its_results(fake: FakeProvider, spec: Path) -> None:
    text = WALLET.replace(
        "    output_schema:\n      type: object\n      properties: {id: {type: string}, owner: {type: string}, "
        "balance: {type: number}}\n      required: [id, balance]\n",
        "",
    )
    write(spec, text)
    fake.script(reply_outcome({"id": "W-1", "owner": "ada", "balance": 5}))
    async with Runtime(settings_for(fake, specs=[spec.parent], run_rules=False)) as runtime:
        await runtime.simulator.call("s", "get_wallet", {"wallet_id": "W-1"})
    _, user = (message["content"] for message in fake.posts("/chat/completions")[0].body["messages"])
    assert "get_wallet has no output schema. Its results, learnt from its examples" in user
    assert '{"id":"string","owner":"string","balance":"integer"}' in user


def test_programs_are_read_as_small_models_write_them() -> None:
    from sim_mcp.llm.reply import parse_outcome

    # A raw newline inside the JSON string, a program escaped twice, one in a code fence with no JSON.
    raw = '{"program": "def f(state, args):\n    return 1\n"}'
    twice = '{"program": "def f(state, args):\\\\n    return 1\\\\n"}'
    fenced = "Here it is:\n```python\ndef f(state, args):\n    return 1\n```"
    # (the one escaped twice by a model whose profile undoes it: llm/profiles/qwen.py)
    qwen = profile_for("fake-model", "qwen2.5-coder")
    for reply in (raw, twice, fenced):
        program = parse_outcome(reply).program
        assert program is not None
        assert qwen.rewrite(program).startswith("def f(state, args):\n    return ")
