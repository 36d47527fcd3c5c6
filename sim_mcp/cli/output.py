"""What several commands share: the log-level flag, writing a spec (its flags, its name checked, the file)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sim_mcp.errors import ConfigError

if TYPE_CHECKING:
    from sim_mcp.specs.model import Environment

LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"]


def add_log_level(parser: argparse.ArgumentParser, default: str = "INFO") -> None:
    parser.add_argument("--log-level", dest="log_level", default=default, choices=LOG_LEVELS)


def add_spec_output(parser: argparse.ArgumentParser, *, default_name: str) -> None:
    """The flags of a command that writes a spec: `-o/--output` (`check_spec_output`) and `--name`
    (`environment_name`); `default_name` says where the name comes from without one."""
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        help="file to write: .json as JSON, .yaml or .yml as YAML (default: YAML to standard output)",
    )
    parser.add_argument("--name", help=f"environment name (default: {default_name})")


def environment_name(name: str | None) -> str | None:
    """`--name`, checked against the environment name rule."""
    from pydantic import ValidationError

    from sim_mcp.specs.model import Environment

    if name is not None:
        try:
            Environment(name=name)
        except ValidationError as e:
            raise ConfigError(f"--name: {name!r} is not an environment name: expected 1-64 of A-Z a-z 0-9 _ -") from e
    return name


def check_spec_output(output: Path | None) -> None:
    """Refuse, before any work, an `-o` name that no spec reader would take (nor say which form to write)."""
    from sim_mcp.specs.writer import SPEC_FILE_FORMATS

    if output is not None and output.suffix.lower() not in SPEC_FILE_FORMATS:
        expected = ", ".join(SPEC_FILE_FORMATS)
        raise ConfigError(f"-o/--output: {output}: expected a spec file name ending in {expected}")


def write_environment(environment: Environment, output: Path | None, *, header: str) -> int:
    """Write a spec to `output` (standard output when None) in the form its name asks for: JSON to `.json`,
    YAML to `.yaml` and `.yml` (and to standard output); what is written reads back as `environment`."""
    from sim_mcp.specs.writer import environment_text

    try:
        text = environment_text(environment, output, header=header)
    except ValueError as e:
        raise ConfigError(f"-o/--output: {e}") from e
    return write_spec(text, output, f"{len(environment.tools)} tools")


def write_spec(text: str, output: Path | None, summary: str) -> int:
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"-o/--output: cannot write {output}: {e.strerror or e}") from e
    print(f"wrote {output}: {summary}", file=sys.stderr)
    return 0
