"""Arithmetic expressions given in a string argument, evaluated by the twin's Starlark (`EXPRESSION`, a
section of `library.LIBRARY`), and what the learner reads of a tool whose argument is one.

A calculator server evaluates a text (`"(5 + 4) * 16"`, `"sqrt(3.75)"`) and writes the number back in its
language's way. The twin does the same with one evaluator and a **dialect**, a reading of the numbers:

- `python`: ints stay ints of any size, `/` is a double (`6 / 2` is `3.0`), `//` and `%` floor, `**` exact
  on ints, the `math` module's functions (`sqrt` and `pow` give doubles, `floor` an int; `round(x, n)` a double
  of n decimals, halves to even on its exact value), and the number
  written as `repr` writes it (`3.0`, `1e-05`, `1e+16`, `inf`); a division by zero, a name the server does
  not know, a bad text are errors;
- `javascript`: every number a double, `/` by zero `Infinity`, `Math`'s functions, the number written as
  `String(x)` writes it (`3`, `0.00001`, `10000000000000000`).

A **configuration** (`{"dialect", "caret", "unknown"}`) is what the recordings tell of a server: its dialect,
whether `^` is read as a power (`caret`: "power") or is not read (None: declined), and the names it answers
as unknown (an error naming them). The learner tries every dialect, caret reading and the unknown names the
recordings show; the covering keeps the configuration whose template renders most recorded answers.

Placeholders: `["expr", name, config]` writes the value of argument `name`; `["expr_name", name, config]`
the unknown name its evaluation stopped at. The condition `["expr_fails", name, reason, config]` holds
where evaluation fails with a reason starting with `reason`: `zero:/:int` (`zero:` + operator + `:int` or
`:float`, as Python words each), `domain` (a math domain error), `range`, `overflow`, `negative`,
`unknown`, `syntax:invalid`, `syntax:unclosed`, `syntax:unmatched`, `syntax:literal`. Logarithms, the
exponential and sines are computed on integers far past a double's precision and rounded once, as a libm
rounds them in all but rare cases (Python's dialect; V8 rounds its own way, so JavaScript's declines them).
Whatever the evaluator does not know (a function it lacks, a complex number, a power neither whole nor a
square root) is declined: the placeholder writes nothing, and the call is handed on.

The Python dialect also reads the call's number arguments (`["arith", op, [[name, kind], ...], "python"]`: one
argument, its negation, absolute value or square root, or two combined by `+ - * / // % **`), each as the
server's parameter reads it (`kind` "float" for a schema's `number`, as a Python `float` parameter takes `2` as
`2.0`; "int" for `integer`): `add(2, 3)` is `5.0` there, where JavaScript's own placeholders (`library`'s
`TWIN_ARITHMETIC`) write `5`. The covering keeps whichever renders the recorded answers.

Starlark has no recursion and no `while`: the text is read in one bounded pass (shunting-yard) into
postfix order, then evaluated over a stack, left operand first, as Python evaluates its tree.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from sim_mcp.authoring.twins.exact import PRECISION_BOUND
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec


class TwinLibrary(Protocol):
    """What the learner's reading needs of `library.TwinLibrary` (which holds this module's Starlark), named
    here so that the two modules do not import each other."""

    def call(self, function: str, payload: dict[str, Any]) -> Any: ...


__all__ = ["BRIDGE", "DIALECTS", "EXPRESSION", "Expressions", "read_expressions"]

DIALECTS = ("python", "javascript", "exact")

EXPRESSION = """
# --- expressions in a string (`expression.py`) ---

# Functions by dialect: how many arguments each takes ([fewest, most]).
TWIN_EXPR_FUNCTIONS = {
    "python": {"sqrt": [1, 1], "abs": [1, 1], "round": [1, 2], "floor": [1, 1], "ceil": [1, 1], "pow": [2, 2],
               "min": [2, 64], "max": [2, 64], "factorial": [1, 1], "fabs": [1, 1], "log": [1, 2], "log10": [1, 1],
               "log2": [1, 1], "exp": [1, 1], "sin": [1, 1], "cos": [1, 1], "tan": [1, 1]},
    "javascript": {"sqrt": [1, 1], "abs": [1, 1], "round": [1, 1], "floor": [1, 1], "ceil": [1, 1],
                   "pow": [2, 2], "min": [0, 64], "max": [0, 64], "trunc": [1, 1]},
}
TWIN_EXPR_CONSTANTS = {"pi": 3.141592653589793, "e": 2.718281828459045}
TWIN_EXPR_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2, "neg": 3, "**": 4}

def twin_expr_part(part, args):
    # ["expr", name, config]: the value's text; ["expr_name", name, config]: the unknown name it stopped at.
    found = twin_expr_of(args, part[1], part[2])
    if found == None:
        return None
    if part[0] == "expr_name":
        return found.get("name")
    if "value" not in found:
        return None
    return twin_expr_text(found["value"], part[2]["dialect"])

def twin_arith_part(part, args):
    # ["arith", op, [[name, kind], ...], dialect]: an operation on the call's number arguments, each read as
    # the server reads it (`float`: an int given is a double, as a Python `float` parameter takes it), in a
    # dialect (Python's: `6 / 2` is `3.0`, `2 * 3` is `6`, `2.0 + 3` is `5.0`).
    values = []
    for pair in part[2]:
        value = args.get(pair[0])
        if type(value) not in ("int", "float") or (type(value) == "float" and not twin_finite(value)):
            return None
        if pair[1] == "float":
            value = twin_expr_float(value)
            if value == None:
                return None
        values.append(value)
    op, dialect = part[1], part[3]
    if op == "num":
        found = {"value": values[0]}
    elif op == "neg":
        found = {"value": -values[0]}
    elif op in ("sqrt", "abs"):
        found = twin_expr_call(op, values, dialect)
    else:
        found = twin_expr_binary(op, values[0], values[1], dialect)
    if found == None or "value" not in found:
        return None
    return twin_expr_text(found["value"], dialect)

def twin_expr_fails(atom, args):
    # ["expr_fails", name, reason, config]: evaluation fails with a reason starting with `reason`.
    found = twin_expr_of(args, atom[1], atom[3])
    return found != None and "error" in found and found["error"].startswith(atom[2])

def twin_expr_is(atom, args):
    # ["expr_is", name, kind, config]: evaluation gives a value of a kind starting with `kind` (the exact
    # dialect's "fraction", or "decimal:" and why the fractions gave up).
    found = twin_expr_of(args, atom[1], atom[3])
    return found != None and "value" in found and found.get("kind", "").startswith(atom[2])

