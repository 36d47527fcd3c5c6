"""A program for one tool, as a model writes it (`--llm-output program`, `sim-mcp compile`).

The model is asked for the tool's function (`def create_transfer(state, args):`); a program that names its
one public function otherwise (`def run(state, args):`) gets the tool's function added, calling it.
"""

from __future__ import annotations

import re

from sim_mcp.engine.rules.program import Program, RulesError, compile_program, function_name

_DEF = re.compile(r"^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)


def tool_program(text: str, tool: str, source: str) -> Program:
    """Compile `text` as the program of `tool`; `RulesError` (with the line) when it does not compile or
    defines no function that could be the tool's."""
    name = function_name(tool)
    defined = _DEF.findall(text)
    if name not in defined:
        public = [found for found in defined if not found.startswith("_")]
        if len(public) != 1:
            found = f"it defines {', '.join(defined)}" if defined else "it defines no function"
            raise RulesError(source, f"expected a function def {name}(state, args): ({found})", tool=tool)
        text += f"\n\ndef {name}(state, args):\n    return {public[0]}(state, args)\n"
    return compile_program(text, source, [tool])
