"""`sim-mcp generate`: a model writes environments from one-line descriptions; only those that pass every
gate are kept (docs/generate.md)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from sim_mcp.cli.flags import add_setting_flags, settings_from
from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError

_USAGE = (
    "sim-mcp generate [DESCRIPTION ...] [--from FILE] [--seeds FILE --count N] -o DIR "
    "--backend openai --model M [--base-url URL] ..."
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    generate = commands.add_parser(
        "generate",
        help="have a model write environments (tools, world, rules programs, tasks) from one-line descriptions; "
        "keep those that pass every gate (docs/generate.md)",
        usage=_USAGE,
    )
    add_setting_flags(generate, ("engine", "llm"))  # the model that writes, and that simulates for agreement
    add_log_level(generate, "WARNING")
    generate.add_argument("descriptions", nargs="*", metavar="DESCRIPTION", help="one-line descriptions")
    generate.add_argument(
        "--from", dest="from_file", type=Path, metavar="FILE", help="a file of descriptions, one a line (# comments)"
    )
    generate.add_argument(
        "--seeds", type=Path, metavar="FILE", help="a file of seed descriptions the model adds to, up to --count"
    )
    generate.add_argument("--count", type=int, metavar="N", help="descriptions in all, with --seeds")
    generate.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="the output folder")
    generate.add_argument("--rounds", type=int, default=3, metavar="N", help="asks per step, failures quoted (3)")
    generate.add_argument(
        "--repairs", type=int, default=2, metavar="N", help="repairs of a failed consistency or agreement gate (2)"
    )
    generate.add_argument(
        "--difficulties", default="1,2", metavar="D,D", help="task difficulties, one proven task each at least (1,2)"
    )
    generate.add_argument("--tasks-per-difficulty", type=int, default=1, metavar="N", help="tasks asked per level (1)")
    generate.add_argument("--tools", default="3-6", metavar="MIN-MAX", help="tools per environment (3-6)")
    generate.add_argument("--records", default="3-8", metavar="MIN-MAX", help="records per collection (3-8)")
    generate.add_argument("--sessions", type=int, default=3, metavar="N", help="generated sessions per environment (3)")
    generate.add_argument("--calls", type=int, default=8, metavar="N", help="calls per generated session (8)")
    generate.add_argument(
        "--agreement-sample", type=int, default=6, metavar="N", help="calls the LLM and the programs both answer (6)"
    )
    generate.add_argument(
        "--agreement", type=float, default=0.5, metavar="SHARE", help="share of them that must agree (0.5)"
    )
    generate.add_argument(
        "--similarity", type=float, default=0.6, metavar="S", help="near-duplicate threshold, 0 to 1 (0.6)"
    )
    generate.add_argument(
        "--jobs", type=int, metavar="N", help="environments written at once (default: --backend-concurrency, at most 8)"
    )
    generate.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Generate every description's environment; print a line per environment and the summary.
    Exit 0 when every environment passed, 1 when some were dropped."""
    import anyio

    from sim_mcp.authoring.generate import Bounds, EnvironmentReport, Options, expand_descriptions, generate_batch
    from sim_mcp.config import EngineConfig, LlmConfig
    from sim_mcp.engine.backends import load_backend
    from sim_mcp.llm.profiles import profile_for
    from sim_mcp.rules import Limits

    settings = settings_from(args)
    descriptions = list(args.descriptions)
    if args.from_file is not None:
        descriptions += _lines(args.from_file, "--from")
    seeds = _lines(args.seeds, "--seeds") if args.seeds is not None else []
    if args.count is not None and not seeds:
        raise ConfigError("--count: give --seeds FILE, the descriptions the model adds to")
    if not descriptions and not seeds:
        raise ConfigError("no descriptions: give them as arguments, --from FILE, or --seeds FILE --count N")
    options = Options(
        bounds=Bounds(*_range(args.tools, "--tools"), *_range(args.records, "--records")),
        rounds=_positive(args.rounds, "--rounds"),
        repairs=max(0, args.repairs),
        difficulties=tuple(_levels(args.difficulties)),
        tasks_per_difficulty=_positive(args.tasks_per_difficulty, "--tasks-per-difficulty"),
        sessions=max(0, args.sessions),
        calls=max(1, args.calls),
        agreement_sample=max(0, args.agreement_sample),
        agreement=args.agreement,
        seed=settings.seed,
        engine=EngineConfig.of(settings),
        llm=LlmConfig.of(settings),
    )
    backend = load_backend(LlmConfig.of(settings), Limits.of(EngineConfig.of(settings)))
    if not backend.can_complete():
        raise ConfigError(
            f"generate needs a model: give --backend openai or anthropic (with --model, and --base-url for a local "
            f"server), not {settings.backend}"
        )
    options = Options(**{**options.__dict__, "profile": profile_for(backend.model, settings.model_profile)})
    jobs = args.jobs if args.jobs is not None else min(8, settings.backend_concurrency)
    output: Path = args.output
    bar = _Bar(sys.stderr)

    async def generate() -> int:
        await backend.start()
        try:
            wanted = descriptions
            if seeds:
                listed = output / "descriptions.txt"
                if listed.is_file():
                    expanded = _lines(listed, "descriptions.txt")
                else:
                    expanded = await expand_descriptions(seeds, args.count or len(seeds), backend)
                    _write_lines(listed, expanded)
                bar.note(f"{len(expanded)} descriptions from {len(seeds)} seeds (in {listed})")
                wanted = descriptions + expanded
            bar.total = len(dict.fromkeys(line.strip() for line in wanted))
            bar.note(f"generating {bar.total} environments with {backend.name} ({backend.model}), {jobs} at a time")

            def finished(report: EnvironmentReport) -> None:
                bar.finish(report.line(), report.status == "passed")

            summary = await generate_batch(
                wanted,
                output,
                backend,
                options,
                jobs=jobs,
                threshold=args.similarity,
                finished=finished,
                progress=bar.note,
            )
        finally:
            await backend.aclose()
        bar.close()
        for line in summary.lines():
            print(line)
        print(f"kept in {output / 'envs'} (serve them: sim-mcp serve --specs {output / 'envs'}); reports in {output}")
        return 0 if all(report.status == "passed" for report in summary.reports) else 1

    try:
        result: int = anyio.run(generate)
    except OSError as e:
        raise ConfigError(f"-o/--output: cannot write to {output}: {e.strerror or e}") from e
    return result


