"""Loading spec folders: good files are served, broken ones are reported precisely and skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sim_mcp.cli import main
from sim_mcp.errors import SpecErrors
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.model import Environment
from sim_mcp.specs.registry import load_catalog
from tests.servers import BUNDLED_SPECS, REPO

GOOD = """
name: notes
description: Personal notes.
initial_state: {notes: {}}
tools:
  - name: create_note
    input_schema: {type: object, properties: {text: {type: string}}, required: [text]}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def only_error(folder: Path) -> str:
    catalog = load_catalog(folder)
    assert len(catalog.errors) == 1, catalog.errors
    return str(catalog.errors[0])


def test_bundled_specs_load_without_errors() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    assert catalog.errors == ()
    assert len(catalog.environments) >= 3
    for environment in catalog.environments.values():
        assert len(environment.tools) >= 5, environment.name
        assert environment.initial_state, environment.name


def test_good_file_is_served_beside_a_broken_one(tmp_path: Path) -> None:
    write(tmp_path, "notes.yaml", GOOD)
    broken = write(tmp_path, "broken.yaml", "name: x\ntools: [\n")
    catalog = load_catalog(tmp_path)
    assert list(catalog.environments) == ["notes"]
    assert catalog.tool("create_note") is not None
    (error,) = catalog.errors
    assert str(error).startswith(f"{broken}: line ")
    assert "invalid YAML" in str(error)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: x\ntools:\n  - description: no name\n", "tools[0].name: is required"),
        (
            "name: x\ntools:\n  - name: t\n    input_schema: [1, 2]\n",
            "tools[0].input_schema: Input should be a valid dictionary",
        ),
        (
            "name: x\ntools:\n  - name: t\n    input_schema: {type: string}\n",
            'tools[0].input_schema.type: expected "type": "object"',
        ),
        (
            "name: x\ntools:\n  - name: t\n    input_schema: {type: object, properties: {a: {type: 12}}}\n",
            "tools[0].input_schema: not a valid JSON Schema",
        ),
        (
            "name: x\ntools:\n  - name: t\n    output_schema: {type: object, required: yes}\n",
            "tools[0].output_schema: not a valid JSON Schema",
        ),
        ("name: x\ntools:\n  - name: t\n    inputSchema: {}\n    colour: red\n", "tools[0].colour: unknown field"),
        ("name: 'has spaces'\ntools: []\n", "name: String should match pattern"),
        ("name: x\ntools:\n  - name: t\n  - name: t\n", "tools[1].name: tool 't' is defined twice in this file"),
        ("- just\n- a list\n", "unrecognised spec format"),
        ("", "the file is empty"),
    ],
)
def test_broken_files_are_reported_with_place_and_reason(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "env.yaml", text)
    message = only_error(tmp_path)
    assert message.startswith(str(path))
    assert expected in message


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    write(tmp_path, "env.json", '{"name": "x",\n "tools": [}')
    assert "env.json: line 2, column" in only_error(tmp_path)