def twin_expr_compares(atom, args):
    # ["expr_cmp", first, second, relation, config]: both evaluate, and the first is equal to ("eq") or below
    # ("lt") the second.
    first, second = twin_expr_of(args, atom[1], atom[4]), twin_expr_of(args, atom[2], atom[4])
    if first == None or second == None or "value" not in first or "value" not in second:
        return False
    return twin_expr_order(first["value"], second["value"]) == (0 if atom[3] == "eq" else -1)

def twin_expr_order(a, b):
    # -1, 0 or 1 as a is below, equal to or above b; None where they do not compare (a nan).
    if type(a) == "list":
        return twin_exact_compare(a, b)
    if twin_nan(a) or twin_nan(b):
        return None
    return -1 if a < b else 1 if a > b else 0

def twin_expr_of(args, name, config):
    # `name` an argument's, or a list of them (a tool that evaluates several, in order): the first failure
    # among them (or the first declined), else the last one's value.
    if type(name) == "list":
        found = None
        for each in name:
            found = twin_expr_of(args, each, config)
            if found == None or "value" not in found:
                return found
        return found
    text = args.get(name)
    if type(text) != "string" or len(text) > 2000:
        return None
    return twin_expr(text, config, args)

def twin_expr(text, config, args = {}):
    # {"value": number}, {"error": reason} (with "name" for an unknown one), or None: declined. The exact
    # dialect's value says its kind too (`exact.py`); `args` are the call's, where its precision is.
    dialect = config["dialect"]
    tokens = twin_expr_tokens(text, config)
    if type(tokens) != "list":
        return tokens
    if config.get("bare") and not twin_expr_bare(tokens):
        return None  # a number argument given an expression: what the server makes of it is its own
    postfix = twin_expr_postfix(tokens, dialect)
    if type(postfix) != "list":
        return postfix
    if dialect == "exact":
        return twin_exact_evaluate(postfix, config, args)
    return twin_expr_run(postfix, config)

def twin_expr_bare(tokens):
    # Whether the tokens are one number, signed or not.
    if len(tokens) == 2 and tokens[0] == ["op", "-"]:
        tokens = tokens[1:]
    return len(tokens) == 1 and tokens[0][0] == "num"

def twin_expr_literal(literal):
    # A float literal as Python reads it: one past a double's range is inf (or 0.0), where Starlark's float()
    # refuses it (an id that reads as one, `258e3058`).
    mantissa, _, exponent = literal.lower().partition("e")
    whole, _, part = mantissa.partition(".")
    digits = (whole + part).lstrip("0")
    if not digits:
        return 0.0
    # The literal as d.ddd times ten to `scale`.
    scale = (int(exponent) if exponent else 0) + len(whole.lstrip("0")) - 1
    if not whole.lstrip("0"):
        scale -= len(part) - len(part.lstrip("0"))
    if scale > 308 or (scale == 308 and float(digits[0] + "." + digits[1:]) > 1.7976931348623157):
        return float("inf")
    if scale < -400:
        return 0.0
    return float(literal)

def twin_expr_tokens(text, config):
    # The text as tokens [kind, value]: ["num", n], ["name", s], ["op", s], ["(", ""], [")", ""], [",", ""].
    tokens = []
    n = len(text)
    i = 0
    for _ in range(n + 1):
        if i >= n:
            break
        c = text[i]
        if c in " \\t\\n":
            i += 1
        elif c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            end = twin_expr_number_end(text, i)
            literal = text[i:end]
            if end < n and (text[end].isalnum() or text[end] in "._"):
                return {"error": "syntax:literal"}
            # The literal's text too: the exact dialect reads it as the decimal it writes.
            if "." in literal or "e" in literal or "E" in literal:
                tokens.append(["num", twin_expr_literal(literal), literal])
            else:
                if len(literal) > 1 and literal.startswith("0") and literal.strip("0") != "":
                    return {"error": "syntax:literal"}  # Python reads no leading zero
                tokens.append(["num", int(literal), literal])
            i = end
        elif c.isalpha() or c == "_":
            end = i
            for _ in range(n):
                if end < n and (text[end].isalnum() or text[end] == "_"):
                    end += 1
                else:
                    break
            tokens.append(["name", text[i:end]])
            i = end
        elif text[i:i + 2] in ("**", "//"):
            tokens.append(["op", text[i:i + 2]])
            i += 2
        elif c == "^":
            if config.get("caret") != "power":
                return None
            tokens.append(["op", "**"])
            i += 1
        elif c in "+-*/%":
            tokens.append(["op", c])
            i += 1
        elif c in "(),":
            tokens.append([c, ""])
            i += 1
        else:
            return None  # a character the evaluator does not read
    return tokens

def twin_expr_number_end(text, i):
    # Where a number literal starting at i ends: digits, a point and digits, an exponent.
    n = len(text)
    end = i
    seen_point = False
    for _ in range(n):
        if end < n and text[end].isdigit():
            end += 1
        elif end < n and text[end] == "." and not seen_point:
            seen_point = True
            end += 1
        else:
            break
    if end < n and text[end] in "eE":
        at = end + 1
        if at < n and text[at] in "+-":
            at += 1
        if at < n and text[at].isdigit():
            end = at
            for _ in range(n):
                if end < n and text[end].isdigit():
                    end += 1
                else:
                    break
    return end