class _Bar:
    """A progress bar on stderr (redrawn in place on a terminal; a line per environment otherwise)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.total = 0
        self.done = 0
        self.passed = 0
        self.began = time.monotonic()

    def _clear(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K")

    def _draw(self) -> None:
        width = 30
        filled = width * self.done // self.total if self.total else 0
        elapsed = int(time.monotonic() - self.began)
        line = (
            f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} done, {self.passed} passed, "
            f"{self.done - self.passed} dropped, {elapsed // 60}m{elapsed % 60:02d}s"
        )
        if self.tty:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def note(self, line: str) -> None:
        self._clear()
        self.stream.write(line + "\n")
        if self.tty and self.total:
            self._draw()
        self.stream.flush()

    def finish(self, line: str, passed: bool) -> None:
        self.done += 1
        self.passed += passed
        self._clear()
        self.stream.write(line + "\n")
        self._draw()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _lines(path: Path, flag: str) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{flag}: cannot read {path}: {e.strerror or e}") from e
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _range(text: str, flag: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        bounds = int(low), int(high or low)
    except ValueError:
        raise ConfigError(f"{flag}: expected MIN-MAX such as 3-6, got {text!r}") from None
    if not 1 <= bounds[0] <= bounds[1]:
        raise ConfigError(f"{flag}: expected 1 <= MIN <= MAX, got {text!r}")
    return bounds


def _levels(text: str) -> list[int]:
    try:
        levels = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise ConfigError(f"--difficulties: expected levels such as 1,2, got {text!r}") from None
    if not levels or levels[0] < 1:
        raise ConfigError(f"--difficulties: expected levels of 1 or more, got {text!r}")
    return levels


def _positive(value: int, flag: str) -> int:
    if value < 1:
        raise ConfigError(f"{flag}: expected 1 or more, got {value}")
    return value