def test_a_tool_name_in_two_environments_is_namespaced_on_the_shared_endpoint(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", GOOD)
    second = write(tmp_path, "b.yaml", GOOD.replace("name: notes", "name: journal"))
    catalog = load_catalog(tmp_path)
    assert catalog.errors == ()
    assert sorted(catalog.tools) == ["journal__create_note", "notes__create_note"]
    notes_tool = catalog.tool("notes__create_note")
    assert notes_tool is not None
    assert notes_tool.environment.name == "notes"
    assert catalog.tool("create_note") is None
    assert catalog.tool("create_note", "journal") is catalog.tool("journal__create_note")
    assert catalog.shared_tool_names() == {"create_note": [str(first), str(second)]}


def test_an_environment_name_in_two_files_names_both(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", GOOD)
    second = write(tmp_path, "b.yaml", GOOD)
    message = only_error(tmp_path)
    assert message.startswith(f"{second}: name: environment 'notes' is already defined in {first}")


def test_a_broken_edit_keeps_the_last_good_version_served(tmp_path: Path) -> None:
    path = write(tmp_path, "notes.yaml", GOOD)
    good = load_catalog(tmp_path)
    path.write_text(GOOD + "  - name: [broken\n")
    reloaded = load_catalog(tmp_path, previous=good)
    assert reloaded.environments == good.environments
    (error,) = reloaded.errors
    assert str(error).startswith(str(path))
    path.unlink()
    assert load_catalog(tmp_path, previous=reloaded).environments == {}


def test_missing_folder_is_an_error(tmp_path: Path) -> None:
    assert "no such file or folder" in only_error(tmp_path / "absent")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim_mcp.cli", *args], cwd=REPO, capture_output=True, text=True, timeout=60
    )


def test_check_command_accepts_the_bundled_specs() -> None:
    result = run_cli("check", str(BUNDLED_SPECS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "environment 'tickets'" in result.stdout
    assert "0 of" not in result.stdout


def test_check_command_rejects_a_broken_file(tmp_path: Path) -> None:
    write(tmp_path, "good.yaml", GOOD)
    broken = write(tmp_path, "bad.yaml", "name: x\ntools:\n  - name: t\n    input_schema: {type: string}\n")
    result = run_cli("check", str(tmp_path))
    assert result.returncode == 1
    assert f"error {broken}: tools[0].input_schema.type" in result.stdout
    assert "1 of 2 files valid" in result.stdout


EVERY_PROBLEM = """\
name: several
tools:
  - name: one
    input_schema: {type: objekt}
  - name: two
    input_schema: []
  - description: no name
    input_schema: {type: object}
"""


def test_check_reports_every_problem_of_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = write(tmp_path, "several.yaml", EVERY_PROBLEM)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"error {broken}: tools[1].input_schema: Input should be a valid dictionary" in out
    assert f"error {broken}: tools[2].name: is required" in out
    assert f"error {broken}: tools[0].input_schema: not a valid JSON Schema" in out  # found beside the others
    assert "0 of 1 files valid" in out
    # Also when the model accepts the file and only its schemas are wrong; and as one exception, which
    # reads as its first problem and says how many more there are.
    both = write(
        tmp_path,
        "both.yaml",
        "name: both\ntools:\n  - {name: a, input_schema: {type: string}}\n"
        "  - {name: a, input_schema: {type: object}}\n",
    )
    catalog = load_catalog(both)
    assert [(error.place, error.path) for error in catalog.errors] == [
        ("tools[0].input_schema.type", str(both)),
        ("tools[1].name", str(both)),
    ]
    with pytest.raises(SpecErrors) as raised:
        read_spec_file(both)
    assert "(and 1 more problem in this file)" in str(raised.value)
    assert len(raised.value.problems) == 2


OPENAI_PROBLEMS = """\
[{"type": "function", "function": {"name": "one", "parameters": {"type": "objekt"}}},
 {"type": "function", "function": {"name": "two", "parameters": {"type": "object"}}},
 {"type": "function", "function": {"name": "two", "parameters": {"type": "object"}}},
 {"type": "function", "function": {"name": "bad name!", "parameters": {"type": "object"}}}]
"""


def test_check_reports_every_problem_of_a_file_in_another_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A foreign format's file (here OpenAI's tool list) lists every tool's problem at its place in that
    file, not only the first, as a native file does."""
    broken = write(tmp_path, "tools.json", OPENAI_PROBLEMS)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"error {broken}: [0].function.parameters: not a valid JSON Schema" in out
    assert f"error {broken}: [2].function.name: tool 'two' is defined twice in this file (first at [1])" in out
    assert f"error {broken}: [3].function.name: String should match pattern" in out
    assert out.count("error ") == 3
    assert "0 of 1 files valid" in out


def test_call_command_answers_in_process() -> None:
    result = run_cli("call", "get_ticket", "--args", '{"ticket_id": "T-1001"}', "--specs", str(BUNDLED_SPECS))
    assert result.returncode == 0, result.stderr
    assert '"id": "T-1001"' in result.stdout
    bad = run_cli("call", "get_ticket", "--args", "[1]", "--specs", str(BUNDLED_SPECS))
    assert bad.returncode == 2
    assert "--args: expected a JSON object" in bad.stderr


def test_a_copy_with_other_fields_derives_its_own_version_and_clock() -> None:
    original = Environment(name="dated", initial_state={"notes": {"n1": {"at": "2020-01-01T00:00:00Z"}}})
    assert original.latest_stamp is not None
    assert original.latest_stamp.year == 2020
    version = original.version  # both cached on the original before it is copied
    later = original.model_copy(update={"initial_state": {"notes": {"n1": {"at": "2030-01-01T00:00:00Z"}}}})
    assert later.latest_stamp is not None
    assert later.latest_stamp.year == 2030
    assert later.version != version
    assert original.model_copy().version == version
