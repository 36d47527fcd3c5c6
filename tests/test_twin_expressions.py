"""Expressions in a string argument (`expression.py`): the twin's Starlark evaluator against Python's own
arithmetic and against node's, numbers written as each language writes them, and twins learned from
recordings of a calculator that evaluates a text, by the real learner, in the dialect the answers show."""

from __future__ import annotations

import ast
import json
import math
import operator
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.library import LIBRARY
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules import CallContext, Limits, run_tool, tool_program
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec

PYTHON: dict[str, Any] = {"dialect": "python", "caret": "power", "unknown": []}
JAVASCRIPT: dict[str, Any] = {"dialect": "javascript", "caret": None, "unknown": []}

PROBE = """
def probe(state, args):
    out = []
    for text in args["texts"]:
        found = twin_expr(text, args["config"])
        if found != None and "value" in found:
            found = {"text": twin_expr_text(found["value"], args["config"]["dialect"])}
        out.append(found)
    return out

def numbers(state, args):
    return [twin_python_text(value) for value in args["values"]]
"""


def evaluate(texts: list[str], config: dict[str, Any]) -> list[dict[str, Any] | None]:
    program = tool_program(LIBRARY + PROBE, "probe", "<probe>")
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="probe")
    limits = Limits(max_steps=10**9, timeout_s=60.0)
    found: list[dict[str, Any] | None] = run_tool(
        program, "probe", {}, {"texts": texts, "config": config}, context, limits
    ).result
    return found


def python_texts(values: list[float | int]) -> list[str]:
    program = tool_program(LIBRARY + PROBE.replace("def probe", "def unused"), "numbers", "<probe>")
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="numbers")
    found: list[str] = run_tool(program, "numbers", {}, {"values": values}, context, Limits()).result
    return found


# --- Python: the server evaluates with `ast` and the `math` module, as a calculator server does ---------------

_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_NAMES: dict[str, Any] = {"sqrt": math.sqrt, "floor": math.floor, "ceil": math.ceil, "pow": math.pow}
_NAMES |= {"factorial": math.factorial, "fabs": math.fabs, "pi": math.pi, "e": math.e, "log": math.log}
_NAMES |= {"log10": math.log10, "log2": math.log2, "exp": math.exp, "sin": math.sin, "cos": math.cos, "tan": math.tan}
_NAMES |= {"abs": abs, "round": round, "min": min, "max": max}


def python_evaluates(text: str) -> dict[str, Any]:
    """What Python makes of `text`: its value as `str` writes it, or the error's reason as the twin names it."""

    def run(node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return _NAMES[node.id]
        if isinstance(node, ast.UnaryOp):
            return -run(node.operand)
        if isinstance(node, ast.BinOp):
            left, right = run(node.left), run(node.right)
            try:
                return _OPERATORS[type(node.op)](left, right)
            except ZeroDivisionError as e:
                kind = "float" if isinstance(left, float) or isinstance(right, float) else "int"
                symbol = {ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}[type(node.op)]
                raise _Failed(f"zero:{symbol}:{kind}") from e
        if isinstance(node, ast.Call):
            function = run(node.func)
            try:
                return function(*[run(arg) for arg in node.args])
            except ValueError as e:
                raise _Failed("domain" if str(e) == "math domain error" else "negative") from e
        raise AssertionError(ast.dump(node))

    try:
        value = run(ast.parse(text, mode="eval").body)
    except _Failed as e:
        return {"error": e.args[0]}
    except OverflowError:
        return {"overflow": True}
    if isinstance(value, complex):
        return {"complex": True}
    return {"text": str(value)}


class _Failed(Exception):
    pass


def expressions(functions: list[str], operators: list[str]) -> st.SearchStrategy[str]:
    """Texts of arithmetic: numbers (ints, decimals, exponents), operators, unary minus, parentheses, calls."""
    number = st.one_of(
        st.integers(0, 10**6).map(str),
        st.integers(0, 20).map(str),
        st.decimals(0, 10**4, places=3, allow_nan=False, allow_infinity=False).map(str),
        st.floats(1e-300, 1e300).map(repr),
        st.sampled_from(["pi", "e", "0", "0.0", "1e-5", "2.5e3"]),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.tuples(inner, st.sampled_from(operators), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
        # (`--x` is JavaScript's decrement: a minus before a minus is written `-(-x)`.)
        unary = inner.map(lambda text: f"-({text})" if text.startswith("-") else f"-{text}")
        grouped = inner.map(lambda text: f"({text})")
        called = st.tuples(st.sampled_from(functions), inner, inner).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})" if t[0] in ("pow", "min", "max") else f"{t[0]}({t[1]})"
        )
        return binary | unary | grouped | called

    return st.recursive(number, extend, max_leaves=6)


