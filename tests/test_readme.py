"""The README's harness example runs as written, against a real server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.servers import REPO, running_server


def harness_example() -> str:
    readme = (REPO / "README.md").read_text()
    found: list[str] = re.findall(r"```python\n(.*?)```", readme, re.S)
    blocks = [code for code in found if "async def episode" in code]
    (block,) = blocks
    return block


def test_readme_harness_example(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        script = harness_example().replace('BASE = "http://127.0.0.1:8765"', f'BASE = "{server.url}"')
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([1.0] * 8)


def readme_test_command() -> str:
    """The README's test command, after the venv is made and activated: `pip install ... && python -m pytest ...`."""
    readme = (REPO / "README.md").read_text()
    lines = readme.splitlines()
    (line,) = [line for line in lines if "python -m pytest" in line and line.startswith("python3 -m venv")]
    return line.split(". .venv/bin/activate && ", 1)[1]


def test_ci_runs_the_readmes_test_command_and_it_installs_every_extra_the_tests_import() -> None:
    command = readme_test_command()
    ci = (REPO / ".ci" / "run").read_text()
    assert command in ci.splitlines(), f"{command!r} is not a line of .ci/run"
    # Every package a test imports comes with the command: the integrations' frameworks too, so that none of
    # their tests skips for a missing package; and pytest-xdist, for -n.
    assert '".[dev,integrations]"' in command
    assert " -n auto" in command
