"""A catalogue of many environments in one folder: `sim-mcp check`'s time, the time until `sim-mcp serve`
answers, and its resident memory, at 10, 100 and 1,000 environments.

    python -m benchmarks.catalogue --sizes 10,100,1000
    python -m benchmarks.catalogue --against 0496d9c          # a commit of this repository, side by side
    python -m benchmarks.catalogue --against /path/to/checkout --variants distinct

The folder holds copies of the bundled environments (tool_specs/: four of them, 7.75 tools each on average,
each with its rules program beside it), renamed `bank_0000`, `calendar_0001`... Two variants:

- `copies`: the files as they are, only the name changed: what a folder of copies costs, where a loader that
  checks each distinct schema or program once does the least work;
- `distinct`: every schema and every program made distinct (a description naming the copy in each input and
  output schema; a comment naming it in each program), so that no cache by content helps: what a folder of
  that many different environments costs.

For each size and variant, in a fresh process each: `check` is the wall time of `sim-mcp check FOLDER` (it
must exit 0); `healthz` the wall time from starting `sim-mcp serve --transport http --specs FOLDER` to its
first `200` on `/healthz`, `readyz` to its first `200` on `/readyz`, and `CPU to /healthz` the CPU time
(user and system) the server process had used by then, which a busy machine changes less than wall time
(the machine this runs on is shared: the load average is printed); `first call` the wall time of one
`tools/call` on `/mcp/{env}` after that (`list_accounts` of `bank_0000`: its program is compiled then, in a
server that loads programs lazily); `RSS` the server's resident memory (VmRSS) after that call and after the
server has checked every environment's rules program (when its `/readyz` reports `rules_checked`). With
`--against REV` (a commit, checked out from this repository with `git archive` into a temporary folder, or a
folder holding another checkout) every figure is measured there too, the two alternating; `--against-up-to N`
measures it there only up to N environments (a slow side at 1,000 takes many minutes). A check or start that
takes over `--timeout` seconds is reported as such, and the run goes on.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import yaml

from benchmarks.servers import REPO, cpu_seconds, free_port, rss_bytes
from benchmarks.wire import Connection

BUNDLED = REPO / "tool_specs"
VARIANTS = ("copies", "distinct")
RULES_SUFFIX = ".rules.star"
FIRST_CALL: tuple[str, str, dict[str, Any]] = ("bank_0000", "list_accounts", {})
_NAME_LINE = re.compile(r"^name: .*$", re.MULTILINE)


@dataclass(frozen=True)
class Figures:
    check_s: float
    healthz_s: float
    ready_cpu_s: float
    readyz_s: float
    first_call_ms: float
    rss_mb: float


def make_catalogue(folder: Path, count: int, variant: str) -> list[str]:
    """`count` environments in `folder` (copies of the bundled ones, in turn), each with its rules program;
    returns their names."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: expected one of {', '.join(VARIANTS)}")
    folder.mkdir(parents=True, exist_ok=True)
    bases = sorted(path.stem for path in BUNDLED.glob("*.yaml"))
    texts = {base: (BUNDLED / f"{base}.yaml").read_text() for base in bases}
    programs = {base: (BUNDLED / f"{base}{RULES_SUFFIX}").read_text() for base in bases}
    names = []
    for index in range(count):
        base = bases[index % len(bases)]
        name = f"{base}_{index:04d}"
        names.append(name)
        program = programs[base]
        if variant == "copies":
            text = _NAME_LINE.sub(f"name: {name}", texts[base], count=1)
        else:
            text = _distinct(texts[base], name)
            program = f"# {name}: its own copy of the {base} program.\n{program}"
        (folder / f"{name}.yaml").write_text(text)
        (folder / f"{name}{RULES_SUFFIX}").write_text(program)
    return names


def _distinct(text: str, name: str) -> str:
    """The spec renamed, with a description naming the copy at the root of each tool's schemas."""
    document = yaml.safe_load(text)
    document["name"] = name
    for tool in document["tools"]:
        for key in ("input_schema", "output_schema"):
            schema = tool.get(key)
            if isinstance(schema, dict):
                schema["description"] = f"{schema.get('description', tool['name'])} ({name})"
    dumped: str = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=120)
    return dumped