PYTHON_SAMPLES = [
    "5 + 4", "100 / 25", "7 / 2", "2 * 3", "2 ** 0.5", "10 ** 16 * 1.0", "1e-5", "8 // 2", "2.25 // 2",
    "-7.5 // 2", "7.5 % -2", "-7 % 3", "-2 ** 2", "2 ** -1", "2 ** 100", "16 ^ 2", "(5 + 4) * 16",
    "-0.0 // 1", "0.0 % -1", "-0.0 % 1",
    "sqrt(3.75 * 100)", "sqrt(-7)", "floor(12 / 100)", "ceil(-0.5)", "round(2.5)", "round(-3.5)", "pow(42, 2)",
    "pow(0, -1)", "factorial(20)", "factorial(-1)", "min(3, 2.5)", "max(-1, -1.0)", "abs(-12)", "16 * pi",
    "9 / 0", "8 % 0", "5.0 % 0", "3 // 0.0", "0 ** -2", "1 / 3", "0.1 + 0.2", "1e16 + 1", "123456789 * 987654321",
    "2 ** 1023 * 2.0", "1.5 ** 3000", "10 ** 400 / 10 ** 399", "-0.0 * 1", "log(8)", "log(1.5)", "log(100, 10)",
    "log10(1000)", "log2(8)", "exp(1)", "exp(-1)", "exp(710)", "sin(4)", "cos(3)", "tan(1)", "sin(pi)", "cos(pi / 2)",
    "sin(1e-10)", "tan(100000)", "log(0)", "log(-1)", "exp(700)", "log(10 ** 400)",
]  # fmt: skip


def check_python(texts: list[str]) -> None:
    found = evaluate(texts, PYTHON)
    for text, got in zip(texts, found, strict=True):
        expected = python_evaluates(text.replace("^", "**"))
        if got is None:
            # Declined, never guessed: a complex number, an overflow left to no template.
            assert "complex" in expected or "overflow" in expected or _declinable(text), (text, expected)
            continue
        if "overflow" in expected:
            assert got == {"error": "overflow"} or got.get("error") == "range", (text, got)
            continue
        assert got == expected, text


def _declinable(text: str) -> bool:
    # A power that is no whole and no square root, a tiny result below the smallest double, huge ints.
    # Sines of a number past 2^30, an exponential below the least normal double.
    return any(word in text for word in ("**", "^", "pow", "factorial", "sin", "cos", "tan", "exp"))


def test_python_arithmetic_is_computed_and_written_as_python_does() -> None:
    check_python(PYTHON_SAMPLES)


def test_a_literal_past_a_doubles_range_is_read_as_python_reads_it() -> None:
    # Starlark's float() refuses it; an id of digits and one `e` (`258e3058-...`) is read as such a literal.
    check_python(["1.7e308 * 1", "17976931348623157e292", "1e-500 + 1", "0.0e999", "0.05e309 * 1"])
    # Past it, Python's inf: written as Python writes it, or declined (never an error of the learner's own).
    for found in evaluate(["258e3058 - 1", "1.8e308", "0.05e311"], PYTHON):
        assert found in (None, {"text": "inf"}), found


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        expressions(
            ["sqrt", "floor", "ceil", "pow", "abs", "round", "min", "max", "log", "exp", "sin", "cos", "tan"],
            ["+", "-", "*", "/", "//", "%"],
        ),
        min_size=1,
        max_size=20,
    )
)
# A zero's sign through a function, as hypothesis found once (`sin(-0.0)` is -0.0).
@example(["sin(-0.0)", "-sin(-0.0)", "tan(-0.0)", "-tan(0)", "cos(-0.0)", "sqrt(-0.0)", "fabs(-0.0)", "pow(-0.0, 3)"])
# inf and nan (`1e300 * 1e300`, its difference with itself) through operators and functions.
@example(["1e300 * 1e300 + 1", "-5 % (1e300 * 1e300)", "-5 // (1e300 * 1e300)", "(1e300 * 1e300) % 2", "-5 / 0.0"])
@example(["sqrt(1e300 * 1e300)", "log(1e300 * 1e300, 10)", "exp(-(1e300 * 1e300))", "sin(1e300 * 1e300)"])
@example(["max(0, 1e300 * 1e300 - 1e300 * 1e300)", "min(1e300 * 1e300 - 1e300 * 1e300, 0)", "fabs(-1e300 * 1e300)"])
@example(["0 + 1.7241407228954815e+22 / 9.590851127256111e-287"])  # a quotient past the largest double, then `+`
# Float `//` floors the rounded quotient, as CPython does, not the exact one (hypothesis found the first once).
@example(["2859326239879403.0 // (log(2))", "-2859326239879403.0 // log(2)", "-1 // 0.1", "1e308 // 1e-308"])
def test_python_expressions_agree_with_python(texts: list[str]) -> None:
    check_python(texts)


