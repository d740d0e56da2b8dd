"""Cost rendering shared by the table and markdown reports.

Works on the estimate's JSON form (`StackPlan.cost.to_json()`), the contract between the
cost code and every renderer:

    {"currency": "USD", "run_hours", "hours", "hourly_usd", "monthly_usd", "total_usd",
     "complete", "line_items": [{"resource", "name", "unit", "quantity", "unit_price_usd",
     "total_usd", "source", "as_of", "assumption"}]}
"""

from __future__ import annotations

from typing import Any


def usd(x: float | None) -> str:
    return "unknown" if x is None else f"${x:,.2f}"


def headline(cost: dict[str, Any]) -> str:
    hours = cost.get("hours")
    run = cost.get("run_hours")
    span = "" if hours is None else f" for {hours:,.0f} h" + (f" (run {run:,.1f} h)" if run is not None and run != hours else "")
    flag = "" if cost.get("complete") else " (incomplete: some prices unknown)"
    return (f"{usd(cost.get('total_usd'))} total{span}; {usd(cost.get('hourly_usd'))}/h, "
            f"{usd(cost.get('monthly_usd'))}/month (730 h){flag}")
