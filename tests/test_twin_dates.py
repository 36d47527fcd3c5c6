"""Twins of a business-day calendar (`tests/fixture_servers/business_days.py`): the learner computes days
by the twin's own date arithmetic and takes the region's named days from every recorded answer that lists
them; a day the recordings never covered is handed on."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.dates import days_agree, read_calendar
from sim_mcp.authoring.twins.keyed_world import GuardInference, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers.business_days import TOOLS, BusinessDays
from tests.twin_learning import played

SPECS = [ToolSpec(name=tool.name, input_schema=tool.input_schema) for tool in TOOLS]


def _day(rng: random.Random, year: int) -> str:
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _session(seed: str, years: list[int]) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls: list[tuple[str, dict[str, Any]]] = []
    for _ in range(12):
        region = rng.choice(["XA", "XB", "xa", "xb"])
        year = rng.choice(years)
        roll = rng.random()
        flag = {"inclusive": True} if rng.random() < 0.3 else {}
        if roll < 0.2:
            calls.append(("list_holidays", {"year": year, "region": region}))
        elif roll < 0.4:
            # Now and then a day that is none (a 30th of February).
            day = _day(rng, year) if rng.random() < 0.8 else f"{year}-02-30"
            calls.append(("is_business_day", {"day": day, "region": region}))
        elif roll < 0.6:
            calls.append(("next_business_day", {"day": _day(rng, year), "region": region, **flag}))
        elif roll < 0.8:
            start = _day(rng, year)
            end = f"{year}-12-{rng.randint(1, 31):02d}"
            # Now and then a range that ends before it starts.
            first, last = sorted([start, end], reverse=rng.random() < 0.15)
            calls.append(("business_days_between", {"start": first, "end": last, "region": region, **flag}))
        else:
            calls.append(("last_business_day", {"year": year, "month": rng.randint(1, 12), "region": region}))
    return calls


def _recorded(sessions: int, years: list[int]) -> list[list[RecordedCall]]:
    server = BusinessDays()
    return [played(server.call, f"s{n}", _session(f"train-{n}", years)) for n in range(sessions)]


def _learned(years: list[int]) -> GuardInference:
    return infer_guards(SPECS, _recorded(12, years), [tool.name for tool in TOOLS])


def test_the_named_days_are_read_from_every_answer_that_lists_them() -> None:
    recorded = [call for session in _recorded(12, [2026]) for call in session]
    calendar = read_calendar([(spec, [c for c in recorded if c.tool == spec.name]) for spec in SPECS])
    # Both regions' days, under their codes as the server reads them (case ignored), from a year's listing
    # (every day) and from a range's (its weekdays only: the server lists the named days that cost one).
    assert calendar["names"]["XA"]["2026-11-23"] == "Lantern Day"
    assert calendar["names"]["XB"]["2026-12-26"] == "Gift Day"
    assert ["2026-01-01", "2026-12-31", True] in calendar["spans"]["XA"]
    assert all(
        span[0] >= "2026-01-01" and span[1] <= "2026-12-31" for spans in calendar["spans"].values() for span in spans
    )


def test_a_twin_computes_business_days_over_the_named_days_it_learned() -> None:
    inference = _learned([2026, 2027])
    server = BusinessDays()
    # Calls never recorded, on days of the years the recordings listed: answered exactly as the server does.
    script: list[tuple[str, dict[str, Any]]] = [
        ("is_business_day", {"day": "2027-11-23", "region": "xa"}),
        ("is_business_day", {"day": "2026-12-26", "region": "XB"}),
        ("is_business_day", {"day": "2027-06-09", "region": "XB"}),
        ("next_business_day", {"day": "2027-12-24", "region": "XA"}),
        ("next_business_day", {"day": "2026-08-15", "region": "xb", "inclusive": True}),
        ("business_days_between", {"start": "2027-03-01", "end": "2027-11-30", "region": "XA"}),
        ("business_days_between", {"start": "2026-04-03", "end": "2026-10-03", "region": "XB", "inclusive": True}),
        # A range up to a named day, not with it unless inclusive.
        ("business_days_between", {"start": "2026-11-02", "end": "2026-11-23", "region": "XA"}),
        ("business_days_between", {"start": "2026-11-02", "end": "2026-11-23", "region": "xa", "inclusive": True}),
        ("last_business_day", {"year": 2027, "month": 12, "region": "XB"}),
        ("last_business_day", {"year": 2026, "month": 2, "region": "XA"}),
        ("list_holidays", {"year": 2027, "region": "xb"}),
        # Refusals: a day that is none, a range that ends before it starts.
        ("is_business_day", {"day": "2027-02-29", "region": "XA"}),
        ("business_days_between", {"start": "2027-05-02", "end": "2027-04-01", "region": "XB"}),
    ]
    for tool, arguments in script:
        text, is_error = server.call(tool, arguments)
        answer = run_guard(inference.plans[tool], tool, {}, arguments)
        assert answer == (text if is_error else json.loads(text), is_error), (tool, arguments, answer, text)


def test_a_day_of_a_year_never_listed_is_handed_on() -> None:
    inference = _learned([2026, 2027])
    # 2031's named days were never recorded: the twin cannot know whether a weekday then is one.
    never: list[tuple[str, dict[str, Any]]] = [
        ("is_business_day", {"day": "2031-07-04", "region": "XA"}),
        ("next_business_day", {"day": "2031-07-03", "region": "XA"}),
        ("list_holidays", {"year": 2031, "region": "XA"}),
    ]
    for tool, arguments in never:
        assert run_guard(inference.plans[tool], tool, {}, arguments) is None, (tool, arguments)


def test_a_calendar_answer_with_a_wrong_day_does_not_agree_while_learning() -> None:
    recorded = {"from": "2027-12-24", "next": "2027-12-27", "holidays": [{"date": "2027-12-25", "name": "Midwinter"}]}
    # Any day agrees with another by form, but not here; the learner's own today stands for the server's.
    assert days_agree(recorded, recorded, "2026-01-01")
    assert not days_agree(recorded, {**recorded, "next": "2027-12-24"}, "2026-01-01")
    assert not days_agree(recorded, {**recorded, "holidays": [{"date": "2027-12-26", "name": "x"}]}, "2026-01-01")
    assert days_agree(recorded, {**recorded, "next": "2026-01-01"}, "2026-01-01")


def test_a_listing_that_shows_one_day_under_two_names_is_no_calendar() -> None:
    """Records that carry a day (to-dos by due day, searched between two days) look like named days, but a
    named day is the same in every answer: a tool whose answers show one day under two names lists records,
    and none of its listings is read as a calendar (the twin would answer with the days it memorised)."""
    spec = ToolSpec(
        name="search",
        input_schema={
            "type": "object",
            "properties": {"due_after": {"type": "string"}, "due_before": {"type": "string"}},
        },
    )
    span = {"due_after": "2027-01-01", "due_before": "2027-03-01"}
    answers = [
        [{"id": 1, "due": "2027-02-10", "text": "pay the rent"}],
        [{"id": 1, "due": "2027-02-10", "text": "call the plumber"}, {"id": 2, "due": "2027-01-05", "text": "rake"}],
    ]
    calls = [
        RecordedCall(f"s{n}", 1, "search", span, {"content": [{"type": "text", "text": json.dumps(rows)}]}, False)
        for n, rows in enumerate(answers)
    ]
    assert read_calendar([(spec, calls)]) == {"names": {}, "spans": {}}
    # One name per day: a calendar, as before.
    assert read_calendar([(spec, calls[:1])])["names"] == {"": {"2027-02-10": "pay the rent"}}
