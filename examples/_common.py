"""What the examples share: their command line, and a sim-mcp server (their own, or the one named)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sim_mcp.client import LocalServer

SPECS = Path(__file__).resolve().parents[1] / "tool_specs"


def parser(description: str, *, model: bool = False) -> argparse.ArgumentParser:
    """`--task`, `--seed`, `--server`; with `model`, `--base-url`, `--model` and `--api-key` for a real model."""
    args = argparse.ArgumentParser(description=description)
    args.add_argument("--task", default="tickets-close-sso", help="a task of the server (default: %(default)s)")
    args.add_argument("--seed", type=int, default=1, help="the session's seed (default: %(default)s)")
    args.add_argument("--server", help="a running sim-mcp server's URL (default: start one on 127.0.0.1)")
    if model:
        args.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: a scripted one, offline)")
        args.add_argument("--model", default="scripted", help="the model's name at --base-url")
        args.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "none"), help="its key, if any")
    return args


@contextmanager
def sim_server(url: str | None) -> Iterator[str]:
    """The URL of the server named, or of a `sim-mcp serve` started for the example (offline backend)."""
    if url:
        yield url
        return
    with LocalServer(specs=SPECS) as server:
        yield server.url
