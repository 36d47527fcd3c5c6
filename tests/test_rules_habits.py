"""Python habits in programs, for a model whose profile rewrites them (llm/profiles/qwen.py): `is` and
generator expressions become the Starlark they meant, on the same lines, and nothing inside a string
changes; where Starlark is not Python, the error says what to write instead. The default profile does none
of it."""

from __future__ import annotations

import pytest
import starlark

from sim_mcp.errors import ConfigError
from sim_mcp.llm.profiles import DEFAULT_PROFILE, profile_for
from sim_mcp.llm.profiles.habits import as_starlark
from sim_mcp.rules import CallContext, Limits, RulesError, run_tool, tool_program
from sim_mcp.rules.helpers import DEFAULT_CLOCK

QWEN = profile_for(None, "qwen2.5-coder")


def run(text: str, name: str) -> object:
    module = starlark.Module()
    module.add_callable("money_text", lambda x: f"{x:.2f}")
    starlark.eval(module, starlark.parse("t", text, starlark.Dialect.standard()), starlark.Globals.standard())
    return module[name]


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
        program = tool_program(QWEN.rewrite(f"def get(state, args):\n{body}\n"), "get", "<your program>")
        run_tool(program, "get", {"w": {"W-1": 1}}, {}, context, Limits())

    with pytest.raises(RulesError) as raised:
        read_and_run()
    assert hint in QWEN.explain(raised.value.reason)
    assert hint not in DEFAULT_PROFILE.explain(raised.value.reason)


def test_is_and_is_not_become_equality_in_code_only() -> None:
    text = 'if found is None or args.get("x") is not None:  # what is this\n    out = "this is it"\n'
    assert as_starlark(text) == ('if found == None or args.get("x") != None:  # what is this\n    out = "this is it"\n')
    assert run(as_starlark("found = None\nout = found is None\n"), "out") is True
    cut_off = "if x is not None: return error('shipping address can only change while the order is "
    assert as_starlark(cut_off) == cut_off.replace("is not", "!=", 1)  # the code before it is still read


def test_habits_rewriting_changed_nothing_for_are_left_to_the_error_and_its_hint() -> None:
    for text in (
        "out = f\"{args['id']}\"\n",
        "out = isinstance(args, dict)\n",
        'memo = args.get("memo", default="")\n',
    ):
        assert as_starlark(text) == text


def test_triple_quoted_strings_are_kept_and_the_code_around_them_is_read() -> None:
    docstring = '    """The account\'s sum(x for x in y): what is it."""\n'
    text = f'def get(state, args):\n{docstring}    return args.get("id") is None\n'
    assert as_starlark(text) == (f'def get(state, args):\n{docstring}    return args.get("id") == None\n')


def test_an_error_a_model_is_shown_has_no_double_quotes_to_copy_into_its_json() -> None:
    # The model answers {"program": "..."}: a `"` it copies from the message, unescaped, ends its program.
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="get")
    program = tool_program("def get(state, args):\n    return args['caller']\n", "get", "<p>")
    with pytest.raises(RulesError) as missing:
        run_tool(program, "get", {}, {}, context, Limits())
    assert QWEN.explain(missing.value.reason).startswith("Key 'caller' was not found (")
    with pytest.raises(RulesError) as unparsed:
        tool_program("def get(state, args):\n    return {**args}\n", "get", "<p>")
    shown = QWEN.explain(unparsed.value.reason)
    assert shown.startswith("Parse error: unexpected symbol '**' here (no {**record}")
    assert (unparsed.value.line, '"' in shown) == (2, False)


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
        QWEN.rewrite(f"def get(state, args):\n    items = args['items']\n{body}    return [total, code, most]\n"),
        "get",
        "<p>",
    )
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="get")
    items = [{"qty": 2, "price": 1.5}, {"qty": 3, "price": 2}]
    assert run_tool(program, "get", {}, {"items": items}, context, Limits()).result == [9.0, "1Zab", 3]


@pytest.mark.parametrize(
    "text",
    [
        'msg = "call it only if x is None"\n',
        "hint = 'use sum(i for i in items) when a is not b'\n",
        'out = "x is None" + "a is not b"\n',
        'out = "sum(i for i in items)"\n',
        "out = 1  # x is None and sum(i for i in items)\n",
        'out = "never closed, x is not None and max(i for i in items)\n',
        'doc = """x is None, sum(i for i in items)"""\n',
    ],
)
def test_a_rewrite_never_changes_a_string_or_a_comment(text: str) -> None:
    assert as_starlark(text) == text


def test_code_beside_a_string_is_still_rewritten_and_the_string_kept() -> None:
    text = 'msg = "x is None" if x is None else "".join(c for c in ["is not", " (c for c in y)"])\n'
    assert as_starlark(text) == (
        'msg = "x is None" if x == None else "".join([c for c in ["is not", " (c for c in y)"]])\n'
    )
    assert run(f"x = None\n{as_starlark(text)}", "msg") == "x is None"
    assert run(f"x = 1\n{as_starlark(text)}", "msg") == "is not (c for c in y)"


def test_the_profile_is_chosen_by_the_models_name_and_can_be_switched_off() -> None:
    for name in ("Qwen/Qwen2.5-Coder-1.5B-Instruct", "qwen2.5-coder:1.5b", "qwen2.5-coder-7b-instruct-q4_k_m.gguf"):
        assert profile_for(name).name == "qwen2.5-coder"
    for other in ("gpt-4.1", "claude-sonnet-4-5", "local", None):
        assert profile_for(other) is DEFAULT_PROFILE
    assert profile_for("Qwen2.5-Coder-1.5B", "none") is DEFAULT_PROFILE
    assert profile_for("local", "qwen2.5-coder") is QWEN
    with pytest.raises(ConfigError, match=r"unknown model profile 'qwen'.*expected one of auto, none, qwen2.5-coder"):
        profile_for("local", "qwen")


def test_the_default_profile_leaves_a_program_as_it_was_written() -> None:
    text = 'def get(state, args):\n    return sum(i for i in args["n"]) if args.get("n") is not None else None\n'
    assert DEFAULT_PROFILE.rewrite(text) == text
    assert DEFAULT_PROFILE.explain('Key `"id"` was not found') == 'Key `"id"` was not found'
    assert QWEN.rewrite(text) == (
        'def get(state, args):\n    return sum([i for i in args["n"]]) if args.get("n") != None else None\n'
    )


def test_a_program_escaped_twice_is_unescaped_but_a_backslash_n_in_a_string_is_text() -> None:
    twice = "def get(state, args):\\n    return error(\\\"no %s\\\" % args['id'])\\n"
    assert QWEN.rewrite(twice) == "def get(state, args):\n    return error(\"no %s\" % args['id'])\n"
    one_line = "def get(state, args): return 'a\\nb'"
    assert QWEN.rewrite(one_line) == one_line
    assert DEFAULT_PROFILE.rewrite(twice) == twice
