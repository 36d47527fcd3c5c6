"""Exact arithmetic (`exact.py`): the exact dialect of the expression evaluator against Python's own `fractions`
and `decimal`, and twins learned from recordings of an exact calculator (fractions, decimals at a precision an
argument gives, two expressions compared, a decimal's fraction, refusals that come as successes)."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.library import LIBRARY
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules import CallContext, Limits, run_tool, tool_program
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec

PROBE = """
def probe(state, args):
    out = []
    for case in args["cases"]:
        found = twin_expr(case["expression"], args["config"], case)
        if found != None and "value" in found:
            found = {"text": twin_expr_text(found["value"], "exact"), "kind": found["kind"]}
        out.append(found)
    return out
"""


def config(halves: str = "away") -> dict[str, Any]:
    return {
        "dialect": "exact",
        "caret": None,
        "unknown": [],
        "precision": {"arg": "precision", "default": 50},
        "halves": halves,
    }


def evaluate(cases: list[dict[str, Any]], halves: str = "away") -> list[dict[str, Any] | None]:
    program = tool_program(LIBRARY + PROBE, "probe", "<probe>")
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="probe")
    found: list[dict[str, Any] | None] = run_tool(
        program,
        "probe",
        {},
        {"cases": cases, "config": config(halves)},
        context,
        Limits(max_steps=10**10, timeout_s=120),
    ).result
    return found


# --- the reference: Python's fractions, then its decimals at the precision, as an exact calculator computes ---


_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


class _Irrational(Exception):
    pass


class _Refused(Exception):
    pass


_PI = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214"


def _reference(text: str, precision: int) -> str:
    tree = ast.parse(text, mode="eval")
    try:
        value = _Evaluator(text, "fraction").visit(tree.body)
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    except _Irrational:
        with localcontext() as context:
            context.prec = precision
            return format(_Evaluator(text, "decimal").visit(tree.body), "f")


class _Evaluator(ast.NodeVisitor):
    def __init__(self, text: str, domain: str) -> None:
        self.text, self.domain = text, domain

    def visit_Constant(self, node: ast.Constant) -> Any:
        literal = ast.get_source_segment(self.text, node) or ""
        return Fraction(Decimal(literal)) if self.domain == "fraction" else Decimal(literal)

    def visit_Name(self, node: ast.Name) -> Any:
        if self.domain == "fraction":
            raise _Irrational
        return Decimal(_PI)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        return -self.visit(node.operand)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow) and self.domain == "decimal" and (right != int(right) or right < 0):
            raise _Refused
        if self.domain == "decimal" and isinstance(node.op, ast.FloorDiv | ast.Mod):
            raise _Refused
        if right == 0 and isinstance(node.op, ast.Div | ast.FloorDiv | ast.Mod):
            raise ZeroDivisionError
        return _OPERATORS[type(node.op)](left, right)

    def visit_Call(self, node: ast.Call) -> Any:
        assert isinstance(node.func, ast.Name)
        name, values = node.func.id, [self.visit(argument) for argument in node.args]
        x = values[0]
        if name in ("ln", "exp", "log10"):
            if self.domain == "fraction":
                raise _Irrational
            return getattr(x, name)()
        if name == "sqrt":
            if self.domain == "decimal":
                return x.sqrt()
            root = Fraction(math.isqrt(x.numerator), math.isqrt(x.denominator))
            if root * root != x:
                raise _Irrational
            return root
        if name == "round":
            places = int(values[1]) if len(values) > 1 else 0
            if self.domain == "decimal":
                return x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
            scaled = x * Fraction(10) ** places
            whole = math.floor(abs(scaled) + Fraction(1, 2))
            return Fraction(whole if scaled >= 0 else -whole) / Fraction(10) ** places
        if name == "abs":
            return abs(x)  # (a decimal's rounded to the precision, as `abs` rounds it)
        return min(values) if name == "min" else max(values)


def expressions() -> st.SearchStrategy[str]:
    number = st.one_of(
        st.integers(0, 10**6).map(str),
        st.decimals(0, 10**3, places=3, allow_nan=False, allow_infinity=False).map(str),
        st.sampled_from(["0.1", "0.125", "2.5", "pi", "1e-3", "12.50"]),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), inner)
        called = st.tuples(st.sampled_from(["sqrt", "ln", "exp", "log10", "abs", "round", "min", "max"]), inner, inner)
        return (
            binary.filter(lambda t: t[1] != "**" or (t[2].isdigit() and int(t[2]) < 20)).map(" ".join)
            | inner.map(lambda text: f"-({text})")
            | inner.map(lambda text: f"({text})")
            | called.map(lambda t: f"{t[0]}({t[1]}, {t[2]})" if t[0] in ("min", "max") else f"{t[0]}({t[1]})")
        )

    return st.recursive(number, extend, max_leaves=5)


def _expected(text: str, precision: int) -> str | None:
    try:
        return _reference(text, precision)
    except (_Refused, OverflowError, ValueError, ArithmeticError):
        return None  # what the twin may decline, or fail on


@settings(max_examples=300, deadline=None)
@given(st.lists(expressions(), min_size=1, max_size=20), st.sampled_from([10, 28, 50]))
def test_exact_expressions_agree_with_python_s_fractions_and_decimals(texts: list[str], precision: int) -> None:
    found = evaluate([{"expression": text, "precision": precision} for text in texts])
    for text, got in zip(texts, found, strict=True):
        expected = _expected(text, precision)
        if got is None or "text" not in got:
            # Declined (a power that is no fraction, `//` of decimals, too near a tie) or failed (ln of a
            # number not above zero, a division by zero): never a wrong number.
            continue
        assert expected is not None, (text, precision, got)
        assert got["text"] == expected, (text, precision, got, expected)


def test_exact_values_are_written_as_fractions_and_as_decimals_at_the_precision() -> None:
    cases = [
        ("0.1 + 0.2", 50, "3/10", "fraction"),
        ("(-11/4) * 1.5", 50, "-33/8", "fraction"),
        ("(679/8) + 0.125", 50, "85", "fraction"),
        ("sqrt(2.25)", 50, "3/2", "fraction"),
        ("round(2.5) + round(-2.5)", 50, "0", "fraction"),
        ("25 * pi", 20, "78.539816339744830962", "decimal:constant:pi"),
        ("exp(1)", 50, "2.7182818284590452353602874713526624977572470937000", "decimal:function:exp"),
        ("log(0.5, 2)", 50, "-1", "decimal:function:log"),
        ("ln(0.125)", 10, "-2.079441542", "decimal:function:ln"),
        ("log10(1000)", 50, "3", "decimal:function:log10"),
        ("sqrt(3)", 10, "1.732050808", "decimal:function:sqrt"),
        ("1 / 3 + sqrt(2)", 20, "1.7475468957064283821", "decimal:function:sqrt"),
    ]
    found = evaluate([{"expression": text, "precision": precision} for text, precision, _, _ in cases])
    for (text, _, written, kind), got in zip(cases, found, strict=True):
        assert got == {"text": written, "kind": kind}, text
    # Its failures, each with its reason and the function that failed.
    failed = evaluate([{"expression": text} for text in ("3 / 0", "sqrt(-2)", "ln(0)", "log(8, 1)", "factorial(-1)")])
    assert [f and f.get("error") for f in failed] == [
        "zero:/:exact",
        "domain:sqrt",
        "domain:ln",
        "domain:log:base",
        "negative",
    ]
    # A half rounded as the configuration says.
    assert evaluate([{"expression": "round(2.5)"}], halves="even") == [{"text": "2", "kind": "fraction"}]
    # A bare constant is declined: how many digits a server keeps of it is its own.
    assert evaluate([{"expression": "pi"}, {"expression": "pi - pi"}]) == [None, None]
    # A number past the digits the twin keeps is declined, never a crash of the evaluator.
    assert evaluate([{"expression": "factorial(1500) + 1"}, {"expression": "floor(1e3999) * 10"}]) == [None, None]


# --- a twin learned from an exact calculator's recordings --------------------------------------------------------

CALCULATE = ToolSpec(
    name="calculate",
    input_schema={
        "type": "object",
        "properties": {"expression": {"type": "string"}, "precision": {"type": "integer", "default": 50}},
        "required": ["expression"],
    },
)
COMPARE = ToolSpec(
    name="compare",
    input_schema={
        "type": "object",
        "properties": {"left": {"type": "string"}, "right": {"type": "string"}},
        "required": ["left", "right"],
    },
)
FRACTION = ToolSpec(
    name="fraction_of",
    input_schema={"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]},
)


def _why(text: str) -> tuple[str, str]:
    for name in ("sqrt", "ln", "exp", "pi"):
        if name in text:
            return (
                "decimal",
                f"{name} is irrational: computed in decimals" if name == "pi" else f"{name}() needs decimals",
            )
    return ("fraction", "")


def calculator(text: str, precision: int | None) -> dict[str, Any]:
    """An exact calculator's answer: a success always, with an `error` field where it refuses."""
    if "sin" in text:
        return {"error": "unknown function: sin", "expression": text}
    try:
        value = _reference(text, precision or 50)
    except ZeroDivisionError:
        return {"error": "division by zero", "expression": text}
    domain, note = _why(text)
    return {"expression": text, "value": value, "domain": domain, "note": note}


