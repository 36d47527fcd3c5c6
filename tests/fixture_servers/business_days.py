"""A business-day calendar MCP server (`python -m tests.fixture_servers.business_days`): days are ISO dates,
a region's code is read ignoring case and answered upper-cased, Saturday and Sunday are weekend days, and
each region keeps its own named days (holidays: a fixed table per year, as a holiday library computes it).
It answers whether a day is a business day, the next business day (from the day itself where `inclusive`),
the business days between two days (the end excluded unless `inclusive`) with the named weekdays in that
range, a month's last business day, and a year's named days. Stateless; an unknown region, a day that is
no date and a range that ends before it starts are refused."""

from __future__ import annotations

import datetime
from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

_DAY = {"type": "string"}
_REGION = {"region": {"type": "string"}}
_INCLUSIVE = {"inclusive": {"type": "boolean", "default": False}}
TOOLS = [
    tool(
        "is_business_day", "Whether a day is a business day in a region.", {"day": _DAY, **_REGION}, ["day", "region"]
    ),
    tool(
        "next_business_day",
        "The first business day after a day (or from it, inclusive).",
        {"day": _DAY, **_REGION, **_INCLUSIVE},
        ["day", "region"],
    ),
    tool(
        "business_days_between",
        "How many business days lie between two days, and the holidays among them.",
        {"start": _DAY, "end": _DAY, **_REGION, **_INCLUSIVE},
        ["start", "end", "region"],
    ),
    tool(
        "last_business_day",
        "A month's last business day.",
        {"year": {"type": "integer"}, "month": {"type": "integer"}, **_REGION},
        ["year", "month", "region"],
    ),
    tool(
        "list_holidays", "A region's holidays in a year.", {"year": {"type": "integer"}, **_REGION}, ["year", "region"]
    ),
]

# Per region, (month, day, name) of each year's named days; a few fall on a weekend in some years.
_HOLIDAYS = {
    "XA": [
        (1, 1, "First Day"),
        (3, 17, "Spring Feast"),
        (7, 4, "Harbour Day"),
        (11, 23, "Lantern Day"),
        (12, 25, "Midwinter"),
    ],
    "XB": [
        (1, 1, "First Day"),
        (5, 1, "Labour Day"),
        (8, 15, "Harvest Day"),
        (10, 3, "Unity Day"),
        (12, 26, "Gift Day"),
    ],
}


def _holidays(region: str, year: int) -> dict[datetime.date, str]:
    return {datetime.date(year, month, day): name for month, day, name in _HOLIDAYS[region]}


def _business(region: str, day: datetime.date) -> bool:
    return day.weekday() < 5 and day not in _holidays(region, day.year)


class BusinessDays:
    """The server: `call(tool, arguments)` answers (text, is_error)."""

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        region = str(args.get("region", "")).upper()
        if region not in _HOLIDAYS:
            return f"Unknown region: {args.get('region')}", True
        try:
            days = {key: datetime.date.fromisoformat(args[key]) for key in ("day", "start", "end") if key in args}
        except ValueError:
            return "Invalid date; use YYYY-MM-DD", True
        inclusive = bool(args.get("inclusive", False))
        if name == "is_business_day":
            day = days["day"]
            named = _holidays(region, day.year).get(day)
            weekend = day.weekday() >= 5
            answer = {"day": day.isoformat(), "region": region, "is_business_day": not weekend and named is None}
            return as_json(answer | {"is_weekend": weekend, "is_holiday": named is not None, "holiday": named}), False
        if name == "next_business_day":
            found = days["day"] if inclusive else days["day"] + datetime.timedelta(days=1)
            while not _business(region, found):
                found += datetime.timedelta(days=1)
            skipped = (found - days["day"]).days
            return as_json({"from": days["day"].isoformat(), "next": found.isoformat(), "skipped": skipped}), False
        if name == "business_days_between":
            start, end = days["start"], days["end"]
            if start > end:
                return "start must not be after end", True
            span = [start + datetime.timedelta(days=n) for n in range((end - start).days + (1 if inclusive else 0))]
            listed = [
                {"date": day.isoformat(), "name": _holidays(region, day.year)[day]}
                for day in span
                if day.weekday() < 5 and day in _holidays(region, day.year)
            ]
            count = sum(_business(region, day) for day in span)
            return as_json(
                {"region": region, "business_days": count, "calendar_days": len(span), "holidays": listed}
            ), False
        if name == "last_business_day":
            year, month = int(args["year"]), int(args["month"])
            if not 1 <= month <= 12:
                return f"Invalid month: {month}", True
            found = datetime.date(year + month // 12, month % 12 + 1, 1) - datetime.timedelta(days=1)
            while not _business(region, found):
                found -= datetime.timedelta(days=1)
            return as_json(
                {"year": year, "month": month, "region": region, "last_business_day": found.isoformat()}
            ), False
        year = int(args["year"])
        listed = [{"date": day.isoformat(), "name": named} for day, named in sorted(_holidays(region, year).items())]
        return as_json({"year": year, "region": region, "holidays": listed}), False


def main() -> None:
    serve("business-days", TOOLS, BusinessDays().call)


if __name__ == "__main__":
    main()
