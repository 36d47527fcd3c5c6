"""`sim-mcp compile`: a model writes the rules programs of a spec's tools, checked before they are kept."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sim_mcp.cli.flags import add_setting_flags, settings_from
from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    compile_ = commands.add_parser(
        "compile",
        help="have a model write each tool's rules program, checked against examples, recordings and probe "
        "calls; write those that pass beside the spec (docs/formats.md)",
        description="Write the rules programs of SPEC's tools to SPEC.rules.star, keeping only those that pass "
        "the tool's examples, the recorded calls and probe calls. Without a model: --from DIR, a folder of "
        "`sim-mcp record`'s recordings, builds a twin from them model-free first (docs/twins.md); or `sim-mcp "
        "rules init SPEC` scaffolds a program to fill in by hand. Otherwise a model writes them: --backend "
        "openai or anthropic, with --model.",
    )
    add_setting_flags(compile_, ("llm",))  # the model that writes the programs
    add_log_level(compile_, "WARNING")
    compile_.add_argument("spec", type=Path, metavar="SPEC", help="the spec file (its programs go to SPEC.rules.star)")
    compile_.add_argument(
        "--from",
        dest="recordings",
        type=Path,
        action="append",
        metavar="RECORDINGS|CASSETTE|TRAJECTORIES",
        help="recorded calls: `sim-mcp record`'s recordings (a twin is built from them, no model needed for "
        "what they show), or a cassette (--record) or trajectory files or folders the programs must reproduce",
    )
    compile_.add_argument(
        "--rounds", type=int, default=3, metavar="N", help="attempts per tool, each failure fed back (default 3)"
    )
    compile_.add_argument(
        "--effect-trials",
        type=int,
        metavar="N",
        help="with --from recordings: choices of the tools' effects on the keyed world that the twin's search "
        "evaluates at most, keeping the best found (default 1000; more for a server of many tools and fields)",
    )
    compile_.add_argument(
        "--force", action="store_true", help="compile again the tools whose function already passes (default: keep)"
    )
    compile_.add_argument("--report", type=Path, metavar="FILE", help="also write the per-tool report as JSON")
    compile_.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Compile the spec's tools; print one line per tool as it goes and the programs file at the end.
    Exit 0 when every tool has a program (kept or compiled), 1 when some are left to the LLM."""
    import anyio

    from sim_mcp.cli.twin import is_recording, run_twin

    if args.recordings and all(is_recording(path) for path in args.recordings):
        return run_twin(args)
    from sim_mcp.authoring.programs.compile import CompileReport, compile_environment
    from sim_mcp.authoring.programs.transitions import Recording, read_recordings
    from sim_mcp.engine.backends import load_backend
    from sim_mcp.llm.profiles import profile_for
    from sim_mcp.specs.formats import read_spec_file

    if args.rounds < 1:
        raise ConfigError(f"--rounds: expected 1 or more, got {args.rounds}")
    if not args.spec.is_file():
        raise ConfigError(f"{args.spec}: no such spec file")
    environment = read_spec_file(args.spec)
    recordings: list[Recording] = []
    for path in args.recordings or []:
        recordings += read_recordings(path, environment)
    settings = settings_from(args)
    backend = load_backend(settings)
    if not backend.can_complete():
        raise ConfigError(
            f"compile needs a model: give --backend openai or anthropic (with --model, and --base-url for a local "
            f"server), not {settings.backend}; without one, `sim-mcp rules init {args.spec}` scaffolds the "
            "programs to fill in by hand, and --from DIR builds a twin from `sim-mcp record`'s recordings"
        )
    print(f"compiling {len(environment.tools)} tools of {environment.name} with {backend.name} ({backend.model})")
    if recordings:
        print(f"against {len(recordings)} recorded calls")

    async def compile_all() -> CompileReport:
        await backend.start()
        try:
            return await compile_environment(
                environment,
                args.spec,
                backend,
                recordings=recordings,
                rounds=args.rounds,
                force=args.force,
                profile=profile_for(backend.model, settings.model_profile),
                progress=lambda line: print(line, flush=True),
            )
        finally:
            await backend.aclose()

    report = anyio.run(compile_all)
    kept = sum(tool.status != "failed" for tool in report.tools)
    written = f"wrote {report.programs}" if report.written else f"{report.programs} unchanged"
    print(f"{kept} of {len(report.tools)} tools have a program; {written}")
    if args.report is not None:
        try:
            args.report.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"--report: cannot write {args.report}: {e.strerror or e}") from e
    return 0 if kept == len(report.tools) else 1