@settings(max_examples=40, deadline=None)
# (Integers past 64 bits reach Starlark through JSON as doubles: an expression's own are read from its text.)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(2**63) + 1, 2**63 - 1), max_size=40))
def test_numbers_are_written_as_python_writes_them(values: list[float | int]) -> None:
    samples: list[float | int] = [3.0, 1e-5, 1e16, 1.5e16, 1e15, 0.0001, 123.456, -0.0, 5e-324, 1e300, 7]
    assert python_texts(samples + values) == [str(v) for v in samples + values]


def test_what_a_parser_refuses_is_an_error_of_its_own() -> None:
    texts = ["5 +", "(5 + 3", "5 + 3)", "5 x 3", "* 2", "1.5.2", "007", "2 ^ 3", "hello", "5 $ 2", "f(1)"]
    found = evaluate(texts, {**JAVASCRIPT, "unknown": ["x", "hello"]})
    assert found == [
        {"error": "syntax:invalid"},
        {"error": "syntax:unclosed"},
        {"error": "syntax:unmatched"},
        {"error": "syntax:invalid"},
        {"error": "syntax:invalid"},
        {"error": "syntax:literal"},
        {"error": "syntax:literal"},
        None,  # `^` not read: declined
        {"error": "unknown", "name": "hello"},
        None,  # a character the evaluator does not read
        None,  # a function it lacks, unknown to the recordings
    ]


# --- JavaScript, against node ----------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        expressions(["sqrt", "floor", "ceil", "pow", "abs", "round", "min", "max"], ["+", "-", "*", "/", "%", "**"]),
        min_size=1,
        max_size=20,
    )
)
# Zeros with a sign, which hypothesis found once: every JavaScript number is a double.
@example(["(1 / -0)", "1 / (0 * -1)", "1 / (-5 % 5)", "1 / ceil(-0.5)", "1 / round(-0.4)", "1 / min(0, -0)", "-0"])
# NaN and the infinities through each function and operator, as hypothesis found `-sqrt(0 / 0)` declined once.
@example(["-sqrt(0 / 0)", "abs(0 / 0)", "floor(0 / 0)", "sqrt(1 / 0)", "abs(-1 / 0)", "round(-1 / 0)", "(0 / 0) / 0"])
@example(["(0 / 0) ** 2", "pow(0 / 0, 0)", "pow(2, 1 / 0)", "pow(-1 / 0, 3)", "pow(-1 / 0, -2.5)", "1 / pow(-0, 3)"])
def test_javascript_expressions_agree_with_node(texts: list[str]) -> None:
    # JavaScript refuses a unary minus right before `**`: such texts are Python's reading only.
    texts = [text for text in texts if "**" not in text or "-" not in text]
    script = (
        "const {sqrt, floor, ceil, pow, abs, round, min, max, PI: pi, E: e} = Math;"
        "console.log(JSON.stringify(JSON.parse(process.argv[1]).map(t => String(eval(t)))))"
    )
    written = json.loads(
        subprocess.run(["node", "-e", script, json.dumps(texts)], capture_output=True, text=True, check=True).stdout
    )
    for text, got, expected in zip(texts, evaluate(texts, JAVASCRIPT), written, strict=True):
        if got is None:
            assert "**" in text or "pow" in text, text  # a power V8 rounds its own way: declined
            continue
        assert got == {"text": expected}, text


