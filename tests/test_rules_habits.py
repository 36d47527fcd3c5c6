"""Python habits in programs: f-strings become the `%` formatting Starlark reads, on the same lines; where
Starlark is not Python, the error says what to write instead."""

from __future__ import annotations

import pytest
import starlark

from sim_mcp.engine.rules import CallContext, Limits, RulesError, as_starlark, run_tool, tool_program
from sim_mcp.engine.rules.helpers import DEFAULT_CLOCK


def run(text: str, name: str) -> object:
    module = starlark.Module()
    module.add_callable("money_text", lambda x: f"{x:.2f}")
    starlark.eval(module, starlark.parse("t", text, starlark.Dialect.standard()), starlark.Globals.standard())
    return module[name]


@pytest.mark.parametrize(
    ("python", "starlark_text", "value"),
    [
        ("f\"id {args['id']}!\"", "(\"id %s!\" % (args['id'],))", "id T-1!"),
        (
            "f\"{args['id']}'s {args['n']!r} is 100%\"",
            "(\"%s's %r is 100%%\" % (args['id'], args['n'],))",
            "T-1's 3 is 100%",
        ),
        ("f\"total {args['amount']:.2f}\"", "(\"total %s\" % (money_text(args['amount']),))", "total 2.50"),
        ('f"plain"', '"plain"', "plain"),
        ('f"{args["id"]}\\n{{x}}"', '("%s\\n{x}" % (args["id"],))', "T-1\n{x}"),  # Python 3.12's quotes
        ("f\"café {args['id']}\"", "(\"café %s\" % (args['id'],))", "café T-1"),
    ],
)
def test_an_f_string_becomes_percent_formatting(python: str, starlark_text: str, value: str) -> None:
    text = f"args = {{'id': 'T-1', 'n': 3, 'amount': 2.5}}\nout = {python}\n"
    converted = as_starlark(text)
    assert converted == text.replace(python, starlark_text)
    assert run(converted, "out") == value


def test_only_f_strings_in_code_are_read_and_only_what_starlark_can_say() -> None:
    widths = 'out = f"{x:>8}"\n'  # a width: Starlark's % has none
    assert as_starlark(widths) == widths
    unclosed = 'out = f"{x" + y\n'
    assert as_starlark(unclosed) == unclosed
    cut_off = "if x is not None: return error('shipping address can only change while the order is "
    assert as_starlark(cut_off) == cut_off.replace("is not", "!=", 1)  # the code before it is still read
    in_a_string = "out = \"say f'{x}'\" # f'{y}'\n"  # inside a plain string, or a comment: text
    assert as_starlark(in_a_string) == in_a_string
    two_lines = 'out = (f"a {x}" +\n       f"b {y}")\n'  # each line's own f-string
    assert as_starlark(two_lines) == 'out = (("a %s" % (x,)) +\n       ("b %s" % (y,)))\n'
    assert as_starlark("out = 'no f-strings'\n") == "out = 'no f-strings'\n"


@pytest.mark.parametrize(
    ("body", "hint"),
    [
        ("    for key, value in state['w']:\n        pass\n    return {}", "use .items()"),
        ("    if not args:\n        raise error('no')\n    return {}", "return error('message') fails the call"),
        ("    items = [2, 1]\n    items.sort()\n    return items", "sorted(items)"),
        ("    return [r['id'] for r in state['w']]", "a loop over a dict gives its keys, use .values()"),
        ("    return {'at': datetime.now()}", "dates are ISO strings, compared as strings"),
        ("    from datetime import timedelta\n    return {}", "no imports or datetime in Starlark"),
        ("    next_id = next_id(state['w'], 'W-')\n    return {'id': next_id}", "hides the helper"),
        ("    round = round(2.5)\n    return {'n': round}", "hides the helper"),
        ("    return {'by': args['caller']}", "use .get('key')"),
        ("    return {**args, 'status': 'open'}", "copy with new = dict(record)"),
        ("    return {'code': random.choice('AB')}", "random_code(length) and random_int(low, high)"),
        ("    del state['w']['W-1']\n    return {}", "records.pop(key) removes a key"),
        ("    return state['w']['W-9']", "'id in collection' first"),
    ],
)
def test_where_starlark_is_not_python_the_error_says_what_to_write(body: str, hint: str) -> None:
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="get")

    def read_and_run() -> None:  # the error comes when the program is read, or when it runs
        program = tool_program(f"def get(state, args):\n{body}\n", "get", "<your program>")
        run_tool(program, "get", {"w": {"W-1": 1}}, {}, context, Limits())

    with pytest.raises(RulesError) as raised:
        read_and_run()
    assert hint in raised.value.reason


