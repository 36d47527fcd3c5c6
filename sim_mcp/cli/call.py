"""`sim-mcp call`: one call in process, to try a spec."""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim_mcp.cli.flags import IN_PROCESS, add_setting_flags, settings_from
from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    call = commands.add_parser("call", help="make one call in process, to try a spec")
    add_setting_flags(call, IN_PROCESS)
    add_log_level(call)
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--session", help="session name (default cli)")
    call.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    try:
        arguments: Any = json.loads(args.args)
    except json.JSONDecodeError as e:
        raise ConfigError(f"--args: invalid JSON: {e.msg} at column {e.colno}") from e
    if not isinstance(arguments, dict):
        raise ConfigError('--args: expected a JSON object of arguments, e.g. \'{"ticket_id": "T-1001"}\'')
    settings = settings_from(args)

    async def run() -> int:
        from sim_mcp.runtime import Runtime

        async with Runtime(settings) as runtime:
            outcome = await runtime.simulator.call(args.session or "cli", args.tool, arguments)
        print(
            json.dumps(
                {
                    "result": outcome.result,
                    "is_error": outcome.is_error,
                    "state_patch": outcome.event.state_patch if outcome.event else [],
                },
                indent=2,
            )
        )
        return 1 if outcome.is_error else 0

    return anyio.run(run)
