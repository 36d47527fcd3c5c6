"""A catalogue of many environments: YAML read as PyYAML reads it, each distinct schema and rules program checked
once, a reload that re-reads only what changed, rules problems still reported (by `check`, on first use, in
`/readyz`), and the environments paged through over HTTP."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from mcp import Client

from sim_mcp.config import Settings
from sim_mcp.rules import RulesChecks
from sim_mcp.runtime import Runtime
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.parsing import load_yaml
from sim_mcp.specs.registry import SpecCache, load_catalog
from sim_mcp.specs.schema import SchemaChecks, schema_problem
from tests.helpers_server import app_server
from tests.servers import BUNDLED_SPECS, CORPUS


def copies(folder: Path, count: int, base: str = "tickets") -> list[str]:
    """`count` renamed copies of a bundled environment (and its rules program) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (BUNDLED_SPECS / f"{base}.yaml").read_text()
    names = []
    for index in range(count):
        name = f"{base}_{index:03d}"
        (folder / f"{name}.yaml").write_text(re.sub(r"^name: .*$", f"name: {name}", text, count=1, flags=re.M))
        shutil.copy(BUNDLED_SPECS / f"{base}.rules.star", folder / f"{name}.rules.star")
        names.append(name)
    return names


def outcome(read: Any, text: str) -> str:
    try:
        return repr(read(text))
    except yaml.YAMLError as e:
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize(
    "text",
    [
        "a: 012\nb: 0x1F\nc: 1_000\nd: -0\ne: +5\nf: 1.5\ng: .inf\nh: 2025-03-14\ni: 2025-03-14T10:00:00Z\n",
        "j: yes\nk: Off\nl: ~\nm: null\nn: ''\no: 190:20:30\np: '12'\nq: \"true\"\nt: !!str 5\nu: !!int '7'\n",
        "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n",  # a merge key
        "- &x {a: 1}\n- *x\n",  # an alias: the same object twice
        "a: &a [1, *a]\n",  # a recursive alias
        "a: !!set {x, y}\nb: !!binary aGVsbG8=\n",
        "{a: 1, a: 2}\n",
        "",
        "# a comment only\n",
        "? [1, 2]\n: x\n",  # an unhashable key
        "a: !custom x\n",  # a tag no constructor knows
        "a: b: c\n",  # not YAML
        "a: 1\n---\nb: 2\n",  # two documents
        "a: \"\\u00e9\"\nb: 'x''y'\n",
    ],
)
def test_yaml_is_read_as_pyyaml_reads_it(text: str) -> None:
    assert outcome(load_yaml, text) == outcome(yaml.safe_load, text)


def test_every_bundled_and_corpus_yaml_file_reads_the_same() -> None:
    files = [*BUNDLED_SPECS.rglob("*.yaml"), *CORPUS.rglob("*.yaml")]
    assert files
    for path in files:
        text = path.read_text()
        assert outcome(load_yaml, text) == outcome(yaml.safe_load, text), path


def test_each_distinct_schema_is_checked_once_and_problems_keep_their_wording() -> None:
    checks = SchemaChecks()
    catalog = load_catalog(BUNDLED_SPECS)
    schemas = [tool.spec.input_schema for tool in catalog.tools.values()]
    for schema in [*schemas, *schemas]:
        assert checks.problem(schema) is None
    assert len(checks) == len({repr(schema) for schema in schemas})
    broken = {"type": "object", "properties": {"a": {"type": "strnig"}}}
    expected = schema_problem(broken)  # no cache: jsonschema's own verdict
    assert expected is not None
    assert expected.startswith("not a valid JSON Schema: ")
    assert expected.endswith("(at properties.a.type)")
    assert checks.problem(broken) == expected
    assert checks.problem(dict(broken)) == expected  # the cached verdict, by content
    assert checks.problem([]) == "expected a JSON Schema object, got an array"


def test_tools_with_the_same_schema_share_one_validator(tmp_path: Path) -> None:
    copies(tmp_path, 3)
    catalog = load_catalog(tmp_path)
    validators = {id(tool.input_validator) for tool in catalog.tools.values() if tool.name == "get_ticket"}
    assert len(validators) == 1
    tool = catalog.tool("get_ticket", "tickets_001")
    assert tool is not None
    assert tool.input_validator.is_valid({"ticket_id": "T-1001"})
    assert not tool.input_validator.is_valid({"ticket_id": 7})


def test_a_reload_reads_again_only_what_changed(tmp_path: Path) -> None:
    names = copies(tmp_path, 4)
    cache = SpecCache()
    first = load_catalog(tmp_path, cache=cache)
    assert cache.parsed == 4
    again = load_catalog(tmp_path, previous=first, cache=cache)
    assert cache.parsed == 0
    assert all(again.environments[name] is first.environments[name] for name in names)

    spec = tmp_path / f"{names[1]}.yaml"
    document = yaml.safe_load(spec.read_text())
    spec.write_text(yaml.safe_dump({**document, "description": "Changed."}, sort_keys=False))
    (tmp_path / f"{names[2]}.rules.star").write_text("# no functions\n")
    third = load_catalog(tmp_path, previous=again, cache=cache)
    assert cache.parsed == 2
    assert third.environments[names[0]] is first.environments[names[0]]
    assert third.environments[names[1]].description == "Changed."
    assert third.environments[names[2]].rules == "# no functions\n"

    spec.write_text("name: [broken\n")
    fourth = load_catalog(tmp_path, previous=third, cache=cache)
    assert fourth.environments[names[1]] is third.environments[names[1]]  # the last good version stays
    assert [error.path for error in fourth.errors] == [str(spec)]
    assert str(load_catalog(tmp_path).errors[0]) == str(fourth.errors[0])  # worded as without a cache


