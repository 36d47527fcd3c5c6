"""What several commands share: the log-level flag, writing a spec, checking an environment name."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim_mcp.errors import ConfigError

LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"]


def add_log_level(parser: argparse.ArgumentParser, default: str = "INFO") -> None:
    parser.add_argument("--log-level", dest="log_level", default=default, choices=LOG_LEVELS)


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
