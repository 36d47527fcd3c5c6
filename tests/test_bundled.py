"""The bundled environments: served when no spec path is given and the current folder has no tool_specs/;
a server that loads no environment does not start (one line, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim_mcp.cli import main
from sim_mcp.config import Settings
from sim_mcp.specs.bundled import bundled_specs
from sim_mcp.specs.registry import load_catalog
from tests.servers import BUNDLED_SPECS


def test_without_a_local_folder_the_bundled_examples_are_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIM_MCP_SPECS", raising=False)
    (specs,) = Settings.load().specs
    assert specs == bundled_specs() == BUNDLED_SPECS  # a checkout: the repository's own tool_specs/
    assert set(load_catalog(specs).environments) == {"bank", "calendar", "shop", "tickets"}


def test_a_local_tool_specs_folder_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tool_specs").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIM_MCP_SPECS", raising=False)
    assert Settings.load().specs == [Path("tool_specs")]


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_serving_no_environment_is_an_error_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], transport: str
) -> None:
    broken = tmp_path / "specs"
    broken.mkdir()
    (broken / "broken.yaml").write_text("name: broken\ntools: 3\n")
    code = main(["serve", "--transport", transport, "--specs", str(broken), "--port", "0", "--log-level", "ERROR"])
    assert code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"sim-mcp: error: --specs / SIM_MCP_SPECS: no environment loaded from {broken}: ")
    assert "broken.yaml" in line  # names the file that failed
    assert "sim-mcp check" in line
