"""The benchmark's report as text: a line per scenario, the totals, the calls grouped by fields changed, misses."""

from __future__ import annotations

from sim_mcp.episodes.fidelity.report import BenchmarkReport, call_rates

_FAILURES_SHOWN = 40


def render_report(report: BenchmarkReport, *, failures: bool = True) -> str:
    """The report as a table, then the expectations that were not met."""
    model = f" ({report.model})" if report.model else ""
    rules = "counted" if report.rules else "skipped (the backend has no model to read instructions)"
    if not report.rules and report.rules_by_programs:
        rules = "counted where a rules program answers; skipped elsewhere (the backend has no model)"
    header = ["scenario", "env", "steps", "expectations", "met", "score", "rules skipped", "tokens in/out", "latency"]
    rows = [header]
    for item in report.scenarios:
        rows.append(
            [
                item.name,
                item.env,
                str(item.steps),
                str(item.total),
                str(item.met),
                f"{item.score:.1%}",
                str(item.skipped_rules),
                f"{item.tokens.input}/{item.tokens.output}",
                _latency(item.mean_latency_ms),
            ]
        )
    tokens = report.tokens
    rows.append(
        [
            "overall",
            "",
            str(sum(item.steps for item in report.scenarios)),
            str(report.total),
            str(report.met),
            f"{report.score:.1%}",
            str(sum(item.skipped_rules for item in report.scenarios)),
            f"{tokens.input}/{tokens.output}",
            _latency(report.mean_latency_ms),
        ]
    )
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    numeric = set(range(2, len(header)))

    def line(row: list[str]) -> str:
        cells = [
            cell.rjust(width) if i in numeric else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    lines = [f"fidelity of backend {report.backend}{model}; rules: {rules}", ""]
    lines += [line(rows[0]), line(["-" * width for width in widths])]
    lines += [line(row) for row in rows[1:-1]]
    lines += [line(["-" * width for width in widths]), line(rows[-1])]
    lines += ["", *_call_lines(report)]
    reads, agreeing = report.reads
    if reads:
        lines += [
            "",
            f"self-consistency (scenarios without a reference): {agreeing} of {reads} reads agree with what the "
            f"session showed before ({agreeing / reads:.1%})",
        ]
        shown = [f"  {item.name} {text}" for item in report.scenarios for text in item.consistency.disagreements]
        lines += shown[:_FAILURES_SHOWN]
    missed = [(item, result) for item in report.scenarios for result in item.results if not result.passed]
    if failures and missed:
        lines += ["", f"not met ({len(missed)}):"]
        for item, result in missed[:_FAILURES_SHOWN]:
            tag = " [rule]" if result.rule else ""
            lines.append(f"  {item.name} step {result.step + 1} {result.call}{tag}: {result.name}: {result.detail}")
        if len(missed) > _FAILURES_SHOWN:
            lines.append(f"  ... and {len(missed) - _FAILURES_SHOWN} more (--json FILE has them all)")
    return "\n".join(lines)


def _call_lines(report: BenchmarkReport) -> list[str]:
    """Per call: result and state match, all calls, state-changing ones, and by fields changed; then cost."""
    referenced = sum(item.referenced for item in report.scenarios)
    how = (
        f"each call from the reference's state ({referenced} of {len(report.scenarios)} scenarios have a reference)"
        if referenced
        else "no reference: state match from the steps' state checks"
    )
    rows = [["per call", "calls", "result match", "state match"]]
    for label, calls in report.call_groups():
        rates = call_rates(calls)
        if not calls and label.endswith("fields changed"):
            continue
        rows.append([label, str(len(calls)), _percent(rates["result_match"]), _percent(rates["state_match"])])
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = [f"per call: {how}"]
    lines += [
        "  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
        for row in rows
    ]
    cost = report.per_call()
    if cost:
        lines.append(
            f"per call: prompt tokens median {cost['prompt_tokens_median']:,.0f} "
            f"(mean {cost['prompt_tokens_mean']:,.0f}), "
            f"output tokens mean {cost['output_tokens_mean']:,.0f}, seconds median {cost['seconds_median']:.2f} "
            f"(mean {cost['seconds_mean']:.2f})"
        )
    return lines


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _latency(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} ms"
