"""Twins of a work log whose listings are text: one block of several lines per entry, newest first, numbered
by place, stamped with the server's clock, a line per field the entry holds; filtered by a tag or by a text
in any field (`tests/fixture_servers/work_log.py`)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import GuardInference, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers.work_log import TOOLS, WorkLog

SPECS = [ToolSpec(name=tool.name, input_schema=tool.input_schema) for tool in TOOLS]
_LISTINGS = ("list_entries", "search_entries", "load_context")
_FILES = ["api/login.py", "db/schema.sql", "docs/guide.md", "ui/search.tsx"]


def _session(words: list[str], seed: str) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls: list[tuple[str, dict[str, Any]]] = []
    made = 0
    for _ in range(12):
        roll = rng.random()
        if roll < 0.45 or not made:
            args: dict[str, Any] = {"task": f"{rng.choice(words).capitalize()} the {rng.choice(words)} step"}
            for name, chance in (("files", 0.5), ("tags", 0.6)):
                if rng.random() < chance:
                    args[name] = rng.sample(_FILES if name == "files" else words, rng.choice([1, 2]))
            for name, chance in (("decision", 0.4), ("notes", 0.4)):
                if rng.random() < chance:
                    args[name] = f"{rng.choice(words)} first, then {rng.choice(words)}"
            calls.append(("save_entry", args))
            made += 1
        elif roll < 0.52:
            calls.append(("delete_entry", {"entry_id": rng.randint(1, made + 1)}))
        elif roll < 0.67:
            calls.append(("list_entries", {}))
        elif roll < 0.8:
            calls.append(("list_entries", {"tag": rng.choice(words)}))
        elif roll < 0.92:
            calls.append(("search_entries", {"query": rng.choice(words)}))
        else:
            calls.append(("load_context", {}))
    return calls


def _recorded(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    server = WorkLog()
    recorded = []
    for seq, (tool, arguments) in enumerate(calls, 1):
        text, is_error = server.call(tool, arguments)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, is_error))
    return recorded


def _learned() -> GuardInference:
    words = ["draft", "invites", "garden", "taxes", "work", "review", "phone", "errands"]
    sessions = [_recorded(n, _session(words, f"train-{n}")) for n in range(12)]
    return infer_guards(SPECS, sessions, [tool.name for tool in TOOLS])


def test_listings_of_blocks_with_optional_lines_newest_first_filtered_by_a_tag_or_a_text_in_any_field() -> None:
    inference = _learned()
    assert set(_LISTINGS) <= set(inference.plans)
    listed = json.dumps(inference.plans["list_entries"])
    # Each field's line shown only where the entry holds it; the clock compared by its form.
    assert '["when", "files"' in listed
    assert '["made_up", "date"' in listed
    # Sessions never recorded, with words the recordings never showed: every listing is the server's.
    words = ["amber", "pine", "stone", "cloud", "kite", "river", "maple"]
    shown = 0
    for n in range(3):
        server, state = WorkLog(), dict[str, Any]()
        script = [*_session(words, f"check-{n}"), ("list_entries", {}), ("load_context", {})]
        script += [("list_entries", {"tag": word}) for word in words[:3]]
        script += [("search_entries", {"query": word}) for word in words[3:5]]
        for tool, arguments in script:
            text, is_error = server.call(tool, arguments)
            answer = run_guard(inference.plans[tool], tool, state, arguments)
            assert answer is not None, (tool, arguments)
            verdict = compare_answers(Answer(text, is_error), Answer(*answer))
            assert verdict.agree, (tool, arguments, verdict, answer, text)
            shown += tool in _LISTINGS and len(re.findall(r"^\[\d+\] #", text, re.MULTILINE)) > 1
    assert shown >= 3
