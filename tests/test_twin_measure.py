"""What twin-check's figures mean: agreement on the reference's successful calls beside the share of its
errors and two trivial twins, `{tmp}` in recorded arguments, renamed sessions, made-up values inside free
text compared by form, and generated traffic that aims at successes."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from benchmarks.twins import print_figures
from sim_mcp.authoring.twins.agreement import Answer, Days, compare_answers
from sim_mcp.authoring.twins.check import CheckPlan, CheckReport, SessionRun, Step, _compared, fixed_answers, run_check
from sim_mcp.authoring.twins.recordings import read_calls
from sim_mcp.authoring.twins.rename import IdMap, Renamer, chosen_values
from sim_mcp.authoring.twins.session_gen import CallGenerator
from sim_mcp.authoring.twins.stateful import run_generated
from sim_mcp.authoring.twins.targets import parse_target, serving
from sim_mcp.cli import main
from tests.servers import REPO
from tests.test_twins import SHELF, shelf_recordings

FILES_SERVER = f"{sys.executable} {REPO / 'tests' / 'files_upstream.py'}"


def test_made_up_values_inside_free_text_agree_by_form() -> None:
    def agree(expected: str, actual: str) -> bool:
        return compare_answers(Answer(expected, False), Answer(actual, False)).agree

    commit = "Changes committed successfully with hash {}"
    assert agree(commit.format("a" * 40), commit.format("0f" * 20))
    assert not agree(commit.format("a" * 40), commit.format("0f" * 19))  # another length: another form
    assert agree("Made 2026-01-02T10:00:00Z, due 2026-02-03.", "Made 2027-11-12T01:02:03Z, due 2026-12-31.")
    assert agree("id 3f2b1c9e-0000-4000-8000-000000000001 saved", "id 9a9a9a9a-1111-4111-8111-111111111111 saved")
    assert not agree("task-1 done", "task-2 done")
    assert not agree("due 2026-01-02", "due 2026-01-02T10:00")  # a date is no date-time
    assert not agree("Wrote a.txt", "Wrote b.txt")


def test_a_computed_day_agrees_with_any_day_by_form_and_only_with_itself_exactly() -> None:
    def agree(expected: object, actual: object, days: Days) -> bool:
        return compare_answers(Answer(expected, False), Answer(actual, False), days=days).agree

    right, wrong = {"next_business_day": "2026-12-28"}, {"next_business_day": "2026-12-29"}
    assert agree(right, wrong, "form")
    assert not agree(right, wrong, "exact")
    assert agree(right, right, "exact")
    said, wrote = (
        "The next business day after 2026-12-24 is 2026-12-28.",
        "The next business day after 2026-12-24 is 2026-12-25.",
    )
    assert agree(said, wrote, "form")
    assert not agree(said, wrote, "exact")
    verdict = compare_answers(Answer(said, False), Answer(wrote, False), days="exact")
    assert verdict.kind == "value at /"
    # A date-time with a clock time, a UUID and a hex id stay compared by form, and a day beside them exactly.
    made = "Made 2026-01-02T10:00:00Z as 3f2b1c9e-0000-4000-8000-000000000001 ({}), due 2026-02-03."
    other = "Made 2027-11-12T01:02:03Z as 9a9a9a9a-1111-4111-8111-111111111111 ({}), due 2026-02-03."
    assert agree(made.format("a5e8e023"), other.format("0b1c2d3e"), "exact")
    assert not agree(made.format("a5e8e023"), other.format("0b1c2d3e").replace("02-03", "02-04"), "exact")
    assert agree("2026-12-06T11:16:55.456484", "2026-01-01T00:00:00.000001", "exact")
    assert agree({"id": "speed_3598404652517860456"}, {"id": "speed_-6875897924734963130"}, "exact")
    assert compare_answers(Answer("no such day", True), Answer("bad day", True), days="exact").agree
    with pytest.raises(ValueError, match="days: expected one of form, exact"):
        compare_answers(Answer(right, False), Answer(right, False), days="loose")  # type: ignore[arg-type]


def _step(tool: str, a: Answer, b: Answer) -> Step:
    return Step(tool, {}, a, b, compare_answers(a, b))


def test_figures_count_the_references_successes_apart_and_score_two_trivial_twins() -> None:
    ok, other, error = Answer("stored", False), Answer("something else", False), Answer("no such key", True)
    run = SessionRun("s", "recorded")
    run.steps = [
        _step("set", ok, ok),
        _step("set", ok, other),
        _step("get", error, Answer("twin cannot answer", True)),
        _step("get", error, error),
        _step("get", error, other),
    ]
    report = CheckReport("a", "b", 0, sessions=[run])
    report.score_fixed(fixed_answers([("set", ok), ("get", error), ("get", error)]), "recordings")
    figures = report.figures()
    assert (figures["calls"], figures["agree"], figures["reference_errors"]) == (5, 3, 3)
    assert (figures["successes"], figures["agree_on_successes"], figures["success_agreement"]) == (2, 1, 0.5)
    assert figures["agree_same_error_text"] == 2
    assert figures["trivial"]["always_error"] == {"agreement": 0.6, "success_agreement": 0.0}
    assert figures["trivial"]["fixed_answer"]["agreement"] == 1.0  # set always "stored", get always an error
    assert figures["tools"]["get"]["successes"] == 0
    assert figures["never_succeeded"] == ["get"]
    assert any("3 of 5 reference answers were errors" in warning for warning in figures["warnings"])
    table = report.table()
    assert "headline: 50.0% of the 2 calls the reference answered successfully agree" in table
    assert "always an error 60.0%" in table


def test_chosen_values_are_renamed_alike_in_arguments_and_answers_and_server_ids_are_not() -> None:
    session = [
        ({"key": "shopping-list", "value": "milk 2026-01-02"}, "Saved shopping-list as item-7"),
        ({"id": "item-7", "path": "{tmp}/notes/a.txt"}, {"key": "shopping-list", "note": "in {tmp}/notes/a.txt"}),
        ({"category": "task"}, "ok"),
    ]
    chosen = chosen_values([session], known=['{"enum": ["task", "note"]}'])
    assert chosen == {"shopping-list", "milk 2026-01-02", "notes", "a.txt"}
    renamer = Renamer(chosen, seen={"x"}, seed=1)
    fresh = renamer.mapping["shopping-list"]
    assert len(fresh) == len("shopping-list")
    assert fresh[8] == "-"
    assert fresh != "shopping-list"
    assert renamer.mapping["milk 2026-01-02"].endswith(" 2026-01-02")  # digits stay: a date stays a date
    assert renamer.mapping["a.txt"].endswith(".txt")
    assert renamer("Saved shopping-list as item-7") == f"Saved {fresh} as item-7"
    renamed_path = renamer("{tmp}/notes/a.txt")
    assert renamed_path.startswith("{tmp}/")
    assert "notes" not in renamed_path
    assert Renamer(chosen, seen={"x"}, seed=1).mapping == renamer.mapping  # the same run, the same names


def test_the_servers_vocabulary_is_not_chosen_an_enum_value_or_a_value_its_answers_gave_first() -> None:
    schema = '{"properties": {"unit": {"enum": ["cubic meter", "nautical mile"]}}}'
    listing = [({}, {"units": ["furlong", "light year"]}), ({"value": 2, "unit": "light year"}, "2 light year")]
    # Another session gives the same values before any answer named them: still the server's, not the agent's.
    converting = [
        ({"value": 1, "unit": "cubic meter", "note": "my tank"}, "1 cubic meter"),
        ({"value": 3, "unit": "light year", "note": "trip to Vega"}, "3 light year, noted 'trip to Vega'"),
        ({"value": 4, "unit": "furlong"}, "4 furlong"),
    ]
    assert chosen_values([listing, converting], known=[schema]) == {"my tank", "trip to Vega"}
    # A value only ever echoed after the agent gave it is the agent's.
    assert chosen_values([converting], known=[schema]) == {"my tank", "trip to Vega", "light year", "furlong"}


def test_an_arithmetic_expression_is_the_servers_language_not_a_chosen_value() -> None:
    session = [
        ({"expression": "sqrt(16)*pi + 2"}, "12.566"),
        ({"expression": "log(8)/2"}, "1.04"),
        ({"key": "task-3", "value": "costs 2*3"}, "ok"),
    ]
    assert chosen_values([session]) == {"task-3", "costs 2*3"}


def test_a_number_written_in_hexadecimal_is_a_quantity_not_a_chosen_value() -> None:
    session = [
        ({"color": "#9367a6"}, {"rgb": [147, 103, 166]}),
        ({"mask": "0xFFFFFF00", "label": "office lan"}, "24 bits"),
        ({"color": "#zz12", "key": "abc123"}, "not a colour"),
    ]
    # `#zz12` is no number: its letters were chosen; `abc123` without a marker is a name.
    assert chosen_values([session]) == {"office lan", "#zz12", "abc123"}


def test_made_up_ids_are_lined_up_with_the_recorded_ones_side_by_side() -> None:
    ids = IdMap()
    recorded_id, live_id = "3f2b1c9e-0000-4000-8000-000000000001", "9a9a9a9a-1111-4111-8111-111111111111"
    ids.learn({"id": recorded_id, "note": f"made {recorded_id}"}, {"id": live_id, "note": f"made {live_id}"})
    assert ids({"requestId": recorded_id, "text": f"see {recorded_id}"}) == {
        "requestId": live_id,
        "text": f"see {live_id}",
    }


def test_a_short_made_up_hex_id_is_lined_up_as_agreement_compares_it() -> None:
    ids = IdMap()
    ids.learn("Saved: k\nSession: a5e8e023", "Saved: k\nSession: 0c1d2e3f")
    assert ids({"session": "a5e8e023", "note": "deadbeef"}) == {"session": "0c1d2e3f", "note": "deadbeef"}


def test_generated_paths_take_the_servers_folder_and_given_values() -> None:
    tools: list[tuple[str, dict[str, Any]]] = [
        (
            "git_log",
            {
                "type": "object",
                "properties": {"repo_path": {"type": "string"}, "branch": {"type": "string"}},
                "required": ["repo_path", "branch"],
            },
        )
    ]
    generator = CallGenerator(tools, random.Random(3), values={"branch": "main"}, notes=["Repos live in /srv/git."])
    calls = [generator.next_call()[1] for _ in range(40)]
    assert sum(call["repo_path"] in ("{tmp}", "/srv/git") for call in calls) >= 25
    assert sum(call["branch"] == "main" for call in calls) >= 25


def _recorded(tmp_path: Path) -> Path:
    lines = [
        {"tool": "write_file", "arguments": {"path": "{tmp}/plan.txt", "content": "ship it"}},
        {"tool": "read_file", "arguments": {"path": "{tmp}/plan.txt"}},
        {"tool": "read_file", "arguments": {"path": "{tmp}/other.txt"}},
    ]
    recordings = tmp_path / "check.jsonl"
    recordings.write_text(
        "".join(
            json.dumps({"session": "s1", "seq": seq, **line, "result": {"content": []}, "is_error": False}) + "\n"
            for seq, line in enumerate(lines, start=1)
        )
    )
    return recordings


def test_recorded_sessions_replay_with_tmp_as_each_sessions_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["twin-check", FILES_SERVER, FILES_SERVER, "--sessions", "0", "--json"]
    assert main([*args, "--recordings", str(_recorded(tmp_path))]) == 0
    report = json.loads(capsys.readouterr().out)
    steps = report["sessions"][0]["steps"]
    assert [step["a"]["is_error"] for step in steps] == [False, False, True]
    assert steps[0]["a"]["value"] == "Wrote {tmp}/plan.txt"  # the folder, written back as {tmp}
    assert steps[1]["a"]["value"] == steps[1]["b"]["value"] == "ship it"
    assert (report["successes"], report["agree_on_successes"], report["reference_errors"]) == (2, 2, 1)
    assert report["tools"]["read_file"]["successes"] == 1


_DAYS_SERVER = """
import datetime, json, sys
sys.path.insert(0, {repo!r})
from tests.fixture_servers._stdio import serve, tool

