"""Twin inference over a money calculator: each number of a text report is a formula of the call's numbers
(with constants fitted from the examples, the numbers before it as terms, an annuity, a cap and a threshold),
written as money or a percent in the format the answers show, learned from recorded calls and computed by the
twin's own Starlark; a report whose numbers no formula explains is handed on."""

from __future__ import annotations

from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers import money_reports
from tests.twin_learning import assert_guard_agrees

TOOLS = [
    ToolSpec(name=t.name, description=t.description or "", input_schema=t.input_schema) for t in money_reports.TOOLS
]
NAMES = [tool.name for tool in TOOLS]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("format_amount", {"amount": 48407}),
    ("format_amount", {"amount": 99.95, "places": 2}),
    ("format_amount", {"amount": 1234567.891, "places": 3}),
    ("format_amount", {"amount": -4500.5}),
    ("format_amount", {"amount": 120000, "places": 0}),
    ("margin_report", {"price": 1200, "cost": 360}),
    ("margin_report", {"price": 85000, "cost": 46750.5}),
    ("margin_report", {"price": 40, "cost": 16.25}),
    ("loan_report", {"amount": 200000, "rate_pct": 7.0, "years": 15}),
    ("loan_report", {"amount": 10000, "rate_pct": 3.5, "years": 30}),
    ("loan_report", {"amount": 350000, "rate_pct": 6.25, "years": 20}),
    ("wage_report", {"wage": 60000}),
    ("wage_report", {"wage": 120000}),
    ("wage_report", {"wage": 210000}),
    ("wage_report", {"wage": 300000}),
    ("wage_report", {"wage": 45000.5}),
    ("change_report", {"before": 1200, "after": 1500.0}),
    ("change_report", {"before": 85000, "after": 93500.5}),
    ("change_report", {"before": 250000, "after": 200000.0}),
    ("change_report", {"before": 40.5, "after": 30}),
    ("change_report", {"before": -5, "after": 30}),
    ("change_report", {"before": 0, "after": 12.5}),
    ("schedule_report", {"amount": 1200, "years": 3}),
    ("schedule_report", {"amount": 85000.5, "years": 3}),
    ("schedule_report", {"amount": 45, "years": 3}),
    ("schedule_report", {"amount": 120000, "years": 4}),
    ("schedule_report", {"amount": 999.99, "years": 4}),
    ("schedule_report", {"amount": 31000, "years": 4}),
    ("wave_report", {"time": 1.0}),
    ("wave_report", {"time": 2.5}),
    ("wave_report", {"time": 4.0}),
]


def recorded(session: int, seq: int, tool: str, arguments: dict[str, Any]) -> RecordedCall:
    text, error = money_reports.answer(tool, arguments)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return RecordedCall(f"s{session}", seq, tool, arguments, result, error)


def plans() -> dict[str, Any]:
    sessions = [
        [recorded(number, seq, tool, arguments) for seq, (tool, arguments) in enumerate(CALLS[number::3], start=1)]
        for number in range(3)
    ]
    return infer_guards(TOOLS, sessions, NAMES).plans


def agrees(learned: dict[str, Any], tool: str, arguments: dict[str, Any]) -> None:
    text, error = money_reports.answer(tool, arguments)
    assert not error
    assert_guard_agrees(learned, tool, {}, arguments, text)


def test_reports_never_recorded_are_computed_by_the_learned_formulas_and_formats() -> None:
    learned = plans()
    # Money with its thousands grouped, as many decimals as asked (two where not asked), a sign before it.
    cases: list[dict[str, Any]] = [{"amount": 7654321.5}, {"amount": 0.125, "places": 4}, {"amount": -12, "places": 1}]
    for arguments in cases:
        agrees(learned, "format_amount", arguments)
    # A difference, and two ratios of it written as percents.
    for arguments in [{"price": 999.99, "cost": 123.45}, {"price": 3, "cost": 2.5}]:
        agrees(learned, "margin_report", arguments)
    # The annuity payment at a rate per month fitted from the examples, its total over the months the report
    # showed, and the interest, each from the numbers before it.
    cases = [{"amount": 425000, "rate_pct": 5.125, "years": 25}, {"amount": 1500, "rate_pct": 12, "years": 1}]
    for arguments in cases:
        agrees(learned, "loan_report", arguments)
    # A rate below a cap, one on all, a surcharge above a threshold, and what is left of the wage.
    cases = [{"wage": 75000.25}, {"wage": 180000}, {"wage": 1250000}]
    for arguments in cases:
        agrees(learned, "wage_report", arguments)


def test_a_comparison_of_the_numbers_chooses_the_word_and_the_error() -> None:
    learned = plans()
    for arguments in [{"before": 900, "after": 1000.25}, {"before": 77.5, "after": 12}]:
        agrees(learned, "change_report", arguments)
    error = run_guard(learned["change_report"], "change_report", {}, {"before": -3.5, "after": 8})
    assert error == ("Error: before must be positive.", True)


def test_a_schedule_is_learned_per_number_of_lines_with_its_numbers_right_aligned() -> None:
    learned = plans()
    # Each line's number from the one before it, padded to the column the answers right-align it to; the
    # count of lines chosen by the years asked, as recorded; a count never recorded is handed on.
    cases: list[dict[str, Any]] = [
        {"amount": 6000000, "years": 3},
        {"amount": 7.5, "years": 4},
        {"amount": 2025, "years": 3},
    ]
    for arguments in cases:
        agrees(learned, "schedule_report", arguments)
    assert run_guard(learned["schedule_report"], "schedule_report", {}, {"amount": 100, "years": 5}) is None


def test_a_report_no_formula_explains_is_handed_on() -> None:
    learned = plans()
    # No plan at all, or one that writes nothing for a time never recorded: the call goes to the next answerer.
    plan = learned.get("wave_report")
    assert plan is None or run_guard(plan, "wave_report", {}, {"time": 3.0}) is None