def test_is_and_is_not_become_equality_in_code_only() -> None:
    text = 'if found is None or args.get("x") is not None:  # what is this\n    out = "this is it"\n'
    assert as_starlark(text) == ('if found == None or args.get("x") != None:  # what is this\n    out = "this is it"\n')
    assert run(as_starlark("found = None\nout = found is None\n"), "out") is True


def test_isinstance_with_one_plain_type_becomes_a_type_test() -> None:
    text = 'out = [isinstance(args["n"], int), isinstance(args, dict), isinstance(args["s"], str)]\n'
    assert run(f"args = {{'n': 3, 's': 'x'}}\n{as_starlark(text)}", "out") == [True, True, True]
    both = "out = isinstance(x, (int, float))\n"  # a tuple of types: left to the error and the model
    assert as_starlark(both) == both


def test_a_default_given_by_keyword_is_given_by_position() -> None:
    text = 'memo = args.get("memo", default="")\nto = args.get(\'to\', default = None)\n'
    assert as_starlark(text) == 'memo = args.get("memo", "")\nto = args.get(\'to\', None)\n'
    assert run(f"args = {{}}\n{as_starlark(text)}", "memo") == ""


def test_triple_quoted_strings_are_kept_and_the_code_around_them_is_read() -> None:
    docstring = '    """The account\'s f"{x}" record; what is it."""\n'
    text = f'def get(state, args):\n{docstring}    return f"{{args["id"]}}" is None\n'
    assert as_starlark(text) == (f'def get(state, args):\n{docstring}    return ("%s" % (args["id"],)) == None\n')


def test_an_error_a_model_is_shown_has_no_double_quotes_to_copy_into_its_json() -> None:
    # The model answers {"program": "..."}: a `"` it copies from the message, unescaped, ends its program.
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="get")
    program = tool_program("def get(state, args):\n    return args['caller']\n", "get", "<p>")
    with pytest.raises(RulesError) as missing:
        run_tool(program, "get", {}, {}, context, Limits())
    assert missing.value.reason.startswith("Key 'caller' was not found (")
    with pytest.raises(RulesError) as unparsed:
        tool_program("def get(state, args):\n    return {**args}\n", "get", "<p>")
    assert unparsed.value.reason.startswith("Parse error: unexpected symbol '**' here (no {**record}")
    assert (unparsed.value.line, '"' in unparsed.value.reason) == (2, False)


def test_a_generator_expression_becomes_the_list_comprehension_starlark_has() -> None:
    text = (
        'total = sum(i["qty"] * i["price"] for i in items)\n'
        'code = "1Z" + "".join(c for c in ["a", "b"] if c != ",")  # for a code\n'
        "most = max((i['qty'] for i in items))\n"
        "if any(i['qty'] > 2 for i in items) and f(a, b for b in items):\n"
        "n = sum(len(x for x in y) for y in z)\n"
        "total = sum(q * p for q, p in pairs)\n"
    )
    assert as_starlark(text) == (
        'total = sum([i["qty"] * i["price"] for i in items])\n'
        'code = "1Z" + "".join([c for c in ["a", "b"] if c != ","])  # for a code\n'
        "most = max([i['qty'] for i in items])\n"
        "if any([i['qty'] > 2 for i in items]) and f(a, b for b in items):\n"  # two arguments: not one generator
        "n = sum([len([x for x in y]) for y in z])\n"  # nested, each its own
        "total = sum([q * p for q, p in pairs])\n"  # a comma in the loop's target: still one argument
    )
    body = "".join("    " + line for line in text.splitlines(True)[:3])
    program = tool_program(
        f"def get(state, args):\n    items = args['items']\n{body}    return [total, code, most]\n", "get", "<p>"
    )
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="get")
    items = [{"qty": 2, "price": 1.5}, {"qty": 3, "price": 2}]
    assert run_tool(program, "get", {}, {"items": items}, context, Limits()).result == [9.0, "1Zab", 3]