LATE = int(sys.argv[1])  # days a wrong twin adds to the day it computes


def handle(name, args):
    given = datetime.date.fromisoformat(args["day"])
    if name == "echo_day":
        return json.dumps({{"day": given.isoformat()}}), False
    computed = given + datetime.timedelta(days=1 + LATE)
    return json.dumps({{"next_day": computed.isoformat()}}), False


day = {{"day": {{"type": "string"}}}}
serve("days", [tool("next_day", "The day after.", day, ["day"]), tool("echo_day", "The day.", day, ["day"])], handle)
"""


def test_twin_check_reports_a_wrong_computed_day_with_every_day_exact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = tmp_path / "days_server.py"
    server.write_text(_DAYS_SERVER.format(repo=str(REPO)))
    lines = [
        {"tool": "next_day", "arguments": {"day": "2026-12-24"}},
        {"tool": "echo_day", "arguments": {"day": "2026-12-24"}},
    ]
    recordings = tmp_path / "check.jsonl"
    recordings.write_text(
        "".join(
            json.dumps({"session": "s1", "seq": seq, **line, "result": {"content": []}, "is_error": False}) + "\n"
            for seq, line in enumerate(lines, start=1)
        )
    )
    right, wrong = f"{sys.executable} {server} 0", f"{sys.executable} {server} 3"
    args = ["twin-check", right, wrong, "--sessions", "0", "--json", "--recordings", str(recordings)]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    steps = report["sessions"][0]["steps"]
    assert (steps[0]["a"]["value"], steps[0]["b"]["value"]) == ({"next_day": "2026-12-25"}, {"next_day": "2026-12-28"})
    assert [(step["agree"], step["agree_exact_days"]) for step in steps] == [(True, False), (True, True)]
    # By form the wrong day agrees; with every day exact it does not, and the report says both.
    assert (report["agree_on_successes"], report["agree_on_successes_exact_days"], report["successes"]) == (2, 1, 2)
    assert (report["success_agreement"], report["success_agreement_exact_days"]) == (1.0, 0.5)
    next_day, echo_day = report["tools"]["next_day"], report["tools"]["echo_day"]
    assert (next_day["agree_on_successes_exact_days"], next_day["success_agreement_exact_days"]) == (0, 0.0)
    assert (echo_day["agree_on_successes_exact_days"], echo_day["success_agreement_exact_days"]) == (1, 1.0)


def test_the_table_and_benchmarks_give_the_figure_with_every_day_exact(capsys: pytest.CaptureFixture[str]) -> None:
    day, later = Answer({"next_day": "2026-12-28"}, False), Answer({"next_day": "2026-12-29"}, False)
    run = SessionRun("s", "recorded")
    run.steps = [_step("next_day", day, later), _step("next_day", day, day), _step("echo_day", day, day)]
    report = CheckReport("a", "b", 0, sessions=[run])
    report.score_fixed({"next_day": later, "echo_day": day}, "recordings")
    figures = report.figures()
    assert (figures["agree_on_successes"], figures["agree_on_successes_exact_days"]) == (3, 2)
    assert figures["tools"]["next_day"]["agree_on_successes_exact_days"] == 1
    assert figures["tools"]["next_day"]["success_agreement_exact_days"] == 0.5
    assert figures["trivial"]["fixed_answer"]["success_agreement"] == 1.0  # any day agrees by form
    assert figures["trivial"]["fixed_answer"]["success_agreement_exact_days"] == round(1 / 3, 4)
    table = report.table()
    assert "headline: 100.0% of the 3 calls the reference answered successfully agree" in table
    assert "with every day exact: 66.7% (2 of 3) of the successful calls agree" in table
    assert "33.3% with every day exact)" in table
    assert [step.to_json()["agree_exact_days"] for step in run.steps] == [False, True, True]
    print_figures("days", figures, {})
    printed = capsys.readouterr().out
    assert "days: 3/3 successful calls agree (100.0%)" in printed
    assert "with every day exact: 2/3 successful calls agree (66.7%); the fixed-answer twin 33.3%" in printed


def test_renamed_sessions_send_new_names_to_both_sides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["twin-check", FILES_SERVER, FILES_SERVER, "--sessions", "0", "--json", "--rename"]
    assert main([*args, "--recordings", str(_recorded(tmp_path))]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["renamed"]) == {"plan.txt", "ship it", "other.txt"}
    steps = report["sessions"][0]["steps"]
    new_name = report["renamed"]["plan.txt"]
    assert steps[0]["arguments"]["path"] == "{tmp}/" + new_name
    assert steps[1]["a"]["value"] == report["renamed"]["ship it"]
    assert report["agree"] == report["calls"] == 3


def test_hypothesis_sessions_aim_paths_at_the_servers_folder_and_take_given_values() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "branch": {"type": "string"}},
        "required": ["path", "branch"],
    }
    calls: list[dict[str, Any]] = []
    run_generated(
        [("git_log", schema)],
        sessions=4,
        calls=10,
        run_seed=1000,
        open_session=lambda: None,
        call=lambda handle, tool, arguments: calls.append(arguments),
        close_session=lambda handle: None,
        values={"branch": "main"},
        notes=["Repositories live under /srv/git."],
    )
    assert len(calls) >= 20
    assert sum(call["path"].startswith(("{tmp}", "/srv/git")) for call in calls) >= len(calls) / 3
    assert sum(call["branch"] == "main" for call in calls) >= len(calls) / 3


def test_a_listing_in_no_learnable_order_agrees_as_a_set_and_is_counted_apart() -> None:
    real = Answer({"todos": [{"id": 2, "t": "b"}, {"id": 1, "t": "a"}]}, False)
    twin = Answer({"todos": [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}]}, False)
    assert _compared(real, twin, None) == (compare_answers(real, twin), False)
    verdict, as_a_set = _compared(real, twin, ["/todos"])
    assert verdict.agree
    assert as_a_set
    other = Answer({"todos": [{"id": 1, "t": "a"}, {"id": 3, "t": "c"}]}, False)
    assert not _compared(real, other, ["/todos"])[0].agree
    run = SessionRun("s", "generated", [Step("list_todos", {}, real, twin, verdict, as_a_set=as_a_set)])
    assert CheckReport("a", "b", 0, sessions=[run]).figures()["tools"]["list_todos"]["agree_as_a_set"] == 1


def test_a_twin_served_once_gives_each_checked_session_a_world_of_its_own(tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    (folder / "spec.yaml").write_text(yaml.safe_dump(SHELF))
    (folder / "recordings.jsonl").write_text("".join(json.dumps(line) + "\n" for line in shelf_recordings()))
    assert main(["compile", str(folder / "spec.yaml"), "--from", str(folder)]) == 1  # weather is left
    plan = CheckPlan(read_calls(folder / "recordings.jsonl").calls, sessions=0, shrink_kinds=0)
    with serving(parse_target(str(folder))) as twin:
        runs = [anyio.run(run_check, twin, twin, plan) for _ in range(2)]
    # The second run's sessions have the names of the first's: on a server at a URL they must not meet its
    # worlds (a book added twice would be "already there").
    assert [step.a.value for run in runs[1].sessions for step in run.steps] == [
        step.a.value for run in runs[0].sessions for step in run.steps
    ]


@pytest.mark.parametrize("text", ["Infinity", "-Infinity", "NaN", '{"result": NaN}'])
def test_a_text_python_alone_reads_as_json_stays_text(text: str) -> None:
    # A calculator's "Infinity" (9 / 0) is text, not a JSON number: read as Python's float it would reach
    # the twin's Starlark, whose JSON has no such value, and stop compile.
    from sim_mcp.state.compare import answer_value

    assert answer_value({"content": [{"type": "text", "text": text}]}) == text
    assert answer_value({"content": [{"type": "text", "text": "[1, 2.5]"}]}) == [1, 2.5]
