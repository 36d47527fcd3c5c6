"""Self-consistency of a session, for any spec without a reference: do reads agree with what it showed?

A read is a call whose result shows a record (`engine/consistency.py` finds them) that the session showed
before, and that no call has changed in the state since; it agrees when every field shown both times has
the same value both times. A record the state changed (by any call, shown or not) starts afresh: what it
showed before no longer binds. A simulator that shows an update without storing it is caught on the next
read: the state did not change, so the earlier showing still binds, and the stored value contradicts it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sim_mcp.engine.consistency import find_collection_at, shown_records
from sim_mcp.engine.records import locate
from sim_mcp.text import shorten

# How many disagreements a report keeps, as examples.
_KEPT = 20


@dataclass(slots=True)
class SelfConsistency:
    """Reads counted over one session's calls, fed in order with `observe`."""

    reads: int = 0
    agreeing: int = 0
    disagreements: list[str] = field(default_factory=list)
    # (collection path, id as text) -> (the stored record when last shown, as JSON; the fields shown since).
    _memory: dict[tuple[tuple[str, ...], str], tuple[str, dict[str, Any]]] = field(default_factory=dict)

    @property
    def score(self) -> float | None:
        return self.agreeing / self.reads if self.reads else None

    def observe(self, step: int, tool: str, result: Any, is_error: bool, before: Any, after: Any) -> None:
        """One call: its result, whether it failed, and the states around it."""
        for key, (snapshot, _fields) in list(self._memory.items()):
            if _stored(after, key) != snapshot:
                del self._memory[key]  # changed (or removed): what was shown of it no longer binds
        if is_error:
            return
        for shown in shown_records(result, tool, before, after):
            key = (shown.collection.path, str(shown.record_id))
            stored = _stored(after, key)
            previous = self._memory.get(key)
            if previous is not None:
                self.reads += 1
                clashes = [
                    f"{name}={shorten(repr(value), 40)} (showed {shorten(repr(previous[1][name]), 40)})"
                    for name, value in shown.fields.items()
                    if name in previous[1] and previous[1][name] != value
                ]
                if clashes:
                    if len(self.disagreements) < _KEPT:
                        label = f"{shown.collection.singular} {shown.record_id!r}"
                        self.disagreements.append(f"step {step + 1} {tool}: {label} " + ", ".join(clashes))
                else:
                    self.agreeing += 1
            shown_before = previous[1] if previous is not None else {}
            self._memory[key] = (stored, {**shown_before, **shown.fields})

    def to_json(self) -> dict[str, Any]:
        return {
            "reads": self.reads,
            "agreeing": self.agreeing,
            "score": self.score,
            "disagreements": list(self.disagreements),
        }


def _stored(state: Any, key: tuple[tuple[str, ...], str]) -> str:
    collection = find_collection_at(state, key[0])
    located = locate(collection, key[1]) if collection is not None else None
    return json.dumps(located[1] if located is not None else None, sort_keys=True, default=str)
