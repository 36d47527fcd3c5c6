"""Exact arithmetic for the expression evaluator (`expression.py`): the `exact` dialect, a Starlark section of the
twin library (`EXACT`).

A calculator that computes exactly reads each number of the text as the decimal it is written as (`0.1` is 1/10,
not the double nearest it), keeps every sum, product and quotient as a fraction of integers, and writes it as
one (`13/40`, `-502/5`, `85`). What no fraction holds (a root that is not one, pi, a logarithm, the exponential)
makes it start over in decimal arithmetic at a **precision**, a number of significant digits taken from an
argument (its schema's default where the call gives none) or fixed: every operation's result rounded to that
many digits, halves to even, as Python's `decimal` module rounds (a literal is exact; a quotient exact where it
can be, trailing zeros dropped down to its ideal exponent; a root and the logarithms and exponential correctly
rounded), written with no exponent (`78.539816339744830962`, `2.7182818284590452353602874713526624977572470937000`).

The configuration's `precision` is `{"arg": name, "default": n}` or `{"value": n}`; `halves` says how `round`
rounds a half ("even" or "away" from zero), learned where a recorded expression rounds. A value is `["q", n, d]`
(a fraction in lowest terms, d > 0) or `["d", c, e]` (c times ten to the e); a constant read to more digits than
the precision is `["d", c, e, "loose"]`, rounded by the first operation on it (a bare constant is declined: how
many digits a server keeps of it is its own).

What an evaluation says besides its value (`twin_exact_evaluate`): `kind`, "fraction", or "decimal:" and why the
fractions gave up ("decimal:constant:pi", "decimal:function:sqrt"), with `name`, the constant or function that
made them (a note that says so). Failures are the evaluator's reasons: `zero:/:exact` (by operator), `domain:` and
the function (`domain:sqrt`, `domain:ln`, `domain:log:base`), `negative` (a factorial), `integer` (a whole number
needed), with `name` the function. What it cannot be sure of (a logarithm too near a rounding tie, a power neither
whole nor exact, a number past a few thousand digits) is declined.
"""

from __future__ import annotations

__all__ = ["EXACT", "PRECISION_BOUND"]

# The most significant digits the twin computes to (a server's bound may be larger; past this it declines).
PRECISION_BOUND = 1000

