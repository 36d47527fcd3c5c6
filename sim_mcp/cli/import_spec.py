"""`sim-mcp import`: convert a spec file of any format to native YAML, for editing."""

from __future__ import annotations

import argparse
from pathlib import Path

from sim_mcp.cli.output import add_spec_output, check_spec_output, environment_name, write_environment
from sim_mcp.plugins import SPEC_FORMATS


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import_ = commands.add_parser("import", help="convert a spec file of any format to a native spec, for editing")
    import_.add_argument("file", help=f"spec file: {SPEC_FORMATS.listing()}")
    add_spec_output(import_, default_name="from the file")
    import_.add_argument("--format", help=f"the file's format ({SPEC_FORMATS.listing()}), when detection guesses wrong")
    import_.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from sim_mcp.specs.formats import read_spec_file

    check_spec_output(args.output)
    name = environment_name(args.name)
    environment = read_spec_file(Path(args.file), args.format)
    if name is not None:
        environment = environment.model_copy(update={"name": name})
    header = f"Imported from {Path(args.file).name} by sim-mcp import."
    return write_environment(environment, args.output, header=header)
