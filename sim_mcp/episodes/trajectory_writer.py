"""`--trajectories DIR`: every session's events written as they are committed, one JSON Lines file each.

`DIR/<session>.jsonl` gets one line per committed call, in the events format of `trajectory.py`
(`{"session", **Event}`), appended and flushed before the call is answered. The file is an
append-only log of what happened: after a reset the session's events count from 1 again, and a fork's
file starts with the fork's own calls (its copied history is in the parent's file).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import anyio.to_thread

from sim_mcp.engine.hooks import Change, Commit
from sim_mcp.episodes.trajectory import event_line, to_jsonl
from sim_mcp.errors import ConfigError

__all__ = ["TrajectoryWriter"]


class TrajectoryWriter:
    """An after-commit subscriber appending each event to its session's file in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def check(self) -> None:
        """Create the folder; `ConfigError` if it cannot be."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"--trajectories {self.folder}: cannot create the folder: {e.strerror or e}") from e
        if not self.folder.is_dir():
            raise ConfigError(f"--trajectories {self.folder}: expected a folder, found a file")

    def path_of(self, session_id: str) -> Path:
        """The session's file (ids are file-name safe; anything else is %-escaped)."""
        return self.folder / f"{quote(session_id, safe='-_.:')}.jsonl"

    async def __call__(self, commit: Change) -> None:
        if not isinstance(commit, Commit):
            return
        # Hooks run under the session's lock: one writer per file at a time, lines in commit order.
        line = to_jsonl([event_line(commit.record.id, commit.event)])
        await anyio.to_thread.run_sync(_append, self.path_of(commit.record.id), line)


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as file:
        file.write(text)
        file.flush()
