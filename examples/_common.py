"""What the examples share: their command line, and a sim-mcp server (their own, or the one named)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

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


def check_model(base_url: str | None, api_key: str) -> None:
    """Exit with a message naming `base_url` if no OpenAI-compatible model answers there."""
    if base_url is None:
        return
    try:
        httpx.get(f"{base_url.rstrip('/')}/models", headers={"Authorization": f"Bearer {api_key}"}, timeout=10)
    except httpx.TransportError as e:
        sys.exit(
            f"cannot reach an OpenAI-compatible model at {base_url} ({e}): start one (e.g. "
            "bash ../shared/local-llm/start.sh, or vLLM), or leave out --base-url to use the scripted model"
        )


@contextmanager
def sim_server(url: str | None) -> Iterator[str]:
    """The URL of the server named, or of a `sim-mcp serve` started for the example (offline backend)."""
    if url:
        yield url
        return
    with LocalServer(specs=SPECS) as server:
        yield server.url
