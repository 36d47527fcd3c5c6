"""Many descriptions at once: environments written concurrently, kept only when they pass every gate.

The output folder:

- `envs/`: what passed, served as it is (`sim-mcp serve --specs OUT/envs`): each environment's spec, its
  `.rules.star` and its tasks under `envs/tasks/`. Nothing else is ever written there.
- `work/<key>/`: each description's files while it runs (left for a look when it is dropped).
- `reports/<key>.json`: each description's report; `summary.json`: the batch's.

A rerun skips every description whose environment passed (its report says so and its spec is in `envs/`),
and does the rest. Environments run `jobs` at a time (the provider's concurrency limit still holds every
request, in the backend's transport). A near-duplicate of an environment kept or being written (by the
words of its tool names and descriptions) is dropped at the gate `distinct`.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio

from sim_mcp.authoring.generate.forms import DESCRIPTIONS, descriptions_prompt
from sim_mcp.authoring.generate.pipeline import Generated, Options, generate_environment
from sim_mcp.authoring.generate.report import EnvironmentReport, Summary
from sim_mcp.authoring.programs.compile import programs_path
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.intent import split_words
from sim_mcp.episodes.asking import Problem, ask_json
from sim_mcp.episodes.tasks import task_yaml
from sim_mcp.errors import ConfigError, SpecError
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.model import Environment

__all__ = ["description_key", "expand_descriptions", "generate_batch", "similarity"]

_WORD = re.compile(r"[a-z][a-z0-9]{2,}")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "their",
        "each",
        "are",
        "can",
        "its",
        "all",
        "any",
        "has",
        "have",
        "who",
        "what",
        "when",
        "where",
        "which",
        "your",
        "our",
        "you",
        "they",
        "them",
        "one",
        "two",
        "per",
        "via",
        "not",
        "but",
        "also",
        "get",
        "list",
        "create",
        "update",
        "delete",
        "set",
        "tool",
        "tools",
        "record",
        "records",
        "service",
        "system",
        "environment",
    ]
)


def description_key(description: str) -> str:
    """A folder name for a description: its first words and a hash of the whole."""
    words = "-".join(_WORD.findall(description.lower())[:5])[:40].strip("-") or "environment"
    return f"{words}-{hashlib.sha256(description.strip().encode()).hexdigest()[:8]}"


def _words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if word not in _STOP}


def _signature(environment: Environment) -> tuple[set[str], set[str]]:
    """The words of an environment's tool names, and of its descriptions."""
    names = {word.lower() for tool in environment.tools for word in split_words(tool.name)} - _STOP
    text = " ".join([environment.description, *(tool.description for tool in environment.tools)])
    return names, _words(text)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def similarity(a: Environment, b: Environment) -> float:
    """How alike two environments are, 0 to 1: the mean of the Jaccard similarities of their tool names'
    words and of their descriptions' words."""
    (names_a, text_a), (names_b, text_b) = _signature(a), _signature(b)
    return (_jaccard(names_a, names_b) + _jaccard(text_a, text_b)) / 2


class _Batch:
    """What concurrent runs share: the names taken and the environments kept or claimed."""

    def __init__(self, envs: Path, threshold: float) -> None:
        self.envs = envs
        self.threshold = threshold
        self.kept: dict[str, Environment] = {}
        self.names: set[str] = set()
        for path in sorted(envs.glob("*.yaml")) if envs.is_dir() else []:
            try:
                environment = read_spec_file(path)
            except SpecError:
                continue
            self.kept[environment.name] = environment
            self.names.add(environment.name)

    def name_for(self, proposed: str) -> str:
        name, number = proposed, 2
        while name in self.names:
            suffix = f"-{number}"
            name, number = proposed[: 64 - len(suffix)] + suffix, number + 1
        self.names.add(name)
        return name

    def distinct(self, environment: Environment) -> str | None:
        for name, other in self.kept.items():
            if name != environment.name and similarity(environment, other) >= self.threshold:
                return f"{name} (similarity {similarity(environment, other):.2f})"
        self.kept[environment.name] = environment  # claimed while it runs: the next alike one is the duplicate
        return None

    def release(self, name: str | None) -> None:
        if name is not None:
            self.kept.pop(name, None)
            self.names.discard(name)