def twin_expr_postfix(tokens, dialect):
    # Shunting-yard: the tokens in postfix order, checking the text as a parser would (Python's words for what
    # fails). Output items: ["num", n, literal], ["name", s], ["check", s] (a function's name, looked up before its
    # arguments, as Python does), ["call", s, count], ["op", s], ["neg", ""].
    output = []
    ops = []
    expect = True  # an operand comes next
    for at in range(len(tokens)):
        kind, value = tokens[at][0], tokens[at][1]
        following = tokens[at + 1][0] if at + 1 < len(tokens) else None
        if kind == "num" or kind == "name":
            if not expect:
                return {"error": "syntax:invalid"}
            if kind == "name" and following == "(":
                output.append(["check", value])
                ops.append(["call", value])
            else:
                output.append(tokens[at])
                expect = False
        elif kind == "(":
            if not expect:
                return None  # `2 (3)`: a call of a number, which a parser reads
            call = len(ops) > 0 and ops[-1][0] == "call" and at > 0 and tokens[at - 1][0] == "name"
            ops.append(["(", call, 0])
            expect = True
        elif kind == ")" or kind == ",":
            top = twin_expr_unwind(ops, output)
            if top == None:
                return {"error": "syntax:unmatched"} if kind == ")" else None
            opened = ops[-1]
            empty = expect and at > 0 and tokens[at - 1][0] == "("
            if expect and not (empty and opened[1] and kind == ")"):
                return {"error": "syntax:invalid"}
            if not opened[1]:
                if kind == ",":
                    return None  # a tuple
                ops.pop()
                expect = False
                continue
            if not empty:
                opened[2] += 1
            if kind == ",":
                expect = True
                continue
            ops.pop()
            name = ops.pop()[1]
            output.append(["call", name, opened[2]])
            expect = False
        elif kind == "op":
            if expect:
                if value != "-":
                    return {"error": "syntax:invalid"} if value not in ("+",) else None
                ops.append(["neg", ""])
                continue
            if value == "//" and dialect == "javascript":
                return None
            rank = TWIN_EXPR_PRECEDENCE[value]
            for _ in range(len(ops)):
                top = ops[-1]
                if top[0] not in ("op", "neg"):
                    break
                other = TWIN_EXPR_PRECEDENCE[top[1] if top[0] == "op" else "neg"]
                if other > rank or (other == rank and value != "**"):
                    output.append(ops.pop())
                else:
                    break
            ops.append(["op", value])
            expect = True
    if expect:
        return {"error": "syntax:invalid"}
    for _ in range(len(ops)):
        top = ops.pop()
        if top[0] in ("(", "call"):
            return {"error": "syntax:unclosed"}
        output.append(top)
    return output

def twin_expr_unwind(ops, output):
    # Move operators to the output down to the innermost open parenthesis; None where there is none.
    for _ in range(len(ops)):
        if ops[-1][0] == "(":
            return ops[-1]
        if ops[-1][0] == "call":
            return None
        output.append(ops.pop())
    return None

def twin_expr_run(postfix, config, domain = None):
    # The postfix items over a stack. `domain` is the exact dialect's ({"kind": "fraction"}, or "decimal"
    # with its precision, `exact.py`): its operations are those of that section, and a "fallback" (what no
    # fraction holds) stops the run as an error does.
    dialect = config["dialect"]
    functions = TWIN_EXACT_FUNCTIONS if domain != None else TWIN_EXPR_FUNCTIONS[dialect]
    unknown = config.get("unknown", [])
    stack = []
    for item in postfix:
        kind = item[0]
        if kind == "num":
            if domain != None:
                value = twin_exact_literal(item[2], domain)
                if value == None:
                    return None
                stack.append(value)
            else:
                stack.append(twin_as_javascript(item[1]) if dialect == "javascript" else item[1])
        elif kind == "name" or kind == "check":
            name = item[1]
            if name in unknown:
                return {"error": "unknown", "name": name}
            if kind == "check":
                if name not in functions:
                    return None
                continue
            if domain != None:
                if name not in TWIN_EXACT_CONSTANTS:
                    return None
                found = twin_exact_constant(name, domain)
                if "value" not in found:
                    return found
                stack.append(found["value"])
                continue
            if name not in TWIN_EXPR_CONSTANTS:
                return None
            stack.append(TWIN_EXPR_CONSTANTS[name])
        elif kind == "neg":
            value = stack.pop()
            if domain != None:
                stack.append(twin_exact_neg(value, domain))
                continue
            # Every JavaScript number is a double: the negation of a zero is the other zero (`1 / -0` is
            # -Infinity), where Starlark's whole 0 has no sign.
            stack.append(twin_signed_zero(-value, not twin_negative(value)) if dialect == "javascript" else -value)
        elif kind == "op":
            right = stack.pop()
            left = stack.pop()
            if domain != None:
                found = twin_exact_binary(item[1], left, right, domain)
            else:
                found = twin_expr_binary(item[1], left, right, dialect)
            if found == None or "value" not in found:
                return found
            stack.append(found["value"])
        elif kind == "call":
            bounds = functions[item[1]]
            count = item[2]
            if count < bounds[0] or count > bounds[1]:
                return None
            values = stack[len(stack) - count:]
            stack = stack[:len(stack) - count]
            if domain != None:
                found = twin_exact_call(item[1], values, domain)
            else:
                found = twin_expr_call(item[1], values, dialect)
            if found == None or "value" not in found:
                return found
            stack.append(found["value"])
    if len(stack) != 1:
        return None
    return {"value": stack[0]}

def twin_expr_kind(left, right):
    return "float" if type(left) == "float" or type(right) == "float" else "int"

