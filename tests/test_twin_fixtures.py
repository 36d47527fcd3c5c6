"""Twins of the fixture servers (`tests/fixture_servers`: a key-value store, a to-do list, notes
named by a folder and a name together), built with no
model from recorded sessions and checked against the real server on sessions whose keys, values and
titles the recorded ones never showed: what was stored is read back, listings list it in the server's
order, counts count it, and a made-up id is the next one. A twin that memorised its recordings fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixture_servers.harness import check, record_and_build, successes
from tests.fixture_servers.sessions import POOLS

# Per fixture: the tools whose successes must all agree (read-back, listings, counts, the record lifecycle).
LEARNED = {
    "kv": ["set_value", "get_value", "list_keys", "delete_prefix"],
    "todo": ["add_todo", "get_todo", "rename_todo", "complete_todo", "delete_todo", "list_todos"],
    "folder": ["write_note", "read_note", "delete_note", "list_notes", "list_folders"],
}


def test_the_checked_sessions_use_names_the_recorded_ones_never_show() -> None:
    for kind in ("spaces", "names", "words"):
        assert not set(POOLS["train"][kind]) & set(POOLS["check"][kind])


@pytest.mark.parametrize("fixture", sorted(LEARNED))
def test_a_twin_learns_what_its_server_stores_lists_and_counts(fixture: str, tmp_path: Path) -> None:
    built = record_and_build(fixture, tmp_path, train=8, calls=10)
    assert {tool for tool, entry in built["tools"].items() if entry["status"] != "llm"} == set(LEARNED[fixture])
    report = check(fixture, tmp_path, sessions=4, calls=10)
    found = successes(report)
    for tool in LEARNED[fixture]:
        calls, agree = found.get(tool, (0, 0))
        assert calls > 0, f"{tool}: no successful call was checked"
        assert agree == calls, f"{tool}: {agree} of {calls} successful calls agree\n{report.table()}"
    assert report.figures()["agreement"] == 1.0, report.table()