def test_a_cached_load_is_the_load_without_a_cache() -> None:
    cached = load_catalog(BUNDLED_SPECS, cache=SpecCache())
    plain = load_catalog(BUNDLED_SPECS)
    assert cached.environments == plain.environments
    for path in BUNDLED_SPECS.glob("*.yaml"):
        assert read_spec_file(path, checks=SchemaChecks()) == read_spec_file(path)


def test_a_program_is_checked_once_per_content(tmp_path: Path) -> None:
    copies(tmp_path, 3)
    catalog = load_catalog(tmp_path)
    checks = RulesChecks()
    verdicts = [checks.verdict(environment) for environment in catalog.environments.values()]
    assert len(checks) == 1
    assert all(verdict.answered == verdicts[0].answered and not verdict.errors for verdict in verdicts)
    assert verdicts[0].answered["get_ticket"] > 0  # the line of its def


def broken_rules(folder: Path) -> Path:
    """Copies of tickets, one of whose rules programs fails an example."""
    copies(folder, 3)
    rules = folder / "tickets_001.rules.star"
    rules.write_text(rules.read_text().replace('next_id(state["tickets"], "T-")', 'next_id(state["tickets"], "X-")'))
    return rules


def test_check_reports_a_broken_program_among_copies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sim_mcp.cli import main

    rules = broken_rules(tmp_path)
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("error ")]
    assert errors
    assert all(line.startswith(f"error {rules}: ") for line in errors)
    assert "is defined in" in out
    assert "and 0 more files" not in out


async def test_programs_are_checked_after_start_and_their_problems_reported(tmp_path: Path) -> None:
    rules = broken_rules(tmp_path)
    runtime = Runtime(Settings(specs=[tmp_path]))
    assert runtime.rules_status() == (0, [])  # nothing compiled before serving
    await runtime.check_rules_in_background()
    checked, errors = runtime.rules_status()
    assert checked == 3
    assert errors
    assert all(error.path == str(rules) for error in errors)
    (tmp_path / "tickets_001.rules.star").write_text((BUNDLED_SPECS / "tickets.rules.star").read_text())
    runtime.reload()
    assert runtime.rules_status() == (3, [])


def test_the_banner_checks_no_program_of_an_environment_whose_tools_the_engine_reads(tmp_path: Path) -> None:
    from sim_mcp.cli.serve import cannot_act_lines

    copies(tmp_path, 3)
    runtime = Runtime(Settings(specs=[tmp_path]))
    assert cannot_act_lines(runtime, log=False) == []
    assert len(runtime.rules_checks) == 0  # compiled when first used or in the background, not before serving


def test_readyz_names_rules_problems_and_a_call_uses_a_program_checked_on_first_use(tmp_path: Path) -> None:
    rules = broken_rules(tmp_path)
    with app_server(specs=[tmp_path]) as base:
        ready: dict[str, Any] = {}
        for _ in range(200):
            ready = httpx.get(f"{base}/readyz").json()
            if ready["rules_checked"] == 3:
                break
        assert ready["status"] == "ready"
        assert ready["rules_checked"] == 3
        assert ready["rules_errors"]
        assert all(error.startswith(f"{rules}: ") for error in ready["rules_errors"])


def test_environments_page_through_the_catalogue_over_http(tmp_path: Path) -> None:
    names = copies(tmp_path, 5)
    with app_server(specs=[tmp_path]) as base:
        seen: list[str] = []
        cursor = None
        for _ in range(5):
            params = {"limit": "2", **({"cursor": cursor} if cursor else {})}
            page = httpx.get(f"{base}/environments", params=params).json()
            assert page["count"] == 5
            seen += [environment["name"] for environment in page["environments"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == names
        first = httpx.get(f"{base}/environments").json()["environments"][0]
        assert first == {
            "name": names[0],
            "description": first["description"],
            "tools": 8,
            "rules": True,
            "source": str(tmp_path / f"{names[0]}.yaml"),
            "mcp_path": f"/mcp/{names[0]}",
        }
        for bad in ("0", "1001", "x"):
            refused = httpx.get(f"{base}/environments", params={"limit": bad})
            assert refused.status_code == 422
            assert refused.json()["field"] == "limit"
        one = httpx.get(f"{base}/environments/{names[3]}").json()
        assert [tool["name"] for tool in one["tools"]][:2] == ["create_ticket", "get_ticket"]
        assert one["tools"][1]["input_schema"]["required"] == ["ticket_id"]
        assert httpx.get(f"{base}/environments/nowhere").status_code == 404


async def test_each_environment_is_served_on_its_own_path(tmp_path: Path) -> None:
    names = copies(tmp_path, 60)
    with app_server(specs=[tmp_path]) as base:
        async with Client(f"{base}/mcp/{names[42]}?session=one") as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
        async with httpx.AsyncClient() as http:
            unknown = await http.post(f"{base}/mcp/nowhere", json={})
    assert "get_ticket" in tools
    assert not any("__" in name for name in tools)
    assert not result.is_error
    assert unknown.status_code == 404
    body = unknown.json()
    assert body["expected"] == names[:50]
    assert body["more"].startswith("10 more: GET /environments")


def test_a_folders_files_share_the_strings_they_repeat(tmp_path: Path) -> None:
    copies(tmp_path, 2)
    catalog = load_catalog(tmp_path)
    first, second = (catalog.environments[name] for name in ("tickets_000", "tickets_001"))
    assert first.instructions == second.instructions
    assert first.instructions is second.instructions
    key = next(iter(first.initial_state))
    assert key is next(iter(second.initial_state))
