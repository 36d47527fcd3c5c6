"""Tasks and rewards: checks of every kind, task files, `sim-mcp check`, /evaluate over HTTP after real
MCP calls, and the LLM judge through the fake provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from sim_mcp.cli import main
from sim_mcp.config import Settings
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.backends.offline import OfflineBackend
from sim_mcp.episodes.checks import run_check
from sim_mcp.episodes.judge import LlmJudge, judge_for
from sim_mcp.episodes.rewards import baseline_of, evaluate, start_state
from sim_mcp.episodes.tasks import Check, Task, load_tasks, parse_task
from sim_mcp.episodes.validation import validate_task
from sim_mcp.errors import InvalidSessionInput
from sim_mcp.llm.providers.anthropic import AnthropicBackend
from sim_mcp.llm.providers.openai import OpenAIBackend
from sim_mcp.specs.registry import load_catalog
from sim_mcp.state.session import Event
from sim_mcp.testing import FakeProvider, Reply, reply_status
from tests.helpers_server import app_server, mcp_client
from tests.servers import BUNDLED_SPECS

STATE: dict[str, Any] = {
    "tickets": {
        "T-1": {"id": "T-1", "status": "closed", "tags": ["billing", "vip"], "title": "Refund the Duplicate charge"},
        "T-2": {"id": "T-2", "status": "open", "tags": [], "title": "Login loop", "assignee": None},
        "T-3": {"id": "T-3", "status": "closed", "tags": ["billing"], "title": "Invoice seats"},
    },
    "accounts": [{"id": "A", "balance": 2418.37 - 100, "frozen": False}],
    "attendees": [{"email": "tom@x.example", "response": "accepted"}, {"email": "ines@x.example"}],
    "a/b": {"~": 1},
    "next_id": 4,
}


def check(**fields: Any) -> Check:
    return Check.model_validate(fields)


# --- each check kind, true and false, with a JSON Pointer and with a JSONPath ----------------------

CASES: list[tuple[dict[str, Any], bool]] = [
    # equals
    ({"path": "/tickets/T-1/status", "equals": "closed"}, True),
    ({"path": "/tickets/T-2/status", "equals": "closed"}, False),
    ({"path": "/tickets/T-9/status", "equals": "closed"}, False),  # absent
    ({"path": "/accounts/0/balance", "equals": 2318.37}, True),  # float tolerance
    ({"path": "/next_id", "equals": 4.0}, True),
    ({"path": "/accounts/0/frozen", "equals": 0}, False),  # false is not 0
    ({"path": "/tickets/T-2/assignee", "equals": None}, True),
    ({"path": "/a~1b/~0", "equals": 1}, True),  # escaped pointer
    ({"path": "$.tickets[?(@.tags[*] == 'billing')].status", "equals": "closed"}, True),
    ({"path": "$.tickets[*].status", "equals": "closed"}, False),  # all must match
    ({"path": "$.tickets[*].status", "equals": "open", "match": "any"}, True),
    ({"path": "$.tickets[*].status", "equals": "pending", "match": "any"}, False),
    ({"path": "$.nothing[*]", "equals": 1}, False),  # no match
    # contains
    ({"path": "/tickets/T-1/title", "contains": "duplicate"}, True),  # case-insensitive substring
    ({"path": "/tickets/T-1/title", "contains": "login"}, False),
    ({"path": "/tickets/T-1/tags", "contains": "vip"}, True),
    ({"path": "/tickets/T-2/tags", "contains": "vip"}, False),
    ({"path": "/attendees", "contains": {"email": "ines@x.example"}}, True),  # subset of an item
    ({"path": "/attendees", "contains": {"email": "ines@x.example", "response": "accepted"}}, False),
    ({"path": "/tickets/T-2", "contains": "assignee"}, True),  # an object's key
    ({"path": "/tickets/T-2", "contains": {"status": "open", "title": "Login loop"}}, True),
    ({"path": "/next_id", "contains": 4}, False),  # a number contains nothing
    ({"path": "$.tickets[*].tags", "contains": "billing", "match": "any"}, True),
    ({"path": "$.tickets[*].tags", "contains": "billing"}, False),  # T-2 has no tags
    ({"path": "$.tickets[*].title", "contains": "i"}, True),
    # count
    ({"path": "/tickets", "count": 3}, True),
    ({"path": "/tickets", "count": 2}, False),
    ({"path": "/tickets/T-9/tags", "count": 0}, True),  # absent counts 0
    ({"path": "/attendees", "count": {"min": 2, "max": 5}}, True),
    ({"path": "/attendees", "count": {"min": 3}}, False),
    ({"path": "/next_id", "count": 1}, False),  # not a collection
    ({"path": "$.tickets[?(@.status == 'closed')]", "count": 2}, True),
    ({"path": "$.tickets[?(@.status == 'closed')]", "count": {"max": 1}}, False),
    ({"path": "$.tickets[?(@.status == 'pending')]", "count": {"equals": 0}}, True),
    # exists
    ({"path": "/tickets/T-2/assignee", "exists": True}, True),  # present even though null
    ({"path": "/tickets/T-2/resolution", "exists": True}, False),
    ({"path": "/tickets/T-9", "exists": False}, True),
    ({"path": "$.tickets[?(@.title == 'Login loop')]", "exists": True}, True),
    ({"path": "$.tickets[?(@.title == 'Nope')]", "exists": True}, False),
    # absent
    ({"path": "/tickets/T-9", "absent": True}, True),
    ({"path": "/tickets/T-1", "absent": True}, False),
    ({"path": "/tickets/T-1/status/deeper", "absent": True}, True),  # through a scalar: nothing there
    ({"path": "$.tickets[?(@.status == 'pending')]", "absent": True}, True),
    ({"path": "$.tickets[?(@.status == 'open')]", "absent": True}, False),
]


@pytest.mark.parametrize(("fields", "passed"), CASES, ids=[f"{c[0]['path']}-{i}" for i, c in enumerate(CASES)])
def test_check_kinds(fields: dict[str, Any], passed: bool) -> None:
    result = run_check(check(**fields), STATE)
    assert result.passed is passed, result.detail
    assert result.detail


def test_check_details_say_what_was_found_and_expected() -> None:
    result = run_check(check(path="/tickets/T-2/status", equals="closed"), STATE)
    assert result.name == "/tickets/T-2/status equals 'closed'"
    assert result.detail == 'found "open", expected a value that equals "closed"'
    missing = run_check(check(path="/tickets/T-9/status", equals="closed", name="T-9 closed"), STATE)
    assert missing.name == "T-9 closed"
    assert "no 'T-9' in /tickets (it has T-1, T-2, T-3)" in missing.detail
    counted = run_check(check(path="$.tickets[*]", count={"min": 4}), STATE)
    assert counted.detail == "counted 3, expected at least 4"
    several = run_check(check(path="$.tickets[*].status", equals="closed"), STATE)
    assert several.detail == '1 of 3 values do not equal "closed", e.g. found "open"'


# --- rewards ---------------------------------------------------------------------------------------


def make_task(**fields: Any) -> Task:
    return parse_task({"name": "t", "env": "tickets", **fields}, "test")


async def test_reward_is_the_weighted_share_of_checks_passed() -> None:
    task = make_task(
        checks=[
            {"path": "/tickets/T-1/status", "equals": "closed", "weight": 3},
            {"path": "/tickets/T-2/status", "equals": "closed", "weight": 1},
        ]
    )
    evaluation = await evaluate(task, STATE, [])
    assert evaluation.reward == 0.75
    assert evaluation.passed is False
    assert [result.passed for result in evaluation.checks] == [True, False]
    assert evaluation.judge is None
    everything = await evaluate(make_task(checks=[{"path": "/tickets", "count": 3}]), STATE, [])
    assert (everything.reward, everything.passed) == (1.0, True)


GUARDED = [
    {"path": "/tickets/T-2/status", "equals": "closed", "weight": 2},  # the work
    {"path": "/tickets/T-1/status", "equals": "closed", "weight": 1, "name": "T-1 stays closed"},  # a guard
    {"path": "/tickets/T-3/status", "equals": "closed", "weight": 1},  # another guard
]
DONE = {**STATE, "tickets": {**STATE["tickets"], "T-2": {**STATE["tickets"]["T-2"], "status": "closed"}}}
BROKEN = {**DONE, "tickets": {**DONE["tickets"], "T-1": {**STATE["tickets"]["T-1"], "status": "open"}}}


@pytest.mark.parametrize(
    ("final", "score", "gain", "reward_gain"),
    [
        (STATE, 0.5, 0.0, 0.0),  # doing nothing: the guards' half, no gain
        (DONE, 1.0, 0.5, 1.0),  # the work done, nothing broken
        (BROKEN, 0.75, 0.25, 0.5),  # the work done, a guard broken: half of what was left to earn
        ({**STATE, "tickets": {}}, 0.0, -0.5, 0.0),  # everything broken: worse than nothing, clipped to 0
    ],
)
async def test_baseline_and_gain_measure_what_the_episode_changed(
    final: dict[str, Any], score: float, gain: float, reward_gain: float
) -> None:
    absolute = await evaluate(make_task(checks=GUARDED), final, [], initial=STATE)
    assert (absolute.score, absolute.baseline, absolute.gain) == (score, 0.5, gain)
    assert (absolute.reward_kind, absolute.reward) == ("absolute", score)
    progress = await evaluate(make_task(checks=GUARDED, reward="gain"), final, [], initial=STATE)
    assert (progress.reward_kind, progress.reward, progress.score, progress.gain) == ("gain", reward_gain, score, gain)
    assert baseline_of(make_task(checks=GUARDED), STATE) == 0.5


async def test_no_known_starting_state_is_a_baseline_of_0() -> None:
    evaluation = await evaluate(make_task(checks=GUARDED, reward="gain"), STATE, [])
    assert (evaluation.baseline, evaluation.reward) == (0.0, 0.5)


def test_checks_that_pass_at_the_start_are_noted_and_so_is_a_task_they_all_pass() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    guarded = make_task(
        checks=[
            {"path": "/tickets/T-1002/priority", "equals": "high"},
            {"path": "/tickets/T-1002/status", "equals": "pending", "name": "T-1002 stays pending"},
        ]
    )
    errors, notes = validate_task(guarded, catalog)
    assert errors == []
    assert any("checks[1] (T-1002 stays pending): already passes on the starting state" in note for note in notes)
    assert any("doing nothing scores 0.50 (its baseline): give the task `reward: gain`" in note for note in notes)
    gained = guarded.model_copy(update={"reward": "gain"})
    assert not any("reward: gain" in note for note in validate_task(gained, catalog)[1])
    idle = make_task(checks=[{"path": "/tickets/T-1002/status", "equals": "pending"}])
    errors, notes = validate_task(idle, catalog)
    assert errors == []
    assert any(
        "checks: every check already passes on the starting state: the task asks for nothing" in n for n in notes
    )


def test_every_bundled_task_pays_nothing_for_doing_nothing_and_everything_for_its_solution() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    tasks, _ = load_tasks(BUNDLED_SPECS)
    for task in tasks.values():
        assert task.reward == "gain", task.name
        environment = catalog.environment(task.env)
        assert environment is not None
        baseline = baseline_of(task, environment.initial_state)
        assert baseline < 1.0, task.name  # something is left to do
        start = start_state(task, environment.initial_state)
        assert [check.label for check in task.checks if run_check(check, start).passed] == [
            check.label for check in task.checks if check.name is not None and run_check(check, start).passed
        ], f"{task.name}: a check that passes at the start (a guard) has no name saying what it guards"


async def test_offline_skips_the_judge_with_a_note() -> None:
    assert judge_for(OfflineBackend()) is None
    task = make_task(checks=[{"path": "/tickets", "count": 3}], judge={"rubric": "Polite.", "weight": 5})
    evaluation = await evaluate(task, STATE, [])
    assert evaluation.reward == 1.0
    assert evaluation.passed
    assert evaluation.judge is not None
    assert evaluation.judge.score is None
    assert evaluation.judge.skipped is not None
    assert "--backend openai or anthropic" in evaluation.judge.skipped
    with pytest.raises(InvalidSessionInput, match="needs an LLM backend"):
        await evaluate(make_task(judge={"rubric": "Polite."}), STATE, [])


# --- task files ------------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


BAD_TASKS = {
    "no-env.yaml": ("checks: [{path: /tickets, count: 1}]\n", "no-env.yaml: env: is required"),
    "bad-path.yaml": (
        "env: tickets\nchecks: [{path: tickets.T-1, equals: 1}]\n",
        "bad-path.yaml: checks[0].path: expected a JSON Pointer (e.g. /tickets/T-1001/status) or a JSONPath",
    ),
    "bad-jsonpath.yaml": (
        "env: tickets\nchecks: [{path: '$.tickets[?(@.x ==', exists: true}]\n",
        "bad-jsonpath.yaml: checks[0].path: invalid JSONPath '$.tickets[?(@.x =='",
    ),
    "two-kinds.yaml": (
        "env: tickets\nchecks: [{path: /tickets, equals: 1, exists: true}]\n",
        "two-kinds.yaml: checks[0]: expected exactly one of equals, contains, count, exists, absent; got equals and "
        "exists",
    ),
    "no-kind.yaml": ("env: tickets\nchecks: [{path: /tickets}]\n", "no-kind.yaml: checks[0]: expected exactly one of"),
    "bad-count.yaml": (
        "env: tickets\nchecks: [{path: /tickets, count: {min: 3, max: 1}}]\n",
        "bad-count.yaml: checks[0].count: min (3) is greater than max (1)",
    ),
    "negative-count.yaml": (
        "env: tickets\nchecks: [{path: /tickets, count: {min: -1}}]\n",
        "negative-count.yaml: checks[0].count.min: Input should be greater than or equal to 0",
    ),
    "count-type.yaml": (
        "env: tickets\nchecks: [{path: /tickets, count: yes}]\n",
        "count-type.yaml: checks[0].count: expected a number or {equals | min | max: number}, got a boolean",
    ),
    "typo.yaml": ("env: tickets\nchecks: []\nchekcs: []\n", "typo.yaml: chekcs: unknown field"),
    "unscored.yaml": ("env: tickets\n", "unscored.yaml: a task needs at least one check or a judge"),
    "bad-judge.yaml": ("env: tickets\njudge: {rubric: ''}\n", "bad-judge.yaml: judge.rubric:"),
    "bad-weight.yaml": (
        "env: tickets\nchecks: [{path: /tickets, exists: true, weight: -1}]\n",
        "bad-weight.yaml: checks[0].weight: Input should be greater than or equal to 0",
    ),
    "list.yaml": (
        "- {name: a, env: tickets, checks: [{path: /x, exists: maybe}]}\n",
        "list.yaml: [0].checks[0].exists",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_TASKS))
def test_bad_task_files_name_the_field(tmp_path: Path, name: str) -> None:
    text, message = BAD_TASKS[name]
    write(tmp_path / "tasks" / name, text)
    tasks, errors = load_tasks(tmp_path)
    assert tasks == {}
    assert len(errors) == 1
    assert f"{tmp_path / 'tasks'}/{message}" in str(errors[0]), str(errors[0])


def test_tasks_load_from_tasks_folders_and_the_registry_skips_them(tmp_path: Path) -> None:
    write(tmp_path / "tickets.yaml", (BUNDLED_SPECS / "tickets.yaml").read_text())
    write(tmp_path / "tasks" / "close.yaml", "env: tickets\nchecks: [{path: /tickets/T-1001/status, equals: closed}]\n")
    write(
        tmp_path / "tasks" / "more.yaml",
        "- {name: a, env: tickets, judge: {rubric: x}}\n"
        "- {name: b, env: bank, checks: [{path: /accounts, count: 4}]}\n",
    )
    write(
        tmp_path / "nested" / "tasks" / "deep.json",
        json.dumps(
            {
                "env": "tickets",
                "checks": [{"path": "/tickets", "count": 5}],
                "user": {"persona": "terse", "goal": "A closed ticket.", "known": ["It is T-1001."]},
            }
        ),
    )
    catalog = load_catalog(tmp_path)
    assert list(catalog.environments) == ["tickets"]
    assert catalog.errors == ()
    tasks, errors = load_tasks(tmp_path)
    assert errors == []
    assert sorted(tasks) == ["a", "b", "close", "deep"]  # a single task is named after its file
    assert tasks["deep"].user is not None
    assert tasks["deep"].user.known == ["It is T-1001."]  # the simulated user's block, typed
    # A tasks folder or a task file given directly loads as well; the registry reads neither as a spec.
    assert sorted(load_tasks(tmp_path / "tasks")[0]) == ["a", "b", "close"]
    assert list(load_tasks(tmp_path / "tasks" / "close.yaml")[0]) == ["close"]
    assert load_catalog(tmp_path / "tasks" / "close.yaml").environments == {}


def test_duplicate_task_names_are_errors(tmp_path: Path) -> None:
    write(tmp_path / "tasks" / "a.yaml", "name: same\nenv: tickets\nchecks: [{path: /tickets, count: 5}]\n")
    write(tmp_path / "tasks" / "b.yaml", "name: same\nenv: tickets\nchecks: [{path: /tickets, count: 5}]\n")
    tasks, errors = load_tasks(tmp_path)
    assert list(tasks) == ["same"]
    assert f"b.yaml: name: task 'same' is already defined in {tmp_path / 'tasks' / 'a.yaml'}" in str(errors[0])


def test_validate_task_against_the_environment() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    fine = make_task(
        initial_state={"tickets": {"T-2000": {"id": "T-2000", "status": "open"}}},
        checks=[
            {"path": "/tickets/T-2000/status", "equals": "closed"},  # made by the task's initial_state
            {"path": "/tickets/T-1006/status", "equals": "open"},  # not there yet: a note
            {"path": "/tickets/T-1007", "absent": True},  # absent: no note
            {"path": "$.tickets[*].status", "equals": "closed"},
        ],
    )
    errors, notes = validate_task(fine, catalog)
    assert errors == []
    path_notes = [note for note in notes if ".path:" in note]
    assert len(path_notes) == 1
    assert "checks[1].path: /tickets/T-1006 is not in the starting state" in path_notes[0]
    # The absent check holds before anything is done: noted as such, with what doing nothing scores.
    assert any("checks[2] (/tickets/T-1007 is absent): already passes on the starting state" in n for n in notes)
    bad = make_task(
        checks=[
            {"path": "/ticketz/T-1001/status", "equals": "closed"},
            {"path": "/tickets/T-1001/status/x", "exists": True},
            {"path": "$.nope[*]", "count": 1},
        ]
    )
    errors, _ = validate_task(bad, catalog)
    assert [(error.place, error.reason.split(" (")[0]) for error in errors] == [
        ("checks[0].path", "/ticketz is not in the starting state of 'tickets'"),
        ("checks[1].path", "/tickets/T-1001/status/x goes into a string in the starting state of 'tickets'"),
        ("checks[2].path", "'nope' is not in the starting state of 'tickets'"),
    ]
    errors, _ = validate_task(make_task(env="nowhere", checks=[{"path": "/x", "exists": True}]), catalog)
    assert errors[0].place == "env"
    assert "unknown environment 'nowhere': expected one of bank, calendar" in str(errors[0])


def test_bundled_tasks_are_valid() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    tasks, errors = load_tasks(BUNDLED_SPECS)
    assert errors == []
    assert {task.env for task in tasks.values()} == set(catalog.environments)
    for task in tasks.values():
        assert validate_task(task, catalog)[0] == [], task.name


def test_cli_check_validates_task_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(BUNDLED_SPECS)]) == 0
    out = capsys.readouterr().out
    assert "task 'tickets-close-sso' (env tickets, 4 checks, judge, user as ask_user, 2-step solution, " in out
    assert "reward gain: doing nothing earns 0, baseline score 0.11)" in out  # the guard's 0.5 of 4.5
    assert "8 of 8 tasks valid" in out
    # A task file on its own is checked against the specs beside its tasks folder.
    assert main(["check", str(BUNDLED_SPECS / "tasks" / "bank-cancel-rent.yaml")]) == 0
    assert "1 of 1 tasks valid" in capsys.readouterr().out
    write(tmp_path / "tickets.yaml", (BUNDLED_SPECS / "tickets.yaml").read_text())
    write(tmp_path / "tasks" / "bad.yaml", "env: tickets\nchecks: [{path: /ticketz/T-1/status, equals: 1}]\n")
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"error {tmp_path / 'tasks' / 'bad.yaml'}: checks[0].path: /ticketz is not in the starting state" in out
    assert "0 of 1 tasks valid" in out


# --- /evaluate over HTTP after real MCP calls ------------------------------------------------------


async def test_tasks_are_listed(http: httpx.AsyncClient) -> None:
    listing = (await http.get("/tasks")).json()
    assert listing["count"] == 8
    assert listing["errors"] == []
    names = {task["name"]: task for task in listing["tasks"]}
    assert names["tickets-triage-billing"] == {
        "name": "tickets-triage-billing",
        "env": "tickets",
        "difficulty": 1,
        "description": names["tickets-triage-billing"]["description"],
        "checks": 4,
        "judge": False,
        "user": True,
    }
    full = (await http.get("/tasks/bank-cancel-rent")).json()
    assert full["checks"][0] == {"path": "/transfers/TRF-9003/status", "equals": "cancelled"}
    assert (await http.get("/tasks/nope")).status_code == 404


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_evaluate_after_mcp_calls(http: httpx.AsyncClient, mode: str) -> None:
    created = await http.post("/sessions", json={"task": "tickets-triage-billing"})
    assert created.status_code == 201, created.text
    session = created.json()
    assert (session["env"], session["task"], session["reward"]) == ("tickets", "tickets-triage-billing", None)
    session_id = session["id"]

    before = (await http.post(f"/sessions/{session_id}/evaluate")).json()  # the session's own task
    assert before["task"] == "tickets-triage-billing"
    assert [check["passed"] for check in before["checks"]] == [False, False, True, True]
    # Two guards pass before the agent acts (weights 1 and 0.5 of 3.5): that is the baseline, and the task
    # asks for `reward: gain`, so doing nothing earns 0.
    assert (before["score"], before["baseline"]) == (pytest.approx(1.5 / 3.5), pytest.approx(1.5 / 3.5))
    assert (before["reward_kind"], before["reward"], before["gain"]) == ("gain", 0.0, 0.0)
    assert before["passed"] is False

    async with mcp_client(session["mcp_url"], mode) as client:
        result = await client.call_tool(
            "update_ticket", {"ticket_id": "T-1002", "assignee": "sam.okafor@brightlane.example", "priority": "high"}
        )
        assert not result.is_error, result.content

    after = await http.post(f"/sessions/{session_id}/evaluate", json={"task": "tickets-triage-billing"})
    assert after.status_code == 200, after.text
    evaluation = after.json()
    assert (evaluation["reward"], evaluation["passed"], evaluation["events"]) == (1.0, True, 1)
    assert evaluation["checks"][0] == {
        "name": "/tickets/T-1002/assignee equals 'sam.okafor@brightlane.example'",
        "passed": True,
        "detail": 'found "sam.okafor@brightlane.example"',
        "weight": 1.0,
    }
    listed = {item["id"]: item for item in (await http.get("/sessions")).json()["sessions"]}
    assert listed[session_id]["reward"] == 1.0

    inline = await http.post(
        f"/sessions/{session_id}/evaluate",
        json={"task": {"env": "tickets", "checks": [{"path": "$.tickets[?(@.priority == 'high')]", "count": 3}]}},
    )
    assert inline.status_code == 200, inline.text
    assert (inline.json()["task"], inline.json()["reward"]) == ("inline", 1.0)

    reset = (await http.post(f"/sessions/{session_id}/reset")).json()
    assert reset["reward"] is None  # a new episode has no reward yet
    assert reset["state"]["tickets"]["T-1002"]["assignee"] == "maria.lopez@brightlane.example"


async def test_session_from_a_task_starts_from_its_state(http: httpx.AsyncClient) -> None:
    session = (await http.post("/sessions", json={"task": "tickets-close-sso", "seed": 3})).json()
    assert session["seed"] == 3
    state = (await http.get(f"/sessions/{session['id']}")).json()["state"]
    assert state["tickets"]["T-1004"]["status"] == "open"  # the task's merge patch
    assert state["tickets"]["T-1004"]["priority"] == "urgent"  # the rest is the environment's
    evaluation = (await http.post(f"/sessions/{session['id']}/evaluate")).json()
    assert evaluation["judge"]["skipped"] is not None  # the offline backend: checks only


async def test_evaluate_errors(http: httpx.AsyncClient) -> None:
    bound = (await http.post("/sessions", json={"env": "tickets"})).json()["id"]

    async def evaluate_with(body: Any, session_id: str = bound) -> httpx.Response:
        return await http.post(f"/sessions/{session_id}/evaluate", json=body)

    response = await evaluate_with({})
    assert response.status_code == 422
    assert response.json()["field"] == "task"
    assert "not created for a task" in response.json()["error"]
    response = await evaluate_with({"task": "nope"})
    assert response.status_code == 422
    assert "unknown task 'nope': expected one of bank-cancel-rent" in response.text
    response = await evaluate_with({"task": "bank-cancel-rent"})
    assert response.status_code == 422
    assert "runs in environment 'bank', but session" in response.json()["error"]
    response = await evaluate_with({"task": {"env": "tickets", "checks": [{"path": "tickets", "equals": 1}]}})
    assert response.status_code == 422
    assert response.json()["field"] == "task.checks[0].path"
    response = await evaluate_with({"task": {"env": "tickets", "judge": {"rubric": "Polite."}}})
    assert response.status_code == 422
    assert "needs an LLM backend" in response.text
    response = await evaluate_with({"task": "tickets-triage-billing", "extra": 1})
    assert response.status_code == 422
    assert response.json()["field"] == "extra"
    assert (await evaluate_with({"task": "tickets-triage-billing"}, "no-such-session")).status_code == 404

    # An unbound session is evaluated on the task's environment; creating one from a task checks the body.
    unbound = (await http.post("/sessions", json={})).json()["id"]
    response = await evaluate_with({"task": "bank-rename-savings"}, unbound)
    assert response.status_code == 200
    assert (response.json()["score"], response.json()["baseline"], response.json()["reward"]) == (0.5, 0.5, 0.0)
    response = await http.post("/sessions", json={"task": "bank-rename-savings", "env": "tickets"})
    assert response.status_code == 422
    assert response.json()["field"] == "env"
    response = await http.post("/sessions", json={"task": "bank-rename-savings", "state": {}})
    assert response.status_code == 422
    assert response.json()["field"] == "state"
    response = await http.post("/sessions", json={"task": "nope"})
    assert response.status_code == 422
    assert response.json()["field"] == "task"


# --- the judge, through the fake provider ----------------------------------------------------------


def llm_settings(backend: str, fake: FakeProvider, **overrides: Any) -> Settings:
    url = fake.openai_url if backend == "openai" else fake.anthropic_url
    values: dict[str, Any] = {"backend": backend, "model": "fake-model", "base_url": url, "provider_retries": 0}
    return Settings(specs=[BUNDLED_SPECS], **(values | overrides))


def make_backend(backend: str, fake: FakeProvider) -> Backend:
    settings = llm_settings(backend, fake)
    return OpenAIBackend(settings) if backend == "openai" else AnthropicBackend(settings)


JUDGED = make_task(
    description="Close the SSO ticket and tell the customer.",
    checks=[{"path": "/tickets/T-1/status", "equals": "closed"}, {"path": "/tickets/T-2/status", "equals": "closed"}],
    judge={"rubric": "The customer was told about the fix in plain words.", "weight": 2, "pass_score": 0.7},
)
EVENTS = [
    Event(
        seq=1,
        at=0.0,
        environment="tickets",
        tool="close_ticket",
        arguments={"ticket_id": "T-1"},
        result={"id": "T-1", "status": "closed"},
        is_error=False,
        backend="offline",
    )
]


def judge_request_text(fake: FakeProvider, backend: str) -> str:
    if backend == "openai":
        (sent,) = fake.posts("/chat/completions")
        return "\n".join(message["content"] for message in sent.body["messages"])
    (sent,) = fake.posts("/v1/messages")
    assert sent.body["tool_choice"] == {"type": "tool", "name": "verdict"}
    return f"{sent.body['system']}\n{sent.body['messages'][0]['content']}"


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
async def test_judge_scores_with_the_rubric_and_the_state(fake: FakeProvider, backend: str) -> None:
    fake.script(Reply(tool_input={"score": 0.8, "reasons": "Clear and polite."}, input_tokens=321, output_tokens=12))
    llm = make_backend(backend, fake)
    try:
        judge = judge_for(llm)
        assert isinstance(judge, LlmJudge)
        evaluation = await evaluate(JUDGED, STATE, EVENTS, judge)
    finally:
        await llm.aclose()
    assert evaluation.judge is not None
    assert (evaluation.judge.score, evaluation.judge.reasons) == (0.8, "Clear and polite.")
    assert evaluation.judge.passed is True
    assert evaluation.judge.weight == 2
    assert evaluation.judge.tokens.input == 321
    # One of two checks (weight 1 each) and the judge's 0.8 at weight 2: (1 + 1.6) / 4.
    assert evaluation.reward == pytest.approx(0.65)
    assert evaluation.passed is False  # a check failed
    sent = judge_request_text(fake, backend)
    assert "The customer was told about the fix in plain words." in sent  # the rubric
    assert '"Refund the Duplicate charge"' in sent  # the final state
    assert 'close_ticket({"ticket_id": "T-1"})' in sent  # the events


async def test_judge_retries_an_unusable_verdict(fake: FakeProvider) -> None:
    fake.script(
        Reply(text="I think it went well."),
        Reply(tool_input={"score": 7, "reasons": "out of ten"}),
        Reply(text='Here you go: {"score": 0.5, "reasons": "Half done."}'),
    )
    llm = make_backend("openai", fake)
    try:
        result = await LlmJudge(llm, max_attempts=3).judge(JUDGED, STATE, EVENTS)
    finally:
        await llm.aclose()
    assert (result.score, result.reasons, result.passed) == (0.5, "Half done.", False)
    last = fake.posts("/chat/completions")[-1].body["messages"][-1]["content"]
    assert "Your previous answer was unusable: 'score' must be a number from 0 to 1, got 7" in last
    assert result.tokens.input == 300


async def test_judge_provider_failure_is_a_502_over_http(fake: FakeProvider) -> None:
    with app_server(backend="openai", model="fake-model", base_url=fake.openai_url, provider_retries=0) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            session = (await http.post("/sessions", json={"task": "tickets-close-sso"})).json()
            fake.script(Reply(tool_input={"score": 1, "reasons": "All good."}))
            judged = await http.post(f"/sessions/{session['id']}/evaluate")
            assert judged.status_code == 200, judged.text
            body = judged.json()
            assert body["judge"]["score"] == 1.0
            assert body["judge"]["skipped"] is None
            # Before the agent acts only the guard passes (0.5 of 4.5, the baseline); the judge adds its 1,
            # which is a quarter of the 4 the starting state left to earn.
            assert (body["score"], body["baseline"]) == (pytest.approx(1.5 / 4.5), pytest.approx(0.5 / 4.5))
            assert body["reward"] == pytest.approx(0.25)
            fake.script(reply_status(400, "bad request from the judge"))
            failed = await http.post(f"/sessions/{session['id']}/evaluate")
            assert failed.status_code == 502
            assert "bad request from the judge" in failed.json()["error"]