async def generate_batch(
    descriptions: Sequence[str],
    output: Path,
    backend: Backend,
    options: Options,
    *,
    jobs: int = 4,
    threshold: float = 0.6,
    started: Callable[[str], None] = lambda key: None,
    finished: Callable[[EnvironmentReport], None] = lambda report: None,
    progress: Callable[[str], None] = lambda line: None,
) -> Summary:
    """Generate an environment per description into `output` (see the module); the summary covers every
    description, those a previous run passed included."""
    began = time.perf_counter()
    envs, reports_folder = output / "envs", output / "reports"
    for folder in (envs, envs / "tasks", reports_folder, output / "work"):
        folder.mkdir(parents=True, exist_ok=True)
    batch = _Batch(envs, threshold)
    unique = list(dict.fromkeys(description.strip() for description in descriptions if description.strip()))
    reports: dict[str, EnvironmentReport] = {}
    to_run: list[tuple[str, str]] = []
    for description in unique:
        key = description_key(description)
        previous = _previous(reports_folder / f"{key}.json", envs)
        if previous is not None:
            reports[key] = previous
            finished(previous)
        else:
            to_run.append((key, description))
    limiter = anyio.CapacityLimiter(max(1, jobs))

    async def run(key: str, description: str) -> None:
        async with limiter:
            started(key)
            work = output / "work" / key
            shutil.rmtree(work, ignore_errors=True)
            generated = await generate_environment(
                description,
                backend,
                work,
                options,
                key=key,
                name_for=batch.name_for,
                distinct=batch.distinct,
                progress=progress,
            )
            report = generated.report
            if report.status == "passed":
                _ship(generated, envs)
            elif report.failed_gate != "distinct":
                batch.release(report.name)
            _write_json(reports_folder / f"{key}.json", report.to_json())
            reports[key] = report
            # The summary so far, so that a run cut short leaves one of what it finished.
            done = [reports[description_key(d)] for d in unique if description_key(d) in reports]
            _write_json(output / "summary.json", Summary(done, backend.model, time.perf_counter() - began).to_json())
            finished(report)

    async with anyio.create_task_group() as group:
        for key, description in to_run:
            group.start_soon(run, key, description)
    summary = Summary(
        [reports[description_key(description)] for description in unique],
        backend.model,
        time.perf_counter() - began,
    )
    _write_json(output / "summary.json", summary.to_json())
    return summary


def _previous(path: Path, envs: Path) -> EnvironmentReport | None:
    """The report of a run that passed and whose environment is still in `envs/`; None: run it (again)."""
    try:
        report = EnvironmentReport.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if report.status != "passed" or report.name is None or not (envs / f"{report.name}.yaml").is_file():
        return None
    return report


def _ship(generated: Generated, envs: Path) -> None:
    """Copy what passed into `envs/`: the tasks and the programs first, the spec (which makes it served) last."""
    assert generated.spec is not None
    description = generated.report.description
    for task in generated.tasks:
        header = f"Generated by sim-mcp generate from: {description}; proven by replaying its reference solution."
        (envs / "tasks" / f"{task.name}.yaml").write_text(task_yaml(task, header=header), encoding="utf-8")
    shutil.copyfile(programs_path(generated.spec), programs_path(envs / generated.spec.name))
    shutil.copyfile(generated.spec, envs / generated.spec.name)


def _write_json(path: Path, document: Any) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        temporary.replace(path)
    except OSError as e:
        raise ConfigError(f"cannot write {path}: {e.strerror or e}") from e


async def expand_descriptions(
    seeds: Sequence[str], count: int, backend: Backend, *, threshold: float = 0.5, rounds: int = 3
) -> list[str]:
    """`count` descriptions: the seeds, then the model's, asked for in groups of up to ten with what is there
    so far; one whose words are too like one already there (Jaccard `threshold`) is left out."""
    have = [seed.strip() for seed in seeds if seed.strip()]
    misses = 0
    while len(have) < count and misses < rounds:
        wanted = min(10, count - len(have))

        def read(value: dict[str, Any]) -> list[str] | Problem:
            items = value.get("descriptions")
            if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
                return Problem('"descriptions" must be a list of strings')
            return [item.strip() for item in items if len(item.strip()) > 10]

        answer = await ask_json(
            backend,
            DESCRIPTIONS.request(descriptions_prompt(have[: len(seeds)], have, wanted)),
            read,
            attempts=rounds,
            what="list",
        )
        added = 0
        for item in answer.value or []:
            if len(have) >= count:
                break
            if all(_jaccard(_words(item), _words(other)) < threshold for other in have):
                have.append(item)
                added += 1
        misses = 0 if added else misses + 1
    return have[:count]
