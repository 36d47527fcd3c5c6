"""Figures, their targets, and the table `run.py` prints."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """`ratio <= limit` (at_most) or `ratio >= limit` (not at_most); with a `unit`, the figure's
    value itself is compared (an absolute target, such as KB per session)."""

    limit: float
    at_most: bool = True
    unit: str | None = None

    def met(self, measured: float) -> bool:
        return measured <= self.limit if self.at_most else measured >= self.limit

    def __str__(self) -> str:
        sign = "<=" if self.at_most else ">="
        return f"{sign} {self.limit:g} {self.unit}" if self.unit else f"{sign} {self.limit:g}x"


@dataclass(frozen=True)
class Figure:
    """One measured figure; with a baseline it has a ratio, and with a target a verdict."""

    section: str
    name: str
    value: float
    unit: str
    baseline: float | None = None
    target: Target | None = None
    note: str = ""
    # A figure that fails outright (errors, leaks) whatever its ratio.
    failed: bool = False

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0 or math.isnan(self.baseline):
            return None
        return self.value / self.baseline

    @property
    def verdict(self) -> str:
        if self.failed:
            return "FAIL"
        if self.target is None:
            return ""
        measured = self.value if self.target.unit else self.ratio
        if measured is None or math.isnan(measured):
            return "n/a"
        return "PASS" if self.target.met(measured) else "MISS"


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of `values`, nearest rank; NaN when there are none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))]


def _number(value: float | None, unit: str = "") -> str:
    if value is None or math.isnan(value):
        return "-"
    if abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".strip()


def table(figures: list[Figure]) -> str:
    """A Markdown table of the figures, in order."""
    rows = [
        "| section | figure | sim-mcp | baseline | ratio | target | |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for figure in figures:
        ratio = figure.ratio
        rows.append(
            "| "
            + " | ".join(
                [
                    figure.section,
                    figure.name + (f" ({figure.note})" if figure.note else ""),
                    _number(figure.value, figure.unit),
                    _number(figure.baseline, figure.unit),
                    "-" if ratio is None else f"{ratio:.2f}x",
                    str(figure.target) if figure.target else "",
                    figure.verdict,
                ]
            )
            + " |"
        )
    return "\n".join(rows)