@contextmanager
def checkout(against: str) -> Iterator[Path]:
    """A folder holding `against`: itself if it is one, else that commit of this repository (`git archive`)."""
    if Path(against).is_dir():
        yield Path(against).resolve()
        return
    with tempfile.TemporaryDirectory(prefix="sim-mcp-against-") as folder:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", against], capture_output=True, check=False)
        if archive.returncode != 0:
            raise SystemExit(f"--against {against}: {archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        yield Path(folder)


def _env(side: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(side)}


def time_check(side: Path, folder: Path, timeout: float) -> float:
    """Wall seconds of `sim-mcp check FOLDER` run in `side`; it must find every file valid."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sim_mcp.cli", "check", str(folder)],
        cwd=side,
        env=_env(side),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-10:])
        raise RuntimeError(f"sim-mcp check {folder} (in {side}) exited {done.returncode}:\n{tail}")
    return elapsed


def time_serve(side: Path, folder: Path, timeout: float) -> tuple[float, float, float, float, float]:
    """Seconds to `/healthz`, CPU seconds by then, seconds to `/readyz`, the first call's milliseconds, and
    resident MB once every rules program is checked, for `sim-mcp serve` run in `side` on `folder`."""
    port = free_port()
    command = [sys.executable, "-m", "sim_mcp.cli", "serve", "--transport", "http", "--port", str(port)]
    command += ["--specs", str(folder), "--log-level", "WARNING"]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=side, env=_env(side), stdout=log, stderr=subprocess.STDOUT)
        try:
            healthz = _until(process, log, f"{base}/healthz", started, timeout)
            ready_cpu = cpu_seconds(process.pid)
            readyz = _until(process, log, f"{base}/readyz", started, timeout)
            env, tool, arguments = FIRST_CALL
            call_started = time.perf_counter()
            anyio.run(_call, base, env, tool, arguments)
            first_call_ms = (time.perf_counter() - call_started) * 1000
            _until_rules_checked(base, started, timeout)
            rss = rss_bytes(process.pid) / 2**20
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return healthz, ready_cpu, readyz, first_call_ms, rss


async def _call(base: str, env: str, tool: str, arguments: dict[str, Any]) -> None:
    connection = Connection(base)
    try:
        result = await connection.call(f"/mcp/{env}", "catalogue-bench", tool, arguments)
    finally:
        await connection.aclose()
    if result.get("isError"):
        raise RuntimeError(f"{tool} on /mcp/{env} answered an error: {result}")


def _until(process: subprocess.Popen[bytes], log: Any, url: str, started: float, timeout: float) -> float:
    while time.perf_counter() - started < timeout:
        if process.poll() is not None:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"sim-mcp serve exited {process.returncode}:\n{tail}")
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return time.perf_counter() - started
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"{url}: no 200 within {timeout:g} s")


def _until_rules_checked(base: str, started: float, timeout: float) -> None:
    """Wait until `/readyz` says every environment's program is checked (a server that reports no such count
    checked them all before it served)."""
    while time.perf_counter() - started < timeout:
        body = httpx.get(f"{base}/readyz", timeout=5).json()
        if "rules_checked" not in body or body["rules_checked"] >= len(body["environments"]):
            return
        time.sleep(0.1)
    raise TimeoutError(f"{base}: the rules programs were not all checked within {timeout:g} s")


def measure_one(side: Path, folder: Path, timeout: float) -> Figures:
    """One side's figures on one folder; a part over `timeout` is infinite (and the parts after it, unmeasured)."""
    try:
        check_s = time_check(side, folder, timeout)
    except subprocess.TimeoutExpired:
        check_s = math.inf
    try:
        healthz, ready_cpu, readyz, first_call_ms, rss = time_serve(side, folder, timeout)
    except TimeoutError:
        healthz = ready_cpu = readyz = first_call_ms = rss = math.inf
    return Figures(check_s, healthz, ready_cpu, readyz, first_call_ms, rss)


def measure(
    sizes: list[int],
    variants: list[str],
    runs: int,
    against: str | None,
    timeout: float,
    against_up_to: int | None = None,
) -> str:
    with tempfile.TemporaryDirectory(prefix="sim-mcp-catalogue-") as scratch, _sides(against) as sides:
        figures: Measured = {}
        for variant in variants:
            for size in sizes:
                folder = Path(scratch) / f"{variant}-{size}"
                make_catalogue(folder, size, variant)
                for run in range(runs):
                    order = list(sides) if run % 2 == 0 else list(reversed(sides))
                    for name in order:
                        if name != "this" and against_up_to is not None and size > against_up_to:
                            continue
                        found = measure_one(sides[name], folder, timeout)
                        figures.setdefault((variant, size, name), []).append(found)
                        print(f"run {run + 1}: {variant}, {size} environments ({name}): {found}", flush=True)
                shutil.rmtree(folder)
    return table(figures, sizes, variants, list(sides), runs)


@contextmanager
def _sides(against: str | None) -> Iterator[dict[str, Path]]:
    if against is None:
        yield {"this": REPO}
        return
    with checkout(against) as other:
        yield {"this": REPO, against: other}


Measured = dict[tuple[str, int, str], list[Figures]]


def table(figures: Measured, sizes: list[int], variants: list[str], sides: list[str], runs: int) -> str:
    """The medians, a row per variant, size and side."""

    lines = [
        f"{runs} run(s), medians; load average {os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} CPUs",
        "",
        "| variant | environments | side | check | serve: /healthz | CPU to /healthz | /readyz | first call | RSS |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for variant in variants:
        for size in sizes:
            for side in sides:
                found = figures.get((variant, size, side))
                if found is None:
                    lines.append(f"| {variant} | {size:,} | {side} | not measured | | | | | |")
                    continue

                def median(field: str, unit: str, digits: int = 1, found: list[Figures] = found) -> str:
                    value = float(statistics.median(getattr(figure, field) for figure in found))
                    return f"{value:.{digits}f} {unit}" if math.isfinite(value) else "timed out"

                lines.append(
                    f"| {variant} | {size:,} | {side} | {median('check_s', 's')} | {median('healthz_s', 's')} "
                    f"| {median('ready_cpu_s', 's')} | {median('readyz_s', 's')} "
                    f"| {median('first_call_ms', 'ms', 0)} | {median('rss_mb', 'MB', 0)} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100,1000", help="environments per folder, separated by ','")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"separated by ',' (of {', '.join(VARIANTS)})")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--against", help="a commit of this repository, or a folder with another checkout")
    parser.add_argument("--against-up-to", type=int, help="measure --against only up to this many environments")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds one check or start may take")
    args = parser.parse_args()
    variants = [variant.strip() for variant in args.variants.split(",") if variant.strip()]
    if unknown := sorted(set(variants) - set(VARIANTS)):
        parser.error(f"--variants: unknown {', '.join(unknown)}; expected some of {', '.join(VARIANTS)}")
    sizes = [int(size) for size in args.sizes.split(",")]
    print(measure(sizes, variants, args.runs, args.against, args.timeout, args.against_up_to))


if __name__ == "__main__":
    main()