def comparer(left: str, right: str) -> dict[str, Any]:
    for text in (left, right):  # evaluated in order: the first that fails says why
        if "sin" in text:
            return {"error": "unknown function: sin"}
        try:
            _reference(text, 50)
        except ZeroDivisionError:
            return {"error": "division by zero"}
    a, b = (
        Fraction(Decimal(v)) if "/" not in v else Fraction(v) for v in (_reference(left, 50), _reference(right, 50))
    )
    sign = "==" if a == b else "!="
    return {"equal": a == b, "detail": f"{_reference(left, 50)} {sign} {_reference(right, 50)}"}


def call(number: int, tool: str, arguments: dict[str, Any], value: dict[str, Any]) -> RecordedCall:
    result = {"content": [{"type": "text", "text": str(value)}], "structuredContent": value, "isError": False}
    return RecordedCall(f"s{number}", 1, tool, arguments, result, False)


TEXTS = [
    ("0.1 + 0.2", None), ("(1/5) + 100", 30), ("12.5 * 2.25", None), ("7 // 3", 10), ("2 / 100", None),
    ("0.5 - 2.25", None), ("abs(2.25 - 0.1)", None), ("3 / 0", None),
    ("sqrt(3)", None), ("sqrt(2)", 20), ("25 * pi", 20), ("0.1 * pi", None), ("ln(3.75)", None), ("exp(1)", 10),
    ("exp(2)", None), ("ln(2)", 30), ("sin(0.5)", None), ("sin(1.5)", 10), ("4 / 0", 20), ("sqrt(3.5)", 30),
    ("2 * pi", None), ("max(7, 25) - min(7, 25)", None),
]  # fmt: skip
PAIRS = [
    ("0.1 + 0.2", "0.3"), ("1/3", "0.333"), ("2.25 * 2", "4.5"), ("7 / 8", "0.875"), ("1.5 * 3", "4"),
    ("0.2 % 3", "1/5"), ("12 - 0.5", "11.5"), ("100 / 8", "12"), ("2.5", "sin(1)"), ("3 / 0", "1"),
    ("0.5", "sin(2)"), ("1 / 0", "2"),
]  # fmt: skip
NUMBERS = ["0.375", "-2.5", "0.1", "12", "3.14159", "0.0625", "7.5", "1e-3"]