def twin_expr_binary(op, left, right, dialect):
    if dialect == "javascript":
        value = None
        if op == "+":
            value = left + right
        elif op == "-":
            value = left - right
        elif op == "*":
            value = twin_signed_zero(left * right, twin_negative(left) != twin_negative(right))
        elif op == "/":
            value = twin_quotient(left, right)
        elif op == "%":
            value = twin_remainder(left, right)
        elif op == "**":
            value = twin_power(left, right)
        return None if value == None else {"value": twin_as_javascript(value)}
    kind = twin_expr_kind(left, right)
    if kind == "float":
        left, right = twin_expr_float(left), twin_expr_float(right)
        if left == None or right == None:
            return None  # an int past the largest double: Python's OverflowError
    # Where an operand is inf or nan (`1e300 * 1e300` is inf), `+ - * /` are IEEE's as below; a power is declined.
    nonfinite = kind == "float" and (not twin_finite(left) or not twin_finite(right))
    if op == "+":
        return {"value": left + right}
    if op == "-":
        return {"value": left - right}
    if op == "*":
        return {"value": left * right}
    if op == "**":
        return None if nonfinite else twin_expr_power(left, right)
    if right == 0:
        return {"error": "zero:" + op + ":" + kind}
    if op == "/":
        return {"value": twin_expr_divide(left, right)}
    if kind == "int":
        return {"value": left // right if op == "//" else left % right}
    if nonfinite:
        return twin_expr_python_nonfinite(op, left, right)
    if op == "%":
        found = left % right
        # Python's float remainder takes the divisor's sign, a zero one too (`0.0 % -1` is -0.0).
        return {"value": (-0.0 if twin_negative(right) else 0.0) if found == 0 else found}
    return {"value": twin_expr_floor_divide(left, right)}

def twin_expr_python_nonfinite(op, left, right):
    # Python's float `//` and `%` where an operand is inf or nan, as CPython's float_divmod gives them (nan but
    # for a finite dividend over an infinite divisor: `5 % inf` is 5.0, `-5 % inf` inf, `-5 // inf` -1.0).
    if twin_nan(left) or twin_nan(right) or not twin_finite(left):
        return {"value": float("nan")}
    opposite = left != 0 and (left < 0) != (right < 0)
    if op == "%":
        if left == 0:
            return {"value": -0.0 if right < 0 else 0.0}
        return {"value": right if opposite else left}
    if opposite:
        return {"value": -1.0}
    return {"value": -0.0 if twin_negative(left) != (right < 0) else 0.0}

def twin_expr_float(value):
    # An int as Python converts it to a double (None: too large for one).
    if type(value) == "float":
        return value
    if value > 9007199254740992 or value < -9007199254740992:
        if twin_bits(abs(value)) > 1024:
            return None
        found = twin_rounded(abs(value), 1)
        return found if value > 0 else -found
    return float(value)

def twin_expr_divide(left, right):
    # Python's true division: the double nearest the exact quotient (of ints too, however large).
    if type(left) == "float" or type(right) == "float" or (abs(left) <= 9007199254740992 and
                                                           abs(right) <= 9007199254740992):
        return float(left) / float(right)
    if left == 0:
        return 0.0 if right > 0 else -0.0
    found = twin_rounded(abs(left), abs(right))
    return found if (left > 0) == (right > 0) else -found

def twin_expr_floor_divide(left, right):
    # Python's float `//` as CPython computes it (float_divmod): the exact remainder, then (left - remainder) /
    # right in doubles, one less where the remainder's sign is not the divisor's, floored and raised by one
    # where that is more than a half below it. It is the floor of a rounded quotient, not of the exact one:
    # `2859326239879403.0 // log(2)` is one below the exact floor.
    remainder = twin_expr_fmod(left, right)
    quotient = (left - remainder) / right
    if remainder != 0 and (right < 0) != (remainder < 0):
        quotient -= 1.0
    if not twin_finite(quotient):
        return quotient  # past the largest double (`1e308 // 1e-308` is inf)
    if quotient == 0:
        # A zero quotient takes the sign of the operands' signs combined, a -0.0 dividend's too (`-0.0 // 1`).
        return -0.0 if twin_negative(left) != twin_negative(right) else 0.0
    found = twin_expr_float(twin_expr_whole("floor", quotient))
    return found + 1.0 if quotient - found > 0.5 else found

def twin_expr_fmod(left, right):
    # C's fmod of two finite doubles, the divisor not zero: exact, with the dividend's sign.
    a, b = twin_dyadic(abs(left)), twin_dyadic(abs(right))
    shift = max(a[1], b[1])
    left_over = (a[0] * twin_two(shift - a[1])) % (b[0] * twin_two(shift - b[1]))
    if left_over == 0:
        return -0.0 if twin_negative(left) else 0.0
    found = twin_rounded(left_over, twin_two(shift))
    return -found if left < 0 else found

def twin_expr_power(left, right):
    # Python's `**`: exact on ints with a whole exponent not below 0; else a double, the nearest the exact
    # power (C's pow gives it, but for a rare last bit); a square root for 1/2; any other power declined.
    if type(left) == "int" and type(right) == "int" and right >= 0:
        if left not in (0, 1, -1) and twin_bits(abs(left)) * right > 4096:
            return None
        found = 1
        for _ in range(right if left not in (0, 1, -1) else min(right, 1)):
            found *= left
        if left == -1:
            found = 1 if right % 2 == 0 else -1
        return {"value": found}
    a, b = twin_expr_float(left), twin_expr_float(right)
    if a == None or b == None:
        return None
    if a == 0 and b < 0:
        return {"error": "zero:**:" + twin_expr_kind(left, right)}
    return twin_expr_real_power(a, b, "overflow")

def twin_expr_real_power(a, b, overflow):
    # a ** b on doubles, correctly rounded; `overflow` the reason where it is past the largest double.
    if b != float(int(b)):
        if a < 0:
            return None  # a complex number (Python's `**`), a domain error (math.pow): left to the caller
        if b == 0.5:
            return {"value": twin_root(a)}
        return None
    exponent = int(b)
    if exponent == 0:
        return {"value": 1.0}
    if a == 0:
        return {"value": (-0.0 if a < 0 or str(a).startswith("-") else 0.0) if exponent % 2 == 1 else 0.0}
    mantissa, shift = twin_dyadic(abs(a))
    size = twin_bits(mantissa) - shift  # |a| < 2^size
    if abs(exponent) * max(abs(size), 1) > 4400:
        too_big = (size > 0) == (exponent > 0) and not (mantissa == 1 and shift == 0)
        if too_big:
            return {"error": overflow}
        return None
    magnitude = abs(exponent)
    top, base, left = 1, mantissa, magnitude
    for _ in range(64):
        if left == 0:
            break
        if left % 2 == 1:
            top *= base
        base *= base
        left //= 2
    scale = twin_two(shift * magnitude)
    found = twin_rounded(top, scale) if exponent > 0 else twin_rounded(scale, top)
    if not twin_finite(found):
        return {"error": overflow}
    if found == 0:
        return None  # below the smallest double: not rounded here
    return {"value": -found if a < 0 and magnitude % 2 == 1 else found}

def twin_expr_call(name, values, dialect):
    if dialect == "javascript":
        return twin_expr_call_javascript(name, values)
    x = values[0]
    if name == "abs":
        return {"value": abs(x)}
    if name in ("min", "max"):
        found = values[0]
        for value in values[1:]:
            # Python's comparisons with nan are false (Starlark orders it above every number): min(nan, 0) is
            # nan, max(0, nan) is 0.
            if twin_nan(value) or twin_nan(found):
                continue
            if (name == "min" and value < found) or (name == "max" and value > found):
                found = value
        return {"value": found}
    if name == "factorial":
        if type(x) != "int" or x > 2000:
            return None
        if x < 0:
            return {"error": "negative"}
        found = 1
        for k in range(2, x + 1):
            found *= k
        return {"value": found}
    if name == "round" and len(values) == 2:
        return twin_expr_round(x, values[1])
    if name in ("floor", "ceil", "round"):
        if type(x) == "int":
            return {"value": x}
        if not twin_finite(x):
            return None
        return {"value": twin_expr_whole(name, x)}
    x = twin_expr_float(x)
    if x == None:
        return None
    # (inf and nan go through fabs, sqrt and the logarithms, exponential and sines as `math` takes them.)
    if name == "fabs":
        return {"value": abs(x)}
    if name == "sqrt":
        return {"error": "domain"} if x < 0 else {"value": twin_root(x)}
    if name in TWIN_EXPR_TRANSCENDENTAL:
        return twin_expr_transcendental(name, [twin_expr_float(v) for v in values])
    if name == "pow":
        y = twin_expr_float(values[1])
        if y == None or not twin_finite(x) or not twin_finite(y):
            return None
        if (x == 0 and y < 0) or (x < 0 and y != float(int(y))):
            return {"error": "domain"}
        return twin_expr_real_power(x, y, "range")
    return None

def twin_expr_round(x, digits):
    # Python's round(x, n): an int as it is; a double the decimal of n digits nearest its exact value, halves
    # to even, read back (the digits `format(x, ".nf")` writes, `fixed_text`). A negative n is declined.
    if type(digits) != "int" or digits < 0 or digits > 20:
        return None
    if type(x) == "int":
        return {"value": x}
    if not twin_finite(x):
        return None
    return {"value": float(fixed_text(x, digits))}

# Logarithms, the exponential, sines: computed on integers scaled by 2^P (P bits past the argument's own), then
# rounded once to the nearest double, as a libm's result is in all but rare cases.
TWIN_EXPR_TRANSCENDENTAL = ("log", "log10", "log2", "exp", "sin", "cos", "tan")

def twin_expr_transcendental(name, values):
    for value in values:
        if value == None:
            return None
    if not twin_finite(values[0]) or (len(values) > 1 and not twin_finite(values[1])):
        return twin_expr_transcendental_nonfinite(name, values)
    x = values[0]
    if name in ("log", "log10", "log2"):
        if x <= 0 or (len(values) > 1 and values[1] <= 0):
            return {"error": "domain"}
        found = twin_expr_log(x, name)
        if len(values) > 1:
            # log(x, base): Python divides the two logarithms as doubles.
            base = twin_expr_log(values[1], "log")
            if base == 0:
                return {"error": "zero:/:float"}
            return {"value": found / base}
        return {"value": found}
    if name == "exp":
        return twin_expr_exp(x)
    if x == 0:
        # sin and tan of a zero are that zero, its sign kept (`sin(-0.0)` is -0.0); cos of either is 1.0.
        return {"value": 1.0 if name == "cos" else x}
    return twin_expr_trig(name, x)

def twin_expr_transcendental_nonfinite(name, values):
    # `math`'s functions where an argument is inf or nan: nan gives nan; inf is its own logarithm and
    # exponential; -inf's logarithm is a domain error, its exponential 0.0; a sine of either infinity a domain
    # error. log(x, base) divides the two logarithms as doubles.
    logs = []
    for x in values:
        if twin_nan(x):
            logs.append(x)
        elif name in ("sin", "cos", "tan"):
            return {"error": "domain"} if not twin_finite(x) else None
        elif name == "exp":
            return {"value": x if x > 0 else 0.0}
        elif x <= 0:
            return {"error": "domain"}
        else:
            logs.append(x if not twin_finite(x) else twin_expr_log(x, name))
    if len(logs) == 1 or twin_nan(logs[0]):
        return {"value": logs[0]}
    if logs[1] == 0:
        return {"error": "zero:/:float"}
    return {"value": logs[0] / logs[1]}

def twin_expr_fixed(x):
    # A double as [X, P]: x is exactly X / 2^P, with P at least 256 bits past the double's own fraction.
    mantissa, shift = twin_dyadic(abs(x))
    bits = 256 + shift
    fixed = mantissa * twin_two(bits - shift)
    return [-fixed if x < 0 else fixed, bits]

def twin_expr_double(fixed, one):
    # The double nearest fixed / one (one a power of two).
    if fixed == 0:
        return 0.0
    found = twin_rounded(abs(fixed), one)
    return found if fixed > 0 else -found

def twin_expr_atanh(t, one):
    # atanh(t / one) * one, for |t| / one below 1/2: t + t^3/3 + t^5/5 + ...
    total, power, square = 0, t, t * t // one
    for k in range(2000):
        term = power // (2 * k + 1)
        if term == 0:
            break
        total += term
        power = power * square // one
    return total

def twin_expr_exp_series(r, one):
    # e^(r / one) * one by its series 1 + r + r^2/2! + ..., for |r| / one below 1 (each caller first
    # takes out a power of two or ten, so the terms vanish long before the bound).
    total, term = one, one
    for k in range(1, 4000):
        term = term * r // (one * k)
        if term == 0:
            break
        total += term
    return total

def twin_expr_ln(fixed, one):
    # ln(fixed / one), scaled by one, for a positive value: k ln 2 + ln m, m in [1, 2).
    k = twin_bits(fixed) - twin_bits(one)
    m = fixed * twin_two(-k) if k < 0 else fixed // twin_two(k)
    ln2 = 2 * twin_expr_atanh(one // 3, one)
    return k * ln2 + 2 * twin_expr_atanh((m - one) * one // (m + one), one)

def twin_expr_log(x, name):
    fixed, bits = twin_expr_fixed(x)
    one = twin_two(bits)
    found = twin_expr_ln(fixed, one)
    if name == "log10":
        found = found * one // twin_expr_ln(10 * one, one)
    elif name == "log2":
        found = found * one // (2 * twin_expr_atanh(one // 3, one))
    return twin_expr_double(found, one)

def twin_expr_exp(x):
    # e^x = 2^n e^r, r = x - n ln 2 at most ln 2 / 2 in size; Python's "math range error" past the largest
    # double; a result below the least normal double is declined.
    if x > 709.782712893384:
        return {"error": "range"}
    if x < -708.3:
        return None
    fixed, bits = twin_expr_fixed(x)
    one = twin_two(bits)
    ln2 = 2 * twin_expr_atanh(one // 3, one)
    n = (2 * fixed + ln2) // (2 * ln2)
    r = fixed - n * ln2
    total = twin_expr_exp_series(r, one)
    if n >= 0:
        return {"value": twin_rounded(total * twin_two(n), one)}
    return {"value": twin_rounded(total, one * twin_two(-n))}

def twin_expr_pi(one):
    # pi, scaled by one: 16 atan(1/5) - 4 atan(1/239) (Machin).
    return 16 * twin_expr_atan_inverse(5, one) - 4 * twin_expr_atan_inverse(239, one)

def twin_expr_atan_inverse(n, one):
    total, power = 0, one // n
    for k in range(4000):
        term = power // (2 * k + 1)
        if term == 0:
            break
        total += term if k % 2 == 0 else -term
        power //= n * n
    return total

def twin_expr_trig(name, x):
    # sin, cos, tan of x reduced by the nearest multiple of pi/2 (x below 2^30 in size: pi to P bits is
    # enough there; beyond it declined).
    if abs(x) >= 1073741824.0:
        return None
    fixed, bits = twin_expr_fixed(x)
    one = twin_two(bits)
    half = twin_expr_pi(one) // 2
    n = (2 * fixed + half) // (2 * half)
    r = fixed - n * half
    sine, cosine, term_s, term_c = r, one, r, one
    square = r * r // one
    for k in range(1, 2000):
        term_s = -term_s * square // (one * (2 * k) * (2 * k + 1))
        term_c = -term_c * square // (one * (2 * k - 1) * (2 * k))
        if term_s == 0 and term_c == 0:
            break
        sine += term_s
        cosine += term_c
    quarter = n % 4
    s = [sine, cosine, -sine, -cosine][quarter]
    c = [cosine, -sine, -cosine, sine][quarter]
    if name == "sin":
        return {"value": twin_expr_double(s, one)}
    if name == "cos":
        return {"value": twin_expr_double(c, one)}
    if c == 0 or s == 0:
        return None
    found = twin_rounded(abs(s), abs(c))
    return {"value": found if (s > 0) == (c > 0) else -found}

def twin_expr_whole(name, x):
    # floor, ceil, or round (half to even, as Python rounds) of a finite double, as an int.
    mantissa, shift = twin_dyadic(abs(x))
    unit = twin_two(shift)
    whole, left = mantissa // unit, mantissa % unit
    if name == "round":
        if 2 * left > unit or (2 * left == unit and whole % 2 == 1):
            whole += 1
        return whole if x >= 0 else -whole
    if x >= 0:
        return whole + 1 if name == "ceil" and left != 0 else whole
    return -(whole + 1) if name == "floor" and left != 0 else -whole

def twin_expr_call_javascript(name, values):
    if name in ("min", "max"):
        if not values:
            return {"value": float("inf") if name == "min" else float("-inf")}
        found = values[0]
        for value in values:
            if twin_nan(value):
                return {"value": value}
            # Math.min and Math.max hold -0 below +0.
            lower = value < found or (value == 0 and found == 0 and twin_negative(value) and not twin_negative(found))
            higher = value > found or (value == 0 and found == 0 and twin_negative(found) and not twin_negative(value))
            if (name == "min" and lower) or (name == "max" and higher):
                found = value
        return {"value": found}
    x = values[0]
    if name == "pow":
        found = twin_power(x, values[1])
        return None if found == None else {"value": twin_as_javascript(found)}
    if twin_nan(x) or not twin_finite(x):
        # NaN through every one of Math's functions is NaN; an Infinity is its own floor, ceiling, rounding
        # and root (of -Infinity, NaN), and its absolute value is +Infinity.
        return {"value": abs(x) if name == "abs" else twin_root(x) if name == "sqrt" else x}
    if name == "abs":
        return {"value": abs(x)}
    if name == "sqrt":
        return {"value": twin_root(x)}
    if type(x) == "int":
        return {"value": x}
    if name == "round":
        # Math.round: the nearest whole number, halves toward +Infinity (x - floor(x) is exact below 2^52).
        whole = twin_expr_whole("floor", x)
        if abs(x) < 4503599627370496.0 and x - whole >= 0.5:
            whole += 1
        return {"value": twin_signed_zero(whole, twin_negative(x))}
    if name == "trunc":
        return {"value": twin_signed_zero(twin_expr_whole("floor" if x >= 0 else "ceil", x), twin_negative(x))}
    return {"value": twin_signed_zero(twin_expr_whole(name, x), twin_negative(x))}

def twin_expr_text(value, dialect):
    if dialect == "exact":
        return twin_exact_text(value)
    if dialect == "javascript":
        return twin_number_text(twin_as_javascript(value))
    return twin_python_text(value)

def twin_python_text(value):
    # A number as Python's `str` writes it: an int's digits; a double's shortest digits that read back as it,
    # fixed from 1e-4 up to 1e16 (always with a point: `3.0`), else with an exponent of two digits or more
    # (`1e-05`, `1.5e+16`); `inf`, `nan`.
    if type(value) == "int":
        return str(value)
    if twin_nan(value):
        return "nan"
    if not twin_finite(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    digits, point = twin_float_digits(abs(value))
    k, e = len(digits), point - 1
    if -4 <= e and e < 16:
        if k <= point:
            text = digits + "0" * (point - k) + ".0"
        elif point > 0:
            text = digits[:point] + "." + digits[point:]
        else:
            text = "0." + "0" * -point + digits
    else:
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-")
        text += ("0" if abs(e) < 10 else "") + str(abs(e))
    return ("-" if value < 0 else "") + text

def twin_float_digits(value):
    # The shortest digits of a positive double that read back as it, and where the point falls after the
    # first of them (123.5 is ["1235", 3]; 0.05 is ["5", -1]).
    text = json.encode(value)
    mantissa, exponent = (text.split("e") + ["0"])[:2]
    parts = (mantissa.split(".") + [""])[:2]
    raw = parts[0] + parts[1]
    point = len(parts[0]) + int(exponent) - (len(raw) - len(raw.lstrip("0")))
    return raw.strip("0"), point
"""

# The learner's entry point: every recorded call's argument evaluated under every configuration.
BRIDGE = """
def twin_bridge_expressions(state, args):
    # Per case, each [name, config] pair's evaluation: its text or its failure, its kind, the name it gives, and
    # per pair of names under one configuration, how the two values compare.
    out = []
    for call in args["cases"]:
        found = []
        values = {}
        for pair in args["pairs"]:
            name, config = pair[0], pair[1]
            text = call.get(name) if type(name) == "string" else ""
            if type(text) != "string":
                continue
            result = twin_expr_of(call, name, config)
            if result == None or (type(name) == "list" and "value" in result):
                continue  # (of several arguments: their first failure only)
            shown = {"name": name, "config": config, "ops": twin_expr_operates(text, config),
                     "kind": result.get("kind"), "unknown": result.get("name")}
            if "value" in result:
                shown["text"] = twin_expr_text(result["value"], config["dialect"])
                values[name + "\x00" + json.encode(config)] = result["value"]
            else:
                shown["error"] = result["error"]
            found.append(shown)
        compared = []
        for pair in args.get("compare", []):
            a = values.get(pair[0] + "\x00" + json.encode(pair[3]))
            b = values.get(pair[1] + "\x00" + json.encode(pair[3]))
            if a != None and b != None and twin_expr_order(a, b) == (0 if pair[2] == "eq" else -1):
                compared.append(["expr_cmp", pair[0], pair[1], pair[2], pair[3]])
        out.append({"found": found, "compared": compared})
    return out

def twin_expr_operates(text, config):
    # Whether a text computes anything: an operator or a function (a bare number is any argument's text).
    tokens = twin_expr_tokens(text, config)
    return type(tokens) == "list" and any([t[0] == "op" or t[0] == "(" for t in tokens])

def twin_bridge_arithmetic(state, args):
    # Per case, the texts Python's arithmetic writes of the call's number arguments (one of them, or two), the
    # plainer readings first: a text two of them write is taken as the first.
    out = []
    for call in args["cases"]:
        given = [pair for pair in args["numbers"] if type(call.get(pair[0])) in ("int", "float")]
        parts = [["num", [pair]] for pair in given]
        for op in ("-", "+", "*", "/", "//", "%", "**"):
            for first in given:
                for second in given:
                    if first[0] != second[0] and (op not in ("+", "*") or first[0] < second[0]):
                        parts.append([op, [first, second]])
        parts += [[op, [pair]] for op in ("sqrt", "neg", "abs") for pair in given]
        seen = {}
        pieces = []
        for op, names in parts:
            part = ["arith", op, names, "python"]
            text = twin_arith_part(part, call)
            if text != None and text not in seen:
                seen[text] = True
                pieces.append([text, part])
        out.append(pieces)
    return out
"""
BRIDGE_TOOLS = ("twin_bridge_expressions", "twin_bridge_arithmetic")

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A number written with a point: its digits before and after it.
_LONG_DECIMAL = re.compile(r"(?<![\w.])(\d+)\.(\d+)")
# Significant digits a double's shortest text may have: a decimal with more was computed at a precision.
_DOUBLE_DIGITS = 17
# A number as a text (`0.375`, `-2.5`, `1e-3`).
_NUMBER_TEXT = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")
# What computes: a number or a parenthesis closed before an operator, and an operand after it (`5 + 4`,
# `(2) * pi`), or a function called on a number or a parenthesis (`sqrt(2)`); not `task-1` nor `a/b`, words.
_OPERATOR = re.compile(r"[0-9)]\s*(?:\*\*|//|[-+*/%^])\s*[-0-9(.A-Za-z]|[A-Za-z_]\w*\(\s*[-0-9(.]")
_EXPRESSION_TEXT = re.compile(r"[0-9A-Za-z_\s.+\-*/%^(),]*")


@dataclass
class Expressions:
    """What the recordings give of one tool's expression and number arguments: per call (by id), the texts
    their evaluations write (`[text, part]`, as `twin_bridge_pieces` gives them); the conditions an
    expression's errors hold."""

    pieces: dict[int, list[list[Any]]] = field(default_factory=dict)
    atoms: list[list[Any]] = field(default_factory=list)


def read_expressions(
    library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall], described: str = ""
) -> Expressions:
    """Every configuration's evaluation of the string arguments that read as expressions in some recorded
    call (an operator between operands, a function called), and the exact dialect's of those that read as
    numbers (`0.375`, which an exact server writes as `3/8`): their values as pieces, their failures, their
    kinds and how two of them compare as atoms. `described`: what the server's tools' descriptions say (how
    it rounds), beside the tool's own."""
    result = _arithmetic(library, tool, calls)
    strings = _string_arguments(tool)
    names = [name for name in strings if _reads_as_expressions(name, calls)]
    numbers = [name for name in strings if name not in names and _reads_as_numbers(name, calls)]
    if names:
        # Beside an expression, a number given as a text is one more expression (`0.3` compared with `0.1 +
        # 0.2`); alone, it is a number, read as one only (`numbers`).
        names, numbers = [name for name in strings if name in names or name in numbers], []
    if not names and not numbers:
        return result
    configs = _configs(tool, names + numbers, calls, described)
    # Several expressions, evaluated in the schema's order: the first that fails tells why the call fails,
    # whichever it is (an unknown name on the left as on the right). First, so that of two conditions that the
    # recordings meet alike, this is the one kept.
    pairs: list[list[Any]] = [[names, config] for config in configs] if len(names) > 1 else []
    pairs += [[name, config] for name in names for config in configs]
    # A number argument is read as one number only (`bare`): `1/3` given where a decimal is asked for may be
    # refused.
    pairs += [[name, config | {"bare": True}] for name in numbers for config in configs if config["dialect"] == "exact"]
    compare = [
        [first, second, relation, config]
        for first, second in itertools.combinations(names, 2)
        for relation in ("eq", "lt")
        for config in configs
    ]
    found: list[dict[str, Any]] = library.call(
        "twin_bridge_expressions", {"pairs": pairs, "compare": compare, "cases": [call.arguments for call in calls]}
    )
    reasons: dict[str, Any] = {}
    for call, shown in zip(calls, found, strict=True):
        pieces = result.pieces.setdefault(id(call), [])
        for item in shown["found"]:
            name, config = item["name"], item["config"]
            if item["unknown"]:
                pieces.append([item["unknown"], ["expr_name", name, config]])
            # A bare number is its own value: a piece of the exact dialect's (`4` compared with `9/2`, `0.375`
            # written `3/8`), not of the others (where it is any argument's number).
            if "text" in item and (item["ops"] or config["dialect"] == "exact"):
                pieces.append([item["text"], ["expr", name, config]])
            if "error" in item:
                for reason in _prefixes(item["error"]):
                    atom = ["expr_fails", name, reason, config]
                    reasons.setdefault(json.dumps(atom, sort_keys=True), atom)
            if item["kind"]:
                for kind in _prefixes(item["kind"]):
                    atom = ["expr_is", name, kind, config]
                    reasons.setdefault(json.dumps(atom, sort_keys=True), atom)
        for atom in shown["compared"]:
            reasons.setdefault(json.dumps(atom, sort_keys=True), atom)
    result.atoms = list(reasons.values())
    return result


def _arithmetic(library: TwinLibrary, tool: ToolSpec, calls: list[RecordedCall]) -> Expressions:
    """The texts Python's arithmetic writes of each call's number arguments (JavaScript's are the keyed
    world's own `TWIN_ARITHMETIC`): an argument the schema types `number` read as a double, as a Python server's
    `float` parameter reads it, one typed `integer` as an int."""
    properties = tool.input_schema.get("properties") or {}
    numbers = [
        [name, "float" if schema.get("type") == "number" else "int"]
        for name, schema in properties.items()
        if isinstance(schema, dict) and schema.get("type") in ("integer", "number")
    ]
    if not numbers:
        return Expressions()
    found: list[list[list[Any]]] = library.call(
        "twin_bridge_arithmetic", {"numbers": numbers, "cases": [call.arguments for call in calls]}
    )
    return Expressions({id(call): pieces for call, pieces in zip(calls, found, strict=True)})


def _string_arguments(tool: ToolSpec) -> list[str]:
    properties = tool.input_schema.get("properties") or {}
    return [name for name, schema in properties.items() if isinstance(schema, dict) and schema.get("type") == "string"]


def _reads_as_expressions(name: str, calls: list[RecordedCall]) -> bool:
    """Whether an argument is an expression: in half the recorded calls that give it or more, its text
    computes something (an operator between operands, a function called). A name or a date with a dash in it
    now and then is not one."""
    given = [call.arguments[name] for call in calls if isinstance(call.arguments.get(name), str)]
    computing = [
        text
        for text in given
        if len(text) <= 2000 and _EXPRESSION_TEXT.fullmatch(text) and _OPERATOR.search(text) is not None
    ]
    return bool(given) and 2 * len(computing) >= len(given)


def _reads_as_numbers(name: str, calls: list[RecordedCall]) -> bool:
    """Whether an argument is a number written as a text (`"0.375"`) in half the recorded calls that give it
    or more: an exact server reads it as the decimal it writes."""
    given = [call.arguments[name] for call in calls if isinstance(call.arguments.get(name), str)]
    return bool(given) and 2 * sum(1 for text in given if _NUMBER_TEXT.fullmatch(text)) >= len(given)


def _configs(tool: ToolSpec, names: list[str], calls: list[RecordedCall], described: str) -> list[dict[str, Any]]:
    """Each dialect, with `^` read as a power where a recorded expression has one, and the names the server
    answers as unknown (`_unknown_names`); the exact dialect at each precision the tool may take
    (`_precisions`), with halves rounded to even or away from zero where a recorded expression rounds."""
    texts = [text for call in calls for name in names if isinstance(text := call.arguments.get(name), str)]
    unknown = _unknown_names(names, calls)
    # `^` as a power first where a recorded text holds one: a condition that two readings meet alike is then
    # the one the success reads by (the covering keeps the first of equals).
    carets: list[str | None] = [None]
    if any("^" in text for text in texts):
        carets.insert(0, "power")
    configs: list[dict[str, Any]] = [
        {"dialect": d, "caret": c, "unknown": unknown} for d in DIALECTS if d != "exact" for c in carets
    ]
    # Both readings of a half where a recorded expression rounds (the covering tells them apart where one
    # rounds a half), else the one the descriptions name: a later call may round.
    halves = _halves(f"{tool.description or ''} {described}")
    if not any(re.search(r"\bround\s*\(", text) for text in texts):
        halves = halves[:1]
    configs += [
        {"dialect": "exact", "caret": c, "unknown": unknown, "precision": precision, "halves": half}
        for precision in _precisions(tool, calls)
        for half in halves
        for c in carets
    ]
    return configs


def _halves(described: str) -> list[str]:
    """How `round` may take a half, the one the server's descriptions name first (`rounds half away from
    zero`, `half up`): of two readings the recordings meet alike (no recorded half), the covering keeps the
    first. Else halves to even first, as Python's `round` and `decimal` take them."""
    if re.search(r"away from zero|half[- ]up", described.lower()):
        return ["away", "even"]
    return ["even", "away"]


def _unknown_names(names: list[str], calls: list[RecordedCall]) -> list[str]:
    """The names a server answers as unknown: words of an expression that an answer names (but for where it
    echoes the expression whole), and that no answer showing a number computed for them holds (a refusal that
    comes as a success, `{"error": "unknown function: sin"}`, shows no number but the expression's own)."""
    shown: set[str] = set()
    failed: set[str] = set()
    for call in calls:
        if call.rpc_error is not None:
            continue
        said = json.dumps(call.value, ensure_ascii=False)
        for name in names:
            text = call.arguments.get(name)
            if not isinstance(text, str):
                continue
            if text:
                said = said.replace(json.dumps(text, ensure_ascii=False)[1:-1], "")
        for name in names:
            text = call.arguments.get(name)
            if not isinstance(text, str):
                continue
            words = set(_IDENTIFIER.findall(text))
            failed |= {word for word in words if re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", said)}
            if not call.is_error and re.search(r"[0-9]", said):
                shown |= words
    return sorted(failed - shown)


def _precisions(tool: ToolSpec, calls: list[RecordedCall]) -> list[dict[str, Any]]:
    """Where the exact dialect's decimals take their precision: each integer argument (its schema's default
    where a call gives none), else the number of significant digits most long decimals the answers show have
    (a server's fixed context, such as Python's 28), else none (fractions only)."""
    properties = tool.input_schema.get("properties") or {}
    found: list[dict[str, Any]] = [
        {"arg": name, "default": schema.get("default")}
        for name, schema in properties.items()
        if isinstance(schema, dict) and schema.get("type") == "integer"
    ]
    if found:
        return found
    sizes = Counter(
        len(digits)
        for call in calls
        if call.rpc_error is None
        for whole, part in _LONG_DECIMAL.findall(json.dumps(call.value))
        if len(digits := (whole + part).lstrip("0")) > _DOUBLE_DIGITS
    )
    if sizes:
        return [{"value": min(sizes.most_common(1)[0][0], PRECISION_BOUND)}]
    return [{"value": None}]


def _prefixes(reason: str) -> list[str]:
    """A failure's reason and the coarser ones it falls under (`zero:/:int`, `zero:/`, `zero`)."""
    parts = reason.split(":")
    return [":".join(parts[: k + 1]) for k in range(len(parts))]
