"""Rules as code: per-tool transition programs in Starlark, run hermetically (docs/formats.md, "Rules").

`compile_program` turns a program's text into a `Program` (one function per tool); `run_tool` runs one
function on a copy of a session's state within `Limits`, giving a `RuleOutcome` (the result, and the RFC
6902 patch of what the function changed); `example_problem` tests a function against its tool's examples.
Failures of all three are `RulesError`s naming the file, the line and the tool. `compile_rules` does all
of it for a catalog: the program that answers each tool, and the load errors of the others.
"""

from sim_mcp.errors import RulesError
from sim_mcp.rules.catalog import RulesCatalog, RulesChecks, RulesVerdict, compile_environment, compile_rules
from sim_mcp.rules.examples import example_problem
from sim_mcp.rules.helpers import CallContext
from sim_mcp.rules.program import HANDED_ON, Program, compile_program, function_name
from sim_mcp.rules.runtime import Limits, RuleOutcome, run_handed_on, run_tool
from sim_mcp.rules.single import clock_of, tool_program

__all__ = [
    "HANDED_ON",
    "CallContext",
    "Limits",
    "Program",
    "RuleOutcome",
    "RulesCatalog",
    "RulesChecks",
    "RulesError",
    "RulesVerdict",
    "clock_of",
    "compile_environment",
    "compile_program",
    "compile_rules",
    "example_problem",
    "function_name",
    "run_handed_on",
    "run_tool",
    "tool_program",
]