EXACT = (
    """
# --- exact arithmetic: fractions, then decimals at a precision (`exact.py`) ---

TWIN_EXACT_DIGITS = 4000  # the most digits a fraction's or decimal's integers may have
TWIN_EXACT_GUARD = 30     # digits computed past the precision for a logarithm or an exponential
TWIN_EXACT_FUNCTIONS = {"sqrt": [1, 1], "abs": [1, 1], "round": [1, 2], "floor": [1, 1], "ceil": [1, 1],
                        "pow": [2, 2], "min": [1, 64], "max": [1, 64], "factorial": [1, 1], "gcd": [2, 2],
                        "lcm": [2, 2], "ln": [1, 1], "log": [1, 2], "log10": [1, 1], "exp": [1, 1]}
TWIN_EXACT_CONSTANTS = ("pi", "e")

def twin_ten(k):
    return int("1" + "0" * k)

def twin_digits(n):
    return len(str(abs(n)))

def twin_gcd(a, b):
    a, b = abs(a), abs(b)
    for _ in range(100000):
        if b == 0:
            break
        a, b = b, a % b
    return a

def twin_q(n, d):
    # The fraction n/d in lowest terms, its denominator positive; None where it is too large to keep.
    if d < 0:
        n, d = -n, -d
    g = twin_gcd(n, d)
    if g > 1:
        n, d = n // g, d // g
    if twin_digits(n) > TWIN_EXACT_DIGITS or twin_digits(d) > TWIN_EXACT_DIGITS:
        return None
    return ["q", n, d]

def twin_exact_precision(config, args):
    found = config.get("precision") or {}
    if "value" in found:
        value = found["value"]
    else:
        value = args.get(found.get("arg"), found.get("default"))
    if type(value) != "int" or value < 1 or value > """
    + str(PRECISION_BOUND)
    + """:
        return None
    return value

def twin_exact_evaluate(postfix, config, args):
    # Fractions first; where they give up, decimals at the call's precision.
    first = twin_expr_run(postfix, config, {"kind": "fraction", "halves": config.get("halves")})
    if first == None or "fallback" not in first:
        return twin_exact_done(first, "fraction", None)
    precision = twin_exact_precision(config, args)
    if precision == None:
        return None
    cause = first["fallback"]
    second = twin_expr_run(postfix, config, {"kind": "decimal", "precision": precision,
                                             "halves": config.get("halves")})
    if second == None or "fallback" in second:
        return None
    found = twin_exact_done(second, "decimal:" + cause[0] + ":" + cause[1], cause[1])
    if found != None and "error" not in found:
        found["name"] = cause[1]
    return found

def twin_exact_done(found, kind, name):
    if found == None or "value" not in found:
        return found
    value = found["value"]
    if len(value) > 3:
        return None  # a constant as written: how many digits a server keeps of it is its own
    return {"value": value, "kind": kind}

def twin_exact_literal(literal, domain):
    # A number as the decimal its text writes: a fraction, or a decimal as given (`0.10` keeps its zero).
    mantissa, _, exponent = literal.lower().partition("e")
    whole, _, part = mantissa.partition(".")
    digits = (whole + part).lstrip("0") or "0"
    scale = (int(exponent) if exponent else 0) - len(part)
    if len(digits) > TWIN_EXACT_DIGITS or abs(scale) > TWIN_EXACT_DIGITS:
        return None
    coefficient = int(digits)
    if domain["kind"] == "decimal":
        return ["d", coefficient, scale]
    if scale >= 0:
        return twin_q(coefficient * twin_ten(scale), 1)
    return twin_q(coefficient, twin_ten(-scale))

def twin_exact_constant(name, domain):
    # pi or e: in fractions, a reason to give up; in decimals, read to more digits than the precision.
    if domain["kind"] == "fraction":
        return {"fallback": ["constant", name]}
    width = domain["precision"] + TWIN_EXACT_GUARD
    one = twin_ten(width)
    if name == "pi":
        value = twin_expr_pi(one * 1000) // 1000
    else:
        value = twin_exact_exp_fixed(one, one)
    return {"value": ["d", value, -width, "loose"]}

def twin_exact_fraction(value):
    # A value as [n, d]: a decimal's exact fraction.
    if value[0] == "q":
        return [value[1], value[2]]
    c, e = value[1], value[2]
    return [c * twin_ten(e), 1] if e >= 0 else [c, twin_ten(-e)]

def twin_exact_compare(left, right):
    # -1, 0 or 1 as left is below, equal to or above right.
    a, b = twin_exact_fraction(left), twin_exact_fraction(right)
    x, y = a[0] * b[1], b[0] * a[1]
    return -1 if x < y else 1 if x > y else 0

def twin_exact_sign(value):
    return -1 if value[1] < 0 else 1 if value[1] > 0 else 0

def twin_exact_integer(value):
    # The whole number a value is, or None.
    n, d = twin_exact_fraction(value)
    return n // d if n % d == 0 else None

def twin_exact_of_int(n, domain):
    # {"value": n} in the domain's form; None where it has too many digits to keep.
    value = twin_q(n, 1) if domain["kind"] == "fraction" else ["d", n, 0]
    return None if value == None else {"value": value}

# --- decimals: c * 10^e, rounded to the precision, halves to even ---

def twin_dec_fix(c, e, precision):
    size = twin_digits(c)
    if size <= precision:
        return ["d", c, e]
    drop = size - precision
    unit = twin_ten(drop)
    q, r = abs(c) // unit, abs(c) % unit
    if 2 * r > unit or (2 * r == unit and q % 2 == 1):
        q += 1
    e += drop
    if twin_digits(q) > precision:
        q, e = q // 10, e + 1
    return ["d", -q if c < 0 else q, e]

def twin_dec_add(a, b, precision, sign):
    e = min(a[2], b[2])
    if max(a[2], b[2]) - e > TWIN_EXACT_DIGITS:
        return None
    c = a[1] * twin_ten(a[2] - e) + sign * b[1] * twin_ten(b[2] - e)
    return twin_dec_fix(c, e, precision)

def twin_dec_divide(a, b, precision):
    # Python's decimal division: exact where the quotient has at most `precision` digits (down to the ideal
    # exponent), else correctly rounded (a sticky last digit where the division leaves a remainder).
    if a[1] == 0:
        return twin_dec_fix(0, a[2] - b[2], precision)
    shift = twin_digits(b[1]) - twin_digits(a[1]) + precision + 1
    e = a[2] - b[2] - shift
    top, bottom = abs(a[1]), abs(b[1])
    if shift >= 0:
        top *= twin_ten(shift)
    else:
        bottom *= twin_ten(-shift)
    q, r = top // bottom, top % bottom
    if r != 0:
        if q % 5 == 0:
            q += 1
    else:
        ideal = a[2] - b[2]
        for _ in range(shift + precision + 2):
            if e >= ideal or q % 10 != 0:
                break
            q, e = q // 10, e + 1
    negative = (a[1] < 0) != (b[1] < 0)
    return twin_dec_fix(-q if negative else q, e, precision)

def twin_dec_sqrt(value, precision):
    # Python's decimal square root: correctly rounded, an exact root brought to its ideal exponent.
    c, e = value[1], value[2]
    if c == 0:
        return ["d", 0, e // 2]
    prec = precision + 1
    size = twin_digits(c)
    half = e // 2
    if e % 2 == 1:
        c *= 10
        length = size // 2 + 1
    else:
        length = (size + 1) // 2
    shift = prec - length
    if shift >= 0:
        c *= twin_ten(2 * shift)
        exact = True
    else:
        unit = twin_ten(-2 * shift)
        exact = c % unit == 0
        c = c // unit
    half -= shift
    n = twin_isqrt(c) if c > 1 else c
    exact = exact and n * n == c
    if exact:
        if shift >= 0:
            n = n // twin_ten(shift)
        else:
            n *= twin_ten(-shift)
        half += shift
    elif n % 5 == 0:
        n += 1
    return twin_dec_fix(n, half, precision)

def twin_dec_scaled(value, width):
    # A positive decimal times 10^width, as an integer (rounded down).
    c, e = value[1], value[2]
    if e + width >= 0:
        return c * twin_ten(e + width)
    return c // twin_ten(-(e + width))

def twin_exact_ln10(one):
    # ln 10 = 3 ln 2 + ln 1.25, as 2 atanh(1/3) and 2 atanh(1/9), scaled by one.
    return 6 * twin_expr_atanh(one // 3, one) + 2 * twin_expr_atanh(one // 9, one)

def twin_exact_ln_fixed(value, one, width):
    # ln of a positive decimal, scaled by one = 10^width: ln(m) + k ln 10, m in [1, 10), then m = 2^j m'.
    c, e = value[1], value[2]
    k = twin_digits(c) - 1 + e
    m = c * twin_ten(width) // twin_ten(twin_digits(c) - 1)
    ln2 = 2 * twin_expr_atanh(one // 3, one)
    j = 0
    for _ in range(4):
        if m >= 2 * one:
            m, j = m // 2, j + 1
    return k * twin_exact_ln10(one) + j * ln2 + 2 * twin_expr_atanh((m - one) * one // (m + one), one)

def twin_exact_exp_fixed(x, one):
    # e^(x / one), scaled by one, for x at most a few hundred in size: e^r 10^k, r = x - k ln 10, then the
    # series of e^(r / 1024) squared ten times.
    ln10 = twin_exact_ln10(one)
    k = (2 * x + ln10) // (2 * ln10)
    r = (x - k * ln10) // 1024
    total = twin_expr_exp_series(r, one)
    for _ in range(10):
        total = total * total // one
    if k >= 0:
        return total * twin_ten(k)
    return total // twin_ten(-k)

def twin_dec_rounded(fixed, width, precision):
    # fixed / 10^width, known to some hundreds of units in its last place, rounded to `precision` digits; None
    # where it lies too near a tie to tell.
    size = twin_digits(fixed)
    drop = size - precision
    if drop < 8:
        return None
    unit = twin_ten(drop)
    r = abs(fixed) % unit
    slack = 100000
    if abs(2 * r - unit) < 2 * slack or r < slack or unit - r < slack:
        return None
    return twin_dec_fix(fixed, -width, precision)

def twin_dec_transcendental(name, value, precision):
    # ln, log10, exp correctly rounded to the precision (decimal's own exact cases first).
    c, e = value[1], value[2]
    if name == "exp":
        if c == 0:
            return {"value": ["d", 1, 0]}
        if twin_digits(c) + e > 6:
            return None
    else:
        if c <= 0:
            return {"error": "domain:" + name, "name": name}
        if name == "ln" and twin_exact_compare(value, ["q", 1, 1]) == 0:
            return {"value": ["d", 0, 0]}
        if name == "log10" and str(c).strip("0") == "1" and str(c)[0] == "1":
            return {"value": twin_dec_fix(twin_digits(c) - 1 + e, 0, precision)}
    width = precision + TWIN_EXACT_GUARD
    for _ in range(3):
        one = twin_ten(width)
        if name == "exp":
            fixed = twin_exact_exp_fixed(twin_dec_scaled(value, width) if c > 0 else
                                         -twin_dec_scaled(["d", -c, e], width), one)
        else:
            fixed = twin_exact_ln_fixed(value, one, width)
            if name == "log10":
                fixed = fixed * one // twin_exact_ln10(one)
        if twin_digits(fixed) >= precision + TWIN_EXACT_GUARD - 2:
            found = twin_dec_rounded(fixed, width, precision)
            return None if found == None else {"value": found}
        width += precision + TWIN_EXACT_GUARD - twin_digits(fixed) + 2
    return None

# --- the operations, in either domain ---

def twin_exact_binary(op, left, right, domain):
    if domain["kind"] == "fraction":
        return twin_exact_fraction_binary(op, left, right)
    precision = domain["precision"]
    if op in ("+", "-", "*") and (len(left) > 3 or len(right) > 3):
        # A constant's own digits: a result left unrounded (pi - pi, 0 * pi) keeps how many a server keeps.
        sign = 1 if op == "+" else -1
        exact = ["d", left[1] * right[1], 0] if op == "*" else twin_dec_add(left, right, 1000000, sign)
        if exact == None or twin_digits(exact[1]) <= precision:
            return None
    if op == "+" or op == "-":
        found = twin_dec_add(left, right, precision, 1 if op == "+" else -1)
    elif op == "*":
        found = twin_dec_fix(left[1] * right[1], left[2] + right[2], precision)
    elif op == "/":
        if right[1] == 0:
            return {"error": "zero:/:exact"} if left[1] != 0 else None
        found = twin_dec_divide(left, right, precision)
    elif op == "**":
        n = twin_exact_integer(right)
        if n == None or n < 0 or n > 10000 or twin_digits(left[1]) * n > TWIN_EXACT_DIGITS:
            return None
        power = 1
        for _ in range(n):
            power *= left[1]
        found = twin_dec_fix(power, left[2] * n, precision)
    else:
        return None  # `//` and `%` of decimals: declined
    return None if found == None else {"value": found}

def twin_exact_fraction_binary(op, left, right):
    a, b, c, d = left[1], left[2], right[1], right[2]
    if op == "+":
        found = twin_q(a * d + c * b, b * d)
    elif op == "-":
        found = twin_q(a * d - c * b, b * d)
    elif op == "*":
        found = twin_q(a * c, b * d)
    elif op == "**":
        if d != 1:
            return None  # a power that is no fraction
        if c < 0 and a == 0:
            return {"error": "zero:**:exact"}
        n = abs(c)
        if b == 1 and a in (0, 1, -1):
            top = 1 if n == 0 or a == 1 or (a == -1 and n % 2 == 0) else a
            return {"value": ["q", top, 1]}
        if n > 10000 or (twin_digits(a) + twin_digits(b)) * n > TWIN_EXACT_DIGITS:
            return None
        top, bottom = 1, 1
        for _ in range(n):
            top, bottom = top * a, bottom * b
        found = twin_q(top, bottom) if c >= 0 else twin_q(bottom, top)
    else:
        if c == 0:
            return {"error": "zero:" + op + ":exact"}
        if op == "/":
            found = twin_q(a * d, b * c)
        else:
            whole = (a * d) // (b * c) if b * c > 0 else (-a * d) // (-b * c)
            found = twin_q(whole, 1) if op == "//" else twin_q(a * d - whole * c * b, b * d)
    return None if found == None else {"value": found}

def twin_exact_neg(value, domain):
    if domain["kind"] == "fraction":
        return ["q", -value[1], value[2]]
    return twin_dec_fix(-value[1], value[2], domain["precision"])

def twin_exact_call(name, values, domain):
    x = values[0]
    fraction = domain["kind"] == "fraction"
    if name in ("min", "max"):
        found = values[0]
        for value in values[1:]:
            order = twin_exact_compare(value, found)
            if (name == "min" and order < 0) or (name == "max" and order > 0):
                found = value
        return {"value": found}
    if name == "abs":
        if fraction:
            return {"value": ["q", abs(x[1]), x[2]]}
        return {"value": twin_dec_fix(abs(x[1]), x[2], domain["precision"])}
    if name == "pow":
        return twin_exact_binary("**", x, values[1], domain)
    if name in ("floor", "ceil"):
        n, d = twin_exact_fraction(x)
        whole = n // d if name == "floor" or n % d == 0 else n // d + 1
        return twin_exact_of_int(whole, domain)
    if name == "round":
        return twin_exact_round(x, values[1] if len(values) > 1 else None, domain)
    if name in ("factorial", "gcd", "lcm"):
        whole = [twin_exact_integer(value) for value in values]
        if None in whole:
            return {"error": "integer", "name": name}
        if name == "factorial":
            if whole[0] < 0:
                return {"error": "negative", "name": name}
            if whole[0] > 2000:
                return None
            found = 1
            for k in range(2, whole[0] + 1):
                found *= k
        else:
            found = twin_gcd(whole[0], whole[1])
            if name == "lcm":
                found = 0 if found == 0 else abs(whole[0] * whole[1]) // found
        return twin_exact_of_int(found, domain)
    if name == "sqrt":
        if twin_exact_sign(x) < 0:
            return {"error": "domain:sqrt", "name": name}
        if not fraction:
            return {"value": twin_dec_sqrt(x, domain["precision"])}
        n = twin_isqrt(x[1]) if x[1] > 1 else x[1]
        d = twin_isqrt(x[2]) if x[2] > 1 else x[2]
        if n * n == x[1] and d * d == x[2]:
            return {"value": ["q", n, d]}
        return {"fallback": ["function", name]}
    if name in ("ln", "log", "log10", "exp"):
        if fraction:
            return {"fallback": ["function", name]}
        precision = domain["precision"]
        if name == "log":
            found = twin_dec_transcendental("ln", x, precision)
            if found != None and "error" in found:
                return {"error": "domain:log", "name": name}
            if len(values) == 1 or found == None:
                return found
            base = values[1]
            if base[1] <= 0 or twin_exact_compare(base, ["q", 1, 1]) == 0:
                return {"error": "domain:log:base", "name": name}
            under = twin_dec_transcendental("ln", base, precision)
            if under == None or "value" not in under:
                return None
            return {"value": twin_dec_divide(found["value"], under["value"], precision)}
        return twin_dec_transcendental(name, x, precision)
    return None

def twin_exact_round(x, digits, domain):
    # round(x) or round(x, n): to n decimals, a half as the configuration says (even, or away from zero).
    places = 0
    if digits != None:
        places = twin_exact_integer(digits)
        if places == None:
            return {"error": "integer", "name": "round"}
        if abs(places) > 1000:
            return None
    halves = domain.get("halves") or "even"
    n, d = twin_exact_fraction(x)
    if places >= 0:
        n *= twin_ten(places)
    else:
        d *= twin_ten(-places)
    q, r = abs(n) // d, abs(n) % d
    if 2 * r > d or (2 * r == d and (halves == "away" or q % 2 == 1)):
        q += 1
    q = -q if n < 0 else q
    if domain["kind"] == "fraction":
        found = twin_q(q, twin_ten(places)) if places >= 0 else twin_q(q * twin_ten(-places), 1)
        return None if found == None else {"value": found}
    if twin_digits(q) > domain["precision"]:
        return None
    return {"value": ["d", q, -places]}

def twin_exact_text(value):
    # A fraction as `n/d` (a whole one as `n`); a decimal with no exponent, as Python's format(x, "f").
    if value[0] == "q":
        return str(value[1]) if value[2] == 1 else str(value[1]) + "/" + str(value[2])
    c, e = value[1], value[2]
    sign = "-" if c < 0 else ""
    digits = str(abs(c))
    if e >= 0:
        return sign + (digits + "0" * e if c != 0 else "0")
    places = -e
    if len(digits) <= places:
        digits = "0" * (places - len(digits) + 1) + digits
    return sign + digits[:len(digits) - places] + "." + digits[len(digits) - places:]
"""
)
