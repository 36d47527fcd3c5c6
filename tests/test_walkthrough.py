"""docs/walkthrough.md, run as written: its files, its commands (and the output it shows for them), its two
filled-in functions and its episode script, so that the page cannot drift from what sim-mcp does. Then the
filled-in program kept beside this test (`tests/walkthrough/library.rules.star`, what a user has after
step 3) is held to every rule of the spec's instructions."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim_mcp.config import Settings
from sim_mcp.runtime import Runtime
from tests.servers import REPO, ServerProcess, free_port, serve_command

DOC = REPO / "docs" / "walkthrough.md"
KEPT = REPO / "tests" / "walkthrough" / "library.rules.star"
# A fenced block: its language, what follows the language on the fence line, and its text.
_BLOCK = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```\n", re.S | re.M)


@dataclass
class Walkthrough:
    files: dict[str, str] = field(default_factory=dict)  # ```yaml file=NAME
    fills: list[str] = field(default_factory=list)  # ```python fill=library.rules.star
    commands: list[tuple[str, str | None]] = field(default_factory=list)  # ```bash, then the output shown
    script: str = ""  # ```python run


def walkthrough() -> Walkthrough:
    found = Walkthrough()
    blocks = [(m.group(1), m.group(2).strip(), m.group(3)) for m in _BLOCK.finditer(DOC.read_text(encoding="utf-8"))]
    for index, (language, info, text) in enumerate(blocks):
        if info.startswith("file="):
            found.files[info.removeprefix("file=")] = text
        elif info.startswith("fill="):
            found.fills.append(text)
        elif language == "python" and info == "run":
            found.script = text
        elif language == "bash":
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            shown = following[2] if following is not None and following[0] == "" else None
            found.commands += [(line, shown) for line in text.splitlines() if line and not line.startswith("#")]
    return found


def filled(scaffold: str, fills: list[str]) -> str:
    """The scaffold with each stub replaced by the function of the same name from `fills`, as a user edits it."""
    for function in fills:
        name = re.match(r"def (\w+)\(", function)
        assert name is not None, function
        start = scaffold.index(f"def {name.group(1)}(")
        end = scaffold.find("\n\n\ndef ", start)
        end = len(scaffold) if end < 0 else end
        tail = "\n" if end == len(scaffold) else ""
        scaffold = scaffold[:start] + function.rstrip("\n") + tail + scaffold[end:]
    return scaffold


def run_cli(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[0] == "sim-mcp", command
    return subprocess.run(
        [sys.executable, "-m", "sim_mcp.cli", *words[1:]], capture_output=True, text=True, cwd=cwd, check=False
    )


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    page = walkthrough()
    assert set(page.files) == {"library.yaml", "tasks/lend-dune.yaml"}
    assert len(page.fills) == 2
    assert page.script
    for name, text in page.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    commands = list(page.commands)
    # 1. check: the two tools the offline engine cannot act on are named.
    command, shown = commands.pop(0)
    assert command == "sim-mcp check library.yaml"
    result = run_cli(command, tmp_path)
    assert (result.returncode, result.stdout) == (0, shown)
    # 2. rules init: the scaffold, as the page shows it.
    command, shown = commands.pop(0)
    assert command == "sim-mcp rules init library.yaml"
    result = run_cli(command, tmp_path)
    assert (result.returncode, result.stdout) == (0, shown), result.stderr
    again = run_cli(command, tmp_path)
    assert again.returncode == 2
    assert "exists: edit it, or give --force" in again.stderr
    # 3. the two functions filled in by hand: what is kept beside this test.
    program = tmp_path / "library.rules.star"
    program.write_text(filled(program.read_text(encoding="utf-8"), page.fills), encoding="utf-8")
    assert program.read_text(encoding="utf-8") == KEPT.read_text(encoding="utf-8"), (
        f"the scaffold or the page changed: if rightly, copy {program} to {KEPT}"
    )
    command, _ = commands.pop(0)
    assert command == "sim-mcp check library.yaml"
    result = run_cli(command, tmp_path)
    assert result.returncode == 0, result.stdout
    assert "cannot act on" not in result.stdout
    assert "lend_book (line" in result.stdout
    assert "its 2 examples pass" in result.stdout
    # 4. serve, and the episode script against it.
    command, _ = commands.pop(0)
    assert command == "sim-mcp serve --specs . --port 8765"
    assert commands == []
    port = free_port()
    args = shlex.split(command)[2:]
    args[args.index("8765")] = str(port)
    server = ServerProcess(
        [*serve_command(*args), "--log-level", "WARNING"], port, tmp_path / "serve.log", cwd=tmp_path
    )
    try:
        server.wait_ready()
        script = page.script.replace('"http://127.0.0.1:8765"', f'"{server.url}"')
        episode = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert episode.returncode == 0, episode.stderr
    lines = episode.stdout.splitlines()
    assert '"title": "Dune"' in lines[0]
    assert '"id": "L-2"' in lines[1]
    assert lines[2:] == ["True Book B-1 is already on loan.", "reward 1.0"]
    banner = server.log.read_text()
    assert "4 tools from 1 environments (library)" in banner
    assert "cannot act on" not in banner


# --- the rules of the instructions, held by the filled-in program ------------------------------------------


@pytest.fixture
def library(tmp_path: Path) -> Path:
    (tmp_path / "library.yaml").write_text(walkthrough().files["library.yaml"], encoding="utf-8")
    (tmp_path / "library.rules.star").write_text(KEPT.read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


async def test_every_rule_of_the_instructions_is_enforced(library: Path) -> None:
    spec = yaml.safe_load((library / "library.yaml").read_text())
    assert spec["instructions"].count("\n") == 3  # the three rules checked below, one a line
    async with Runtime(Settings(specs=[library])) as runtime:
        assert runtime.simulator.rules.errors == ()

        async def call(tool: str, **arguments: Any) -> tuple[bool, Any]:
            answer = await runtime.simulator.call("s", tool, arguments)
            assert answer.event is not None
            assert answer.event.backend == "rules"  # every tool is answered by the program, none by a guess
            return answer.is_error, answer.result

        # Only members of the library may borrow.
        assert await call("lend_book", book_id="B-1", member_id="M-9") == (True, "No member M-9.")
        # A book that is on loan cannot be lent again until it is taken back.
        assert await call("lend_book", book_id="B-5", member_id="M-1") == (True, "Book B-5 is already on loan.")
        lent = await call("lend_book", book_id="B-1", member_id="M-1")
        assert lent[0] is False
        assert await call("lend_book", book_id="B-1", member_id="M-2") == (True, "Book B-1 is already on loan.")
        # A member may have at most 3 books on loan at once.
        for book in ("B-2", "B-3"):
            assert (await call("lend_book", book_id=book, member_id="M-1"))[0] is False
        fourth = await call("lend_book", book_id="B-4", member_id="M-1")
        assert fourth == (True, "Member M-1 already has 3 books on loan.")
        # Taken back, a book can be lent again, and the member may borrow again.
        assert (await call("take_back", book_id="B-1"))[1]["taken_back_from"] == "M-1"
        assert await call("take_back", book_id="B-1") == (True, "Book B-1 is not on loan.")
        assert (await call("lend_book", book_id="B-4", member_id="M-1"))[0] is False
        assert (await call("lend_book", book_id="B-1", member_id="M-2"))[0] is False
        loans = (await call("list_loans", member_id="M-1"))[1]
        assert sorted(loan["book_id"] for loan in loans["loans"]) == ["B-2", "B-3", "B-4"]
        record = await runtime.store.get("s")
        assert record is not None
        books = record.worlds["library"]["books"]
        assert {book: books[book]["on_loan"] for book in books} == dict.fromkeys(
            ["B-1", "B-2", "B-3", "B-4", "B-5"], True
        )
