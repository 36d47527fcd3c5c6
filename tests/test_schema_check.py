"""Value checks: jsonschema_rs answers the values that fit, Python's jsonschema has the last word."""

from __future__ import annotations

from typing import Any

import pytest

from sim_mcp.specs.schema import compile_schema, value_problem

TICKET: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "priority": {"enum": ["low", "high"]},
        "owner": {"type": "string", "format": "email"},
        "due": {"type": "string", "format": "date"},
        "opened": {"type": "string", "format": "date-time"},
    },
    "required": ["title"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"title": "Printer"}, None),
        (
            {"title": "Printer", "priority": "urgent"},
            "arguments.priority: expected one of ['low', 'high'], got 'urgent'",
        ),
        ({}, "arguments: 'title' is required"),
        ({"title": "x", "extra": 1}, "arguments: Additional properties are not allowed ('extra' was unexpected)"),
        ({"title": 3}, "arguments.title: expected string, got an integer"),
    ],
)
def test_a_value_is_refused_with_the_path_and_what_was_expected(value: dict[str, Any], problem: str | None) -> None:
    assert value_problem(value, compile_schema(TICKET), "arguments") == problem


def test_formats_are_read_as_pythons_jsonschema_reads_them() -> None:
    checked = compile_schema(TICKET)
    # Python's checkers: an email needs an @, a date must exist.
    assert value_problem({"title": "x", "owner": "nobody"}, checked, "arguments") == (
        "arguments.owner: 'nobody' is not a 'email'"
    )
    assert not checked.is_valid({"title": "x", "due": "2026-02-30"})
    assert checked.is_valid({"title": "x", "owner": "a@b", "due": "2026-02-28"})
    # jsonschema_rs alone would refuse this date-time; Python's jsonschema checks none without an extra
    # package, and its verdict stands, so the server refuses exactly what it refused before the fast path.
    assert checked.is_valid({"title": "x", "opened": "yesterday"})
    assert value_problem({"title": "x", "opened": "yesterday"}, checked) is None


def test_a_schema_jsonschema_rs_cannot_build_is_checked_by_python_alone() -> None:
    # `\Z` and `{,3}` are Python regex syntax that jsonschema_rs's regex engine does not read.
    checked = compile_schema({"type": "string", "pattern": r"^a{,3}\Z"})
    assert checked.is_valid("aaa")
    assert value_problem("aaaa", checked, "code") == "code: 'aaaa' does not match '^a{,3}\\\\Z'"
