"""The README's harness example runs as written, against a real server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.servers import REPO, running_server


def harness_example() -> str:
    readme = (REPO / "README.md").read_text()
    (block,) = [code for code in re.findall(r"```python\n(.*?)```", readme, re.S) if "async def episode" in code]
    return block


def test_readme_harness_example(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        script = harness_example().replace('BASE = "http://127.0.0.1:8765"', f'BASE = "{server.url}"')
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([1.0] * 8)
