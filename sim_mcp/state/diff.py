"""World states around one event, rebuilt from the event log, and what changed between them.

`rebuild` replays the patches of a session's events (RFC 6902, each relative to its environment's
state) from the session's initial state up to the chosen event. `changes` lists the paths that were
added, changed or removed; `diff_lines` prints the state after the event as indented JSON whose lines
are marked the same way (removed entries are kept, marked, where they were).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import jsonpatch
import jsonpointer

from sim_mcp.state.values import json_equal, pointer

ChangeKind = Literal["added", "changed", "removed"]
LineMark = Literal["same", "added", "removed", "old", "new"]

_INDENT = "  "


@dataclass(frozen=True)
class Change:
    """One path that differs: `before` is absent for an added path, `after` for a removed one."""

    path: str
    kind: ChangeKind
    before: Any = None
    after: Any = None


@dataclass(frozen=True)
class Line:
    """One printed line of the state after an event, and how it differs from the state before."""

    text: str
    mark: LineMark
    path: str


@dataclass(frozen=True)
class Rebuilt:
    """The state of one environment before and after one event (or why it could not be rebuilt)."""

    seq: int
    environment: str | None
    before: Any = None
    after: Any = None
    patch: list[Any] = field(default_factory=list)
    error: str | None = None
    last_in_environment: bool = False


def rebuild(events: Iterable[Mapping[str, Any]], seq: int, initial_of: Callable[[str], Any]) -> Rebuilt | None:
    """The states around event `seq`, replaying every earlier event's patch from `initial_of(env)`.

    Events are JSON objects (as the control API shows them); one without an environment or a patch
    (a message, an error result) changes nothing. None when no event has that `seq`.
    """
    worlds: dict[str, Any] = {}
    chosen: Rebuilt | None = None
    for event in events:
        environment = event.get("environment")
        patch = list(event.get("state_patch") or [])
        number = event.get("seq")
        if chosen is not None:
            # Past the chosen event: only whether a later one changed the same environment matters.
            if patch and environment == chosen.environment:
                return dataclasses.replace(chosen, last_in_environment=False)
            continue
        if not isinstance(environment, str):
            if number == seq:
                return Rebuilt(seq, None)
            continue
        if environment not in worlds:
            worlds[environment] = copy.deepcopy(initial_of(environment))
        before = copy.deepcopy(worlds[environment]) if number == seq else None
        if patch:
            try:
                worlds[environment] = jsonpatch.apply_patch(worlds[environment], patch, in_place=True)
            except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, ValueError) as e:
                problem = f"the state cannot be rebuilt: event {number}'s patch does not apply ({e})"
                return Rebuilt(seq, environment, patch=patch if number == seq else [], error=problem)
        if number == seq:
            chosen = Rebuilt(seq, environment, before, worlds[environment], patch, last_in_environment=True)
    return chosen


def changes(before: Any, after: Any) -> list[Change]:
    """The paths that differ between two JSON values: added, changed (a value replaced), removed."""
    found: list[Change] = []
    _changes(before, after, (), found)
    return found


def _changes(before: Any, after: Any, path: tuple[str | int, ...], found: list[Change]) -> None:
    if json_equal(before, after):
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in after:
            if key not in before:
                found.append(Change(pointer((*path, key)), "added", after=after[key]))
            else:
                _changes(before[key], after[key], (*path, key), found)
        for key in before:
            if key not in after:
                found.append(Change(pointer((*path, key)), "removed", before=before[key]))
        return
    if isinstance(before, list) and isinstance(after, list):
        for index in range(max(len(before), len(after))):
            if index >= len(before):
                found.append(Change(pointer((*path, index)), "added", after=after[index]))
            elif index >= len(after):
                found.append(Change(pointer((*path, index)), "removed", before=before[index]))
            else:
                _changes(before[index], after[index], (*path, index), found)
        return
    found.append(Change(pointer(path), "changed", before=before, after=after))


def diff_lines(before: Any, after: Any, *, max_lines: int = 5000) -> tuple[list[Line], int]:
    """The state after, printed as indented JSON, each line marked against the state before; and how
    many lines past `max_lines` were left out."""
    printer = _Printer(max_lines)
    printer.walk(before, after, 0, "", (), last=True)
    return printer.lines, printer.skipped


class _Printer:
    def __init__(self, max_lines: int) -> None:
        self.max_lines = max_lines
        self.lines: list[Line] = []
        self.skipped = 0

    def add(self, text: str, mark: LineMark, path: tuple[str | int, ...]) -> None:
        if len(self.lines) >= self.max_lines:
            self.skipped += 1
        else:
            self.lines.append(Line(text, mark, pointer(path)))

    def whole(
        self, value: Any, depth: int, prefix: str, path: tuple[str | int, ...], mark: LineMark, last: bool
    ) -> None:
        """`value` printed as is, every line with one mark."""
        rows = json.dumps(value, indent=len(_INDENT), ensure_ascii=False).split("\n")
        if len(self.lines) >= self.max_lines:
            self.skipped += len(rows)
            return
        rows[0] = prefix + rows[0]
        if not last:
            rows[-1] += ","
        for row in rows:
            self.add(_INDENT * depth + row, mark, path)

    def walk(self, before: Any, after: Any, depth: int, prefix: str, path: tuple[str | int, ...], last: bool) -> None:
        comma = "" if last else ","
        pad = _INDENT * depth
        if json_equal(before, after):
            self.whole(after, depth, prefix, path, "same", last)
        elif isinstance(before, dict) and isinstance(after, dict):
            self.add(f"{pad}{prefix}{{", "same", path)
            keys = [*after, *(key for key in before if key not in after)]
            for index, key in enumerate(keys):
                child_prefix = json.dumps(key, ensure_ascii=False) + ": "
                child_last = index == len(keys) - 1
                child = (*path, key)
                if key not in before:
                    self.whole(after[key], depth + 1, child_prefix, child, "added", child_last)
                elif key not in after:
                    self.whole(before[key], depth + 1, child_prefix, child, "removed", child_last)
                else:
                    self.walk(before[key], after[key], depth + 1, child_prefix, child, child_last)
            self.add(f"{pad}}}{comma}", "same", path)
        elif isinstance(before, list) and isinstance(after, list):
            self.add(f"{pad}{prefix}[", "same", path)
            count = max(len(before), len(after))
            for index in range(count):
                child_last = index == count - 1
                child = (*path, index)
                if index >= len(before):
                    self.whole(after[index], depth + 1, "", child, "added", child_last)
                elif index >= len(after):
                    self.whole(before[index], depth + 1, "", child, "removed", child_last)
                else:
                    self.walk(before[index], after[index], depth + 1, "", child, child_last)
            self.add(f"{pad}]{comma}", "same", path)
        else:
            self.whole(before, depth, prefix, path, "old", last)
            self.whole(after, depth, prefix, path, "new", last)