def test_an_exact_calculator_is_learned_fractions_decimals_comparisons_and_refusals() -> None:
    sessions = [
        [call(n, "calculate", {"expression": text} | ({"precision": p} if p else {}), calculator(text, p))]
        for n, (text, p) in enumerate(TEXTS)
    ]
    sessions += [
        [call(100 + n, "compare", {"left": left, "right": right}, comparer(left, right))]
        for n, (left, right) in enumerate(PAIRS)
    ]
    sessions += [
        [call(200 + n, "fraction_of", {"number": text}, {"fraction": _reference(text, 50)})]
        for n, text in enumerate(NUMBERS)
    ]
    sessions += [
        [call(300 + n, "fraction_of", {"number": text}, {"error": f"not a decimal: {text}"})]
        for n, text in enumerate(["1/3", "abc"])
    ]
    inference = infer_guards([CALCULATE, COMPARE, FRACTION], sessions, ["calculate", "compare", "fraction_of"])

    def answer(tool: str, arguments: dict[str, Any]) -> Any:
        return run_guard(inference.plans[tool], tool, {}, arguments)

    # Expressions never recorded: fractions, and decimals at the precision the call gives (50 where none).
    for text, precision in [("0.3 - 0.05", None), ("(2/3) * 1.5", 10), ("sqrt(5)", 12), ("3 * pi", None),
                            ("ln(10)", 25), ("1 / 7", None), ("sin(2)", None), ("1.5 / 0", None)]:  # fmt: skip
        arguments = {"expression": text} | ({"precision": precision} if precision else {})
        assert answer("calculate", arguments) == (calculator(text, precision), False), text
    # Two expressions compared exactly, and a decimal's fraction.
    # Of several expressions, the first that fails says why: a name unknown on the left too, a zero on the right.
    pairs = [("0.7 + 0.1", "0.8"), ("1/8", "0.125"), ("2/3", "0.6667"), ("5 * 0.5", "2"), ("sin(3)", "1 / 0")]
    for left, right in [*pairs, ("2", "7 / 0")]:
        assert answer("compare", {"left": left, "right": right}) == (comparer(left, right), False), (left, right)
    for text in ("0.875", "-0.04", "250", "2.5e-2"):
        assert answer("fraction_of", {"number": text}) == ({"fraction": _reference(text, 50)}, False), text
    # A fraction given where a decimal is asked for is no decimal: refused as recorded, never computed.
    assert answer("fraction_of", {"number": "2/7"}) in (None, ({"error": "not a decimal: 2/7"}, False))


