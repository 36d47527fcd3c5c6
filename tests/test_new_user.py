"""A new user's first day with their own spec: no made-up success from the offline engine, tools it cannot
act on named by `check` and `serve`, and error messages that say what to do."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from sim_mcp.config import Settings
from sim_mcp.engine.schema_data import generate
from sim_mcp.runtime import Runtime
from sim_mcp.specs.formats import read_spec_file
from tests.servers import CORPUS, CORPUS_MISSING, REPO, corpus_missing, running_server

UNSEEN = REPO / "tests" / "unseen"
GREENHOUSE = UNSEEN / "greenhouse.yaml"
# The tools of each unseen spec whose description says they change something (the rest say they read).
CHANGING = {
    "greenhouse.yaml": {"water_bed", "sow_seeds", "harvest", "vent_roof"},
    "loans.yaml": {"borrow_book", "return_book"},
}


def run_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim_mcp.cli", *args], capture_output=True, text=True, cwd=cwd, check=False
    )


async def made_up_successes(spec: Path, **settings: Any) -> tuple[list[str], list[str]]:
    """Each tool of `spec` called once with arguments drawn from its schema: the tools that said they change
    something and answered a success that left the state as it was, and the reading tools that answered."""
    environment = read_spec_file(spec)
    made_up: list[str] = []
    reads: list[str] = []
    async with Runtime(Settings(specs=[spec], **settings)) as runtime:
        for tool in environment.tools:
            answer = await runtime.simulator.call(tool.name, tool.name, generate(tool.input_schema, tool.name))
            assert answer.event is not None
            changing = tool.name in CHANGING[spec.name]
            if changing and not answer.is_error and not answer.event.state_patch:
                made_up.append(tool.name)
            if not changing and not answer.is_error:
                reads.append(tool.name)
    return made_up, reads


@pytest.mark.parametrize(
    ("spec", "reading"),
    [(GREENHOUSE, ["bed_report", "beds_overview"]), (UNSEEN / "loans.yaml", ["search_books", "list_loans"])],
    ids=["greenhouse", "loans"],
)
async def test_an_unseen_domain_gets_no_made_up_success_from_the_offline_engine(spec: Path, reading: list[str]) -> None:
    made_up, reads = await made_up_successes(spec)
    assert made_up == []
    assert reads == reading  # reads keep their generated or listed data
    # What the engine did before, and still does when asked to: a success for every changing tool.
    before, _ = await made_up_successes(spec, offline_unknown="generate")
    assert sorted(before) == sorted(CHANGING[spec.name])


async def test_the_honest_error_names_the_tool_and_both_ways_forward() -> None:
    async with Runtime(Settings(specs=[GREENHOUSE])) as runtime:
        world = await runtime.simulator.call("s", "beds_overview", {})
        answer = await runtime.simulator.call("s", "sow_seeds", {"bed_id": "BED-1", "crop": "tomato"})
        after = await runtime.simulator.call("s", "beds_overview", {})
    assert answer.is_error
    assert answer.result["error"] == "not_simulated"
    message = answer.result["message"]
    assert message.startswith("sow_seeds: the offline simulator cannot tell what this tool does")
    assert f"sim-mcp rules init {GREENHOUSE}" in message
    assert "greenhouse.rules.star" in message
    assert "--backend openai or anthropic" in message
    assert after.result == world.result  # nothing changed


async def test_with_a_rules_file_the_error_points_at_it(tmp_path: Path) -> None:
    shutil.copy(GREENHOUSE, tmp_path)
    (tmp_path / "greenhouse.rules.star").write_text("def harvest(state, args):\n    return {}\n")
    async with Runtime(Settings(specs=[tmp_path])) as runtime:
        answer = await runtime.simulator.call("s", "water_bed", {"bed_id": "BED-1", "litres": 5})
    assert answer.is_error
    rules = tmp_path / "greenhouse.rules.star"
    assert f"its function in {rules} is missing or fails the spec's examples: fix it" in answer.result["message"]


def test_check_names_the_tools_the_offline_engine_cannot_act_on() -> None:
    result = run_cli("check", str(GREENHOUSE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        f"note  {GREENHOUSE}: the offline backend cannot act on 4 of 6 tools (water_bed, sow_seeds, harvest, "
        f"vent_roof): it answers them with an error; give them a rules program (sim-mcp rules init {GREENHOUSE})"
    ) in result.stdout


def test_check_names_none_for_the_bundled_environments() -> None:
    result = run_cli("check", "tool_specs")
    assert "cannot act on" not in result.stdout


def test_serve_names_them_and_readyz_lists_a_broken_rules_program(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(GREENHOUSE, specs)
    (specs / "greenhouse.rules.star").write_text("def harvest(state, args)\n    return {}\n")
    with running_server(tmp_path, specs=specs) as server:
        ready = httpx.get(f"{server.url}/readyz").json()
        banner = server.log.read_text()
    assert ready["status"] == "ready"
    (problem,) = ready["spec_errors"]
    assert problem.startswith(f"{specs / 'greenhouse.rules.star'}: line 1: Parse error")
    assert "the offline backend cannot act on 4 of 6 tools (water_bed, sow_seeds, harvest, vent_roof)" in banner


def test_checks_summary_agrees_with_its_exit_status_when_a_rules_program_is_broken(tmp_path: Path) -> None:
    shutil.copy(GREENHOUSE, tmp_path)
    (tmp_path / "greenhouse.rules.star").write_text("def harvest(state, args)\n    return {}\n")
    result = run_cli("check", str(tmp_path))
    assert result.returncode == 1
    assert "1 of 2 files valid" in result.stdout
    (tmp_path / "greenhouse.rules.star").write_text("def harvest(state, args):\n    return {}\n")
    result = run_cli("check", str(tmp_path))
    assert result.returncode == 0, result.stdout
    assert "2 of 2 files valid" in result.stdout


# --- messages that say what to do --------------------------------------------------------------------------


def test_an_unknown_field_says_which_was_meant_and_shows_its_value_cut_at_a_word(tmp_path: Path) -> None:
    spec = tmp_path / "notes.yaml"
    spec.write_text(
        "name: notes\ntools:\n  - name: create_note\n"
        "    input_shema: {type: object, properties: {title: {type: string}, body: {type: string}}}\n"
        "    annotations: {readOnlyHnt: true}\n"
    )
    out = run_cli("check", str(spec)).stdout
    lines = sorted(line for line in out.splitlines() if line.startswith("error"))
    assert lines == [
        f"error {spec}: tools[0].annotations.readOnlyHnt: unknown field, did you mean readOnlyHint? (got True)",
        f"error {spec}: tools[0].input_shema: unknown field, did you mean input_schema? (got {{'type': 'object', "
        "'properties': {'title': {'type': 'string'}, 'body': {'type': …)",
    ]


def test_a_spec_without_tools_says_so(tmp_path: Path) -> None:
    spec = tmp_path / "loans.yaml"
    spec.write_text("name: loans\ndescription: Loans.\ninstructions: At most 3 loans.\ntool:\n  - name: lend\n")
    out = run_cli("check", str(spec)).stdout
    assert f"error {spec}: missing tools: a native spec lists its tools under tools" in out
    assert "did you mean tools, not tool?" in out
    assert "unrecognised" not in out


def test_compile_help_names_the_model_free_paths() -> None:
    out = run_cli("compile", "--help").stdout
    assert "--from" in out
    assert "model-free" in out
    assert "rules init" in out


def test_the_corpus_skip_names_every_place_looked(tmp_path: Path) -> None:
    repo = tmp_path / "a" / "clone"
    reason = corpus_missing(repo, {})
    for folder in (repo, repo.parent, tmp_path):
        assert str(folder / "shared" / "specs-corpus") in reason
    assert "SIM_MCP_CORPUS" in reason
    assert CORPUS_MISSING.startswith("the shared specs corpus is not in any place looked (no spec files in")


# --- docs --------------------------------------------------------------------------------------------------

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("path", DOCS, ids=[path.name for path in DOCS])
def test_no_doc_points_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert re.findall(r"\.\./shared|/work/", text) == []
    for target in re.findall(r"\]\((?!https?:|#)([^)#]+)", text):
        assert (path.parent / target).resolve().is_relative_to(REPO), target
        assert (path.parent / target).exists(), target


def test_formats_doc_names_a_captured_server_memory_as_capture_does() -> None:
    text = (REPO / "docs" / "formats.md").read_text(encoding="utf-8")
    assert "calls itself `memory-server`, so that is the name" in text
    assert "modelcontextprotocol_server-memory" not in text
    captured = CORPUS / "mcp-tools-list" / "server-memory.json"
    if not captured.is_file():
        pytest.skip(CORPUS_MISSING)
    assert json.loads(captured.read_text())["server_info"]["name"] == "memory-server"