# --- twins learned from recordings of an expression tool ----------------------------------------------------

CALCULATE = ToolSpec(
    name="calculate",
    input_schema={"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
)
TRAINING = [
    "5 + 4", "1.5 + 5 * 100", "493.5 * 16", "100 / 25", "abs(-12.5)", "(5 + 4) * 16", "sqrt(3.75)", "8 // 2",
    "16 ^ 2", "25 / 0", "5 +", "9 % 0", "pow(2, 3)", "round(2.5)", "7 / 2", "2 * 3", "floor(12 / 100)",
    "factorial(5)", "4.5 % 2",
]  # fmt: skip


def calculator_call(number: int, text: str, answer: Callable[[str], tuple[str, bool]]) -> RecordedCall:
    written, is_error = answer(text)
    result = {"content": [{"type": "text", "text": written}], "structuredContent": {"result": written}}
    return RecordedCall(f"s{number}", 1, "calculate", {"expression": text}, result | {"isError": is_error}, is_error)


def python_server(text: str) -> tuple[str, bool]:
    """A calculator as a Python server writes it: `^` read as a power, no `abs` nor `round` (not in `math`)."""
    if text.rstrip().endswith("+"):
        return "Error executing tool calculate: invalid syntax (<unknown>, line 1)", True
    expected = python_evaluates(text.replace("^", "**")) if "abs" not in text and "round" not in text else {}
    if "text" in expected:
        return expected["text"], False
    words = {"zero:/:int": "division by zero", "zero:%:int": "integer modulo by zero"}
    if "error" in expected:
        return f"Error executing tool calculate: {words[expected['error']]}", True
    return f"Error executing tool calculate: Unknown identifier: {text.split('(')[0]}", True


def test_an_expression_tool_is_learned_in_python_s_dialect_with_its_errors() -> None:
    sessions = [[calculator_call(n, text, python_server)] for n, text in enumerate(TRAINING)]
    inference = infer_guards([CALCULATE], sessions, ["calculate"])
    plan = inference.plans["calculate"]
    assert inference.answered["calculate"] == len(TRAINING)

    def answer(text: str) -> Any:
        return run_guard(plan, "calculate", {}, {"expression": text})

    # Expressions never recorded, written as Python writes them: a quotient is a double, an int stays one.
    assert answer("6 / 2") == ({"result": "3.0"}, False)
    assert answer("2 * 21") == ({"result": "42"}, False)
    assert answer("1 / 3") == ({"result": "0.3333333333333333"}, False)
    assert answer("2 ^ 10") == ({"result": "1024"}, False)  # `^` as the recordings read it
    assert answer("10 ** 16 * 1.0") == ({"result": "1e+16"}, False)
    assert answer("-7 // 2") == ({"result": "-4"}, False)
    # Its errors, each under its own condition: a division by zero, a name the server does not know.
    assert answer("1 / 0") == ("Error executing tool calculate: division by zero", True)
    assert answer("abs(-1)") == ("Error executing tool calculate: Unknown identifier: abs", True)
    assert answer("round(1.5) + 1") == ("Error executing tool calculate: Unknown identifier: round", True)
    assert answer("log(8)") == ({"result": "2.0794415416798357"}, False)  # rounded once, as a libm rounds it
    # What it cannot compute exactly (a power neither whole nor a root) is handed on, not guessed.
    assert answer("2 ** 0.3") is None


def javascript_server(texts: list[str]) -> Callable[[str], tuple[str, bool]]:
    """A calculator as a JavaScript server writes it: every number a double, `String(x)`."""
    script = (
        "const {sqrt, pow, abs, floor, round} = Math;"
        "console.log(JSON.stringify(JSON.parse(process.argv[1]).map(t => String(eval(t)))))"
    )
    ran = subprocess.run(["node", "-e", script, json.dumps(texts)], capture_output=True, text=True, check=True)
    answers = dict(zip(texts, json.loads(ran.stdout), strict=True))
    return lambda text: (answers[text], False)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_an_expression_tool_is_learned_in_javascript_s_dialect() -> None:
    texts = ["5 + 4", "100 / 25", "493.5 * 16", "7 / 2", "1 / 0", "sqrt(16)", "2 ** 0.5", "-7 % 3", "1e-7 * 10"]
    server = javascript_server(texts)
    sessions = [[calculator_call(n, text, server)] for n, text in enumerate(texts)]
    inference = infer_guards([CALCULATE], sessions, ["calculate"])
    plan = inference.plans["calculate"]
    assert inference.answered["calculate"] == len(texts)
    assert run_guard(plan, "calculate", {}, {"expression": "6 / 2"}) == ({"result": "3"}, False)
    assert run_guard(plan, "calculate", {}, {"expression": "-1 / 0"}) == ({"result": "-Infinity"}, False)
    assert run_guard(plan, "calculate", {}, {"expression": "1e21 * 1"}) == ({"result": "1e+21"}, False)


# A calculator of number arguments as a Python server answers it: `float` parameters, so an int given is a
# double (`add(2, 3)` is `5.0`), `/` a double, `**` Python's.
PYTHON_TOOLS = [
    ToolSpec(
        name=name,
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    )
    for name in ("add", "divide", "power")
]
PYTHON_CALLS: list[tuple[str, float, float]] = [
    ("add", 2, 3), ("add", 0.1, 0.2), ("add", 10, 2.5), ("divide", 6, 2), ("divide", 1, 3), ("divide", 7, 2),
    ("power", 2, 10), ("power", 2, 0.5), ("power", 10, 16),
]  # fmt: skip


def test_arithmetic_on_number_arguments_is_learned_in_python_s_dialect() -> None:
    operations: dict[str, Callable[[float, float], float]] = {
        "add": operator.add,
        "divide": operator.truediv,
        "power": operator.pow,
    }

    def call(number: int, tool: str, a: float, b: float) -> RecordedCall:
        text = f"Result: {operations[tool](float(a), float(b))}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        return RecordedCall(f"s{number}", 1, tool, {"a": a, "b": b}, result, False)

    sessions = [[call(n, *recorded)] for n, recorded in enumerate(PYTHON_CALLS)]
    inference = infer_guards(PYTHON_TOOLS, sessions, ["add", "divide", "power"])
    assert inference.answered == {"add": 3, "divide": 3, "power": 3}
    plans = inference.plans

    def answer(tool: str, a: float, b: float) -> Any:
        return run_guard(plans[tool], tool, {}, {"a": a, "b": b})

    assert answer("add", 40, 2) == ("Result: 42.0", False)
    assert answer("divide", 9, 3) == ("Result: 3.0", False)
    assert answer("divide", 1, 7) == ("Result: 0.14285714285714285", False)
    assert answer("power", 10, 20) == ("Result: 1e+20", False)
    assert answer("power", 3, 0.5) == ("Result: 1.7320508075688772", False)


def test_an_expression_answered_as_a_json_number_is_learned() -> None:
    """A calculator that answers its value as a JSON number (`{"success": true, "result": 9.75}`), not as a text:
    the number the evaluator's text reads as, of the same kind (an int stays one, a quotient is a double)."""

    def server(text: str) -> tuple[dict[str, Any], bool]:
        expected = python_evaluates(text) if not text.rstrip().endswith("+") else {}
        if "text" not in expected:
            return {"success": False, "expression": text, "result": None}, False
        return {"success": True, "expression": text, "result": json.loads(expected["text"])}, False

    def call(number: int, text: str) -> RecordedCall:
        value, is_error = server(text)
        result = {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}
        return RecordedCall(f"s{number}", 1, "calculate", {"expression": text}, result | {"isError": False}, is_error)

    texts = ["(36 + 3) / 4", "0.5 + 5 * 2", "8 + 9 * 3", "880 + 36", "sqrt(7 * 4)", "(16 + 12) / 4", "2 +", "4 / 3"]
    inference = infer_guards([CALCULATE], [[call(n, text)] for n, text in enumerate(texts)], ["calculate"])
    plan = inference.plans["calculate"]
    assert inference.answered["calculate"] == len(texts)
    for text in ["36 ** 2 - 36", "(12 + 36) / 3", "factorial(10)", "1.5 - 0.25", "sin(pi / 6)"]:
        answer = run_guard(plan, "calculate", {}, {"expression": text})
        assert answer == server(text), text
        assert answer is not None
        assert type(answer[0]["result"]) is type(server(text)[0]["result"]), text
