"""`sim-mcp compile SPEC --from RECORDINGS` where the recordings are `sim-mcp record`'s: build a twin."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import anyio

from sim_mcp.cli.flags import settings_from
from sim_mcp.errors import ConfigError


def is_recording(path: Path) -> bool:
    """A recording folder of `sim-mcp record`, or a file whose first call line is one of its lines."""
    from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME

    if path.is_dir():
        return (path / RECORDINGS_NAME).is_file()
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.strip():
                    entry = json.loads(line)
                    return isinstance(entry, dict) and "seq" in entry and ("result" in entry or "rpc_error" in entry)
    except (OSError, ValueError):
        return False
    return False


def run_twin(args: argparse.Namespace) -> int:
    from sim_mcp.authoring.twins.build import TwinReport, build_twin
    from sim_mcp.authoring.twins.keyed_world import EFFECT_TRIALS
    from sim_mcp.engine.backends import Backend, load_backend

    trials = EFFECT_TRIALS if args.effect_trials is None else args.effect_trials
    if trials < 1:
        raise ConfigError(f"--effect-trials: expected 1 or more, got {trials}")
    if not args.spec.is_file():
        raise ConfigError(f"{args.spec}: no such spec file (sim-mcp record -o DIR writes DIR/spec.yaml)")
    settings = settings_from(args)
    backend: Backend | None = load_backend(settings) if settings.backend != "offline" else None
    if backend is not None and not backend.can_complete():
        raise ConfigError(f"--backend {settings.backend}: cannot write programs; give openai or anthropic, or none")
    print(f"building a twin of {args.spec} from {', '.join(map(str, args.recordings))}", flush=True)

    async def build() -> TwinReport:
        if backend is not None:
            await backend.start()
        try:
            return await build_twin(
                args.spec,
                list(args.recordings),
                backend,
                rounds=args.rounds,
                effect_trials=trials,
                progress=lambda line: print(line, flush=True),
            )
        finally:
            if backend is not None:
                await backend.aclose()

    report = anyio.run(build)
    for problem in report.problems:
        print(f"sim-mcp compile: {problem}", file=sys.stderr)
    counts = {
        status: sum(entry["status"] == status for entry in report.tools.values())
        for status in ("exact", "model", "guarded", "llm")
    }
    print(
        f"{report.sessions} sessions, {report.calls} calls: {counts['exact']} tools exact without a model, "
        f"{counts['model']} written by the model, {counts['guarded']} guarded (what the recordings show exactly, "
        f"the rest handed on), {counts['llm']} left to the LLM at run time; wrote {report.spec} and {report.programs}"
    )
    if args.report is not None:
        try:
            args.report.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"--report: cannot write {args.report}: {e.strerror or e}") from e
    return 0 if counts["llm"] == 0 and counts["guarded"] == 0 else 1
