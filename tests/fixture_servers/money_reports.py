"""A money calculator MCP server (`python -m tests.fixture_servers.money_reports`): each tool answers a text
report whose numbers are formulas of the call's numbers (a difference, a ratio as a percent, an annuity
payment, a rate below a cap and above a threshold, a total of the lines before it), written as money with
thousands grouped and a fixed number of decimals, or as many as an argument asks."""

from __future__ import annotations

import math
from typing import Any

from tests.fixture_servers._stdio import serve, tool

NUMBER = {"type": "number"}
TOOLS = [
    tool(
        "format_amount",
        "Write an amount as money.",
        {"amount": NUMBER, "places": {"type": "integer", "default": 2}},
        ["amount"],
    ),
    tool("margin_report", "Profit, margin and markup of a sale.", {"price": NUMBER, "cost": NUMBER}, ["price", "cost"]),
    tool(
        "loan_report",
        "Monthly payment of a loan.",
        {"amount": NUMBER, "rate_pct": NUMBER, "years": {"type": "integer"}},
        ["amount", "rate_pct", "years"],
    ),
    tool("wage_report", "Levies on a yearly wage.", {"wage": NUMBER}, ["wage"]),
    tool("change_report", "How much a value rose or fell.", {"before": NUMBER, "after": NUMBER}, ["before", "after"]),
    tool(
        "schedule_report",
        "An amount paid off in equal yearly parts.",
        {"amount": NUMBER, "years": {"type": "integer"}},
        ["amount", "years"],
    ),
    # A number no formula of the twin's language computes.
    tool("wave_report", "The height of a wave at a time.", {"time": NUMBER}, ["time"]),
]

# A levy on the wage up to a cap, one on all of it, and a surcharge above a threshold.
CAP, CAPPED_RATE, FLAT_RATE, THRESHOLD, SURCHARGE = 150000, 0.05, 0.02, 250000, 0.01


def _money(value: float, places: int = 2) -> str:
    return f"${value:,.{places}f}"


def answer(name: str, args: dict[str, Any]) -> tuple[str, bool]:
    """The text a call is answered with, and whether it is an error."""
    if name == "format_amount":
        return _money(float(args["amount"]), int(args.get("places", 2))), False
    if name == "margin_report":
        price, cost = float(args["price"]), float(args["cost"])
        if price <= 0 or cost <= 0:
            return "Error: price and cost must be positive.", True
        profit = price - cost
        lines = [
            f"Profit: {_money(profit)}",
            f"Margin: {profit / price * 100:.2f}%",
            f"Markup: {profit / cost * 100:.2f}%",
        ]
        return "\n".join(lines), False
    if name == "loan_report":
        amount, rate, months = float(args["amount"]), float(args["rate_pct"]) / 100 / 12, int(args["years"]) * 12
        payment = amount * rate / (1 - (1 + rate) ** -months)
        total = payment * months
        lines = [
            f"Loan: {_money(amount)} over {months} months",
            f"Payment: {_money(payment)}",
            f"Total: {_money(total)}",
            f"Interest: {_money(total - amount)}",
        ]
        return "\n".join(lines), False
    if name == "change_report":
        before, after = float(args["before"]), float(args["after"])
        if before <= 0:
            return "Error: before must be positive.", True
        change = after - before
        word = "rise" if change > 0 else "fall" if change < 0 else "no change"
        return f"Change: {_money(change)}\nPercent: {change / before * 100:.2f}% {word}", False
    if name == "schedule_report":
        amount, years = float(args["amount"]), int(args["years"])
        part, left, lines = amount / years, amount, [f"Schedule of {_money(amount)}"]
        for year in range(1, years + 1):
            left -= part
            lines.append(f"Year {year:>2}: Paid ${part:>10,.2f}  Left ${left:>10,.2f}")
        return "\n".join(lines), False
    if name == "wave_report":
        return f"Height: {math.sin(float(args['time'])) * 100:,.2f} cm", False
    wage = float(args["wage"])
    capped, flat, extra = min(wage, CAP) * CAPPED_RATE, wage * FLAT_RATE, max(wage - THRESHOLD, 0) * SURCHARGE
    lines = [
        f"Wage:      {_money(wage)}",
        f"Pension:   {_money(capped)}",
        f"Health:    {_money(flat)}",
        f"Surcharge: {_money(extra)}",
        f"Net:       {_money(wage - capped - flat - extra)}",
    ]
    return "\n".join(lines), False


def main() -> None:
    serve("money-reports", TOOLS, answer)


if __name__ == "__main__":
    main()