def test_one_given_argument_s_name_is_no_list_of_the_arguments_given() -> None:
    # "expression rejected: ..." names the one argument given: read as a list of the names given, a call that
    # also gives `precision` would be "expression, precision rejected".
    texts = ["1 +", "2 *", "(3", "4 -"]
    sessions = [
        [call(n, "calculate", {"expression": text}, {"verdict": "expression rejected: invalid syntax"})]
        for n, text in enumerate(texts)
    ]
    inference = infer_guards([CALCULATE], sessions, ["calculate"])
    plan = inference.plans["calculate"]
    assert run_guard(plan, "calculate", {}, {"expression": "5 /"}) == (
        {"verdict": "expression rejected: invalid syntax"},
        False,
    )
    # With `precision` given (never recorded): the same text, or handed on; never a list of the two names.
    found = run_guard(plan, "calculate", {}, {"expression": "5 /", "precision": 10})
    assert found in (None, ({"verdict": "expression rejected: invalid syntax"}, False)), found


def test_a_half_is_rounded_as_the_tool_s_description_says_where_no_recorded_half_tells() -> None:
    texts = ["round(1.234, 2)", "round(7.77, 1)", "round(12.4)", "round(0.5 * 3.1, 1)", "1 / 8 + 1"]
    for described, expected in [("Rounds half away from zero.", "3"), ("Evaluates an expression.", "2")]:
        tool = CALCULATE.model_copy(update={"description": described})
        sessions = [
            [call(n, "calculate", {"expression": text}, {"value": _reference(text, 50)})]
            for n, text in enumerate(texts)
        ]
        inference = infer_guards([tool], sessions, ["calculate"])
        found = run_guard(inference.plans["calculate"], "calculate", {}, {"expression": "round(5 / 2)"})
        assert found == ({"value": expected}, False), described


def test_how_a_server_rounds_is_read_from_any_of_its_tools_descriptions() -> None:
    # The server documents its rounding once, on another tool: the tools share one evaluator.
    texts = ["round(1.234, 2)", "round(7.77, 1)", "round(12.4)", "1 / 8 + 1"]
    plain = CALCULATE.model_copy(update={"description": "Same computation, with a verdict."})
    documented = CALCULATE.model_copy(update={"name": "compute", "description": "Rounds half away from zero."})
    sessions = [
        [call(n, "calculate", {"expression": text}, {"value": _reference(text, 50)})] for n, text in enumerate(texts)
    ]
    sessions += [[call(99, "compute", {"expression": "1 / 8 + 1"}, {"value": "9/8"})]]
    inference = infer_guards([plain, documented], sessions, ["calculate", "compute"])
    found = run_guard(inference.plans["calculate"], "calculate", {}, {"expression": "round(5 / 2)"})
    assert found == ({"value": "3"}, False)
    # A tool whose recordings never round, rounds so too.
    found = run_guard(inference.plans["compute"], "compute", {}, {"expression": "round(5 / 2)"})
    assert found == ({"value": "3"}, False)
