"""JSON Lines files (one JSON value a line): read with each line's place, appended one flushed line at a time.

Cassettes (`--record FILE`), the recordings of `sim-mcp record` and the calls `compile --from` replays are
all such files; what a line means, and what a bad one costs, is for each reader to say.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from sim_mcp.errors import ConfigError

__all__ = ["JsonLine", "JsonLinesWriter", "json_lines"]


@dataclass(frozen=True, slots=True)
class JsonLine:
    """A non-blank line of a JSON Lines file: its number, its place (`file:line`), and its value or why not."""

    number: int
    where: str
    value: Any  # None when the line is not JSON
    error: ValueError | None


def json_lines(lines: Sequence[str], source: Path | str) -> Iterator[JsonLine]:
    """The lines of `source`, as its caller split them, read as JSON; blank lines are passed over."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value, error = json.loads(line), None
        except ValueError as e:  # also an integer too long to convert, not only a JSONDecodeError
            value, error = None, e
        yield JsonLine(number, f"{source}:{number}", value, error)


class JsonLinesWriter:
    """Appends JSON values to a file, one line each, flushed at once (its folder is created).

    The file stays open and each line goes to the OS in one write: lines of sessions answered at once never
    interleave, and a process that is killed loses no line it wrote. A write to the page cache does not
    wait on the disk (a thread hop and an open per line cost 0.6 ms of server CPU per call at 1,024
    sessions, a fifth of an LLM-backed call). `failure` begins the `ConfigError` of a file that cannot
    be written, e.g. `--record out.jsonl: cannot write it`."""

    def __init__(self, path: Path, *, failure: str) -> None:
        self.path = path
        self.failure = failure
        self._file: TextIO | None = None

    def open(self) -> None:
        """Open the file for appending, if it is not open yet; `ConfigError` if it cannot be."""
        if self._file is not None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"{self.failure}: {e.strerror or e}") from e

    def write(self, value: Any) -> None:
        line = json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
        self.open()
        assert self._file is not None
        self._file.write(line)
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
